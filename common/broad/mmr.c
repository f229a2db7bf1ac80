/* Multi-step MR (MMR, Munjiza & Rougier) for polydisperse
 * sizes: particles fall into size groups that halve in radius, group 0
 * the largest. Step k sorts every particle of groups k and smaller into
 * cells sized for group k (MR-linear sort, repaired from the step's last
 * order) and searches the 27 cells around each particle of group k: its
 * pairs with its own group (each once) and with all smaller groups. A pair
 * is thus found in the step of its larger member, in cells sized for it,
 * and small particles never share a cell sized for a big one with each
 * other's search. Time: about (number of groups) x one MR pass. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "common/broad/broad_methods.h"
#include "common/broad/cell_list.h"
#include "common/util/error.h"

#define NGROUPS 16

struct mrdem_mmr {
	size_t cap;
	uint8_t *group;
	struct mrdem_cell_list cells[NGROUPS];
	/* pairs found per thread, kept with their memory between calls */
	struct mrdem_pair_keys *part;
	int nparts;
	struct mrdem_pair_sort sort;
};

struct mrdem_mmr *mrdem_mmr_new(void)
{
	return mrdem_xcalloc(1, sizeof(struct mrdem_mmr));
}

void mrdem_mmr_free(struct mrdem_mmr *m)
{
	if (!m)
		return;
	free(m->group);
	for (int g = 0; g < NGROUPS; g++)
		mrdem_cell_list_release(&m->cells[g]);
	for (int t = 0; t < m->nparts; t++)
		free(m->part[t].key);
	free(m->part);
	mrdem_pair_sort_release(&m->sort);
	free(m);
}

size_t mrdem_mmr_bytes(const struct mrdem_mmr *m)
{
	size_t b = m->cap * sizeof *m->group + mrdem_pair_sort_bytes(&m->sort);
	for (int g = 0; g < NGROUPS; g++)
		b += m->cells[g].cap * MRDEM_CELL_LIST_ENTRY_BYTES;
	for (int t = 0; t < m->nparts; t++)
		b += m->part[t].cap * sizeof *m->part[t].key;
	return b;
}

uint64_t mrdem_mmr_moves(const struct mrdem_mmr *m, int *rebuilt)
{
	uint64_t moves = 0;
	*rebuilt = 0;
	for (int g = 0; g < NGROUPS; g++) {
		moves += m->cells[g].shifts;
		*rebuilt |= m->cells[g].rebuilt;
	}
	return moves;
}

/* Group of radius r: g with rmax / 2^(g+1) < r <= rmax / 2^g (exact:
 * scaling by powers of two does not round; products, as ldexp would
 * give them, without its call), the last group below. */
static uint8_t size_group(double r, double rmax)
{
	int g = 0;
	for (double scale = 2; g < NGROUPS - 1 && r * scale <= rmax; scale *= 2)
		g++;
	return (uint8_t)g;
}

/* The 27-cell search around the entries of group g in [lo, hi) of cl,
 * whose members are the groups g and smaller. A member is of group g
 * itself when r 2^(g+1) > rmax (size_group's test, on the radius in the
 * list instead of the group array, so the search reads the list only).
 * only_g: every member is of group g (the last group, one size), so
 * nothing needs the test. */
static MRDEM_CELL_INLINE void search_entries(const struct mrdem_cell_list *cl, uint8_t g,
					     double rmax, int only_g, size_t lo, size_t hi,
					     const uint32_t *flags, int wide,
					     struct mrdem_pair_keys *out, uint64_t *tests)
{
	const double scale = ldexp(1, g + 1);
	const int last = only_g;
	/* the window keeps the entries after k, and those before it of a
	 * smaller group (none when every member is of group g) */
	const struct mrdem_window_group group = {!last, scale, rmax};
	uint64_t offset[9];
	size_t row[9];
	for (int r = 0; r < 9; r++) {
		/* cell (-1, dy, dz) relative to the entry's; coordinates start at 1 */
		int dy = r % 3 - 1, dz = r / 3 - 1;
		offset[r] = MRDEM_CELL_KEY(0, 1 + dy, 1 + dz) - MRDEM_CELL_KEY(1, 1, 1);
		row[r] = lo < hi ? mrdem_cell_list_lower_bound(cl, 0, cl->key[lo] + offset[r]) : 0;
	}
	for (size_t k = lo; k < hi; k++) {
		if (!last && cl->sphere[k][3] * scale <= rmax)
			continue; /* a smaller group's entry */
		int fixed = flags && (flags[cl->idx[k]] & MRDEM_PARTICLE_FIXED);
		for (int r = 0; r < 9; r++) {
			uint64_t first = cl->key[k] + offset[r];
			size_t q = row[r] = mrdem_cell_list_skip_below(cl, row[r], first);
			if (cl->key[q] > first + 2)
				continue; /* an empty row */
			if (!fixed) {
				mrdem_cell_list_test_window(cl, k, q, first + 2, group, wide, out,
							    tests);
				continue;
			}
			/* a fixed particle: the exact loops, which read the flags */
			size_t end = mrdem_cell_list_skip_below(cl, q, first + 3);
			mrdem_pair_keys_reserve(out, end - q);
			uint64_t *w = out->key + out->n;
			for (; q < end && q < k; q++)
				if (!last && cl->sphere[q][3] * scale <= rmax)
					w = mrdem_cell_list_test_run(cl, k, q, q + 1, flags, fixed, w,
								     tests);
			w = mrdem_cell_list_test_run(cl, k, q > k ? q : k + 1, end, flags, fixed, w,
						     tests);
			out->n = (size_t)(w - out->key);
		}
	}
}

