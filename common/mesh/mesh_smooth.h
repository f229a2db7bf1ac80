/* The smooth surface a triangle mesh samples, as far as contact mechanics
 * needs it (the patch force models, docs/dynamics.md "Contact patches"):
 *  - per smooth triangle the sphere through its corners whose radius is
 *    the local curvature radius, on which contacts are measured (a mesh
 *    inscribed in a sphere gives that sphere exactly, at any resolution);
 *  - the largest gap between such a sphere and its triangle (sagitta),
 *    by which the contact search widens the halos so that it finds the
 *    triangles of smooth surfaces that touch;
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

/* A triangle is part of a smooth surface when every corner's normal is
 * within this angle of its face normal (cos 30 degrees): an icosphere's
 * 80 triangles qualify (about 11 degrees), a box's corners (55) do not. */
#define MRDEM_SMOOTH_COS 0.866

struct mrdem_mesh_smooth {
	const double *verts; /* the mesh it was computed for */
	uint32_t ntris;
	double max_edge;     /* m */
	double cap_radius;   /* m; INFINITY for open meshes */
	double sagitta;      /* largest gap between a smooth sphere and its triangle, m */
	double *curvature;   /* per triangle, 1/m, >= 0 (0: flat or concave) */
	/* per triangle: centre (shape frame) and radius of its smooth sphere;
	 * radius 0 where the surface is flat, concave or has an edge */
	double *centre, *radius;
	/* per triangle: bit k set when its edge from corner k to corner k + 1
	 * joins a coplanar neighbour facing the same way */
	unsigned char *flat_edges;
};

void mrdem_mesh_smooth_init(struct mrdem_mesh_smooth *g);
void mrdem_mesh_smooth_release(struct mrdem_mesh_smooth *g);
/* Compute g for m unless it is for m already. */
void mrdem_mesh_smooth_update(struct mrdem_mesh_smooth *g, const struct mrdem_mesh *m);

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
/* Radius of triangle t's smooth sphere, 0 when it has none. */
static inline double mrdem_mesh_smooth_radius(const struct mrdem_mesh_smooth *g, uint32_t t)
{
	return t < g->ntris ? g->radius[t] : 0.0;
}

#endif
