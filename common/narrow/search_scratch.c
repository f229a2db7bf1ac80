#include "common/narrow/search_scratch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct mrdem_tree_search *mrdem_tree_search_new(void)
{
	struct mrdem_tree_search *s = mrdem_xcalloc(1, sizeof *s);
	s->batch = mrdem_tri_batch_new();
	return s;
}

void mrdem_tree_search_free(struct mrdem_tree_search *s)
{
	if (!s)
		return;
	mrdem_tri_batch_free(s->batch);
	void *arrays[] = { s->cur, s->next, s->real, s->leaves, s->chunks, s->chunk_at[0],
			   s->chunk_at[1], s->chunk_stamp[0], s->chunk_stamp[1], s->status, s->res, s->eps_a, s->eps_b,
			   s->node_b, s->soup_b, s->nsph_b, s->tsph_b, s->node_stamp,
			   s->leaf_stamp, s->slot, s->res2, s->exact, s->tally, s->wide_a, s->wide_b, s->items,
			   s->keys, s->packed, s->spare };
	for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
		free(arrays[k]);
	free(s);
}

/* Largest coordinate magnitude of a tree's root halo: the scale of the
 * float rounding in a search. */
static float extent(const struct mrdem_tree *t)
{
	float m = 0;
	for (int c = 0; c < 9; c++)
		m = fmaxf(m, fabsf(t->tri[c]));
	return m + t->eps[0];
}

/* Stamps of size n, all forgotten when the array grows. */
static uint32_t *grow_stamps(uint32_t *p, size_t *cap, size_t n)
{
	size_t old = *cap;
	p = mrdem_search_grow(p, cap, n, sizeof *p);
	if (*cap != old)
		memset(p, 0, *cap * sizeof *p);
	return p;
}

float mrdem_search_prepare(struct mrdem_tree_search *s, const struct mrdem_search_side *a,
			   const struct mrdem_search_side *b)
{
	const struct mrdem_tree *ta = a->tree, *tb = b->tree;
	/* Slack on surrogate halos for float rounding of kernels and transform.
	 * The iterative kernel needs none: it only says SEPARATE when a lower
	 * bound of the distance exceeds the cut (common/narrow/tri_penalty.c). */
	float slack = 1e-5f * (extent(ta) + extent(tb));
	s->eps_a = mrdem_search_grow(s->eps_a, &s->eps_a_cap, ta->nnodes, sizeof *s->eps_a);
	s->eps_b = mrdem_search_grow(s->eps_b, &s->eps_b_cap, tb->nnodes, sizeof *s->eps_b);
	for (uint32_t n = 0; n < ta->nnodes; n++)
		s->eps_a[n] = ta->eps[n] + a->eps + 0.5f * slack;
	for (uint32_t n = 0; n < tb->nnodes; n++)
		s->eps_b[n] = tb->eps[n] + b->eps + 0.5f * slack;
	s->node_b = mrdem_search_grow(s->node_b, &s->node_b_cap, 9 * (size_t)tb->nnodes,
				      sizeof *s->node_b);
	s->soup_b = mrdem_search_grow(s->soup_b, &s->soup_b_cap, 9 * (size_t)tb->ntris,
				      sizeof *s->soup_b);
	s->nsph_b = mrdem_search_grow(s->nsph_b, &s->nsph_b_cap, 4 * (size_t)tb->nnodes,
				      sizeof *s->nsph_b);
	s->tsph_b = mrdem_search_grow(s->tsph_b, &s->tsph_b_cap, 4 * (size_t)tb->ntris,
				      sizeof *s->tsph_b);
	s->node_stamp = grow_stamps(s->node_stamp, &s->node_stamp_cap, tb->nnodes);
	s->leaf_stamp = grow_stamps(s->leaf_stamp, &s->leaf_stamp_cap, tb->nnodes);
	const struct mrdem_tree *side[2] = {ta, tb};
	for (int k = 0; k < 2; k++) {
		s->chunk_stamp[k] = grow_stamps(s->chunk_stamp[k], &s->chunk_stamp_cap[k],
						side[k]->nnodes);
		s->chunk_at[k] = mrdem_search_grow(s->chunk_at[k], &s->chunk_at_cap[k],
						   side[k]->nnodes, sizeof *s->chunk_at[k]);
	}
	s->nchunks = 0;
	if (++s->stamp == 0) { /* wrapped: forget every stamp */
		memset(s->node_stamp, 0, s->node_stamp_cap * sizeof *s->node_stamp);
		memset(s->leaf_stamp, 0, s->leaf_stamp_cap * sizeof *s->leaf_stamp);
		for (int k = 0; k < 2; k++)
			memset(s->chunk_stamp[k], 0, s->chunk_stamp_cap[k] * sizeof *s->chunk_stamp[k]);
		s->stamp = 1;
	}
	/* Sphere radii carry the nodes' own eps; the particles' come here. */
	return a->eps + b->eps + slack;
}

