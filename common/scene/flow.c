/* Inflow and outflow at the end of a step (flow.h): the schedule of the
 * insertions, and the outflow regions' deletions. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/vec3.h"
#include "common/scene/flow.h"
#include "common/scene/scene.h"
#include "common/scene/stats.h"
#include "common/util/error.h"

void mrdem_flow_release(struct mrdem_flow *f)
{
	for (uint32_t k = 0; k < f->ninsert; k++)
		free(f->insert[k].shapes);
	free(f->insert);
	free(f->remove);
	memset(f, 0, sizeof *f);
}

uint64_t mrdem_insertion_placed(const struct mrdem_insertion *in, uint64_t s)
{
	if (s < in->start)
		return 0;
	if (in->per_step == 0)
		return in->total;
	/* the 1e-9 keeps whole products (a rate times dt of 1) whole */
	double v = floor((double)(s - in->start) * in->per_step + 1e-9);
	return v >= (double)in->total ? in->total : (uint64_t)v;
}

/* Delete the free particles whose centre is in a remove region. */
static void outflow(struct mrdem_scene *s, struct mrdem_flow_account *acc)
{
	struct mrdem_particles *p = &s->frame.p;
	unsigned char *drop = NULL;
	for (size_t i = 0; i < p->n; i++) {
		if (p->flags[i] & MRDEM_PARTICLE_FIXED)
			continue;
		uint32_t k = 0;
		while (k < s->flow.nremove && !mrdem_region_contains(&s->flow.remove[k], &p->pos[3 * i]))
			k++;
		if (k == s->flow.nremove)
			continue;
		if (!drop)
			drop = mrdem_xcalloc(p->n, 1);
		drop[i] = 1;
		acc->removed++;
		acc->removed_mass += mrdem_particle_mass(s, i);
	}
	if (drop)
		mrdem_frame_remove(&s->frame, drop);
	free(drop);
}

/* Insertion k's particles due at frame step `step`. */
static int inflow(struct mrdem_scene *s, uint32_t k, uint64_t step, uint64_t *inserted)
{
	const struct mrdem_insertion *in = &s->flow.insert[k];
	uint64_t before = step ? mrdem_insertion_placed(in, step - 1) : 0;
	uint64_t after = mrdem_insertion_placed(in, step);
	if (after <= before)
		return 0;
	*inserted += after - before;
	return mrdem_inflow_place(s, k, before, after, step);
}

int mrdem_flow_step_end(struct mrdem_scene *s, double dt, struct mrdem_flow_account *acc)
{
	memset(acc, 0, sizeof *acc);
	acc->removes = s->flow.nremove > 0;
	acc->inserts = s->flow.ninsert > 0;
	if (acc->removes)
		outflow(s, acc);
	for (uint32_t k = 0; k < s->flow.ninsert; k++) {
		const struct mrdem_insertion *in = &s->flow.insert[k];
		if (in->dt != dt)
			return mrdem_error("step %llu: insert[%u] is scheduled in steps of %.17g s, "
					   "but the run steps %.17g s; run it with the scene's dt",
					   (unsigned long long)s->frame.step, k, in->dt, dt);
		if (inflow(s, k, s->frame.step, &acc->inserted))
			return -1;
	}
	return 0;
}

void mrdem_flow_stats(const struct mrdem_flow_account *acc, struct mrdem_stats *out)
{
	if (acc->removes) {
		mrdem_stats_add(out, MRDEM_STAT_REMOVED_PARTICLES, (double)acc->removed);
		mrdem_stats_add(out, MRDEM_STAT_REMOVED_MASS, acc->removed_mass);
	}
	if (acc->inserts)
		mrdem_stats_add(out, MRDEM_STAT_INSERTED_PARTICLES, (double)acc->inserted);
}

