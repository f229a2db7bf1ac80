/* Narrow-phase kernels: nanoseconds per triangle pair for the comparison,
 * iterative and hybrid methods (fallbacks included) on
 *   (a) random nearby triangle pairs (index-pair batches, as a surrogate
 *       tree hands them over),
 *   (b) all 1,280 x 1,280 pairs of two touching icospheres (flat search),
 *   (c) the paper's Table 2 sizes 12, 36, 140, 1,224 (lat-long spheres),
 * with fallback rates, at the best SIMD level and at every level the CPU
 * has; and FCL's triangle distance on the same pairs when bench/fcl.mk
 * linked it in. Times are thread CPU time (one core), best of several
 * runs. Printed, never asserted.
 *
 *   bench_narrow [--quick]      (--quick: fewer pairs and runs) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/geom/quat.h"
#include "common/geom/vec3.h"
#include "common/mesh/mesh.h"
#include "common/util/simd.h"
#include "common/narrow/tri/tri_batch.h"
#include "common/util/error.h"
#include "common/util/rng.h"

/* Provided by bench/fcl_tri.cpp when bench/fcl.mk builds it: FCL's
 * triangle-triangle distance (fcl::TriangleDistance) of the n index pairs,
 * into dist. */
extern void mrdem_bench_fcl_distances(const float *a, const float *b, const uint32_t *pairs,
				      size_t n, float *dist) __attribute__((weak));
extern const char *mrdem_bench_fcl_version(void) __attribute__((weak));

static double cpu_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int runs = 5;

/* ---- triangle sets ------------------------------------------------------- */

struct soup {
	float *v;
	uint32_t n;
};

/* Float triangles of a mesh, rotated by q and moved by t (in double). */
static struct soup soup_from_mesh(const struct mrdem_mesh *m, const double q[4], const double t[3])
{
	struct soup s = {mrdem_xmalloc_array(9 * (size_t)m->ntris, sizeof(float)), m->ntris};
	double r[9], x[3];
	quat_to_matrix(q, r);
	for (uint32_t i = 0; i < m->ntris; i++)
		for (int c = 0; c < 3; c++) {
			mat3_apply(x, r, &m->verts[3 * m->tris[3 * i + c]]);
			vec3_add(x, x, t);
			for (int k = 0; k < 3; k++)
				s.v[9 * (size_t)i + 3 * c + k] = (float)x[k];
		}
	return s;
}

static void sphere(struct mrdem_mesh *m, uint32_t tris)
{
	struct mrdem_sphere_opts o;
	mrdem_sphere_opts_default(&o);
	o.triangles = tris;
	mrdem_mesh_init(m);
	if (mrdem_mesh_sphere(m, &o))
		mrdem_die("cannot make a %u-triangle sphere", tris);
}

/* Two spheres of `tris` triangles, radius 1, in the first one's frame: the
 * second turned by a fixed rotation and moved along x until the two
 * meshes' extreme vertices are `gap` apart (touching whatever the
 * tessellation). */
static void sphere_pair(uint32_t tris, double gap, struct soup *a, struct soup *b)
{
	struct mrdem_mesh m;
	sphere(&m, tris);
	double id[4] = {1, 0, 0, 0}, q[4], axis[3] = {0.3, -0.5, 0.81}, zero[3] = {0, 0, 0};
	vec3_normalize(axis);
	quat_from_axis_angle(q, axis, 0.7);
	*a = soup_from_mesh(&m, id, zero);
	*b = soup_from_mesh(&m, q, zero);
	float amax = -INFINITY, bmin = INFINITY;
	for (size_t k = 0; k < 3 * (size_t)a->n; k++) {
		amax = fmaxf(amax, a->v[3 * k]);
		bmin = fminf(bmin, b->v[3 * k]);
	}
	double t[3] = {amax - bmin + gap, 0.013, -0.021};
	for (size_t k = 0; k < 3 * (size_t)b->n; k++)
		for (int c = 0; c < 3; c++)
			b->v[3 * k + c] = (float)(b->v[3 * k + c] + t[c]);
	mrdem_mesh_release(&m);
}

/* ---- timing --------------------------------------------------------------- */

struct result {
	double ns;       /* per pair */
	double fallback; /* fraction of pairs */
	size_t contacts;
};

static struct result time_all_pairs(const struct soup *a, const struct soup *b, float eps,
				    const struct mrdem_narrow_opts *o, struct mrdem_tri_batch *w)
{
	struct mrdem_tri_set sa = {a->v, a->n, NULL, eps}, sb = {b->v, b->n, NULL, eps};
	struct mrdem_tri_hits hits;
	mrdem_tri_hits_init(&hits);
	double pairs = (double)a->n * b->n, best = 1e30;
	/* repeat small cases so that one measurement lasts about 20 ms */
	int inner = (int)(2e6 / pairs) + 1;
	struct result r = {0, 0, 0};
	for (int k = 0; k < runs; k++) {
		struct mrdem_narrow_counts cnt = {0};
		double t0 = cpu_now();
		for (int i = 0; i < inner; i++) {
			hits.n = 0;
			mrdem_tri_all_pairs(w, &sa, &sb, o, &hits, &cnt);
		}
		double t = (cpu_now() - t0) / inner;
		if (t < best)
			best = t;
		r.fallback = (double)cnt.fallbacks / cnt.comparisons;
		r.contacts = hits.n;
	}
	r.ns = best / pairs * 1e9;
	mrdem_tri_hits_release(&hits);
	return r;
}

