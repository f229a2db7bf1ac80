/* Distance between two convex sets given by their support mappings
 * (Gilbert, Johnson and Keerthi 1988): the closest point of the Minkowski
 * difference A - B to the origin, found on simplices of up to four support
 * points. The analytic kinds use it where no closed form exists (an
 * ellipsoid against a triangle) and as the reference the closed forms and
 * the ellipsoid optimisation are tested against. */
#ifndef MRDEM_SHAPE_GJK_H
#define MRDEM_SHAPE_GJK_H

/* The point of the set farthest along direction d (not necessarily unit). */
typedef void (*mrdem_support_fn)(const void *set, const double d[3], double out[3]);

struct mrdem_gjk_result {
	double dist;       /* 0 when the sets intersect */
	double pa[3], pb[3]; /* closest points of A and B (equal, inside both, when intersecting) */
	int intersect;
	int iterations;    /* support pairs evaluated */
};

/* tol: absolute accuracy of dist (the iteration stops when the gap between
 * |v| and the support plane's distance is below it). */
void mrdem_gjk_distance(const void *a, mrdem_support_fn support_a, const void *b,
			mrdem_support_fn support_b, double tol, struct mrdem_gjk_result *out);

/* Support of a triangle given as 9 doubles (its farthest vertex). */
void mrdem_support_triangle(const void *tri, const double d[3], double out[3]);

#endif
