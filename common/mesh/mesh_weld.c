/* Exact vertex welding with an open-addressing hash on coordinate bits. */
#include "common/mesh/mesh_weld.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/vec3.h"
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

/* ---- welding by distance: a hash grid of cell size tol over the kept
 * vertices; a vertex's candidates lie in the 27 cells around its own. */

static uint64_t cell_hash(const int64_t c[3])
{
	uint64_t h = mrdem_mix64((uint64_t)c[0] + 0x9e3779b97f4a7c15ULL);
	h = mrdem_mix64(h ^ (uint64_t)c[1]);
	return mrdem_mix64(h ^ (uint64_t)c[2]);
}

int mrdem_mesh_weld(struct mrdem_mesh *m, double tol, uint32_t *merged, uint32_t *dropped)
{
	if (!(tol > 0) || !isfinite(tol))
		return mrdem_error("weld tolerance %g: must be positive and finite", tol);
	double lo[3], hi[3];
	mrdem_mesh_bbox(m, lo, hi);
	for (int k = 0; k < 3; k++)
		if (!((hi[k] - lo[k]) / tol < 0x1p52))
			return mrdem_error("weld tolerance %g is too small for coordinates spanning %g",
					   tol, hi[k] - lo[k]);
	uint32_t n = m->nverts;
	size_t hcap = 64;
	while (hcap < 2 * (size_t)n)
		hcap *= 2;
	uint32_t *head = mrdem_xcalloc(hcap, sizeof *head);     /* kept vertex + 1 */
	uint32_t *next = mrdem_xcalloc(n ? n : 1, sizeof *next); /* chain, + 1 */
	uint32_t *map = mrdem_xmalloc_array(n ? n : 1, sizeof *map);
	for (uint32_t i = 0; i < n; i++) {
		const double *p = &m->verts[3 * (size_t)i];
		int64_t c[3], d[3];
		for (int k = 0; k < 3; k++)
			c[k] = (int64_t)floor((p[k] - lo[k]) / tol);
		uint32_t best = i;
		double bd = tol * tol;
		for (int dx = -1; dx <= 1; dx++)
			for (int dy = -1; dy <= 1; dy++)
				for (int dz = -1; dz <= 1; dz++) {
					d[0] = c[0] + dx, d[1] = c[1] + dy, d[2] = c[2] + dz;
					for (uint32_t j = head[cell_hash(d) & (hcap - 1)]; j; j = next[j - 1]) {
						double e = vec3_dist2(p, &m->verts[3 * (size_t)(j - 1)]);
						if (e < bd || (e == bd && best == i)) {
							bd = e;
							best = j - 1;
						}
					}
				}
		map[i] = best;
		if (best == i) {
			size_t h = cell_hash(c) & (hcap - 1);
			next[i] = head[h];
			head[h] = i + 1;
		}
	}
	free(head);
	free(next);

	/* renumber the triangles, drop collapsed ones, keep used vertices */
	uint32_t *tris = mrdem_xmalloc_array(3 * (size_t)m->ntris + 1, sizeof *tris);
	uint32_t nt = 0;
	for (uint32_t t = 0; t < m->ntris; t++) {
		uint32_t a = map[m->tris[3 * (size_t)t]], b = map[m->tris[3 * (size_t)t + 1]],
			 c = map[m->tris[3 * (size_t)t + 2]];
		if (a == b || b == c || a == c)
			continue;
		tris[3 * (size_t)nt] = a, tris[3 * (size_t)nt + 1] = b, tris[3 * (size_t)nt + 2] = c;
		nt++;
	}
	uint32_t *renum = mrdem_xmalloc_array(n ? n : 1, sizeof *renum);
	for (uint32_t i = 0; i < n; i++)
		renum[i] = UINT32_MAX;
	for (size_t k = 0; k < 3 * (size_t)nt; k++)
		renum[tris[k]] = 0;
	uint32_t nv = 0; /* used vertices keep their order */
	for (uint32_t i = 0; i < n; i++)
		if (renum[i] == 0)
			renum[i] = nv++;
	double *verts = mrdem_xmalloc_array(3 * (size_t)nv + 1, sizeof *verts);
	for (uint32_t i = 0; i < n; i++)
		if (renum[i] != UINT32_MAX)
			memcpy(&verts[3 * (size_t)renum[i]], &m->verts[3 * (size_t)i], 3 * sizeof *verts);
	for (size_t k = 0; k < 3 * (size_t)nt; k++)
		tris[k] = renum[tris[k]];
	free(renum);
	free(map);
	if (merged)
		*merged = n - nv;
	if (dropped)
		*dropped = m->ntris - nt;
	free(m->verts);
	free(m->tris);
	m->verts = verts;
	m->tris = tris;
	m->nverts = nv;
	m->ntris = nt;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Every undirected edge belongs to exactly two triangles. */
static int edges_paired(const struct mrdem_mesh *m)
{
	size_t ne = 3 * (size_t)m->ntris;
	if (!ne)
		return 0;
	uint64_t *e = mrdem_xmalloc_array(ne, sizeof *e);
	for (size_t k = 0; k < ne; k++) {
		uint64_t a = m->tris[k], b = m->tris[k % 3 == 2 ? k - 2 : k + 1];
		e[k] = a < b ? a << 32 | b : b << 32 | a;
	}
	qsort(e, ne, sizeof *e, cmp_u64);
	int ok = 1;
	for (size_t i = 0; i < ne && ok;) {
		size_t j = i + 1;
		while (j < ne && e[j] == e[i])
			j++;
		ok = j - i == 2;
		i = j;
	}
	free(e);
	return ok;
}

double mrdem_mesh_weld_closes(const struct mrdem_mesh *m)
{
	double lo[3], hi[3];
	mrdem_mesh_bbox(m, lo, hi);
	double diag = sqrt(vec3_dist2(lo, hi));
	if (!(diag > 0) || !isfinite(diag))
		return 0;
	for (int e = (int)floor(log10(1e-9 * diag)); e <= (int)floor(log10(1e-6 * diag)); e++) {
		double tol = pow(10, e);
		struct mrdem_mesh w;
		mrdem_mesh_init(&w);
		mrdem_mesh_copy(&w, m);
		int closes = !mrdem_mesh_weld(&w, tol, NULL, NULL) && edges_paired(&w);
		mrdem_mesh_release(&w);
		if (closes)
			return tol;
	}
	return 0;
}
