/* Surrogate triangles: functional (6) and its gradient, the refinement
 * objective, the minimiser, exact epsilons and their float rounding. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/vec3.h"
#include "common/mesh/mesh.h"
#include "common/tree/surrogate.h"
#include "common/tree/tree.h"
#include "common/util/rng.h"
#include "tests/lib/tap.h"

/* Problem over the mesh triangles with index in [a, b). */
static void make_problem(struct mrdem_surrogate_problem *pb, const struct mrdem_mesh *m,
			 uint32_t a, uint32_t b, const struct mrdem_tree_params *p)
{
	uint32_t n = b - a;
	double *tris = malloc(9 * sizeof(double) * n), *pts = malloc(3 * sizeof(double) * m->nverts);
	char *used = calloc(m->nverts, 1);
	size_t np = 0;
	for (uint32_t t = 0; t < n; t++)
		for (int v = 0; v < 3; v++) {
			uint32_t vi = m->tris[3 * (a + t) + v];
			memcpy(&tris[9 * t + 3 * v], &m->verts[3 * vi], 3 * sizeof(double));
			if (!used[vi]) {
				used[vi] = 1;
				memcpy(&pts[3 * np++], &m->verts[3 * vi], 3 * sizeof(double));
			}
		}
	mrdem_surrogate_problem_init(pb, tris, n, pts, np, p);
	free(tris);
	free(pts);
	free(used);
}

static void sphere(struct mrdem_mesh *m, uint32_t n, double stretch, double noise)
{
	struct mrdem_sphere_opts o;
	mrdem_sphere_opts_default(&o);
	o.triangles = n;
	o.stretch = stretch;
	o.noise = noise;
	o.seed = 5;
	mrdem_mesh_init(m);
	if (mrdem_mesh_sphere(m, &o) || mrdem_mesh_validate(m, 0, "test sphere"))
		exit(1);
}

/* Largest relative difference between g and central differences of f. */
typedef double (*fn9)(const struct mrdem_surrogate_problem *, const double *, double *, double);
static double f6(const struct mrdem_surrogate_problem *pb, const double *x, double *g, double tau)
{
	(void)tau;
	return mrdem_surrogate_functional(pb, x, g);
}
static double fh(const struct mrdem_surrogate_problem *pb, const double *x, double *g, double tau)
{
	return mrdem_surrogate_halo_objective(pb, x, tau, g);
}
static double grad_error(fn9 f, const struct mrdem_surrogate_problem *pb, const double x[9],
			 double tau)
{
	double g[9], xp[9], gn = 0, err = 0;
	f(pb, x, g, tau);
	for (int i = 0; i < 9; i++)
		gn = fmax(gn, fabs(g[i]));
	for (int i = 0; i < 9; i++) {
		double h = 1e-6;
		memcpy(xp, x, sizeof xp);
		xp[i] += h;
		double fp = f(pb, xp, NULL, tau);
		xp[i] -= 2 * h;
		double fm = f(pb, xp, NULL, tau);
		err = fmax(err, fabs((fp - fm) / (2 * h) - g[i]) / gn);
	}
	return err;
}

static void test_gradients(void)
{
	struct mrdem_mesh m;
	sphere(&m, 320, 1.4, 1.0);
	struct mrdem_tree_params p;
	mrdem_tree_params_default(&p);
	p.alpha_inside = 0.5; /* make every term count */
	p.alpha_area = 1e-3;
	struct mrdem_surrogate_problem pb;
	make_problem(&pb, &m, 0, 40, &p);
	struct mrdem_rng r;
	mrdem_rng_seed(&r, 11);
	double worst6 = 0, worsth = 0;
	for (int trial = 0; trial < 20; trial++) {
		double x[9];
		for (int i = 0; i < 9; i++)
			x[i] = mrdem_rng_range(&r, -0.8, 0.8);
		worst6 = fmax(worst6, grad_error(f6, &pb, x, 0));
		worsth = fmax(worsth, grad_error(fh, &pb, x, 0.05));
	}
	tap_ok(worst6 < 1e-5, "functional (6): analytic gradient = central differences "
	       "(worst relative error %.2g over 20 random triangles)", worst6);
	tap_ok(worsth < 1e-5, "halo objective: analytic gradient = central differences "
	       "(worst relative error %.2g)", worsth);
	double flat[9] = {0, 0, 0, 1, 0, 0, 2, 0, 0};
	tap_ok(isinf(mrdem_surrogate_functional(&pb, flat, NULL)),
	       "functional (6) is infinite for a zero-area triangle");
	mrdem_surrogate_problem_release(&pb);
	mrdem_mesh_release(&m);
}

/* The minimisation lowers (6) on whole spheres, patches and stretched
 * shapes, and never returns a degenerate triangle. */
