#include "common/geom/point_triangle.h"

#include "common/geom/vec3.h"

double mrdem_point_segment(const double p[3], const double a[3], const double b[3], double q[3])
{
	double ab[3], ap[3], c[3];
	vec3_sub(ab, b, a);
	vec3_sub(ap, p, a);
	double len2 = vec3_norm2(ab);
	double t = len2 > 0 ? vec3_dot(ap, ab) / len2 : 0.0;
	t = t < 0 ? 0 : t > 1 ? 1 : t;
	vec3_axpy(c, a, t, ab);
	if (q)
		vec3_copy(q, c);
	return vec3_dist(p, c);
}

/* Voronoi-region walk (Ericson, Real-Time Collision Detection, 5.1.5). */
double mrdem_point_triangle(const double p[3], const double a[3], const double b[3],
			    const double c[3], double q[3])
{
	double ab[3], ac[3], ap[3], bp[3], cp[3], r[3], n[3];
	vec3_sub(ab, b, a);
	vec3_sub(ac, c, a);
	vec3_cross(n, ab, ac);
	/* A (near-)degenerate triangle has no interior region to speak of:
	 * the closest point then lies on one of its edges. */
	double scale = vec3_norm2(ab) + vec3_norm2(ac);
	if (vec3_norm2(n) <= 1e-24 * scale * scale) {
		double t[3], best, d;
		best = mrdem_point_segment(p, a, b, r);
		if ((d = mrdem_point_segment(p, b, c, t)) < best)
			best = d, vec3_copy(r, t);
		if ((d = mrdem_point_segment(p, c, a, t)) < best)
			best = d, vec3_copy(r, t);
		if (q)
			vec3_copy(q, r);
		return best;
	}
	vec3_sub(ap, p, a);
	double d1 = vec3_dot(ab, ap), d2 = vec3_dot(ac, ap);
	if (d1 <= 0 && d2 <= 0) {
		vec3_copy(r, a);
		goto done;
	}
	vec3_sub(bp, p, b);
	double d3 = vec3_dot(ab, bp), d4 = vec3_dot(ac, bp);
	if (d3 >= 0 && d4 <= d3) {
		vec3_copy(r, b);
		goto done;
	}
	double vc = d1 * d4 - d3 * d2;
	if (vc <= 0 && d1 >= 0 && d3 <= 0) {
		vec3_axpy(r, a, d1 / (d1 - d3), ab);
		goto done;
	}
	vec3_sub(cp, p, c);
	double d5 = vec3_dot(ab, cp), d6 = vec3_dot(ac, cp);
	if (d6 >= 0 && d5 <= d6) {
		vec3_copy(r, c);
		goto done;
	}
	double vb = d5 * d2 - d1 * d6;
	if (vb <= 0 && d2 >= 0 && d6 <= 0) {
		vec3_axpy(r, a, d2 / (d2 - d6), ac);
		goto done;
	}
	double va = d3 * d6 - d5 * d4;
	if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
		double bc[3];
		vec3_sub(bc, c, b);
		vec3_axpy(r, b, (d4 - d3) / ((d4 - d3) + (d5 - d6)), bc);
		goto done;
	}
	{
		double denom = 1.0 / (va + vb + vc);
		double v = vb * denom, w = vc * denom;
		vec3_axpy(r, a, v, ab);
		vec3_axpy(r, r, w, ac);
	}
done:
	if (q)
		vec3_copy(q, r);
	return vec3_dist(p, r);
}
