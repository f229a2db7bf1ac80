/* Surrogate tree storage: parameters, allocation, layout checks, binding
 * a tree to its mesh. */
#include "common/tree/tree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"
#include "common/util/hash.h"

void mrdem_tree_params_default(struct mrdem_tree_params *p)
{
	memset(p, 0, sizeof *p);
	p->fanout = 8;        /* the paper's N_surrogate */
	p->leaf = 8;
	p->seed = 1;
	p->kmeans_iters = 16;
	p->beta_size = 16;    /* "very high": the sum acts as a maximum */
	p->alpha_area = 1e-5; /* settles a sphere's root at ~10 % of its radius */
	p->alpha_inside = 1e-2;
	p->beta_normal = 4;
	p->iters = 200;
	p->refine = 1;
}

int mrdem_tree_params_check(const struct mrdem_tree_params *p)
{
	if (p->fanout < 2 || p->fanout > 1024)
		return mrdem_error("fanout %u out of range (2..1024)", p->fanout);
	if (p->leaf < 1 || p->leaf > 1u << 20)
		return mrdem_error("leaf size %u out of range (1..%u)", p->leaf, 1u << 20);
	if (p->kmeans_iters < 1 || p->kmeans_iters > 1000)
		return mrdem_error("k-means iterations %u out of range (1..1000)", p->kmeans_iters);
	if (p->beta_size < 2 || p->beta_size > 64)
		return mrdem_error("beta_size %u out of range (integer 2..64)", p->beta_size);
	if (p->beta_normal < 2 || p->beta_normal > 64)
		return mrdem_error("beta_normal %u out of range (integer 2..64)", p->beta_normal);
	if (!(p->alpha_area > 0) || !isfinite(p->alpha_area))
		return mrdem_error("alpha_area must be positive and finite (got %g)", p->alpha_area);
	if (!(p->alpha_inside >= 0) || !isfinite(p->alpha_inside))
		return mrdem_error("alpha_inside must be >= 0 and finite (got %g)", p->alpha_inside);
	if (p->iters < 1 || p->iters > 100000)
		return mrdem_error("iterations %u out of range (1..100000)", p->iters);
	return 0;
}

struct mrdem_tree *mrdem_tree_alloc(uint32_t nnodes, uint32_t nlevels, uint32_t ntris)
{
	struct mrdem_tree *t = mrdem_xcalloc(1, sizeof *t);
	t->nnodes = nnodes;
	t->nlevels = nlevels;
	t->ntris = ntris;
	t->level_first = mrdem_xmalloc_array((size_t)nlevels + 1, sizeof *t->level_first);
	t->tri = mrdem_xmalloc_array(9 * (size_t)nnodes, sizeof *t->tri);
	t->eps = mrdem_xmalloc_array(nnodes, sizeof *t->eps);
	t->child_first = mrdem_xmalloc_array(nnodes, sizeof *t->child_first);
	t->child_count = mrdem_xmalloc_array(nnodes, sizeof *t->child_count);
	t->tri_first = mrdem_xmalloc_array(nnodes, sizeof *t->tri_first);
	t->tri_count = mrdem_xmalloc_array(nnodes, sizeof *t->tri_count);
	t->parent = mrdem_xmalloc_array(nnodes, sizeof *t->parent);
	t->level = mrdem_xmalloc_array(nnodes, sizeof *t->level);
	t->perm = mrdem_xmalloc_array(ntris, sizeof *t->perm);
	t->soup = NULL;
	t->node_sphere = NULL;
	t->soup_sphere = NULL;
	return t;
}

void mrdem_tree_free(struct mrdem_tree *t)
{
	if (!t)
		return;
	free(t->level_first);
	free(t->tri);
	free(t->eps);
	free(t->child_first);
	free(t->child_count);
	free(t->tri_first);
	free(t->tri_count);
	free(t->parent);
	free(t->level);
	free(t->perm);
	free(t->soup);
	free(t->node_sphere);
	free(t->soup_sphere);
	free(t);
}

