/* Box, plane and cylinder meshes, all centred at the origin. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/geom/vec3.h"
#include "common/mesh/mesh.h"
#include "common/mesh/mesh_weld.h"
#include "common/util/error.h"

#define PRIMITIVE_MAX_TRIANGLES 100000000ull

static int check_length(const char *what, double v)
{
	if (!(v > 0) || !isfinite(v))
		return mrdem_error("%s must be a positive number, got %g", what, v);
	return 0;
}

static int check_triangles(const char *what, unsigned long long nt)
{
	if (nt > PRIMITIVE_MAX_TRIANGLES)
		return mrdem_error("%s would have %llu triangles, more than the limit of %llu", what,
				   nt, PRIMITIVE_MAX_TRIANGLES);
	return 0;
}

/* Lattice coordinate idx/n of an extent centred at 0: exactly +-size/2 at
 * the ends, and the same bits for a point wherever it is computed, so
 * points shared by two faces weld exactly. */
static double lattice(double size, unsigned idx, unsigned n)
{
	return size * ((double)idx / (double)n - 0.5);
}

int mrdem_mesh_box(struct mrdem_mesh *m, const double size[3], unsigned n)
{
	if (check_length("box size x", size[0]) < 0 || check_length("box size y", size[1]) < 0 ||
	    check_length("box size z", size[2]) < 0)
		return -1;
	if (n < 1)
		return mrdem_error("box divisions must be at least 1, got %u", n);
	unsigned long long nt = 12ull * n * n;
	if (check_triangles("box", nt) < 0)
		return -1;

	struct mrdem_weld w;
	mrdem_weld_init(&w, 6 * (size_t)(n + 1) * (n + 1));
	uint32_t *tris = mrdem_xmalloc_array(3 * (size_t)nt, sizeof *tris), *t = tris;
	uint32_t *row = mrdem_xmalloc_array(2 * (size_t)(n + 1), sizeof *row);
	for (int a = 0; a < 3; a++)
		for (int side = 0; side < 2; side++) {
			/* (u, v, outward normal) right-handed: e_b x e_c = e_a */
			int b = (a + 1) % 3, c = (a + 2) % 3;
			int u = side ? b : c, v = side ? c : b;
			for (unsigned j = 0; j <= n; j++) {
				uint32_t *cur = &row[(j & 1) * (size_t)(n + 1)];
				uint32_t *prev = &row[((j + 1) & 1) * (size_t)(n + 1)];
				for (unsigned i = 0; i <= n; i++) {
					double p[3];
					p[a] = lattice(size[a], side ? n : 0, n);
					p[u] = lattice(size[u], i, n);
					p[v] = lattice(size[v], j, n);
					if (mrdem_weld_add(&w, p, &cur[i]) < 0)
						goto fail;
				}
				if (!j)
					continue;
				for (unsigned i = 0; i < n; i++) {
					uint32_t p00 = prev[i], p10 = prev[i + 1], p01 = cur[i],
						 p11 = cur[i + 1];
					*t++ = p00, *t++ = p10, *t++ = p11;
					*t++ = p00, *t++ = p11, *t++ = p01;
				}
			}
		}
	free(row);
	mrdem_mesh_release(m);
	m->verts = mrdem_weld_take(&w, &m->nverts);
	m->tris = tris;
	m->ntris = (uint32_t)nt;
	return mrdem_mesh_validate(m, 0, "box");
fail:
	free(row);
	free(tris);
	mrdem_weld_release(&w);
	return -1;
}

int mrdem_mesh_plane(struct mrdem_mesh *m, double sx, double sy, unsigned nx, unsigned ny,
		     double tilt_deg)
{
	if (check_length("plane size x", sx) < 0 || check_length("plane size y", sy) < 0)
		return -1;
	if (nx < 1 || ny < 1)
		return mrdem_error("plane divisions must be at least 1, got %u x %u", nx, ny);
	if (!(fabs(tilt_deg) <= MRDEM_PLANE_MAX_TILT))
		return mrdem_error("plane tilt must be an angle in degrees from %d to %d, got %g",
				   -MRDEM_PLANE_MAX_TILT, MRDEM_PLANE_MAX_TILT, tilt_deg);
	unsigned long long nt = 2ull * nx * ny;
	if (check_triangles("plane", nt) < 0)
		return -1;

	double a = tilt_deg * (M_PI / 180), ca = cos(a), sa = sin(a);
	mrdem_mesh_alloc(m, (uint32_t)((nx + 1ull) * (ny + 1ull)), (uint32_t)nt);
	for (unsigned j = 0; j <= ny; j++)
		for (unsigned i = 0; i <= nx; i++) {
			double y = lattice(sy, j, ny);
			/* rotate (x, y, 0) by the tilt about the x axis */
			vec3_set(&m->verts[3 * ((size_t)j * (nx + 1) + i)], lattice(sx, i, nx), y * ca,
				 y * sa);
		}
	uint32_t *t = m->tris;
	for (unsigned j = 0; j < ny; j++)
		for (unsigned i = 0; i < nx; i++) {
			uint32_t p00 = j * (nx + 1) + i, p10 = p00 + 1, p01 = p00 + nx + 1,
				 p11 = p01 + 1;
			*t++ = p00, *t++ = p10, *t++ = p11;
			*t++ = p00, *t++ = p11, *t++ = p01;
		}
	return mrdem_mesh_validate(m, MRDEM_MESH_ALLOW_OPEN, "plane");
}

int mrdem_mesh_cylinder(struct mrdem_mesh *m, double radius, double height, unsigned segments)
{
	if (check_length("cylinder radius", radius) < 0 ||
	    check_length("cylinder height", height) < 0)
		return -1;
	if (segments < 3 || segments > MRDEM_CYLINDER_MAX_SEGMENTS)
		return mrdem_error("cylinder segments must be from 3 to %u, got %u",
				   MRDEM_CYLINDER_MAX_SEGMENTS, segments);
	unsigned long long nt = 4ull * segments;
	if (check_triangles("cylinder", nt) < 0)
		return -1;

	/* 0: top centre, 1: bottom centre, then the top ring, then the bottom ring */
	uint32_t s = segments;
	mrdem_mesh_alloc(m, 2 + 2 * s, (uint32_t)nt);
	double h = 0.5 * height;
	vec3_set(&m->verts[0], 0, 0, h);
	vec3_set(&m->verts[3], 0, 0, -h);
	for (uint32_t j = 0; j < s; j++) {
		double phi = 2 * M_PI * (double)j / (double)s;
		double x = radius * cos(phi), y = radius * sin(phi);
		vec3_set(&m->verts[3 * (2 + (size_t)j)], x, y, h);
		vec3_set(&m->verts[3 * (2 + (size_t)s + j)], x, y, -h);
	}
	uint32_t *t = m->tris;
	for (uint32_t j = 0; j < s; j++) {
		uint32_t top = 2 + j, top1 = 2 + (j + 1) % s, bot = top + s, bot1 = top1 + s;
		*t++ = 0, *t++ = top, *t++ = top1;
		*t++ = 1, *t++ = bot1, *t++ = bot;
		*t++ = top, *t++ = bot, *t++ = bot1;
		*t++ = top, *t++ = bot1, *t++ = top1;
	}
	return mrdem_mesh_validate(m, 0, "cylinder");
}
