/* The hit sort of the tree search (mrdem_search_sort_hits in
 * common/narrow/search/search_scratch.h) against qsort: random hits, sorted from
 * a first index on, must come out in (ta, tb) order, ties in their order
 * of arrival, every field carried along, the hits before first untouched.
 * Triangle indices from a few bits up to 31 bits each, so that both of its
 * paths run (the (ta, tb, place) words of up to 64 bits, and the 16-byte
 * keys where a word is too small), with 8- and 11-bit digits, few and
 * many hits, runs already in order and many equal keys. */
#include <stdlib.h>
#include <string.h>

#include "common/narrow/search/search_scratch.h"
#include "common/narrow/tri/tri_batch.h"
#include "common/util/rng.h"
#include "tests/lib/tap.h"

/* A hit with its place of arrival in dist (unique, so ties are seen). */
struct ref_hit {
	struct mrdem_tri_hit h;
	size_t place;
};

static int ref_order(const void *p, const void *q)
{
	const struct ref_hit *a = p, *b = q;
	if (a->h.ta != b->h.ta)
		return a->h.ta < b->h.ta ? -1 : 1;
	if (a->h.tb != b->h.tb)
		return a->h.tb < b->h.tb ? -1 : 1;
	return (a->place > b->place) - (a->place < b->place);
}

/* One case: n hits, the last m sorted (first = n - m); indices below
 * 2^bits_a and 2^bits_b; keys drawn from `distinct` values per axis when
 * it is nonzero (many ties); `ordered`: arriving in order already. */
static int sort_case(struct mrdem_tree_search *s, struct mrdem_rng *r, size_t n, size_t m,
		     int bits_a, int bits_b, uint32_t distinct, int ordered)
{
	struct mrdem_tri_hits hits;
	mrdem_tri_hits_init(&hits);
	struct ref_hit *ref = calloc(n ? n : 1, sizeof *ref);
	uint64_t ma = ((uint64_t)1 << bits_a) - 1, mb = ((uint64_t)1 << bits_b) - 1;
	for (size_t i = 0; i < n; i++) {
		struct mrdem_tri_hit *h = mrdem_tri_hits_push(&hits);
		memset(h, 0, sizeof *h);
		uint64_t x = mrdem_rng_u64(r), y = mrdem_rng_u64(r);
		if (distinct) {
			x = (x % distinct) * (ma / distinct + 1);
			y = (y % distinct) * (mb / distinct + 1);
		}
		h->ta = (uint32_t)(x & ma);
		h->tb = (uint32_t)(y & mb);
		for (int c = 0; c < 3; c++) {
			h->pa[c] = (float)mrdem_rng_range(r, -1, 1);
			h->pb[c] = (float)mrdem_rng_range(r, -1, 1);
		}
		h->dist = (float)i; /* the place: exact in a float below 2^24 */
	}
	size_t first = n - m;
	if (ordered) {
		for (size_t i = 0; i < n; i++)
			ref[i] = (struct ref_hit){hits.h[i], i};
		qsort(ref + first, m, sizeof *ref, ref_order);
		for (size_t i = first; i < n; i++) {
			hits.h[i] = ref[i].h;
			hits.h[i].dist = (float)i;
		}
	}
	for (size_t i = 0; i < n; i++)
		ref[i] = (struct ref_hit){hits.h[i], i};
	qsort(ref + first, m, sizeof *ref, ref_order);

	mrdem_search_sort_hits(s, &hits, first);
	int ok = hits.n == n;
	size_t bad = n;
	for (size_t i = 0; ok && i < n; i++)
		if (memcmp(&hits.h[i], &ref[i].h, sizeof ref[i].h)) {
			ok = 0;
			bad = i;
		}
	if (!ok && bad < n)
		tap_diag("hit %zu: got (%u, %u) from place %g, want (%u, %u) from place %zu", bad,
			 hits.h[bad].ta, hits.h[bad].tb, (double)hits.h[bad].dist, ref[bad].h.ta,
			 ref[bad].h.tb, ref[bad].place);
	mrdem_tri_hits_release(&hits);
	free(ref);
	return ok;
}

int main(void)
{
	struct mrdem_rng r;
	mrdem_rng_seed(&r, 20261123);
	struct mrdem_tree_search *s = mrdem_tree_search_new();
	static const size_t sizes[] = {0, 1, 2, 3, 7, 100, 2047, 2048, 5000, 40000};
	/* (bits of ta, bits of tb): small meshes, the sizes of the paper's,
	 * words of more than 48 bits (8-bit digits would need 7 passes), and
	 * indices that no word holds with their place (the keys' path) */
	static const int bits[][2] = {{4, 3}, {11, 11}, {15, 15}, {26, 26}, {31, 20}, {31, 31}};
	for (size_t b = 0; b < sizeof bits / sizeof bits[0]; b++)
		for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
			size_t n = sizes[k];
			int all = 1;
			for (int variant = 0; variant < 4; variant++) {
				/* all hits; after a prefix; many equal keys; in order */
				size_t m = variant == 1 ? n - n / 3 : n;
				uint32_t distinct = variant == 2 ? 5 : 0;
				all &= sort_case(s, &r, n, m, bits[b][0], bits[b][1], distinct,
						 variant == 3);
			}
			tap_ok(all, "%zu hits, indices of %d and %d bits: (ta, tb) order, ties "
			       "stable, fields kept, prefix untouched", n, bits[b][0], bits[b][1]);
		}
	mrdem_tree_search_free(s);
	return tap_done();
}
