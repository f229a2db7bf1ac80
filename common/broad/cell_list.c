/* MR-linear sort (Munjiza & Rougier): the cell list and its O(N) repair. */
#include "common/broad/cell_list.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/broad/broad.h"
#include "common/util/error.h"

/* Repairing stops and a sort from scratch takes over when more than
 * 1/REPAIR_MAX_OUT of the entries are out of place or the list needs more
 * than REPAIR_MAX_PASSES passes: a list scrambled by a new frame. */
#define REPAIR_MAX_OUT 4
#define REPAIR_MAX_PASSES 8

/* How many entries ahead the keys pass prefetches its particles. */
#define KEYS_PREFETCH 16

void mrdem_cell_list_release(struct mrdem_cell_list *cl)
{
	free(cl->key);
	free(cl->idx);
	free(cl->sphere);
	free(cl->out);
	memset(cl, 0, sizeof *cl);
}

static int cmp_keyed(const void *a, const void *b)
{
	const struct mrdem_cell_keyed *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

struct key_idx {
	uint64_t key;
	uint32_t idx;
};

static int cmp_key_idx(const void *a, const void *b)
{
	const struct key_idx *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

static void put(struct mrdem_cell_list *cl, size_t k, const struct mrdem_cell_keyed *e)
{
	cl->key[k] = e->key;
	cl->idx[k] = e->idx;
	memcpy(cl->sphere[k], e->sphere, sizeof e->sphere);
}

static struct mrdem_cell_keyed get(const struct mrdem_cell_list *cl, size_t k)
{
	struct mrdem_cell_keyed e = {cl->key[k], cl->idx[k], {0}};
	memcpy(e.sphere, cl->sphere[k], sizeof e.sphere);
	return e;
}

/* Sort keys and indices (the spheres would triple what qsort moves), then
 * copy the spheres in the new order. */
static void sort_from_scratch(struct mrdem_cell_list *cl, const double *pos, const double *radius)
{
	struct key_idx *t = mrdem_xmalloc_array(cl->n ? cl->n : 1, sizeof *t);
	for (size_t k = 0; k < cl->n; k++)
		t[k] = (struct key_idx){cl->key[k], cl->idx[k]};
	qsort(t, cl->n, sizeof *t, cmp_key_idx);
	for (size_t k = 0; k < cl->n; k++) {
		size_t i = t[k].idx;
		cl->key[k] = t[k].key;
		cl->idx[k] = t[k].idx;
		memcpy(cl->sphere[k], &pos[3 * i], 3 * sizeof *pos);
		cl->sphere[k][3] = radius[i];
	}
	free(t);
	cl->rebuilt = 1;
}

/* MR-linear sort (Munjiza & Rougier, Sec. 4) relocates each entry that moved to
 * another cell straight into its place, using pointers to the cells
 * around its old one. The same in arrays, O(N + k log k) for k entries
 * that changed cell: passes that take out every entry out of order with
 * a neighbour, until the rest is sorted; the k taken out are sorted and
 * merged back. Returns 0, or -1 when the list is too scrambled for this
 * (it then holds every entry, unsorted). */
static int repair(struct mrdem_cell_list *cl, struct mrdem_cell_keyed **out, size_t *out_cap)
{
	size_t nout = 0, total = cl->n;
	for (int pass = 0;; pass++) {
		size_t m = cl->n, kept = 0, before = nout;
		uint64_t prev = 0;
		for (size_t k = 0; k < m; k++) {
			uint64_t key = cl->key[k];
			int misplaced = (k > 0 && key < prev) || (k + 1 < m && key > cl->key[k + 1]);
			prev = key;
			if (!misplaced) {
				if (kept < k) {
					cl->key[kept] = key;
					cl->idx[kept] = cl->idx[k];
					memcpy(cl->sphere[kept], cl->sphere[k], sizeof cl->sphere[k]);
				}
				kept++;
				continue;
			}
			if (nout == *out_cap) {
				*out_cap = *out_cap ? 2 * *out_cap : 256;
				*out = mrdem_xrealloc(*out, *out_cap * sizeof **out);
			}
			(*out)[nout++] = get(cl, k);
		}
		cl->n = kept;
		if (nout == before)
			break;
		if (nout > total / REPAIR_MAX_OUT + 64 || pass == REPAIR_MAX_PASSES) {
			for (size_t k = 0; k < nout; k++)
				put(cl, cl->n++, &(*out)[k]);
			return -1;
		}
	}
	cl->shifts = nout;
	if (nout)
		qsort(*out, nout, sizeof **out, cmp_keyed);
	/* Merge from the back: kept entries [0, cl->n) and the sorted out. */
	size_t a = cl->n, b = nout, to = total;
	while (b > 0) {
		if (a > 0 && cl->key[a - 1] > (*out)[b - 1].key) {
			to--, a--;
			cl->key[to] = cl->key[a], cl->idx[to] = cl->idx[a];
			memcpy(cl->sphere[to], cl->sphere[a], sizeof cl->sphere[a]);
		} else {
			put(cl, --to, &(*out)[--b]);
		}
	}
	cl->n = total;
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

void mrdem_cell_list_update(struct mrdem_cell_list *cl, const double *pos, const double *radius,
			    size_t n, const uint8_t *level, uint8_t min_level, double h)
{
	size_t members = 0;
	double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	for (size_t i = 0; i < n; i++) {
		if (level[i] < min_level)
			continue;
		members++;
		for (int a = 0; a < 3; a++) {
			/* positions are finite (checked by the caller): no fmin/fmax calls */
			double x = pos[3 * i + a];
			lo[a] = x < lo[a] ? x : lo[a];
			hi[a] = x > hi[a] ? x : hi[a];
		}
	}
	const double max_cells = (double)((1u << MRDEM_CELL_BITS) - 8);
	for (int a = 0; a < 3 && members; a++)
		if ((hi[a] - lo[a]) / h > max_cells)
			h = (hi[a] - lo[a]) / max_cells * (1 + 1e-9);
	cl->h = h;
	cl->shifts = 0;
	cl->rebuilt = 0;

	/* a list never allocated (no members yet) still needs its padding */
	int keep = cl->key && lists_members(cl, n, level, min_level, members);
	if (!keep) {
		if (members > cl->cap || !cl->key) {
			size_t room = members + MRDEM_CELL_LIST_PAD;
			cl->key = mrdem_xrealloc(cl->key, room * sizeof *cl->key);
			cl->idx = mrdem_xrealloc(cl->idx, room * sizeof *cl->idx);
			cl->sphere = mrdem_xrealloc(cl->sphere, room * sizeof *cl->sphere);
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
		/* the list is in cell order, the particle arrays in frame order:
		 * fetch a few entries ahead, so that the misses of many entries
		 * overlap instead of stalling one at a time */
		if (k + KEYS_PREFETCH < cl->n) {
			size_t ahead = cl->idx[k + KEYS_PREFETCH];
			__builtin_prefetch(&pos[3 * ahead]);
			__builtin_prefetch(&pos[3 * ahead + 2]);
			__builtin_prefetch(&radius[ahead]);
		}
		size_t i = cl->idx[k];
		const double *x = &pos[3 * i];
		uint64_t c[3];
		for (int a = 0; a < 3; a++) {
			/* floor without a libm call: the quotient is below 2^49 in
			 * magnitude (mrdem_broad_cell_edge), so the conversion is exact */
			double t = x[a] / h;
			int64_t f = (int64_t)t;
			f -= (double)f > t;
			c[a] = (uint64_t)(f - base[a]);
		}
		cl->key[k] = MRDEM_CELL_KEY(c[0], c[1], c[2]);
		cl->sphere[k][0] = x[0];
		cl->sphere[k][1] = x[1];
		cl->sphere[k][2] = x[2];
		cl->sphere[k][3] = radius[i];
	}
	if (!keep || repair(cl, &cl->out, &cl->out_cap))
		sort_from_scratch(cl, pos, radius);
	for (size_t k = cl->n; k < cl->n + MRDEM_CELL_LIST_PAD; k++) {
		cl->key[k] = UINT64_MAX;
		cl->idx[k] = 0;
		memset(cl->sphere[k], 0, sizeof cl->sphere[k]);
	}
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

int mrdem_cell_width(int simd)
{
#if MRDEM_CELL_WIDE
	switch (mrdem_simd_resolve(simd)) {
	case MRDEM_SIMD_AVX512:
		return 2;
	case MRDEM_SIMD_AVX2:
		return 1;
	}
#endif
	(void)simd;
	return 0;
}
