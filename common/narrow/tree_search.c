#include "common/narrow/tree_search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"

/* Grow a scratch array to hold at least n elements of size sz. */
static void *grow(void *p, size_t *cap, size_t n, size_t sz)
{
	if (n <= *cap)
		return p;
	size_t c = *cap ? *cap : 256;
	while (c < n)
		c *= 2;
	*cap = c;
	return mrdem_xrealloc(p, c * sz);
}

struct mrdem_tree_search {
	struct mrdem_tri_batch *batch;
	/* active node pairs of this round and of the next */
	uint32_t *cur, *next;
	size_t cur_cap, next_cap;
	/* real triangle pairs (soup indices) gathered from leaf pairs, and
	 * the triangles of one b leaf that may touch the a leaf */
	uint32_t *real, *keep;
	size_t real_cap, keep_cap;
	struct mrdem_tri_result *res;
	size_t res_cap;
	/* per-call halos of a's and b's nodes, b's mapped nodes and soup and
	 * the centres of their bounding spheres */
	float *eps_a, *eps_b, *node_b, *soup_b, *nsph_b, *tsph_b;
	size_t eps_a_cap, eps_b_cap, node_b_cap, soup_b_cap, nsph_b_cap, tsph_b_cap;
	/* which of b's nodes / leaves are mapped in this call */
	uint32_t *node_stamp, *leaf_stamp;
	size_t node_stamp_cap, leaf_stamp_cap;
	uint32_t stamp;
};

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
	free(s->cur);
	free(s->next);
	free(s->real);
	free(s->keep);
	free(s->res);
	free(s->eps_a);
	free(s->eps_b);
	free(s->node_b);
	free(s->soup_b);
	free(s->nsph_b);
	free(s->tsph_b);
	free(s->node_stamp);
	free(s->leaf_stamp);
	free(s);
}

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

/* Largest coordinate magnitude of a tree's root halo: the scale of the
 * float rounding in a search. */
static float extent(const struct mrdem_tree *t)
{
	float m = 0;
	for (int c = 0; c < 9; c++)
		m = fmaxf(m, fabsf(t->tri[c]));
	return m + t->eps[0];
}

/* Map node n of b (its surrogate and its sphere's centre) on first use. */
static void map_node(struct mrdem_tree_search *s, const struct mrdem_tree *t,
		     const struct mrdem_xform *x, uint32_t n)
{
	if (s->node_stamp[n] == s->stamp)
		return;
	s->node_stamp[n] = s->stamp;
	xform_apply_tris(x, &t->tri[9 * (size_t)n], &s->node_b[9 * (size_t)n], 1);
	xform_apply_f(x, &t->node_sphere[4 * (size_t)n], &s->nsph_b[4 * (size_t)n]);
	s->nsph_b[4 * (size_t)n + 3] = t->node_sphere[4 * (size_t)n + 3];
}