static void search_generic(const struct mrdem_cell_list *cl, uint8_t g, double rmax, int only_g,
			   size_t lo, size_t hi, const uint32_t *flags,
			   struct mrdem_pair_keys *out, uint64_t *tests)
{
	search_entries(cl, g, rmax, only_g, lo, hi, flags, 0, out, tests);
}

#if MRDEM_CELL_WIDE
MRDEM_TARGET_CELL_AVX2 static void search_avx2(const struct mrdem_cell_list *cl, uint8_t g,
					       double rmax, int only_g, size_t lo, size_t hi,
					       const uint32_t *flags,
					       struct mrdem_pair_keys *out, uint64_t *tests)
{
	search_entries(cl, g, rmax, only_g, lo, hi, flags, 1, out, tests);
}

MRDEM_TARGET_CELL_AVX512 static void search_avx512(const struct mrdem_cell_list *cl, uint8_t g,
					       double rmax, int only_g, size_t lo, size_t hi,
					       const uint32_t *flags,
					       struct mrdem_pair_keys *out, uint64_t *tests)
{
	search_entries(cl, g, rmax, only_g, lo, hi, flags, 2, out, tests);
}
#endif

/* The search of group g over entries [lo, hi), in the instance for the width
 * wide (mrdem_cell_width) (the same pairs and tests from each). */
static void search_group(const struct mrdem_cell_list *cl, uint8_t g, double rmax, int only_g,
			 size_t lo, size_t hi, const uint32_t *flags, int wide,
			 struct mrdem_pair_keys *out, uint64_t *tests)
{
#if MRDEM_CELL_WIDE
	if (wide == 2) {
		search_avx512(cl, g, rmax, only_g, lo, hi, flags, out, tests);
		return;
	}
	if (wide == 1) {
		search_avx2(cl, g, rmax, only_g, lo, hi, flags, out, tests);
		return;
	}
#endif
	(void)wide;
	search_generic(cl, g, rmax, only_g, lo, hi, flags, out, tests);
}

void mrdem_broad_mmr_pairs(struct mrdem_mmr *m, const double *pos, const double *radius,
			   const uint32_t *flags, size_t n, int simd, struct mrdem_ipairs *out,
			   uint64_t *tests, uint64_t *cells, double *cell_size)
{
	flags = mrdem_flags_if_fixed(flags, n);
	if (n > m->cap) {
		m->group = mrdem_xrealloc(m->group, n * sizeof *m->group);
		m->cap = n;
	}
	double rmax = 0, gmax[NGROUPS] = {0}, big[NGROUPS] = {0};
	size_t count[NGROUPS] = {0};
	/* compares, not fmax calls: the same maxima of finite values */
	for (size_t i = 0; i < n; i++)
		rmax = radius[i] > rmax ? radius[i] : rmax;
	for (size_t i = 0; i < n; i++) {
		uint8_t g = m->group[i] = size_group(radius[i], rmax);
		count[g]++;
		gmax[g] = radius[i] > gmax[g] ? radius[i] : gmax[g];
		for (int a = 0; a < 3; a++)
			big[g] = fabs(pos[3 * i + a]) > big[g] ? fabs(pos[3 * i + a]) : big[g];
	}
	int nparts = omp_get_max_threads();
	if (nparts > m->nparts) {
		m->part = mrdem_xrealloc(m->part, (size_t)nparts * sizeof *m->part);
		for (int t = m->nparts; t < nparts; t++)
			m->part[t] = (struct mrdem_pair_keys){0};
		m->nparts = nparts;
	}
	struct mrdem_pair_keys *part = m->part;
	uint64_t ntests = 0;
	int wide = mrdem_cell_width(simd);
	*cells = 0;
	*cell_size = 0;
	double big_below = 0; /* coordinates of groups g and smaller */
	for (int g = NGROUPS - 1; g >= 0; g--) {
		big_below = fmax(big_below, big[g]);
		struct mrdem_cell_list *cl = &m->cells[g];
		if (!count[g]) {
			/* an empty group keeps no list */
			if (cl->cap)
				mrdem_cell_list_release(cl);
			continue;
		}
		mrdem_cell_list_update(cl, pos, radius, n, m->group, (uint8_t)g,
				       mrdem_broad_cell_edge(gmax[g], big_below));
		*cells += mrdem_cell_list_cells(cl);
		if (*cell_size == 0)
			*cell_size = cl->h;
#pragma omp parallel num_threads(nparts) if (cl->n >= MRDEM_BROAD_PARALLEL_MIN) \
	reduction(+ : ntests)
		{
			int t = omp_get_thread_num(), nt = omp_get_num_threads();
			size_t lo = cl->n * (size_t)t / (size_t)nt, hi = cl->n * (size_t)(t + 1) / (size_t)nt;
			search_group(cl, (uint8_t)g, rmax, g == NGROUPS - 1 || count[g] == cl->n, lo,
				     hi, flags, wide, &part[t], &ntests);
		}
	}
	mrdem_pair_keys_sort(out, part, m->nparts, n, &m->sort);
	*tests = ntests;
}
