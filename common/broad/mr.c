/* MR-linear contact detection (Munjiza & Rougier, seed 002): spheres of
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
	free(m->sort.start);
	free(m);
}

size_t mrdem_mr_bytes(const struct mrdem_mr *m)
{
	return m->cap * sizeof *m->level + m->cells.cap * (sizeof *m->cells.key + sizeof *m->cells.idx) +
	       m->sort.cap * sizeof *m->sort.start;
}

uint64_t mrdem_mr_moves(const struct mrdem_mr *m, int *rebuilt)
{
	*rebuilt = m->cells.rebuilt;
	return m->cells.shifts;
}

/* Test a candidate pair and keep it when the spheres touch. */
static inline void candidate(size_t a, size_t b, const double *pos, const double *radius,
			     const uint32_t *flags, struct mrdem_ipairs *out, uint64_t *tests)
{
	size_t i = a < b ? a : b, j = a < b ? b : a;
	if (flags && mrdem_both_fixed(flags, i, j))
		return;
	++*tests;
	if (mrdem_spheres_touch(&pos[3 * i], radius[i], &pos[3 * j], radius[j]))
		mrdem_ipairs_push(out, i, j);
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

/* The search over list entries [lo, hi). */
static void search(const struct mrdem_cell_list *cl, size_t lo, size_t hi, const double *pos,
		   const double *radius, const uint32_t *flags, struct mrdem_ipairs *out,
		   uint64_t *tests)
{
	size_t row[NROWS];
	for (int r = 0; r < NROWS && lo < hi; r++)
		row[r] = mrdem_cell_list_lower_bound(cl, 0, cl->key[lo] + row_offset[r] - 1);
	for (size_t k = lo; k < hi; k++) {
		uint64_t key = cl->key[k];
		size_t a = cl->idx[k];
		/* own cell after this entry, and the next cell of the row */
		for (size_t q = k + 1; q < cl->n && cl->key[q] <= key + 1; q++)
			candidate(a, cl->idx[q], pos, radius, flags, out, tests);
		for (int r = 0; r < NROWS; r++) {
			uint64_t first = key + row_offset[r] - 1, last = first + 2;
			size_t q = row[r];
			while (q < cl->n && cl->key[q] < first)
				q++;
			row[r] = q;
			for (; q < cl->n && cl->key[q] <= last; q++)
				candidate(a, cl->idx[q], pos, radius, flags, out, tests);
		}
	}
}

void mrdem_broad_mr_pairs(struct mrdem_mr *m, const double *pos, const double *radius,
			  const uint32_t *flags, size_t n, struct mrdem_ipairs *out,
			  uint64_t *tests, uint64_t *cells, double *cell_size)
{
	if (n > m->cap) {
		m->level = mrdem_xrealloc(m->level, n * sizeof *m->level);
		m->cap = n;
	}
	double rmax, big;
	size_t nlarge = mrdem_broad_split_large(pos, radius, n, m->level, &rmax, &big);
	mrdem_cell_list_update(&m->cells, pos, n, m->level, 1, mrdem_broad_cell_edge(rmax, big));
	const struct mrdem_cell_list *cl = &m->cells;
	*cells = mrdem_cell_list_cells(cl);
	*cell_size = cl->h;

	int nparts = omp_get_max_threads();
	struct mrdem_ipairs *part = mrdem_xcalloc((size_t)nparts + 1, sizeof *part);
	uint64_t ntests = 0;
#pragma omp parallel num_threads(nparts) if (n >= MRDEM_BROAD_PARALLEL_MIN) reduction(+ : ntests)
	{
		int t = omp_get_thread_num(), nt = omp_get_num_threads();
		size_t lo = cl->n * (size_t)t / (size_t)nt, hi = cl->n * (size_t)(t + 1) / (size_t)nt;
		search(cl, lo, hi, pos, radius, flags, &part[t], &ntests);
	}
	/* Large spheres against every particle; two large ones once. */
	if (nlarge)
		for (size_t i = 0; i < n; i++)
			if (!m->level[i])
				for (size_t j = 0; j < n; j++)
					if (j != i && (m->level[j] || j > i))
						candidate(i, j, pos, radius, flags, &part[nparts], &ntests);
	mrdem_ipairs_sort_parts(out, part, nparts + 1, n, &m->sort);
	free(part);
	*tests = ntests;
}
