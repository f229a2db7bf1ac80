/* Surrogate triangle of a triangle set: functional (6) of the paper's
 * Appendix A, minimised by a quasi-Newton descent, then (optionally) a
 * refinement that shrinks the halo volume the surrogate will really have
 * (docs/surrogate-trees.md explains why (6) alone is not enough for
 * elongated shapes). */
#include "common/tree/surrogate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/point_triangle.h"
#include "common/geom/vec3.h"
#include "common/util/error.h"

/* Temperatures of the smooth maximum during refinement, in units of the
 * node's radius: coarse first, so the descent sees every far point, then
 * close to the true maximum (more stages cost time and gain < 1 % eps). */
static const double refine_tau[] = {0.03, 0.003};
#define NREFINE_TAU (sizeof refine_tau / sizeof refine_tau[0])

/* The points' mean outer normal counts only when the areas add up to more
 * than this per triangle (normalised units): below it the set is closed or
 * folded and has no side to face. */
#define OUTWARD_MIN_PER_TRIANGLE 1e-9

/* The quasi-Newton descent (minimise). A fresh descent
 * moves no coordinate further than FIRST_STEP_MAX (a tenth of the points'
 * radius, so the first steps cannot jump past the set); backtracking
 * halves the step (BACKTRACK) at most LINE_SEARCH_MAX times, far below
 * any useful step; a step is accepted on Armijo's sufficient decrease
 * with the customary ARMIJO_C1 (Nocedal-Wright 3.1). The inverse Hessian
 * is updated only when the curvature s.y is positive beyond rounding
 * (CURVATURE_MIN, relative to |s||y|). The descent stops after
 * STALL_STEPS steps in a row that lower f by less than STALL_DROP of
 * itself. */
#define FIRST_STEP_MAX 0.1
#define BACKTRACK 0.5
#define LINE_SEARCH_MAX 50
#define ARMIJO_C1 1e-4
#define CURVATURE_MIN 1e-12
#define STALL_DROP 1e-9
#define STALL_STEPS 2

/* Jacobi rotations (jacobi3): the off-diagonal part is zero when below
 * JACOBI_TOL of the diagonal (the floor ends a zero matrix at once);
 * a symmetric 3x3 converges in a handful of sweeps, JACOBI_SWEEPS bounds
 * them. */
#define JACOBI_SWEEPS 32
#define JACOBI_TOL 1e-15
#define JACOBI_FLOOR 1e-300

/* The principal-axis start (principal_axis_start): its ends at 0.6 of the
 * points' reach along the axis on either side, the third vertex at half
 * the width across plus 5 % of the length (not degenerate when the set has
 * no width): a slim start, whose size the descent then sets. */
#define AXIS_END 0.6
#define AXIS_WIDTH 0.5
#define AXIS_WIDTH_OF_LENGTH 0.05

static double ipow(double x, unsigned n)
{
	double r = 1.0;
	while (n) {
		if (n & 1)
			r *= x;
		x *= x;
		n >>= 1;
	}
	return r;
}

/* c = (x2 - x1) x (x3 - x1), twice the vector area. */
static void tri_cross(const double x[9], double c[3])
{
	double e1[3], e2[3];
	vec3_sub(e1, &x[3], &x[0]);
	vec3_sub(e2, &x[6], &x[0]);
	vec3_cross(c, e1, e2);
}

/* Gradient of w . c with respect to vertex i: (x_{i+1} - x_{i+2}) x w. */
static void cross_grad(const double x[9], int i, const double w[3], double out[3])
{
	double d[3];
	vec3_sub(d, &x[3 * ((i + 1) % 3)], &x[3 * ((i + 2) % 3)]);
	vec3_cross(out, d, w);
}

