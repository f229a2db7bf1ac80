/* Ellipsoid contacts: nanoseconds per candidate pair
 * for the characteristic-polynomial separation test alone, for the whole
 * contact (the test, then the two-variable optimisation for the pairs it
 * cannot call apart), the fraction of pairs that reach the optimisation;
 * GJK (common/shape/gjk.h) on the same pairs; and FCL's ellipsoid distance
 * and collide on them when bench/fcl.mk linked it in. Candidate pairs are
 * what a bounding-sphere broad phase hands over: random semi-axes in
 * [0.5, 1], random orientations, centres at a uniformly random distance
 * below the sum of the bounding radii and halos (0.01 each).
 *
 * Then the property check at full size: on 10^5 random poses the
 * optimisation equals GJK's distance and the separation test never calls
 * a touching pair apart.
 *
 * Convex pairs: rocks of about 30, 100 and 300 hull
 * vertices on the tumbling sequence of tests/lib/convex_tumble.h, ns per
 * distance query by closest-feature tracking warm-started from the last
 * step, started cold, by GJK on the vertex sets (common/shape/gjk.c), and
 * by FCL's convex distance on the same poses (default request, libccd;
 * and its own GJK at tolerance 1e-10), with the ratio warm / FCL. Scalar
 * double code: no SIMD path is involved. Thread CPU time, best of 3 runs;
 * printed.
 *
 *   bench_analytic [--quick]     (--quick: 10^4 pairs and poses) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/geom/quat.h"
#include "common/geom/vec3.h"
#include "common/narrow/analytic/convex_track.h"
#include "common/shape/ellipsoid.h"
#include "common/shape/gjk.h"
#include "common/util/error.h"
#include "common/util/rng.h"
#include "tests/lib/convex_tumble.h"

/* bench/fcl_shapes.cpp, when bench/fcl.mk builds it */
extern void mrdem_bench_fcl_ellipsoids(const double *pairs, size_t n, double *dist,
				       int *collide, double *t_dist, double *t_precise,
				       double *t_coll) __attribute__((weak));
extern const char *mrdem_bench_fcl_shapes_version(void) __attribute__((weak));
extern void mrdem_bench_fcl_convex(const double *va, size_t nva, const unsigned *ta, size_t nta,
				   const double *vb, size_t nvb, const unsigned *tb, size_t ntb,
				   const double *poses, size_t n, double *dist, double *t_dist,
				   double *t_precise) __attribute__((weak));

static double cpu_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec + 1e-9 * t.tv_nsec;
}

#define HALO 0.02 /* eps_a + eps_b */

struct pair {
	struct mrdem_ellipsoid a, b;
};

static void make_pairs(struct pair *p, double *flat, size_t n, uint64_t seed)
{
	struct mrdem_rng rng;
	mrdem_rng_seed(&rng, seed);
	for (size_t k = 0; k < n; k++) {
		double q[4], r[2][9], ax[2][3], c[2][3] = {{0, 0, 0}}, dir[3];
		for (int s = 0; s < 2; s++) {
			mrdem_rng_quat(&rng, q);
			quat_to_matrix(q, r[s]);
			for (int i = 0; i < 3; i++)
				ax[s][i] = mrdem_rng_range(&rng, 0.5, 1);
		}
		for (int i = 0; i < 3; i++)
			dir[i] = mrdem_rng_normal(&rng);
		vec3_normalize(dir);
		double reach = fmax(ax[0][0], fmax(ax[0][1], ax[0][2])) +
			       fmax(ax[1][0], fmax(ax[1][1], ax[1][2])) + HALO;
		vec3_scale(c[1], dir, reach * mrdem_rng_uniform(&rng));
		mrdem_ellipsoid_set(&p[k].a, c[0], r[0], ax[0]);
		mrdem_ellipsoid_set(&p[k].b, c[1], r[1], ax[1]);
		if (flat)
			for (int s = 0; s < 2; s++) {
				double *f = flat + 30 * k + 15 * s;
				memcpy(f, ax[s], 3 * sizeof(double));
				memcpy(f + 3, r[s], 9 * sizeof(double));
				memcpy(f + 12, c[s], 3 * sizeof(double));
			}
	}
}

static volatile double sink;

