/* Sphere meshes for a requested triangle count (docs/mesh.md).
 *
 * N = 20*4^k: icosphere, the icosahedron split k times into four (most
 * uniform triangles). Other even N: a latitude-longitude sphere with m
 * meridians and s latitude bands, triangle fans at the poles and two
 * triangles per cell elsewhere, N = 2*m*(s-1); among the factorisations
 * the one with cells closest to square (m closest to 2s) is taken, and
 * cells more elongated than 3:1 are refused. Then vertices are pushed
 * along their direction by noise, and finally the mesh is stretched. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/vec3.h"
#include "common/mesh/mesh.h"
#include "common/mesh/mesh_noise.h"
#include "common/mesh/mesh_weld.h"
#include "common/util/error.h"

#define SPHERE_MAX_TRIANGLES 100000000u
#define MAX_CELL_ASPECT 3.0

void mrdem_sphere_opts_default(struct mrdem_sphere_opts *o)
{
	o->triangles = 1280; /* the paper's default resolution */
	o->radius = 1.0;
	o->stretch = 1.0;
	o->stretch_axis = 0;
	o->noise = 1.0;
	o->seed = 1;
}

/* k with n = 20*4^k, or -1. */
static int icosphere_level(uint64_t n)
{
	uint64_t c = 20;
	for (int k = 0; c <= n; k++, c *= 4)
		if (c == n)
			return k;
	return -1;
}

/* Best lat-long factorisation n = 2*m*(s-1); 0 when there is none with
 * acceptable cells. */
static int latlong_params(uint64_t n, uint32_t *mlon, uint32_t *bands)
{
	*mlon = *bands = 0;
	if (n < 6 || n % 2)
		return 0;
	uint64_t p = n / 2, best_score = UINT64_MAX;
	for (uint64_t d = 1; d * d <= p; d++) {
		if (p % d)
			continue;
		uint64_t cand[2] = { d, p / d };
		for (int c = 0; c < 2; c++) {
			uint64_t m = cand[c], s = p / m + 1;
			if (m < 3)
				continue;
			double aspect = 2.0 * (double)s / (double)m; /* cell width / height */
			if (aspect > MAX_CELL_ASPECT || aspect < 1.0 / MAX_CELL_ASPECT)
				continue;
			uint64_t score = m > 2 * s ? m - 2 * s : 2 * s - m;
			if (score < best_score || (score == best_score && m < *mlon)) {
				best_score = score;
				*mlon = (uint32_t)m;
				*bands = (uint32_t)s;
			}
		}
	}
	return best_score != UINT64_MAX;
}

static int makeable(uint64_t n)
{
	uint32_t m, s;
	return n >= 6 && n <= SPHERE_MAX_TRIANGLES && (icosphere_level(n) >= 0 || latlong_params(n, &m, &s));
}

void mrdem_mesh_sphere_counts(char *buf, unsigned long len)
{
	snprintf(buf, len,
		 "20*4^k triangles (icosphere: 20, 80, 320, 1280, 5120, 20480, ...), or an even "
		 "count 2*m*(s-1) with m >= 3 meridians and s >= 2 latitude bands whose cells are "
		 "at most %g:1 elongated (lat-long sphere, e.g. 12, 36, 140, 1224), at most %u",
		 MAX_CELL_ASPECT, SPHERE_MAX_TRIANGLES);
}

