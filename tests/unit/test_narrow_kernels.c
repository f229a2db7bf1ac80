/* Triangle-triangle distance kernels against independent references, on
 * random pairs in seven categories (far, near, crossing, near-parallel,
 * touching at a known distance, sliver, degenerate):
 *
 *  - the double comparison-based reference against a KKT enumeration in
 *    long double (every pair of faces of the two triangles, solved on its
 *    affine hull, feasible minimisers only), to 1e-9;
 *  - distance 0 exactly when Moller's interval test finds an intersection;
 *  - the float comparison kernel, at every SIMD level this CPU has,
 *    against the reference to the tolerance docs/narrow-phase.md states;
 *  - the iterative kernel's decisions (never wrong outside the float band)
 *    and the hybrid's decisions against the reference, mismatches counted
 *    and bounded inside the band around |n| = cut;
 *  - invariance under rigid motions, swapping the triangles and
 *    permuting vertices.
 *
 * 10^6 pairs; 10^5 when MRDEM_ASAN is set (sanitised builds are slower). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/quat.h"
#include "common/geom/vec3.h"
#include "common/util/simd.h"
#include "common/narrow/tri/tri_block.h"
#include "common/narrow/tri/tri_distance_ref.h"
#include "tests/lib/tap.h"
#include "common/util/rng.h"

typedef long double ld;

/* ---- independent reference: KKT enumeration over face pairs ------------ */

/* Faces of a triangle as vertex lists: 3 vertices, 3 edges, the interior. */
static const int face_n[7] = {1, 1, 1, 2, 2, 2, 3};
static const int face_v[7][3] = {{0}, {1}, {2}, {0, 1}, {1, 2}, {2, 0}, {0, 1, 2}};

/* Solve the m x m system M x = y (m <= 3) with partial pivoting; 0 when
 * singular relative to the matrix scale. */
static int solve(ld M[3][3], ld y[3], int m, ld x[3])
{
	ld scale = 0;
	for (int i = 0; i < m; i++)
		scale = fmaxl(scale, fabsl(M[i][i]));
	for (int c = 0; c < m; c++) {
		int p = c;
		for (int r = c + 1; r < m; r++)
			if (fabsl(M[r][c]) > fabsl(M[p][c]))
				p = r;
		if (!(fabsl(M[p][c]) > 1e-24L * scale))
			return 0;
		if (p != c) {
			for (int k = 0; k < m; k++) {
				ld t = M[c][k];
				M[c][k] = M[p][k], M[p][k] = t;
			}
			ld t = y[c];
			y[c] = y[p], y[p] = t;
		}
		for (int r = c + 1; r < m; r++) {
			ld f = M[r][c] / M[c][c];
			for (int k = c; k < m; k++)
				M[r][k] -= f * M[c][k];
			y[r] -= f * y[c];
		}
	}
	for (int c = m - 1; c >= 0; c--) {
		ld s = y[c];
		for (int k = c + 1; k < m; k++)
			s -= M[c][k] * x[k];
		x[c] = s / M[c][c];
	}
	return 1;
}

/* Barycentric weights (n of them) from the n-1 free ones; projected onto
 * the simplex when slightly outside. 0 when clearly infeasible. */
static int weights(const ld *x, int n, ld w[3])
{
	const ld tol = 1e-9L;
	ld sum = 0;
	for (int i = 1; i < n; i++) {
		if (x[i - 1] < -tol)
			return 0;
		w[i] = x[i - 1] < 0 ? 0 : x[i - 1];
		sum += w[i];
	}
	if (sum > 1 + tol)
		return 0;
	if (sum > 1) {
		for (int i = 1; i < n; i++)
			w[i] /= sum;
		sum = 1;
	}
	w[0] = 1 - sum;
	return 1;
}

