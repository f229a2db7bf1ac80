/* Surrogate tree construction (paper Algorithm 7, Appendix B).
 *
 * Top-down: split a node's triangles into min(fanout, ceil(n / leaf))
 * compact clusters of roughly equal size by k-means on the triangle
 * centroids, until a node holds at most `leaf` triangles. The split works
 * in place on one permutation array, breadth first, so the node array comes
 * out level by level with contiguous children and every subtree's
 * triangles contiguous.
 *
 * Then one surrogate triangle per node. With the epsilon taken against the
 * real triangles beneath (tree_eps.c), nodes do not depend on each other,
 * so they are fitted in parallel; each node's result depends only on its
 * own triangles, never on the thread count or schedule. */
#include "common/tree/tree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/vec3.h"
#include "common/tree/surrogate.h"
#include "common/util/error.h"
#include "common/util/rng.h"

/* Clusters may exceed the mean size by this fraction. */
#define CLUSTER_SLACK 0.25

struct tnode {
	uint32_t first, count;       /* range of perm */
	uint32_t child_first, nchild;
	uint32_t depth;
};

struct builder {
	const struct mrdem_mesh *m;
	const struct mrdem_tree_params *p;
	double *cent;                /* 3 per mesh triangle */
	uint32_t *perm;
	struct tnode *nodes;
	size_t n, cap;
	/* k-means scratch, sized for the root */
	uint32_t *label, *tmp;
	double *centers, *sums;
	uint32_t *sizes;
};

static uint64_t seed_mix(uint64_t seed, uint64_t node)
{
	uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (node + 1);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Nearest center (lowest index on ties). */
static uint32_t nearest(const double *p, const double *centers, uint32_t k, double *dbest)
{
	uint32_t best = 0;
	double bd = INFINITY;
	for (uint32_t c = 0; c < k; c++) {
		double d = vec3_dist2(p, &centers[3 * c]);
		if (d < bd)
			bd = d, best = c;
	}
	if (dbest)
		*dbest = bd;
	return best;
}

static void update_centers(struct builder *b, const uint32_t *idx, uint32_t n, uint32_t k)
{
	memset(b->sums, 0, 3 * k * sizeof *b->sums);
	memset(b->sizes, 0, k * sizeof *b->sizes);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t c = b->label[i];
		vec3_add(&b->sums[3 * c], &b->sums[3 * c], &b->cent[3 * (size_t)idx[i]]);
		b->sizes[c]++;
	}
	for (uint32_t c = 0; c < k; c++)
		if (b->sizes[c])
			vec3_scale(&b->centers[3 * c], &b->sums[3 * c], 1.0 / b->sizes[c]);
}

struct cand {
	double d;
	uint32_t point;
};

static int cand_cmp(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;
	if (a->d != b->d)
		return a->d < b->d ? -1 : 1;
	return a->point < b->point ? -1 : a->point > b->point;
}

/* Assign the points, those nearest to a center first, each to the nearest
 * center that still has room: compact clusters no larger than cap, in
 * O(n) memory. */
static void assign_capped(struct builder *b, const uint32_t *idx, uint32_t n, uint32_t k,
			  uint32_t cap)
{
	struct cand *c = mrdem_xmalloc_array(n, sizeof *c);
	for (uint32_t i = 0; i < n; i++) {
		nearest(&b->cent[3 * (size_t)idx[i]], b->centers, k, &c[i].d);
		c[i].point = i;
	}
	qsort(c, n, sizeof *c, cand_cmp);
	memset(b->sizes, 0, k * sizeof *b->sizes);
	for (uint32_t e = 0; e < n; e++) {
		const double *p = &b->cent[3 * (size_t)idx[c[e].point]];
		uint32_t best = 0;
		double bd = INFINITY;
		for (uint32_t j = 0; j < k; j++) {
			double d = vec3_dist2(p, &b->centers[3 * j]);
			if (b->sizes[j] < cap && d < bd)
				bd = d, best = j;
		}
		b->label[c[e].point] = best;
		b->sizes[best]++;
	}
	free(c);
}

