#include "common/geom/point_triangle.h"

#include <stddef.h>

#include "common/geom/vec3.h"

/* Closest point on segment [a, b]: its parameter t in [0, 1]. */
static double segment_param(const double p[3], const double a[3], const double b[3])
{
	double ab[3], ap[3];
	vec3_sub(ab, b, a);
	vec3_sub(ap, p, a);
	double len2 = vec3_norm2(ab);
	double t = len2 > 0 ? vec3_dot(ap, ab) / len2 : 0.0;
	return t < 0 ? 0 : t > 1 ? 1 : t;
}

double mrdem_point_segment(const double p[3], const double a[3], const double b[3], double q[3])
{
	double t = segment_param(p, a, b), c[3];
	for (int k = 0; k < 3; k++)
		c[k] = (1 - t) * a[k] + t * b[k];
	if (q)
		vec3_copy(q, c);
	return vec3_dist(p, c);
}

/* Voronoi-region walk (Ericson, Real-Time Collision Detection, 5.1.5). */
double mrdem_point_triangle_bary(const double p[3], const double a[3], const double b[3],
				 const double c[3], double q[3], double bary[3])
{
	double ab[3], ac[3], ap[3], bp[3], cp[3], n[3], r[3];
	double u = 1, v = 0, w = 0;
	vec3_sub(ab, b, a);
	vec3_sub(ac, c, a);
	vec3_cross(n, ab, ac);
	/* A (near-)degenerate triangle has no interior region to speak of:
	 * the closest point then lies on one of its edges. */
	double scale = vec3_norm2(ab) + vec3_norm2(ac);
	if (vec3_norm2(n) <= 1e-24 * scale * scale) {
		const double *e[3][2] = {{a, b}, {b, c}, {c, a}};
		double best = -1;
		for (int k = 0; k < 3; k++) {
			double t = segment_param(p, e[k][0], e[k][1]), x[3];
			for (int i = 0; i < 3; i++)
				x[i] = (1 - t) * e[k][0][i] + t * e[k][1][i];
			double d = vec3_dist(p, x);
			if (best >= 0 && d >= best)
				continue;
			best = d;
			double bb[3] = {0, 0, 0};
			bb[k] = 1 - t, bb[(k + 1) % 3] = t;
			u = bb[0], v = bb[1], w = bb[2];
		}
		goto done;
	}
	vec3_sub(ap, p, a);
	double d1 = vec3_dot(ab, ap), d2 = vec3_dot(ac, ap);
	if (d1 <= 0 && d2 <= 0)
		goto done;
	vec3_sub(bp, p, b);
	double d3 = vec3_dot(ab, bp), d4 = vec3_dot(ac, bp);
	if (d3 >= 0 && d4 <= d3) {
		u = 0, v = 1;
		goto done;
	}
	double vc = d1 * d4 - d3 * d2;
	if (vc <= 0 && d1 >= 0 && d3 <= 0) {
		v = d1 / (d1 - d3), u = 1 - v;
		goto done;
	}
	vec3_sub(cp, p, c);
	double d5 = vec3_dot(ab, cp), d6 = vec3_dot(ac, cp);
	if (d6 >= 0 && d5 <= d6) {
		u = 0, w = 1;
		goto done;
	}
	double vb = d5 * d2 - d1 * d6;
	if (vb <= 0 && d2 >= 0 && d6 <= 0) {
		w = d2 / (d2 - d6), u = 1 - w;
		goto done;
	}
	double va = d3 * d6 - d5 * d4;
	if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
		w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
		u = 0, v = 1 - w;
		goto done;
	}
	double den = 1.0 / (va + vb + vc);
	v = vb * den, w = vc * den, u = 1 - v - w;
done:
	for (int k = 0; k < 3; k++)
		r[k] = u * a[k] + v * b[k] + w * c[k];
	if (q)
		vec3_copy(q, r);
	if (bary)
		bary[0] = u, bary[1] = v, bary[2] = w;
	return vec3_dist(p, r);
}

double mrdem_point_triangle(const double p[3], const double a[3], const double b[3],
			    const double c[3], double q[3])
{
	return mrdem_point_triangle_bary(p, a, b, c, q, NULL);
}