static ld qp_distance(const double a[9], const double b[9])
{
	ld best = INFINITY;
	for (int fa = 0; fa < 7; fa++)
		for (int fb = 0; fb < 7; fb++) {
			int na = face_n[fa], nb = face_n[fb], m = na - 1 + nb - 1;
			if (m > 3)
				continue; /* face-face: its minimum is also on a lower pair */
			const double *v0 = a + 3 * face_v[fa][0], *w0 = b + 3 * face_v[fb][0];
			ld U[3][3], r0[3]; /* columns of U: directions of the unknowns */
			for (int c = 0; c < 3; c++)
				r0[c] = (ld)v0[c] - w0[c];
			int col = 0;
			for (int i = 1; i < na; i++, col++)
				for (int c = 0; c < 3; c++)
					U[c][col] = (ld)a[3 * face_v[fa][i] + c] - v0[c];
			for (int j = 1; j < nb; j++, col++)
				for (int c = 0; c < 3; c++)
					U[c][col] = -((ld)b[3 * face_v[fb][j] + c] - w0[c]);
			ld x[3] = {0, 0, 0};
			if (m > 0) {
				ld M[3][3], y[3];
				for (int i = 0; i < m; i++) {
					y[i] = 0;
					for (int c = 0; c < 3; c++)
						y[i] -= U[c][i] * r0[c];
					for (int j = 0; j < m; j++) {
						M[i][j] = 0;
						for (int c = 0; c < 3; c++)
							M[i][j] += U[c][i] * U[c][j];
					}
				}
				if (!solve(M, y, m, x))
					continue;
			}
			ld wa[3], wb[3];
			if (!weights(x, na, wa) || !weights(x + na - 1, nb, wb))
				continue;
			ld d2 = 0;
			for (int c = 0; c < 3; c++) {
				ld p = 0, q = 0;
				for (int i = 0; i < na; i++)
					p += wa[i] * a[3 * face_v[fa][i] + c];
				for (int j = 0; j < nb; j++)
					q += wb[j] * b[3 * face_v[fb][j] + c];
				d2 += (p - q) * (p - q);
			}
			if (d2 < best)
				best = d2;
		}
	return sqrtl(best);
}

/* ---- independent intersection test (Moller 1997, long double) ---------- */

static void ld_cross(ld o[3], const ld a[3], const ld b[3])
{
	o[0] = a[1] * b[2] - a[2] * b[1];
	o[1] = a[2] * b[0] - a[0] * b[2];
	o[2] = a[0] * b[1] - a[1] * b[0];
}

static ld ld_dot(const ld a[3], const ld b[3])
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* 2D segment intersection and point-in-triangle for the coplanar case,
 * projected onto the plane's dominant axes. */
static int seg2_cross(const ld p[2], const ld q[2], const ld r[2], const ld s[2])
{
	ld d1 = (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]);
	ld d2 = (q[0] - p[0]) * (s[1] - p[1]) - (q[1] - p[1]) * (s[0] - p[0]);
	ld d3 = (s[0] - r[0]) * (p[1] - r[1]) - (s[1] - r[1]) * (p[0] - r[0]);
	ld d4 = (s[0] - r[0]) * (q[1] - r[1]) - (s[1] - r[1]) * (q[0] - r[0]);
	return d1 * d2 <= 0 && d3 * d4 <= 0;
}

static int point2_in(const ld p[2], const ld t[3][2])
{
	int pos = 0, neg = 0;
	for (int k = 0; k < 3; k++) {
		const ld *u = t[k], *v = t[(k + 1) % 3];
		ld c = (v[0] - u[0]) * (p[1] - u[1]) - (v[1] - u[1]) * (p[0] - u[0]);
		pos |= c > 0, neg |= c < 0;
	}
	return !(pos && neg);
}

static int coplanar_intersect(const ld A[3][3], const ld B[3][3], const ld n[3])
{
	int ax = 0;
	if (fabsl(n[1]) > fabsl(n[ax]))
		ax = 1;
	if (fabsl(n[2]) > fabsl(n[ax]))
		ax = 2;
	int i0 = (ax + 1) % 3, i1 = (ax + 2) % 3;
	ld a[3][2], b[3][2];
	for (int k = 0; k < 3; k++) {
		a[k][0] = A[k][i0], a[k][1] = A[k][i1];
		b[k][0] = B[k][i0], b[k][1] = B[k][i1];
	}
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			if (seg2_cross(a[i], a[(i + 1) % 3], b[j], b[(j + 1) % 3]))
				return 1;
	return point2_in(a[0], b) || point2_in(b[0], a);
}

/* Interval of triangle T on the line where the planes meet (Moller's
 * projection onto the dominant axis of the line direction). */
