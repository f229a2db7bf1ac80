/* Multiresolution contact search between two particles (paper Alg. 5).
 *
 * Active pairs of surrogate nodes start at the two roots and unfold coarse
 * to fine, one round per level: every round's node pairs are gathered into
 * one buffer and streamed through the batched kernels (Sec. 5.4). A node
 * pair whose halos do not overlap drops both subtrees; the halos are
 * conservative (common/tree), so no contact beneath is lost. Leaf pairs
 * stream their real triangles into a last stage (mrdem_tri_stream_leaves),
 * the only one where the hybrid kernel falls back to the comparison method
 * (Corollary 5.3). Before a
 * pair reaches the kernels, the bounding spheres of the two halos (common/
 * tree) are compared: pairs they separate are dropped without a triangle
 * comparison.
 *
 * The result is the flat search's (Lemma 5.1): the same triangle pairs with
 * the same values, because the last stage runs the same kernels on the same
 * float triangles, mapped through the same transform (common/geom/xform.h).
 * Surrogate tests add a small slack to their halos that covers float
 * rounding and the iterative kernel's tolerance, so rounding can only make
 * the search unfold more, never prune a contact. */
#ifndef MRDEM_NARROW_TREE_SEARCH_H
#define MRDEM_NARROW_TREE_SEARCH_H

#include <stdint.h>

#include "common/geom/xform.h"
#include "common/narrow/tri/tri_batch.h"
#include "common/tree/tree.h"

/* Search rounds counted separately; deeper rounds add to the last. */
#define MRDEM_SEARCH_ROUNDS 16

/* Work of one search, by round (round 0 compares the two roots) and for
 * the real triangles. */
struct mrdem_search_counts {
	struct mrdem_narrow_counts round[MRDEM_SEARCH_ROUNDS];
	struct mrdem_narrow_counts real;
	uint64_t pruned;   /* node pairs whose subtrees were dropped */
	uint64_t sphere_pruned; /* pairs dropped by their bounding spheres alone */
};
void mrdem_search_counts_add(struct mrdem_search_counts *dst, const struct mrdem_search_counts *src);
/* Add the work of every round and of the real triangles to *all. */
void mrdem_search_counts_total(const struct mrdem_search_counts *s,
			       struct mrdem_narrow_counts *all);

/* One particle as the search sees it. */
struct mrdem_search_side {
	const struct mrdem_tree *tree; /* bound to the particle's mesh */
	float eps;                     /* the particle's halo width */
};

/* Scratch space of one thread, reused across searches. */
struct mrdem_tree_search;
struct mrdem_tree_search *mrdem_tree_search_new(void);
void mrdem_tree_search_free(struct mrdem_tree_search *s);

/* Find every pair of real triangles of a and b whose halos overlap, with b
 * mapped into a's shape frame by xb. Hits are appended to hits with mesh
 * triangle indices, sorted by (ta, tb), like mrdem_tri_all_pairs. cnt
 * (may be NULL) accumulates the work. */
void mrdem_tree_search(struct mrdem_tree_search *s, const struct mrdem_search_side *a,
		       const struct mrdem_search_side *b, const struct mrdem_xform *xb,
		       const struct mrdem_narrow_opts *o, struct mrdem_tri_hits *hits,
		       struct mrdem_search_counts *cnt);
/* The same hits in the order the search finds them (the same order every
 * time, but not sorted), for a caller that sorts them only where its use
 * depends on the order (mrdem_search_sort_hits). */
void mrdem_tree_search_unsorted(struct mrdem_tree_search *s, const struct mrdem_search_side *a,
				const struct mrdem_search_side *b, const struct mrdem_xform *xb,
				const struct mrdem_narrow_opts *o, struct mrdem_tri_hits *hits,
				struct mrdem_search_counts *cnt);

#endif
