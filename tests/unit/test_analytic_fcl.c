/* The ellipsoid distance against FCL's, where libfcl-dev is installed
 * (bench/fcl.mk then links bench/fcl_shapes.cpp into this test; without
 * it the test skips): on random pairs of ellipsoids (and of spheres, as
 * ellipsoids of equal semi-axes) the two-variable optimisation gives FCL's
 * distance (its GJK at tolerance 1e-10) on separated pairs, and FCL's
 * collide agrees with the sign of the distance and with the separation
 * test's "apart". */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/quat.h"
#include "common/geom/vec3.h"
#include "common/shape/ellipsoid.h"
#include "common/util/error.h"
#include "common/util/rng.h"
#include "tests/lib/tap.h"

extern void mrdem_bench_fcl_ellipsoids(const double *pairs, size_t n, double *dist,
				       int *collide, double *t_dist, double *t_precise,
				       double *t_coll) __attribute__((weak));

static void check(int spheres, size_t n)
{
	struct mrdem_rng rng;
	mrdem_rng_seed(&rng, spheres ? 21 : 22);
	double *flat = mrdem_xmalloc_array(30 * n, sizeof *flat), *dist;
	struct mrdem_ellipsoid *e = mrdem_xmalloc_array(2 * n, sizeof *e);
	for (size_t k = 0; k < n; k++) {
		for (int s = 0; s < 2; s++) {
			double q[4], *f = flat + 30 * k + 15 * s;
			mrdem_rng_quat(&rng, q);
			quat_to_matrix(q, f + 3);
			for (int a = 0; a < 3; a++) {
				f[a] = spheres && a ? f[0] : mrdem_rng_range(&rng, 0.2, 1);
				f[12 + a] = s ? mrdem_rng_range(&rng, -1.5, 1.5) : 0;
			}
			mrdem_ellipsoid_set(&e[2 * k + s], f + 12, f + 3, f);
		}
	}
	dist = mrdem_xmalloc_array(n, sizeof *dist);
	int *coll = mrdem_xmalloc_array(n, sizeof *coll);
	double t[3];
	mrdem_bench_fcl_ellipsoids(flat, n, dist, coll, &t[0], &t[1], &t[2]);
	double worst = 0;
	size_t sep = 0, bad_coll = 0, bad_apart = 0;
	for (size_t k = 0; k < n; k++) {
		struct mrdem_ellipsoid_pair r;
		mrdem_ellipsoids_distance(&e[2 * k], &e[2 * k + 1], NULL, &r);
		if (r.dist > 1e-6) {
			sep++;
			worst = fmax(worst, fabs(r.dist - dist[k]));
		}
		if (fabs(r.dist) > 1e-6)
			bad_coll += (r.dist < 0) != (coll[k] != 0);
		bad_apart += mrdem_ellipsoids_apart(&e[2 * k], &e[2 * k + 1], 0) && coll[k];
	}
	const char *what = spheres ? "spheres" : "ellipsoids";
	tap_ok(sep > n / 10 && worst < 1e-8, "%s: distance equals FCL's on %zu separated pairs of "
	       "%zu (largest difference %.3g)", what, sep, n, worst);
	tap_eq_int(bad_coll, 0, "%s: FCL's collide agrees with the distance's sign", what);
	tap_eq_int(bad_apart, 0, "%s: the separation test calls no pair apart that FCL finds "
		   "colliding", what);
	free(flat);
	free(e);
	free(dist);
	free(coll);
}

int main(void)
{
	if (!mrdem_bench_fcl_ellipsoids) {
		printf("1..0 # SKIP FCL not linked in (install libfcl-dev; bench/fcl.mk)\n");
		return 0;
	}
	size_t n = getenv("MRDEM_ASAN") ? 500 : 3000;
	check(0, n);
	check(1, n);
	return tap_done();
}
