#include "common/mesh/mesh_smooth.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/vec3.h"
#include "common/util/error.h"

/* A fitted sphere flatter than this many longest edges is a plane. */
#define FLAT_RADIUS 1e3

void mrdem_mesh_smooth_init(struct mrdem_mesh_smooth *g)
{
	memset(g, 0, sizeof *g);
}

void mrdem_mesh_smooth_release(struct mrdem_mesh_smooth *g)
{
	free(g->curvature);
	free(g->centre);
	free(g->radius);
	free(g->gap);
	free(g->cap);
	free(g->normal);
	free(g->flat_edges);
	mrdem_mesh_smooth_init(g);
}

/* Solve the 4x4 system a x = b in place (partial pivoting); 0, or -1 when
 * it is singular to working precision. */
static int solve4(double a[4][4], double b[4])
{
	double scale = 0;
	for (int i = 0; i < 4; i++)
		for (int k = 0; k < 4; k++)
			scale = fmax(scale, fabs(a[i][k]));
	for (int i = 0; i < 4; i++) {
		int p = i;
		for (int r = i + 1; r < 4; r++)
			if (fabs(a[r][i]) > fabs(a[p][i]))
				p = r;
		if (!(fabs(a[p][i]) > 1e-12 * scale))
			return -1;
		for (int k = 0; k < 4; k++) {
			double t = a[i][k];
			a[i][k] = a[p][k];
			a[p][k] = t;
		}
		double t = b[i];
		b[i] = b[p];
		b[p] = t;
		for (int r = 0; r < 4; r++) {
			if (r == i)
				continue;
			double f = a[r][i] / a[i][i];
			for (int k = i; k < 4; k++)
				a[r][k] -= f * a[i][k];
			b[r] -= f * b[i];
		}
	}
	for (int i = 0; i < 4; i++)
		b[i] /= a[i][i];
	return 0;
}

/* Per vertex a compressed list, those of v in nb[first[v] .. first[v+1]):
 * its neighbours, with repeats (each triangle side once from each end),
 * or the triangles around it (fan_build). */
struct ring {
	uint32_t *first, *nb;
};

static void ring_build(struct ring *r, const struct mrdem_mesh *m)
{
	uint32_t nv = m->nverts, nt = m->ntris;
	r->first = mrdem_xcalloc((size_t)nv + 2, sizeof *r->first);
	r->nb = mrdem_xmalloc_array(6 * (size_t)nt + 1, sizeof *r->nb);
	for (size_t i = 0; i < 3 * (size_t)nt; i++)
		r->first[m->tris[i] + 2] += 2;
	for (uint32_t v = 0; v < nv; v++)
		r->first[v + 2] += r->first[v + 1];
	for (uint32_t t = 0; t < nt; t++)
		for (int k = 0; k < 3; k++) {
			uint32_t a = m->tris[3 * (size_t)t + k];
			r->nb[r->first[a + 1]++] = m->tris[3 * (size_t)t + (k + 1) % 3];
			r->nb[r->first[a + 1]++] = m->tris[3 * (size_t)t + (k + 2) % 3];
		}
}

/* Coplanar with the same orientation, to rounding of unit normals. */
#define COPLANAR_COS (1 - 1e-9)

/* g->flat_edges from the unit face normals fn (3 per triangle): an edge
 * is flat when exactly two triangles share it and their normals agree. */
static void flat_edges(struct mrdem_mesh_smooth *g, const struct mrdem_mesh *m, const double *fn)
{
	size_t nh = 3 * (size_t)m->ntris;
	uint32_t *twin = mrdem_xmalloc_array(nh + 1, sizeof *twin);
	mrdem_mesh_twins(m, twin);
	g->flat_edges = mrdem_xrealloc(g->flat_edges, (size_t)m->ntris + 1);
	memset(g->flat_edges, 0, (size_t)m->ntris + 1);
	for (size_t k = 0; k < nh; k++)
		if (twin[k] != MRDEM_NO_TWIN &&
		    vec3_dot(&fn[3 * (k / 3)], &fn[3 * (size_t)(twin[k] / 3)]) >= COPLANAR_COS)
			g->flat_edges[k / 3] |= (unsigned char)(1u << k % 3);
	free(twin);
}

/* Least-squares sphere |x - c|^2 = R^2 through the corners of triangle t
 * and their neighbours (the algebraic fit |x|^2 + D.x + E = 0, in
 * coordinates centred on the triangle and scaled by its size, exact for
 * points on a sphere). Returns the radius, or 0 when the points are flat
 * or degenerate. */
