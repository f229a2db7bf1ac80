// FCL's triangle-triangle distance for bench_narrow (bench/fcl.mk links
// this in when pkg-config finds fcl): the same index pairs of float
// triangles, converted to FCL's double vectors, one triDistance per pair.
#include <cstddef>
#include <cstdint>

#include <fcl/config.h>
#include <fcl/narrowphase/detail/primitive_shape_algorithm/triangle_distance.h>

extern "C" void mrdem_bench_fcl_distances(const float *a, const float *b, const uint32_t *pairs,
					  size_t n, float *dist)
{
	using V = fcl::Vector3<double>;
	for (size_t k = 0; k < n; k++) {
		const float *p = a + 9 * (size_t)pairs[2 * k], *q = b + 9 * (size_t)pairs[2 * k + 1];
		V t1[3], t2[3], x, y;
		for (int v = 0; v < 3; v++) {
			t1[v] = V(p[3 * v], p[3 * v + 1], p[3 * v + 2]);
			t2[v] = V(q[3 * v], q[3 * v + 1], q[3 * v + 2]);
		}
		dist[k] = (float)fcl::detail::TriangleDistance<double>::triDistance(t1, t2, x, y);
	}
}

extern "C" const char *mrdem_bench_fcl_version(void)
{
	return FCL_VERSION;
}
