/* MR-linear contact detection (Munjiza & Rougier): spheres of
 * (at most) one size in cubic cells of about their diameter, a list
 * sorted by cell (z, y, x) repaired in O(N) from the last step's order,
 * and a search that walks, for every list entry, its own cell and the
 * 13-cell half mask: the cell at x + 1 of its row, three cells of the
 * row y + 1 and nine cells of the plane z + 1. Each of those rows is a
 * contiguous stretch of the list whose start only grows with the entry,
 * so one pointer per row walks the list once: O(N) time and memory,
 * whatever the packing density.
 *
 * Spheres much larger than the mean are kept out of the cells (as in the
 * grid) and tested against every particle. */
#include <omp.h>
#include <stdlib.h>

#include "common/broad/broad_methods.h"
#include "common/broad/cell_list.h"
#include "common/util/error.h"

struct mrdem_mr {
	size_t cap;
	uint8_t *level; /* 1 in the cells, 0 large */
	struct mrdem_cell_list cells;
	/* pairs found per thread (and the large spheres' last), kept with
	 * their memory between calls */
	struct mrdem_pair_keys *part;
	int nparts;
	struct mrdem_pair_sort sort;
};

struct mrdem_mr *mrdem_mr_new(void)
{
	return mrdem_xcalloc(1, sizeof(struct mrdem_mr));
}

void mrdem_mr_free(struct mrdem_mr *m)
{
	if (!m)
		return;
	free(m->level);
	mrdem_cell_list_release(&m->cells);
	for (int t = 0; t < m->nparts; t++)
		free(m->part[t].key);
	free(m->part);
	mrdem_pair_sort_release(&m->sort);
	free(m);
}

size_t mrdem_mr_bytes(const struct mrdem_mr *m)
{
	size_t b = m->cap * sizeof *m->level + m->cells.cap * MRDEM_CELL_LIST_ENTRY_BYTES +
		   mrdem_pair_sort_bytes(&m->sort);
	for (int t = 0; t < m->nparts; t++)
		b += m->part[t].cap * sizeof *m->part[t].key;
	return b;
}

uint64_t mrdem_mr_moves(const struct mrdem_mr *m, int *rebuilt)
{
	*rebuilt = m->cells.rebuilt;
	return m->cells.shifts;
}

/* Rows of the half mask besides the entry's own: key offsets of the cell
 * (0, dy, dz) for (1, 0), (-1, 1), (0, 1), (1, 1); each row spans x - 1 to
 * x + 1. */
#define NROWS 4
static const uint64_t row_offset[NROWS] = {
	MRDEM_CELL_KEY(0, 1, 0),
	MRDEM_CELL_KEY(0, 0, 1) - MRDEM_CELL_KEY(0, 1, 0),
	MRDEM_CELL_KEY(0, 0, 1),
	MRDEM_CELL_KEY(0, 1, 1),
};

/* The search of entry k of a fixed particle, whose partners' flags are
 * read to skip pairs of two fixed particles. row: the rows' starts. */
static void search_fixed(const struct mrdem_cell_list *cl, size_t k, size_t row[NROWS],
			 const uint32_t *flags, struct mrdem_pair_keys *out, uint64_t *tests)
{
	uint64_t key = cl->key[k];
	size_t q[NROWS + 1], end[NROWS + 1], total;
	q[0] = k + 1;
	end[0] = mrdem_cell_list_skip_below(cl, k + 1, key + 2);
	total = end[0] - q[0];
	for (int r = 0; r < NROWS; r++) {
		uint64_t first = key + row_offset[r] - 1;
		q[r + 1] = row[r] = mrdem_cell_list_skip_below(cl, row[r], first);
		end[r + 1] = mrdem_cell_list_skip_below(cl, q[r + 1], first + 3);
		total += end[r + 1] - q[r + 1];
	}
	mrdem_pair_keys_reserve(out, total);
	uint64_t *w = out->key + out->n;
	for (int r = 0; r <= NROWS; r++)
		w = mrdem_cell_list_test_run(cl, k, q[r], end[r], flags, 1, w, tests);
	out->n = (size_t)(w - out->key);
}

/* The search over list entries [lo, hi); wide: test windows as vectors
 * (mrdem_cell_list_test_window). */
static MRDEM_CELL_INLINE void search_entries(const struct mrdem_cell_list *cl, size_t lo,
					     size_t hi, const uint32_t *flags, int wide,
					     struct mrdem_pair_keys *out, uint64_t *tests)
{
	const struct mrdem_window_group after = {0, 0, 0};
	size_t row[NROWS];
	for (int r = 0; r < NROWS && lo < hi; r++)
		row[r] = mrdem_cell_list_lower_bound(cl, 0, cl->key[lo] + row_offset[r] - 1);
	for (size_t k = lo; k < hi; k++) {
		uint64_t key = cl->key[k];
		if (flags && (flags[cl->idx[k]] & MRDEM_PARTICLE_FIXED)) {
			search_fixed(cl, k, row, flags, out, tests);
			continue;
		}
		/* own cell after this entry and the next cell of the row; the
		 * rows (an empty one, as in a sparse packing, costs a compare) */
		if (cl->key[k + 1] <= key + 1)
			mrdem_cell_list_test_window(cl, k, k + 1, key + 1, after, wide, out, tests);
		for (int r = 0; r < NROWS; r++) {
			uint64_t first = key + row_offset[r] - 1;
			size_t q = row[r] = mrdem_cell_list_skip_below(cl, row[r], first);
			if (cl->key[q] <= first + 2)
				mrdem_cell_list_test_window(cl, k, q, first + 2, after, wide, out,
							    tests);
		}
	}
}

