/* Ellipsoid geometry for contacts (Pazouki et al.): the support mapping, the
 * closed-form distance to a plane, the separation test by the
 * characteristic polynomial, and the signed distance of two ellipsoids as
 * a two-variable optimisation over the contact normal.
 *
 * A sphere is the ellipsoid of three equal semi-axes, so every function
 * here serves both analytic kinds. */
#ifndef MRDEM_SHAPE_ELLIPSOID_H
#define MRDEM_SHAPE_ELLIPSOID_H

struct mrdem_ellipsoid {
	double c[3];     /* centre, world */
	double r[9];     /* rotation shape -> world, row-major */
	double axes[3];  /* semi-axes along the shape's x, y, z */
	double q[9];     /* R diag(axes^2) R^T: the support is c + Q n / sqrt(n.Q n) */
};

/* Fill e from a pose (centre, rotation) and semi-axes. */
void mrdem_ellipsoid_set(struct mrdem_ellipsoid *e, const double c[3], const double r[9],
			 const double axes[3]);

/* Support point along d (any length, not 0) into out: a mrdem_support_fn. */
void mrdem_ellipsoid_support(const void *e, const double d[3], double out[3]);

/* Signed distance from the ellipsoid to the plane through pt with unit
 * normal n (negative when it reaches below), and the ellipsoid's point
 * nearest the plane (deepest below it) into x. */
double mrdem_ellipsoid_plane(const struct mrdem_ellipsoid *e, const double pt[3],
			     const double n[3], double x[3]);

/* The separation test of the characteristic polynomial (Wang, Wang and Kim
 * 2001; Pazouki et al.'s intermediate level): with A grown so that it contains
 * every point within `grow` of it, f(l) = det(l A - B) of the two 4x4
 * quadric matrices is negative at 0 and at infinity; the grown A and B
 * are apart exactly when f is positive between, at a critical point (a
 * root of the cubic f'). Returns 1 only when that maximum is positive by a
 * margin over the rounding of its terms, so touching ellipsoids are never
 * apart; 0 when they may touch within `grow`. */
int mrdem_ellipsoids_apart(const struct mrdem_ellipsoid *a, const struct mrdem_ellipsoid *b,
			   double grow);

struct mrdem_ellipsoid_pair {
	double dist;         /* signed: negative when the solids overlap */
	double n[3];         /* unit, from a towards b */
	double pa[3], pb[3]; /* a's point with outward normal n, b's with -n */
	int iterations;      /* Newton steps taken */
	int converged;
};

/* Signed distance of two ellipsoids: the maximum over unit n of
 * g(n) = n.(c_b - c_a) - h_a(n) - h_b(-n), h the support functions (the
 * separating-axis form of the distance; its maximum is the distance when
 * apart and minus the penetration depth along the best axis when not).
 * Two variables (n on the sphere), Newton with the analytic gradient and
 * Hessian and a backtracking line search, started at n0 (unit; NULL: the
 * line of centres). Returns 0, or -1 when it did not converge (out holds
 * the best normal found). */
int mrdem_ellipsoids_distance(const struct mrdem_ellipsoid *a, const struct mrdem_ellipsoid *b,
			      const double n0[3], struct mrdem_ellipsoid_pair *out);

#endif
