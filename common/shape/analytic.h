/* Analytic shape kinds: spheres and ellipsoids given by their semi-axes
 * instead of a triangle mesh.
 *
 * An analytic shape is centred at its centre of mass (the shape frame's
 * origin) with its semi-axes along the shape frame's x, y, z axes; a sphere
 * has three equal semi-axes. Mass properties come in closed form, so the
 * dynamics treat every kind alike through struct mrdem_mass. */
#ifndef MRDEM_SHAPE_ANALYTIC_H
#define MRDEM_SHAPE_ANALYTIC_H

#include "common/mesh/mesh.h"

enum mrdem_shape_kind {
	MRDEM_SHAPE_MESH = 0,      /* closed or open triangle mesh */
	MRDEM_SHAPE_SPHERE = 1,    /* radius = axes[0] = axes[1] = axes[2] */
	MRDEM_SHAPE_ELLIPSOID = 2, /* semi-axes a, b, c along x, y, z */
	/* A convex polyhedron (common/shape/convex.h): in streams and
	 * mrdem-info; in memory a mesh shape with its features attached
	 * (struct mrdem_shape.convex), so every mesh path applies to it. */
	MRDEM_SHAPE_CONVEX = 3,
	MRDEM_SHAPE_NKINDS
};

/* Names as in scenes and in mrdem-info: "mesh", "analytic-sphere",
 * "ellipsoid", "convex"; NULL for a value out of range. */
extern const char *const mrdem_shape_kind_names[MRDEM_SHAPE_NKINDS];
const char *mrdem_shape_kind_name(int kind);

/* Largest semi-axis at which the analytic kinds are accepted: beyond it
 * the closed-form volume (a b c) overflows long before. */
#define MRDEM_ANALYTIC_AXIS_MAX 1e100

/* 0 when kind is analytic and the semi-axes are finite, positive (and
 * equal for a sphere), else -1 with a message starting with `what`. */
int mrdem_analytic_check(int kind, const double axes[3], const char *what);

/* Volume, centre of mass (the origin) and inertia tensor about it at unit
 * density of the solid ellipsoid with these semi-axes:
 * V = 4/3 pi a b c, I_xx = V (b^2 + c^2) / 5, ... */
void mrdem_analytic_mass(const double axes[3], struct mrdem_mass *out);

/* Radius of the sphere about the centre holding the shape: its largest
 * semi-axis. */
double mrdem_analytic_bound_radius(const double axes[3]);

/* Triangles of the surface drawn for an analytic shape (mrdem-vtk). */
#define MRDEM_ANALYTIC_DRAW_TRIANGLES 320

/* A closed mesh of the shape's surface for drawing: an icosphere of
 * `triangles` (20 * 4^k) scaled by the semi-axes, its vertices on the
 * surface, centre of mass at the origin. Returns 0, or -1 with a message. */
int mrdem_analytic_tessellate(const double axes[3], uint32_t triangles, struct mrdem_mesh *out);

#endif
