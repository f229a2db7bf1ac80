#include "common/scene/motion.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/quat.h"
#include "common/geom/vec3.h"
#include "common/util/error.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static const char *const kind_names[MRDEM_MOTION_KINDS] = {"velocity", "rotate", "oscillate"};

const char *mrdem_motion_kind_name(uint32_t kind)
{
	return kind >= 1 && kind <= MRDEM_MOTION_KINDS ? kind_names[kind - 1] : NULL;
}

static int finite_n(const double *x, int n)
{
	for (int i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return 0;
	return 1;
}

const char *mrdem_motion_invalid(const struct mrdem_motion *m)
{
	if (!mrdem_motion_kind_name(m->kind))
		return "unknown motion kind";
	if (!isfinite(m->start) || !finite_n(m->ref_pos, 3) || !finite_n(m->ref_quat, 4) ||
	    !finite_n(m->ref_normal, 3) || !finite_n(m->dir, 3) || !finite_n(m->point, 3) ||
	    !isfinite(m->omega) || !isfinite(m->amplitude) || !isfinite(m->frequency))
		return "a value is not finite";
	if (m->kind != MRDEM_MOTION_VELOCITY && fabs(vec3_norm(m->dir) - 1) > 1e-9)
		return m->kind == MRDEM_MOTION_ROTATE ? "the axis is not a unit vector" :
							"the direction is not a unit vector";
	if (!(m->amplitude >= 0) || !(m->frequency >= 0))
		return "the amplitude or frequency is negative";
	return NULL;
}

/* Motions stay sorted by target, so a particle finds its own by bisection. */
static long find_index(const struct mrdem_setup *s, uint64_t id)
{
	size_t lo = 0, hi = s->nmotions;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->motions[mid].target < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->nmotions && s->motions[lo].target == id ? (long)lo : -1;
}

struct mrdem_motion *mrdem_motion_add(struct mrdem_setup *s, const struct mrdem_motion *m)
{
	size_t at = s->nmotions;
	while (at > 0 && s->motions[at - 1].target > m->target)
		at--;
	s->motions = mrdem_xrealloc_for(s->motions, s->nmotions + 1, sizeof *s->motions,
					"motions");
	memmove(&s->motions[at + 1], &s->motions[at], (s->nmotions - at) * sizeof *s->motions);
	s->motions[at] = *m;
	s->nmotions++;
	return &s->motions[at];
}

const struct mrdem_motion *mrdem_motion_find(const struct mrdem_setup *s, uint64_t id)
{
	long k = find_index(s, id);
	return k < 0 ? NULL : &s->motions[k];
}

void mrdem_motion_pose(const struct mrdem_motion *m, double t, double pos[3], double quat[4],
		       double normal[3], double vel[3], double angvel[3])
{
	double tau = t - m->start;
	vec3_copy(pos, m->ref_pos);
	memcpy(quat, m->ref_quat, 4 * sizeof *quat);
	vec3_copy(normal, m->ref_normal);
	vec3_set(vel, 0, 0, 0);
	vec3_set(angvel, 0, 0, 0);
	if (tau < 0)
		return;
	switch (m->kind) {
	case MRDEM_MOTION_VELOCITY:
		vec3_axpy(pos, m->ref_pos, tau, m->dir);
		vec3_copy(vel, m->dir);
		break;
	case MRDEM_MOTION_ROTATE: {
		double r[4], R[9], arm[3];
		quat_from_axis_angle(r, m->dir, m->omega * tau);
		quat_to_matrix(r, R);
		vec3_sub(arm, m->ref_pos, m->point);
		mat3_apply(arm, R, arm);
		vec3_add(pos, m->point, arm);
		quat_mul(quat, r, m->ref_quat);
		quat_normalize(quat);
		mat3_apply(normal, R, m->ref_normal);
		vec3_scale(angvel, m->dir, m->omega);
		vec3_cross(vel, angvel, arm);
		break;
	}
	case MRDEM_MOTION_OSCILLATE: {
		double phase = 2 * M_PI * m->frequency * tau;
		vec3_axpy(pos, m->ref_pos, m->amplitude * sin(phase), m->dir);
		vec3_scale(vel, m->dir, 2 * M_PI * m->frequency * m->amplitude * cos(phase));
		break;
	}
	}
}

int mrdem_motion_place_planes(struct mrdem_setup *s, double t)
{
	for (uint32_t k = 0; k < s->nmotions; k++) {
		const struct mrdem_motion *m = &s->motions[k];
		if (!mrdem_is_plane_id(m->target))
			continue;
		uint32_t i = mrdem_plane_index(m->target);
		if (i >= s->nplanes)
			return mrdem_error("motion %u: plane %u is not in the setup (%u planes)", k, i,
					   s->nplanes);
		struct mrdem_plane *pl = &s->planes[i];
		double q[4];
		mrdem_motion_pose(m, t, pl->point, q, pl->normal, pl->vel, pl->angvel);
	}
	return 0;
}

/* Every particle of p that a motion names must be there and fixed; place:
 * put it at its pose at t. What is wrong into why (NULL when nothing is). */
static const char *each_moving(const struct mrdem_setup *s, struct mrdem_particles *p, double t,
			       int place, char *why, size_t len)
{
	size_t found = 0, wanted = 0;
	for (uint32_t k = 0; k < s->nmotions; k++)
		wanted += !mrdem_is_plane_id(s->motions[k].target);
	for (size_t i = 0; i < p->n && found < wanted; i++) {
		long k = find_index(s, p->id[i]);
		if (k < 0)
			continue;
		if (!(p->flags[i] & MRDEM_PARTICLE_FIXED)) {
			snprintf(why, len, "particle %llu has a motion but is not fixed",
				 (unsigned long long)p->id[i]);
			return why;
		}
		double normal[3];
		if (place)
			mrdem_motion_pose(&s->motions[k], t, &p->pos[3 * i], &p->quat[4 * i], normal,
					  &p->vel[3 * i], &p->angvel[3 * i]);
		found++;
	}
	if (found == wanted)
		return NULL;
	snprintf(why, len, "%zu of the %zu moving particles of the motion record are not in the "
		 "frame", wanted - found, wanted);
	return why;
}

const char *mrdem_motion_frame_problem(const struct mrdem_setup *s,
				       const struct mrdem_particles *p, char *why, size_t len)
{
	return each_moving(s, (struct mrdem_particles *)p, 0, 0, why, len);
}

int mrdem_motion_place_particles(const struct mrdem_setup *s, struct mrdem_particles *p,
				 double t)
{
	char why[160];
	return each_moving(s, p, t, 1, why, sizeof why) ? mrdem_error("%s", why) : 0;
}

int mrdem_motion_place(struct mrdem_scene *s)
{
	if (!s->setup.nmotions)
		return 0;
	return mrdem_motion_place_planes(&s->setup, s->frame.time) ||
	       mrdem_motion_place_particles(&s->setup, &s->frame.p, s->frame.time) ? -1 : 0;
}