static void timings(size_t n)
{
	struct pair *p = mrdem_xmalloc_array(n, sizeof *p);
	double *flat = mrdem_xmalloc_array(30 * n, sizeof *flat);
	make_pairs(p, flat, n, 11);
	double best_sep = INFINITY, best_full = INFINITY, best_gjk = INFINITY;
	size_t apart = 0, touching = 0, steps = 0;
	for (int run = 0; run < 3; run++) {
		double t0 = cpu_now(), acc = 0;
		size_t ap = 0;
		for (size_t k = 0; k < n; k++)
			ap += (size_t)mrdem_ellipsoids_apart(&p[k].a, &p[k].b, HALO);
		double t1 = cpu_now();
		size_t tc = 0, st = 0;
		for (size_t k = 0; k < n; k++) {
			if (mrdem_ellipsoids_apart(&p[k].a, &p[k].b, HALO))
				continue;
			struct mrdem_ellipsoid_pair r;
			mrdem_ellipsoids_distance(&p[k].a, &p[k].b, NULL, &r);
			st += (size_t)r.iterations;
			tc += r.dist <= HALO;
			acc += r.dist;
		}
		double t2 = cpu_now();
		for (size_t k = 0; k < n; k++) {
			struct mrdem_gjk_result g;
			mrdem_gjk_distance(&p[k].a, mrdem_ellipsoid_support, &p[k].b,
					   mrdem_ellipsoid_support, 1e-10, &g);
			acc += g.dist;
		}
		double t3 = cpu_now();
		sink = acc;
		best_sep = fmin(best_sep, (t1 - t0) / n * 1e9);
		best_full = fmin(best_full, (t2 - t1) / n * 1e9);
		best_gjk = fmin(best_gjk, (t3 - t2) / n * 1e9);
		apart = ap, touching = tc, steps = st;
	}
	size_t opt = n - apart;
	printf("ellipsoid candidate pairs (%zu, halos %.2f, semi-axes in [0.5, 1]):\n", n, HALO);
	printf("  separation test (characteristic polynomial): %.1f ns per pair; %.1f %% apart\n",
	       best_sep, 100.0 * apart / n);
	printf("  full contact (test, then optimisation):      %.1f ns per pair; %.1f %% reach the "
	       "optimisation (%.2f Newton steps each), %.1f %% in contact\n",
	       best_full, 100.0 * opt / n, opt ? (double)steps / opt : 0, 100.0 * touching / n);
	printf("  optimisation alone, per pair reaching it:    %.1f ns\n",
	       opt ? (best_full - best_sep) * n / opt : 0);
	printf("  GJK distance (common/shape/gjk.c, tol 1e-10): %.1f ns per pair\n", best_gjk);
	if (mrdem_bench_fcl_ellipsoids) {
		double *dist = mrdem_xmalloc_array(n, sizeof *dist);
		int *coll = mrdem_xmalloc_array(n, sizeof *coll);
		double bd = INFINITY, bp = INFINITY, bc = INFINITY, td, tp, tcl;
		for (int run = 0; run < 3; run++) {
			mrdem_bench_fcl_ellipsoids(flat, n, dist, coll, &td, &tp, &tcl);
			bd = fmin(bd, td / n * 1e9);
			bp = fmin(bp, tp / n * 1e9);
			bc = fmin(bc, tcl / n * 1e9);
		}
		/* agreement on separated pairs, decisions on all */
		double worst = 0;
		size_t disagree = 0;
		for (size_t k = 0; k < n; k++) {
			struct mrdem_ellipsoid_pair r;
			mrdem_ellipsoids_distance(&p[k].a, &p[k].b, NULL, &r);
			if (r.dist > 1e-6 && dist[k] > 0)
				worst = fmax(worst, fabs(dist[k] - r.dist));
			disagree += (r.dist > 1e-9) == (coll[k] != 0) && fabs(r.dist) > 1e-6;
		}
		printf("  FCL %s ellipsoid distance, default request (libccd): %.1f ns per pair "
		       "(%.1fx our separation test, %.1fx our full contact)\n",
		       mrdem_bench_fcl_shapes_version ? mrdem_bench_fcl_shapes_version() : "", bd,
		       bd / best_sep, bd / best_full);
		printf("  FCL ellipsoid distance, its GJK at tolerance 1e-10: %.1f ns per pair (%.1fx "
		       "the test, %.1fx our full contact); collide: %.1f ns per pair (%.1fx the "
		       "test)\n", bp, bp / best_sep, bp / best_full, bc, bc / best_sep);
		printf("  FCL (tolerance 1e-10) against the optimisation: largest distance "
		       "difference on separated pairs %.3g; %zu collide decisions differ\n", worst,
		       disagree);
		free(dist);
		free(coll);
	} else {
		printf("  FCL not linked in (install libfcl-dev; bench/fcl.mk builds it)\n");
	}
	free(p);
	free(flat);
}

/* The property check at full size. */
static void properties(size_t n)
{
	struct pair *p = mrdem_xmalloc_array(n, sizeof *p);
	make_pairs(p, NULL, n, 12);
	size_t unconverged = 0, disagree = 0, touching_apart = 0, overlap_apart = 0;
	double worst = 0;
	for (size_t k = 0; k < n; k++) {
		struct mrdem_ellipsoid_pair r;
		unconverged += mrdem_ellipsoids_distance(&p[k].a, &p[k].b, NULL, &r) != 0;
		struct mrdem_gjk_result g;
		mrdem_gjk_distance(&p[k].a, mrdem_ellipsoid_support, &p[k].b,
				   mrdem_ellipsoid_support, 1e-13, &g);
		if (!g.intersect) {
			worst = fmax(worst, fabs(g.dist - r.dist));
			disagree += fabs(g.dist - r.dist) > 1e-9;
		} else {
			disagree += r.dist > 1e-9;
		}
		if (r.dist <= 0)
			overlap_apart += (size_t)mrdem_ellipsoids_apart(&p[k].a, &p[k].b, 0);
		double ct[3];
		vec3_axpy(ct, p[k].b.c, -r.dist, r.n);
		struct mrdem_ellipsoid t = p[k].b;
		vec3_copy(t.c, ct);
		touching_apart += (size_t)mrdem_ellipsoids_apart(&p[k].a, &t, 0);
	}
	printf("property check on %zu random poses: %zu unconverged, %zu differ from GJK by more "
	       "than 1e-9 (largest difference %.3g), separation test: %zu overlapping and %zu "
	       "touching pairs called apart\n", n, unconverged, disagree, worst, overlap_apart,
	       touching_apart);
	free(p);
}

