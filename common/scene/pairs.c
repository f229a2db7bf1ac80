#include "common/scene/pairs.h"

#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"
#include "common/util/hash.h"

void mrdem_pairs_init(struct mrdem_pairs *p)
{
	memset(p, 0, sizeof *p);
}

void mrdem_pairs_release(struct mrdem_pairs *p)
{
	free(p->p);
	mrdem_pairs_init(p);
}

void mrdem_pairs_push(struct mrdem_pairs *p, uint64_t a, uint64_t b)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 64;
		p->p = mrdem_xrealloc_for(p->p, p->cap, sizeof *p->p, "pairs");
	}
	p->p[p->n].a = a;
	p->p[p->n++].b = b;
}

/* A pair's key: its ids in increasing order (a pair and its reverse are the
 * same pair). */
static void key_of(const struct mrdem_pair *q, uint64_t *lo, uint64_t *hi)
{
	*lo = q->a < q->b ? q->a : q->b;
	*hi = q->a < q->b ? q->b : q->a;
}

int mrdem_pairs_find_duplicate(const struct mrdem_pairs *p, size_t *first, size_t *second)
{
	/* Keys in increasing order (a frame in id order): one pass decides. */
	uint64_t plo = 0, phi = 0, lo, hi;
	size_t i = 0;
	for (; i < p->n; i++) {
		key_of(&p->p[i], &lo, &hi);
		if (i && (lo < plo || (lo == plo && hi <= phi)))
			break;
		plo = lo, phi = hi;
	}
	if (i == p->n)
		return 0;
	/* Else a hash set of the pairs seen (open addressing, index + 1). */
	size_t cap = 2;
	while (cap < 2 * p->n)
		cap *= 2;
	size_t *slot = mrdem_xcalloc(cap, sizeof *slot);
	int found = 0;
	for (i = 0; i < p->n && !found; i++) {
		key_of(&p->p[i], &lo, &hi);
		size_t h = (size_t)mrdem_mix64(lo ^ mrdem_mix64(hi)) & (cap - 1);
		for (; slot[h]; h = (h + 1) & (cap - 1)) {
			uint64_t olo, ohi;
			key_of(&p->p[slot[h] - 1], &olo, &ohi);
			if (olo == lo && ohi == hi) {
				*first = slot[h] - 1;
				*second = i;
				found = 1;
				break;
			}
		}
		if (!found)
			slot[h] = i + 1;
	}
	free(slot);
	return found;
}
