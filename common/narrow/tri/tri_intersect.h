/* Exact-predicate-style triangle-triangle intersection test (Moller 1997,
 * interval form) for float triangles, evaluated in double: the iterative
 * kernel's backstop, so that the iterative method never reports "no
 * contact" for triangles that cross (docs/narrow-phase.md). Float
 * differences are exact in double, so the only rounding is that of a few
 * products, ~1e-16 relative: far below the float kernels' own error. */
#ifndef MRDEM_NARROW_TRI_INTERSECT_H
#define MRDEM_NARROW_TRI_INTERSECT_H

/* 1 when triangles a and b (9 floats each) share a point (crossing,
 * touching or coplanar overlap), with such a point in x (may be NULL);
 * else 0. A degenerate triangle (zero area in double) gives 0. */
int mrdem_tri_intersect(const float a[9], const float b[9], float x[3]);

#endif
