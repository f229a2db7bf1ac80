// The pose of an mrdem shape (row-major rotation r, translation t) as an
// FCL transform: shared by the FCL comparisons of the benchmarks.
#ifndef MRDEM_BENCH_FCL_POSE_HPP
#define MRDEM_BENCH_FCL_POSE_HPP

#include <fcl/fcl.h>

inline fcl::Transform3d mrdem_fcl_pose(const double r[9], const double t[3])
{
	fcl::Transform3d x = fcl::Transform3d::Identity();
	fcl::Matrix3d m;
	m << r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8];
	x.linear() = m;
	x.translation() = fcl::Vector3d(t[0], t[1], t[2]);
	return x;
}

#endif
