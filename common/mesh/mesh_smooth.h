/* The smooth surface a triangle mesh samples, as far as contact mechanics
 * needs it (the patch force models, docs/dynamics.md "Patch models"):
 *  - per triangle of a smooth convex region a sphere inside the triangles
 *    around it (centre and radius from a least-squares fit, the radius
 *    then shrunk by one amount for the whole shape), on which contacts
 *    are measured: it lies inside the mesh there, so a contact on it is
 *    never deeper than the triangles' own; with how far the triangle
 *    stands out of it (gap), which the force models compare with the
 *    particle's halo before they take it, and the cone of directions it
 *    stands for (cap);
 *  - a curvature per triangle, for the effective radius of Hertz contact;
 *  - the longest edge, which sets how far apart two contact points of one
 *    patch may lie; the bounding radius, which caps the effective radius
 *    where faces are flat;
 *  - which edges join coplanar triangles, across which a flat face goes
 *    on (a sphere over the edge between two triangles of a plane mesh
 *    meets the plane, not the edge). */
#ifndef MRDEM_MESH_MESH_SMOOTH_H
#define MRDEM_MESH_MESH_SMOOTH_H

#include <stdint.h>

#include "common/mesh/mesh.h"

/* A triangle is part of a smooth surface when the triangles around its
 * corners all face within this angle of it (cos 30 degrees): an
 * icosphere's 80 triangles qualify (their neighbours turn by about 21
 * degrees), a box's edges and corners (90) do not. */
#define MRDEM_SMOOTH_COS 0.866

/* The largest gap between a triangle and its smooth sphere, in halos of the
 * particle, for which contacts are measured on the sphere. */
#define MRDEM_SMOOTH_GAP 0.5

struct mrdem_mesh_smooth {
	const double *verts; /* the mesh it was computed for */
	uint32_t ntris;
	double max_edge;     /* m */
	double cap_radius;   /* m; INFINITY for open meshes */
	double eps;          /* the halo it was computed for, m */
	double *curvature;   /* per triangle, 1/m, >= 0 (0: flat, concave, an edge) */
	/* per triangle: centre and radius of its smooth sphere (shape frame;
	 * radius 0 where the surface is flat, concave, noisy or has an edge),
	 * its unit face normal, the largest distance of its corners from the
	 * sphere (m), and the least cosine between the face normal and the
	 * directions from the centre to the corners around it: the sphere
	 * stands for the surface in that cone only */
	double *centre, *radius, *normal, *gap, *cap;
	/* per triangle: bit k set when its edge from corner k to corner k + 1
	 * joins a coplanar neighbour facing the same way */
	unsigned char *flat_edges;
};

void mrdem_mesh_smooth_init(struct mrdem_mesh_smooth *g);
void mrdem_mesh_smooth_release(struct mrdem_mesh_smooth *g);
/* Compute g for m and the smallest halo eps (m) of the particles of its
 * shape unless it is for those already. */
void mrdem_mesh_smooth_update(struct mrdem_mesh_smooth *g, const struct mrdem_mesh *m, double eps);

/* Curvature at triangle t (0 for UINT32_MAX: no triangle). */
static inline double mrdem_mesh_smooth_curvature(const struct mrdem_mesh_smooth *g, uint32_t t)
{
	return t < g->ntris ? g->curvature[t] : 0.0;
}
/* Triangle t's flat-edge bits (0 for UINT32_MAX: no triangle). */
static inline unsigned mrdem_mesh_smooth_flat_edges(const struct mrdem_mesh_smooth *g, uint32_t t)
{
	return t < g->ntris ? g->flat_edges[t] : 0u;
}
/* Radius of triangle t's smooth sphere for a particle of halo eps, 0 when
 * it has none or the triangle stands out of it by more than
 * MRDEM_SMOOTH_GAP halos: contacts there are then measured on the mesh,
 * since a contact on the sphere would start that much later than on the
 * triangles (a coarse or bumpy surface is taken as it is). */
static inline double mrdem_mesh_smooth_radius(const struct mrdem_mesh_smooth *g, uint32_t t,
					      double eps)
{
	return t < g->ntris && g->gap[t] <= MRDEM_SMOOTH_GAP * eps ? g->radius[t] : 0.0;
}

#endif
