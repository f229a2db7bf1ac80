/* Frames of the ranks of a parallel run into one, and a part of a frame
 * (the inverse, for a rank's own frame and for tests). */
#include "common/scene/frame_merge.h"

#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"

static size_t column_width(const struct mrdem_column *c)
{
	return (c->type == MRDEM_COLUMN_U32 ? 4 : 8) * c->components;
}

/* Particle i of src to index j of dst (room made, the same extra columns
 * in the same order, skipping src's column skip). */
static void copy_particle(struct mrdem_frame *dst, size_t j, const struct mrdem_frame *src,
			  size_t i, size_t skip)
{
	struct mrdem_particles *q = &dst->p;
	const struct mrdem_particles *p = &src->p;
	q->id[j] = p->id[i];
	q->shape[j] = p->shape[i];
	q->flags[j] = p->flags[i];
	memcpy(&q->pos[3 * j], &p->pos[3 * i], 3 * sizeof *q->pos);
	memcpy(&q->quat[4 * j], &p->quat[4 * i], 4 * sizeof *q->quat);
	memcpy(&q->vel[3 * j], &p->vel[3 * i], 3 * sizeof *q->vel);
	memcpy(&q->angvel[3 * j], &p->angvel[3 * i], 3 * sizeof *q->angvel);
	q->density[j] = p->density[i];
	q->eps[j] = p->eps[i];
	if (q->material)
		q->material[j] = p->material ? p->material[i] : 0;
	for (size_t c = 0, d = 0; c < src->nextra; c++) {
		if (c == skip)
			continue;
		size_t w = column_width(&src->extra[c]);
		memcpy(dst->extra[d++].data + j * w, src->extra[c].data + i * w, w);
	}
}

/* out's particle arrays for n particles, and f's extra columns but skip,
 * sized for them. */
static void frame_like(struct mrdem_frame *out, const struct mrdem_frame *f, size_t n, size_t skip)
{
	mrdem_frame_init(out);
	out->step = f->step;
	out->time = f->time;
	mrdem_particles_reserve(&out->p, n ? n : 1);
	out->p.n = n;
	if (f->p.material)
		mrdem_particles_use_material(&out->p);
	out->extra = mrdem_xcalloc(f->nextra ? f->nextra : 1, sizeof *out->extra);
	for (size_t c = 0; c < f->nextra; c++) {
		if (c == skip)
			continue;
		struct mrdem_column x = f->extra[c];
		x.name = mrdem_xstrdup(x.name);
		x.size = n * column_width(&x);
		x.data = mrdem_xcalloc(x.size ? x.size : 1, 1);
		out->extra[out->nextra++] = x;
	}
}

void mrdem_frame_select(struct mrdem_frame *out, const struct mrdem_frame *f, const size_t *idx,
			size_t m)
{
	frame_like(out, f, m, SIZE_MAX);
	for (size_t j = 0; j < m; j++)
		copy_particle(out, j, f, idx[j], SIZE_MAX);
}

/* The index of the order column of f, or SIZE_MAX after a message. */
static size_t order_column(const struct mrdem_frame *f, const char *name)
{
	for (size_t c = 0; c < f->nextra; c++) {
		const struct mrdem_column *x = &f->extra[c];
		if (strcmp(x->name, MRDEM_COLUMN_ORDER))
			continue;
		if (x->type == MRDEM_COLUMN_U64 && x->components == 1)
			return c;
		break;
	}
	mrdem_error("%s: the frame of step %llu has no '" MRDEM_COLUMN_ORDER "' column (u64 x 1) "
		    "placing its particles in the whole frame", name, (unsigned long long)f->step);
	return SIZE_MAX;
}

/* Extra column c of f, counting past its order column o. */
static const struct mrdem_column *extra_past(const struct mrdem_frame *f, size_t o, size_t c)
{
	return &f->extra[c + (c >= o)];
}

/* Whether the extra columns of a and b, their order columns (oa, ob)
 * aside, are the same in name, type and width, and their materials. */
static int same_columns(const struct mrdem_frame *a, size_t oa, const struct mrdem_frame *b,
			size_t ob)
{
	if (a->nextra != b->nextra || (a->p.material != NULL) != (b->p.material != NULL))
		return 0;
	for (size_t c = 0; c + 1 < a->nextra; c++) {
		const struct mrdem_column *x = extra_past(a, oa, c), *y = extra_past(b, ob, c);
		if (strcmp(x->name, y->name) || x->type != y->type || x->components != y->components)
			return 0;
	}
	return 1;
}

/* The little-endian u64 at p (column data as in the stream). */
static uint64_t le_u64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int k = 7; k >= 0; k--)
		v = v << 8 | p[k];
	return v;
}

