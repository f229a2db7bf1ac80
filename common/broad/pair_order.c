/* The canonical pair order for methods that find pairs in another order
 * (cell order, sweep order): a counting sort by the first index, then
 * each row by the second. O(n + pairs) for short rows. */
#include <stdlib.h>
#include <string.h>

#include "common/broad/broad_methods.h"
#include "common/util/error.h"

/* How many pairs ahead the counting sort prefetches a pair's counter. */
#define START_PREFETCH 16

/* Rows up to this long are sorted by a network without branches; the
 * rows pass writes this many pairs at every row's start. */
#define SHORT_ROW 4

void mrdem_pair_sort_release(struct mrdem_pair_sort *s)
{
	free(s->start);
	free(s->col);
	memset(s, 0, sizeof *s);
}

size_t mrdem_pair_sort_bytes(const struct mrdem_pair_sort *s)
{
	return s->cap * sizeof *s->start + s->col_cap * sizeof *s->col;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static void sort_row(uint32_t *j, size_t len)
{
	if (len > 32) {
		qsort(j, len, sizeof *j, cmp_u32);
		return;
	}
	for (size_t k = 1; k < len; k++) {
		uint32_t v = j[k];
		size_t m = k;
		for (; m > 0 && j[m - 1] > v; m--)
			j[m] = j[m - 1];
		j[m] = v;
	}
}

static inline void order2(uint32_t *x, uint32_t *y)
{
	uint32_t lo = *x < *y ? *x : *y, hi = *x < *y ? *y : *x;
	*x = lo;
	*y = hi;
}

void mrdem_pair_keys_sort(struct mrdem_ipairs *out, struct mrdem_pair_keys *part, int nparts,
			  size_t n, struct mrdem_pair_sort *scratch)
{
	size_t total = 0;
	for (int t = 0; t < nparts; t++)
		total += part[t].n;
	out->n = total;
	if (!total)
		return;
	if (n + 1 > scratch->cap) {
		scratch->start = mrdem_xrealloc(scratch->start, (n + 1) * sizeof *scratch->start);
		scratch->cap = n + 1;
	}
	/* exact sizes (no doubling): memory per particle counts */
	if (total + SHORT_ROW > scratch->col_cap) {
		scratch->col_cap = total + SHORT_ROW;
		scratch->col = mrdem_xrealloc_for(scratch->col, scratch->col_cap, sizeof *scratch->col,
						  "candidate pairs");
	}
	/* the last row writes SHORT_ROW pairs from its start */
	if (total + SHORT_ROW > out->cap) {
		out->cap = total + SHORT_ROW;
		out->ij = mrdem_xrealloc_for(out->ij, out->cap, 2 * sizeof *out->ij, "candidate pairs");
	}
	size_t *start = scratch->start;
	uint32_t *col = scratch->col;
	memset(start, 0, (n + 1) * sizeof *start);
	/* The pairs come in cell order, their first indices all over start:
	 * both passes fetch the counter of a pair a few pairs ahead. */
	for (int t = 0; t < nparts; t++) {
		const uint64_t *key = part[t].key;
		size_t m = part[t].n;
		for (size_t k = 0; k < m; k++) {
			if (k + START_PREFETCH < m)
				__builtin_prefetch(&start[(key[k + START_PREFETCH] >> 32) + 1]);
			start[(key[k] >> 32) + 1]++;
		}
	}
	for (size_t i = 0; i < n; i++)
		start[i + 1] += start[i];
	/* Second indices by row, compactly (start[i] advances to the row's
	 * end); the padding reads as larger than any index. */
	for (int t = 0; t < nparts; t++) {
		const uint64_t *key = part[t].key;
		size_t m = part[t].n;
		for (size_t k = 0; k < m; k++) {
			if (k + START_PREFETCH < m)
				__builtin_prefetch(&start[key[k + START_PREFETCH] >> 32], 1);
			col[start[key[k] >> 32]++] = (uint32_t)key[k];
		}
		part[t].n = 0;
	}
	for (size_t k = total; k < total + SHORT_ROW; k++)
		col[k] = UINT32_MAX;
	/* Each row sorted and written as pairs. Rows of a dense packing hold
	 * 0 to 4 pairs in no predictable pattern: a short row is sorted by a
	 * network with the entries past it read as UINT32_MAX, and all
	 * SHORT_ROW pairs are written (the next rows overwrite the extra
	 * ones), so that neither its length nor its order costs a branch. */
	size_t *ij = out->ij, from = 0;
	for (size_t i = 0; i < n; i++) {
		size_t to = start[i], len = to - from;
		if (len <= SHORT_ROW) {
			uint32_t c[SHORT_ROW];
			/* col holds SHORT_ROW entries past every row's start */
			for (size_t j = 0; j < SHORT_ROW; j++)
				c[j] = col[from + j] | -(uint32_t)(j >= len);
			order2(&c[0], &c[1]);
			order2(&c[2], &c[3]);
			order2(&c[0], &c[2]);
			order2(&c[1], &c[3]);
			order2(&c[1], &c[2]);
			for (size_t j = 0; j < SHORT_ROW; j++) {
				ij[2 * (from + j)] = i;
				ij[2 * (from + j) + 1] = c[j];
			}
		} else {
			sort_row(&col[from], len);
			for (size_t k = from; k < to; k++) {
				ij[2 * k] = i;
				ij[2 * k + 1] = col[k];
			}
		}
		from = to;
	}
}
