/* Conservative epsilons: exact, and checked.
 *
 * The distance from a point to a triangle S is a convex function of the
 * point, so over a real triangle T it is largest at a vertex of T. Hence
 * eps = max over the vertices v beneath a node of dist(v, S) is the
 * smallest eps for which the halo of S contains every real triangle
 * beneath, and then also their halos: a point y with dist(y, T) <= e has
 * dist(y, S) <= e + max_{q in T} dist(q, S) <= e + eps. */
#include "common/tree/tree.h"

#include <math.h>
#include <stdlib.h>

#include "common/geom/point_triangle.h"
#include "common/util/error.h"

double mrdem_tree_max_distance(const double tri[9], const double *pts, size_t npts)
{
	double e = 0;
	for (size_t i = 0; i < npts; i++) {
		double d = mrdem_point_triangle(&pts[3 * i], &tri[0], &tri[3], &tri[6], NULL);
		if (d > e || isnan(d))
			e = d;
	}
	return e;
}

float mrdem_tree_eps_round_up(double e, double coord)
{
	/* the double evaluation is good to a few ulps of the coordinates; the
	 * margin is a thousand times that and far below float resolution */
	double safe = e * (1.0 + 1e-12) + 1e-12 * fabs(coord);
	float f = (float)safe;
	if ((double)f < safe)
		f = nextafterf(f, INFINITY);
	return f;
}

struct node_check {
	size_t violations;
	struct mrdem_tree_violation worst;
	double excess;
};

static void check_node(const struct mrdem_tree *t, const struct mrdem_mesh *m, uint32_t n,
		       struct node_check *out)
{
	double S[9];
	for (int k = 0; k < 9; k++)
		S[k] = t->tri[9 * n + k];
	double eps = t->eps[n];
	out->violations = 0;
	out->excess = -INFINITY;
	for (uint32_t i = t->tri_first[n]; i < t->tri_first[n] + t->tri_count[n]; i++) {
		uint32_t mt = t->perm[i];
		double worst = -INFINITY;
		for (int v = 0; v < 3; v++) {
			const double *p = &m->verts[3 * (size_t)m->tris[3 * (size_t)mt + v]];
			double pf[3] = {(float)p[0], (float)p[1], (float)p[2]};
			double d = fmax(mrdem_point_triangle(p, &S[0], &S[3], &S[6], NULL),
					mrdem_point_triangle(pf, &S[0], &S[3], &S[6], NULL));
			if (isnan(d))
				d = INFINITY;
			worst = fmax(worst, d);
		}
		if (worst > eps)
			out->violations++;
		if (worst - eps > out->excess) {
			out->excess = worst - eps;
			out->worst.node = n;
			out->worst.tri = mt;
			out->worst.dist = worst;
			out->worst.eps = eps;
		}
	}
}

size_t mrdem_tree_verify(const struct mrdem_tree *t, const struct mrdem_mesh *m,
			 struct mrdem_tree_violation *worst)
{
	struct node_check *res = mrdem_xmalloc_array(t->nnodes, sizeof *res);
#pragma omp parallel for schedule(dynamic, 1)
	for (uint32_t n = 0; n < t->nnodes; n++)
		check_node(t, m, n, &res[n]);
	/* reduce in node order: the same answer for any thread count */
	size_t total = 0;
	double excess = -INFINITY;
	for (uint32_t n = 0; n < t->nnodes; n++) {
		total += res[n].violations;
		if (res[n].excess > excess) {
			excess = res[n].excess;
			if (worst)
				*worst = res[n].worst;
		}
	}
	free(res);
	return total;
}