/* A spring of part k, at position at of its history: the merge keeps a
 * pair's springs in their order. */
struct tagged_spring {
	struct mrdem_spring s;
	size_t part, at;
};

static int cmp_spring(const void *x, const void *y)
{
	const struct tagged_spring *a = x, *b = y;
	if (a->s.a != b->s.a)
		return a->s.a < b->s.a ? -1 : 1;
	if (a->s.b != b->s.b)
		return a->s.b < b->s.b ? -1 : 1;
	if (a->part != b->part)
		return a->part < b->part ? -1 : 1;
	return (a->at > b->at) - (a->at < b->at);
}

static int merge_history(struct mrdem_frame *out, const struct mrdem_frame *parts, size_t nparts,
			 const char *const *name)
{
	size_t n = 0;
	for (size_t k = 0; k < nparts; k++)
		n += parts[k].history.n;
	if (!n)
		return 0;
	struct tagged_spring *t = mrdem_xmalloc_array(n, sizeof *t);
	n = 0;
	for (size_t k = 0; k < nparts; k++)
		for (size_t i = 0; i < parts[k].history.n; i++)
			t[n++] = (struct tagged_spring){parts[k].history.s[i], k, i};
	qsort(t, n, sizeof *t, cmp_spring);
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		if (i && t[i].s.a == t[i - 1].s.a && t[i].s.b == t[i - 1].s.b &&
		    t[i].part != t[i - 1].part)
			rc = mrdem_error("%s and %s: the history of step %llu: both hold springs "
					 "of the pair (%llu, %llu); one rank owns a pair",
					 name[t[i - 1].part], name[t[i].part],
					 (unsigned long long)out->step, (unsigned long long)t[i].s.a,
					 (unsigned long long)t[i].s.b);
		*mrdem_history_push(&out->history) = t[i].s;
	}
	free(t);
	return rc ? -1 : 0;
}

/* Check the parts against part `like` (the first with particles): step,
 * time, columns. Fills order[k]. */
static int check_parts(const struct mrdem_frame *parts, size_t nparts, const char *const *name,
		       size_t like, size_t *order)
{
	const struct mrdem_frame *f = &parts[like];
	for (size_t k = 0; k < nparts; k++) {
		const struct mrdem_frame *g = &parts[k];
		if (g->step != f->step || memcmp(&g->time, &f->time, sizeof f->time))
			return mrdem_error("%s: its frame is of step %llu (t = %.17g s), that of %s "
					   "of step %llu (t = %.17g s)", name[k],
					   (unsigned long long)g->step, g->time, name[like],
					   (unsigned long long)f->step, f->time);
		if ((order[k] = order_column(g, name[k])) == SIZE_MAX)
			return -1;
	}
	for (size_t k = 0; k < nparts; k++)
		if (parts[k].p.n && !same_columns(&parts[k], order[k], f, order[like]))
			return mrdem_error("%s: the frame of step %llu has other columns than that "
					   "of %s", name[k], (unsigned long long)f->step,
					   name[like]);
	return 0;
}

int mrdem_frames_merge(struct mrdem_frame *out, const struct mrdem_frame *parts, size_t nparts,
		       const char *const *name)
{
	size_t *order = mrdem_xmalloc_array(nparts ? nparts : 1, sizeof *order);
	size_t n = 0, like = 0;
	for (size_t k = nparts; k-- > 0;) {
		n += parts[k].p.n;
		if (parts[k].p.n)
			like = k;
	}
	mrdem_frame_init(out);
	if (!nparts || check_parts(parts, nparts, name, like, order)) {
		free(order);
		return -1;
	}
	frame_like(out, &parts[like], n, order[like]);
	unsigned char *seen = mrdem_xcalloc(n ? n : 1, 1);
	int rc = 0;
	for (size_t k = 0; k < nparts && !rc; k++) {
		const struct mrdem_frame *g = &parts[k];
		const unsigned char *col = g->extra[order[k]].data;
		for (size_t j = 0; j < g->p.n && !rc; j++) {
			uint64_t at = le_u64(col + 8 * j);
			if (at >= n || seen[at])
				rc = mrdem_error("%s: the frame of step %llu: particle %zu (id %llu) "
						 "has order %llu, %s", name[k],
						 (unsigned long long)g->step, j,
						 (unsigned long long)g->p.id[j], (unsigned long long)at,
						 at >= n ? "beyond the particles of all parts" :
							   "which another particle has too");
			else
				copy_particle(out, (size_t)at, g, j, order[k]);
			if (at < n)
				seen[at] = 1;
		}
	}
	free(seen);
	free(order);
	if (!rc)
		rc = merge_history(out, parts, nparts, name);
	if (rc)
		mrdem_frame_release(out);
	return rc;
}
