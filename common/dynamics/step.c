#include "common/dynamics/step.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/dynamics/integrate.h"
#include "common/geom/quat.h"
#include "common/geom/vec3.h"
#include "common/scene/motion.h"
#include "common/util/error.h"
#include "common/util/threads.h"

void mrdem_step_opts_default(struct mrdem_step_opts *o, const struct mrdem_setup *s)
{
	o->scheme = s->scheme;
	o->dt = s->dt;
	o->max_energy_growth = MRDEM_DEFAULT_MAX_ENERGY_GROWTH;
}

void mrdem_stepper_init(struct mrdem_stepper *st)
{
	memset(st, 0, sizeof *st);
	mrdem_bodies_init(&st->bodies);
	mrdem_id_index_init(&st->index);
	mrdem_bind_key_init(&st->key);
	mrdem_forces_init(&st->forces);
	mrdem_forces_init(&st->sync_forces);
	mrdem_wall_forces_init(&st->walls);
	st->want_energy = 1;
}

void mrdem_stepper_release(struct mrdem_stepper *st)
{
	mrdem_bodies_release(&st->bodies);
	mrdem_id_index_release(&st->index);
	mrdem_bind_key_release(&st->key);
	mrdem_forces_release(&st->forces);
	mrdem_forces_release(&st->sync_forces);
	free(st->sync.flags);
	free(st->sync.quat);
	free(st->sync.vel);
	free(st->sync.angvel);
	free(st->kinetic);
	free(st->kinetic_after);
	mrdem_wall_forces_release(&st->walls);
	mrdem_stepper_init(st);
}

int mrdem_step_opts_check(const struct mrdem_step_opts *o, const struct mrdem_setup *s,
			  uint64_t step)
{
	if (!mrdem_force_model_name(s->force_model))
		return mrdem_error("step %llu: unknown force model %d", (unsigned long long)step,
				   s->force_model);
	if (!mrdem_scheme_name(o->scheme))
		return mrdem_error("step %llu: unknown time-stepping scheme %d",
				   (unsigned long long)step, o->scheme);
	if (!(o->dt > 0) || !isfinite(o->dt))
		return mrdem_error("step %llu: time step %g is not positive", (unsigned long long)step,
				   o->dt);
	if (!(o->max_energy_growth >= 0))
		return mrdem_error("energy growth bound %g is negative", o->max_energy_growth);
	return 0;
}

/* Unit quaternions are an invariant of the state; restore it on input. */
static int normalise_orientations(struct mrdem_particles *p, uint64_t step)
{
	for (size_t i = 0; i < p->n; i++)
		if (!(quat_normalize(&p->quat[4 * i]) > 1e-12))
			return mrdem_error("step %llu: particle %llu has a zero orientation quaternion",
					   (unsigned long long)step, (unsigned long long)p->id[i]);
	return 0;
}

static const char *nonfinite_field(const struct mrdem_particles *p, size_t i)
{
	if (!vec3_isfinite(&p->pos[3 * i]))
		return "position";
	const double *q = &p->quat[4 * i];
	if (!isfinite(q[0]) || !isfinite(q[1]) || !isfinite(q[2]) || !isfinite(q[3]))
		return "orientation";
	if (!vec3_isfinite(&p->vel[3 * i]))
		return "velocity";
	if (!vec3_isfinite(&p->angvel[3 * i]))
		return "angular velocity";
	return NULL;
}

/* The guards' sums over the free particles of s with kinetic energies ke. */
static void guard_sums(struct mrdem_guard_energy *e, const struct mrdem_scene *s,
		       const struct mrdem_bodies *b, const double *ke)
{
	const struct mrdem_particles *p = &s->frame.p;
	const double *g = s->setup.gravity;
	e->kinetic = e->gravity = e->mass = 0;
	for (size_t i = 0; i < p->n; i++) {
		double m = b->b[i].mass;
		if (m == 0 || (p->flags[i] & MRDEM_PARTICLE_GHOST))
			continue;
		e->kinetic += ke[i];
		e->gravity -= m * vec3_dot(g, &p->pos[3 * i]);
		e->mass += m;
	}
}

/* Whether the one-step energy bound applies to steps of o in s. */
static int bounds_energy(const struct mrdem_scene *s, const struct mrdem_step_opts *o)
{
	/* moving walls do work that the energies do not count */
	return o->max_energy_growth != 0 && !s->setup.nmotions;
}

