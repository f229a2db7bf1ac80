#include "common/narrow/tri/tri_distance_ref.h"

#include <math.h>

#include "common/geom/point_triangle.h"
#include "common/geom/vec3.h"

static double clamp01(double x)
{
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

/* Ericson, Real-Time Collision Detection 5.1.9, with the parameter of the
 * first segment from (d1 x d2).(d2 x r) / |d1 x d2|^2: the same value as
 * the textbook (b f - c e) / (a e - b^2) but without its cancellation. */
double mrdem_segment_segment(const double p0[3], const double p1[3], const double q0[3],
			     const double q1[3], double pa[3], double pb[3])
{
	double d1[3], d2[3], r[3], x[3], y[3];
	vec3_sub(d1, p1, p0);
	vec3_sub(d2, q1, q0);
	vec3_sub(r, p0, q0);
	double a = vec3_dot(d1, d1), e = vec3_dot(d2, d2), f = vec3_dot(d2, r);
	double s, t;
	if (a <= 0 && e <= 0) {
		s = t = 0;
	} else if (a <= 0) {
		s = 0;
		t = clamp01(f / e);
	} else {
		double c = vec3_dot(d1, r);
		if (e <= 0) {
			t = 0;
			s = clamp01(-c / a);
		} else {
			double b = vec3_dot(d1, d2), n[3], m[3];
			vec3_cross(n, d1, d2);
			vec3_cross(m, d2, r);
			double den = vec3_dot(n, n);
			s = den > 0 ? clamp01(vec3_dot(n, m) / den) : 0.0;
			t = (b * s + f) / e;
			if (t < 0) {
				t = 0;
				s = clamp01(-c / a);
			} else if (t > 1) {
				t = 1;
				s = clamp01((b - c) / a);
			}
		}
	}
	vec3_axpy(x, p0, s, d1);
	vec3_axpy(y, q0, t, d2);
	if (pa)
		vec3_copy(pa, x);
	if (pb)
		vec3_copy(pb, y);
	return vec3_dist(x, y);
}

/* Whether segment [p0, p1] crosses triangle t (not coplanar with it); the
 * crossing point goes to x. */
static int segment_triangle_cross(const double p0[3], const double p1[3], const double t[9],
				  double x[3])
{
	const double *v0 = t, *v1 = t + 3, *v2 = t + 6;
	double e0[3], e1[3], n[3], w[3];
	vec3_sub(e0, v1, v0);
	vec3_sub(e1, v2, v0);
	vec3_cross(n, e0, e1);
	if (vec3_norm2(n) <= 0)
		return 0; /* degenerate triangle: its edges carry the tests */
	vec3_sub(w, p0, v0);
	double s0 = vec3_dot(n, w);
	vec3_sub(w, p1, v0);
	double s1 = vec3_dot(n, w);
	if ((s0 > 0 && s1 > 0) || (s0 < 0 && s1 < 0) || s0 == s1)
		return 0; /* same side, or coplanar (left to the edge tests) */
	double lam = s0 / (s0 - s1), d[3], c[3];
	vec3_sub(d, p1, p0);
	vec3_axpy(x, p0, lam, d);
	/* Inside iff x lies left of every edge, seen along n. */
	const double *v[3] = {v0, v1, v2};
	for (int k = 0; k < 3; k++) {
		double e[3];
		vec3_sub(e, v[(k + 1) % 3], v[k]);
		vec3_sub(w, x, v[k]);
		vec3_cross(c, e, w);
		if (vec3_dot(c, n) < 0)
			return 0;
	}
	return 1;
}

double mrdem_tri_distance_ref(const double a[9], const double b[9], double pa[3], double pb[3])
{
	double best = INFINITY, x[3] = {0, 0, 0}, y[3] = {0, 0, 0}, u[3], v[3], d;

	/* An edge through the other triangle: they intersect. */
	for (int k = 0; k < 3; k++) {
		if (segment_triangle_cross(a + 3 * k, a + 3 * ((k + 1) % 3), b, u) ||
		    segment_triangle_cross(b + 3 * k, b + 3 * ((k + 1) % 3), a, u)) {
			if (pa)
				vec3_copy(pa, u);
			if (pb)
				vec3_copy(pb, u);
			return 0.0;
		}
	}
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			d = mrdem_segment_segment(a + 3 * i, a + 3 * ((i + 1) % 3), b + 3 * j,
						  b + 3 * ((j + 1) % 3), u, v);
			if (d < best)
				best = d, vec3_copy(x, u), vec3_copy(y, v);
		}
	for (int k = 0; k < 3; k++) {
		d = mrdem_point_triangle(a + 3 * k, b, b + 3, b + 6, v);
		if (d < best)
			best = d, vec3_copy(x, a + 3 * k), vec3_copy(y, v);
		d = mrdem_point_triangle(b + 3 * k, a, a + 3, a + 6, u);
		if (d < best)
			best = d, vec3_copy(x, u), vec3_copy(y, b + 3 * k);
	}
	if (pa)
		vec3_copy(pa, x);
	if (pb)
		vec3_copy(pb, y);
	return best;
}
