/* Scratch space shared by the two surrogate-tree searches: Alg. 5 from the
 * roots (tree_search.c) and the persistent fronts of multiscale Picard,
 * Alg. 6 (front_search.c). Private to common/narrow.
 *
 * Per call, b's nodes and real triangles are mapped into a's frame on first
 * use only (stamps), and both trees' node halos get the particles' widths
 * plus a rounding slack (mrdem_search_prepare). */
#ifndef MRDEM_NARROW_SEARCH_SCRATCH_H
#define MRDEM_NARROW_SEARCH_SCRATCH_H

#include <stddef.h>
#include <stdint.h>

#include "common/geom/xform.h"
#include "common/narrow/search/tree_search.h"
#include "common/util/error.h"

struct mrdem_hit_key {
	uint64_t key; /* ta << 32 | tb */
	uint32_t i;   /* the hit's place before the sort */
};

struct mrdem_tree_search {
	struct mrdem_tri_batch *batch;
	/* active node pairs of this round and of the next */
	uint32_t *cur, *next;
	size_t cur_cap, next_cap;
	/* front search: real triangle pairs (soup indices) gathered from
	 * leaf pairs; tree search: the pairs of leaves reached */
	uint32_t *real, *leaves;
	size_t real_cap, leaves_cap;
	/* tree search: leaves' real triangles in chunks (a's in its frame,
	 * b's mapped), made once per call: where each node's first chunk is
	 * (valid where chunk_stamp holds this call's stamp) */
	struct mrdem_tri_chunk *chunks;
	size_t nchunks, chunks_cap;
	uint32_t *chunk_at[2], *chunk_stamp[2];
	size_t chunk_at_cap[2], chunk_stamp_cap[2];
	/* this call's path is AVX-512 (mrdem_search_prepare): chunks and
	 * mapped nodes by vectors, the same floats as the scalar path */
	int avx512;
	struct mrdem_tri_result *res;
	size_t res_cap;
	int32_t *status; /* tree search: statuses of a round's pairs */
	size_t status_cap;
	/* per-call halos of a's and b's nodes, b's mapped nodes and soup and
	 * the centres of their bounding spheres */
	float *eps_a, *eps_b, *node_b, *soup_b, *nsph_b, *tsph_b;
	size_t eps_a_cap, eps_b_cap, node_b_cap, soup_b_cap, nsph_b_cap, tsph_b_cap;
	/* which of b's nodes / leaves are mapped in this call */
	uint32_t *node_stamp, *leaf_stamp;
	size_t node_stamp_cap, leaf_stamp_cap;
	uint32_t stamp;
	/* front search: where each front pair's result sits (index into res
	 * or res2, or a sphere-separated marker), results of its real pairs,
	 * and per unfolded pair of the front its members' tallies */
	uint32_t *slot;
	size_t slot_cap;
	struct mrdem_tri_result *res2;
	size_t res2_cap;
	/* front search: the comparison kernel's results on its real contacts */
	struct mrdem_tri_result *exact;
	size_t exact_cap;
	uint32_t *tally;
	size_t tally_cap;
	/* front search: node halos widened to certify pairs apart */
	float *wide_a, *wide_b;
	size_t wide_a_cap, wide_b_cap;
	/* front search: the items an iteration tests, and their pairs side
	 * by side (struct front_pair: read in a row, not across the front) */
	uint32_t *items;
	size_t items_cap;
	void *item_pairs;
	size_t item_pairs_cap;
	/* mrdem_search_sort_keys: the keys to sort, twice (merge room) */
	struct mrdem_hit_key *keys;
	size_t keys_cap;
	/* mrdem_search_sort_hits: (ta, tb, place) packed in a word each,
	 * twice, and the hits gathered in order (then swapped with the
	 * caller's where they start at 0) */
	uint64_t *packed;
	size_t packed_cap;
	struct mrdem_tri_hit *spare;
	size_t spare_cap;
};

