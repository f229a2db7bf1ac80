/* Reading the streams of the ranks of a parallel run side by side. */
#include "formats/stream/rank_parts.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"
#include "formats/stream/record_mechanics.h"
#include "formats/stream/records.h"

/* More ranks than this is a damaged meta record, not a run. */
#define MAX_RANKS 1000000u

static void keep(struct mrdem_record *dst, const struct mrdem_record *src)
{
	*dst = *src;
	dst->data = mrdem_xmalloc(src->len ? src->len : 1);
	if (src->len)
		memcpy(dst->data, src->data, src->len);
}

static void kept_push(struct mrdem_kept_records *k, const struct mrdem_record *rec)
{
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 8;
		k->v = mrdem_xrealloc(k->v, k->cap * sizeof *k->v);
	}
	keep(&k->v[k->n++], rec);
}

void mrdem_kept_records_release(struct mrdem_kept_records *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->v[i].data);
	free(k->v);
	memset(k, 0, sizeof *k);
}

static const char *meta_value(const struct mrdem_meta *m, const char *key)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->keys[i], key))
			return m->values[i];
	return NULL;
}

/* A decimal count without sign or leading zeros, all of s; -1 if not. */
static long decimal(const char *s, size_t len)
{
	if (!len || len > 9 || (s[0] == '0' && len > 1))
		return -1;
	long v = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = 10 * v + (s[i] - '0');
	}
	return v;
}

/* The rank K of a file name rank-K.mrd; -1 for another rank-*.mrd; -2
 * for a name that is no part's. */
static long part_rank(const char *name)
{
	size_t len = strlen(name);
	if (len < 9 || strncmp(name, "rank-", 5) || strcmp(name + len - 4, ".mrd"))
		return -2;
	return decimal(name + 5, len - 9);
}

static int part_open(struct mrdem_rank_parts *rp, unsigned k)
{
	struct mrdem_rank_part *p = &rp->part[k];
	size_t len = strlen(rp->dir) + 32;
	p->path = mrdem_xmalloc(len);
	snprintf(p->path, len, "%s/rank-%u.mrd", rp->dir, k);
	rp->names[k] = p->path;
	return mrdem_reader_open(&p->r, p->path, 0);
}

/* The next record of part p that is not an index or end record: 1, 0 at
 * the end of its stream, -1 after a message. */
static int part_read(struct mrdem_rank_part *p, struct mrdem_record *rec)
{
	for (;;) {
		int rc = mrdem_reader_next(&p->r, rec);
		if (rc <= 0)
			return rc;
		if (rec->segment)
			return mrdem_error("%s: holds more than one stream; a part is one", p->path);
		if (rec->type != MRDEM_REC_INDEX && rec->type != MRDEM_REC_END)
			return 1;
	}
}

/* Part k's meta record m: of the tool, naming rank k, the run's ranks, id
 * and grid those of part 0 (rp->meta); part 0's sets rp->n. */
static int check_meta(struct mrdem_rank_parts *rp, unsigned k, const struct mrdem_meta *m)
{
	const char *path = rp->names[k];
	const char *rank = meta_value(m, "rank"), *ranks = meta_value(m, "ranks");
	if (strcmp(m->tool, MRDEM_RANK_TOOL) || !rank || !ranks || !meta_value(m, "run") ||
	    !meta_value(m, "grid"))
		return mrdem_error("%s: its meta record is of %s; a part of a parallel run has one "
				   "of " MRDEM_RANK_TOOL " with keys rank, ranks, run and grid", path,
				   m->tool);
	long r = decimal(rank, strlen(rank)), n = decimal(ranks, strlen(ranks));
	if (n < 1 || (unsigned long)n > MAX_RANKS || r != (long)k)
		return mrdem_error("%s: its meta record says rank %s of %s ranks; the file is "
				   "rank %u's", path, rank, ranks, k);
	if (k == 0) {
		rp->n = (unsigned)n;
		return 0;
	}
	static const char *const same[] = {"ranks", "run", "grid"};
	for (size_t i = 0; i < 3; i++)
		if (strcmp(meta_value(m, same[i]), meta_value(&rp->meta, same[i])))
			return mrdem_error("%s: %s '%s' in its meta record, but %s has '%s': parts "
					   "of different runs", path, same[i],
					   meta_value(m, same[i]), rp->names[0],
					   meta_value(&rp->meta, same[i]));
	return 0;
}