void mrdem_surrogate_problem_init(struct mrdem_surrogate_problem *pb, const double *tris,
				  size_t ntris, const double *pts, size_t npts,
				  const struct mrdem_tree_params *p)
{
	memset(pb, 0, sizeof *pb);
	pb->ntris = ntris;
	pb->npts = npts;
	for (size_t i = 0; i < npts; i++)
		vec3_axpy(pb->centre, pb->centre, 1.0, &pts[3 * i]);
	vec3_scale(pb->centre, pb->centre, 1.0 / (double)npts);
	for (size_t i = 0; i < npts; i++)
		pb->scale = fmax(pb->scale, vec3_dist(&pts[3 * i], pb->centre));
	if (!(pb->scale > 0))
		pb->scale = 1.0;
	double inv = 1.0 / pb->scale;
	pb->pts = mrdem_xmalloc_array(3 * npts, sizeof *pb->pts);
	pb->tris = mrdem_xmalloc_array(9 * ntris, sizeof *pb->tris);
	pb->scratch = mrdem_xmalloc_array(7 * npts, sizeof *pb->scratch);
	for (size_t i = 0; i < npts; i++)
		for (int k = 0; k < 3; k++)
			pb->pts[3 * i + k] = (pts[3 * i + k] - pb->centre[k]) * inv;
	for (size_t t = 0; t < ntris; t++) {
		double c[3];
		for (int v = 0; v < 3; v++)
			for (int k = 0; k < 3; k++)
				pb->tris[9 * t + 3 * v + k] =
					(tris[9 * t + 3 * v + k] - pb->centre[k]) * inv;
		tri_cross(&pb->tris[9 * t], c);
		vec3_add(pb->outward, pb->outward, c);
	}
	if (vec3_norm(pb->outward) > OUTWARD_MIN_PER_TRIANGLE * (double)ntris)
		vec3_normalize(pb->outward);
	else
		vec3_set(pb->outward, 0, 0, 0);
	pb->beta_size = p->beta_size;
	pb->beta_normal = p->beta_normal;
	pb->alpha_area = p->alpha_area;
	pb->alpha_inside = p->alpha_inside;
}

void mrdem_surrogate_problem_release(struct mrdem_surrogate_problem *pb)
{
	free(pb->tris);
	free(pb->pts);
	free(pb->scratch);
	memset(pb, 0, sizeof *pb);
}

/* What both objectives start with: c = the cross product of x's edges,
 * its squared norm returned (not positive and finite: x has no area, the
 * objective is infinite), g cleared. */
static double objective_start(const double x[9], double c[3], double g[9])
{
	tri_cross(x, c);
	if (g)
		memset(g, 0, 9 * sizeof *g);
	return vec3_norm2(c);
}

double mrdem_surrogate_functional(const struct mrdem_surrogate_problem *pb, const double x[9],
				  double g[9])
{
	double c[3], cc = objective_start(x, c, g);
	if (!(cc > 0) || !isfinite(cc))
		return INFINITY;

	/* size term: every surrogate vertex close to every triangle */
	double size = 0, nt = (double)pb->ntris;
	unsigned bs = pb->beta_size;
	for (int i = 0; i < 3; i++) {
		for (size_t t = 0; t < pb->ntris; t++) {
			const double *tr = &pb->tris[9 * t];
			double q[3];
			double d = mrdem_point_triangle(&x[3 * i], &tr[0], &tr[3], &tr[6], q);
			if (!(d > 0))
				continue;
			double dp = ipow(d, bs - 2);
			size += dp * d * d;
			if (g)
				for (int k = 0; k < 3; k++)
					g[3 * i + k] += dp * (x[3 * i + k] - q[k]) / nt;
		}
	}
	double J = size / ((double)bs * nt);

	/* anti-degeneration: (alpha_area / 2) |c|^-2 */
	J += 0.5 * pb->alpha_area / cc;
	if (g) {
		double s = -pb->alpha_area / (cc * cc), d[3];
		for (int i = 0; i < 3; i++) {
			cross_grad(x, i, c, d);
			vec3_axpy(&g[3 * i], &g[3 * i], s, d);
		}
	}

	/* outer normal: no surrogate vertex above (along N) a vertex it replaces */
	if (pb->alpha_inside > 0) {
		double len = sqrt(cc), n[3], m[3] = {0, 0, 0}, pen = 0;
		double w = pb->alpha_inside / (double)pb->npts;
		unsigned bn = pb->beta_normal;
		vec3_scale(n, c, 1.0 / len);
		for (int i = 0; i < 3; i++) {
			double direct = 0;
			for (size_t p = 0; p < pb->npts; p++) {
				double r[3];
				vec3_sub(r, &x[3 * i], &pb->pts[3 * p]);
				double s = vec3_dot(r, n);
				if (s <= 0)
					continue;
				double sp = ipow(s, bn - 1);
				pen += sp * s;
				if (g) {
					direct += w * sp;
					vec3_axpy(m, m, w * sp, r);
				}
			}
			if (g)
				vec3_axpy(&g[3 * i], &g[3 * i], direct, n);
		}
		J += pb->alpha_inside * pen / ((double)bn * (double)pb->npts);
		if (g) {
			/* N = c / |c|: d(N . m) = ((m - N (N . m)) / |c|) . dc */
			double wv[3], d[3];
			vec3_axpy(wv, m, -vec3_dot(n, m), n);
			vec3_scale(wv, wv, 1.0 / len);
			for (int i = 0; i < 3; i++) {
				cross_grad(x, i, wv, d);
				vec3_add(&g[3 * i], &g[3 * i], d);
			}
		}
	}
	return J;
}

