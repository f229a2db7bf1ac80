#include "common/narrow/tri/tri_intersect.h"

#include <math.h>

static void dsub(double o[3], const float *p, const float *q)
{
	for (int k = 0; k < 3; k++)
		o[k] = (double)p[k] - q[k];
}

static void dcross(double o[3], const double u[3], const double v[3])
{
	o[0] = u[1] * v[2] - u[2] * v[1];
	o[1] = u[2] * v[0] - u[0] * v[2];
	o[2] = u[0] * v[1] - u[1] * v[0];
}

static double ddot(const double u[3], const double v[3])
{
	return u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
}

/* Normal of triangle u and the sides of t's vertices on u's plane (n.(t_i
 * - u_0), everything relative to u_0). Returns 0 for a degenerate u. */
static int sides(const float *u, const float *t, double n[3], double s[3])
{
	double e1[3], e2[3], r[3];
	dsub(e1, u + 3, u);
	dsub(e2, u + 6, u);
	dcross(n, e1, e2);
	if (n[0] == 0 && n[1] == 0 && n[2] == 0)
		return 0;
	for (int i = 0; i < 3; i++) {
		dsub(r, t + 3 * i, u);
		s[i] = ddot(n, r);
	}
	return 1;
}

static int one_side(const double s[3])
{
	return (s[0] > 0 && s[1] > 0 && s[2] > 0) || (s[0] < 0 && s[1] < 0 && s[2] < 0);
}

/* The part of triangle t on the other plane (sides s, not all 0): one or
 * two points, relative to origin o; returns how many. */
static int cut_points(const float *t, const double s[3], const float *o, double p[2][3])
{
	int m = 0;
	for (int i = 0; i < 3 && m < 2; i++) {
		int j = (i + 1) % 3;
		if (s[i] == 0)
			dsub(p[m++], t + 3 * i, o);
		if (m < 2 && ((s[i] < 0 && s[j] > 0) || (s[i] > 0 && s[j] < 0))) {
			double vi[3], vj[3], w = s[i] / (s[i] - s[j]);
			dsub(vi, t + 3 * i, o);
			dsub(vj, t + 3 * j, o);
			for (int k = 0; k < 3; k++)
				p[m][k] = vi[k] + w * (vj[k] - vi[k]);
			m++;
		}
	}
	return m;
}

static void put(float x[3], const double p[3], const float *o)
{
	if (x)
		for (int k = 0; k < 3; k++)
			x[k] = (float)(p[k] + o[k]);
}

/* 2D orientation of (p, q, r) in the coordinates (i, j). */
static double orient2(const double p[3], const double q[3], const double r[3], int i, int j)
{
	return (q[i] - p[i]) * (r[j] - p[j]) - (q[j] - p[j]) * (r[i] - p[i]);
}

static int in_tri2(const double v[3][3], const double q[3], int i, int j)
{
	double o0 = orient2(v[0], v[1], q, i, j), o1 = orient2(v[1], v[2], q, i, j);
	double o2 = orient2(v[2], v[0], q, i, j);
	return (o0 >= 0 && o1 >= 0 && o2 >= 0) || (o0 <= 0 && o1 <= 0 && o2 <= 0);
}

/* Coplanar triangles (plane normal n): an edge of one crosses an edge of
 * the other, or one holds a vertex of the other; in the 2D coordinates
 * that drop n's largest component. */
static int coplanar(const float *a, const float *b, const double n[3], float x[3])
{
	int drop = fabs(n[0]) > fabs(n[1]) ? (fabs(n[0]) > fabs(n[2]) ? 0 : 2)
					   : (fabs(n[1]) > fabs(n[2]) ? 1 : 2);
	int i = (drop + 1) % 3, j = (drop + 2) % 3;
	double va[3][3], vb[3][3];
	for (int v = 0; v < 3; v++) {
		dsub(va[v], a + 3 * v, a);
		dsub(vb[v], b + 3 * v, a);
	}
	for (int e = 0; e < 3; e++)
		for (int f = 0; f < 3; f++) {
			const double *p0 = va[e], *p1 = va[(e + 1) % 3];
			const double *q0 = vb[f], *q1 = vb[(f + 1) % 3];
			double d1 = orient2(q0, q1, p0, i, j), d2 = orient2(q0, q1, p1, i, j);
			double d3 = orient2(p0, p1, q0, i, j), d4 = orient2(p0, p1, q1, i, j);
			if (((d1 <= 0 && d2 >= 0) || (d1 >= 0 && d2 <= 0)) &&
			    ((d3 <= 0 && d4 >= 0) || (d3 >= 0 && d4 <= 0)) && d1 != d2) {
				double w = d1 / (d1 - d2), p[3];
				for (int k = 0; k < 3; k++)
					p[k] = p0[k] + w * (p1[k] - p0[k]);
				put(x, p, a);
				return 1;
			}
		}
	for (int v = 0; v < 3; v++) {
		if (in_tri2(vb, va[v], i, j)) {
			put(x, va[v], a);
			return 1;
		}
		if (in_tri2(va, vb[v], i, j)) {
			put(x, vb[v], a);
			return 1;
		}
	}
	return 0;
}

int mrdem_tri_intersect(const float a[9], const float b[9], float x[3])
{
	double na[3], nb[3], sa[3], sb[3]; /* sa: a's vertices on b's plane */
	if (!sides(b, a, nb, sa) || one_side(sa))
		return 0;
	if (!sides(a, b, na, sb) || one_side(sb))
		return 0;
	if (sa[0] == 0 && sa[1] == 0 && sa[2] == 0)
		return coplanar(a, b, na, x);
	/* Both triangles meet the line where the planes cross in an interval
	 * (a point or a segment); they intersect iff the intervals overlap. */
	double pa[2][3], pb[2][3], D[3];
	int ma = cut_points(a, sa, a, pa), mb = cut_points(b, sb, a, pb);
	if (!ma || !mb)
		return 0;
	dcross(D, na, nb);
	double ta[2], tb[2];
	for (int m = 0; m < 2; m++) {
		ta[m] = ddot(D, pa[m < ma ? m : 0]);
		tb[m] = ddot(D, pb[m < mb ? m : 0]);
	}
	double lo_a = fmin(ta[0], ta[1]), hi_a = fmax(ta[0], ta[1]);
	double lo = fmax(lo_a, fmin(tb[0], tb[1])), hi = fmin(hi_a, fmax(tb[0], tb[1]));
	if (lo > hi)
		return 0;
	/* the middle of the overlap, on a's segment */
	double t = 0.5 * (lo + hi), w = ta[1] != ta[0] ? (t - ta[0]) / (ta[1] - ta[0]) : 0, p[3];
	const double *p1 = pa[ma > 1 ? 1 : 0];
	for (int k = 0; k < 3; k++)
		p[k] = pa[0][k] + w * (p1[k] - pa[0][k]);
	put(x, p, a);
	return 1;
}