/* Convex pairs on a tumbling sequence of n steps: rocks from `points`
 * random points each. */
static void convex_timings(size_t points, int n)
{
	struct mrdem_rng rng;
	mrdem_rng_seed(&rng, 40 + points);
	struct tumble_shape ra, rb;
	tumble_rock(&rng, points, 1, &ra);
	tumble_rock(&rng, points, 0.8, &rb);
	const struct mrdem_mesh *ma = &ra.m, *mb = &rb.m;
	const struct mrdem_convex *a = &ra.c, *b = &rb.c;
	double *poses = mrdem_xcalloc(24 * (size_t)n, sizeof *poses), q[4] = {1, 0, 0, 0};
	struct mrdem_xform *x = mrdem_xmalloc_array((size_t)n, sizeof *x);
	for (int s = 0; s < n; s++) {
		double *p = poses + 24 * s;
		p[0] = p[4] = p[8] = 1;
		tumble_pose(s, 1.2, 2.8, q, p + 12, p + 21);
		tumble_xform(p + 12, p + 21, &x[s]);
	}
	double best[3] = {INFINITY, INFINITY, INFINITY};
	uint64_t steps[2] = {0, 0}, fallbacks[2] = {0, 0}, apart = 0;
	for (int run = 0; run < 3; run++) {
		struct mrdem_feature_pair warm = {0};
		double acc = 0;
		for (int mode = 0; mode < 3; mode++) {
			uint64_t st = 0, fb = 0, ap = 0;
			double t0 = cpu_now();
			for (int s = 0; s < n; s++) {
				struct mrdem_convex_result r;
				struct mrdem_feature_pair cold = {0};
				if (mode == 2)
					mrdem_convex_gjk(a, b, &x[s], &r);
				else
					mrdem_convex_distance(a, b, &x[s], mode ? &cold : &warm, &r);
				st += (uint64_t)r.steps, fb += (uint64_t)r.fallback;
				ap += r.dist > 0;
				acc += r.dist;
			}
			best[mode] = fmin(best[mode], (cpu_now() - t0) / n * 1e9);
			if (mode < 2)
				steps[mode] = st, fallbacks[mode] = fb;
			apart = ap;
		}
		sink = acc;
	}
	printf("convex pairs, rocks of %u and %u hull vertices (%u and %u faces), %d tumbling steps, "
	       "%.1f %% apart:\n", a->nv, b->nv, a->nf, b->nf, n, 100.0 * apart / n);
	printf("  closest-feature tracking, warm: %.1f ns per query (%.2f walk steps, %llu GJK "
	       "fallbacks)\n", best[0], (double)steps[0] / n, (unsigned long long)fallbacks[0]);
	printf("  closest-feature tracking, cold: %.1f ns per query (%.2f walk steps, %llu GJK "
	       "fallbacks)\n", best[1], (double)steps[1] / n, (unsigned long long)fallbacks[1]);
	printf("  GJK on the vertex sets (common/shape/gjk.c): %.1f ns per query\n", best[2]);
	if (mrdem_bench_fcl_convex) {
		double *dist = mrdem_xmalloc_array((size_t)n, sizeof *dist), bd = INFINITY,
		       bp = INFINITY, td, tp;
		for (int run = 0; run < 3; run++) {
			mrdem_bench_fcl_convex(ma->verts, ma->nverts, ma->tris, ma->ntris, mb->verts,
					       mb->nverts, mb->tris, mb->ntris, poses, (size_t)n, dist, &td,
					       &tp);
			bd = fmin(bd, td / n * 1e9);
			bp = fmin(bp, tp / n * 1e9);
		}
		printf("  FCL convex distance, default request (libccd GJK): %.1f ns per query; its "
		       "GJK at tolerance 1e-10: %.1f ns\n", bd, bp);
		printf("  warm tracking / FCL: %.3fx (default request), %.3fx (tolerance 1e-10); "
		       "goal at most 0.5x\n", best[0] / bd, best[0] / bp);
		free(dist);
	} else {
		printf("  FCL not linked in (install libfcl-dev; bench/fcl.mk builds it)\n");
	}
	tumble_shape_release(&ra);
	tumble_shape_release(&rb);
	free(poses);
	free(x);
}

int main(int argc, char **argv)
{
	int quick = argc > 1 && !strcmp(argv[1], "--quick");
	size_t n = quick ? 10000 : 100000;
	timings(n);
	properties(n);
	size_t points[3] = {40, 200, 2000};
	for (int k = 0; k < 3; k++)
		convex_timings(points[k], quick ? 2000 : 20000);
	return 0;
}
