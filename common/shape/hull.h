/* Convex hull of a point set in 3D (quickhull: Barber, Dobkin and
 * Huhdanpaa 1996), the surface of the convex shape kind
 * (common/shape/convex.h, docs/scene.md).
 *
 * Points closer than a tolerance to a face (1e-10 of the points' extent,
 * MRDEM_HULL_TOL_REL) count as on it and are left out of the hull, so its
 * vertices are the extreme points and coplanar points do not split faces
 * into slivers. The result is checked before it is returned: every input
 * point inside or on every face plane within 100 times that tolerance,
 * every edge shared by exactly two faces with opposite orientation, and
 * V - E + F = 2. */
#ifndef MRDEM_SHAPE_HULL_H
#define MRDEM_SHAPE_HULL_H

#include <stddef.h>

#include "common/mesh/mesh.h"

#define MRDEM_HULL_TOL_REL 1e-10

/* The hull of n points (3 n doubles) as a closed, outward triangle mesh
 * of the points that are hull vertices, its mass properties filled.
 * Returns 0, or -1 with a message starting with `what`: fewer than 4
 * points, a coordinate not finite, all points coincident, collinear or
 * coplanar, or a failed check. */
int mrdem_hull(const double *pts, size_t n, const char *what, struct mrdem_mesh *out);

#endif
