/* The MR-linear cell list (Munjiza & Rougier): particles sorted by the integer
 * coordinates (z, y, x) of their cubic cell, packed into one 63-bit key,
 * kept between steps and repaired in O(N) when particles moved little
 * since the last step (temporal coherence). */
#ifndef MRDEM_BROAD_CELL_LIST_H
#define MRDEM_BROAD_CELL_LIST_H

#include <stddef.h>
#include <stdint.h>

#include "common/broad/broad_methods.h"
#include "common/util/simd.h"

/* 21 bits per axis; coordinates run from 1 to below 2^21 - 1, so the
 * neighbours x - 1 and x + 1 of every cell still pack without carry. */
#define MRDEM_CELL_BITS 21
#define MRDEM_CELL_KEY(x, y, z) \
	(((uint64_t)(z) << (2 * MRDEM_CELL_BITS)) | ((uint64_t)(y) << MRDEM_CELL_BITS) | (uint64_t)(x))

/* An entry of the list with its sphere: what the repair relocates. */
struct mrdem_cell_keyed {
	uint64_t key;
	uint32_t idx;
	double sphere[4];
};

/* Entries past the end that a search may read (see key). */
#define MRDEM_CELL_LIST_PAD 4

struct mrdem_cell_list {
	size_t n, cap;     /* members listed; capacity (key, idx and sphere
			    * hold MRDEM_CELL_LIST_PAD entries more) */
	/* cell key of each member, ascending; after the last member
	 * MRDEM_CELL_LIST_PAD entries of key UINT64_MAX, index 0, sphere 0 */
	uint64_t *key;
	uint32_t *idx;     /* particle index of each member */
	/* Centre and radius (x, y, z, r) of each member, copied in list
	 * order, so that the search reads neighbours from contiguous memory
	 * instead of from all over the particle arrays. */
	double (*sphere)[4];
	double h;          /* cell edge used by the last update, m */
	uint64_t shifts;   /* entries the last repair relocated */
	struct mrdem_cell_keyed *out; /* scratch of the repair */
	size_t out_cap;
	int rebuilt;       /* the last update sorted from scratch */
};

void mrdem_cell_list_release(struct mrdem_cell_list *cl);

/* Sort the particles i with level[i] >= min_level (of n) by cell, cells
 * of edge at least h. The previous order is kept and repaired when it
 * lists exactly these particles; otherwise, or when a large part of the
 * particles changed cell (a new frame, the cell edge changed), the list
 * is sorted from scratch. Ties (same cell) keep
 * the previous order, so the list may differ with history, never the set
 * of neighbours a search finds. The edge grows above h when the members
 * span more than 2^21 - 8 cells on an axis (still exact, only coarser). */
void mrdem_cell_list_update(struct mrdem_cell_list *cl, const double *pos, const double *radius,
			    size_t n, const uint8_t *level, uint8_t min_level, double h);

/* Bytes the list keeps per member. */
#define MRDEM_CELL_LIST_ENTRY_BYTES (sizeof(uint64_t) + sizeof(uint32_t) + 4 * sizeof(double))

/* First position in [from, cl->n) whose key is >= key (binary search). */
size_t mrdem_cell_list_lower_bound(const struct mrdem_cell_list *cl, size_t from, uint64_t key);

/* Number of distinct cells in the list. */
size_t mrdem_cell_list_cells(const struct mrdem_cell_list *cl);

/* The first position from q on whose key is not below bound: a few steps
 * without branches (the neighbour rows of a dense packing hold a few
 * entries, whose count a branch would mispredict), then a loop. The
 * sentinel key[n] ends it. */
static inline size_t mrdem_cell_list_skip_below(const struct mrdem_cell_list *cl, size_t q,
						uint64_t bound)
{
	q += cl->key[q] < bound;
	q += cl->key[q] < bound;
	while (cl->key[q] < bound)
		q++;
	return q;
}

/* Inlined always: the search instances compiled for a wider instruction
 * set (below) take the window with them. */
#define MRDEM_CELL_INLINE inline __attribute__((always_inline))

/* The searches have instances compiled for AVX2 and for AVX-512 (no FMA:
 * the sphere test must round as everywhere else), run where the CPU has
 * them. Their windows test four spheres as vectors; the AVX-512 one also
 * packs the pairs found in a register. */
#if MRDEM_SIMD_X86
#define MRDEM_CELL_WIDE 1
#define MRDEM_TARGET_CELL_AVX2 __attribute__((target("avx2")))
#define MRDEM_TARGET_CELL_AVX512 __attribute__((target("avx2,avx512f,avx512vl")))
#include <immintrin.h>
#else
#define MRDEM_CELL_WIDE 0
#endif

