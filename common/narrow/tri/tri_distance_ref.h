/* Reference triangle-triangle distance in double precision (paper Sec. 3,
 * "comparison-based"): 6 point-triangle and 9 segment-segment tests, their
 * minimum, plus 6 segment-triangle crossing tests so that intersecting
 * triangles get distance 0. Branchy and scalar: it is the yardstick the
 * single-precision kernels are tested against, not a production kernel. */
#ifndef MRDEM_NARROW_TRI_DISTANCE_REF_H
#define MRDEM_NARROW_TRI_DISTANCE_REF_H

/* Triangles are 9 values: x0 y0 z0 x1 y1 z1 x2 y2 z2. Writes the closest
 * points on a and b into pa and pb (either may be NULL) and returns their
 * distance. Intersecting triangles give 0 with pa = pb = a point of the
 * intersection. Degenerate triangles (collinear or coincident vertices)
 * are handled as the segments or points they are. */
double mrdem_tri_distance_ref(const double a[9], const double b[9], double pa[3], double pb[3]);

/* Closest points of segments [p0, p1] and [q0, q1]; returns the distance.
 * Near-parallel segments are solved through cross products, which keep
 * their relative accuracy where the dot-product formula cancels. */
double mrdem_segment_segment(const double p0[3], const double p1[3], const double q0[3],
			     const double q1[3], double pa[3], double pb[3]);

#endif
