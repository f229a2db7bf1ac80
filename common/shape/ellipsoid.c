#include "common/shape/ellipsoid.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "common/geom/quat.h"
#include "common/geom/vec3.h"

#define NEWTON_MAX_ITER 60

void mrdem_ellipsoid_set(struct mrdem_ellipsoid *e, const double c[3], const double r[9],
			 const double axes[3])
{
	vec3_copy(e->c, c);
	memcpy(e->r, r, sizeof e->r);
	vec3_copy(e->axes, axes);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			double s = 0;
			for (int k = 0; k < 3; k++)
				s += r[3 * i + k] * axes[k] * axes[k] * r[3 * j + k];
			e->q[3 * i + j] = s;
		}
}

/* h(n) = sqrt(n.Q n), and Q n into qn. */
static double support_h(const double q[9], const double n[3], double qn[3])
{
	mat3_apply(qn, q, n);
	return sqrt(fmax(vec3_dot(n, qn), DBL_MIN));
}

void mrdem_ellipsoid_support(const void *ev, const double d[3], double out[3])
{
	const struct mrdem_ellipsoid *e = ev;
	double qn[3];
	double h = support_h(e->q, d, qn);
	vec3_axpy(out, e->c, 1.0 / h, qn);
}

double mrdem_ellipsoid_plane(const struct mrdem_ellipsoid *e, const double pt[3],
			     const double n[3], double x[3])
{
	double qn[3], rel[3];
	double h = support_h(e->q, n, qn);
	vec3_axpy(x, e->c, -1.0 / h, qn);
	vec3_sub(rel, e->c, pt);
	return vec3_dot(rel, n) - h;
}

/* ---- separation test */

static double det2(const double m[16], int i, int j)
{
	return m[4 * i + i] * m[4 * j + j] - m[4 * i + j] * m[4 * j + i];
}

static double det3(const double m[16], int i, int j, int k)
{
	return m[4 * i + i] * (m[4 * j + j] * m[4 * k + k] - m[4 * j + k] * m[4 * k + j]) -
	       m[4 * i + j] * (m[4 * j + i] * m[4 * k + k] - m[4 * j + k] * m[4 * k + i]) +
	       m[4 * i + k] * (m[4 * j + i] * m[4 * k + j] - m[4 * j + j] * m[4 * k + i]);
}

static double det4(const double m[16])
{
	double s = 0;
	for (int c = 0; c < 4; c++) {
		/* expansion along row 0 with 3x3 minors of rows 1..3 */
		int cols[3], n = 0;
		for (int k = 0; k < 4; k++)
			if (k != c)
				cols[n++] = k;
		double minor = m[4 + cols[0]] * (m[8 + cols[1]] * m[12 + cols[2]] -
						 m[8 + cols[2]] * m[12 + cols[1]]) -
			       m[4 + cols[1]] * (m[8 + cols[0]] * m[12 + cols[2]] -
						 m[8 + cols[2]] * m[12 + cols[0]]) +
			       m[4 + cols[2]] * (m[8 + cols[0]] * m[12 + cols[1]] -
						 m[8 + cols[1]] * m[12 + cols[0]]);
		s += (c & 1 ? -1 : 1) * m[c] * minor;
	}
	return s;
}

/* Real roots of a cubic a x^3 + b x^2 + c x + d (a != 0) into x; returns
 * their number (1 or 3). */
static int cubic_roots(double a, double b, double c, double d, double x[3])
{
	double p = (3 * a * c - b * b) / (3 * a * a);
	double q = (2 * b * b * b - 9 * a * b * c + 27 * a * a * d) / (27 * a * a * a);
	double shift = -b / (3 * a), disc = q * q / 4 + p * p * p / 27;
	if (disc > 0) {
		double s = sqrt(disc);
		x[0] = cbrt(-q / 2 + s) + cbrt(-q / 2 - s) + shift;
		return 1;
	}
	double r = p < 0 ? 2 * sqrt(-p / 3) : 0;
	double arg = r > 0 ? fmax(-1, fmin(1, 3 * q / (p * r))) : 0;
	double phi = acos(arg) / 3;
	for (int k = 0; k < 3; k++)
		x[k] = r * cos(phi - 2 * M_PI * k / 3) + shift;
	return 3;
}

