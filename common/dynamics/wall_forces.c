#include "common/dynamics/wall_forces.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"

void mrdem_wall_forces_init(struct mrdem_wall_forces *w)
{
	memset(w, 0, sizeof *w);
}

void mrdem_wall_forces_release(struct mrdem_wall_forces *w)
{
	free(w->id);
	free(w->ft);
	free(w->plane_ft);
	mrdem_wall_forces_init(w);
}

void mrdem_wall_forces_collect(struct mrdem_wall_forces *w, const struct mrdem_scene *s,
			       const struct mrdem_forces *f)
{
	const struct mrdem_particles *p = &s->frame.p;
	w->n = 0;
	for (size_t i = 0; i < p->n; i++) {
		if (!(p->flags[i] & MRDEM_PARTICLE_FIXED))
			continue;
		if (w->n == w->cap) {
			w->cap = w->cap ? 2 * w->cap : 8;
			w->id = mrdem_xrealloc_for(w->id, w->cap, sizeof *w->id, "walls");
			w->ft = mrdem_xrealloc_for(w->ft, w->cap, 6 * sizeof *w->ft, "walls");
		}
		w->id[w->n] = p->id[i];
		memcpy(&w->ft[6 * w->n], &f->force[3 * i], 3 * sizeof *w->ft);
		memcpy(&w->ft[6 * w->n + 3], &f->torque[3 * i], 3 * sizeof *w->ft);
		w->n++;
	}
	w->nplanes = f->nplanes;
	if (w->nplanes > w->plane_cap) {
		w->plane_ft = mrdem_xrealloc_for(w->plane_ft, w->nplanes, 6 * sizeof *w->plane_ft,
						 "planes");
		w->plane_cap = w->nplanes;
	}
	for (uint32_t k = 0; k < w->nplanes; k++) {
		memcpy(&w->plane_ft[6 * k], &f->plane_force[3 * k], 3 * sizeof *w->plane_ft);
		memcpy(&w->plane_ft[6 * k + 3], &f->plane_torque[3 * k], 3 * sizeof *w->plane_ft);
	}
}

static void add_six(struct mrdem_stats *out, const char *kind, unsigned long long id,
		    const double *ft)
{
	static const char *const what[6] = {"force_x", "force_y", "force_z",
					    "torque_x", "torque_y", "torque_z"};
	char name[80];
	for (int c = 0; c < 6; c++) {
		snprintf(name, sizeof name, "%s_%s.%llu", kind, what[c], id);
		mrdem_stats_add(out, name, ft[c]);
	}
}

void mrdem_wall_forces_stats(const struct mrdem_wall_forces *w, struct mrdem_stats *out)
{
	for (size_t k = 0; k < w->n; k++)
		add_six(out, "wall", (unsigned long long)w->id[k], &w->ft[6 * k]);
	for (uint32_t k = 0; k < w->nplanes; k++)
		add_six(out, "plane", k, &w->plane_ft[6 * k]);
}
