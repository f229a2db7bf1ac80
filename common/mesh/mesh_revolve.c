/* Surfaces of revolution: a profile of (r, z) points turned about the z
 * axis. The walls of hoppers, funnels, silos and drums are such surfaces,
 * so one generator gives them all. */
#include <math.h>
#include <stdlib.h>

#include "common/geom/vec3.h"
#include "common/mesh/mesh.h"
#include "common/util/error.h"

/* Ring of profile point k, vertex j (a pole has the one vertex first[k]). */
struct rings {
	uint32_t *first;
	int *pole;
	uint32_t segments;
};

static uint32_t ring_vertex(const struct rings *R, size_t k, uint32_t j)
{
	return R->pole[k] ? R->first[k] : R->first[k] + j % R->segments;
}

static int check_profile(const double *rz, size_t n)
{
	if (n < 2)
		return mrdem_error("revolve profile needs at least 2 points, got %zu", n);
	for (size_t k = 0; k < n; k++) {
		double r = rz[2 * k], z = rz[2 * k + 1];
		if (!isfinite(r) || !isfinite(z))
			return mrdem_error("revolve profile point %zu is not finite", k);
		if (r < 0)
			return mrdem_error("revolve profile point %zu has a negative radius %g", k, r);
		if (r == 0 && k != 0 && k != n - 1)
			return mrdem_error("revolve profile point %zu lies on the axis; only the "
					   "first and the last point may (they close the surface)",
					   k);
		if (k && r == rz[2 * k - 2] && z == rz[2 * k - 1])
			return mrdem_error("revolve profile points %zu and %zu coincide", k - 1, k);
	}
	if (n == 2 && rz[0] == 0 && rz[2] == 0)
		return mrdem_error("revolve profile lies on the axis: it sweeps no surface");
	return 0;
}

/* The profile with every segment split into `divisions` equal parts. */
static double *subdivide(const double *rz, size_t n, unsigned divisions, size_t *out_n)
{
	size_t m = (n - 1) * divisions + 1;
	double *p = mrdem_xmalloc(2 * m * sizeof *p);
	for (size_t k = 0; k + 1 < n; k++)
		for (unsigned d = 0; d < divisions; d++) {
			double t = (double)d / divisions;
			size_t i = k * divisions + d;
			for (int c = 0; c < 2; c++)
				p[2 * i + c] = rz[2 * k + c] + t * (rz[2 * k + 2 + c] - rz[2 * k + c]);
		}
	p[2 * m - 2] = rz[2 * n - 2];
	p[2 * m - 1] = rz[2 * n - 1];
	*out_n = m;
	return p;
}

int mrdem_mesh_revolve(struct mrdem_mesh *m, const double *rz, size_t n, unsigned segments,
		       unsigned divisions)
{
	if (check_profile(rz, n))
		return -1;
	if (segments < 3 || segments > MRDEM_CYLINDER_MAX_SEGMENTS)
		return mrdem_error("revolve segments must be from 3 to %u, got %u",
				   MRDEM_CYLINDER_MAX_SEGMENTS, segments);
	if (divisions < 1 || divisions > MRDEM_REVOLVE_MAX_DIVISIONS)
		return mrdem_error("revolve divisions must be from 1 to %u, got %u",
				   MRDEM_REVOLVE_MAX_DIVISIONS, divisions);
	unsigned long long nt = 2ull * segments * (n - 1) * divisions;
	if (nt > MRDEM_REVOLVE_MAX_TRIANGLES)
		return mrdem_error("revolve would have %llu triangles, more than the limit of %llu",
				   nt, MRDEM_REVOLVE_MAX_TRIANGLES);
	size_t np;
	double *p = subdivide(rz, n, divisions, &np);
	struct rings R = { mrdem_xmalloc(np * sizeof *R.first), mrdem_xmalloc(np * sizeof *R.pole),
			   segments };
	uint32_t nv = 0;
	for (size_t k = 0; k < np; k++) {
		R.pole[k] = p[2 * k] == 0;
		R.first[k] = nv;
		nv += R.pole[k] ? 1 : segments;
	}
	/* a pole's fan has one triangle per segment, a band two */
	uint32_t ntris = 0;
	for (size_t k = 0; k + 1 < np; k++)
		ntris += (R.pole[k] || R.pole[k + 1] ? 1 : 2) * segments;
	mrdem_mesh_alloc(m, nv, ntris);
	for (size_t k = 0; k < np; k++)
		for (uint32_t j = 0; j < (R.pole[k] ? 1 : segments); j++) {
			double phi = 2 * M_PI * (double)j / (double)segments, r = p[2 * k];
			vec3_set(&m->verts[3 * (R.first[k] + j)], r * cos(phi), r * sin(phi),
				 p[2 * k + 1]);
		}
	uint32_t *t = m->tris;
	for (size_t k = 0; k + 1 < np; k++)
		for (uint32_t j = 0; j < segments; j++) {
			uint32_t a = ring_vertex(&R, k, j), a1 = ring_vertex(&R, k, j + 1);
			uint32_t b = ring_vertex(&R, k + 1, j), b1 = ring_vertex(&R, k + 1, j + 1);
			if (!R.pole[k])
				*t++ = a, *t++ = a1, *t++ = b1;
			if (!R.pole[k + 1])
				*t++ = a, *t++ = b1, *t++ = b;
		}
	int closed = R.pole[0] && R.pole[np - 1];
	free(p);
	free(R.first);
	free(R.pole);
	return mrdem_mesh_validate(m, closed ? 0 : MRDEM_MESH_ALLOW_OPEN, "revolve");
}