static void line_interval(const ld T[3][3], const ld d[3], const ld dv[3], int ax, ld out[2])
{
	ld p[3];
	for (int k = 0; k < 3; k++)
		p[k] = T[k][ax];
	/* the vertex alone on its side of the other plane */
	int solo = 0;
	if ((dv[0] > 0) == (dv[1] > 0) && dv[0] != 0 && dv[1] != 0)
		solo = 2;
	else if ((dv[0] > 0) == (dv[2] > 0) && dv[0] != 0 && dv[2] != 0)
		solo = 1;
	else if ((dv[1] > 0) == (dv[2] > 0) && dv[1] != 0 && dv[2] != 0)
		solo = 0;
	else if (dv[0] == 0)
		solo = 0;
	else if (dv[1] == 0)
		solo = 1;
	else
		solo = 2;
	int u = (solo + 1) % 3, v = (solo + 2) % 3;
	ld t1 = dv[solo] != dv[u] ? p[solo] + (p[u] - p[solo]) * dv[solo] / (dv[solo] - dv[u]) : p[u];
	ld t2 = dv[solo] != dv[v] ? p[solo] + (p[v] - p[solo]) * dv[solo] / (dv[solo] - dv[v]) : p[v];
	(void)d;
	out[0] = fminl(t1, t2), out[1] = fmaxl(t1, t2);
}

static int moller_intersect(const double a[9], const double b[9])
{
	ld A[3][3], B[3][3], e1[3], e2[3], n1[3], n2[3], da[3], db[3];
	for (int k = 0; k < 3; k++)
		for (int c = 0; c < 3; c++)
			A[k][c] = a[3 * k + c], B[k][c] = b[3 * k + c];
	for (int c = 0; c < 3; c++)
		e1[c] = B[1][c] - B[0][c], e2[c] = B[2][c] - B[0][c];
	ld_cross(n2, e1, e2);
	for (int c = 0; c < 3; c++)
		e1[c] = A[1][c] - A[0][c], e2[c] = A[2][c] - A[0][c];
	ld_cross(n1, e1, e2);
	if (ld_dot(n1, n1) == 0 || ld_dot(n2, n2) == 0)
		return -1; /* degenerate: not Moller's business */
	for (int k = 0; k < 3; k++) {
		ld w[3];
		for (int c = 0; c < 3; c++)
			w[c] = A[k][c] - B[0][c];
		da[k] = ld_dot(n2, w);
		for (int c = 0; c < 3; c++)
			w[c] = B[k][c] - A[0][c];
		db[k] = ld_dot(n1, w);
	}
	if ((da[0] > 0 && da[1] > 0 && da[2] > 0) || (da[0] < 0 && da[1] < 0 && da[2] < 0))
		return 0;
	if ((db[0] > 0 && db[1] > 0 && db[2] > 0) || (db[0] < 0 && db[1] < 0 && db[2] < 0))
		return 0;
	if (da[0] == 0 && da[1] == 0 && da[2] == 0)
		return coplanar_intersect(A, B, n1);
	ld d[3];
	ld_cross(d, n1, n2);
	int ax = 0;
	if (fabsl(d[1]) > fabsl(d[ax]))
		ax = 1;
	if (fabsl(d[2]) > fabsl(d[ax]))
		ax = 2;
	ld ia[2], ib[2];
	line_interval(A, d, da, ax, ia);
	line_interval(B, d, db, ax, ib);
	return !(ia[1] < ib[0] || ib[1] < ia[0]);
}

/* ---- random pairs -------------------------------------------------------- */

enum { FAR, NEAR, CROSSING, PARALLEL, TOUCHING, SLIVER, DEGENERATE, NCAT };
static const char *const cat_name[NCAT] = {"far",      "near",   "crossing",  "near-parallel",
					   "touching", "sliver", "degenerate"};

struct pair {
	double a[9], b[9];
	int cat;
	double known; /* exact distance by construction, or -1 */
};

static void rnd_vec(struct mrdem_rng *r, double v[3], double lo, double hi)
{
	for (int c = 0; c < 3; c++)
		v[c] = mrdem_rng_range(r, lo, hi);
}

static void rnd_unit(struct mrdem_rng *r, double v[3])
{
	do
		rnd_vec(r, v, -1, 1);
	while (vec3_norm2(v) > 1 || vec3_norm2(v) < 1e-6);
	vec3_normalize(v);
}

static void rnd_tri(struct mrdem_rng *r, double t[9], double size)
{
	for (int k = 0; k < 9; k++)
		t[k] = mrdem_rng_range(r, -0.5 * size, 0.5 * size);
}

/* Rigid motion x -> R x + s applied to both triangles. */
static void move(double t[9], const double m[9], const double s[3])
{
	for (int k = 0; k < 3; k++) {
		mat3_apply(&t[3 * k], m, &t[3 * k]);
		vec3_add(&t[3 * k], &t[3 * k], s);
	}
}

