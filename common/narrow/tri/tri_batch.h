/* Batched triangle-pair tests between two triangle sets (paper Sec. 5.4:
 * collect the pairs to compare into a buffer, then stream the buffer
 * through the vector units).
 *
 * Two entry points share the kernels and so give identical per-pair
 * results: mrdem_tri_pairs_test takes an explicit list of index pairs (a
 * surrogate-tree traversal hands over one level's active pairs, Alg. 5),
 * mrdem_tri_all_pairs runs the flat search of Alg. 2 over every pair. */
#ifndef MRDEM_NARROW_TRI_BATCH_H
#define MRDEM_NARROW_TRI_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "common/narrow/tri/tri_opts.h"
#include "common/narrow/tri/tri_block.h"

/* A triangle soup (paper, implementation remark 2): 9 floats per triangle
 * (x0 y0 z0 x1 y1 z1 x2 y2 z2), in one frame shared with the other set.
 * Each triangle has a halo: eps[i], or eps_all when eps is NULL (surrogate
 * triangles carry their own). Two triangles are in contact iff their
 * distance is at most the sum of their halos. */
struct mrdem_tri_set {
	const float *v;
	uint32_t n;
	const float *eps;
	float eps_all;
};

/* Work counters (paper Table 4): triangle pairs compared, of them run
 * through the iterative kernel, of those recomputed by comparison, and
 * (no fallback) left unconverged. Of the unconverged pairs of the
 * iterative method: found intersecting by the exact test (contacts at
 * distance 0), and the rest, undecided: decided by the uncertified
 * iterate. */
struct mrdem_narrow_counts {
	uint64_t comparisons, iterative, fallbacks, unconverged;
	uint64_t intersecting, undecided;
	/* wall time of the calling thread (mrdem-run --log-view): kernel calls
	 * (fallback included) and their number, fallback blocks through the
	 * comparison kernel and their time */
	uint64_t kernel_calls, fallback_blocks;
	double kernel_s, fallback_s;
};
void mrdem_narrow_counts_add(struct mrdem_narrow_counts *dst, const struct mrdem_narrow_counts *src);

/* One pair's result: status (enum mrdem_tri_status), closest points and
 * their distance. For CONTACT the points are the closest pair (up to float
 * rounding, or the converged iterate); for SEPARATE only the status is
 * guaranteed. The iterative method alone reports an unconverged pair as
 * CONTACT at distance 0 when the triangles intersect, else CONTACT iff its
 * final iterate is within the cut-off (not certified). */
struct mrdem_tri_result {
	float pa[3], pb[3];
	float dist;
	int32_t status;
};

/* A contact found by the flat search. */
struct mrdem_tri_hit {
	uint32_t ta, tb; /* triangle indices in the two sets */
	float pa[3], pb[3];
	float dist;
};
struct mrdem_tri_hits {
	size_t n, cap;
	struct mrdem_tri_hit *h;
};
void mrdem_tri_hits_init(struct mrdem_tri_hits *h);
void mrdem_tri_hits_release(struct mrdem_tri_hits *h);
/* A new hit at the end of h, to be filled in. */
struct mrdem_tri_hit *mrdem_tri_hits_push(struct mrdem_tri_hits *h);

/* Scratch buffers of one thread. */
struct mrdem_tri_batch;
struct mrdem_tri_batch *mrdem_tri_batch_new(void);
void mrdem_tri_batch_free(struct mrdem_tri_batch *w);

/* Test the n pairs (pairs[2i], pairs[2i+1]) of triangles of a and b
 * (indices must be in range); out[i] receives pair i's result. */
void mrdem_tri_pairs_test(struct mrdem_tri_batch *w, const struct mrdem_tri_set *a,
			  const struct mrdem_tri_set *b, const uint32_t *pairs, size_t n,
			  const struct mrdem_narrow_opts *o, struct mrdem_tri_result *out,
			  struct mrdem_narrow_counts *cnt);
/* The same, status[i] receiving pair i's status only (surrogate levels
 * of a tree search, which read nothing else). */
