/* Exact closest point on a triangle to a point, in double precision.
 * Used where conservativeness must hold exactly (surrogate epsilons) and as
 * a building block of the reference triangle-triangle distance. */
#ifndef MRDEM_GEOM_POINT_TRIANGLE_H
#define MRDEM_GEOM_POINT_TRIANGLE_H

/* Writes the closest point of triangle (a, b, c) to p into q (may be NULL)
 * and returns the distance |p - q|. Degenerate triangles are handled
 * (they reduce to the closest point on their edges). */
double mrdem_point_triangle(const double p[3], const double a[3], const double b[3],
			    const double c[3], double q[3]);

/* The same, also giving the closest point's barycentric coordinates
 * (weights of a, b, c) in bary (may be NULL). */
double mrdem_point_triangle_bary(const double p[3], const double a[3], const double b[3],
				 const double c[3], double q[3], double bary[3]);

/* Closest point on segment [a, b] to p; returns the distance. */
double mrdem_point_segment(const double p[3], const double a[3], const double b[3], double q[3]);

#endif
