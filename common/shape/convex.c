#include "common/shape/convex.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/vec3.h"
#include "common/util/error.h"

#define NONE UINT32_MAX

static void convex_init(struct mrdem_convex *c)
{
	memset(c, 0, sizeof *c);
}

void mrdem_convex_release(struct mrdem_convex *c)
{
	free(c->v);
	free(c->vmesh);
	free(c->ve_first);
	free(c->ve);
	free(c->e);
	free(c->ef);
	free(c->ed);
	free(c->eg);
	free(c->fp);
	free(c->fe_first);
	free(c->fe);
	convex_init(c);
}

static uint32_t find_root(uint32_t *up, uint32_t i)
{
	while (up[i] != i)
		i = up[i] = up[up[i]];
	return i;
}

static const double *vert(const struct mrdem_mesh *m, uint32_t t, uint32_t k)
{
	return &m->verts[3 * (size_t)m->tris[3 * (size_t)t + k % 3]];
}

/* Height of point p above the plane of triangle t (unit normal tn). */
static double height(const struct mrdem_mesh *m, const double *tn, uint32_t t, const double p[3])
{
	double d[3];
	vec3_sub(d, p, vert(m, t, 0));
	return vec3_dot(d, &tn[3 * (size_t)t]);
}

/* Each triangle's area vector (twice its area along its normal) and unit
 * normal; every triangle its own class of coplanar triangles (up). */
static void triangle_normals(const struct mrdem_mesh *m, double *tn, double *area, uint32_t *up)
{
	for (uint32_t t = 0; t < m->ntris; t++) {
		double e1[3], e2[3];
		vec3_sub(e1, vert(m, t, 1), vert(m, t, 0));
		vec3_sub(e2, vert(m, t, 2), vert(m, t, 0));
		vec3_cross(&area[3 * (size_t)t], e1, e2);
		vec3_copy(&tn[3 * (size_t)t], &area[3 * (size_t)t]);
		vec3_normalize(&tn[3 * (size_t)t]);
		up[t] = t;
	}
}

/* Check that the mesh is a closed, oriented, convex surface of genus 0 and
 * join the classes (up) of neighbours coplanar within tol. */
static int merge_coplanar(const struct mrdem_mesh *m, const char *what, const double *tn,
			  const uint32_t *twin, uint32_t *up, double tol)
{
	size_t nh = 3 * (size_t)m->ntris;
	for (uint32_t x = 0; x < nh; x++) {
		uint32_t y = twin[x], a = m->tris[x], b = m->tris[x - x % 3 + (x % 3 + 1) % 3];
		if (y == MRDEM_NO_TWIN || m->tris[y] == a)
			return mrdem_error("%s: not a closed, consistently oriented 2-manifold at "
					   "edge (%u, %u)", what, a < b ? a : b, a < b ? b : a);
		if (y < x)
			continue;
		/* the far vertex of each triangle against the other's plane */
		uint32_t tx = x / 3, ty = y / 3;
		double hx = height(m, tn, tx, vert(m, ty, y % 3 + 2));
		double hy = height(m, tn, ty, vert(m, tx, x % 3 + 2));
		if (hx > tol || hy > tol)
			return mrdem_error("%s: not convex: at edge (%u, %u) a vertex lies %g above a "
					   "neighbouring triangle's plane (tolerance %g)", what,
					   a < b ? a : b, a < b ? b : a, fmax(hx, hy), tol);
		if (hx >= -tol && hy >= -tol) {
			uint32_t ra = find_root(up, tx), rb = find_root(up, ty);
			if (ra != rb)
				up[ra < rb ? rb : ra] = ra < rb ? ra : rb;
		}
	}
	long euler = (long)m->nverts - (long)(nh / 2) + (long)m->ntris;
	if (euler != 2)
		return mrdem_error("%s: V - E + F = %ld, not 2: not the surface of one convex solid",
				   what, euler);
	return 0;
}

/* Faces: the classes of coplanar triangles (fid: each triangle's face),
 * each with its outer unit normal and offset. */
