#include "common/shape/gjk.h"

#include <math.h>
#include <string.h>

#include "common/geom/point_triangle.h"
#include "common/geom/vec3.h"

#define GJK_MAX_ITER 128

void mrdem_support_triangle(const void *tri, const double d[3], double out[3])
{
	const double *t = tri;
	int best = 0;
	double bd = vec3_dot(t, d);
	for (int i = 1; i < 3; i++) {
		double v = vec3_dot(&t[3 * i], d);
		if (v > bd)
			bd = v, best = i;
	}
	vec3_copy(out, &t[3 * best]);
}

struct simplex {
	int n;
	double w[4][3], a[4][3], b[4][3]; /* w = a - b */
};

/* Signed volume of tetrahedron (p0 p1 p2 p3), times 6. */
static double volume6(const double p0[3], const double p1[3], const double p2[3],
		      const double p3[3])
{
	double e1[3], e2[3], e3[3], c[3];
	vec3_sub(e1, p1, p0);
	vec3_sub(e2, p2, p0);
	vec3_sub(e3, p3, p0);
	vec3_cross(c, e1, e2);
	return vec3_dot(c, e3);
}

/* Closest point v of the simplex to the origin; the simplex keeps only the
 * points its barycentric weights use. Returns 1 when the origin lies
 * inside a full tetrahedron. */
static int closest(struct simplex *s, double v[3], double lambda[4])
{
	static const double origin[3] = {0, 0, 0};
	int keep[4] = {0, 0, 0, 0};
	if (s->n == 1) {
		vec3_copy(v, s->w[0]);
		lambda[0] = 1;
		return 0;
	}
	if (s->n == 2) {
		double e[3], t = 0;
		vec3_sub(e, s->w[1], s->w[0]);
		double l2 = vec3_norm2(e);
		if (l2 > 0)
			t = fmin(1, fmax(0, -vec3_dot(s->w[0], e) / l2));
		lambda[0] = 1 - t, lambda[1] = t;
	} else if (s->n == 3) {
		double q[3];
		mrdem_point_triangle_bary(origin, s->w[0], s->w[1], s->w[2], q, lambda);
	} else {
		double v0 = volume6(s->w[0], s->w[1], s->w[2], s->w[3]);
		double f[4] = {volume6(origin, s->w[1], s->w[2], s->w[3]),
			       volume6(s->w[0], origin, s->w[2], s->w[3]),
			       volume6(s->w[0], s->w[1], origin, s->w[3]),
			       volume6(s->w[0], s->w[1], s->w[2], origin)};
		if (v0 != 0 && f[0] * v0 >= 0 && f[1] * v0 >= 0 && f[2] * v0 >= 0 &&
		    f[3] * v0 >= 0) {
			for (int i = 0; i < 4; i++)
				lambda[i] = f[i] / v0;
			return 1;
		}
		/* Outside: the nearest face holds the closest point. */
		static const int face[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
		double best = INFINITY, bl[3] = {0, 0, 0};
		int bf = 0;
		for (int k = 0; k < 4; k++) {
			double q[3], l[3];
			const int *fk = face[k];
			double d = mrdem_point_triangle_bary(origin, s->w[fk[0]], s->w[fk[1]],
							     s->w[fk[2]], q, l);
			if (d < best)
				best = d, bf = k, memcpy(bl, l, sizeof bl);
		}
		for (int i = 0; i < 4; i++)
			lambda[i] = 0;
		for (int i = 0; i < 3; i++)
			lambda[face[bf][i]] = bl[i];
	}
	int m = 0;
	double sum = 0;
	for (int i = 0; i < s->n; i++)
		keep[i] = lambda[i] > 0;
	for (int i = 0; i < s->n; i++)
		if (keep[i]) {
			vec3_copy(s->w[m], s->w[i]);
			vec3_copy(s->a[m], s->a[i]);
			vec3_copy(s->b[m], s->b[i]);
			lambda[m] = lambda[i];
			sum += lambda[i];
			m++;
		}
	if (m == 0) { /* numerically all zero: keep the nearest point */
		int bi = 0;
		for (int i = 1; i < s->n; i++)
			if (vec3_norm2(s->w[i]) < vec3_norm2(s->w[bi]))
				bi = i;
		vec3_copy(s->w[0], s->w[bi]);
		vec3_copy(s->a[0], s->a[bi]);
		vec3_copy(s->b[0], s->b[bi]);
		lambda[0] = sum = 1;
		m = 1;
	}
	s->n = m;
	v[0] = v[1] = v[2] = 0;
	for (int i = 0; i < m; i++) {
		lambda[i] /= sum;
		vec3_axpy(v, v, lambda[i], s->w[i]);
	}
	return 0;
}

static void witnesses(const struct simplex *s, const double lambda[4], double pa[3], double pb[3])
{
	pa[0] = pa[1] = pa[2] = pb[0] = pb[1] = pb[2] = 0;
	for (int i = 0; i < s->n; i++) {
		vec3_axpy(pa, pa, lambda[i], s->a[i]);
		vec3_axpy(pb, pb, lambda[i], s->b[i]);
	}
}

void mrdem_gjk_distance(const void *a, mrdem_support_fn support_a, const void *b,
			mrdem_support_fn support_b, double tol, struct mrdem_gjk_result *out)
{
	struct simplex s = {.n = 1};
	double d[3] = {1, 0, 0}, nd[3] = {-1, 0, 0}, v[3], lambda[4] = {1, 0, 0, 0};
	support_a(a, nd, s.a[0]);
	support_b(b, d, s.b[0]);
	vec3_sub(s.w[0], s.a[0], s.b[0]);
	vec3_copy(v, s.w[0]);
	memset(out, 0, sizeof *out);
	int it;
	for (it = 1; it <= GJK_MAX_ITER; it++) {
		double vv = vec3_norm2(v), dn = sqrt(vv);
		if (dn <= tol)
			break;
		double na[3], wa[3], wb[3], w[3];
		vec3_scale(na, v, -1);
		support_a(a, na, wa);
		support_b(b, v, wb);
		vec3_sub(w, wa, wb);
		/* |v| - (v.w)/|v| bounds |v| - dist from above. */
		if (dn - vec3_dot(v, w) / dn <= tol)
			break;
		int dup = 0;
		for (int i = 0; i < s.n; i++)
			dup |= s.w[i][0] == w[0] && s.w[i][1] == w[1] && s.w[i][2] == w[2];
		if (dup)
			break;
		vec3_copy(s.w[s.n], w);
		vec3_copy(s.a[s.n], wa);
		vec3_copy(s.b[s.n], wb);
		s.n++;
		double prev = vv;
		if (closest(&s, v, lambda)) {
			witnesses(&s, lambda, out->pa, out->pb);
			out->intersect = 1;
			out->iterations = it;
			vec3_copy(out->pb, out->pa);
			return;
		}
		if (vec3_norm2(v) >= prev) /* no progress: rounding has the last word */
			break;
	}
	out->iterations = it > GJK_MAX_ITER ? GJK_MAX_ITER : it;
	witnesses(&s, lambda, out->pa, out->pb);
	out->dist = vec3_norm(v);
	if (out->dist <= tol) {
		out->intersect = 1;
		out->dist = 0;
	}
}