static void test_minimisation(void)
{
	struct {
		uint32_t n;
		double stretch, noise;
		uint32_t a, b;
	} cases[] = {
		{80, 1.0, 1.0, 0, 80},   {320, 2.6, 1.0, 0, 320}, {1280, 1.0, 1.5, 0, 1280},
		{1280, 1.0, 1.0, 0, 8},  {1280, 1.8, 1.3, 100, 140}, {320, 1.2, 1.0, 7, 9},
	};
	struct mrdem_tree_params p;
	mrdem_tree_params_default(&p);
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		struct mrdem_mesh m;
		sphere(&m, cases[c].n, cases[c].stretch, cases[c].noise);
		struct mrdem_surrogate_problem pb;
		make_problem(&pb, &m, cases[c].a, cases[c].b, &p);
		for (int refine = 0; refine < 2; refine++) {
			double out[9], xn[9];
			struct mrdem_surrogate_report rep;
			mrdem_surrogate_fit(&pb, p.iters, refine, out, &rep);
			for (int k = 0; k < 9; k++)
				xn[k] = (out[k] - pb.centre[k % 3]) / pb.scale;
			tap_ok(rep.j_end < rep.j_start,
			       "%u-sphere stretch %.1f noise %.1f, triangles [%u, %u): (6) lowered "
			       "from %.6g to %.6g", cases[c].n, cases[c].stretch, cases[c].noise,
			       cases[c].a, cases[c].b, rep.j_start, rep.j_end);
			double q = mrdem_triangle_quality(xn);
			tap_ok(q >= MRDEM_SURROGATE_MIN_QUALITY, "  refine %d: not degenerate (quality "
			       "%.3g)", refine, q);
			if (refine)
				tap_ok(rep.vol_final <= rep.vol_functional,
				       "  refinement never grows the halo (%.6g <= %.6g)",
				       rep.vol_final, rep.vol_functional);
		}
		mrdem_surrogate_problem_release(&pb);
		mrdem_mesh_release(&m);
	}
}

static void test_single_triangle(void)
{
	struct mrdem_mesh m;
	sphere(&m, 80, 1.0, 1.0);
	struct mrdem_tree_params p;
	mrdem_tree_params_default(&p);
	struct mrdem_surrogate_problem pb;
	make_problem(&pb, &m, 17, 18, &p);
	double out[9];
	mrdem_surrogate_fit(&pb, p.iters, 1, out, NULL);
	double err = 0;
	for (int v = 0; v < 3; v++)
		err = fmax(err, vec3_dist(&out[3 * v], &m.verts[3 * m.tris[3 * 17 + v]]));
	tap_ok(err < 1e-14, "a one-triangle node's surrogate is the triangle itself (off by %.2g)",
	       err);
	mrdem_surrogate_problem_release(&pb);
	mrdem_mesh_release(&m);
}

static void test_max_distance(void)
{
	double tri[9] = {0, 0, 0, 2, 0, 0, 0, 2, 0};
	double pts[] = {0.5, 0.5, 0.25, /* above the face: 0.25 */
			-3, 0, 0,       /* beyond vertex 0: 3 */
			1, 1, 0,        /* on the hypotenuse: 0 */
			2, 2, 1};       /* off the hypotenuse: sqrt(2 + 1) */
	tap_near(mrdem_tree_max_distance(tri, pts, 1), 0.25, 1e-15, "distance above the face");
	tap_near(mrdem_tree_max_distance(tri, pts, 2), 3.0, 1e-15, "distance beyond a vertex");
	tap_near(mrdem_tree_max_distance(tri, &pts[6], 2), sqrt(3.0), 1e-15,
		 "distance off the hypotenuse (maximum of two points)");
	tap_near(mrdem_tree_max_distance(tri, pts, 0), 0.0, 0, "no points: 0");
}

static void test_round_up(void)
{
	struct mrdem_rng r;
	mrdem_rng_seed(&r, 3);
	int ok = 1, tight = 1;
	for (int i = 0; i < 100000; i++) {
		double e = ldexp(mrdem_rng_uniform(&r), (int)mrdem_rng_range(&r, -30, 10));
		double coord = mrdem_rng_range(&r, 0, 100);
		float f = mrdem_tree_eps_round_up(e, coord);
		double need = e * (1 + 1e-12) + 1e-12 * coord;
		ok &= (double)f >= need;
		tight &= (double)nextafterf(f, 0) < need;
	}
	tap_ok(ok, "rounded-up eps covers the exact value plus the error margin (1e5 samples)");
	tap_ok(tight, "and is the smallest such float");
	tap_ok(mrdem_tree_eps_round_up(0, 0) == 0.0f, "exact zero stays zero");
}

static void test_quality(void)
{
	double eq[9] = {0, 0, 0, 1, 0, 0, 0.5, sqrt(3) / 2, 0};
	double line[9] = {0, 0, 0, 1, 1, 1, 2, 2, 2};
	tap_near(mrdem_triangle_quality(eq), 1.0, 1e-15, "equilateral triangle has quality 1");
	tap_near(mrdem_triangle_quality(line), 0.0, 1e-15, "collinear triangle has quality 0");
}

int main(void)
{
	test_gradients();
	test_minimisation();
	test_single_triangle();
	test_max_distance();
	test_round_up();
	test_quality();
	return tap_done();
}
