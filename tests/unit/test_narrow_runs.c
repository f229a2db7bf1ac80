/* Grouped node pairs of a tree search's rounds (mrdem_tri_runs_status in
 * common/narrow/tri_batch.h) against the index pairs they stand for,
 * written out one by one through mrdem_tri_pairs_status: the same
 * statuses and counters bit for bit. Random clusters of triangles with
 * per-triangle halos; groups of 1 to 16 nodes of either side against a
 * fixed node of the other, sparse and full masks, enough of them that
 * groups straddle blocks; every method as the surrogate levels run it
 * (no fallback) and with fallback, at every SIMD level the CPU has. */
#include <stdlib.h>
#include <string.h>

#include "common/narrow/simd.h"
#include "common/narrow/tri_batch.h"
#include "common/util/rng.h"
#include "tests/lib/tap.h"

#define NODES 200
#define RUNS 60

/* n triangles near the origin (so that many pairs come close), halos. */
static void make_set(struct mrdem_rng *r, float *v, float *eps, uint32_t n)
{
	for (uint32_t t = 0; t < n; t++) {
		double m[3];
		for (int k = 0; k < 3; k++)
			m[k] = mrdem_rng_range(r, -0.5, 0.5);
		for (int i = 0; i < 9; i++)
			v[9 * (size_t)t + i] = (float)(m[i % 3] + mrdem_rng_range(r, -0.2, 0.2));
		eps[t] = (float)mrdem_rng_range(r, 0.001, 0.1);
	}
}

/* Columns of n triangles: coordinate c of triangle i at cols[c * n + i]. */
static void make_cols(const float *v, uint32_t n, float *cols)
{
	for (uint32_t i = 0; i < n; i++)
		for (int c = 0; c < 9; c++)
			cols[c * (size_t)n + i] = v[9 * (size_t)i + c];
}

static int same_counts(const struct mrdem_narrow_counts *a, const struct mrdem_narrow_counts *b)
{
	return a->comparisons == b->comparisons && a->iterative == b->iterative &&
	       a->fallbacks == b->fallbacks && a->unconverged == b->unconverged &&
	       a->intersecting == b->intersecting && a->undecided == b->undecided;
}

int main(void)
{
	struct mrdem_rng r;
	mrdem_rng_seed(&r, 20261123);
	float *va = malloc(9 * NODES * sizeof *va), *vb = malloc(9 * NODES * sizeof *vb);
	float *ca = malloc(9 * NODES * sizeof *ca), *cb = malloc(9 * NODES * sizeof *cb);
	float *ea = malloc(NODES * sizeof *ea), *eb = malloc(NODES * sizeof *eb);
	uint32_t *pairs = malloc(2 * RUNS * 16 * sizeof *pairs);
	int32_t *want = malloc(RUNS * 16 * sizeof *want), *got = malloc(RUNS * 16 * sizeof *got);
	struct mrdem_tri_run runs[RUNS];
	struct mrdem_tri_batch *w = mrdem_tri_batch_new();
	int levels[3] = {MRDEM_SIMD_GENERIC, MRDEM_SIMD_AVX2, MRDEM_SIMD_AVX512}, nlevels = 0;
	for (int k = 0; k < 3; k++)
		if (mrdem_simd_resolve(levels[k]) == levels[k])
			levels[nlevels++] = levels[k];
	const struct {
		int method, fallback;
	} modes[] = {{MRDEM_NARROW_HYBRID, 0}, {MRDEM_NARROW_COMPARISON, 0},
		     {MRDEM_NARROW_HYBRID, 1}, {MRDEM_NARROW_ITERATIVE, 1}};
	for (int lv = 0; lv < nlevels; lv++)
		for (size_t md = 0; md < sizeof modes / sizeof modes[0]; md++) {
			struct mrdem_narrow_opts o;
			mrdem_narrow_opts_default(&o);
			o.simd = levels[lv];
			o.method = modes[md].method;
			o.fallback = modes[md].fallback;
			uint64_t bad_status = 0, bad_counts = 0, pairs_all = 0, contacts = 0,
				 separate = 0;
			for (int trial = 0; trial < 100; trial++) {
				make_set(&r, va, ea, NODES);
				make_set(&r, vb, eb, NODES);
				make_cols(va, NODES, ca);
				make_cols(vb, NODES, cb);
				/* uniform halos on one side now and then */
				int uniform = trial % 4 == 3;
				struct mrdem_tri_set A = {va, NODES, ea, 0};
				struct mrdem_tri_set B = {vb, NODES, uniform ? NULL : eb, 0.03f};
				size_t np = 0;
				for (int i = 0; i < RUNS; i++) {
					uint32_t count = 1 + (uint32_t)(mrdem_rng_u64(&r) % 16);
					uint32_t first = (uint32_t)(mrdem_rng_u64(&r) % (NODES - count + 1));
					uint32_t mask = (uint32_t)mrdem_rng_u64(&r) & ((1u << count) - 1);
					if (mrdem_rng_u64(&r) % 3 == 0)
						mask = (1u << count) - 1;
					if (!mask)
						mask = 1;
					uint32_t side = (uint32_t)(mrdem_rng_u64(&r) & 1);
					uint32_t fixed = (uint32_t)(mrdem_rng_u64(&r) % NODES);
					runs[i] = (struct mrdem_tri_run){fixed, first, mask, side};
					for (uint32_t m = mask; m; m &= m - 1) {
						uint32_t g = first + (uint32_t)__builtin_ctz(m);
						pairs[2 * np] = side ? fixed : g;
						pairs[2 * np + 1] = side ? g : fixed;
						np++;
					}
				}
				struct mrdem_narrow_counts cw = {0}, cg = {0};
				mrdem_tri_pairs_status(w, &A, &B, pairs, np, &o, want, &cw);
				const struct mrdem_tri_cols cols[2] = {{ca, NODES}, {cb, NODES}};
				mrdem_tri_runs_status(w, &A, &B, cols, runs, RUNS, &o, got, &cg);
				bad_status += memcmp(want, got, np * sizeof *want) != 0;
				bad_counts += !same_counts(&cw, &cg);
				pairs_all += np;
				for (size_t k = 0; k < np; k++) {
					contacts += want[k] == MRDEM_TRI_CONTACT;
					separate += want[k] == MRDEM_TRI_SEPARATE;
				}
			}
			const char *name = mrdem_simd_name(levels[lv]);
			const char *method = mrdem_narrow_method_name(o.method);
			tap_diag("%s %s fallback %d: %llu pairs, %llu contact, %llu separate", name,
				 method, o.fallback, (unsigned long long)pairs_all,
				 (unsigned long long)contacts, (unsigned long long)separate);
			tap_ok(contacts > 500 && separate > 1000,
			       "%s %s fallback %d: the poses have contacts and separate pairs", name,
			       method, o.fallback);
			tap_eq_int(bad_status, 0, "%s %s fallback %d: the runs' statuses are the index "
				   "pairs' bit for bit", name, method, o.fallback);
			tap_eq_int(bad_counts, 0, "%s %s fallback %d: the same counters", name, method,
				   o.fallback);
		}
	mrdem_tri_batch_free(w);
	free(va);
	free(vb);
	free(ca);
	free(cb);
	free(ea);
	free(eb);
	free(pairs);
	free(want);
	free(got);
	return tap_done();
}