/* Steiner volume of a triangle's halo and its partial derivatives. */
static double steiner(double eps, double area, double perim, double *dv_deps, double *dv_da,
		      double *dv_dp)
{
	if (dv_deps) {
		*dv_deps = 2 * area + M_PI * eps * perim + 4 * M_PI * eps * eps;
		*dv_da = 2 * eps;
		*dv_dp = 0.5 * M_PI * eps * eps;
	}
	return 2 * eps * area + 0.5 * M_PI * eps * eps * perim + (4.0 / 3.0) * M_PI * eps * eps * eps;
}

static double perimeter(const double x[9], double g[9])
{
	double p = 0;
	if (g)
		memset(g, 0, 9 * sizeof *g);
	for (int i = 0; i < 3; i++) {
		int j = (i + 1) % 3;
		double e[3];
		vec3_sub(e, &x[3 * j], &x[3 * i]);
		double l = vec3_norm(e);
		p += l;
		if (g && l > 0) {
			vec3_axpy(&g[3 * j], &g[3 * j], 1.0 / l, e);
			vec3_axpy(&g[3 * i], &g[3 * i], -1.0 / l, e);
		}
	}
	return p;
}

double mrdem_surrogate_halo_objective(const struct mrdem_surrogate_problem *pb,
				      const double x[9], double tau, double g[9])
{
	double c[3], cc = objective_start(x, c, g);
	if (!(cc > 0) || !isfinite(cc))
		return INFINITY;
	double *dist = pb->scratch, *bary = pb->scratch + pb->npts,
	       *dir = pb->scratch + 4 * pb->npts; /* dist becomes the exp weight */
	double dmax = 0;
	for (size_t p = 0; p < pb->npts; p++) {
		double q[3];
		const double *pt = &pb->pts[3 * p];
		double d = mrdem_point_triangle_bary(pt, &x[0], &x[3], &x[6], q, &bary[3 * p]);
		dist[p] = d;
		vec3_sub(&dir[3 * p], q, pt); /* d dist / d q = (q - p) / d */
		if (d > 0)
			vec3_scale(&dir[3 * p], &dir[3 * p], 1.0 / d);
		dmax = fmax(dmax, d);
	}
	/* smooth maximum, shifted by the true one for stability */
	double sum = 0;
	for (size_t p = 0; p < pb->npts; p++) {
		double d = dist[p];
		dist[p] = d > 0 ? exp((d - dmax) / tau) : 0; /* d = 0: no gradient */
		sum += d > 0 ? dist[p] : exp(-dmax / tau);
	}
	double eps = dmax + tau * log(sum);
	double len = sqrt(cc), area = 0.5 * len, gp[9];
	double perim = perimeter(x, g ? gp : NULL);
	double dv_deps, dv_da, dv_dp;
	double f = steiner(eps, area, perim, &dv_deps, &dv_da, &dv_dp) + 0.5 * pb->alpha_area / cc;
	if (!g)
		return f;
	for (size_t p = 0; p < pb->npts; p++) {
		double wgt = dist[p] / sum * dv_deps;
		if (wgt == 0)
			continue;
		for (int i = 0; i < 3; i++)
			vec3_axpy(&g[3 * i], &g[3 * i], wgt * bary[3 * p + i], &dir[3 * p]);
	}
	double s_area = dv_da * 0.5 / len, s_bar = -pb->alpha_area / (cc * cc), d[3];
	for (int i = 0; i < 3; i++) {
		cross_grad(x, i, c, d);
		vec3_axpy(&g[3 * i], &g[3 * i], s_area + s_bar, d);
		vec3_axpy(&g[3 * i], &g[3 * i], dv_dp, &gp[3 * i]);
	}
	return f;
}