static void build_faces(const struct mrdem_mesh *m, uint32_t *up, const double *area,
			uint32_t *fid, struct mrdem_convex *out)
{
	uint32_t nf = 0;
	for (uint32_t t = 0; t < m->ntris; t++)
		fid[t] = NONE;
	for (uint32_t t = 0; t < m->ntris; t++) {
		uint32_t r = find_root(up, t);
		if (fid[r] == NONE)
			fid[r] = nf++;
		fid[t] = fid[r];
	}
	out->nf = nf;
	out->fp = mrdem_xcalloc(4 * (size_t)nf, sizeof *out->fp);
	for (uint32_t t = 0; t < m->ntris; t++)
		vec3_add(&out->fp[4 * fid[t]], &out->fp[4 * fid[t]], &area[3 * (size_t)t]);
	for (uint32_t f = 0; f < nf; f++) {
		vec3_normalize(&out->fp[4 * f]);
		out->fp[4 * f + 3] = -INFINITY;
	}
	for (uint32_t t = 0; t < m->ntris; t++)
		for (uint32_t k = 0; k < 3; k++)
			out->fp[4 * fid[t] + 3] = fmax(out->fp[4 * fid[t] + 3],
						       vec3_dot(&out->fp[4 * fid[t]], vert(m, t, k)));
}

/* Edges: half-edges between two faces, taken from the side where a->b,
 * with their faces, directions and the faces' outward directions across
 * them; their end vertices numbered in order of first use (vmap). */
static void build_edges(const struct mrdem_mesh *m, const uint32_t *twin, const uint32_t *fid,
			uint32_t *vmap, struct mrdem_convex *out)
{
	size_t nh = 3 * (size_t)m->ntris;
	uint32_t ne = 0;
	for (size_t i = 0; i < nh; i++)
		if (fid[i / 3] != fid[twin[i] / 3] && i < twin[i])
			ne++;
	out->ne = ne;
	out->e = mrdem_xmalloc_array(2 * (size_t)ne + 1, sizeof *out->e);
	out->ef = mrdem_xmalloc_array(2 * (size_t)ne + 1, sizeof *out->ef);
	out->ed = mrdem_xmalloc_array(4 * (size_t)ne + 1, sizeof *out->ed);
	out->eg = mrdem_xmalloc_array(6 * (size_t)ne + 1, sizeof *out->eg);
	for (uint32_t v = 0; v < m->nverts; v++)
		vmap[v] = NONE;
	uint32_t nv = 0;
	ne = 0;
	for (size_t i = 0; i < nh; i++) {
		if (fid[i / 3] == fid[twin[i] / 3] || i > twin[i])
			continue;
		uint32_t t = (uint32_t)(i / 3), k = (uint32_t)(i % 3);
		uint32_t a = m->tris[3 * t + k], b = m->tris[3 * t + (k + 1) % 3];
		uint32_t fl = fid[t], fr = fid[twin[i] / 3];
		for (int s = 0; s < 2; s++) {
			uint32_t mv = s ? b : a;
			if (vmap[mv] == NONE)
				vmap[mv] = nv++;
		}
		out->e[2 * ne] = vmap[a], out->e[2 * ne + 1] = vmap[b];
		out->ef[2 * ne] = fl, out->ef[2 * ne + 1] = fr;
		double *d = &out->ed[4 * (size_t)ne], back[3];
		vec3_sub(d, &m->verts[3 * (size_t)b], &m->verts[3 * (size_t)a]);
		d[3] = vec3_normalize(d);
		vec3_cross(&out->eg[6 * (size_t)ne], &out->fp[4 * fl], d);
		vec3_normalize(&out->eg[6 * (size_t)ne]);
		vec3_scale(back, d, -1);
		vec3_cross(&out->eg[6 * (size_t)ne + 3], &out->fp[4 * fr], back);
		vec3_normalize(&out->eg[6 * (size_t)ne + 3]);
		ne++;
	}
	out->nv = nv;
}

/* Vertices: the corners (vertices on an edge), their mesh vertices and
 * their mean. */