int mrdem_ellipsoids_apart(const struct mrdem_ellipsoid *a, const struct mrdem_ellipsoid *b,
			   double grow)
{
	/* A's frame, scaled so that grown A is the unit sphere: y = D^-1 Ra^T (x - ca),
	 * D = s axes_a, s = 1 + grow / min axis (a conservative growth: the
	 * grown ellipsoid holds the grow-neighbourhood of A). */
	double amin = fmin(a->axes[0], fmin(a->axes[1], a->axes[2]));
	double s = 1 + grow / amin, dinv[3], rel[3], cb[3];
	for (int k = 0; k < 3; k++)
		dinv[k] = 1 / (s * a->axes[k]);
	vec3_sub(rel, b->c, a->c);
	mat3_apply_transpose(cb, a->r, rel);
	for (int k = 0; k < 3; k++)
		cb[k] *= dinv[k];
	/* B's quadric in y: (y - cb)^T M (y - cb) <= 1, M = L L^T,
	 * L = D Ra^T Rb diag(1 / axes_b). */
	double L[9], M[9];
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			double t = 0;
			for (int k = 0; k < 3; k++)
				t += a->r[3 * k + i] * b->r[3 * k + j];
			L[3 * i + j] = t * s * a->axes[i] / b->axes[j];
		}
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			M[3 * i + j] = L[3 * i] * L[3 * j] + L[3 * i + 1] * L[3 * j + 1] +
				       L[3 * i + 2] * L[3 * j + 2];
	double mc[3];
	mat3_apply(mc, M, cb);
	double B[16];
	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < 3; j++)
			B[4 * i + j] = M[3 * i + j];
		B[4 * i + 3] = B[12 + i] = -mc[i];
	}
	B[15] = vec3_dot(cb, mc) - 1;
	/* f(l) = det(l A - B), A = diag(1, 1, 1, -1): the coefficient of l^k
	 * sums, over the k-sets S, prod_{i in S} A_ii times the principal
	 * minor of -B on the complement of S. */
	double c[5];
	c[4] = -1;
	/* S^c = {j}: the product over S holds A_33 = -1 unless j = 3 */
	c[3] = B[0] + B[5] + B[10] - B[15];
	/* S^c = {j, l}: the product is -1 when 3 is in S */
	c[2] = -(det2(B, 0, 1) + det2(B, 0, 2) + det2(B, 1, 2)) + det2(B, 0, 3) + det2(B, 1, 3) +
	       det2(B, 2, 3);
	/* S = {i}: A_ii times det3(-B) = -det3(B) on the other three */
	c[1] = det3(B, 0, 1, 2) - det3(B, 0, 1, 3) - det3(B, 0, 2, 3) - det3(B, 1, 2, 3);
	c[0] = det4(B);
	/* Critical points: roots of f' = 4 c4 l^3 + 3 c3 l^2 + 2 c2 l + c1. */
	double x[3];
	int nr = cubic_roots(4 * c[4], 3 * c[3], 2 * c[2], c[1], x);
	for (int i = 0; i < nr; i++) {
		double l = x[i];
		if (!(l < 0))
			continue;
		/* polish on f' (two Newton steps) */
		for (int it = 0; it < 2; it++) {
			double fp = ((4 * c[4] * l + 3 * c[3]) * l + 2 * c[2]) * l + c[1];
			double fpp = (12 * c[4] * l + 6 * c[3]) * l + 2 * c[2];
			if (fpp != 0)
				l -= fp / fpp;
		}
		if (!(l < 0))
			continue;
		double f = 0, mag = 0, p = 1;
		for (int k = 0; k <= 4; k++, p *= l) {
			f += c[k] * p;
			mag += fabs(c[k] * p);
		}
		if (f > 1e-10 * mag)
			return 1;
	}
	return 0;
}

/* ---- distance by two-variable optimisation */

/* g(n) = n.r - h_a(n) - h_b(n), with gradient and Hessian in R^3 when
 * grad/hess are not NULL. */
static double objective(const double qa[9], const double qb[9], const double r[3],
			const double n[3], double grad[3], double hess[9])
{
	double qan[3], qbn[3];
	double ha = support_h(qa, n, qan), hb = support_h(qb, n, qbn);
	double g = vec3_dot(n, r) - ha - hb;
	if (grad)
		for (int k = 0; k < 3; k++)
			grad[k] = r[k] - qan[k] / ha - qbn[k] / hb;
	if (hess)
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 3; j++)
				hess[3 * i + j] = -(qa[3 * i + j] / ha - qan[i] * qan[j] / (ha * ha * ha)) -
						  (qb[3 * i + j] / hb - qbn[i] * qbn[j] / (hb * hb * hb));
	return g;
}