/* k-means (k-means++ seeding, Lloyd iterations, then a size cap) on the
 * centroids of triangles idx[0..n); labels into b->label. */
static void kmeans(struct builder *b, const uint32_t *idx, uint32_t n, uint32_t k,
		   uint64_t seed)
{
	struct mrdem_rng rng;
	mrdem_rng_seed(&rng, seed);
	double *d2 = mrdem_xmalloc_array(n, sizeof *d2);
	uint32_t first = (uint32_t)(mrdem_rng_uniform(&rng) * n);
	if (first >= n)
		first = n - 1;
	vec3_copy(&b->centers[0], &b->cent[3 * (size_t)idx[first]]);
	for (uint32_t i = 0; i < n; i++)
		d2[i] = vec3_dist2(&b->cent[3 * (size_t)idx[i]], &b->centers[0]);
	for (uint32_t c = 1; c < k; c++) {
		double total = 0;
		for (uint32_t i = 0; i < n; i++)
			total += d2[i];
		uint32_t pick = n - 1;
		if (total > 0) {
			double r = mrdem_rng_uniform(&rng) * total, acc = 0;
			for (uint32_t i = 0; i < n; i++) {
				acc += d2[i];
				if (acc > r) {
					pick = i;
					break;
				}
			}
		} else {
			pick = (uint32_t)(((uint64_t)c * n) / k);
		}
		vec3_copy(&b->centers[3 * c], &b->cent[3 * (size_t)idx[pick]]);
		for (uint32_t i = 0; i < n; i++)
			d2[i] = fmin(d2[i], vec3_dist2(&b->cent[3 * (size_t)idx[i]], &b->centers[3 * c]));
	}
	for (uint32_t it = 0; it < b->p->kmeans_iters; it++) {
		int changed = 0;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t l = nearest(&b->cent[3 * (size_t)idx[i]], b->centers, k, &d2[i]);
			changed |= it == 0 || l != b->label[i];
			b->label[i] = l;
		}
		update_centers(b, idx, n, k);
		/* an empty cluster restarts at the point worst served */
		for (uint32_t c = 0; c < k; c++) {
			if (b->sizes[c])
				continue;
			uint32_t far = 0;
			for (uint32_t i = 1; i < n; i++)
				if (d2[i] > d2[far])
					far = i;
			vec3_copy(&b->centers[3 * c], &b->cent[3 * (size_t)idx[far]]);
			d2[far] = 0;
			changed = 1;
		}
		if (!changed)
			break;
	}
	uint32_t cap = (uint32_t)ceil((1.0 + CLUSTER_SLACK) * n / k), biggest = 0;
	for (uint32_t c = 0; c < k; c++)
		biggest = b->sizes[c] > biggest ? b->sizes[c] : biggest;
	if (biggest > cap)
		for (int round = 0; round < 3; round++) { /* capped Lloyd steps */
			assign_capped(b, idx, n, k, cap);
			update_centers(b, idx, n, k);
		}
	free(d2);
}

static struct tnode *push_node(struct builder *b)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 64;
		b->nodes = mrdem_xrealloc(b->nodes, b->cap * sizeof *b->nodes);
	}
	struct tnode *t = &b->nodes[b->n++];
	memset(t, 0, sizeof *t);
	return t;
}

