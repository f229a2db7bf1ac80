/* Figures of a surrogate tree: per level and for the root (paper Table 1). */
#include "common/tree/tree.h"

#include <math.h>

#include "common/geom/vec3.h"

static void tri_area_perimeter(const double x[9], double *area, double *perim)
{
	double e1[3], e2[3], c[3];
	vec3_sub(e1, &x[3], &x[0]);
	vec3_sub(e2, &x[6], &x[0]);
	vec3_cross(c, e1, e2);
	*area = 0.5 * vec3_norm(c);
	*perim = vec3_dist(&x[0], &x[3]) + vec3_dist(&x[3], &x[6]) + vec3_dist(&x[6], &x[0]);
}

double mrdem_halo_volume(const double tri[9], double eps)
{
	double a, p;
	tri_area_perimeter(tri, &a, &p);
	return 2 * eps * a + 0.5 * M_PI * eps * eps * p + (4.0 / 3.0) * M_PI * eps * eps * eps;
}

void mrdem_tree_level_stats(const struct mrdem_tree *t, uint32_t level,
			    struct mrdem_tree_level_stats *s)
{
	s->nodes = s->leaves = s->tris = 0;
	s->eps_min = s->eps_mean = s->eps_max = 0;
	if (level >= t->nlevels)
		return;
	uint32_t a = t->level_first[level], b = t->level_first[level + 1];
	double sum = 0, lo = INFINITY, hi = 0;
	for (uint32_t n = a; n < b; n++) {
		double e = t->eps[n];
		sum += e;
		lo = fmin(lo, e);
		hi = fmax(hi, e);
		if (!t->child_count[n]) {
			s->leaves++;
			s->tris += t->tri_count[n];
		}
	}
	s->nodes = b - a;
	s->eps_min = lo;
	s->eps_mean = sum / s->nodes;
	s->eps_max = hi;
}

void mrdem_tree_root_stats(const struct mrdem_tree *t, const struct mrdem_mesh *m,
			   struct mrdem_tree_root_stats *s)
{
	double x[9];
	for (int k = 0; k < 9; k++)
		x[k] = t->tri[k];
	s->d = fmax(fmax(vec3_dist(&x[0], &x[3]), vec3_dist(&x[3], &x[6])), vec3_dist(&x[6], &x[0]));
	s->eps = t->eps[0];
	tri_area_perimeter(x, &s->area, &s->perimeter);
	s->halo_volume = mrdem_halo_volume(x, s->eps);
	if (!m->open && m->mass.volume > 0) {
		vec3_copy(s->centre, m->mass.com);
	} else {
		double lo[3], hi[3];
		mrdem_mesh_bbox(m, lo, hi);
		for (int k = 0; k < 3; k++)
			s->centre[k] = 0.5 * (lo[k] + hi[k]);
	}
	s->radius = mrdem_mesh_radius_about(m, s->centre);
	s->sphere_volume = (4.0 / 3.0) * M_PI * s->radius * s->radius * s->radius;
	s->ratio = s->sphere_volume > 0 ? s->halo_volume / s->sphere_volume : INFINITY;
}