/* Energy created beyond the bound: name the step and the particle that
 * gained most. */
static int guard_energy(struct mrdem_stepper *st, const struct mrdem_scene *s,
			const struct mrdem_step_opts *o)
{
	const struct mrdem_particles *p = &s->frame.p;
	if (!st->after_ready) /* an implicit step's iterate */
		for (size_t i = 0; i < p->n; i++)
			st->kinetic_after[i] = p->flags[i] & MRDEM_PARTICLE_GHOST ? 0 :
					       mrdem_energy_kinetic(s, &st->bodies, i);
	struct mrdem_guard_energy after;
	guard_sums(&after, s, &st->bodies, st->kinetic_after);
	const struct mrdem_guard_energy *before = &st->start;
	double g2 = vec3_norm2(s->setup.gravity);
	double scale = before->kinetic + before->contact + 0.5 * before->mass * g2 * o->dt * o->dt;
	double growth = after.kinetic + after.gravity -
			(before->kinetic + before->gravity + before->contact);
	if (!(growth > o->max_energy_growth * scale))
		return 0;
	size_t worst = 0;
	double worst_gain = -INFINITY;
	for (size_t i = 0; i < p->n; i++)
		if (st->kinetic_after[i] - st->kinetic[i] > worst_gain)
			worst_gain = st->kinetic_after[i] - st->kinetic[i], worst = i;
	return mrdem_error("step %llu (t = %g s): the energy grew by %.4g J in one step, more than "
			   "%g times the %.4g J of kinetic and contact energy before it (plus one "
			   "gravity kick); most at particle %llu (kinetic energy %.4g -> %.4g J); "
			   "reduce the time step %g s",
			   (unsigned long long)st->step, st->time, growth, o->max_energy_growth,
			   scale, (unsigned long long)p->id[worst], st->kinetic[worst],
			   st->kinetic_after[worst], o->dt);
}

/* NaN/inf anywhere, or energy created beyond the bound: name the step and
 * the particle, so no diverged frame is ever written. */
static int guard(struct mrdem_stepper *st, const struct mrdem_scene *s,
		 const struct mrdem_step_opts *o)
{
	const struct mrdem_particles *p = &s->frame.p;
	for (size_t i = 0; i < p->n; i++) {
		const char *what = p->flags[i] & MRDEM_PARTICLE_GHOST ? NULL : nonfinite_field(p, i);
		if (what)
			return mrdem_error("step %llu (t = %g s): particle %llu has a non-finite %s "
					   "after the step; the time step %g s is too large for the "
					   "contact stiffness, or the state diverged",
					   (unsigned long long)st->step, st->time,
					   (unsigned long long)p->id[i], what, o->dt);
	}
	return bounds_energy(s, o) ? guard_energy(st, s, o) : 0;
}

void mrdem_stepper_reserve(struct mrdem_stepper *st, size_t n)
{
	if (n <= st->kcap)
		return;
	st->kinetic = mrdem_xrealloc(st->kinetic, n * sizeof *st->kinetic);
	st->kinetic_after = mrdem_xrealloc(st->kinetic_after, n * sizeof *st->kinetic_after);
	st->kcap = n;
}

void mrdem_stepper_resume(struct mrdem_stepper *st, size_t n)
{
	/* kinetic[] is 0 for fixed particles and ghosts, and the full pass
	 * sums gravity and mass over the others as guard_sums does */
	st->start.kinetic = 0;
	for (size_t i = 0; i < n; i++)
		st->start.kinetic += st->kinetic[i];
	st->start.gravity = st->energy.gravity;
	st->start.contact = st->energy.contact;
	st->start.mass = st->energy.mass;
	st->after_ready = 0;
}

int mrdem_stepper_bind(struct mrdem_stepper *st, const struct mrdem_scene *s)
{
	if (!st->rebind_always && mrdem_bind_key_matches(&st->key, s))
		return 0;
	mrdem_bind_key_forget(&st->key);
	if (mrdem_bodies_compute(&st->bodies, s) || mrdem_id_index_build(&st->index, &s->frame.p))
		return -1;
	mrdem_bind_key_take(&st->key, s);
	return 0;
}