static int icosphere(struct mrdem_mesh *m, int level)
{
	static const double t = 1.6180339887498948482; /* golden ratio */
	const double base[12][3] = {
		{ -1, t, 0 }, { 1, t, 0 }, { -1, -t, 0 }, { 1, -t, 0 },
		{ 0, -1, t }, { 0, 1, t }, { 0, -1, -t }, { 0, 1, -t },
		{ t, 0, -1 }, { t, 0, 1 }, { -t, 0, -1 }, { -t, 0, 1 },
	};
	static const uint32_t faces[20][3] = {
		{ 0, 11, 5 }, { 0, 5, 1 }, { 0, 1, 7 }, { 0, 7, 10 }, { 0, 10, 11 },
		{ 1, 5, 9 }, { 5, 11, 4 }, { 11, 10, 2 }, { 10, 7, 6 }, { 7, 1, 8 },
		{ 3, 9, 4 }, { 3, 4, 2 }, { 3, 2, 6 }, { 3, 6, 8 }, { 3, 8, 9 },
		{ 4, 9, 5 }, { 2, 4, 11 }, { 6, 2, 10 }, { 8, 6, 7 }, { 9, 8, 1 },
	};
	mrdem_mesh_alloc(m, 12, 20);
	for (int i = 0; i < 12; i++) {
		vec3_copy(&m->verts[3 * i], base[i]);
		vec3_normalize(&m->verts[3 * i]);
	}
	memcpy(m->tris, faces, sizeof faces);

	for (int k = 0; k < level; k++) {
		/* Midpoints are normalize(a + b): the same bits from both
		 * triangles sharing an edge, so exact welding joins them. */
		struct mrdem_weld w;
		uint32_t nt = m->ntris * 4, *tris = mrdem_xmalloc_array((size_t)nt * 3, sizeof *tris);
		mrdem_weld_init(&w, (size_t)m->nverts + (size_t)m->ntris * 3 / 2);
		for (uint32_t i = 0; i < m->nverts; i++) {
			uint32_t id;
			if (mrdem_weld_add(&w, &m->verts[3 * (size_t)i], &id) < 0) {
				free(tris);
				mrdem_weld_release(&w);
				return -1;
			}
		}
		for (uint32_t f = 0; f < m->ntris; f++) {
			const uint32_t *v = &m->tris[3 * (size_t)f];
			uint32_t mid[3];
			for (int e = 0; e < 3; e++) {
				double p[3];
				vec3_add(p, &m->verts[3 * (size_t)v[e]], &m->verts[3 * (size_t)v[(e + 1) % 3]]);
				vec3_normalize(p);
				if (mrdem_weld_add(&w, p, &mid[e]) < 0) {
					free(tris);
					mrdem_weld_release(&w);
					return -1;
				}
			}
			/* mid[0] on v0-v1, mid[1] on v1-v2, mid[2] on v2-v0 */
			uint32_t *o = &tris[12 * (size_t)f];
			const uint32_t sub[12] = { v[0], mid[0], mid[2], v[1], mid[1], mid[0],
						   v[2], mid[2], mid[1], mid[0], mid[1], mid[2] };
			memcpy(o, sub, sizeof sub);
		}
		uint32_t nv;
		double *verts = mrdem_weld_take(&w, &nv);
		mrdem_mesh_release(m);
		m->verts = verts;
		m->nverts = nv;
		m->tris = tris;
		m->ntris = nt;
	}
	return 0;
}

static void latlong(struct mrdem_mesh *m, uint32_t mlon, uint32_t bands)
{
	uint32_t rings = bands - 1, nv = 2 + mlon * rings, south = nv - 1;
	mrdem_mesh_alloc(m, nv, 2 * mlon * rings);
	vec3_set(&m->verts[0], 0, 0, 1);
	for (uint32_t i = 0; i < rings; i++) {
		double theta = M_PI * (double)(i + 1) / (double)bands;
		for (uint32_t j = 0; j < mlon; j++) {
			double phi = 2 * M_PI * (double)j / (double)mlon;
			vec3_set(&m->verts[3 * (1 + (size_t)i * mlon + j)], sin(theta) * cos(phi),
				 sin(theta) * sin(phi), cos(theta));
		}
	}
	vec3_set(&m->verts[3 * (size_t)south], 0, 0, -1);

	uint32_t *t = m->tris;
#define RING(i, j) (1 + (i) * mlon + (j) % mlon)
	for (uint32_t j = 0; j < mlon; j++) {
		*t++ = 0, *t++ = RING(0, j), *t++ = RING(0, j + 1);
	}
	for (uint32_t i = 0; i + 1 < rings; i++)
		for (uint32_t j = 0; j < mlon; j++) {
			uint32_t a = RING(i, j), b = RING(i + 1, j), c = RING(i + 1, j + 1),
				 d = RING(i, j + 1);
			*t++ = a, *t++ = b, *t++ = c;
			*t++ = a, *t++ = c, *t++ = d;
		}
	for (uint32_t j = 0; j < mlon; j++) {
		*t++ = south, *t++ = RING(rings - 1, j + 1), *t++ = RING(rings - 1, j);
	}
#undef RING
}