/* Two unit vectors completing n to an orthonormal basis. */
static void tangents(const double n[3], double t1[3], double t2[3])
{
	double e[3] = {0, 0, 0};
	int k = fabs(n[0]) < fabs(n[1]) ? (fabs(n[0]) < fabs(n[2]) ? 0 : 2)
					: (fabs(n[1]) < fabs(n[2]) ? 1 : 2);
	e[k] = 1;
	vec3_cross(t1, n, e);
	vec3_normalize(t1);
	vec3_cross(t2, n, t1);
}

int mrdem_ellipsoids_distance(const struct mrdem_ellipsoid *a, const struct mrdem_ellipsoid *b,
			      const double n0[3], struct mrdem_ellipsoid_pair *out)
{
	double r[3], n[3];
	vec3_sub(r, b->c, a->c);
	if (n0)
		vec3_copy(n, n0);
	else
		vec3_copy(n, r);
	if (!(vec3_normalize(n) > 0))
		vec3_set(n, 1, 0, 0);
	double scale = vec3_norm(r) + fmax(a->axes[0], fmax(a->axes[1], a->axes[2])) +
		       fmax(b->axes[0], fmax(b->axes[1], b->axes[2]));
	/* the tangent gradient's rounding floor is about 1e-12 scale; at 1e-10
	 * the distance is exact to rounding (its error is quadratic in it) */
	double tol = 1e-10 * scale;
	int it, converged = 0;
	double g = 0;
	for (it = 0; it < NEWTON_MAX_ITER; it++) {
		double grad[3], hess[9], t1[3], t2[3], ht1[3], ht2[3];
		g = objective(a->q, b->q, r, n, grad, hess);
		tangents(n, t1, t2);
		double g1 = vec3_dot(t1, grad), g2 = vec3_dot(t2, grad);
		if (hypot(g1, g2) <= tol) {
			converged = 1;
			break;
		}
		mat3_apply(ht1, hess, t1);
		mat3_apply(ht2, hess, t2);
		/* The Hessian on the sphere: T^T H T - g I (g is homogeneous of degree 1). */
		double h11 = vec3_dot(t1, ht1) - g, h12 = vec3_dot(t1, ht2), h22 = vec3_dot(t2, ht2) - g;
		/* Newton uphill where the Hessian is negative definite; else
		 * shifted below its largest eigenvalue (Levenberg), which
		 * penetrating pairs need: there g < 0 and the sphere bends the
		 * other way. */
		double mid = 0.5 * (h11 + h22), rad = hypot(0.5 * (h11 - h22), h12);
		double top = mid + rad, size = fabs(mid) + rad + DBL_MIN;
		if (top > -1e-3 * size) {
			double shift = top + 1e-3 * size + hypot(g1, g2);
			h11 -= shift;
			h22 -= shift;
		}
		double det = h11 * h22 - h12 * h12;
		double d1 = -(h22 * g1 - h12 * g2) / det;
		double d2 = -(-h12 * g1 + h11 * g2) / det;
		double step = 1, trial[3];
		int moved = 0;
		for (int ls = 0; ls < 40; ls++, step *= 0.5) {
			for (int k = 0; k < 3; k++)
				trial[k] = n[k] + step * (d1 * t1[k] + d2 * t2[k]);
			vec3_normalize(trial);
			if (objective(a->q, b->q, r, trial, NULL, NULL) > g) {
				moved = 1;
				break;
			}
		}
		if (!moved) { /* no ascent left in double precision: g is at its peak to rounding */
			converged = hypot(g1, g2) <= 1e-6 * scale;
			break;
		}
		vec3_copy(n, trial);
	}
	g = objective(a->q, b->q, r, n, NULL, NULL);
	out->dist = g;
	vec3_copy(out->n, n);
	double m[3];
	vec3_scale(m, n, -1);
	mrdem_ellipsoid_support(a, n, out->pa);
	mrdem_ellipsoid_support(b, m, out->pb);
	out->iterations = it;
	out->converged = converged;
	return converged ? 0 : -1;
}