void mrdem_tri_pairs_status(struct mrdem_tri_batch *w, const struct mrdem_tri_set *a,
			    const struct mrdem_tri_set *b, const uint32_t *pairs, size_t n,
			    const struct mrdem_narrow_opts *o, int32_t *status,
			    struct mrdem_narrow_counts *cnt);
/* The same, appending the contacts to hits (in no particular order: the
 * hybrid's fallbacks and exact_contacts' points come late). */
void mrdem_tri_pairs_hits(struct mrdem_tri_batch *w, const struct mrdem_tri_set *a,
			  const struct mrdem_tri_set *b, const uint32_t *pairs, size_t n,
			  const struct mrdem_narrow_opts *o, struct mrdem_tri_hits *hits,
			  struct mrdem_narrow_counts *cnt);

/* Up to MRDEM_TRI_CHUNK triangles of one set (indices first .. first + n
 * - 1) in structure-of-arrays layout, with their bounding spheres (centre,
 * radius): a tree leaf's real triangles as the leaf-pair stream below
 * takes them. Slots n .. MRDEM_TRI_CHUNK - 1 hold zeros, and the second
 * MRDEM_TRI_CHUNK slots repeat the first: a vector of 16 lanes pairs two
 * of a's triangles with b's chunk. */
#define MRDEM_TRI_CHUNK 8
struct mrdem_tri_chunk {
	float v[9][2 * MRDEM_TRI_CHUNK]; /* coordinate c of triangle k at v[c][k] */
	float sph[4][2 * MRDEM_TRI_CHUNK];
	uint32_t first, n;
};

/* Chunk c from n (<= MRDEM_TRI_CHUNK) triangles v (9 floats each) and
 * their spheres sph (4 each), triangle indices from first. */
void mrdem_tri_chunk_set(struct mrdem_tri_chunk *c, const float *v, const float *sph,
			 uint32_t first, uint32_t n);

/* The leaf-pair stream of a tree search: pairs of real triangles go
 * straight from chunks into the kernels' blocks (the triangle of a
 * broadcast, b's kept lanes compressed), without a list of index pairs
 * or a gather per coordinate. Contacts are appended to hits in no
 * particular order (like mrdem_tri_pairs_hits); cut is every pair's. */
void mrdem_tri_stream_begin(struct mrdem_tri_batch *w, float cut, struct mrdem_tri_hits *hits,
			    const struct mrdem_narrow_opts *o);
/* The pairs of two leaves a and b, with their node spheres (reach added to the sum of two radii),
 * pruned as the tree search prunes them: a b triangle whose sphere misses
 * sa, an a triangle whose sphere misses sb, a pair whose triangles'
 * spheres miss each other (mrdem_spheres_apart, bit for bit). Returns
 * the pairs pruned; the rest go through the kernels. */
/* A leaf of the stream: its triangles in chunks chunk[0..n) and its node
 * sphere. */
struct mrdem_tri_leaf {
	const struct mrdem_tri_chunk *chunk;
	uint32_t n;
	const float *sph;
};
uint64_t mrdem_tri_stream_leaves(struct mrdem_tri_batch *w, const struct mrdem_tri_leaf *a,
				 const struct mrdem_tri_leaf *b, float reach,
				 const struct mrdem_narrow_opts *o, struct mrdem_narrow_counts *cnt);
/* Run what is left in the blocks. */
void mrdem_tri_stream_end(struct mrdem_tri_batch *w, const struct mrdem_narrow_opts *o,
			  struct mrdem_narrow_counts *cnt);

/* Test every pair of a x b, appending the contacts to hits in order of
 * (ta, tb). */
void mrdem_tri_all_pairs(struct mrdem_tri_batch *w, const struct mrdem_tri_set *a,
			 const struct mrdem_tri_set *b, const struct mrdem_narrow_opts *o,
			 struct mrdem_tri_hits *hits, struct mrdem_narrow_counts *cnt);

/* Bounding spheres too far apart for the halos to meet: the pair cannot
 * be in contact, and the triangle kernels need not see it. */
static inline int mrdem_spheres_apart(const float *p, const float *q, float reach)
{
	float dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
	float r = p[3] + q[3] + reach;
	return dx * dx + dy * dy + dz * dz > r * r;
}

#endif