void mrdem_search_map_node(struct mrdem_tree_search *s, const struct mrdem_tree *t,
			   const struct mrdem_xform *x, uint32_t n)
{
	if (s->node_stamp[n] == s->stamp)
		return;
	s->node_stamp[n] = s->stamp;
	xform_apply_tris(x, &t->tri[9 * (size_t)n], &s->node_b[9 * (size_t)n], 1);
	xform_apply_f(x, &t->node_sphere[4 * (size_t)n], &s->nsph_b[4 * (size_t)n]);
	s->nsph_b[4 * (size_t)n + 3] = t->node_sphere[4 * (size_t)n + 3];
}

void mrdem_search_map_leaf(struct mrdem_tree_search *s, const struct mrdem_tree *t,
			   const struct mrdem_xform *x, uint32_t n)
{
	if (s->leaf_stamp[n] == s->stamp)
		return;
	s->leaf_stamp[n] = s->stamp;
	size_t first = t->tri_first[n];
	xform_apply_tris(x, &t->soup[9 * first], &s->soup_b[9 * first], t->tri_count[n]);
	for (size_t i = first; i < first + t->tri_count[n]; i++) {
		xform_apply_f(x, &t->soup_sphere[4 * i], &s->tsph_b[4 * i]);
		s->tsph_b[4 * i + 3] = t->soup_sphere[4 * i + 3];
	}
}

size_t mrdem_search_leaf_chunks(struct mrdem_tree_search *s, int side, const struct mrdem_tree *t,
				const struct mrdem_xform *x, uint32_t n)
{
	if (s->chunk_stamp[side][n] == s->stamp)
		return s->chunk_at[side][n];
	uint32_t first = t->tri_first[n], count = t->tri_count[n];
	const float *v = t->soup, *sph = t->soup_sphere;
	if (side) {
		mrdem_search_map_leaf(s, t, x, n);
		v = s->soup_b;
		sph = s->tsph_b;
	}
	size_t at = s->nchunks, k = (count + MRDEM_TRI_CHUNK - 1) / MRDEM_TRI_CHUNK;
	s->chunks = mrdem_search_grow(s->chunks, &s->chunks_cap, at + k, sizeof *s->chunks);
	for (size_t c = 0; c < k; c++) {
		uint32_t from = first + (uint32_t)c * MRDEM_TRI_CHUNK;
		uint32_t m = first + count - from < MRDEM_TRI_CHUNK ? first + count - from
								    : MRDEM_TRI_CHUNK;
		mrdem_tri_chunk_set(&s->chunks[at + c], &v[9 * (size_t)from], &sph[4 * (size_t)from],
				    from, m);
	}
	s->nchunks = at + k;
	s->chunk_stamp[side][n] = s->stamp;
	s->chunk_at[side][n] = (uint32_t)at;
	return at;
}

struct mrdem_tri_hit *mrdem_search_add_hit(struct mrdem_tri_hits *hits, uint32_t ta, uint32_t tb,
					   const struct mrdem_tri_result *r)
{
	struct mrdem_tri_hit *h = mrdem_tri_hits_push(hits);
	h->ta = ta;
	h->tb = tb;
	memcpy(h->pa, r->pa, sizeof h->pa);
	memcpy(h->pb, r->pb, sizeof h->pb);
	h->dist = r->dist;
	return h;
}

/* The m keys of s->keys sorted by bytes (least significant first,
 * counting; bytes every key shares are skipped) between the two halves of
 * s->keys (room for 2 m); returns the half that holds them sorted. Moving
 * 16-byte keys without compares is cheaper than a comparison sort (an
 * implicit step sorts the hits of every Picard iteration), and no
 * allocation per call (glibc's qsort allocates a buffer for arrays this
 * size). The keys are unique, so the order is the one any sort gives. */
struct mrdem_hit_key *mrdem_search_sort_keys(struct mrdem_tree_search *s, size_t m)
{
	struct mrdem_hit_key *src = s->keys, *dst = s->keys + m;
	int sorted = 1;
	uint64_t all_or = 0, all_and = ~(uint64_t)0;
	for (size_t i = 0; i < m; i++) {
		sorted &= i == 0 || src[i - 1].key < src[i].key;
		all_or |= src[i].key;
		all_and &= src[i].key;
	}
	if (sorted)
		return src;
	for (int shift = 0; shift < 64; shift += 8) {
		if (!(((all_or ^ all_and) >> shift) & 0xff))
			continue; /* every key has this byte */
		size_t count[256] = {0};
		for (size_t i = 0; i < m; i++)
			count[(src[i].key >> shift) & 0xff]++;
		for (size_t d = 0, at = 0; d < 256; d++) {
			size_t c = count[d];
			count[d] = at;
			at += c;
		}
		for (size_t i = 0; i < m; i++)
			dst[count[(src[i].key >> shift) & 0xff]++] = src[i];
		struct mrdem_hit_key *t = src;
		src = dst, dst = t;
	}
	return src;
}