static void rnd_motion(struct mrdem_rng *r, double m[9], double s[3], double span)
{
	double q[4];
	mrdem_rng_quat(r, q);
	quat_to_matrix(q, m);
	rnd_vec(r, s, -span, span);
}

static void to_float_grid(double t[9])
{
	for (int k = 0; k < 9; k++)
		t[k] = (float)t[k];
}

/* Known-distance constructions in a canonical frame, then moved:
 * vertex above a face interior, or two edges crossing over each other. */
static void touching(struct mrdem_rng *r, struct pair *p)
{
	static const double deltas[] = {0, 1e-9, 1e-6, 1e-4, 1e-3, 1e-2, 0.1};
	double delta = deltas[mrdem_rng_u64(r) % 7];
	double *a = p->a, *b = p->b;
	if (mrdem_rng_u64(r) & 1) {
		/* a in z = 0 around the origin; b's apex at (0, 0, delta), its
		 * other vertices higher */
		double ang = mrdem_rng_range(r, 0, 2 * M_PI);
		for (int k = 0; k < 3; k++) {
			double t = ang + k * 2 * M_PI / 3 + mrdem_rng_range(r, -0.5, 0.5);
			double rad = mrdem_rng_range(r, 0.2, 1.0);
			vec3_set(&a[3 * k], rad * cos(t), rad * sin(t), 0);
		}
		vec3_set(&b[0], 0, 0, delta);
		for (int k = 1; k < 3; k++)
			vec3_set(&b[3 * k], mrdem_rng_range(r, -1, 1), mrdem_rng_range(r, -1, 1),
				 delta + mrdem_rng_range(r, 0.05, 1));
	} else {
		/* a has an edge on the x axis and lies in z <= 0; b has an edge
		 * parallel to y at height delta and lies in z >= delta */
		vec3_set(&a[0], -mrdem_rng_range(r, 0.2, 1), 0, 0);
		vec3_set(&a[3], mrdem_rng_range(r, 0.2, 1), 0, 0);
		vec3_set(&a[6], mrdem_rng_range(r, -1, 1), mrdem_rng_range(r, -1, 1),
			 -mrdem_rng_range(r, 0.05, 1));
		vec3_set(&b[0], 0, -mrdem_rng_range(r, 0.2, 1), delta);
		vec3_set(&b[3], 0, mrdem_rng_range(r, 0.2, 1), delta);
		vec3_set(&b[6], mrdem_rng_range(r, -1, 1), mrdem_rng_range(r, -1, 1),
			 delta + mrdem_rng_range(r, 0.05, 1));
	}
	double m[9], s[3];
	rnd_motion(r, m, s, 2);
	move(a, m, s);
	move(b, m, s);
	p->known = delta;
}

