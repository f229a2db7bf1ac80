/* MR-linear sort (seed 002): the cell list and its O(N) repair. */
#include "common/broad/cell_list.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"

/* Repairing costs at most this many moves per member (plus a constant)
 * before a sort from scratch takes over: a few particles may jump far,
 * but a list scrambled by a new frame is not insertion-sorted in O(N^2). */
#define REPAIR_MOVES_PER_MEMBER 8

void mrdem_cell_list_release(struct mrdem_cell_list *cl)
{
	free(cl->key);
	free(cl->idx);
	memset(cl, 0, sizeof *cl);
}

struct keyed {
	uint64_t key;
	uint32_t idx;
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

static void sort_from_scratch(struct mrdem_cell_list *cl)
{
	struct keyed *t = mrdem_xmalloc_array(cl->n ? cl->n : 1, sizeof *t);
	for (size_t k = 0; k < cl->n; k++)
		t[k] = (struct keyed){cl->key[k], cl->idx[k]};
	qsort(t, cl->n, sizeof *t, cmp_keyed);
	for (size_t k = 0; k < cl->n; k++)
		cl->key[k] = t[k].key, cl->idx[k] = t[k].idx;
	free(t);
	cl->rebuilt = 1;
}

/* Insertion sort of the nearly sorted list; 0, or -1 when it would move
 * more than budget entries (the list is then valid but unsorted). */
static int repair(struct mrdem_cell_list *cl, uint64_t budget)
{
	uint64_t moves = 0;
	for (size_t k = 1; k < cl->n; k++) {
		uint64_t key = cl->key[k];
		if (key >= cl->key[k - 1])
			continue;
		uint32_t idx = cl->idx[k];
		size_t j = k;
		do {
			cl->key[j] = cl->key[j - 1];
			cl->idx[j] = cl->idx[j - 1];
			j--;
		} while (j > 0 && key < cl->key[j - 1]);
		cl->key[j] = key;
		cl->idx[j] = idx;
		moves += k - j;
		if (moves > budget) {
			cl->shifts = moves;
			return -1;
		}
	}
	cl->shifts = moves;
	return 0;
}

/* Does the list hold exactly the members? Its entries are distinct (a
 * permutation kept from the last update), so it does when every entry is
 * a member and the counts agree. */
static int lists_members(const struct mrdem_cell_list *cl, size_t n, const uint8_t *level,
			 uint8_t min_level, size_t members)
{
	if (cl->n != members)
		return 0;
	for (size_t k = 0; k < cl->n; k++)
		if (cl->idx[k] >= n || level[cl->idx[k]] < min_level)
			return 0;
	return 1;
}

void mrdem_cell_list_update(struct mrdem_cell_list *cl, const double *pos, size_t n,
			    const uint8_t *level, uint8_t min_level, double h)
{
	size_t members = 0;
	double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	for (size_t i = 0; i < n; i++) {
		if (level[i] < min_level)
			continue;
		members++;
		for (int a = 0; a < 3; a++) {
			lo[a] = fmin(lo[a], pos[3 * i + a]);
			hi[a] = fmax(hi[a], pos[3 * i + a]);
		}
	}
	const double max_cells = (double)((1u << MRDEM_CELL_BITS) - 8);
	for (int a = 0; a < 3 && members; a++)
		if ((hi[a] - lo[a]) / h > max_cells)
			h = (hi[a] - lo[a]) / max_cells * (1 + 1e-9);
	cl->h = h;
	cl->shifts = 0;
	cl->rebuilt = 0;

	int keep = lists_members(cl, n, level, min_level, members);
	if (!keep) {
		if (members > cl->cap) {
			cl->key = mrdem_xrealloc(cl->key, members * sizeof *cl->key);
			cl->idx = mrdem_xrealloc(cl->idx, members * sizeof *cl->idx);
			cl->cap = members;
		}
		cl->n = 0;
		for (size_t i = 0; i < n; i++)
			if (level[i] >= min_level)
				cl->idx[cl->n++] = (uint32_t)i;
	}
	/* Coordinates from 1: the base is one cell below the lowest. */
	int64_t base[3];
	for (int a = 0; a < 3; a++)
		base[a] = members ? (int64_t)floor(lo[a] / h) - 1 : 0;
	for (size_t k = 0; k < cl->n; k++) {
		const double *x = &pos[3 * (size_t)cl->idx[k]];
		uint64_t c[3];
		for (int a = 0; a < 3; a++)
			c[a] = (uint64_t)((int64_t)floor(x[a] / h) - base[a]);
		cl->key[k] = MRDEM_CELL_KEY(c[0], c[1], c[2]);
	}
	if (!keep || repair(cl, REPAIR_MOVES_PER_MEMBER * (uint64_t)cl->n + 1024))
		sort_from_scratch(cl);
}

size_t mrdem_cell_list_lower_bound(const struct mrdem_cell_list *cl, size_t from, uint64_t key)
{
	size_t lo = from, hi = cl->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cl->key[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t mrdem_cell_list_cells(const struct mrdem_cell_list *cl)
{
	size_t cells = 0;
	for (size_t k = 0; k < cl->n; k++)
		cells += k == 0 || cl->key[k] != cl->key[k - 1];
	return cells;
}