/* Map the real triangles of leaf n of b on first use. */
static void map_leaf(struct mrdem_tree_search *s, const struct mrdem_tree *t,
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

/* Bounding spheres too far apart for the halos to meet: the pair cannot
 * be in contact, and the triangle kernels need not see it. */
static inline int apart(const float *p, const float *q, float reach)
{
	float dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
	float r = p[3] + q[3] + reach;
	return dx * dx + dy * dy + dz * dz > r * r;
}

static void push_pair(uint32_t **v, size_t *cap, size_t *n, uint32_t i, uint32_t j)
{
	*v = grow(*v, cap, 2 * (*n + 1), sizeof **v);
	(*v)[2 * *n] = i;
	(*v)[2 * *n + 1] = j;
	(*n)++;
}

static int cmp_hit(const void *p, const void *q)
{
	const struct mrdem_tri_hit *a = p, *b = q;
	if (a->ta != b->ta)
		return a->ta < b->ta ? -1 : 1;
	return a->tb < b->tb ? -1 : a->tb > b->tb;
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
	/* Slack on surrogate halos for float rounding of kernels and transform.
	 * The iterative kernel needs none: it only says SEPARATE when a lower
	 * bound of the distance exceeds the cut (common/narrow/tri_penalty.c). */
	float slack = 1e-5f * (extent(ta) + extent(tb));

	s->eps_a = grow(s->eps_a, &s->eps_a_cap, ta->nnodes, sizeof *s->eps_a);
	s->eps_b = grow(s->eps_b, &s->eps_b_cap, tb->nnodes, sizeof *s->eps_b);
	for (uint32_t n = 0; n < ta->nnodes; n++)
		s->eps_a[n] = ta->eps[n] + a->eps + 0.5f * slack;
	for (uint32_t n = 0; n < tb->nnodes; n++)
		s->eps_b[n] = tb->eps[n] + b->eps + 0.5f * slack;
	s->node_b = grow(s->node_b, &s->node_b_cap, 9 * (size_t)tb->nnodes, sizeof *s->node_b);
	s->soup_b = grow(s->soup_b, &s->soup_b_cap, 9 * (size_t)tb->ntris, sizeof *s->soup_b);
	s->nsph_b = grow(s->nsph_b, &s->nsph_b_cap, 4 * (size_t)tb->nnodes, sizeof *s->nsph_b);
	s->tsph_b = grow(s->tsph_b, &s->tsph_b_cap, 4 * (size_t)tb->ntris, sizeof *s->tsph_b);
	/* Sphere radii carry the nodes' own eps; the particles' come here. */
	float reach = a->eps + b->eps + slack;
	size_t old = s->node_stamp_cap;
	s->node_stamp = grow(s->node_stamp, &s->node_stamp_cap, tb->nnodes, sizeof *s->node_stamp);
	if (s->node_stamp_cap != old)
		memset(s->node_stamp, 0, s->node_stamp_cap * sizeof *s->node_stamp);
	old = s->leaf_stamp_cap;
	s->leaf_stamp = grow(s->leaf_stamp, &s->leaf_stamp_cap, tb->nnodes, sizeof *s->leaf_stamp);
	if (s->leaf_stamp_cap != old)
		memset(s->leaf_stamp, 0, s->leaf_stamp_cap * sizeof *s->leaf_stamp);
	if (++s->stamp == 0) { /* wrapped: forget every stamp */
		memset(s->node_stamp, 0, s->node_stamp_cap * sizeof *s->node_stamp);
		memset(s->leaf_stamp, 0, s->leaf_stamp_cap * sizeof *s->leaf_stamp);
		s->stamp = 1;
	}

	struct mrdem_tri_set na = {ta->tri, ta->nnodes, s->eps_a, 0};
	struct mrdem_tri_set nb = {s->node_b, tb->nnodes, s->eps_b, 0};
	/* Surrogates never fall back: an undecided (not converged) pair simply
	 * unfolds. The iterative method alone would decide such a pair by its
	 * unconverged iterate, which may overestimate the distance and prune a
	 * contact; as a hybrid without fallback it runs the same sweeps and
	 * keeps the pair instead. */
	struct mrdem_narrow_opts surrogate = *o;
	surrogate.fallback = 0;
	if (surrogate.method == MRDEM_NARROW_ITERATIVE)
		surrogate.method = MRDEM_NARROW_HYBRID;

	size_t ncur = 0, nnext, nreal = 0;
	push_pair(&s->cur, &s->cur_cap, &ncur, 0, 0);
	map_node(s, tb, xb, 0);
	for (int round = 0; ncur; round++) {
		struct mrdem_narrow_counts *rc = &cnt->round[round < MRDEM_SEARCH_ROUNDS ? round : MRDEM_SEARCH_ROUNDS - 1];
		s->res = grow(s->res, &s->res_cap, ncur, sizeof *s->res);
		mrdem_tri_pairs_test(s->batch, &na, &nb, s->cur, ncur, &surrogate, s->res, rc);
		nnext = 0;
		for (size_t k = 0; k < ncur; k++) {
			if (s->res[k].status == MRDEM_TRI_SEPARATE) {
				cnt->pruned++;
				continue;
			}
			uint32_t i = s->cur[2 * k], j = s->cur[2 * k + 1];
			uint32_t ci = ta->child_count[i], cj = tb->child_count[j];
			if (!ci && !cj) {
				/* Two leaves: their real triangles go to the last batch,
				 * except those whose sphere misses the other leaf's halo
				 * (it holds every real triangle beneath it) or whose
				 * spheres miss each other. */
				map_leaf(s, tb, xb, j);
				uint32_t nq = 0, fb = tb->tri_first[j], cb = tb->tri_count[j];
				s->keep = grow(s->keep, &s->keep_cap, cb, sizeof *s->keep);
				for (uint32_t q = fb; q < fb + cb; q++)
					if (!apart(&ta->node_sphere[4 * (size_t)i], &s->tsph_b[4 * (size_t)q], reach))
						s->keep[nq++] = q;
				cnt->sphere_pruned += (uint64_t)(cb - nq) * ta->tri_count[i];
				for (uint32_t p = ta->tri_first[i]; p < ta->tri_first[i] + ta->tri_count[i]; p++) {
					const float *sp = &ta->soup_sphere[4 * (size_t)p];
					if (apart(sp, &s->nsph_b[4 * (size_t)j], reach)) {
						cnt->sphere_pruned += nq;
						continue;
					}
					for (uint32_t k = 0; k < nq; k++) {
						uint32_t q = s->keep[k];
						if (apart(sp, &s->tsph_b[4 * (size_t)q], reach))
							cnt->sphere_pruned++;
						else
							push_pair(&s->real, &s->real_cap, &nreal, p, q);
					}
				}
				continue;
			}
			/* Unfold the node with the larger halo (a leaf stays as it
			 * is): fanout pairs per overlap instead of fanout^2, so
			 * the bigger node is split first, as in BVH traversals. */
			int split_a = ci && (!cj || ta->eps[i] >= tb->eps[j]);
			uint32_t fi = split_a ? ta->child_first[i] : i, ni = split_a ? ci : 1;
			uint32_t fj = !split_a ? tb->child_first[j] : j, nj = !split_a ? cj : 1;
			for (uint32_t q = 0; q < nj; q++)
				map_node(s, tb, xb, fj + q);
			for (uint32_t p = fi; p < fi + ni; p++)
				for (uint32_t q = fj; q < fj + nj; q++) {
					if (apart(&ta->node_sphere[4 * (size_t)p], &s->nsph_b[4 * (size_t)q], reach))
						cnt->sphere_pruned++;
					else
						push_pair(&s->next, &s->next_cap, &nnext, p, q);
				}
		}
		uint32_t *t = s->cur;
		size_t tc = s->cur_cap;
		s->cur = s->next, s->cur_cap = s->next_cap;
		s->next = t, s->next_cap = tc;
		ncur = nnext;
	}

	/* Real triangles: the flat search's kernels and halos, in soup order. */
	struct mrdem_tri_set ra = {ta->soup, ta->ntris, NULL, a->eps};
	struct mrdem_tri_set rb = {s->soup_b, tb->ntris, NULL, b->eps};
	s->res = grow(s->res, &s->res_cap, nreal, sizeof *s->res);
	mrdem_tri_pairs_test(s->batch, &ra, &rb, s->real, nreal, o, s->res, &cnt->real);
	size_t first = hits->n;
	for (size_t k = 0; k < nreal; k++) {
		if (s->res[k].status != MRDEM_TRI_CONTACT)
			continue;
		if (hits->n == hits->cap) {
			hits->cap = hits->cap ? 2 * hits->cap : 64;
			hits->h = mrdem_xrealloc(hits->h, hits->cap * sizeof *hits->h);
		}
		struct mrdem_tri_hit *h = &hits->h[hits->n++];
		h->ta = ta->perm[s->real[2 * k]];
		h->tb = tb->perm[s->real[2 * k + 1]];
		memcpy(h->pa, s->res[k].pa, sizeof h->pa);
		memcpy(h->pb, s->res[k].pb, sizeof h->pb);
		h->dist = s->res[k].dist;
	}
	if (hits->n > first)
		qsort(hits->h + first, hits->n - first, sizeof *hits->h, cmp_hit);
}