static void make_pair(struct mrdem_rng *r, int cat, struct pair *p)
{
	double *a = p->a, *b = p->b, off[3], u[3];
	p->cat = cat;
	p->known = -1;
	switch (cat) {
	case FAR:
		rnd_tri(r, a, 1);
		rnd_tri(r, b, mrdem_rng_range(r, 0.1, 2));
		rnd_unit(r, u);
		vec3_scale(off, u, mrdem_rng_range(r, 1.5, 50));
		for (int k = 0; k < 3; k++)
			vec3_add(&b[3 * k], &b[3 * k], off);
		break;
	case NEAR:
		rnd_tri(r, a, 1);
		rnd_tri(r, b, mrdem_rng_range(r, 0.05, 1.5));
		rnd_vec(r, off, -0.8, 0.8);
		for (int k = 0; k < 3; k++)
			vec3_add(&b[3 * k], &b[3 * k], off);
		break;
	case CROSSING: {
		/* b spans a random plane through a point x inside a */
		rnd_tri(r, a, 1);
		double w0 = mrdem_rng_uniform(r), w1 = mrdem_rng_uniform(r) * (1 - w0), x[3], v[3];
		for (int c = 0; c < 3; c++)
			x[c] = w0 * a[c] + w1 * a[3 + c] + (1 - w0 - w1) * a[6 + c];
		rnd_unit(r, u);
		rnd_unit(r, v);
		for (int k = 0; k < 3; k++) {
			double t = k * 2 * M_PI / 3 + mrdem_rng_range(r, -0.6, 0.6);
			double rad = mrdem_rng_range(r, 0.1, 1);
			for (int c = 0; c < 3; c++)
				b[3 * k + c] = x[c] + rad * (cos(t) * u[c] + sin(t) * v[c]);
		}
		break;
	}
	case PARALLEL: {
		/* b: a copy of a (or another triangle in a's plane), turned by a
		 * tiny angle, lifted along the normal and slid in the plane */
		rnd_tri(r, a, 1);
		double e1[3], e2[3], n[3], c0[3] = {0, 0, 0}, m[9], q[4], axis[3];
		vec3_sub(e1, &a[3], &a[0]);
		vec3_sub(e2, &a[6], &a[0]);
		vec3_cross(n, e1, e2);
		vec3_normalize(n);
		if (mrdem_rng_u64(r) & 1) {
			memcpy(b, a, sizeof p->b);
		} else {
			for (int k = 0; k < 3; k++) {
				double s = mrdem_rng_range(r, -0.6, 0.6), t = mrdem_rng_range(r, -0.6, 0.6);
				for (int c = 0; c < 3; c++)
					b[3 * k + c] = a[c] + s * e1[c] + t * e2[c];
			}
		}
		for (int k = 0; k < 3; k++)
			vec3_axpy(c0, c0, 1.0 / 3, &b[3 * k]);
		rnd_unit(r, axis);
		quat_from_axis_angle(q, axis, pow(10, mrdem_rng_range(r, -7, -1)));
		quat_to_matrix(q, m);
		double lift = (mrdem_rng_u64(r) % 4 == 0) ? 0 : mrdem_rng_range(r, -0.05, 0.05);
		double slide_s = mrdem_rng_range(r, -0.7, 0.7), slide_t = mrdem_rng_range(r, -0.7, 0.7);
		for (int k = 0; k < 3; k++) {
			double d[3];
			vec3_sub(d, &b[3 * k], c0);
			mat3_apply(d, m, d);
			vec3_add(&b[3 * k], c0, d);
			vec3_axpy(&b[3 * k], &b[3 * k], lift, n);
			vec3_axpy(&b[3 * k], &b[3 * k], slide_s, e1);
			vec3_axpy(&b[3 * k], &b[3 * k], slide_t, e2);
		}
		break;
	}
	case TOUCHING:
		touching(r, p);
		break;
	case SLIVER: {
		/* a's third vertex a tiny height off the line of the other two */
		rnd_tri(r, a, 1);
		double e[3], h[3], t = mrdem_rng_range(r, -0.2, 1.2);
		vec3_sub(e, &a[3], &a[0]);
		rnd_unit(r, h);
		double len = vec3_norm(e);
		vec3_axpy(h, h, -vec3_dot(h, e) / (len * len), e);
		vec3_normalize(h);
		double height = len * pow(10, mrdem_rng_range(r, -9, -2));
		for (int c = 0; c < 3; c++)
			a[6 + c] = a[c] + t * e[c] + height * h[c];
		rnd_tri(r, b, mrdem_rng_range(r, 0.05, 1));
		rnd_vec(r, off, -0.5, 0.5);
		for (int k = 0; k < 3; k++)
			vec3_add(&b[3 * k], &b[3 * k], off);
		if (mrdem_rng_u64(r) & 1) { /* swap roles */
			double tmp[9];
			memcpy(tmp, a, sizeof tmp), memcpy(a, b, sizeof tmp), memcpy(b, tmp, sizeof tmp);
		}
		break;
	}
	case DEGENERATE: {
		rnd_tri(r, a, 1);
		double e[3];
		vec3_sub(e, &a[3], &a[0]);
		switch (mrdem_rng_u64(r) % 3) {
		case 0: /* collinear */
			vec3_axpy(&a[6], &a[0], mrdem_rng_range(r, -0.5, 1.5), e);
			break;
		case 1: /* two vertices coincide */
			vec3_copy(&a[3], &a[0]);
			break;
		default: /* a point */
			vec3_copy(&a[3], &a[0]);
			vec3_copy(&a[6], &a[0]);
		}
		rnd_tri(r, b, mrdem_rng_range(r, 0.05, 1));
		rnd_vec(r, off, -0.5, 0.5);
		for (int k = 0; k < 3; k++)
			vec3_add(&b[3 * k], &b[3 * k], off);
		if (mrdem_rng_u64(r) % 4 == 0) /* both degenerate */
			vec3_axpy(&b[6], &b[0], mrdem_rng_range(r, -0.5, 1.5), (double[3]){
				b[3] - b[0], b[4] - b[1], b[5] - b[2]});
		break;
	}
	}
	/* occasional offset from the origin and overall scale, so that
	 * tolerances are exercised relative to the coordinates */
	if (cat != TOUCHING && mrdem_rng_u64(r) % 4 == 0) {
		double scale = pow(10, mrdem_rng_range(r, -2, 2)), shift[3];
		rnd_vec(r, shift, -3 * scale, 3 * scale);
		for (int k = 0; k < 9; k++) {
			a[k] = a[k] * scale + shift[k % 3];
			b[k] = b[k] * scale + shift[k % 3];
		}
	}
	to_float_grid(a);
	to_float_grid(b);
}

