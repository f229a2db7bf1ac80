// FCL's mesh-mesh queries for bench_query (bench/fcl.mk links this in when
// pkg-config finds fcl): OBBRSS bounding volume hierarchies built once,
// then collide with all contacts, and distance, per query.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <fcl/fcl.h>

#include "fcl_pose.hpp"

namespace {
using Model = fcl::BVHModel<fcl::OBBRSSd>;

fcl::Transform3d pose(const double r[9], const double t[3])
{
	return mrdem_fcl_pose(r, t);
}
} // namespace

extern "C" void *mrdem_bench_fcl_model(const double *verts, uint32_t nv, const uint32_t *tris,
				       uint32_t nt)
{
	std::vector<fcl::Vector3d> v(nv);
	std::vector<fcl::Triangle> t(nt);
	for (uint32_t i = 0; i < nv; i++)
		v[i] = fcl::Vector3d(verts[3 * i], verts[3 * i + 1], verts[3 * i + 2]);
	for (uint32_t i = 0; i < nt; i++)
		t[i] = fcl::Triangle(tris[3 * i], tris[3 * i + 1], tris[3 * i + 2]);
	auto *m = new std::shared_ptr<Model>(new Model);
	(*m)->beginModel();
	(*m)->addSubModel(v, t);
	(*m)->endModel();
	return m;
}

extern "C" void mrdem_bench_fcl_free(void *m)
{
	delete static_cast<std::shared_ptr<Model> *>(m);
}

// Number of intersecting triangle pairs (all of them, with contact data).
extern "C" size_t mrdem_bench_fcl_collide(void *a, const double ra[9], const double ta[3],
					  void *b, const double rb[9], const double tb[3])
{
	fcl::CollisionObjectd oa(*static_cast<std::shared_ptr<Model> *>(a), pose(ra, ta));
	fcl::CollisionObjectd ob(*static_cast<std::shared_ptr<Model> *>(b), pose(rb, tb));
	fcl::CollisionRequestd req(100000, true);
	fcl::CollisionResultd res;
	fcl::collide(&oa, &ob, req, res);
	return res.numContacts();
}

extern "C" double mrdem_bench_fcl_distance(void *a, const double ra[9], const double ta[3],
					   void *b, const double rb[9], const double tb[3])
{
	fcl::CollisionObjectd oa(*static_cast<std::shared_ptr<Model> *>(a), pose(ra, ta));
	fcl::CollisionObjectd ob(*static_cast<std::shared_ptr<Model> *>(b), pose(rb, tb));
	fcl::DistanceRequestd req(true);
	fcl::DistanceResultd res;
	return fcl::distance(&oa, &ob, req, res);
}