/* The search instance for the SIMD level simd (enum mrdem_simd:
 * AUTO, or a level to keep to): 0 portable, 1 AVX2, 2 AVX-512. */
int mrdem_cell_width(int simd);

/* Which entries of a window count besides those after entry k: with
 * before set, also those before it of a smaller size group, r scale <=
 * rmax (MMR, whose search looks at the whole 27-cell neighbourhood; a
 * pair within one group is found from its earlier entry). mr's rows and
 * MMR's last group: before 0, only entries after k. */
struct mrdem_window_group {
	int before;
	double scale, rmax;
};

typedef double mrdem_v4d __attribute__((vector_size(4 * sizeof(double)), aligned(8)));
typedef int64_t mrdem_v4i __attribute__((vector_size(4 * sizeof(int64_t)), aligned(8)));
typedef uint64_t mrdem_v4u __attribute__((vector_size(4 * sizeof(uint64_t)), aligned(8)));
#ifdef __clang__
#define MRDEM_SHUFFLE4(a, b, i, j, k, l) __builtin_shufflevector(a, b, i, j, k, l)
#else
#define MRDEM_SHUFFLE4(a, b, i, j, k, l) __builtin_shuffle(a, b, (mrdem_v4i){i, j, k, l})
#endif
_Static_assert(MRDEM_CELL_LIST_PAD == 4, "the vector window tests four entries");

/* The four entries from q as one vector each, transposed into vectors of
 * x, y, z and r, tested against sphere s with the operations of
 * mrdem_spheres_touch in its order (so bitwise the same verdicts):
 * *take -1 in the lanes where the spheres touch and the entry counts (in
 * the row up to last, after k or of a smaller group), *in in the lanes
 * that count. */
static MRDEM_CELL_INLINE void mrdem_cell_window_vector(const struct mrdem_cell_list *cl, size_t k,
						     size_t q, uint64_t last,
						     struct mrdem_window_group g, const double *s,
						     mrdem_v4i *take, mrdem_v4i *in)
{
	const mrdem_v4d *c = (const mrdem_v4d *)cl->sphere[q];
	mrdem_v4d t0 = MRDEM_SHUFFLE4(c[0], c[1], 0, 4, 2, 6); /* x0 x1 z0 z1 */
	mrdem_v4d t1 = MRDEM_SHUFFLE4(c[0], c[1], 1, 5, 3, 7); /* y0 y1 r0 r1 */
	mrdem_v4d t2 = MRDEM_SHUFFLE4(c[2], c[3], 0, 4, 2, 6);
	mrdem_v4d t3 = MRDEM_SHUFFLE4(c[2], c[3], 1, 5, 3, 7);
	mrdem_v4d x = MRDEM_SHUFFLE4(t0, t2, 0, 1, 4, 5);
	mrdem_v4d z = MRDEM_SHUFFLE4(t0, t2, 2, 3, 6, 7);
	mrdem_v4d y = MRDEM_SHUFFLE4(t1, t3, 0, 1, 4, 5);
	mrdem_v4d r = MRDEM_SHUFFLE4(t1, t3, 2, 3, 6, 7);
	mrdem_v4d dx = s[0] - x, dy = s[1] - y, dz = s[2] - z, rr = s[3] + r;
	mrdem_v4i touch = dx * dx + dy * dy + dz * dz <= rr * rr;
	mrdem_v4u key = *(const mrdem_v4u *)&cl->key[q];
	mrdem_v4i e = (mrdem_v4i){0, 1, 2, 3} + (int64_t)q;
	mrdem_v4i counts = e > (int64_t)k;
	if (g.before)
		counts |= (e < (int64_t)k) & (r * g.scale <= g.rmax);
	*in = (key <= last) & counts;
	*take = *in & touch;
}

#if MRDEM_CELL_WIDE
/* The pairs of particle a with the four entries idx[0..3] whose bit is
 * set in hits, packed to the front of w (room for four keys): compressed
 * in a register and stored whole, as a compressing store to memory is
 * microcoded on some CPUs. Returns their count. */
MRDEM_TARGET_CELL_AVX512 static inline size_t mrdem_cell_store_pairs(const uint32_t *idx, uint64_t a,
								    unsigned hits, uint64_t *w)
{
	__m256i b = _mm256_cvtepu32_epi64(_mm_loadu_si128((const __m128i *)idx));
	__m256i av = _mm256_set1_epi64x((long long)a);
	__m256i key = _mm256_or_si256(_mm256_slli_epi64(_mm256_min_epu64(av, b), 32),
				      _mm256_max_epu64(av, b));
	_mm256_storeu_si256((__m256i *)w, _mm256_maskz_compress_epi64((__mmask8)hits, key));
	return (size_t)__builtin_popcount(hits);
}
#endif

