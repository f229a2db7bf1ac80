/* Mesh storage and simple whole-mesh measures. */
#include "common/mesh/mesh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/vec3.h"
#include "common/util/error.h"

void mrdem_mesh_init(struct mrdem_mesh *m)
{
	memset(m, 0, sizeof *m);
}

void mrdem_mesh_release(struct mrdem_mesh *m)
{
	free(m->verts);
	free(m->tris);
	mrdem_mesh_init(m);
}

void mrdem_mesh_alloc(struct mrdem_mesh *m, uint32_t nverts, uint32_t ntris)
{
	mrdem_mesh_release(m);
	m->nverts = nverts;
	m->ntris = ntris;
	m->verts = mrdem_xmalloc_array((size_t)nverts * 3, sizeof *m->verts);
	m->tris = mrdem_xmalloc_array((size_t)ntris * 3, sizeof *m->tris);
}

void mrdem_mesh_copy(struct mrdem_mesh *dst, const struct mrdem_mesh *src)
{
	if (dst == src)
		return;
	mrdem_mesh_alloc(dst, src->nverts, src->ntris);
	memcpy(dst->verts, src->verts, (size_t)src->nverts * 3 * sizeof *src->verts);
	memcpy(dst->tris, src->tris, (size_t)src->ntris * 3 * sizeof *src->tris);
	dst->open = src->open;
	dst->mass = src->mass;
}

void mrdem_mesh_bbox(const struct mrdem_mesh *m, double lo[3], double hi[3])
{
	if (!m->nverts) {
		vec3_set(lo, 0, 0, 0);
		vec3_set(hi, 0, 0, 0);
		return;
	}
	vec3_copy(lo, m->verts);
	vec3_copy(hi, m->verts);
	for (uint32_t i = 1; i < m->nverts; i++) {
		const double *v = &m->verts[3 * (size_t)i];
		for (int k = 0; k < 3; k++) {
			if (v[k] < lo[k])
				lo[k] = v[k];
			if (v[k] > hi[k])
				hi[k] = v[k];
		}
	}
}

double mrdem_mesh_radius_about(const struct mrdem_mesh *m, const double c[3])
{
	double r2 = 0;
	for (uint32_t i = 0; i < m->nverts; i++) {
		double d = vec3_norm2((double[3]){ m->verts[3 * (size_t)i] - c[0],
						   m->verts[3 * (size_t)i + 1] - c[1],
						   m->verts[3 * (size_t)i + 2] - c[2] });
		if (d > r2)
			r2 = d;
	}
	return sqrt(r2);
}

/* A half-edge keyed by its unordered ends. */
struct half_edge {
	uint32_t lo, hi, k;
};

static int cmp_half_edge(const void *x, const void *y)
{
	const struct half_edge *a = x, *b = y;
	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	if (a->hi != b->hi)
		return a->hi < b->hi ? -1 : 1;
	return a->k < b->k ? -1 : a->k > b->k;
}

void mrdem_mesh_twins(const struct mrdem_mesh *m, uint32_t *twin)
{
	size_t nh = 3 * (size_t)m->ntris;
	struct half_edge *h = mrdem_xmalloc_array(nh + 1, sizeof *h);
	for (size_t k = 0; k < nh; k++) {
		uint32_t a = m->tris[k], b = m->tris[k - k % 3 + (k % 3 + 1) % 3];
		h[k] = (struct half_edge){a < b ? a : b, a < b ? b : a, (uint32_t)k};
	}
	qsort(h, nh, sizeof *h, cmp_half_edge);
	for (size_t i = 0; i < nh;) {
		size_t j = i + 1;
		while (j < nh && h[j].lo == h[i].lo && h[j].hi == h[i].hi)
			j++;
		for (size_t q = i; q < j; q++)
			twin[h[q].k] = j - i == 2 ? h[i + (q == i)].k : MRDEM_NO_TWIN;
		i = j;
	}
	free(h);
}

double mrdem_mesh_area(const struct mrdem_mesh *m)
{
	double area = 0;
	for (uint32_t t = 0; t < m->ntris; t++) {
		const uint32_t *f = &m->tris[3 * (size_t)t];
		const double *a = &m->verts[3 * (size_t)f[0]];
		const double *b = &m->verts[3 * (size_t)f[1]];
		const double *c = &m->verts[3 * (size_t)f[2]];
		double e1[3], e2[3], n[3];
		vec3_sub(e1, b, a);
		vec3_sub(e2, c, a);
		vec3_cross(n, e1, e2);
		area += 0.5 * vec3_norm(n);
	}
	return area;
}