static void build_vertices(const struct mrdem_mesh *m, const uint32_t *vmap,
			   struct mrdem_convex *out)
{
	uint32_t nv = out->nv;
	out->v = mrdem_xmalloc_array(3 * (size_t)nv + 1, sizeof *out->v);
	out->vmesh = mrdem_xmalloc_array((size_t)nv + 1, sizeof *out->vmesh);
	for (uint32_t v = 0; v < m->nverts; v++)
		if (vmap[v] != NONE) {
			memcpy(&out->v[3 * (size_t)vmap[v]], &m->verts[3 * (size_t)v], 3 * sizeof(double));
			out->vmesh[vmap[v]] = v;
			vec3_axpy(out->centre, out->centre, 1.0 / nv, &m->verts[3 * (size_t)v]);
		}
}

/* Adjacency: vertex -> edges, face -> boundary edges; a face with fewer
 * than three edges is an error. */
static int build_adjacency(const char *what, struct mrdem_convex *out)
{
	uint32_t nv = out->nv, nf = out->nf, ne = out->ne;
	out->ve_first = mrdem_xcalloc((size_t)nv + 2, sizeof *out->ve_first);
	out->fe_first = mrdem_xcalloc((size_t)nf + 2, sizeof *out->fe_first);
	for (uint32_t e = 0; e < ne; e++) {
		out->ve_first[out->e[2 * e] + 2]++;
		out->ve_first[out->e[2 * e + 1] + 2]++;
		out->fe_first[out->ef[2 * e] + 2]++;
		out->fe_first[out->ef[2 * e + 1] + 2]++;
	}
	for (uint32_t i = 0; i < nv; i++)
		out->ve_first[i + 2] += out->ve_first[i + 1];
	for (uint32_t i = 0; i < nf; i++)
		out->fe_first[i + 2] += out->fe_first[i + 1];
	out->ve = mrdem_xmalloc_array(2 * (size_t)ne + 1, sizeof *out->ve);
	out->fe = mrdem_xmalloc_array(2 * (size_t)ne + 1, sizeof *out->fe);
	for (uint32_t e = 0; e < ne; e++)
		for (int s = 0; s < 2; s++) {
			out->ve[out->ve_first[out->e[2 * e + s] + 1]++] = e;
			out->fe[out->fe_first[out->ef[2 * e + s] + 1]++] = e;
		}
	for (uint32_t f = 0; f < nf; f++)
		if (out->fe_first[f + 1] - out->fe_first[f] < 3)
			return mrdem_error("%s: face %u has %u edges (a degenerate face)", what, f,
					   out->fe_first[f + 1] - out->fe_first[f]);
	return 0;
}

int mrdem_convex_build(const struct mrdem_mesh *m, const char *what, struct mrdem_convex *out)
{
	convex_init(out);
	if (m->open || m->ntris < 4)
		return mrdem_error("%s: a convex shape needs a closed mesh", what);
	size_t nh = 3 * (size_t)m->ntris;
	double *tn = mrdem_xmalloc_array(3 * (size_t)m->ntris, sizeof *tn);
	double *area = mrdem_xmalloc_array(3 * (size_t)m->ntris, sizeof *area);
	uint32_t *up = mrdem_xmalloc_array(m->ntris, sizeof *up);
	uint32_t *twin = mrdem_xmalloc_array(nh, sizeof *twin);
	uint32_t *vmap = mrdem_xmalloc_array(m->nverts, sizeof *vmap);
	uint32_t *fid = mrdem_xmalloc_array(m->ntris, sizeof *fid);
	out->radius = mrdem_mesh_radius_about(m, m->mass.com);
	out->tol = MRDEM_CONVEX_TOL_REL * out->radius;
	triangle_normals(m, tn, area, up);
	mrdem_mesh_twins(m, twin);
	int rc = merge_coplanar(m, what, tn, twin, up, out->tol);
	if (rc == 0) {
		build_faces(m, up, area, fid, out);
		build_edges(m, twin, fid, vmap, out);
		build_vertices(m, vmap, out);
		rc = build_adjacency(what, out);
	}
	free(tn);
	free(area);
	free(up);
	free(twin);
	free(vmap);
	free(fid);
	if (rc)
		mrdem_convex_release(out);
	return rc;
}
