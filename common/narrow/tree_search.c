#include "common/narrow/tree_search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/narrow/search_scratch.h"

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

/* The children first .. first + count - 1 of side k's tree t (b's
 * mapped already) into the columns of the runs, once per call. */
static void group_columns(struct mrdem_tree_search *s, int k, const struct mrdem_tree *t,
			  uint32_t first, uint32_t count)
{
	if (s->group_stamp[k][first] == s->stamp)
		return;
	s->group_stamp[k][first] = s->stamp;
	const float *v = k ? s->node_b : t->tri;
	float *cols = s->cols[k];
	size_t stride = t->nnodes;
	for (uint32_t n = first; n < first + count; n++)
		for (int c = 0; c < 9; c++)
			cols[c * stride + n] = v[9 * (size_t)n + c];
}

void mrdem_tree_search(struct mrdem_tree_search *s, const struct mrdem_search_side *a,
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
	float reach = mrdem_search_prepare(s, a, b);

	struct mrdem_tri_set na = {ta->tri, ta->nnodes, s->eps_a, 0};
	struct mrdem_tri_set nb = {s->node_b, tb->nnodes, s->eps_b, 0};
	const struct mrdem_tri_cols cols[2] = {{s->cols[0], ta->nnodes}, {s->cols[1], tb->nnodes}};
	struct mrdem_narrow_opts surrogate = mrdem_search_surrogate_opts(o);

	/* round 0: a's root against the group of b's root alone */
	size_t nruns = 1, nnext, npairs = 1, nleaves = 0;
	mrdem_search_map_node(s, tb, xb, 0);
	group_columns(s, 1, tb, 0, 1);
	s->runs = mrdem_search_grow(s->runs, &s->runs_cap, 1, sizeof *s->runs);
	s->runs[0] = (struct mrdem_tri_run){0, 0, 1, 1};
	for (int round = 0; nruns; round++) {
		struct mrdem_narrow_counts *rc = &cnt->round[round < MRDEM_SEARCH_ROUNDS ? round : MRDEM_SEARCH_ROUNDS - 1];
		s->status = mrdem_search_grow(s->status, &s->status_cap, npairs, sizeof *s->status);
		mrdem_tri_runs_status(s->batch, &na, &nb, cols, s->runs, nruns, &surrogate, s->status,
				      rc);
		nnext = 0;
		npairs = 0;
		const int32_t *st = s->status;
		for (size_t r = 0; r < nruns; r++) {
			const struct mrdem_tri_run run = s->runs[r];
			for (uint32_t bits = run.mask; bits; bits &= bits - 1, st++) {
				if (*st == MRDEM_TRI_SEPARATE) {
					cnt->pruned++;
					continue;
				}
				uint32_t g = run.first + (uint32_t)__builtin_ctz(bits);
				uint32_t i = run.side ? run.fixed : g, j = run.side ? g : run.fixed;
				uint32_t ci = ta->child_count[i], cj = tb->child_count[j];
				if (!ci && !cj) {
					/* Two leaves: their real triangles go to the last stage */
					push_pair(&s->leaves, &s->leaves_cap, &nleaves, i, j);
					continue;
				}
				/* Unfold the node with the larger halo (a leaf stays as
				 * it is): fanout pairs per overlap instead of fanout^2,
				 * so the bigger node is split first, as in BVH
				 * traversals. Its children are one group. */
				int split_a = ci && (!cj || ta->eps[i] >= tb->eps[j]);
				uint32_t first = split_a ? ta->child_first[i] : tb->child_first[j];
				uint32_t count = split_a ? ci : cj, fixed = split_a ? j : i;
				if (split_a) {
					group_columns(s, 0, ta, first, count);
				} else {
					for (uint32_t q = 0; q < count; q++)
						mrdem_search_map_node(s, tb, xb, first + q);
					group_columns(s, 1, tb, first, count);
				}
				const float *fsph = split_a ? &s->nsph_b[4 * (size_t)j]
							    : &ta->node_sphere[4 * (size_t)i];
				const float *gsph = split_a ? ta->node_sphere : s->nsph_b;
				/* room for every run of the group, once */
				s->runs_next = mrdem_search_grow(s->runs_next, &s->runs_next_cap,
								 nnext + (count + 15) / 16,
								 sizeof *s->runs_next);
				for (uint32_t f = 0; f < count; f += 16) {
					uint32_t m = 0, n = count - f < 16 ? count - f : 16;
					for (uint32_t q = 0; q < n; q++) {
						const float *c = &gsph[4 * (size_t)(first + f + q)];
						/* a's sphere first, as the pair's order */
						int apart = split_a ? mrdem_spheres_apart(c, fsph, reach)
								    : mrdem_spheres_apart(fsph, c, reach);
						m |= (uint32_t)!apart << q;
						cnt->sphere_pruned += (uint64_t)apart;
					}
					if (!m)
						continue;
					s->runs_next[nnext++] = (struct mrdem_tri_run){
						fixed, first + f, m, split_a ? 0u : 1u};
					npairs += (size_t)__builtin_popcount(m);
				}
			}
		}
		struct mrdem_tri_run *t = s->runs;
		size_t tc = s->runs_cap;
		s->runs = s->runs_next, s->runs_cap = s->runs_next_cap;
		s->runs_next = t, s->runs_next_cap = tc;
		nruns = nnext;
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
		cnt->sphere_pruned += mrdem_tri_stream_leaves(
			s->batch, &s->chunks[ca], na, &ta->node_sphere[4 * (size_t)i], &s->chunks[cb],
			nb, &s->nsph_b[4 * (size_t)j], reach, o, &cnt->real);
	}
	mrdem_tri_stream_end(s->batch, o, &cnt->real);
	for (size_t k = first; k < hits->n; k++) {
		hits->h[k].ta = ta->perm[hits->h[k].ta];
		hits->h[k].tb = tb->perm[hits->h[k].tb];
	}
	mrdem_search_sort_hits(s, hits, first);
}
