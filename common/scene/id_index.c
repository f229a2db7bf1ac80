#include "common/scene/id_index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"
#include "common/scene/scene.h"

void mrdem_id_index_init(struct mrdem_id_index *x)
{
	memset(x, 0, sizeof *x);
}

void mrdem_id_index_release(struct mrdem_id_index *x)
{
	free(x->id);
	free(x->index);
	mrdem_id_index_init(x);
}

/* Merge sort of (id, index) pairs. Frames are usually written in id order;
 * the check for already ordered halves makes that case linear. */
static void merge_sort(uint64_t *id, size_t *ix, uint64_t *tid, size_t *tix, size_t n)
{
	if (n < 2)
		return;
	size_t h = n / 2;
	merge_sort(id, ix, tid, tix, h);
	merge_sort(id + h, ix + h, tid, tix, n - h);
	if (id[h - 1] <= id[h])
		return;
	size_t a = 0, b = h, o = 0;
	while (a < h && b < n) {
		if (id[b] < id[a])
			tid[o] = id[b], tix[o++] = ix[b++];
		else
			tid[o] = id[a], tix[o++] = ix[a++];
	}
	while (a < h)
		tid[o] = id[a], tix[o++] = ix[a++];
	while (b < n)
		tid[o] = id[b], tix[o++] = ix[b++];
	memcpy(id, tid, n * sizeof *id);
	memcpy(ix, tix, n * sizeof *ix);
}

/* What is wrong with the sorted ids of x, into msg: -1, or 0 if nothing. */
static int ids_problem(const struct mrdem_id_index *x, char *msg, size_t size)
{
	for (size_t k = 0; k < x->n; k++) {
		if (mrdem_is_plane_id(x->id[k])) {
			snprintf(msg, size, "particle %zu has id %llu, in the range reserved for "
				 "analytic planes (ids must be below %llu)", x->index[k],
				 (unsigned long long)x->id[k], (unsigned long long)MRDEM_PLANE_ID_MIN);
			return -1;
		}
		if (k && x->id[k] == x->id[k - 1]) {
			size_t i = x->index[k - 1], j = x->index[k];
			snprintf(msg, size, "particles %zu and %zu share the id %llu", i < j ? i : j,
				 i < j ? j : i, (unsigned long long)x->id[k]);
			return -1;
		}
	}
	return 0;
}

static void sort_ids(struct mrdem_id_index *x, const struct mrdem_particles *p)
{
	size_t n = p->n;
	if (n > x->cap) {
		x->id = mrdem_xrealloc(x->id, n * sizeof *x->id);
		x->index = mrdem_xrealloc(x->index, n * sizeof *x->index);
		x->cap = n;
	}
	x->n = n;
	for (size_t i = 0; i < n; i++) {
		x->id[i] = p->id[i];
		x->index[i] = i;
	}
	uint64_t *tid = mrdem_xmalloc_array(n ? n : 1, sizeof *tid);
	size_t *tix = mrdem_xmalloc_array(n ? n : 1, sizeof *tix);
	merge_sort(x->id, x->index, tid, tix, n);
	free(tid);
	free(tix);
}

int mrdem_id_index_build(struct mrdem_id_index *x, const struct mrdem_particles *p)
{
	char msg[256];
	sort_ids(x, p);
	return ids_problem(x, msg, sizeof msg) ? mrdem_error("%s", msg) : 0;
}

int mrdem_ids_check(const struct mrdem_particles *p, char *msg, size_t size)
{
	/* Frames are usually in increasing id order: one pass decides. */
	size_t i = 0;
	while (i < p->n && !mrdem_is_plane_id(p->id[i]) && (!i || p->id[i] > p->id[i - 1]))
		i++;
	if (i == p->n)
		return 0;
	struct mrdem_id_index x;
	mrdem_id_index_init(&x);
	sort_ids(&x, p);
	int rc = ids_problem(&x, msg, size);
	mrdem_id_index_release(&x);
	return rc;
}

size_t mrdem_id_index_find(const struct mrdem_id_index *x, uint64_t id)
{
	size_t lo = 0, hi = x->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (x->id[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < x->n && x->id[lo] == id ? x->index[lo] : MRDEM_NO_INDEX;
}
