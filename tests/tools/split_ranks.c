/* split_ranks: the streams the ranks of a parallel run would write
 * (docs/parallel.md, "Merging the ranks' streams"), made from the stream of
 * a one-rank run, for the tests of mrdem-merge:
 *
 *   split_ranks [--run HEX] [--frames K] [--bad-order | --no-order] IN N DIR
 *
 * writes DIR/rank-K.mrd for K = 0 .. N-1. A free particle belongs to the
 * slab of the frame's x range it lies in (N slabs), a fixed one to rank 0;
 * a pair, its contacts and springs to the rank of its first free particle
 * (by frame index; rank 0 when both are fixed). Stats of mrdem-step become
 * zeros (mrdem-merge computes them afresh); others are split so that the
 * merge's rules give them back: sums in shares, maxima in every part.
 * --frames K ends the parts after K frames, --bad-order gives two
 * particles of the last part one order, --no-order leaves the column out. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/scene/frame_merge.h"
#include "common/scene/id_index.h"
#include "common/scene/stats_merge.h"
#include "common/util/error.h"
#include "formats/stream/meta.h"
#include "formats/stream/rank_parts.h"
#include "formats/stream/records.h"

struct split {
	unsigned n;
	struct mrdem_writer *w;
	const char *in;
	int bad_order, no_order;
	long frames_left;             /* --frames: the frames still to write */
	struct mrdem_scene scene;
	int pending;                  /* a frame absorbed and not yet written */
	unsigned *owner;              /* of each particle of the frame */
	struct mrdem_id_index index;
};

/* Which rank owns particle i of the frame. */
static void own_particles(struct split *sp)
{
	const struct mrdem_particles *p = &sp->scene.frame.p;
	double lo = INFINITY, hi = -INFINITY;
	for (size_t i = 0; i < p->n; i++)
		if (!(p->flags[i] & MRDEM_PARTICLE_FIXED)) {
			lo = fmin(lo, p->pos[3 * i]);
			hi = fmax(hi, p->pos[3 * i]);
		}
	sp->owner = mrdem_xrealloc(sp->owner, (p->n ? p->n : 1) * sizeof *sp->owner);
	for (size_t i = 0; i < p->n; i++) {
		double t = hi > lo ? (p->pos[3 * i] - lo) / (hi - lo) : 0;
		unsigned k = (unsigned)(t * sp->n);
		sp->owner[i] = p->flags[i] & MRDEM_PARTICLE_FIXED ? 0 : k < sp->n ? k : sp->n - 1;
	}
}

/* The rank of a pair (or its contacts, springs): its first free particle's. */
static unsigned pair_owner(const struct split *sp, uint64_t a, uint64_t b)
{
	const struct mrdem_particles *p = &sp->scene.frame.p;
	size_t i = mrdem_is_plane_id(a) ? MRDEM_NO_INDEX : mrdem_id_index_find(&sp->index, a);
	size_t j = mrdem_is_plane_id(b) ? MRDEM_NO_INDEX : mrdem_id_index_find(&sp->index, b);
	if (j != MRDEM_NO_INDEX && (i == MRDEM_NO_INDEX || j < i)) {
		size_t t = i;
		i = j;
		j = t;
	}
	if (i != MRDEM_NO_INDEX && !(p->flags[i] & MRDEM_PARTICLE_FIXED))
		return sp->owner[i];
	if (j != MRDEM_NO_INDEX && !(p->flags[j] & MRDEM_PARTICLE_FIXED))
		return sp->owner[j];
	return 0;
}