/* Nearest makeable counts below and above n (0 when none). */
static void nearest_counts(uint64_t n, uint64_t *below, uint64_t *above)
{
	*below = *above = 0;
	uint64_t start = n - 1 < SPHERE_MAX_TRIANGLES ? n - 1 : SPHERE_MAX_TRIANGLES;
	for (uint64_t c = start; c >= 6 && c < n; c--)
		if (makeable(c)) {
			*below = c;
			break;
		}
	for (uint64_t c = n + 1; c <= SPHERE_MAX_TRIANGLES; c++)
		if (makeable(c)) {
			*above = c;
			break;
		}
}

int mrdem_mesh_sphere(struct mrdem_mesh *m, const struct mrdem_sphere_opts *o)
{
	if (!(o->radius > 0) || !isfinite(o->radius))
		return mrdem_error("sphere radius must be a positive number, got %g", o->radius);
	if (!(o->stretch > 0) || !isfinite(o->stretch))
		return mrdem_error("sphere stretch must be a positive number, got %g", o->stretch);
	if (o->stretch_axis < 0 || o->stretch_axis > 2)
		return mrdem_error("sphere stretch axis must be 0 (x), 1 (y) or 2 (z), got %d",
				   o->stretch_axis);
	if (!(o->noise >= 1) || !isfinite(o->noise))
		return mrdem_error("sphere noise eta must be a number >= 1, got %g", o->noise);

	uint64_t n = o->triangles;
	int level = icosphere_level(n);
	uint32_t mlon = 0, bands = 0;
	if (!makeable(n)) {
		char counts[512];
		uint64_t below, above;
		mrdem_mesh_sphere_counts(counts, sizeof counts);
		nearest_counts(n, &below, &above);
		if (below && above)
			return mrdem_error("cannot make a sphere of %llu triangles (nearest: %llu or "
					   "%llu); possible counts: %s",
					   (unsigned long long)n, (unsigned long long)below,
					   (unsigned long long)above, counts);
		return mrdem_error("cannot make a sphere of %llu triangles (nearest: %llu); "
				   "possible counts: %s",
				   (unsigned long long)n, (unsigned long long)(below | above), counts);
	}
	if (level >= 0) {
		if (icosphere(m, level) < 0)
			return -1;
	} else {
		latlong_params(n, &mlon, &bands);
		latlong(m, mlon, bands);
	}

	/* Unit directions -> radii: [r, eta*r] by the noise, along the
	 * sphere's normal, which is the vertex direction. */
	double *t = NULL;
	if (o->noise > 1) {
		t = mrdem_xmalloc_array(m->nverts, sizeof *t);
		mrdem_noise_unit_field(m->verts, m->nverts, o->seed, t);
	}
	for (uint32_t i = 0; i < m->nverts; i++) {
		double *v = &m->verts[3 * (size_t)i];
		double r = o->radius * (t ? 1 + (o->noise - 1) * t[i] : 1);
		vec3_scale(v, v, r);
		v[o->stretch_axis] *= o->stretch;
	}
	free(t);

	char what[64];
	snprintf(what, sizeof what, "sphere of %llu triangles", (unsigned long long)n);
	return mrdem_mesh_validate(m, 0, what);
}
