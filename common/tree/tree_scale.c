/* A tree scaled with its mesh: one offline tree serves every size of a
 * shape (docs/surrogate-trees.md, "Scaled shapes"). The layout is copied;
 * each surrogate vertex is scaled in double and rounded to float, each
 * eps is scaled and widened by a margin that covers those roundings. */
#include <math.h>
#include <string.h>

#include "common/tree/tree.h"
#include "common/util/error.h"

/* Largest absolute coordinate of the float triangles and of the mesh. */
static double largest_coordinate(const struct mrdem_tree *t, const struct mrdem_mesh *m)
{
	double c = 0;
	for (size_t k = 0; k < 9 * (size_t)t->nnodes; k++)
		c = fmax(c, fabs((double)t->tri[k]));
	for (size_t k = 0; k < 3 * (size_t)m->nverts; k++)
		c = fmax(c, fabs(m->verts[k]));
	return c;
}

struct mrdem_tree *mrdem_tree_scaled(const struct mrdem_tree *t, double scale,
				     const struct mrdem_mesh *scaled, const char *what)
{
	struct mrdem_tree *u = mrdem_tree_alloc(t->nnodes, t->nlevels, t->ntris);
	size_t nn = t->nnodes;
	u->params = t->params;
	u->mesh_hash = mrdem_mesh_fingerprint(scaled);
	memcpy(u->level_first, t->level_first, ((size_t)t->nlevels + 1) * sizeof *u->level_first);
	memcpy(u->child_first, t->child_first, nn * sizeof *u->child_first);
	memcpy(u->child_count, t->child_count, nn * sizeof *u->child_count);
	memcpy(u->tri_first, t->tri_first, nn * sizeof *u->tri_first);
	memcpy(u->tri_count, t->tri_count, nn * sizeof *u->tri_count);
	memcpy(u->parent, t->parent, nn * sizeof *u->parent);
	memcpy(u->level, t->level, nn * sizeof *u->level);
	memcpy(u->perm, t->perm, (size_t)t->ntris * sizeof *u->perm);
	for (size_t k = 0; k < 9 * nn; k++)
		u->tri[k] = (float)(scale * (double)t->tri[k]);
	/* Each float surrogate vertex moved by at most half a float ulp of
	 * the largest coordinate C from the exact scaled one, each real
	 * vertex (double, and its float form) likewise: a distance moves by
	 * at most sqrt(3) ulp/2 for each, so 4 ulps (2^-22 C) cover both. */
	double coord = largest_coordinate(u, scaled), margin = ldexp(coord, -22);
	for (size_t n = 0; n < nn; n++)
		u->eps[n] = mrdem_tree_eps_round_up(scale * (double)t->eps[n] + margin, coord);
	if (mrdem_tree_bind(u, scaled, what)) {
		mrdem_tree_free(u);
		return NULL;
	}
	return u;
}