/* Rank k's frame: its particles, their order column, its springs. */
static int write_part_frame(struct split *sp, unsigned k)
{
	const struct mrdem_frame *f = &sp->scene.frame;
	size_t *idx = mrdem_xmalloc_array(f->p.n ? f->p.n : 1, sizeof *idx), m = 0;
	for (size_t i = 0; i < f->p.n; i++)
		if (sp->owner[i] == k)
			idx[m++] = i;
	struct mrdem_frame part;
	mrdem_frame_select(&part, f, idx, m);
	if (sp->bad_order && k == sp->n - 1 && m >= 2)
		idx[1] = idx[0];
	if (!sp->no_order) {
		struct mrdem_column x = {mrdem_xstrdup(MRDEM_COLUMN_ORDER), MRDEM_COLUMN_U64, 1,
					 8 * m, mrdem_xmalloc(8 * m + 1)};
		for (size_t j = 0; j < m; j++)
			for (int b = 0; b < 8; b++)
				x.data[8 * j + b] = (unsigned char)((uint64_t)idx[j] >> (8 * b));
		part.extra = mrdem_xrealloc(part.extra, (part.nextra + 1) * sizeof *part.extra);
		part.extra[part.nextra++] = x;
	}
	for (size_t s = 0; s < f->history.n; s++)
		if (pair_owner(sp, f->history.s[s].a, f->history.s[s].b) == k)
			*mrdem_history_push(&part.history) = f->history.s[s];
	int rc = mrdem_write_frame(&sp->w[k], &part);
	mrdem_frame_release(&part);
	free(idx);
	return rc;
}

static int flush_frame(struct split *sp)
{
	if (!sp->pending)
		return 0;
	sp->pending = 0;
	own_particles(sp);
	if (mrdem_id_index_build(&sp->index, &sp->scene.frame.p))
		return -1;
	for (unsigned k = 0; k < sp->n; k++)
		if (write_part_frame(sp, k))
			return -1;
	return 0;
}

static int split_pairs(struct split *sp, const struct mrdem_record *rec)
{
	struct mrdem_pairs all, part;
	if (mrdem_decode_pairs(rec, sp->in, &all))
		return -1;
	int rc = 0;
	for (unsigned k = 0; k < sp->n && !rc; k++) {
		mrdem_pairs_init(&part);
		part.step = all.step;
		for (size_t i = 0; i < all.n; i++)
			if (pair_owner(sp, all.p[i].a, all.p[i].b) == k)
				mrdem_pairs_push(&part, all.p[i].a, all.p[i].b);
		rc = mrdem_write_pairs(&sp->w[k], &part);
		mrdem_pairs_release(&part);
	}
	mrdem_pairs_release(&all);
	return rc;
}

static int split_contacts(struct split *sp, const struct mrdem_record *rec)
{
	struct mrdem_contacts all, part;
	if (mrdem_decode_contacts(rec, sp->in, &all))
		return -1;
	int rc = 0;
	for (unsigned k = 0; k < sp->n && !rc; k++) {
		mrdem_contacts_init(&part);
		part.step = all.step;
		for (size_t i = 0; i < all.n; i++)
			if (pair_owner(sp, all.c[i].a, all.c[i].b) == k)
				*mrdem_contacts_push(&part) = all.c[i];
		rc = mrdem_write_contacts(&sp->w[k], &part);
		mrdem_contacts_release(&part);
	}
	mrdem_contacts_release(&all);
	return rc;
}

/* Rank k's share of value v: maxima in every part, counts in shares that
 * sum back exactly, other values in rank 0's; mrdem-step's zero. */
static double share(const struct split *sp, const struct mrdem_stats *st, size_t i, unsigned k)
{
	double v = st->values[i];
	if (!strcmp(st->source, "mrdem-step"))
		return 0;
	if (mrdem_stat_rule(st->names[i]) == MRDEM_STAT_MAX)
		return v;
	if (v >= 0 && v < 9007199254740992.0 && v == floor(v)) {
		double each = floor(v / sp->n);
		return k ? each : v - (sp->n - 1) * each;
	}
	return k ? 0 : v;
}

static int split_stats(struct split *sp, const struct mrdem_record *rec)
{
	struct mrdem_stats all, part;
	if (mrdem_decode_stats(rec, sp->in, &all))
		return -1;
	int rc = 0;
	for (unsigned k = 0; k < sp->n && !rc; k++) {
		mrdem_stats_init(&part, all.source, all.step);
		for (size_t i = 0; i < all.n; i++)
			mrdem_stats_add(&part, all.names[i], share(sp, &all, i, k));
		rc = mrdem_write_stats(&sp->w[k], &part);
		mrdem_stats_release(&part);
	}
	mrdem_stats_release(&all);
	return rc;
}

