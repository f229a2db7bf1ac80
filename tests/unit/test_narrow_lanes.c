/* A pair's result must not depend on the block, lane or group it landed
 * in (common/narrow/tri/tri_block.h): every pair of 128 random ones, run in
 * blocks of 1 to 128 pairs at many offsets (so at every lane, in whole
 * groups and in padded last groups), must give the same status, squared
 * distance and points, bit for bit, as in a block of whole groups, for the
 * comparison kernel and the iterative one (fused sweeps and, past 8
 * sweeps, staged ones), at every SIMD level of this CPU. */
#include <stdlib.h>
#include <string.h>

#include "common/narrow/tri/tri_block.h"
#include "common/util/rng.h"
#include "common/util/simd.h"
#include "tests/lib/tap.h"

#define PAIRS MRDEM_TRI_BLOCK

/* Near, crossing and far pairs, some slivers and degenerate ones, cut-offs
 * around their distances: every status, clamp and fallback-prone case. */
static void random_pairs(struct mrdem_rng *r, float a[PAIRS][9], float b[PAIRS][9],
			 float cut[PAIRS])
{
	for (int i = 0; i < PAIRS; i++) {
		double off[3], scale = i % 7 == 0 ? 0.02 : 1.0;
		for (int c = 0; c < 3; c++)
			off[c] = mrdem_rng_range(r, -0.3, 0.3) * (i % 3 + 1);
		for (int v = 0; v < 3; v++)
			for (int c = 0; c < 3; c++) {
				a[i][3 * v + c] = (float)(mrdem_rng_range(r, -1, 1) * (v == 2 ? scale : 1));
				b[i][3 * v + c] = (float)(mrdem_rng_range(r, -1, 1) + off[c]);
			}
		if (i % 11 == 0) /* a degenerate b: two equal vertices */
			memcpy(&b[i][3], &b[i][0], 3 * sizeof(float));
		cut[i] = (float)mrdem_rng_range(r, 0.001, 0.6);
	}
}

enum kernel { COMPARE, PENALTY };

static void run(struct mrdem_tri_block *k, enum kernel kind, int iterations, int simd)
{
	if (kind == COMPARE)
		mrdem_tri_block_compare(k, simd);
	else
		mrdem_tri_block_penalty(k, iterations, 1.0f, simd);
}

static int same_lane(const struct mrdem_tri_block *x, int i, const struct mrdem_tri_block *y, int j)
{
	if (x->status[i] != y->status[j] || memcmp(&x->d2[i], &y->d2[j], sizeof(float)))
		return 0;
	for (int c = 0; c < 3; c++)
		if (memcmp(&x->pa[c][i], &y->pa[c][j], sizeof(float)) ||
		    memcmp(&x->pb[c][i], &y->pb[c][j], sizeof(float)))
			return 0;
	return 1;
}

/* Blocks of n = 1 .. 128 pairs from `first` on (wrapping around) against
 * the whole-group run ref. Returns the mismatches. */
static int check_widths(const struct mrdem_tri_block *ref, float a[PAIRS][9], float b[PAIRS][9],
			const float cut[PAIRS], enum kernel kind, int iterations, int simd)
{
	static struct mrdem_tri_block k;
	int bad = 0;
	for (int n = 1; n <= PAIRS; n++)
		for (int first = 0; first < PAIRS; first += n % 5 + 3) {
			k.n = n;
			for (int l = 0; l < n; l++) {
				int p = (first + l) % PAIRS;
				mrdem_tri_block_set(&k, l, a[p], b[p], cut[p]);
			}
			run(&k, kind, iterations, simd);
			for (int l = 0; l < n; l++) {
				int p = (first + l) % PAIRS;
				if (!same_lane(&k, l, ref, p) && bad++ < 3)
					tap_diag("%d pairs from %d: pair %d differs in lane %d", n, first,
						 p, l);
			}
		}
	return bad;
}

int main(void)
{
	static float a[PAIRS][9], b[PAIRS][9], cut[PAIRS];
	static struct mrdem_tri_block ref;
	struct mrdem_rng r;
	mrdem_rng_seed(&r, 20261123);
	random_pairs(&r, a, b, cut);
	static const int levels[] = {MRDEM_SIMD_GENERIC, MRDEM_SIMD_AVX2, MRDEM_SIMD_AVX512};
	static const int sweeps[] = {1, 4, 9};
	for (size_t s = 0; s < sizeof levels / sizeof levels[0]; s++) {
		int simd = levels[s];
		if (mrdem_simd_resolve(simd) != simd) {
			tap_ok(1, "# SKIP %s not available on this CPU", mrdem_simd_name(simd));
			continue;
		}
		for (int kind = COMPARE; kind <= PENALTY; kind++)
			for (size_t i = 0; i < (kind == COMPARE ? 1 : sizeof sweeps / sizeof sweeps[0]); i++) {
				ref.n = PAIRS; /* whole groups only */
				for (int p = 0; p < PAIRS; p++)
					mrdem_tri_block_set(&ref, p, a[p], b[p], cut[p]);
				run(&ref, (enum kernel)kind, sweeps[i], simd);
				int counts[3] = {0, 0, 0};
				for (int p = 0; p < PAIRS; p++)
					counts[ref.status[p]]++;
				int bad = check_widths(&ref, a, b, cut, (enum kernel)kind, sweeps[i], simd);
				char name[64];
				if (kind == COMPARE)
					snprintf(name, sizeof name, "comparison");
				else
					snprintf(name, sizeof name, "iterative, %d sweeps", sweeps[i]);
				tap_ok(bad == 0,
				       "%s, %s: the same bits in blocks of 1 to %d pairs at every lane "
				       "(%d mismatches; separate %d, contact %d, undecided %d)",
				       mrdem_simd_name(simd), name, PAIRS, bad, counts[0], counts[1],
				       counts[2]);
			}
	}
	return tap_done();
}