static double fit_sphere(double c[3], const struct mrdem_mesh *m, const struct ring *r, uint32_t t,
			 double edge)
{
	const uint32_t *v = &m->tris[3 * (size_t)t];
	double o[3] = {0, 0, 0};
	for (int k = 0; k < 3; k++)
		vec3_axpy(o, o, 1.0 / 3, &m->verts[3 * (size_t)v[k]]);
	double a[4][4] = {{0}}, b[4] = {0};
	for (int k = 0; k < 3; k++)
		for (uint32_t j = r->first[v[k]]; j <= r->first[v[k] + 1]; j++) {
			uint32_t u = j < r->first[v[k] + 1] ? r->nb[j] : v[k];
			double x[3];
			vec3_sub(x, &m->verts[3 * (size_t)u], o);
			vec3_scale(x, x, 1.0 / edge);
			double row[4] = {x[0], x[1], x[2], 1};
			double rhs = -vec3_norm2(x);
			for (int i = 0; i < 4; i++) {
				for (int q = 0; q < 4; q++)
					a[i][q] += row[i] * row[q];
				b[i] += row[i] * rhs;
			}
		}
	if (solve4(a, b))
		return 0;
	double cs[3] = {-0.5 * b[0], -0.5 * b[1], -0.5 * b[2]};
	double R2 = vec3_norm2(cs) - b[3];
	if (!(R2 > 0) || R2 > FLAT_RADIUS * FLAT_RADIUS)
		return 0;
	vec3_axpy(c, o, edge, cs);
	return sqrt(R2) * edge;
}

/* Triangles around each vertex, compressed: those of v are
 * tri[first[v] .. first[v+1]). */
static void fan_build(struct ring *r, const struct mrdem_mesh *m)
{
	uint32_t nv = m->nverts, nt = m->ntris;
	r->first = mrdem_xcalloc((size_t)nv + 2, sizeof *r->first);
	r->nb = mrdem_xmalloc_array(3 * (size_t)nt + 1, sizeof *r->nb);
	for (size_t i = 0; i < 3 * (size_t)nt; i++)
		r->first[m->tris[i] + 2]++;
	for (uint32_t v = 0; v < nv; v++)
		r->first[v + 2] += r->first[v + 1];
	for (uint32_t t = 0; t < nt; t++)
		for (int k = 0; k < 3; k++)
			r->nb[r->first[m->tris[3 * (size_t)t + k] + 1]++] = t;
}

/* Triangle t's fitted sphere, when the surface around it has one: the
 * least-squares sphere through its corners and their neighbours gives
 * centre and radius; the triangles around its corners (its neighbourhood)
 * must all face within MRDEM_SMOOTH_COS of t's normal and have the centre
 * behind their planes (convex, no edge or corner of the shape there).
 * Fills centre, normal, cap, the fitted radius (radius) and how much
 * smaller it must be to lie behind all those planes (gap; compute() turns
 * both into the final ones), or leaves radius 0. */
static void fit_triangle(struct mrdem_mesh_smooth *g, const struct mrdem_mesh *m,
			 const struct ring *nbs, const struct ring *fan, const double *fn,
			 uint32_t t)
{
	const uint32_t *v = &m->tris[3 * (size_t)t];
	const double *n = &fn[3 * (size_t)t];
	double c[3], R;
	if (!(vec3_norm2(n) > 0) || !((R = fit_sphere(c, m, nbs, t, g->max_edge)) > 0))
		return;
	double r = INFINITY, cap = 1;
	for (int k = 0; k < 3; k++)
		for (uint32_t j = fan->first[v[k]]; j < fan->first[v[k] + 1]; j++) {
			uint32_t u = fan->nb[j];
			const double *nu = &fn[3 * (size_t)u];
			if (vec3_dot(nu, n) < MRDEM_SMOOTH_COS)
				return;
			for (int q = 0; q < 3; q++) {
				double h[3];
				vec3_sub(h, &m->verts[3 * (size_t)m->tris[3 * (size_t)u + q]], c);
				r = fmin(r, vec3_dot(h, nu));
				if (vec3_normalize(h) > 0)
					cap = fmin(cap, vec3_dot(h, n));
			}
		}
	if (!(r > 0) || !isfinite(r))
		return;
	vec3_copy(&g->centre[3 * (size_t)t], c);
	vec3_copy(&g->normal[3 * (size_t)t], n);
	g->radius[t] = R;
	g->gap[t] = fmax(R - r, 0.0);
	g->cap[t] = cap;
}

