/* Inside the triangle batch (tri_batch.h): shared by tri_batch.c and
 * its AVX-512 leaf stream (tri_stream_avx512.c), private to them. */
#ifndef MRDEM_NARROW_TRI_BATCH_PRIVATE_H
#define MRDEM_NARROW_TRI_BATCH_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "common/narrow/tri/tri_batch.h"
#include "common/util/simd.h"

#if MRDEM_SIMD_X86
/* AVX-512 code that moves lanes around (not the kernels' arithmetic) */
#define MRDEM_TARGET_STREAM __attribute__((target("avx512f,avx512vl,avx2,fma,popcnt")))
#endif

/* Where results go: per pair (mrdem_tri_pairs_test), contacts only
 * (mrdem_tri_all_pairs, _pairs_hits, the leaf stream) or statuses only. */
struct sink {
	struct mrdem_tri_result *out;
	struct mrdem_tri_hits *hits;
	int32_t *status; /* statuses only (mrdem_tri_pairs_status) */
};

struct mrdem_tri_batch {
	struct mrdem_tri_block blk;   /* the block being tested */
	/* pairs awaiting the comparison kernel: a hybrid's undecided pairs
	 * (fallbacks, spill_fallbacks of them) and, with exact_contacts, the
	 * other kernels' contacts */
	struct mrdem_tri_block spill;
	int spill_fallbacks;
	/* where each lane's result goes: triangle indices and the pair's
	 * position in the caller's list */
	uint32_t ta[MRDEM_TRI_BLOCK], tb[MRDEM_TRI_BLOCK];
	size_t base; /* index-pair batches: position of lane 0 in the list */
	uint32_t spill_ta[MRDEM_TRI_BLOCK], spill_tb[MRDEM_TRI_BLOCK];
	size_t spill_idx[MRDEM_TRI_BLOCK];
	/* the second set of the flat search transposed to SoA: 9 coordinate
	 * columns and the halos, `bcap` triangles each */
	float *bsoa;
	size_t bcap;
	/* flat search: second set size and the pair number of lane 0
	 * (nb = 0 for index-pair batches) */
	uint64_t first;
	uint32_t nb;
	/* leaf-pair stream: its sink, cut-off, path, start time, and the
	 * lanes of b's chunks each leaf pair keeps */
	struct sink stream;
	float stream_cut;
	int avx512; /* the resolved path of the call is AVX-512 */
	double stream_t0;
	uint32_t *keep;
	size_t keep_cap;
};

/* The leaf stream's block is full: through the kernels. */
void mrdem_tri_stream_block(struct mrdem_tri_batch *w, const struct mrdem_narrow_opts *o,
			    struct mrdem_narrow_counts *cnt);

/* mrdem_tri_stream_leaves with AVX-512 (w->keep has room for b's
 * chunks). */
uint64_t mrdem_tri_leaves_avx512(struct mrdem_tri_batch *w, const struct mrdem_tri_leaf *a,
				 const struct mrdem_tri_leaf *b, float reach,
				 const struct mrdem_narrow_opts *o, struct mrdem_narrow_counts *cnt);

#endif