/* Largest coordinate magnitude (float resolution scale) and size. */
static double coord_scale(const double a[9], const double b[9])
{
	double s = 0;
	for (int k = 0; k < 9; k++)
		s = fmax(s, fmax(fabs(a[k]), fabs(b[k])));
	return s;
}

static double tri_size(const double t[9])
{
	return fmax(vec3_dist(&t[0], &t[3]), fmax(vec3_dist(&t[3], &t[6]), vec3_dist(&t[6], &t[0])));
}

/* Distance from x to triangle t in long double: the nearest of the three
 * edges (vertices included) and, when x projects inside, the plane.
 * common/geom's point-triangle walk loses accuracy on slivers and would
 * be a poor judge here. */
static double off_tri(const double x[3], const double t[9])
{
	ld best = INFINITY;
	for (int k = 0; k < 3; k++) {
		const double *u = t + 3 * k, *v = t + 3 * ((k + 1) % 3);
		ld e[3], w[3], ee = 0, we = 0;
		for (int c = 0; c < 3; c++) {
			e[c] = (ld)v[c] - u[c], w[c] = (ld)x[c] - u[c];
			ee += e[c] * e[c], we += w[c] * e[c];
		}
		ld s = ee > 0 ? we / ee : 0, d2 = 0;
		s = s < 0 ? 0 : s > 1 ? 1 : s;
		for (int c = 0; c < 3; c++)
			d2 += (w[c] - s * e[c]) * (w[c] - s * e[c]);
		best = fminl(best, d2);
	}
	ld e1[3], e2[3], w[3], n[3];
	for (int c = 0; c < 3; c++)
		e1[c] = (ld)t[3 + c] - t[c], e2[c] = (ld)t[6 + c] - t[c], w[c] = (ld)x[c] - t[c];
	ld_cross(n, e1, e2);
	ld nn = ld_dot(n, n);
	if (nn > 0) {
		ld c1[3], c2[3];
		ld_cross(c1, w, e2);
		ld_cross(c2, e1, w);
		ld beta = ld_dot(c1, n) / nn, gamma = ld_dot(c2, n) / nn;
		if (beta >= 0 && gamma >= 0 && beta + gamma <= 1) {
			ld h = ld_dot(w, n);
			best = fminl(best, h * h / nn);
		}
	}
	return (double)sqrtl(best);
}