static void search_generic(const struct mrdem_cell_list *cl, size_t lo, size_t hi,
			   const uint32_t *flags, struct mrdem_pair_keys *out, uint64_t *tests)
{
	search_entries(cl, lo, hi, flags, 0, out, tests);
}

#if MRDEM_CELL_WIDE
MRDEM_TARGET_CELL_AVX2 static void search_avx2(const struct mrdem_cell_list *cl, size_t lo,
					       size_t hi, const uint32_t *flags,
					       struct mrdem_pair_keys *out, uint64_t *tests)
{
	search_entries(cl, lo, hi, flags, 1, out, tests);
}

MRDEM_TARGET_CELL_AVX512 static void search_avx512(const struct mrdem_cell_list *cl, size_t lo,
					       size_t hi, const uint32_t *flags,
					       struct mrdem_pair_keys *out, uint64_t *tests)
{
	search_entries(cl, lo, hi, flags, 2, out, tests);
}
#endif

/* The search over list entries [lo, hi), in the instance for the width wide
 * (mrdem_cell_width) (the same pairs and tests from each). */
static void search(const struct mrdem_cell_list *cl, size_t lo, size_t hi, const uint32_t *flags,
		   int wide, struct mrdem_pair_keys *out, uint64_t *tests)
{
#if MRDEM_CELL_WIDE
	if (wide == 2) {
		search_avx512(cl, lo, hi, flags, out, tests);
		return;
	}
	if (wide == 1) {
		search_avx2(cl, lo, hi, flags, out, tests);
		return;
	}
#endif
	(void)wide;
	search_generic(cl, lo, hi, flags, out, tests);
}

void mrdem_broad_mr_pairs(struct mrdem_mr *m, const double *pos, const double *radius,
			  const uint32_t *flags, size_t n, int simd, struct mrdem_ipairs *out,
			  uint64_t *tests, uint64_t *cells, double *cell_size)
{
	flags = mrdem_flags_if_fixed(flags, n);
	if (n > m->cap) {
		m->level = mrdem_xrealloc(m->level, n * sizeof *m->level);
		m->cap = n;
	}
	double rmax, big;
	size_t nlarge = mrdem_broad_split_large(pos, radius, n, m->level, &rmax, &big);
	mrdem_cell_list_update(&m->cells, pos, radius, n, m->level, 1,
			       mrdem_broad_cell_edge(rmax, big));
	const struct mrdem_cell_list *cl = &m->cells;
	*cells = mrdem_cell_list_cells(cl);
	*cell_size = cl->h;

	int nparts = omp_get_max_threads();
	if (nparts + 1 > m->nparts) {
		m->part = mrdem_xrealloc(m->part, ((size_t)nparts + 1) * sizeof *m->part);
		for (int t = m->nparts; t < nparts + 1; t++)
			m->part[t] = (struct mrdem_pair_keys){0};
		m->nparts = nparts + 1;
	}
	struct mrdem_pair_keys *part = m->part;
	uint64_t ntests = 0;
	int wide = mrdem_cell_width(simd);
#pragma omp parallel num_threads(nparts) if (n >= MRDEM_BROAD_PARALLEL_MIN) reduction(+ : ntests)
	{
		int t = omp_get_thread_num(), nt = omp_get_num_threads();
		size_t lo = cl->n * (size_t)t / (size_t)nt, hi = cl->n * (size_t)(t + 1) / (size_t)nt;
		search(cl, lo, hi, flags, wide, &part[t], &ntests);
	}
	/* Large spheres against every particle; two large ones once. */
	struct mrdem_pair_keys *large = &part[m->nparts - 1];
	if (nlarge)
		for (size_t i = 0; i < n; i++)
			if (!m->level[i])
				for (size_t j = 0; j < n; j++)
					if (j != i && (m->level[j] || j > i)) {
						size_t a = i < j ? i : j, b = i < j ? j : i;
						if (flags && mrdem_both_fixed(flags, a, b))
							continue;
						ntests++;
						if (mrdem_spheres_touch(&pos[3 * a], radius[a], &pos[3 * b],
									radius[b])) {
							mrdem_pair_keys_reserve(large, 1);
							large->key[large->n++] = (uint64_t)a << 32 | b;
						}
					}
	mrdem_pair_keys_sort(out, part, m->nparts, n, &m->sort);
	*tests = ntests;
}