int mrdem_tree_check_layout(struct mrdem_tree *t, const char *what)
{
	if (t->nnodes < 1 || t->nlevels < 1 || t->nlevels > t->nnodes)
		return mrdem_error("%s: %u nodes in %u levels is not a tree", what, t->nnodes,
				   t->nlevels);
	if (t->ntris < 1)
		return mrdem_error("%s: a tree needs at least one triangle", what);
	if (t->level_first[0] != 0 || t->level_first[1] != 1 ||
	    t->level_first[t->nlevels] != t->nnodes)
		return mrdem_error("%s: level table does not start with one root and end at "
				   "node %u", what, t->nnodes);
	for (uint32_t l = 0; l < t->nlevels; l++)
		if (t->level_first[l + 1] <= t->level_first[l])
			return mrdem_error("%s: level %u is empty or out of order", what, l);
	t->parent[0] = MRDEM_TREE_NONE;
	if (t->tri_first[0] != 0 || t->tri_count[0] != t->ntris)
		return mrdem_error("%s: root covers triangles [%u, +%u), not all %u", what,
				   t->tri_first[0], t->tri_count[0], t->ntris);
	for (uint32_t l = 0; l < t->nlevels; l++) {
		uint32_t next = t->level_first[l + 1];
		uint32_t end = l + 1 < t->nlevels ? t->level_first[l + 2] : next;
		for (uint32_t n = t->level_first[l]; n < t->level_first[l + 1]; n++) {
			t->level[n] = l;
			for (int k = 0; k < 9; k++)
				if (!isfinite(t->tri[9 * n + k]))
					return mrdem_error("%s: node %u has a non-finite surrogate "
							   "triangle", what, n);
			if (!(t->eps[n] >= 0) || !isfinite(t->eps[n]))
				return mrdem_error("%s: node %u has epsilon %g (must be finite "
						   "and >= 0)", what, n, (double)t->eps[n]);
			if (t->tri_count[n] == 0)
				return mrdem_error("%s: node %u covers no triangle", what, n);
			if (t->child_count[n] == 0)
				continue;
			/* children: the next unclaimed run of the next level, splitting
			 * this node's triangle range in order */
			if (t->child_first[n] != next || t->child_count[n] > end - next)
				return mrdem_error("%s: node %u has children [%u, +%u), expected "
						   "to start at %u within level %u", what, n,
						   t->child_first[n], t->child_count[n], next, l + 1);
			uint32_t tf = t->tri_first[n];
			for (uint32_t c = next; c < next + t->child_count[n]; c++) {
				if (t->tri_first[c] != tf ||
				    t->tri_count[c] > t->tri_first[n] + t->tri_count[n] - tf)
					return mrdem_error("%s: child %u of node %u has triangles "
							   "[%u, +%u) outside its parent's", what,
							   c, n, t->tri_first[c], t->tri_count[c]);
				tf += t->tri_count[c];
				t->parent[c] = n;
			}
			if (tf != t->tri_first[n] + t->tri_count[n])
				return mrdem_error("%s: children of node %u do not cover its "
						   "triangles", what, n);
			next += t->child_count[n];
		}
		if (next != end)
			return mrdem_error("%s: level %u has nodes without a parent", what, l + 1);
	}
	unsigned char *seen = mrdem_xcalloc(t->ntris, 1);
	for (uint32_t i = 0; i < t->ntris; i++) {
		if (t->perm[i] >= t->ntris || seen[t->perm[i]]) {
			free(seen);
			return mrdem_error("%s: triangle order is not a permutation (entry %u = %u)",
					   what, i, t->perm[i]);
		}
		seen[t->perm[i]] = 1;
	}
	free(seen);
	return 0;
}

uint64_t mrdem_mesh_fingerprint(const struct mrdem_mesh *m)
{
	uint64_t h = mrdem_mix64(0x6d72646d74726565ULL ^ m->nverts);
	h = mrdem_mix64(h ^ m->ntris);
	for (size_t i = 0; i < 3 * (size_t)m->nverts; i++) {
		uint64_t bits;
		double v = m->verts[i] == 0 ? 0.0 : m->verts[i]; /* -0 == 0 */
		memcpy(&bits, &v, sizeof bits);
		h = mrdem_mix64(h ^ bits) + i;
	}
	for (size_t i = 0; i < 3 * (size_t)m->ntris; i++)
		h = mrdem_mix64(h ^ m->tris[i]) + i;
	return h;
}

/* Sphere about a float triangle's centroid holding the triangle and a
 * halo eps; the radius is rounded up so float tests stay conservative. */
static void bound_triangle(const float *v, float eps, float out[4])
{
	double c[3], r2 = 0;
	for (int k = 0; k < 3; k++)
		c[k] = ((double)v[k] + v[3 + k] + v[6 + k]) / 3;
	for (int j = 0; j < 3; j++) {
		double d2 = 0;
		for (int k = 0; k < 3; k++)
			d2 += (v[3 * j + k] - c[k]) * (v[3 * j + k] - c[k]);
		r2 = d2 > r2 ? d2 : r2;
	}
	for (int k = 0; k < 3; k++)
		out[k] = (float)c[k];
	/* The float centre is up to half an ulp of |c| off the exact one. */
	double slack = 1e-6 * (fabs(c[0]) + fabs(c[1]) + fabs(c[2]) + sqrt(r2));
	out[3] = (float)((sqrt(r2) + eps + slack) * (1 + 1e-6));
}

int mrdem_tree_bind(struct mrdem_tree *t, const struct mrdem_mesh *m, const char *what)
{
	if (t->ntris != m->ntris)
		return mrdem_error("%s: tree has %u triangles but the mesh has %u", what, t->ntris,
				   m->ntris);
	if (t->mesh_hash != mrdem_mesh_fingerprint(m))
		return mrdem_error("%s: tree was built for a different mesh (fingerprint "
				   "mismatch)", what);
	free(t->soup);
	t->soup = mrdem_xmalloc_array(9 * (size_t)t->ntris, sizeof *t->soup);
	for (uint32_t i = 0; i < t->ntris; i++)
		for (int v = 0; v < 3; v++) {
			const double *p = &m->verts[3 * (size_t)m->tris[3 * (size_t)t->perm[i] + v]];
			for (int k = 0; k < 3; k++)
				t->soup[9 * (size_t)i + 3 * v + k] = (float)p[k];
		}
	free(t->node_sphere);
	free(t->soup_sphere);
	t->node_sphere = mrdem_xmalloc_array(4 * (size_t)t->nnodes, sizeof *t->node_sphere);
	t->soup_sphere = mrdem_xmalloc_array(4 * (size_t)t->ntris, sizeof *t->soup_sphere);
	for (uint32_t n = 0; n < t->nnodes; n++)
		bound_triangle(&t->tri[9 * (size_t)n], t->eps[n], &t->node_sphere[4 * (size_t)n]);
	for (uint32_t i = 0; i < t->ntris; i++)
		bound_triangle(&t->soup[9 * (size_t)i], 0, &t->soup_sphere[4 * (size_t)i]);
	return 0;
}
