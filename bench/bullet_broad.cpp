// Bullet's dynamic AABB tree broad phase (btDbvtBroadphase) on the spheres
// of bench_broad, for the same run: one axis-aligned box per sphere,
// moved with setAabb every step, then calculateOverlappingPairs. Linked in
// by bench/bullet.mk when pkg-config finds bullet (libbullet-dev).
#include <btBulletCollisionCommon.h>

#include <cstddef>
#include <vector>

namespace {
struct dbvt {
	btDefaultCollisionConfiguration config;
	btCollisionDispatcher dispatcher{&config};
	btDbvtBroadphase broad;
	std::vector<btBroadphaseProxy *> proxy;
};

btVector3 corner(const double *x, double d)
{
	return btVector3(btScalar(x[0] + d), btScalar(x[1] + d), btScalar(x[2] + d));
}
} // namespace

extern "C" void *mrdem_bench_dbvt_new(const double *pos, size_t n, double r)
{
	dbvt *b = new dbvt;
	b->proxy.resize(n);
	for (size_t i = 0; i < n; i++)
		b->proxy[i] = b->broad.createProxy(corner(&pos[3 * i], -r), corner(&pos[3 * i], r),
						   0, nullptr, 1, 1, &b->dispatcher);
	b->broad.calculateOverlappingPairs(&b->dispatcher);
	return b;
}

extern "C" size_t mrdem_bench_dbvt_step(void *h, const double *pos, size_t n, double r)
{
	dbvt *b = static_cast<dbvt *>(h);
	for (size_t i = 0; i < n; i++)
		b->broad.setAabb(b->proxy[i], corner(&pos[3 * i], -r), corner(&pos[3 * i], r),
				 &b->dispatcher);
	b->broad.calculateOverlappingPairs(&b->dispatcher);
	return (size_t)b->broad.getOverlappingPairCache()->getNumOverlappingPairs();
}

extern "C" void mrdem_bench_dbvt_free(void *h)
{
	dbvt *b = static_cast<dbvt *>(h);
	// destroyProxy scans every pair held by the cache for the proxy's own
	// (btHashedOverlappingPairCache), which over all proxies is quadratic:
	// minutes at 10^5 touching boxes. Pairs removed from the end first cost
	// O(1) each, and then every proxy goes alone.
	btOverlappingPairCache *cache = b->broad.getOverlappingPairCache();
	while (cache->getNumOverlappingPairs() > 0) {
		btBroadphasePair &last = cache->getOverlappingPairArray()[cache->getNumOverlappingPairs() - 1];
		cache->removeOverlappingPair(last.m_pProxy0, last.m_pProxy1, &b->dispatcher);
	}
	for (btBroadphaseProxy *p : b->proxy)
		b->broad.destroyProxy(p, &b->dispatcher);
	delete b;
}
