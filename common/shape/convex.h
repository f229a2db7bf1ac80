/* The convex shape kind: a convex polyhedron kept as its closed triangle
 * mesh (the hull, common/shape/hull.h), so every mesh path works on it
 * unchanged, plus its features for closest-feature tracking
 * (common/narrow/analytic/convex_track.h): vertices, edges and faces, where
 * coplanar triangles are merged into one polygonal face and the edges
 * between them are not features.
 *
 * Voronoi regions (Lin and Canny 1991) of the features, in the shape frame:
 *  - vertex v: points x with (x - v) . d <= 0 for every edge leaving v
 *    (d its unit direction away from v);
 *  - edge u->w (unit direction d, length L, faces fl and fr): points with
 *    0 <= (x - u) . d <= L and (x - u) . g <= 0 for the inward in-plane
 *    normal g of both faces at the edge;
 *  - face (unit normal n, offset c): points with n . x >= c and
 *    (x - u) . g >= 0 for every boundary edge (g pointing into the face). */
#ifndef MRDEM_SHAPE_CONVEX_H
#define MRDEM_SHAPE_CONVEX_H

#include <stddef.h>
#include <stdint.h>

#include "common/mesh/mesh.h"

/* Two triangles are one face when the far vertex of each lies within
 * this fraction of the shape's radius from the other's plane; the
 * mesh is convex when no far vertex lies above a neighbour's plane by
 * more than that. */
#define MRDEM_CONVEX_TOL_REL 1e-9

struct mrdem_convex {
	uint32_t nv, ne, nf;
	double *v;            /* 3 nv: vertex coordinates (shape frame, as the mesh) */
	uint32_t *vmesh;      /* nv: the mesh vertex of each feature vertex */
	uint32_t *ve_first;   /* nv + 1: edges at vertex i are ve[ve_first[i] .. ve_first[i+1]) */
	uint32_t *ve;
	uint32_t *e;          /* 2 ne: endpoints u, w (u->w runs counter-clockwise round face fl) */
	uint32_t *ef;         /* 2 ne: faces fl, fr */
	double *ed;           /* 4 ne: unit direction u->w, length */
	double *eg;           /* 6 ne: inward in-plane normals of fl and of fr at the edge */
	double *fp;           /* 4 nf: unit outward normal, offset (n . x = c on the face) */
	uint32_t *fe_first;   /* nf + 1: boundary edges of face f are fe[fe_first[f] .. fe_first[f+1]) */
	uint32_t *fe;
	double centre[3];     /* mean of the vertices (where a cold start looks from) */
	double radius;        /* largest vertex distance from the centre of mass */
	double tol;           /* MRDEM_CONVEX_TOL_REL * radius */
};

void mrdem_convex_release(struct mrdem_convex *c);

/* The features of a closed, outward, convex triangle mesh (mass filled).
 * Checked: every edge shared by two triangles in opposite directions,
 * V - E + F = 2 on the triangles, and every edge convex (the far vertex of
 * each neighbour on or below the other's plane within the tolerance):
 * a closed, locally convex surface of genus 0 bounds a convex solid.
 * Returns 0, or -1 with a message starting with `what` saying which check
 * failed. */
int mrdem_convex_build(const struct mrdem_mesh *m, const char *what, struct mrdem_convex *out);

/* The inward normal of face f at its boundary edge e (f is fl or fr of e),
 * and the vertex where e starts going counter-clockwise round f. */
static inline const double *mrdem_convex_edge_inward(const struct mrdem_convex *c, uint32_t e,
						     uint32_t f)
{
	return &c->eg[6 * (size_t)e + (c->ef[2 * (size_t)e] == f ? 0 : 3)];
}
static inline uint32_t mrdem_convex_edge_start(const struct mrdem_convex *c, uint32_t e,
					       uint32_t f)
{
	return c->e[2 * (size_t)e + (c->ef[2 * (size_t)e] == f ? 0 : 1)];
}

#endif