void mrdem_surrogate_start(const struct mrdem_surrogate_problem *pb, double x[9])
{
	size_t best = 0;
	double bd = INFINITY;
	for (size_t t = 0; t < pb->ntris; t++) {
		const double *tr = &pb->tris[9 * t];
		double m[3];
		for (int k = 0; k < 3; k++)
			m[k] = (tr[k] + tr[3 + k] + tr[6 + k]) / 3.0;
		double d = vec3_norm2(m);
		if (d < bd)
			bd = d, best = t;
	}
	memcpy(x, &pb->tris[9 * best], 9 * sizeof *x);
}

static double dot9(const double *a, const double *b)
{
	double s = 0;
	for (int i = 0; i < 9; i++)
		s += a[i] * b[i];
	return s;
}

/* An objective of the descent: its value at x, its gradient into g. */
typedef double (*objective_fn)(const void *ctx, const double x[9], double g[9]);

/* H = scale times the identity: the inverse Hessian of a fresh descent. */
static void hessian_reset(double H[81], double scale)
{
	for (int i = 0; i < 81; i++)
		H[i] = (i % 10 == 0) ? scale : 0;
}

/* Backtrack from x along d (slope g . d < 0) to a point xn of sufficient
 * decrease, value *fn and gradient gn, never stepping through a flat
 * triangle; 0 when none is found. */
static int line_search(objective_fn f, const void *ctx, const double x[9], double fx,
		       const double d[9], double slope, int fresh, double xn[9], double *fn,
		       double gn[9])
{
	double t = 1.0, c0[3], c1[3];
	if (fresh) {
		double dm = 0;
		for (int i = 0; i < 9; i++)
			dm = fmax(dm, fabs(d[i]));
		if (dm > FIRST_STEP_MAX)
			t = FIRST_STEP_MAX / dm;
	}
	tri_cross(x, c0);
	*fn = INFINITY;
	for (int ls = 0; ls < LINE_SEARCH_MAX; ls++, t *= BACKTRACK) {
		for (int i = 0; i < 9; i++)
			xn[i] = x[i] + t * d[i];
		tri_cross(xn, c1);
		if (vec3_dot(c0, c1) <= 0)
			continue; /* never step through a flat triangle */
		*fn = f(ctx, xn, gn);
		if (isfinite(*fn) && *fn <= fx + ARMIJO_C1 * t * slope)
			return 1;
	}
	return 0;
}

/* BFGS update of the inverse Hessian H with step s and gradient change y,
 * skipped when the curvature s.y is not clearly positive. The first update
 * of a fresh descent scales H first (Nocedal-Wright 6.20). */
static void bfgs_update(double H[81], const double s[9], const double y[9], int *fresh)
{
	double sy = dot9(s, y);
	if (!(sy > CURVATURE_MIN * sqrt(dot9(s, s) * dot9(y, y))))
		return;
	if (*fresh) {
		hessian_reset(H, sy / dot9(y, y));
		*fresh = 0;
	}
	double Hy[9], yHy = 0, rho = 1.0 / sy;
	for (int i = 0; i < 9; i++) {
		Hy[i] = 0;
		for (int j = 0; j < 9; j++)
			Hy[i] += H[9 * i + j] * y[j];
		yHy += y[i] * Hy[i];
	}
	for (int i = 0; i < 9; i++)
		for (int j = 0; j < 9; j++)
			H[9 * i + j] += -rho * (Hy[i] * s[j] + s[i] * Hy[j]) +
					(rho * rho * yHy + rho) * s[i] * s[j];
}

/* Quasi-Newton (BFGS, Armijo backtracking) descent from x, at most iters
 * steps; never accepts a step that raises f or flips the triangle's
 * orientation. Returns the final value. */