/* Test entry k of the list against the entries from q on whose key is at
 * most last and that count for the group g, keeping the pairs whose
 * spheres touch into out. For a packing of a few entries per row of
 * cells: MRDEM_CELL_LIST_PAD entries at a time, each tested and kept by
 * whether it counts and touches, so that neither the count of entries
 * in range nor the hits cost a mispredicted branch. wide (a constant
 * where it is inlined, mrdem_cell_width): 0 one by one; 1 (in instances
 * compiled for AVX2) the four tested as vectors; 2 (AVX-512) also the
 * pairs packed in a register. Not for fixed particles (see test_run). */
static MRDEM_CELL_INLINE void mrdem_cell_list_test_window(const struct mrdem_cell_list *cl,
							   size_t k, size_t q, uint64_t last,
							   struct mrdem_window_group g, int wide,
							   struct mrdem_pair_keys *out,
							   uint64_t *tests)
{
	uint64_t a = cl->idx[k];
	const double *s = cl->sphere[k];
	size_t n = out->n;
	uint64_t ntests = 0;
	for (;; q += MRDEM_CELL_LIST_PAD) {
		if (n + MRDEM_CELL_LIST_PAD > out->cap) {
			out->n = n;
			mrdem_pair_keys_reserve(out, MRDEM_CELL_LIST_PAD);
		}
		if (wide) {
			mrdem_v4i take, in;
			mrdem_cell_window_vector(cl, k, q, last, g, s, &take, &in);
			/* lanes as bits in a register: reading them back one by
			 * one from the vector stalls each store of a pair */
			const mrdem_v4i bit = {1, 2, 4, 8};
			take &= bit;
			in &= bit;
			uint64_t hits = (uint64_t)(take[0] | take[1] | take[2] | take[3]);
			ntests += (uint64_t)__builtin_popcountll(
				(uint64_t)(in[0] | in[1] | in[2] | in[3]));
#if MRDEM_CELL_WIDE
			if (wide == 2)
				n += mrdem_cell_store_pairs(&cl->idx[q], a, (unsigned)hits,
							    &out->key[n]);
			else
#endif
				for (int j = 0; j < MRDEM_CELL_LIST_PAD; j++) {
					uint64_t b = cl->idx[q + j];
					out->key[n] = a < b ? a << 32 | b : b << 32 | a;
					n += hits >> j & 1;
				}
		} else {
			for (size_t e = q; e < q + MRDEM_CELL_LIST_PAD; e++) {
				uint64_t b = cl->idx[e];
				uint64_t counts = e > k;
				if (g.before)
					counts |= (e < k) & (cl->sphere[e][3] * g.scale <= g.rmax);
				uint64_t in = (cl->key[e] <= last) & counts;
				out->key[n] = a < b ? a << 32 | b : b << 32 | a;
				n += in & (uint64_t)mrdem_spheres_touch(s, s[3], cl->sphere[e],
									cl->sphere[e][3]);
				ntests += in;
			}
		}
		if (cl->key[q + MRDEM_CELL_LIST_PAD - 1] > last)
			break;
	}
	out->n = n;
	*tests += ntests;
}

/* Test entry k of the list against entries [q, end) and keep the pairs
 * whose spheres touch: spheres read in list order, every candidate's key
 * written at w and kept by whether it touches (no branch per pair), pairs
 * of two fixed particles skipped (fixed: entry k's particle is fixed).
 * Room for end - q keys at w is the caller's (none when end <= q).
 * Returns the new end of the keys; *tests counts the spheres tested. */
static inline uint64_t *mrdem_cell_list_test_run(const struct mrdem_cell_list *cl, size_t k,
						 size_t q, size_t end, const uint32_t *flags,
						 int fixed, uint64_t *w, uint64_t *tests)
{
	if (q >= end)
		return w;
	uint64_t a = cl->idx[k];
	const double *s = cl->sphere[k];
	size_t skipped = 0;
	for (size_t e = q; e < end; e++) {
		uint64_t b = cl->idx[e];
		if (fixed && (flags[b] & MRDEM_PARTICLE_FIXED)) {
			skipped++;
			continue;
		}
		*w = a < b ? a << 32 | b : b << 32 | a;
		w += mrdem_spheres_touch(s, s[3], cl->sphere[e], cl->sphere[e][3]);
	}
	*tests += end - q - skipped;
	return w;
}

#endif
