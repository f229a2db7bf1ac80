/* The MR-linear cell list (seed 002): particles sorted by the integer
 * coordinates (z, y, x) of their cubic cell, packed into one 63-bit key,
 * kept between steps and repaired in O(N) when particles moved little
 * since the last step (temporal coherence). */
#ifndef MRDEM_BROAD_CELL_LIST_H
#define MRDEM_BROAD_CELL_LIST_H

#include <stddef.h>
#include <stdint.h>

#include "common/broad/broad_methods.h"

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

/* Test entry k of the list against the entries from q on whose key is at
 * most last, keeping the pairs whose spheres touch into out. For a
 * packing of a few entries per row of cells: MRDEM_CELL_LIST_PAD entries
 * at a time, each tested and kept by whether it is in range and touches,
 * so that neither the count of entries in range nor the hits cost a
 * mispredicted branch. Not for fixed particles (see test_run). */
static inline void mrdem_cell_list_test_window(const struct mrdem_cell_list *cl, size_t k, size_t q,
					       uint64_t last, struct mrdem_pair_keys *out,
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
		for (size_t e = q; e < q + MRDEM_CELL_LIST_PAD; e++) {
			uint64_t b = cl->idx[e], in = cl->key[e] <= last;
			out->key[n] = a < b ? a << 32 | b : b << 32 | a;
			n += in & (uint64_t)mrdem_spheres_touch(s, s[3], cl->sphere[e], cl->sphere[e][3]);
			ntests += in;
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