/* Grow a scratch array to hold at least n elements of size sz. */
static inline void *mrdem_search_grow(void *p, size_t *cap, size_t n, size_t sz)
{
	if (n <= *cap)
		return p;
	size_t c = *cap ? *cap : 256;
	while (c < n)
		c *= 2;
	*cap = c;
	return mrdem_xrealloc(p, c * sz);
}

/* Set up a call between a and b at SIMD level simd: node halos in eps_a /
 * eps_b (node eps + particle eps + half the slack), room for b's mapped
 * nodes and soup, fresh stamps. Returns the reach the bounding-sphere test
 * adds to the radii. */
float mrdem_search_prepare(struct mrdem_tree_search *s, const struct mrdem_search_side *a,
			   const struct mrdem_search_side *b, int simd);
/* Map node n of b (surrogate and sphere centre), or the real triangles of
 * leaf n of b, into a's frame by x, once per call (the stamp checked
 * inline: most calls find the node mapped). */
void mrdem_search_map_node_now(struct mrdem_tree_search *s, const struct mrdem_tree *t,
			       const struct mrdem_xform *x, uint32_t n);
static inline void mrdem_search_map_node(struct mrdem_tree_search *s, const struct mrdem_tree *t,
					 const struct mrdem_xform *x, uint32_t n)
{
	if (s->node_stamp[n] != s->stamp)
		mrdem_search_map_node_now(s, t, x, n);
}
void mrdem_search_map_leaf(struct mrdem_tree_search *s, const struct mrdem_tree *t,
			   const struct mrdem_xform *x, uint32_t n);

/* The chunks of leaf n's real triangles, (n's count + MRDEM_TRI_CHUNK -
 * 1) / MRDEM_TRI_CHUNK of them from the returned index of s->chunks on:
 * of a's tree t (side 0, its own frame) or of b's (side 1, mapped by x,
 * which maps the leaf); made on the call's first use. */
size_t mrdem_search_make_leaf_chunks(struct mrdem_tree_search *s, int side,
				     const struct mrdem_tree *t, const struct mrdem_xform *x,
				     uint32_t n);
/* Inline: most leaf pairs find both leaves' chunks made already. */
static inline size_t mrdem_search_leaf_chunks(struct mrdem_tree_search *s, int side,
					      const struct mrdem_tree *t,
					      const struct mrdem_xform *x, uint32_t n)
{
	if (s->chunk_stamp[side][n] == s->stamp)
		return s->chunk_at[side][n];
	return mrdem_search_make_leaf_chunks(s, side, t, x, n);
}

/* Append a contact of triangles (or nodes) ta, tb with result r. */
struct mrdem_tri_hit *mrdem_search_add_hit(struct mrdem_tri_hits *hits, uint32_t ta, uint32_t tb,
					   const struct mrdem_tri_result *r);
/* Sort the m keys of s->keys (room for 2 m) by key; returns where they
 * are, in order: s->keys or s->keys + m. */
struct mrdem_hit_key *mrdem_search_sort_keys(struct mrdem_tree_search *s, size_t m);
/* Sort hits[first..] by (ta, tb), the flat search's order (s: scratch).
 * With first = 0, hits->h may become s's spare room and the old array
 * s's. */
void mrdem_search_sort_hits(struct mrdem_tree_search *s, struct mrdem_tri_hits *hits,
			    size_t first);

/* The options of surrogate-level tests: never fall back. An undecided (not
 * converged) pair unfolds instead. The iterative method alone would decide
 * such a pair by its unconverged iterate, which may overestimate the
 * distance and prune a contact; as a hybrid without fallback it runs the
 * same sweeps and keeps the pair instead. */
static inline struct mrdem_narrow_opts mrdem_search_surrogate_opts(const struct mrdem_narrow_opts *o)
{
	struct mrdem_narrow_opts s = *o;
	s.fallback = 0;
	s.exact_contacts = 0;
	if (s.method == MRDEM_NARROW_ITERATIVE)
		s.method = MRDEM_NARROW_HYBRID;
	return s;
}

#endif