void mrdem_flow_account_add_stats(struct mrdem_flow_account *acc, const struct mrdem_stats *st)
{
	for (size_t i = 0; i < st->n; i++) {
		double v = st->values[i];
		if (!(v >= 0 && v < 9e18)) /* not a count or mass: nothing to add */
			continue;
		if (!strcmp(st->names[i], MRDEM_STAT_REMOVED_PARTICLES))
			acc->removed += (uint64_t)v, acc->removes = 1;
		else if (!strcmp(st->names[i], MRDEM_STAT_REMOVED_MASS))
			acc->removed_mass += v;
		else if (!strcmp(st->names[i], MRDEM_STAT_INSERTED_PARTICLES))
			acc->inserted += (uint64_t)v, acc->inserts = 1;
	}
}

void mrdem_flow_grow_bounds(const struct mrdem_flow *f, double lo[3], double hi[3], double *vmax)
{
	for (uint32_t k = 0; k < f->ninsert; k++) {
		double a[3], b[3];
		mrdem_region_bounds(&f->insert[k].region, a, b);
		for (int c = 0; c < 3; c++)
			lo[c] = fmin(lo[c], a[c]), hi[c] = fmax(hi[c], b[c]);
		*vmax = fmax(*vmax, vec3_norm(f->insert[k].vel));
	}
}

/* What is wrong with insertion in of scene s (whose shapes are known), or
 * NULL: the checks the stream reader makes, with the scene file's in
 * scene_yaml. */
const char *mrdem_insertion_check(const struct mrdem_scene *s, const struct mrdem_insertion *in,
				  char *buf, size_t size)
{
	const char *why = mrdem_region_check(&in->region);
	if (why)
		return why;
	if (in->region.kind == MRDEM_REGION_OUTSIDE)
		return "particles are inserted into a box or cylinder, not outside a box";
	if (!in->nshapes)
		return "no shapes to draw from";
	double sum = 0;
	uint32_t nmat = s->setup.materials ? s->setup.materials->n : 1;
	for (uint32_t j = 0; j < in->nshapes; j++) {
		const struct mrdem_insert_shape *e = &in->shapes[j];
		if (e->shape >= s->nshapes)
			snprintf(buf, size, "shape %u of %u is not in the scene", e->shape, s->nshapes);
		else if (s->shapes[e->shape].mesh.open)
			snprintf(buf, size, "shape '%s' is an open mesh (fixed particles only)",
				 s->shapes[e->shape].name);
		else if (e->material >= nmat)
			snprintf(buf, size, "material %u of %u is not in the scene", e->material,
				 s->setup.materials ? nmat : 0);
		else if (!(e->fraction > 0 && e->fraction <= 1))
			snprintf(buf, size, "fraction %g is not in (0, 1]", e->fraction);
		else if (!(e->density > 0 && isfinite(e->density)))
			snprintf(buf, size, "density %g is not positive", e->density);
		else if (!(e->eps > 0 && isfinite(e->eps)))
			snprintf(buf, size, "epsilon %g is not a positive length", e->eps);
		else {
			sum += e->fraction;
			continue;
		}
		return buf;
	}
	if (!(fabs(sum - 1) <= 1e-9))
		return "the fractions do not sum to 1";
	if (!vec3_isfinite(in->vel) || !vec3_isfinite(in->angvel) ||
	    !(in->per_step >= 0 && isfinite(in->per_step)) || !(in->dt > 0 && isfinite(in->dt)))
		return "a velocity, the rate or dt is not finite (or negative)";
	if (in->random_orientation != 0 && in->random_orientation != 1)
		return "random_orientation is neither 0 nor 1";
	double qn = in->quat[0] * in->quat[0] + in->quat[1] * in->quat[1] +
		    in->quat[2] * in->quat[2] + in->quat[3] * in->quat[3];
	if (!in->random_orientation && !(fabs(qn - 1) < 1e-6))
		return "the orientation is not a unit quaternion";
	if (!in->total || in->first_id >= MRDEM_PLANE_ID_MIN ||
	    in->total > MRDEM_PLANE_ID_MIN - in->first_id)
		return "no particles, or ids that reach the planes' range";
	return NULL;
}
