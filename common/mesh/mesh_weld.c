/* Exact vertex welding with an open-addressing hash on coordinate bits. */
#include "common/mesh/mesh_weld.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"
#include "common/util/hash.h"

static uint64_t coord_bits(double x)
{
	uint64_t u;
	if (x == 0)
		x = 0; /* -0 and +0 are the same point */
	memcpy(&u, &x, sizeof u);
	return u;
}

static uint64_t point_hash(const double p[3])
{
	uint64_t h = mrdem_mix64(coord_bits(p[0]) + 0x9e3779b97f4a7c15ULL);
	h = mrdem_mix64(h ^ coord_bits(p[1]));
	return mrdem_mix64(h ^ coord_bits(p[2]));
}

static int same_point(const double a[3], const double b[3])
{
	return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

void mrdem_weld_init(struct mrdem_weld *w, size_t expect)
{
	w->n = 0;
	w->cap = expect > 16 ? expect : 16;
	w->verts = mrdem_xmalloc_array(w->cap * 3, sizeof *w->verts);
	w->hcap = 64;
	while (w->hcap < 2 * w->cap)
		w->hcap *= 2;
	w->slot = mrdem_xcalloc(w->hcap, sizeof *w->slot);
}

void mrdem_weld_release(struct mrdem_weld *w)
{
	free(w->verts);
	free(w->slot);
	memset(w, 0, sizeof *w);
}

static void rehash(struct mrdem_weld *w)
{
	free(w->slot);
	w->hcap *= 2;
	w->slot = mrdem_xcalloc(w->hcap, sizeof *w->slot);
	for (size_t i = 0; i < w->n; i++) {
		size_t h = point_hash(&w->verts[3 * i]) & (w->hcap - 1);
		while (w->slot[h])
			h = (h + 1) & (w->hcap - 1);
		w->slot[h] = (uint32_t)(i + 1);
	}
}

int mrdem_weld_add(struct mrdem_weld *w, const double p[3], uint32_t *index)
{
	if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]))
		return mrdem_error("vertex (%g, %g, %g) is not finite", p[0], p[1], p[2]);
	size_t h = point_hash(p) & (w->hcap - 1);
	while (w->slot[h]) {
		uint32_t i = w->slot[h] - 1;
		if (same_point(&w->verts[3 * (size_t)i], p)) {
			*index = i;
			return 0;
		}
		h = (h + 1) & (w->hcap - 1);
	}
	if (w->n >= UINT32_MAX - 1)
		return mrdem_error("too many vertices (more than %lu)", (unsigned long)UINT32_MAX - 1);
	if (w->n == w->cap) {
		w->cap *= 2;
		w->verts = mrdem_xrealloc(w->verts, w->cap * 3 * sizeof *w->verts);
	}
	double *v = &w->verts[3 * w->n];
	v[0] = p[0] == 0 ? 0 : p[0];
	v[1] = p[1] == 0 ? 0 : p[1];
	v[2] = p[2] == 0 ? 0 : p[2];
	w->slot[h] = (uint32_t)(w->n + 1);
	*index = (uint32_t)w->n++;
	if (2 * w->n > w->hcap)
		rehash(w);
	return 0;
}

double *mrdem_weld_take(struct mrdem_weld *w, uint32_t *nverts)
{
	double *v = w->verts;
	*nverts = (uint32_t)w->n;
	free(w->slot);
	memset(w, 0, sizeof *w);
	return v;
}