static double minimise(objective_fn f, const void *ctx, double x[9], unsigned iters)
{
	double H[81], g[9], gn[9], xn[9], d[9], s[9], y[9];
	double fx = f(ctx, x, g);
	if (!isfinite(fx))
		return fx;
	int fresh = 1, stall = 0; /* fresh: H is (a multiple of) the identity */
	hessian_reset(H, 1.0);
	for (unsigned it = 0; it < iters; it++) {
		for (int i = 0; i < 9; i++) {
			d[i] = 0;
			for (int j = 0; j < 9; j++)
				d[i] -= H[9 * i + j] * g[j];
		}
		double slope = dot9(g, d), fn;
		if (!(slope < 0) || !line_search(f, ctx, x, fx, d, slope, fresh, xn, &fn, gn)) {
			/* no descent along d: start over from steepest descent,
			 * unless that is what failed */
			if (fresh)
				break;
			hessian_reset(H, 1.0);
			fresh = 1;
			continue;
		}
		for (int i = 0; i < 9; i++) {
			s[i] = xn[i] - x[i];
			y[i] = gn[i] - g[i];
		}
		bfgs_update(H, s, y, &fresh);
		double drop = fx - fn;
		memcpy(x, xn, sizeof xn);
		memcpy(g, gn, sizeof gn);
		fx = fn;
		stall = drop <= STALL_DROP * fabs(fx) ? stall + 1 : 0;
		if (stall >= STALL_STEPS)
			break;
	}
	return fx;
}

double mrdem_triangle_quality(const double x[9])
{
	double c[3], e2 = 0;
	tri_cross(x, c);
	for (int i = 0; i < 3; i++) {
		double e[3];
		vec3_sub(e, &x[3 * ((i + 1) % 3)], &x[3 * i]);
		e2 += vec3_norm2(e);
	}
	if (!(e2 > 0))
		return 0;
	return 2.0 * sqrt(3.0) * vec3_norm(c) / e2;
}

/* Exact halo volume (normalised units) of x over the problem's points. */
static double exact_volume(const struct mrdem_surrogate_problem *pb, const double x[9])
{
	double eps = mrdem_tree_max_distance(x, pb->pts, pb->npts);
	double c[3];
	tri_cross(x, c);
	return steiner(eps, 0.5 * vec3_norm(c), perimeter(x, NULL), NULL, NULL, NULL);
}

/* Eigenvectors of a symmetric 3x3 matrix by cyclic Jacobi rotations;
 * columns of V, eigenvalues on the diagonal of a. */
static void jacobi3(double a[9], double V[9])
{
	for (int i = 0; i < 9; i++)
		V[i] = (i % 4 == 0);
	for (int sweep = 0; sweep < JACOBI_SWEEPS; sweep++) {
		double off = fabs(a[1]) + fabs(a[2]) + fabs(a[5]);
		if (off < JACOBI_TOL * (fabs(a[0]) + fabs(a[4]) + fabs(a[8])) + JACOBI_FLOOR)
			break;
		for (int p = 0; p < 2; p++)
			for (int q = p + 1; q < 3; q++) {
				double apq = a[3 * p + q];
				if (apq == 0)
					continue;
				double theta = (a[3 * q + q] - a[3 * p + p]) / (2 * apq);
				double t = (theta >= 0 ? 1.0 : -1.0) /
					   (fabs(theta) + sqrt(theta * theta + 1));
				double cs = 1 / sqrt(t * t + 1), sn = t * cs;
				for (int k = 0; k < 3; k++) { /* a = a J */
					double akp = a[3 * k + p], akq = a[3 * k + q];
					a[3 * k + p] = cs * akp - sn * akq;
					a[3 * k + q] = sn * akp + cs * akq;
				}
				for (int k = 0; k < 3; k++) { /* a = J^T a */
					double apk = a[3 * p + k], aqk = a[3 * q + k];
					a[3 * p + k] = cs * apk - sn * aqk;
					a[3 * q + k] = sn * apk + cs * aqk;
				}
				for (int k = 0; k < 3; k++) {
					double vkp = V[3 * k + p], vkq = V[3 * k + q];
					V[3 * k + p] = cs * vkp - sn * vkq;
					V[3 * k + q] = sn * vkp + cs * vkq;
				}
			}
	}
}

/* A slim triangle along the points' principal axis: the natural start for
 * elongated point sets, which (6) keeps compact. */