/* Bits needed to write x (0 for 0). */
static int bit_width(uint64_t x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

/* The m words v sorted (v and v + m: room for 2 m), least significant
 * digit first, counting, over the bits from lo up that differ between
 * words (the others sort nothing), digits of at most 11 bits (8 for
 * few words, whose counts would cost more than their moves). The
 * histograms of every digit are counted in one pass. Returns the half
 * that holds them sorted. */
static uint64_t *sort_words(uint64_t *v, size_t m, int lo)
{
	uint64_t all_or = 0, all_and = ~(uint64_t)0;
	for (size_t i = 0; i < m; i++) {
		all_or |= v[i];
		all_and &= v[i];
	}
	uint64_t vary = (all_or ^ all_and) >> lo << lo;
	if (!vary)
		return v;
	int from = __builtin_ctzll(vary), bits = bit_width(vary) - from;
	int widest = m < 2048 ? 8 : 11, passes = (bits + widest - 1) / widest;
	int width = (bits + passes - 1) / passes;
	size_t buckets = (size_t)1 << width;
	uint64_t mask = buckets - 1;
	uint32_t count[6][2048]; /* passes <= 64 / 11 + 1 */
	for (int q = 0; q < passes; q++)
		memset(count[q], 0, buckets * sizeof count[q][0]);
	for (size_t i = 0; i < m; i++)
		for (int q = 0; q < passes; q++)
			count[q][(v[i] >> (from + q * width)) & mask]++;
	uint64_t *src = v, *dst = v + m;
	for (int q = 0; q < passes; q++) {
		uint32_t *c = count[q];
		for (size_t d = 0, at = 0; d < buckets; d++) {
			uint32_t k = c[d];
			c[d] = (uint32_t)at;
			at += k;
		}
		int shift = from + q * width;
		for (size_t i = 0; i < m; i++)
			dst[c[(src[i] >> shift) & mask]++] = src[i];
		uint64_t *t = src;
		src = dst, dst = t;
	}
	return src;
}

/* The hits sorted by (ta, tb): where key and place fit in a word each
 * (ta, tb and the place in as many bits as their largest values need),
 * those words are sorted (half the bytes of mrdem_hit_key, and often a
 * pass fewer), else the keys by mrdem_search_sort_keys; then the hits
 * are gathered in order into spare room, which becomes the hits' array
 * where they start at 0 (no copy back). */
void mrdem_search_sort_hits(struct mrdem_tree_search *s, struct mrdem_tri_hits *hits,
			    size_t first)
{
	size_t m = hits->n - first;
	if (m < 2)
		return;
	struct mrdem_tri_hit *h = hits->h + first;
	uint32_t any_a = 0, any_b = 0;
	for (size_t i = 0; i < m; i++) {
		any_a |= h[i].ta;
		any_b |= h[i].tb;
	}
	int wi = bit_width(m - 1), wb = bit_width(any_b);
	s->spare = mrdem_search_grow(s->spare, &s->spare_cap, m, sizeof *s->spare);
	struct mrdem_tri_hit *to = s->spare;
	if (wi + wb + bit_width(any_a) <= 64) {
		s->packed = mrdem_search_grow(s->packed, &s->packed_cap, 2 * m, sizeof *s->packed);
		uint64_t *v = s->packed, mask = ((uint64_t)1 << wi) - 1;
		int sorted = 1;
		for (size_t i = 0; i < m; i++) {
			v[i] = ((uint64_t)h[i].ta << wb | h[i].tb) << wi | i;
			sorted &= i == 0 || v[i - 1] < v[i];
		}
		if (sorted)
			return; /* the keys are unique: in order already */
		const uint64_t *src = sort_words(v, m, wi);
		for (size_t k = 0; k < m; k++)
			to[k] = h[src[k] & mask];
	} else {
		s->keys = mrdem_search_grow(s->keys, &s->keys_cap, 2 * m, sizeof *s->keys);
		for (size_t i = 0; i < m; i++)
			s->keys[i] = (struct mrdem_hit_key){(uint64_t)h[i].ta << 32 | h[i].tb,
							    (uint32_t)i};
		const struct mrdem_hit_key *src = mrdem_search_sort_keys(s, m);
		for (size_t k = 0; k < m; k++)
			to[k] = h[src[k].i];
	}
	if (first) {
		memcpy(h, to, m * sizeof *h);
		return;
	}
	struct mrdem_tri_hit *t = hits->h;
	size_t tc = hits->cap;
	hits->h = s->spare, hits->cap = s->spare_cap;
	s->spare = t, s->spare_cap = tc;
}