int mrdem_stepper_begin(struct mrdem_stepper *st, struct mrdem_scene *s,
			const struct mrdem_contacts *c, const struct mrdem_step_opts *o)
{
	struct mrdem_frame *fr = &s->frame;
	struct mrdem_particles *p = &fr->p;
	double t0 = mrdem_clock(), tf = 0;
	memset(&st->log, 0, sizeof st->log);
	st->step = fr->step;
	st->time = fr->time;
	st->dt = o->dt;
	st->scheme = o->scheme;
	st->contacts = c ? c->n : 0;
	if (mrdem_step_opts_check(o, &s->setup, fr->step))
		return -1;
	if (fr->step == UINT64_MAX)
		return mrdem_error("step %llu: the frame is at the largest step number; a step "
				   "after it would wrap the counter to 0",
				   (unsigned long long)fr->step);
	if (c && c->step != fr->step)
		return mrdem_error("the contacts are for step %llu but the frame is at step %llu; "
				   "contacts must be computed for the frame they step",
				   (unsigned long long)c->step, (unsigned long long)fr->step);
	if (mrdem_frame_resume_half_step(fr) || normalise_orientations(p, fr->step) ||
	    mrdem_stepper_bind(st, s))
		return -1;
	tf = mrdem_clock();
	if (mrdem_forces_compute(&st->forces, s, &st->bodies, &st->index, c, o->dt))
		return -1;
	tf = mrdem_clock() - tf;
	mrdem_wall_forces_collect(&st->walls, s, &st->forces);
	st->log.seconds[MRDEM_STAGE_FORCES] += tf;
	st->log.calls[MRDEM_STAGE_FORCES]++;
	const double *F = st->forces.force, *T = st->forces.torque;
	const struct mrdem_body *b = st->bodies.b;
	size_t n = p->n;

	mrdem_stepper_reserve(st, n);
	st->after_ready = 0;
	double *ke = st->kinetic;
	/* Forces at these positions close the previous Verlet step first. */
	MRDEM_FOR_PARALLEL_IF(MRDEM_PARALLEL_MIN, i, n,
		mrdem_integrate_close(p, i, &b[i], &F[3 * i], &T[3 * i], o->dt, &ke[i]););

	guard_sums(&st->start, s, &st->bodies, st->kinetic);
	st->start.contact = st->forces.contact_energy;
	if (st->want_energy)
		mrdem_energy_compute(&st->energy, s, &st->bodies);
	else
		mrdem_energy_unknown(&st->energy);
	st->energy.contact = st->forces.contact_energy;
	st->log.seconds[MRDEM_STAGE_INTEGRATE] += mrdem_clock() - t0 - tf;
	st->log.calls[MRDEM_STAGE_INTEGRATE]++;
	return 0;
}

int mrdem_stepper_synchronise(struct mrdem_stepper *st, const struct mrdem_scene *s,
			      const struct mrdem_contacts *c, const struct mrdem_step_opts *o)
{
	const struct mrdem_particles *p = &s->frame.p;
	size_t n = p->n;
	/* what begin does to the frame, on a copy of what it changes */
	struct mrdem_particles *q = &st->sync;
	if (n > q->cap) {
		q->flags = mrdem_xrealloc(q->flags, n * sizeof *q->flags);
		q->quat = mrdem_xrealloc(q->quat, 4 * n * sizeof *q->quat);
		q->vel = mrdem_xrealloc(q->vel, 3 * n * sizeof *q->vel);
		q->angvel = mrdem_xrealloc(q->angvel, 3 * n * sizeof *q->angvel);
		q->cap = n;
	}
	q->n = n;
	q->id = p->id;
	q->shape = p->shape;
	q->pos = p->pos;
	q->density = p->density;
	q->eps = p->eps;
	q->material = p->material; /* the pair laws of materials */
	memcpy(q->flags, p->flags, n * sizeof *q->flags);
	memcpy(q->quat, p->quat, 4 * n * sizeof *q->quat);
	memcpy(q->vel, p->vel, 3 * n * sizeof *q->vel);
	memcpy(q->angvel, p->angvel, 3 * n * sizeof *q->angvel);
	struct mrdem_scene view = *s;
	view.frame.p = *q;
	if (mrdem_step_opts_check(o, &s->setup, s->frame.step) ||
	    normalise_orientations(&view.frame.p, s->frame.step) || mrdem_stepper_bind(st, &view) ||
	    mrdem_forces_compute(&st->sync_forces, &view, &st->bodies, &st->index, c, o->dt))
		return -1;
	const double *F = st->sync_forces.force, *T = st->sync_forces.torque;
	const struct mrdem_body *b = st->bodies.b;
	MRDEM_FOR_PARALLEL_IF(MRDEM_PARALLEL_MIN, i, n,
		mrdem_integrate_close(&view.frame.p, i, &b[i], &F[3 * i], &T[3 * i], o->dt, NULL););
	return 0;
}

