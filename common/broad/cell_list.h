/* The MR-linear cell list (seed 002): particles sorted by the integer
 * coordinates (z, y, x) of their cubic cell, packed into one 63-bit key,
 * kept between steps and repaired in O(N) when particles moved little
 * since the last step (temporal coherence). */
#ifndef MRDEM_BROAD_CELL_LIST_H
#define MRDEM_BROAD_CELL_LIST_H

#include <stddef.h>
#include <stdint.h>

/* 21 bits per axis; coordinates run from 1 to below 2^21 - 1, so the
 * neighbours x - 1 and x + 1 of every cell still pack without carry. */
#define MRDEM_CELL_BITS 21
#define MRDEM_CELL_KEY(x, y, z) \
	(((uint64_t)(z) << (2 * MRDEM_CELL_BITS)) | ((uint64_t)(y) << MRDEM_CELL_BITS) | (uint64_t)(x))

struct mrdem_cell_keyed {
	uint64_t key;
	uint32_t idx;
};

struct mrdem_cell_list {
	size_t n, cap;     /* members listed; capacity of key and idx */
	uint64_t *key;     /* cell key of each member, ascending */
	uint32_t *idx;     /* particle index of each member */
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
void mrdem_cell_list_update(struct mrdem_cell_list *cl, const double *pos, size_t n,
			    const uint8_t *level, uint8_t min_level, double h);

/* First position in [from, cl->n) whose key is >= key (binary search). */
size_t mrdem_cell_list_lower_bound(const struct mrdem_cell_list *cl, size_t from, uint64_t key);

/* Number of distinct cells in the list. */
size_t mrdem_cell_list_cells(const struct mrdem_cell_list *cl);

#endif