/* Part k's meta record (first) and its records up to its first frame,
 * kept in its `next`; part 0's header records go into rp->header, the
 * others' are compared with them. */
static int read_head(struct mrdem_rank_parts *rp, unsigned k)
{
	struct mrdem_rank_part *p = &rp->part[k];
	struct mrdem_record rec;
	int rc = part_read(p, &rec);
	if (rc <= 0 || rec.type != MRDEM_REC_META)
		return rc < 0 ? -1 : mrdem_error("%s: does not start with a meta record", p->path);
	struct mrdem_meta m;
	if (mrdem_decode_meta(&rec, p->path, &m))
		return -1;
	rc = check_meta(rp, k, &m);
	if (k == 0 && !rc)
		rp->meta = m;
	else
		mrdem_meta_release(&m);
	if (rc)
		return -1;
	size_t at = 0;
	while ((rc = part_read(p, &rec)) > 0 && rec.type != MRDEM_REC_FRAME) {
		if (rec.type == MRDEM_REC_META)
			continue;
		if (k == 0) {
			kept_push(&rp->header, &rec);
			continue;
		}
		const struct mrdem_record *h = at < rp->header.n ? &rp->header.v[at] : NULL;
		if (!h || h->type != rec.type || h->len != rec.len || memcmp(h->data, rec.data, rec.len))
			return mrdem_record_error(&rec, p->path, "differs from the header record "
						  "%zu of %s; the parts of a run share the scene",
						  at, rp->names[0]);
		at++;
	}
	if (rc < 0)
		return -1;
	if (!rc)
		return mrdem_error("%s: has no frame", p->path);
	if (k && at != rp->header.n)
		return mrdem_error("%s: %zu header records before its first frame, %s has %zu",
				   p->path, at, rp->names[0], rp->header.n);
	keep(&p->next, &rec);
	p->have_next = 1;
	return 0;
}

/* Every rank-*.mrd of the directory is one of the n parts. */
static int check_listing(const struct mrdem_rank_parts *rp)
{
	DIR *d = opendir(rp->dir);
	if (!d)
		return mrdem_error("%s: %s", rp->dir, strerror(errno));
	unsigned char *seen = mrdem_xcalloc(rp->n, 1);
	struct dirent *e;
	int rc = 0;
	while (!rc && (e = readdir(d))) {
		long k = part_rank(e->d_name);
		if (k == -2)
			continue;
		if (k < 0 || (unsigned long)k >= rp->n)
			rc = mrdem_error("%s: part %s is not one of the run's %u (rank-0.mrd .. "
					 "rank-%u.mrd)", rp->dir, e->d_name, rp->n, rp->n - 1);
		else
			seen[k] = 1;
	}
	closedir(d);
	for (unsigned k = 0; k < rp->n && !rc; k++)
		if (!seen[k])
			rc = mrdem_error("%s: part rank-%u.mrd is missing (the run has %u ranks, "
					 "rank-0.mrd .. rank-%u.mrd)", rp->dir, k, rp->n, rp->n - 1);
	free(seen);
	return rc;
}

/* The number of ranks, from part 0's meta record (a reader of its own:
 * the parts' readers cannot move once open, zlib keeps their address). */
static int count_ranks(struct mrdem_rank_parts *rp)
{
	struct mrdem_rank_part *p = &rp->part[0];
	struct mrdem_record rec;
	struct mrdem_meta m;
	int rc = part_read(p, &rec);
	if (rc <= 0 || rec.type != MRDEM_REC_META)
		return rc < 0 ? -1 : mrdem_error("%s: does not start with a meta record", p->path);
	if (mrdem_decode_meta(&rec, p->path, &m))
		return -1;
	rc = check_meta(rp, 0, &m);
	mrdem_meta_release(&m);
	mrdem_reader_close(&p->r);
	free(p->path);
	p->path = NULL;
	return rc;
}

