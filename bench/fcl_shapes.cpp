// FCL's ellipsoid and convex queries for bench_analytic (bench/fcl.mk links this in
// when pkg-config finds fcl): the same ellipsoid pairs as FCL objects
// (built before the clock starts), then one distance per pair with FCL's
// default request (libccd's GJK, about 1e-6 accurate) and with its own
// GJK at a tolerance of 1e-10 (as accurate as ours), and one boolean
// collide per pair, each timed over all pairs.
#include <chrono>
#include <cstddef>
#include <ctime>
#include <memory>
#include <vector>

#include <fcl/fcl.h>

#include "fcl_pose.hpp"

namespace {
fcl::Transform3d pose(const double r[9], const double t[3])
{
	return mrdem_fcl_pose(r, t);
}
} // namespace

// pairs: per pair 30 doubles: axes a (3), rotation a (9, row-major),
// centre a (3), then the same for b. dist[k]: FCL's distance (negative or
// 0 when they collide, as FCL reports it); collide[k]: 1 when in collision.
// Returns the seconds of the default distance loop in *t_dist, of the
// precise one (whose distances go to dist) in *t_precise and of the
// collide loop in *t_coll.
extern "C" void mrdem_bench_fcl_ellipsoids(const double *pairs, size_t n, double *dist,
					   int *collide, double *t_dist, double *t_precise,
					   double *t_coll)
{
	std::vector<fcl::CollisionObjectd> a, b;
	a.reserve(n);
	b.reserve(n);
	for (size_t k = 0; k < n; k++) {
		const double *p = pairs + 30 * k;
		a.emplace_back(std::make_shared<fcl::Ellipsoidd>(p[0], p[1], p[2]), pose(p + 3, p + 12));
		b.emplace_back(std::make_shared<fcl::Ellipsoidd>(p[15], p[16], p[17]),
			       pose(p + 18, p + 27));
	}
	fcl::DistanceRequestd dreq, preq;
	preq.gjk_solver_type = fcl::GST_INDEP;
	preq.distance_tolerance = 1e-10;
	fcl::CollisionRequestd creq;
	auto tp = std::chrono::steady_clock::now();
	for (size_t k = 0; k < n; k++) {
		fcl::DistanceResultd r;
		fcl::distance(&a[k], &b[k], dreq, r);
		dist[k] = r.min_distance;
	}
	auto t0 = std::chrono::steady_clock::now();
	for (size_t k = 0; k < n; k++) {
		fcl::DistanceResultd r;
		fcl::distance(&a[k], &b[k], preq, r);
		dist[k] = r.min_distance;
	}
	auto t1 = std::chrono::steady_clock::now();
	for (size_t k = 0; k < n; k++) {
		fcl::CollisionResultd r;
		collide[k] = fcl::collide(&a[k], &b[k], creq, r) > 0;
	}
	auto t2 = std::chrono::steady_clock::now();
	*t_dist = std::chrono::duration<double>(t0 - tp).count();
	*t_precise = std::chrono::duration<double>(t1 - t0).count();
	*t_coll = std::chrono::duration<double>(t2 - t1).count();
}

extern "C" const char *mrdem_bench_fcl_shapes_version(void)
{
	return FCL_VERSION;
}

// FCL's distance between two convex polyhedra (fcl::Convex, triangular
// faces) at n poses, for bench_analytic's tumbling sequence and
// test_convex_fcl: a's vertices va (3 nva doubles) and triangles ta
// (3 nta indices, counter-clockwise seen from outside), the same for b;
// poses: per query a's rotation (9, row-major) and translation (3), then
// b's. dist[k]: FCL's distance at its GJK tolerance 1e-10 (GST_INDEP,
// negative or 0 when they intersect). *t_dist: thread CPU seconds of the
// loop with the default request (libccd's GJK), *t_precise: of the
// GST_INDEP one.
extern "C" void mrdem_bench_fcl_convex(const double *va, size_t nva, const unsigned *ta,
				       size_t nta, const double *vb, size_t nvb,
				       const unsigned *tb, size_t ntb, const double *poses,
				       size_t n, double *dist, double *t_dist, double *t_precise)
{
	auto convex = [](const double *v, size_t nv, const unsigned *t, size_t nt) {
		auto verts = std::make_shared<std::vector<fcl::Vector3d>>();
		auto faces = std::make_shared<std::vector<int>>();
		for (size_t i = 0; i < nv; i++)
			verts->emplace_back(v[3 * i], v[3 * i + 1], v[3 * i + 2]);
		for (size_t i = 0; i < nt; i++) {
			faces->push_back(3);
			for (int k = 0; k < 3; k++)
				faces->push_back((int)t[3 * i + k]);
		}
		return std::make_shared<fcl::Convexd>(verts, (int)nt, faces);
	};
	auto a = convex(va, nva, ta, nta), b = convex(vb, nvb, tb, ntb);
	a->computeLocalAABB();
	b->computeLocalAABB();
	std::vector<fcl::Transform3d> xa, xb;
	for (size_t k = 0; k < n; k++) {
		xa.push_back(pose(poses + 24 * k, poses + 24 * k + 9));
		xb.push_back(pose(poses + 24 * k + 12, poses + 24 * k + 21));
	}
	fcl::DistanceRequestd dreq, preq;
	preq.gjk_solver_type = fcl::GST_INDEP;
	preq.distance_tolerance = 1e-10;
	auto cpu = [] { // thread CPU time, as bench_analytic times ours
		timespec t;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
		return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
	};
	double t0 = cpu();
	for (size_t k = 0; k < n; k++) {
		fcl::DistanceResultd r;
		fcl::distance(a.get(), xa[k], b.get(), xb[k], dreq, r);
		dist[k] = r.min_distance;
	}
	double t1 = cpu();
	for (size_t k = 0; k < n; k++) {
		fcl::DistanceResultd r;
		fcl::distance(a.get(), xa[k], b.get(), xb[k], preq, r);
		dist[k] = r.min_distance;
	}
	*t_dist = t1 - t0;
	*t_precise = cpu() - t1;
}