static struct result time_pairs(const float *a, const float *b, const uint32_t *pairs, size_t n,
				float eps, const struct mrdem_narrow_opts *o,
				struct mrdem_tri_batch *w, struct mrdem_tri_result *out)
{
	struct mrdem_tri_set sa = {a, 0, NULL, eps}, sb = {b, 0, NULL, eps};
	double best = 1e30;
	struct result r = {0, 0, 0};
	for (int k = 0; k < runs; k++) {
		struct mrdem_narrow_counts cnt = {0};
		double t0 = cpu_now();
		mrdem_tri_pairs_test(w, &sa, &sb, pairs, n, o, out, &cnt);
		double t = cpu_now() - t0;
		if (t < best)
			best = t;
		r.fallback = (double)cnt.fallbacks / cnt.comparisons;
		r.contacts = 0;
		for (size_t i = 0; i < n; i++)
			r.contacts += out[i].status == MRDEM_TRI_CONTACT;
	}
	r.ns = best / n * 1e9;
	return r;
}

static double time_fcl(const float *a, const float *b, const uint32_t *pairs, size_t n,
		       float *dist)
{
	double best = 1e30;
	for (int k = 0; k < runs; k++) {
		double t0 = cpu_now();
		mrdem_bench_fcl_distances(a, b, pairs, n, dist);
		double t = cpu_now() - t0;
		if (t < best)
			best = t;
	}
	return best / n * 1e9;
}

static const int methods[3] = {MRDEM_NARROW_COMPARISON, MRDEM_NARROW_ITERATIVE,
			       MRDEM_NARROW_HYBRID};

static void opts_for(struct mrdem_narrow_opts *o, int method, int simd)
{
	mrdem_narrow_opts_default(o);
	o->method = method;
	o->simd = simd;
}

/* ---- cases ---------------------------------------------------------------- */

/* (a) Random triangles the size of a 1,280-sphere's (edges about 0.1),
 * the second one's centre up to 0.15 away: distances spread around the
 * cut-off 0.04, some crossing. Two sets of 4,096 triangles (two particles'
 * worth, cache resident) and n index pairs between them in random order,
 * as a tree traversal gathers them. */
static void random_pairs(size_t n, int best_level, int nlev, const int *levels)
{
	const size_t ntri = 4096;
	struct mrdem_rng r;
	mrdem_rng_seed(&r, 7);
	float *a = mrdem_xmalloc_array(9 * ntri, sizeof(float));
	float *b = mrdem_xmalloc_array(9 * ntri, sizeof(float));
	uint32_t *pairs = mrdem_xmalloc_array(2 * n, sizeof(uint32_t));
	for (size_t i = 0; i < ntri; i++) {
		double c[3], u[3];
		do
			for (int k = 0; k < 3; k++)
				u[k] = mrdem_rng_range(&r, -1, 1);
		while (vec3_norm2(u) > 1);
		vec3_scale(c, u, 0.15);
		for (int k = 0; k < 9; k++) {
			a[9 * i + k] = (float)mrdem_rng_range(&r, -0.06, 0.06);
			b[9 * i + k] = (float)(c[k % 3] + mrdem_rng_range(&r, -0.06, 0.06));
		}
	}
	for (size_t i = 0; i < n; i++)
		pairs[2 * i] = pairs[2 * i + 1] = (uint32_t)(mrdem_rng_u64(&r) % ntri);
	struct mrdem_tri_batch *w = mrdem_tri_batch_new();
	struct mrdem_tri_result *out = mrdem_xmalloc_array(n, sizeof *out);
	printf("(a) %zu random nearby pairs (edges ~0.1, halo 0.02 each), index-pair batches\n", n);
	double hybrid_ns = 0;
	for (int li = 0; li < nlev; li++) {
		printf("    %-8s", mrdem_simd_name(levels[li]));
		for (int m = 0; m < 3; m++) {
			struct mrdem_narrow_opts o;
			opts_for(&o, methods[m], levels[li]);
			struct result res = time_pairs(a, b, pairs, n, 0.02f, &o, w, out);
			printf("  %s %6.2f ns", mrdem_narrow_method_name(methods[m]), res.ns);
			if (methods[m] == MRDEM_NARROW_HYBRID) {
				printf(" (fallbacks %.2f%%, contacts %.1f%%)", 100 * res.fallback,
				       100.0 * res.contacts / n);
				if (levels[li] == best_level)
					hybrid_ns = res.ns;
			}
		}
		printf("\n");
	}
	if (mrdem_bench_fcl_distances) {
		float *dist = mrdem_xmalloc_array(n, sizeof(float));
		double ns = time_fcl(a, b, pairs, n, dist);
		printf("    FCL %s triDistance %.2f ns per pair: %.1fx the hybrid\n",
		       mrdem_bench_fcl_version ? mrdem_bench_fcl_version() : "", ns, ns / hybrid_ns);
		free(dist);
	}
	free(out);
	mrdem_tri_batch_free(w);
	free(a), free(b), free(pairs);
}

