/* The canonical pair order for methods that find pairs in another order
 * (cell order, sweep order): a counting sort by the first index, then
 * each row by the second. O(n + pairs) for short rows. */
#include <stdlib.h>
#include <string.h>

#include "common/broad/broad_methods.h"
#include "common/util/error.h"

/* How many pairs ahead the counting sort prefetches a pair's counter. */
#define START_PREFETCH 16

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

static void sort_row(size_t *j, size_t len)
{
	if (len > 32) {
		qsort(j, len, sizeof *j, cmp_size);
		return;
	}
	for (size_t k = 1; k < len; k++) {
		size_t v = j[k], m = k;
		for (; m > 0 && j[m - 1] > v; m--)
			j[m] = j[m - 1];
		j[m] = v;
	}
}

void mrdem_pair_keys_sort(struct mrdem_ipairs *out, struct mrdem_pair_keys *part, int nparts,
			  size_t n, struct mrdem_pair_sort *scratch)
{
	if (n + 1 > scratch->cap) {
		scratch->start = mrdem_xrealloc(scratch->start, (n + 1) * sizeof *scratch->start);
		scratch->cap = n + 1;
	}
	size_t *start = scratch->start, total = 0;
	memset(start, 0, (n + 1) * sizeof *start);
	/* The pairs come in cell order, their first indices all over start:
	 * both passes fetch the counter of a pair a few pairs ahead. */
	for (int t = 0; t < nparts; t++) {
		const uint64_t *key = part[t].key;
		size_t m = part[t].n;
		total += m;
		for (size_t k = 0; k < m; k++) {
			if (k + START_PREFETCH < m)
				__builtin_prefetch(&start[(key[k + START_PREFETCH] >> 32) + 1]);
			start[(key[k] >> 32) + 1]++;
		}
	}
	for (size_t i = 0; i < n; i++)
		start[i + 1] += start[i];
	if (total > out->cap) {
		out->ij = mrdem_xrealloc(out->ij, 2 * total * sizeof *out->ij);
		out->cap = total;
	}
	out->n = total;
	/* Place second indices by row (start[i] advances to the row's end). */
	for (int t = 0; t < nparts; t++) {
		const uint64_t *key = part[t].key;
		size_t m = part[t].n;
		for (size_t k = 0; k < m; k++) {
			if (k + START_PREFETCH < m)
				__builtin_prefetch(&start[key[k + START_PREFETCH] >> 32], 1);
			out->ij[2 * start[key[k] >> 32]++ + 1] = (uint32_t)key[k];
		}
		part[t].n = 0;
	}
	size_t from = 0;
	for (size_t i = 0; i < n; i++) {
		size_t to = start[i];
		for (size_t k = from; k < to; k++)
			out->ij[2 * k] = i;
		if (to - from > 1) {
			/* Sort the row's second indices, then spread them out. */
			size_t len = to - from, *row = &out->ij[2 * from];
			for (size_t k = 0; k < len; k++)
				row[k] = row[2 * k + 1];
			sort_row(row, len);
			for (size_t k = len; k-- > 0;) {
				row[2 * k + 1] = row[k];
				row[2 * k] = i;
			}
		}
		from = to;
	}
}