static void principal_axis_start(const struct mrdem_surrogate_problem *pb, double x[9])
{
	double a[9] = {0}, V[9];
	for (size_t p = 0; p < pb->npts; p++) {
		const double *q = &pb->pts[3 * p];
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 3; j++)
				a[3 * i + j] += q[i] * q[j];
	}
	jacobi3(a, V);
	int order[3] = {0, 1, 2};
	for (int i = 0; i < 3; i++)
		for (int j = i + 1; j < 3; j++)
			if (a[4 * order[j]] > a[4 * order[i]]) {
				int tmp = order[i];
				order[i] = order[j];
				order[j] = tmp;
			}
	double e1[3], e2[3];
	for (int k = 0; k < 3; k++) {
		e1[k] = V[3 * k + order[0]];
		e2[k] = V[3 * k + order[1]];
	}
	double lo = INFINITY, hi = -INFINITY, wide = 0;
	for (size_t p = 0; p < pb->npts; p++) {
		double t = vec3_dot(&pb->pts[3 * p], e1);
		lo = fmin(lo, t);
		hi = fmax(hi, t);
		wide = fmax(wide, fabs(vec3_dot(&pb->pts[3 * p], e2)));
	}
	vec3_scale(&x[0], e1, AXIS_END * lo);
	vec3_scale(&x[3], e1, AXIS_END * hi);
	vec3_scale(&x[6], e2, AXIS_WIDTH * wide + AXIS_WIDTH_OF_LENGTH * (hi - lo));
}

struct halo_ctx {
	const struct mrdem_surrogate_problem *pb;
	double tau;
};

static double halo_fn(const void *ctx, const double x[9], double g[9])
{
	const struct halo_ctx *h = ctx;
	return mrdem_surrogate_halo_objective(h->pb, x, h->tau, g);
}

static double functional_fn(const void *ctx, const double x[9], double g[9])
{
	return mrdem_surrogate_functional(ctx, x, g);
}

void mrdem_surrogate_fit(const struct mrdem_surrogate_problem *pb, unsigned iters, int refine,
			 double out[9], struct mrdem_surrogate_report *r)
{
	struct mrdem_surrogate_report rep = {0};
	double x[9], best[9], bvol;
	mrdem_surrogate_start(pb, x);
	rep.j_start = mrdem_surrogate_functional(pb, x, NULL);
	memcpy(best, x, sizeof x);
	bvol = exact_volume(pb, x); /* a real triangle: the fallback */
	if (pb->ntris > 1) {
		rep.j_end = minimise(functional_fn, pb, x, iters);
		rep.vol_functional = exact_volume(pb, x);
		if (mrdem_triangle_quality(x) >= MRDEM_SURROGATE_MIN_QUALITY) {
			memcpy(best, x, sizeof x);
			bvol = rep.vol_functional;
		}
	} else {
		rep.j_end = rep.j_start;
		rep.vol_functional = bvol;
	}
	if (refine && pb->ntris > 1) {
		double starts[2][9];
		memcpy(starts[0], x, sizeof x);
		principal_axis_start(pb, starts[1]);
		for (int s = 0; s < 2; s++) {
			double y[9];
			memcpy(y, starts[s], sizeof y);
			for (size_t k = 0; k < NREFINE_TAU; k++) {
				struct halo_ctx h = {pb, refine_tau[k]};
				minimise(halo_fn, &h, y, iters);
			}
			double v = exact_volume(pb, y);
			if (mrdem_triangle_quality(y) >= MRDEM_SURROGATE_MIN_QUALITY && v < bvol) {
				memcpy(best, y, sizeof y);
				bvol = v;
				rep.refined = 1;
			}
		}
	}
	rep.vol_final = bvol;
	/* outer normal agrees with the triangles it replaces (no effect on the halo) */
	double c[3];
	tri_cross(best, c);
	if (vec3_dot(c, pb->outward) < 0)
		for (int k = 0; k < 3; k++) {
			double tmp = best[3 + k];
			best[3 + k] = best[6 + k];
			best[6 + k] = tmp;
		}
	for (int v = 0; v < 3; v++)
		for (int k = 0; k < 3; k++)
			out[3 * v + k] = pb->centre[k] + pb->scale * best[3 * v + k];
	if (r)
		*r = rep;
}