/* (b) and (c): all pairs of two spheres, halo 1% of the diameter each,
 * surfaces half a cut-off apart. */
static void sphere_case(uint32_t tris, int nlev, const int *levels, int fcl)
{
	const float eps = 0.02f;
	struct soup a, b;
	sphere_pair(tris, eps, &a, &b);
	struct mrdem_tri_batch *w = mrdem_tri_batch_new();
	double pairs = (double)a.n * b.n, hybrid_ns = 0;
	for (int li = 0; li < nlev; li++) {
		printf("    %5u x %-5u %-8s", a.n, b.n, mrdem_simd_name(levels[li]));
		for (int m = 0; m < 3; m++) {
			struct mrdem_narrow_opts o;
			opts_for(&o, methods[m], levels[li]);
			struct result r = time_all_pairs(&a, &b, eps, &o, w);
			printf("  %s %6.2f ns", mrdem_narrow_method_name(methods[m]), r.ns);
			if (methods[m] == MRDEM_NARROW_HYBRID) {
				printf(" (%.3g ms, fallbacks %.3f%%, contacts %zu)", r.ns * pairs * 1e-6,
				       100 * r.fallback, r.contacts);
				if (li == 0)
					hybrid_ns = r.ns;
			}
		}
		printf("\n");
	}
	if (fcl) {
		/* the paper's 4 sweeps against 2: fewer sweeps, a few more fallbacks */
		struct mrdem_narrow_opts o;
		opts_for(&o, MRDEM_NARROW_HYBRID, levels[0]);
		o.iterations = 2;
		struct result r = time_all_pairs(&a, &b, eps, &o, w);
		printf("    %5u x %-5u %-8s  hybrid with 2 iterations %6.2f ns (fallbacks %.3f%%)\n", a.n,
		       b.n, mrdem_simd_name(levels[0]), r.ns, 100 * r.fallback);
	}
	if (fcl && mrdem_bench_fcl_distances) {
		size_t n = (size_t)a.n * b.n;
		uint32_t *idx = mrdem_xmalloc_array(2 * n, sizeof(uint32_t));
		float *dist = mrdem_xmalloc_array(n, sizeof(float));
		for (size_t i = 0; i < n; i++)
			idx[2 * i] = (uint32_t)(i / b.n), idx[2 * i + 1] = (uint32_t)(i % b.n);
		double ns = time_fcl(a.v, b.v, idx, n, dist);
		printf("    FCL triDistance on the same pairs %.2f ns per pair: %.1fx the hybrid\n", ns,
		       ns / hybrid_ns);
		free(idx), free(dist);
	}
	mrdem_tri_batch_free(w);
	free(a.v), free(b.v);
}

int main(int argc, char **argv)
{
	mrdem_set_progname("bench_narrow");
	int quick = argc > 1 && !strcmp(argv[1], "--quick");
	if (argc > 1 && !quick) {
		fprintf(stderr, "usage: bench_narrow [--quick]\n");
		return 2;
	}
	if (quick)
		runs = 2;
	int best = mrdem_simd_resolve(MRDEM_SIMD_AUTO), levels[3], nlev = 0, all[3];
	levels[nlev++] = best;
	int nall = 0;
	for (int l = MRDEM_SIMD_AVX512; l >= MRDEM_SIMD_GENERIC; l--)
		if (mrdem_simd_resolve(l) == l)
			all[nall++] = l;
	printf("narrow-phase kernels, ns per triangle pair on one core (thread CPU time, best of %d)\n",
	       runs);
	printf("best SIMD level: %s; iterative and hybrid: 4 iterations, C = 1\n",
	       mrdem_simd_name(best));
	if (!mrdem_bench_fcl_distances)
		printf("FCL not linked in (install libfcl-dev; bench/fcl.mk builds it)\n");
	random_pairs(quick ? 1 << 16 : 1 << 19, best, nall, all);
	printf("(b) two touching 1,280-triangle icospheres, all pairs (flat search)\n");
	sphere_case(1280, nall, all, 1);
	printf("(c) paper Table 2 sizes (lat-long spheres), all pairs\n");
	static const uint32_t sizes[] = {12, 36, 140, 1224};
	for (int i = 0; i < 4; i++)
		sphere_case(sizes[i], nlev, levels, 0);
	return 0;
}
