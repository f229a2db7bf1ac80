/* Bounding spheres of particles for the broad phase. */
#include <math.h>

#include "common/broad/broad.h"
#include "common/util/error.h"

int mrdem_broad_bounds(const struct mrdem_scene *s, double *radius)
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
			radius[i] = s->shapes[p->shape[i]].bound_radius + p->eps[i];
	}
	return ret;
}
