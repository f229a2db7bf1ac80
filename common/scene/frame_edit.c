/* Particles leaving and joining a frame (flow.h): every per-particle
 * array in one place, so a new one is one line here. */
#include <stdlib.h>
#include <string.h>

#include "common/scene/flow.h"
#include "common/scene/scene.h"
#include "common/util/error.h"

/* Keep the elements (of size bytes each) of v whose drop flag is clear. */
static void compact(void *v, size_t size, size_t n, const unsigned char *drop)
{
	unsigned char *p = v;
	size_t o = 0;
	for (size_t i = 0; i < n; i++)
		if (!drop[i]) {
			if (o != i)
				memmove(p + o * size, p + i * size, size);
			o++;
		}
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return (a > b) - (a < b);
}

static int gone(const uint64_t *ids, size_t n, uint64_t id)
{
	return !mrdem_is_plane_id(id) && bsearch(&id, ids, n, sizeof *ids, cmp_u64);
}

/* The springs that name a dropped particle go with it. */
static void drop_springs(struct mrdem_history *h, const struct mrdem_particles *p,
			 const unsigned char *drop)
{
	size_t nd = 0;
	for (size_t i = 0; i < p->n; i++)
		nd += drop[i] != 0;
	if (!h->n || !nd)
		return;
	uint64_t *ids = mrdem_xmalloc_array(nd, sizeof *ids);
	nd = 0;
	for (size_t i = 0; i < p->n; i++)
		if (drop[i])
			ids[nd++] = p->id[i];
	qsort(ids, nd, sizeof *ids, cmp_u64);
	size_t o = 0;
	for (size_t k = 0; k < h->n; k++)
		if (!gone(ids, nd, h->s[k].a) && !gone(ids, nd, h->s[k].b))
			h->s[o++] = h->s[k];
	h->n = o;
	free(ids);
}

static size_t column_width(const struct mrdem_column *c)
{
	size_t t = c->type == MRDEM_COLUMN_U32 ? 4 : 8;
	return t * c->components;
}

void mrdem_frame_remove(struct mrdem_frame *f, const unsigned char *drop)
{
	struct mrdem_particles *p = &f->p;
	size_t n = p->n, kept = 0;
	for (size_t i = 0; i < n; i++)
		kept += !drop[i];
	if (kept == n)
		return;
	drop_springs(&f->history, p, drop);
	compact(p->id, sizeof *p->id, n, drop);
	compact(p->shape, sizeof *p->shape, n, drop);
	compact(p->flags, sizeof *p->flags, n, drop);
	compact(p->pos, 3 * sizeof *p->pos, n, drop);
	compact(p->quat, 4 * sizeof *p->quat, n, drop);
	compact(p->vel, 3 * sizeof *p->vel, n, drop);
	compact(p->angvel, 3 * sizeof *p->angvel, n, drop);
	compact(p->density, sizeof *p->density, n, drop);
	compact(p->eps, sizeof *p->eps, n, drop);
	if (p->material)
		compact(p->material, sizeof *p->material, n, drop);
	for (size_t c = 0; c < f->nextra; c++) {
		struct mrdem_column *col = &f->extra[c];
		compact(col->data, column_width(col), n, drop);
		col->size = kept * column_width(col);
	}
	p->n = kept;
}

size_t mrdem_frame_push(struct mrdem_frame *f, uint64_t id, uint32_t shape)
{
	size_t i = mrdem_particles_push(&f->p, id, shape);
	for (size_t c = 0; c < f->nextra; c++) {
		struct mrdem_column *col = &f->extra[c];
		size_t w = column_width(col);
		col->data = mrdem_xrealloc(col->data, (i + 1) * w);
		memset(col->data + i * w, 0, w);
		col->size = (i + 1) * w;
	}
	return i;
}

static void *dup_bytes(const void *p, size_t n)
{
	void *q = mrdem_xmalloc(n ? n : 1);
	if (n)
		memcpy(q, p, n);
	return q;
}

/* memcpy but for nothing: a frame of no particles may hold NULL arrays */
static void copy(void *dst, const void *src, size_t bytes)
{
	if (bytes)
		memcpy(dst, src, bytes);
}

void mrdem_frame_copy(struct mrdem_frame *dst, const struct mrdem_frame *src)
{
	mrdem_frame_release(dst);
	const struct mrdem_particles *p = &src->p;
	struct mrdem_particles *q = &dst->p;
	size_t n = p->n;
	dst->step = src->step;
	dst->time = src->time;
	mrdem_particles_reserve(q, n ? n : 1);
	copy(q->id, p->id, n * sizeof *p->id);
	copy(q->shape, p->shape, n * sizeof *p->shape);
	copy(q->flags, p->flags, n * sizeof *p->flags);
	copy(q->pos, p->pos, 3 * n * sizeof *p->pos);
	copy(q->quat, p->quat, 4 * n * sizeof *p->quat);
	copy(q->vel, p->vel, 3 * n * sizeof *p->vel);
	copy(q->angvel, p->angvel, 3 * n * sizeof *p->angvel);
	copy(q->density, p->density, n * sizeof *p->density);
	copy(q->eps, p->eps, n * sizeof *p->eps);
	if (p->material) {
		mrdem_particles_use_material(q);
		copy(q->material, p->material, n * sizeof *p->material);
	}
	q->n = n;
	for (size_t k = 0; k < src->history.n; k++)
		*mrdem_history_push(&dst->history) = src->history.s[k];
	if (src->nextra) {
		dst->extra = mrdem_xmalloc_array(src->nextra, sizeof *dst->extra);
		for (size_t c = 0; c < src->nextra; c++) {
			dst->extra[c] = src->extra[c];
			dst->extra[c].name = mrdem_xstrdup(src->extra[c].name);
			dst->extra[c].data = dup_bytes(src->extra[c].data, src->extra[c].size);
		}
		dst->nextra = src->nextra;
	}
}