int main(void)
{
	long n = getenv("MRDEM_ASAN") ? 100000 : 1000000;
	struct mrdem_rng rng;
	mrdem_rng_seed(&rng, 20240501);

	/* Tolerances (docs/narrow-phase.md, "Accuracy"). */
	const double ref_tol = 1e-9;   /* double reference vs KKT, relative */
	const double flt_tol = 1e-6;   /* float kernels, relative to the coordinates */
	const double band = 2e-6;      /* decision band around the cut, ditto */

	int levels[3], nlev = 0;
	for (int l = MRDEM_SIMD_GENERIC; l <= MRDEM_SIMD_AVX512; l++)
		if (mrdem_simd_resolve(l) == l)
			levels[nlev++] = l;

	long ref_bad[NCAT] = {0}, known_bad = 0, cnt[NCAT] = {0};
	double ref_worst = 0;
	long isect_bad = 0, isect_border = 0, isect_yes = 0, points_bad = 0;
	long flt_bad[4] = {0};
	double flt_worst[4] = {0};
	long it_wrong = 0, it_band = 0, it_ub_bad = 0, it_undecided = 0;
	long hy_wrong = 0, hy_band = 0, hy_fallback = 0, hy_dist_bad = 0;
	double hy_err_max = 0;
	long inv_bad = 0, swap_bad = 0, perm_bad = 0;

	static struct mrdem_tri_block blk, swp, hyb, spill;
	struct pair *pairs = malloc(MRDEM_TRI_BLOCK * sizeof *pairs);
	double dref[MRDEM_TRI_BLOCK], dqp[MRDEM_TRI_BLOCK];

	for (long base = 0; base < n; base += MRDEM_TRI_BLOCK) {
		int m = n - base < MRDEM_TRI_BLOCK ? (int)(n - base) : MRDEM_TRI_BLOCK;
		for (int l = 0; l < m; l++) {
			struct pair *p = &pairs[l];
			make_pair(&rng, (int)((base + l) % NCAT), p);
			cnt[p->cat]++;
			double pa[3], pb[3];
			dref[l] = mrdem_tri_distance_ref(p->a, p->b, pa, pb);
			dqp[l] = (double)qp_distance(p->a, p->b);
			double L = fmax(tri_size(p->a), tri_size(p->b));
			double S = coord_scale(p->a, p->b);
			double tol = ref_tol * fmax(dqp[l], L);
			double err = fabs(dref[l] - dqp[l]);
			if (err > tol) {
				if (ref_bad[p->cat]++ < 3)
					tap_diag("%s pair %ld: reference %.17g, KKT %.17g", cat_name[p->cat],
						 base + l, dref[l], dqp[l]);
			}
			if (L > 0)
				ref_worst = fmax(ref_worst, err / fmax(dqp[l], L));
			/* the reported points lie on their triangles, dref apart */
			if (fabs(vec3_dist(pa, pb) - dref[l]) > 1e-12 * fmax(S, dref[l]) ||
			    off_tri(pa, p->a) > 1e-12 * S || off_tri(pb, p->b) > 1e-12 * S)
				points_bad++;
			/* (the float rounding of the vertices moves the distance) */
			if (p->known >= 0 && fabs(dqp[l] - p->known) > 2 * FLT_EPSILON * S)
				known_bad++;
			/* intersection iff distance 0 */
			int mi = moller_intersect(p->a, p->b);
			if (mi >= 0) {
				int zero = dref[l] == 0;
				isect_yes += mi;
				if (zero != mi) {
					if (dqp[l] <= 1e-12 * L)
						isect_border++;
					else if (isect_bad++ < 3)
						tap_diag("%s pair %ld: moller %d, distance %.3g", cat_name[p->cat],
							 base + l, mi, dref[l]);
				}
			}
			/* blocks: the pair, its swap; cut near the distance */
			float fa[9], fb[9];
			for (int k = 0; k < 9; k++)
				fa[k] = (float)p->a[k], fb[k] = (float)p->b[k];
			double cut = fmax(dref[l] * mrdem_rng_range(&rng, 0.5, 1.5), 1e-4 * S);
			if (l % 5 == 0)
				cut = 0.02 * S;
			for (int k = 0; k < 9; k++) {
				blk.a[k][l] = fa[k], blk.b[k][l] = fb[k];
				swp.a[k][l] = fb[k], swp.b[k][l] = fa[k];
			}
			blk.cut[l] = swp.cut[l] = (float)cut;
		}
		blk.n = swp.n = m;

		/* float comparison kernel, every level */
		for (int li = 0; li < nlev; li++) {
			mrdem_tri_block_compare(&blk, levels[li]);
			mrdem_tri_block_compare(&swp, levels[li]);
			for (int l = 0; l < m; l++) {
				double S = coord_scale(pairs[l].a, pairs[l].b);
				double d = sqrt(blk.d2[l]), ds = sqrt(swp.d2[l]);
				double e = fabs(d - dref[l]) / S;
				flt_worst[li] = fmax(flt_worst[li], e);
				if (e > flt_tol) {
					if (flt_bad[li]++ < 3)
						tap_diag("%s %s pair %ld: float %.9g, reference %.9g",
							 mrdem_simd_name(levels[li]), cat_name[pairs[l].cat],
							 base + l, d, dref[l]);
				}
				if (fabs(ds - d) > flt_tol * S)
					swap_bad++;
			}
		}

		/* iterative alone (4 iterations, C = 1) and hybrid */
		memcpy(&hyb, &blk, sizeof blk);
		mrdem_tri_block_penalty(&blk, 4, 1.0f, MRDEM_SIMD_AUTO);
		hy_fallback += mrdem_tri_block_hybrid(&hyb, &spill, 4, 1.0f, MRDEM_SIMD_AUTO);
		for (int l = 0; l < m; l++) {
			double S = coord_scale(pairs[l].a, pairs[l].b), cut = blk.cut[l];
			int truth = dref[l] <= cut, inband = fabs(dref[l] - cut) <= band * S;
			int st = blk.status[l];
			/* the iterate is a feasible point pair: never below the distance */
			if (sqrt(blk.d2[l]) < dref[l] - band * S)
				it_ub_bad++;
			if (st == MRDEM_TRI_UNDECIDED)
				it_undecided++;
			else if ((st == MRDEM_TRI_CONTACT) != truth) {
				if (inband)
					it_band++;
				else if (it_wrong++ < 3)
					tap_diag("iterative %s pair %ld: status %d, distance %.9g, cut %.9g",
						 cat_name[pairs[l].cat], base + l, st, dref[l], cut);
			}
			st = hyb.status[l];
			if ((st == MRDEM_TRI_CONTACT) != truth) {
				if (inband)
					hy_band++;
				else if (hy_wrong++ < 3)
					tap_diag("hybrid %s pair %ld: status %d, distance %.9g, cut %.9g",
						 cat_name[pairs[l].cat], base + l, st, dref[l], cut);
			}
			/* a hybrid contact's distance: record the error */
			if (st == MRDEM_TRI_CONTACT && cut > 0) {
				double e = (sqrt(hyb.d2[l]) - dref[l]) / cut;
				hy_err_max = fmax(hy_err_max, e);
				if (e > 1e-3)
					hy_dist_bad++;
			}
		}

		/* invariance of the reference: rigid motion, vertex order */
		for (int l = 0; l < m; l += 7) {
			struct pair q = pairs[l];
			double mm[9], s[3];
			rnd_motion(&rng, mm, s, 10);
			move(q.a, mm, s);
			move(q.b, mm, s);
			double L = fmax(tri_size(q.a), tri_size(q.b));
			double d = mrdem_tri_distance_ref(q.a, q.b, NULL, NULL);
			if (fabs(d - dref[l]) > ref_tol * fmax(L, dref[l]) + 1e-14 * coord_scale(q.a, q.b))
				inv_bad++;
			double pa[9];
			for (int k = 0; k < 9; k++)
				pa[k] = pairs[l].a[(k + 3) % 9]; /* cyclic */
			double dp = mrdem_tri_distance_ref(pa, pairs[l].b, NULL, NULL);
			double db = mrdem_tri_distance_ref(pairs[l].b, pairs[l].a, NULL, NULL);
			if (fabs(dp - dref[l]) > 1e-12 * fmax(L, dref[l]) ||
			    fabs(db - dref[l]) > 1e-12 * fmax(L, dref[l]))
				perm_bad++;
		}
	}

	for (int c = 0; c < NCAT; c++)
		tap_ok(ref_bad[c] == 0, "reference agrees with KKT enumeration to %g on %ld %s pairs (%ld off)",
		       ref_tol, cnt[c], cat_name[c], ref_bad[c]);
	tap_diag("worst relative reference error %.3g", ref_worst);
	tap_eq_int(known_bad, 0, "KKT enumeration reproduces the constructed distances");
	tap_eq_int(points_bad, 0, "reference closest points lie on their triangles at the distance");
	tap_ok(isect_bad == 0, "distance 0 exactly when Moller's test intersects (%ld intersecting, "
	       "%ld touching within rounding)", isect_yes, isect_border);
	tap_ok(isect_yes > n / 20, "the sample contains intersecting pairs (%ld)", isect_yes);
	for (int li = 0; li < nlev; li++) {
		tap_ok(flt_bad[li] == 0, "float comparison kernel (%s) within %g of the coordinates (%ld off)",
		       mrdem_simd_name(levels[li]), flt_tol, flt_bad[li]);
		tap_diag("worst %s error %.3g of the coordinates", mrdem_simd_name(levels[li]),
			 flt_worst[li]);
	}
	tap_eq_int(swap_bad, 0, "float comparison kernel invariant under swapping the triangles");
	tap_eq_int(it_ub_bad, 0, "iterative iterate never below the distance");
	tap_eq_int(it_wrong, 0, "iterative decisions (when decided) right outside the band");
	tap_diag("iterative: %ld undecided of %ld, %ld in-band disagreements", it_undecided, n, it_band);
	tap_eq_int(hy_wrong, 0, "hybrid decisions right outside the band");
	tap_ok(hy_band <= n / 10000, "hybrid disagrees inside the band %g only rarely (%ld)", band,
	       hy_band);
	tap_diag("hybrid: %ld fallbacks (%.2f%%)", hy_fallback, 100.0 * hy_fallback / n);
	tap_diag("hybrid contact distance error: worst %.3g of the cut, %ld above 1e-3", hy_err_max, hy_dist_bad);
	tap_eq_int(inv_bad, 0, "reference invariant under rigid motions");
	tap_eq_int(perm_bad, 0, "reference invariant under vertex permutation and swap");
	free(pairs);
	return tap_done();
}