int mrdem_stepper_finish(struct mrdem_stepper *st, struct mrdem_scene *s,
			 const struct mrdem_step_opts *o)
{
	double t0 = mrdem_clock();
	int rc = guard(st, s, o);
	st->log.seconds[MRDEM_STAGE_INTEGRATE] += mrdem_clock() - t0;
	if (rc)
		return -1;
	s->frame.step++;
	s->frame.time += o->dt;
	/* moving walls where their closed form puts them (nothing integrated),
	 * before insertions test candidates against them; then particles come
	 * and go, after the guard, so it never sees them */
	if (mrdem_motion_place(s))
		return -1;
	return mrdem_flow_step_end(s, o->dt, &st->flow);
}

int mrdem_stepper_step(struct mrdem_stepper *st, struct mrdem_scene *s,
		       const struct mrdem_contacts *c, const struct mrdem_step_opts *o)
{
	if (o->scheme == MRDEM_SCHEME_IMPLICIT_EULER)
		return mrdem_error("step %llu: scheme implicit-euler needs the contact search in "
				   "every Picard iteration; run it with mrdem-run (in process), "
				   "a single step of it is not available here",
				   (unsigned long long)s->frame.step);
	if (mrdem_stepper_begin(st, s, c, o))
		return -1;
	struct mrdem_particles *p = &s->frame.p;
	const double *F = st->forces.force, *T = st->forces.torque;
	const struct mrdem_body *b = st->bodies.b;
	size_t n = p->n;
	double t0 = mrdem_clock();
	double *ke = bounds_energy(s, o) ? st->kinetic_after : NULL;
	MRDEM_FOR_PARALLEL_IF(MRDEM_PARALLEL_MIN, i, n,
		mrdem_integrate_advance(p, i, &b[i], &F[3 * i], &T[3 * i], o->scheme, o->dt,
					ke ? &ke[i] : NULL););
	st->after_ready = ke != NULL;
	st->log.seconds[MRDEM_STAGE_INTEGRATE] += mrdem_clock() - t0;
	/* the springs stretched over this step go on with the next frame */
	struct mrdem_history h = s->frame.history;
	s->frame.history = st->forces.history;
	st->forces.history = h;
	return mrdem_stepper_finish(st, s, o);
}

void mrdem_stepper_stats(const struct mrdem_stepper *st, struct mrdem_stats *out)
{
	const struct mrdem_energy *e = &st->energy;
	const struct mrdem_forces *f = &st->forces;
	mrdem_stats_add(out, "time", st->time);
	mrdem_stats_add(out, "dt", st->dt);
	mrdem_stats_add(out, "contacts", (double)st->contacts);
	mrdem_stats_add(out, "contacts_active", (double)f->active);
	mrdem_stats_add(out, "contacts_plane", (double)f->plane_active);
	mrdem_stats_add(out, "max_overlap", f->max_overlap);
	mrdem_stats_add(out, "energy_translational", e->translational);
	mrdem_stats_add(out, "energy_rotational", e->rotational);
	mrdem_stats_add(out, MRDEM_STAT_ENERGY_KINETIC, e->translational + e->rotational);
	mrdem_stats_add(out, MRDEM_STAT_ENERGY_GRAVITY, e->gravity);
	mrdem_stats_add(out, MRDEM_STAT_ENERGY_CONTACT, e->contact);
	mrdem_stats_add(out, "energy_total", mrdem_energy_total(e));
	static const char *const mom[] = {"momentum_x", "momentum_y", "momentum_z"};
	static const char *const ang[] = {"angular_momentum_x", "angular_momentum_y",
					  "angular_momentum_z"};
	for (int k = 0; k < 3; k++)
		mrdem_stats_add(out, mom[k], e->momentum[k]);
	for (int k = 0; k < 3; k++)
		mrdem_stats_add(out, ang[k], e->angular_momentum[k]);
	mrdem_flow_stats(&st->flow, out);
	mrdem_wall_forces_stats(&st->walls, out);
}
