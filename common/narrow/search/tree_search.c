#include "common/narrow/search/tree_search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/narrow/search/search_scratch.h"

void mrdem_search_counts_add(struct mrdem_search_counts *dst, const struct mrdem_search_counts *src)
{
	for (int r = 0; r < MRDEM_SEARCH_ROUNDS; r++)
		mrdem_narrow_counts_add(&dst->round[r], &src->round[r]);
	mrdem_narrow_counts_add(&dst->real, &src->real);
	dst->pruned += src->pruned;
	dst->sphere_pruned += src->sphere_pruned;
}

void mrdem_search_counts_total(const struct mrdem_search_counts *s,
			       struct mrdem_narrow_counts *all)
{
	mrdem_narrow_counts_add(all, &s->real);
	for (int r = 0; r < MRDEM_SEARCH_ROUNDS; r++)
		mrdem_narrow_counts_add(all, &s->round[r]);
}

static void push_pair(uint32_t **v, size_t *cap, size_t *n, uint32_t i, uint32_t j)
{
	*v = mrdem_search_grow(*v, cap, 2 * (*n + 1), sizeof **v);
	(*v)[2 * *n] = i;
	(*v)[2 * *n + 1] = j;
	(*n)++;
}

void mrdem_tree_search_unsorted(struct mrdem_tree_search *s, const struct mrdem_search_side *a,
				const struct mrdem_search_side *b, const struct mrdem_xform *xb,
				const struct mrdem_narrow_opts *o, struct mrdem_tri_hits *hits,
				struct mrdem_search_counts *cnt)
{
	const struct mrdem_tree *ta = a->tree, *tb = b->tree;
	struct mrdem_search_counts local;
	if (!cnt) {
		memset(&local, 0, sizeof local);
		cnt = &local;
	}
	float reach = mrdem_search_prepare(s, a, b, o->simd);

	struct mrdem_tri_set na = {ta->tri, ta->nnodes, s->eps_a, 0};
	struct mrdem_tri_set nb = {s->node_b, tb->nnodes, s->eps_b, 0};
	struct mrdem_narrow_opts surrogate = mrdem_search_surrogate_opts(o);

	size_t ncur = 0, nnext, nleaves = 0;
	push_pair(&s->cur, &s->cur_cap, &ncur, 0, 0);
	mrdem_search_map_node(s, tb, xb, 0);
	for (int round = 0; ncur; round++) {
		struct mrdem_narrow_counts *rc = &cnt->round[round < MRDEM_SEARCH_ROUNDS ? round : MRDEM_SEARCH_ROUNDS - 1];
		s->status = mrdem_search_grow(s->status, &s->status_cap, ncur, sizeof *s->status);
		mrdem_tri_pairs_status(s->batch, &na, &nb, s->cur, ncur, &surrogate, s->status, rc);
		nnext = 0;
		for (size_t k = 0; k < ncur; k++) {
			if (s->status[k] == MRDEM_TRI_SEPARATE) {
				cnt->pruned++;
				continue;
			}
			uint32_t i = s->cur[2 * k], j = s->cur[2 * k + 1];
			uint32_t ci = ta->child_count[i], cj = tb->child_count[j];
			if (!ci && !cj) {
				/* Two leaves: their real triangles go to the last stage */
				push_pair(&s->leaves, &s->leaves_cap, &nleaves, i, j);
				continue;
			}
			/* Unfold the node with the larger halo (a leaf stays as it
			 * is): fanout pairs per overlap instead of fanout^2, so
			 * the bigger node is split first, as in BVH traversals. */
			int split_a = ci && (!cj || ta->eps[i] >= tb->eps[j]);
			uint32_t fi = split_a ? ta->child_first[i] : i, ni = split_a ? ci : 1;
			uint32_t fj = !split_a ? tb->child_first[j] : j, nj = !split_a ? cj : 1;
			for (uint32_t q = 0; q < nj; q++)
				mrdem_search_map_node(s, tb, xb, fj + q);
			/* room for every child pair, once */
			s->next = mrdem_search_grow(s->next, &s->next_cap,
						    2 * (nnext + (size_t)ni * nj), sizeof *s->next);
			uint32_t *out = s->next + 2 * nnext;
			for (uint32_t p = fi; p < fi + ni; p++)
				for (uint32_t q = fj; q < fj + nj; q++) {
					int apart = mrdem_spheres_apart(&ta->node_sphere[4 * (size_t)p],
									&s->nsph_b[4 * (size_t)q], reach);
					out[0] = p;
					out[1] = q;
					out += 2 * !apart;
					cnt->sphere_pruned += (uint64_t)apart;
				}
			nnext = (size_t)(out - s->next) / 2;
		}
		uint32_t *t = s->cur;
		size_t tc = s->cur_cap;
		s->cur = s->next, s->cur_cap = s->next_cap;
		s->next = t, s->next_cap = tc;
		ncur = nnext;
	}

	/* Real triangles of the leaf pairs: the flat search's kernels, cut-off
	 * and float triangles, streamed from the leaves' chunks. The kernels
	 * prune as before: a b triangle whose sphere misses the a leaf's halo
	 * (it holds every real triangle beneath it), an a triangle whose
	 * sphere misses the b leaf's, a pair whose spheres miss each other. */
	size_t first = hits->n;
	mrdem_tri_stream_begin(s->batch, a->eps + b->eps, hits, o);
	for (size_t k = 0; k < nleaves; k++) {
		uint32_t i = s->leaves[2 * k], j = s->leaves[2 * k + 1];
		size_t ca = mrdem_search_leaf_chunks(s, 0, ta, NULL, i);
		size_t cb = mrdem_search_leaf_chunks(s, 1, tb, xb, j);
		uint32_t na = (ta->tri_count[i] + MRDEM_TRI_CHUNK - 1) / MRDEM_TRI_CHUNK;
		uint32_t nb = (tb->tri_count[j] + MRDEM_TRI_CHUNK - 1) / MRDEM_TRI_CHUNK;
		struct mrdem_tri_leaf la = {&s->chunks[ca], na, &ta->node_sphere[4 * (size_t)i]};
		struct mrdem_tri_leaf lb = {&s->chunks[cb], nb, &s->nsph_b[4 * (size_t)j]};
		cnt->sphere_pruned +=
			mrdem_tri_stream_leaves(s->batch, &la, &lb, reach, o, &cnt->real);
	}
	mrdem_tri_stream_end(s->batch, o, &cnt->real);
	for (size_t k = first; k < hits->n; k++) {
		hits->h[k].ta = ta->perm[hits->h[k].ta];
		hits->h[k].tb = tb->perm[hits->h[k].tb];
	}
}

void mrdem_tree_search(struct mrdem_tree_search *s, const struct mrdem_search_side *a,
		       const struct mrdem_search_side *b, const struct mrdem_xform *xb,
		       const struct mrdem_narrow_opts *o, struct mrdem_tri_hits *hits,
		       struct mrdem_search_counts *cnt)
{
	size_t first = hits->n;
	mrdem_tree_search_unsorted(s, a, b, xb, o, hits, cnt);
	mrdem_search_sort_hits(s, hits, first);
}
