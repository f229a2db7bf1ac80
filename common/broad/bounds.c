/* Bounding spheres of particles for the broad phase. */
#include <math.h>
#include <stdlib.h>

#include "common/broad/broad.h"
#include "common/util/error.h"

double mrdem_shape_bound_radius(const struct mrdem_shape *sh)
{
	if (sh->kind != MRDEM_SHAPE_MESH)
		return mrdem_analytic_bound_radius(sh->axes);
	/* Positions are those of mass.com (mesh.h), so the sphere is about
	 * that point; radius_about takes the farthest vertex. */
	return mrdem_mesh_radius_about(&sh->mesh, sh->mesh.mass.com);
}

void mrdem_broad_shape_radii(const struct mrdem_scene *s, double *shape_r)
{
	for (uint32_t k = 0; k < s->nshapes; k++)
		shape_r[k] = mrdem_shape_bound_radius(&s->shapes[k]);
}

int mrdem_broad_bounds(const struct mrdem_scene *s, double *radius)
{
	double *shape_r = mrdem_xmalloc_array(s->nshapes ? s->nshapes : 1, sizeof *shape_r);
	mrdem_broad_shape_radii(s, shape_r);
	int ret = mrdem_broad_bounds_of(s, shape_r, radius);
	free(shape_r);
	return ret;
}

int mrdem_broad_bounds_of(const struct mrdem_scene *s, const double *shape_r, double *radius)
{
	const struct mrdem_particles *p = &s->frame.p;
	uint64_t step = s->frame.step;
	int ret = 0;
	for (size_t i = 0; i < p->n && !ret; i++) {
		const double *x = &p->pos[3 * i];
		if (p->shape[i] >= s->nshapes)
			ret = mrdem_error("step %llu: particle %llu uses shape %u, but the stream has %u shapes",
					  (unsigned long long)step, (unsigned long long)p->id[i],
					  p->shape[i], s->nshapes);
		else if (!(isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2])))
			ret = mrdem_error("step %llu: particle %llu has a non-finite position",
					  (unsigned long long)step, (unsigned long long)p->id[i]);
		else if (!(p->eps[i] >= 0) || !isfinite(p->eps[i]))
			ret = mrdem_error("step %llu: particle %llu has eps %g (need a finite value >= 0)",
					  (unsigned long long)step, (unsigned long long)p->id[i], p->eps[i]);
		else
			radius[i] = shape_r[p->shape[i]] + p->eps[i];
	}
	return ret;
}