static void compute(struct mrdem_mesh_smooth *g, const struct mrdem_mesh *m, double eps)
{
	uint32_t nt = m->ntris;
	double *fn = mrdem_xcalloc(3 * (size_t)nt + 1, sizeof *fn);
	g->max_edge = 0;
	for (uint32_t t = 0; t < nt; t++) {
		const uint32_t *v = &m->tris[3 * (size_t)t];
		double e1[3], e2[3];
		vec3_sub(e1, &m->verts[3 * (size_t)v[1]], &m->verts[3 * (size_t)v[0]]);
		vec3_sub(e2, &m->verts[3 * (size_t)v[2]], &m->verts[3 * (size_t)v[0]]);
		vec3_cross(&fn[3 * (size_t)t], e1, e2);
		vec3_normalize(&fn[3 * (size_t)t]);
		for (int k = 0; k < 3; k++)
			g->max_edge = fmax(g->max_edge, vec3_dist(&m->verts[3 * (size_t)v[k]],
								  &m->verts[3 * (size_t)v[(k + 1) % 3]]));
	}
	flat_edges(g, m, fn);
	struct ring nbs, fan;
	ring_build(&nbs, m);
	fan_build(&fan, m);
	size_t n1 = (size_t)nt + 1, n3 = 3 * (size_t)nt + 1;
	g->curvature = mrdem_xrealloc(g->curvature, n1 * sizeof *g->curvature);
	g->radius = mrdem_xrealloc(g->radius, n1 * sizeof *g->radius);
	g->gap = mrdem_xrealloc(g->gap, n1 * sizeof *g->gap);
	g->cap = mrdem_xrealloc(g->cap, n1 * sizeof *g->cap);
	g->centre = mrdem_xrealloc(g->centre, n3 * sizeof *g->centre);
	g->normal = mrdem_xrealloc(g->normal, n3 * sizeof *g->normal);
	for (uint32_t t = 0; t < nt; t++) {
		g->curvature[t] = g->radius[t] = g->gap[t] = 0;
		g->cap[t] = 1;
		if (g->max_edge > 0)
			fit_triangle(g, m, &nbs, &fan, fn, t);
	}
	/* One shrink for the whole shape, the largest any fitted sphere
	 * within bounds needs to lie inside its triangles: spheres shrunk by
	 * different amounts would make the contact depth jump by the
	 * difference wherever a contact passes from one triangle to the
	 * next (on an icosphere the faces' distances from the centre differ
	 * by a tenth of the sagitta, a fifth of a Hertz overlap). A fit that
	 * needs more than MRDEM_SMOOTH_GAP halos is not smooth enough to be
	 * taken, so it does not set the shrink. */
	double shrink = 0, bound = MRDEM_SMOOTH_GAP * eps;
	for (uint32_t t = 0; t < nt; t++)
		if (g->radius[t] > 0 && g->gap[t] <= bound)
			shrink = fmax(shrink, g->gap[t]);
	for (uint32_t t = 0; t < nt; t++) {
		double R = g->radius[t];
		g->radius[t] = 0;
		if (!(R > 0) || g->gap[t] > bound || !(R - shrink > 0))
			continue;
		const double *c = &g->centre[3 * (size_t)t];
		double r = R - shrink, gap = 0;
		for (int k = 0; k < 3; k++)
			gap = fmax(gap, vec3_dist(&m->verts[3 * (size_t)m->tris[3 * (size_t)t + k]], c) - r);
		g->radius[t] = r;
		g->gap[t] = gap;
		g->curvature[t] = 1.0 / r;
	}
	g->eps = eps;
	g->ntris = nt;
	g->cap_radius = m->open || !m->nverts ? INFINITY : mrdem_mesh_radius_about(m, m->mass.com);
	g->verts = m->verts;
	free(fn);
	free(nbs.first);
	free(nbs.nb);
	free(fan.first);
	free(fan.nb);
}

void mrdem_mesh_smooth_update(struct mrdem_mesh_smooth *g, const struct mrdem_mesh *m, double eps)
{
	if (g->verts != m->verts || g->ntris != m->ntris || !g->curvature || g->eps != eps)
		compute(g, m, eps);
}