int mrdem_rank_parts_open(struct mrdem_rank_parts *rp, const char *dir)
{
	memset(rp, 0, sizeof *rp);
	rp->dir = mrdem_xstrdup(dir);
	for (size_t len = strlen(rp->dir); len > 1 && rp->dir[len - 1] == '/';)
		rp->dir[--len] = 0; /* DIR/ names its parts DIR/rank-K.mrd too */
	rp->n = rp->nalloc = 1;
	rp->part = mrdem_xcalloc(1, sizeof *rp->part);
	rp->names = mrdem_xcalloc(1, sizeof *rp->names);
	size_t len = strlen(rp->dir) + 16;
	char *first = mrdem_xmalloc(len);
	snprintf(first, len, "%s/rank-0.mrd", rp->dir);
	FILE *f = fopen(first, "rb");
	free(first);
	if (!f)
		return mrdem_error("%s: part rank-0.mrd is missing (%s)", rp->dir, strerror(errno));
	fclose(f);
	if (part_open(rp, 0) || count_ranks(rp) || check_listing(rp))
		return -1;
	free(rp->part);
	free(rp->names);
	rp->part = mrdem_xcalloc(rp->n, sizeof *rp->part);
	rp->nalloc = rp->n;
	rp->names = mrdem_xcalloc(rp->n, sizeof *rp->names);
	for (unsigned k = 0; k < rp->n; k++)
		if (part_open(rp, k) || read_head(rp, k))
			return -1;
	return 0;
}

void mrdem_rank_parts_close(struct mrdem_rank_parts *rp)
{
	for (unsigned k = 0; k < rp->nalloc; k++) {
		struct mrdem_rank_part *p = &rp->part[k];
		if (p->path)
			mrdem_reader_close(&p->r);
		if (p->have_next)
			free(p->next.data);
		free(p->path);
	}
	free(rp->part);
	free(rp->names);
	if (rp->meta.tool)
		mrdem_meta_release(&rp->meta);
	mrdem_kept_records_release(&rp->header);
	free(rp->dir);
	memset(rp, 0, sizeof *rp);
}

void mrdem_part_frame_release(struct mrdem_part_frame *pf)
{
	mrdem_frame_release(&pf->frame);
	mrdem_kept_records_release(&pf->after);
}

/* Part p's frame read ahead, decoded, and the records after it up to the
 * next frame (read ahead in turn) or its end. */
static int part_next(struct mrdem_rank_part *p, struct mrdem_part_frame *pf)
{
	memset(pf, 0, sizeof *pf);
	mrdem_frame_init(&pf->frame);
	pf->index = p->next.index;
	int rc = mrdem_decode_frame(&p->next, p->path, &pf->frame);
	free(p->next.data);
	p->have_next = 0;
	if (rc)
		return -1;
	struct mrdem_record rec;
	while ((rc = part_read(p, &rec)) > 0) {
		if (rec.type == MRDEM_REC_FRAME) {
			keep(&p->next, &rec);
			p->have_next = 1;
			return 0;
		}
		if (rec.type == MRDEM_REC_HISTORY && !pf->after.n) {
			uint64_t step;
			if (mrdem_decode_history(&rec, p->path, &step, &pf->frame.history))
				return -1;
			if (step != pf->frame.step)
				return mrdem_record_error(&rec, p->path, "history of step %llu after "
							  "the frame of step %llu",
							  (unsigned long long)step,
							  (unsigned long long)pf->frame.step);
			continue;
		}
		kept_push(&pf->after, &rec);
	}
	return rc < 0 ? -1 : 0;
}

int mrdem_rank_parts_next(struct mrdem_rank_parts *rp, struct mrdem_part_frame *pf)
{
	int ended = !rp->part[0].have_next;
	for (unsigned k = 0; k < rp->n; k++) {
		memset(&pf[k], 0, sizeof pf[k]);
		mrdem_frame_init(&pf[k].frame);
	}
	for (unsigned k = 1; k < rp->n; k++)
		if (!rp->part[k].have_next != !!ended)
			return mrdem_error("%s: %s has %s frames than %s", rp->dir, rp->names[0],
					   ended ? "fewer" : "more", rp->names[k]);
	if (ended)
		return 0;
	for (unsigned k = 0; k < rp->n; k++)
		if (part_next(&rp->part[k], &pf[k]))
			return -1;
	return 1;
}