static int split_record(struct split *sp, const struct mrdem_record *rec)
{
	if (rec->type == MRDEM_REC_META || rec->type == MRDEM_REC_INDEX || rec->type == MRDEM_REC_END)
		return 0;
	if (rec->type == MRDEM_REC_FRAME && sp->frames_left-- == 0)
		sp->frames_left = -1; /* the rest of the input is left out */
	if (sp->frames_left < 0)
		return 0;
	if (rec->type == MRDEM_REC_HISTORY || rec->type == MRDEM_REC_FRAME) {
		if (rec->type == MRDEM_REC_FRAME && flush_frame(sp))
			return -1;
		sp->pending = 1;
		return mrdem_scene_absorb(&sp->scene, rec, sp->in) < 0 ? -1 : 0;
	}
	int frames = sp->pending || sp->owner;
	if (flush_frame(sp))
		return -1;
	if (!frames) { /* the header: the same in every part */
		if (mrdem_scene_absorb(&sp->scene, rec, sp->in) < 0)
			return -1;
		for (unsigned k = 0; k < sp->n; k++)
			if (mrdem_writer_put_record(&sp->w[k], rec))
				return -1;
		return 0;
	}
	switch (rec->type) {
	case MRDEM_REC_PAIRS: return split_pairs(sp, rec);
	case MRDEM_REC_CONTACTS: return split_contacts(sp, rec);
	case MRDEM_REC_STATS: return split_stats(sp, rec);
	default:
		return mrdem_record_error(rec, sp->in, "a %s record: not split",
					  mrdem_record_name(rec->type));
	}
}

static int open_parts(struct split *sp, const char *dir, const char *run, int argc, char **argv)
{
	char grid[32], num[16], path[4096];
	snprintf(grid, sizeof grid, "%ux1x1", sp->n);
	for (unsigned k = 0; k < sp->n; k++) {
		snprintf(path, sizeof path, "%s/rank-%u.mrd", dir, k);
		if (mrdem_writer_open(&sp->w[k], path, 0))
			return -1;
		struct mrdem_meta m;
		mrdem_meta_init(&m, MRDEM_RANK_TOOL, argc, argv);
		snprintf(num, sizeof num, "%u", k);
		mrdem_meta_add(&m, "rank", num);
		snprintf(num, sizeof num, "%u", sp->n);
		mrdem_meta_add(&m, "ranks", num);
		mrdem_meta_add(&m, "run", run);
		mrdem_meta_add(&m, "grid", grid);
		int rc = mrdem_write_meta(&sp->w[k], &m);
		mrdem_meta_release(&m);
		if (rc)
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	mrdem_set_progname(argv[0]);
	struct split sp = {.frames_left = 1L << 40};
	const char *run = "5eed";
	int a = 1;
	for (; a < argc && argv[a][0] == '-'; a++) {
		if (!strcmp(argv[a], "--run") && a + 1 < argc)
			run = argv[++a];
		else if (!strcmp(argv[a], "--frames") && a + 1 < argc)
			sp.frames_left = atol(argv[++a]);
		else if (!strcmp(argv[a], "--bad-order"))
			sp.bad_order = 1;
		else if (!strcmp(argv[a], "--no-order"))
			sp.no_order = 1;
		else
			break;
	}
	if (argc - a != 3 || atoi(argv[a + 1]) < 1) {
		fputs("usage: split_ranks [--run HEX] [--frames K] [--bad-order | --no-order] IN N DIR\n",
		      stderr);
		return 2;
	}
	sp.in = argv[a];
	sp.n = (unsigned)atoi(argv[a + 1]);
	sp.w = mrdem_xcalloc(sp.n, sizeof *sp.w);
	mrdem_scene_init(&sp.scene);
	mrdem_id_index_init(&sp.index);
	struct mrdem_reader r;
	struct mrdem_record rec;
	int rc = mrdem_reader_open(&r, sp.in, 0) || open_parts(&sp, argv[a + 2], run, argc, argv);
	int got = 0;
	while (!rc && (got = mrdem_reader_next(&r, &rec)) > 0)
		rc = split_record(&sp, &rec);
	rc = rc || got < 0 || flush_frame(&sp);
	for (unsigned k = 0; k < sp.n; k++)
		if (rc || mrdem_writer_commit(&sp.w[k]))
			mrdem_writer_abort(&sp.w[k]), rc = -1;
	mrdem_reader_close(&r);
	mrdem_id_index_release(&sp.index);
	mrdem_scene_release(&sp.scene);
	free(sp.owner);
	free(sp.w);
	return rc ? 1 : 0;
}