static void split(struct builder *b, size_t ni)
{
	struct tnode node = b->nodes[ni];
	uint32_t n = node.count, leaf = b->p->leaf;
	uint64_t want = ((uint64_t)n + leaf - 1) / leaf;
	uint32_t k = want < b->p->fanout ? (uint32_t)want : b->p->fanout;
	uint32_t *idx = &b->perm[node.first];
	kmeans(b, idx, n, k, seed_mix(b->p->seed, ni));
	memset(b->sizes, 0, k * sizeof *b->sizes);
	for (uint32_t i = 0; i < n; i++)
		b->sizes[b->label[i]]++;
	uint32_t nonempty = 0;
	for (uint32_t c = 0; c < k; c++)
		nonempty += b->sizes[c] > 0;
	if (nonempty < 2) {
		/* all centroids coincide: split in order so the recursion ends */
		for (uint32_t i = 0; i < n; i++)
			b->label[i] = (uint32_t)(((uint64_t)i * k) / n);
		memset(b->sizes, 0, k * sizeof *b->sizes);
		for (uint32_t i = 0; i < n; i++)
			b->sizes[b->label[i]]++;
	}
	/* stable reorder by cluster */
	uint32_t start[1025], pos = 0; /* fanout <= 1024 */
	for (uint32_t c = 0; c < k; c++) {
		start[c] = pos;
		pos += b->sizes[c];
	}
	for (uint32_t i = 0; i < n; i++)
		b->tmp[start[b->label[i]]++] = idx[i];
	memcpy(idx, b->tmp, n * sizeof *idx);
	b->nodes[ni].child_first = (uint32_t)b->n;
	pos = node.first;
	for (uint32_t c = 0; c < k; c++) {
		if (!b->sizes[c])
			continue;
		struct tnode *ch = push_node(b);
		ch->first = pos;
		ch->count = b->sizes[c];
		ch->depth = node.depth + 1;
		pos += b->sizes[c];
		b->nodes[ni].nchild++;
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Surrogate and epsilon of one node. */
static void fit_node(const struct mrdem_mesh *m, const struct mrdem_tree_params *p,
		     const uint32_t *idx, uint32_t n, float out[9], float *eps)
{
	double *tris = mrdem_xmalloc_array(9 * (size_t)n, sizeof *tris);
	uint32_t *vid = mrdem_xmalloc_array(3 * (size_t)n, sizeof *vid);
	for (uint32_t i = 0; i < n; i++)
		for (int v = 0; v < 3; v++) {
			uint32_t vi = m->tris[3 * (size_t)idx[i] + v];
			vid[3 * i + v] = vi;
			memcpy(&tris[9 * (size_t)i + 3 * v], &m->verts[3 * (size_t)vi],
			       3 * sizeof *tris);
		}
	qsort(vid, 3 * (size_t)n, sizeof *vid, cmp_u32);
	size_t np = 0;
	for (size_t i = 0; i < 3 * (size_t)n; i++)
		if (i == 0 || vid[i] != vid[i - 1])
			vid[np++] = vid[i];
	/* the points in double and as the float soup the kernels will see */
	double *pts = mrdem_xmalloc_array(6 * np, sizeof *pts), coord = 0;
	for (size_t i = 0; i < np; i++)
		for (int k = 0; k < 3; k++) {
			double v = m->verts[3 * (size_t)vid[i] + k];
			pts[3 * i + k] = v;
			pts[3 * (np + i) + k] = (float)v;
			coord = fmax(coord, fabs(v));
		}

	struct mrdem_surrogate_problem pb;
	mrdem_surrogate_problem_init(&pb, tris, n, pts, np, p);
	double S[9], Sf[9];
	mrdem_surrogate_fit(&pb, p->iters, p->refine, S, NULL);
	for (int k = 0; k < 9; k++) {
		out[k] = (float)S[k];
		Sf[k] = out[k];
	}
	if (mrdem_triangle_quality(Sf) < 0.5 * MRDEM_SURROGATE_MIN_QUALITY) {
		/* float rounding flattened it: fall back to a real triangle */
		mrdem_surrogate_start(&pb, S);
		for (int v = 0; v < 3; v++)
			for (int k = 0; k < 3; k++) {
				out[3 * v + k] = (float)(pb.centre[k] + pb.scale * S[3 * v + k]);
				Sf[3 * v + k] = out[3 * v + k];
			}
	}
	for (int k = 0; k < 9; k++)
		coord = fmax(coord, fabs(Sf[k]));
	*eps = mrdem_tree_eps_round_up(mrdem_tree_max_distance(Sf, pts, 2 * np), coord);
	mrdem_surrogate_problem_release(&pb);
	free(pts);
	free(vid);
	free(tris);
}

int mrdem_tree_build(const struct mrdem_mesh *m, const struct mrdem_tree_params *p,
		     struct mrdem_tree **out)
{
	*out = NULL;
	if (mrdem_tree_params_check(p))
		return -1;
	if (m->ntris < 1)
		return mrdem_error("cannot build a tree for a mesh without triangles");
	for (size_t i = 0; i < 3 * (size_t)m->nverts; i++)
		if (!isfinite(m->verts[i]))
			return mrdem_error("mesh vertex %zu is not finite", i / 3);
	for (size_t i = 0; i < 3 * (size_t)m->ntris; i++)
		if (m->tris[i] >= m->nverts)
			return mrdem_error("mesh triangle %zu uses vertex %u of %u", i / 3,
					   m->tris[i], m->nverts);

	struct builder b;
	memset(&b, 0, sizeof b);
	b.m = m;
	b.p = p;
	uint32_t nt = m->ntris;
	b.cent = mrdem_xmalloc_array(3 * (size_t)nt, sizeof *b.cent);
	b.perm = mrdem_xmalloc_array(nt, sizeof *b.perm);
	b.label = mrdem_xmalloc_array(nt, sizeof *b.label);
	b.tmp = mrdem_xmalloc_array(nt, sizeof *b.tmp);
	b.centers = mrdem_xmalloc_array(3 * (size_t)p->fanout, sizeof *b.centers);
	b.sums = mrdem_xmalloc_array(3 * (size_t)p->fanout, sizeof *b.sums);
	b.sizes = mrdem_xmalloc_array(p->fanout, sizeof *b.sizes);
	for (uint32_t t = 0; t < nt; t++) {
		b.perm[t] = t;
		for (int k = 0; k < 3; k++) {
			double s = 0;
			for (int v = 0; v < 3; v++)
				s += m->verts[3 * (size_t)m->tris[3 * (size_t)t + v] + k];
			b.cent[3 * (size_t)t + k] = s / 3.0;
		}
	}
	struct tnode *root = push_node(&b);
	root->count = nt;
	for (size_t i = 0; i < b.n; i++)
		if (b.nodes[i].count > p->leaf)
			split(&b, i);

	uint32_t nnodes = (uint32_t)b.n, nlevels = b.nodes[b.n - 1].depth + 1;
	struct mrdem_tree *t = mrdem_tree_alloc(nnodes, nlevels, nt);
	t->params = *p;
	t->mesh_hash = mrdem_mesh_fingerprint(m);
	memcpy(t->perm, b.perm, nt * sizeof *t->perm);
	for (uint32_t l = 0, i = 0; l <= nlevels; l++) {
		while (i < nnodes && b.nodes[i].depth < l)
			i++;
		t->level_first[l] = i;
	}
	for (uint32_t i = 0; i < nnodes; i++) {
		t->child_first[i] = b.nodes[i].nchild ? b.nodes[i].child_first : 0;
		t->child_count[i] = b.nodes[i].nchild;
		t->tri_first[i] = b.nodes[i].first;
		t->tri_count[i] = b.nodes[i].count;
	}
#pragma omp parallel for schedule(dynamic, 1)
	for (uint32_t i = 0; i < nnodes; i++)
		fit_node(m, p, &b.perm[b.nodes[i].first], b.nodes[i].count, &t->tri[9 * (size_t)i],
			 &t->eps[i]);

	free(b.cent);
	free(b.perm);
	free(b.label);
	free(b.tmp);
	free(b.centers);
	free(b.sums);
	free(b.sizes);
	free(b.nodes);
	if (mrdem_tree_check_layout(t, "built tree") || mrdem_tree_bind(t, m, "built tree")) {
		mrdem_tree_free(t);
		return -1;
	}
	*out = t;
	return 0;
}
