#include "common/sim/picard.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dynamics/integrate.h"
#include "common/geom/vec3.h"
#include "common/scene/motion.h"
#include "common/util/error.h"
#include "common/util/parse.h"
#include "common/util/threads.h"

/* Damping/acceleration of the iterates (paper Sec. 6.1), per particle and
 * separately for the linear and the angular update. */
#define WEIGHT_START 0.5
#define WEIGHT_GROW 1.5
#define WEIGHT_SHRINK 0.5
#define WEIGHT_MIN 0.05
/* Absolute floors of the force scale, so that near-zero forces (a contact
 * at the edge of the halo, a particle in free flight) do not demand ever
 * smaller relative changes: this fraction of the largest gross force on
 * any particle, and the force that changes the particle's speed
 * |v| + size |w| by this fraction within the step. */
#define FLOOR_FRACTION 1e-3
#define FLOOR_SPEED 1e-2
/* Particles named in a failure message. */
#define NAMED_MAX 8

void mrdem_picard_opts_default(struct mrdem_picard_opts *o)
{
	o->tol = MRDEM_PICARD_DEFAULT_TOL;
	o->max_iter = MRDEM_PICARD_DEFAULT_MAX;
	o->max_retries = MRDEM_PICARD_DEFAULT_RETRIES;
	o->damping = MRDEM_PICARD_DEFAULT_DAMPING;
	o->warm_start = 1;
}

const char mrdem_picard_opts_usage[] =
	"  --picard-tol X    implicit-euler: converged when every particle's force and\n"
	"                    torque change by less than X relative from one Picard\n"
	"                    iteration to the next (default 0.01)\n"
	"  --picard-max N    implicit-euler: Picard iterations per attempt (default 50)\n"
	"  --picard-retries N  implicit-euler: halvings of the time step after a failed\n"
	"                    attempt before the step fails (default 4, at most 60)\n"
	"  --surrogate-damping X  implicit-euler with --hierarchy multiscale: factor\n"
	"                    on the forces of surrogate contacts, the force guesses of\n"
	"                    coarse levels (0 < X <= 1, default 0.1)\n"
	"  --warm-start      implicit-euler with --hierarchy multiscale: each pair's\n"
	"                    active set starts where the last step left it (default)\n"
	"  --cold-start      ... starts at the two roots in every step, as the paper's\n"
	"                    Alg. 6 (its Tables 5-8 are measured so)\n";

int mrdem_picard_opts_set(struct mrdem_picard_opts *o, const char *key, const char *value)
{
	char opt[48];
	snprintf(opt, sizeof opt, "--%s", key);
	uint64_t u;
	if (!strcmp(key, "picard-tol"))
		return mrdem_parse_positive(opt, value, &o->tol);
	if (!strcmp(key, "picard-max")) {
		if (mrdem_parse_u64_range(opt, value, 1, 1000000, &u))
			return -1;
		o->max_iter = (unsigned)u;
		return 0;
	}
	if (!strcmp(key, "picard-retries")) {
		if (mrdem_parse_u64(opt, value, MRDEM_PICARD_MAX_RETRIES, &u))
			return -1;
		o->max_retries = (unsigned)u;
		return 0;
	}
	if (!strcmp(key, "surrogate-damping")) {
		if (mrdem_parse_positive(opt, value, &o->damping))
			return -1;
		if (o->damping > 1)
			return mrdem_error("%s: '%s' must be at most 1", opt, value);
		return 0;
	}
	if (!strcmp(key, "warm-start") || !strcmp(key, "cold-start")) {
		o->warm_start = key[0] == 'w';
		return 0;
	}
	return mrdem_error("unknown Picard option %s", opt);
}

int mrdem_picard_opts_check(const struct mrdem_picard_opts *o)
{
	if (!(o->tol > 0) || !isfinite(o->tol))
		return mrdem_error("Picard tolerance %g is not positive", o->tol);
	if (o->max_iter < 1)
		return mrdem_error("the Picard iteration cap must be at least 1");
	if (o->max_retries > MRDEM_PICARD_MAX_RETRIES)
		return mrdem_error("%u halvings of the time step, more than %d",
				   o->max_retries, MRDEM_PICARD_MAX_RETRIES);
	if (!(o->damping > 0 && o->damping <= 1))
		return mrdem_error("surrogate damping %g is not in (0, 1]", o->damping);
	return 0;
}

void mrdem_picard_init(struct mrdem_picard *pc)
{
	memset(pc, 0, sizeof *pc);
	mrdem_picard_opts_default(&pc->opts);
	mrdem_forces_init(&pc->forces);
	mrdem_pairs_init(&pc->pairs);
	mrdem_contacts_init(&pc->contacts);
	mrdem_contacts_init(&pc->guesses);
}

void mrdem_picard_release(struct mrdem_picard *pc)
{
	double *arrays[] = { pc->x0, pc->q0, pc->v0, pc->w0, pc->guess, pc->fresh, pc->inc,
			     pc->weight, pc->torque0, pc->gross, pc->gross_prev,
			     pc->size, pc->resid };
	for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
		free(arrays[k]);
	free(pc->pending);
	mrdem_forces_release(&pc->forces);
	mrdem_pairs_release(&pc->pairs);
	mrdem_contacts_release(&pc->contacts);
	mrdem_contacts_release(&pc->guesses);
	mrdem_front_store_free(pc->fronts);
	mrdem_picard_init(pc);
}

void mrdem_picard_reserve(struct mrdem_picard *pc, size_t n)
{
	pc->n = n;
	if (n <= pc->cap)
		return;
	struct { double **a; size_t per; } arrays[] = {
		{&pc->x0, 3}, {&pc->q0, 4}, {&pc->v0, 3}, {&pc->w0, 3}, {&pc->guess, 6},
		{&pc->fresh, 6}, {&pc->inc, 6}, {&pc->weight, 2}, {&pc->torque0, 3},
		{&pc->gross, 1}, {&pc->gross_prev, 1}, {&pc->size, 1}, {&pc->resid, 1},
	};
	for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
		*arrays[k].a = mrdem_xrealloc(*arrays[k].a, n * arrays[k].per * sizeof(double));
	pc->cap = n;
}

static void save_start(struct mrdem_picard *pc, const struct mrdem_particles *p)
{
	size_t n = p->n;
	memcpy(pc->x0, p->pos, 3 * n * sizeof(double));
	memcpy(pc->q0, p->quat, 4 * n * sizeof(double));
	memcpy(pc->v0, p->vel, 3 * n * sizeof(double));
	memcpy(pc->w0, p->angvel, 3 * n * sizeof(double));
}

static void restore_start(const struct mrdem_picard *pc, struct mrdem_particles *p)
{
	size_t n = p->n;
	memcpy(p->pos, pc->x0, 3 * n * sizeof(double));
	memcpy(p->quat, pc->q0, 4 * n * sizeof(double));
	memcpy(p->vel, pc->v0, 3 * n * sizeof(double));
	memcpy(p->angvel, pc->w0, 3 * n * sizeof(double));
}

/* Every particle of s at the end of a step of dt with updates u (6 per
 * particle); moving walls at their exact pose at that time (the planes
 * stay at the frame's: they are not in the iterate's frame). */
static void place(struct mrdem_picard *pc, struct mrdem_scene *s, const double *u, double dt)
{
	struct mrdem_particles *p = &s->frame.p;
	size_t n = p->n;
	MRDEM_FOR_PARALLEL_IF(MRDEM_PARALLEL_MIN, i, n,
		mrdem_implicit_place(p, i, &pc->x0[3 * i], &pc->q0[4 * i], &pc->v0[3 * i],
				     &pc->w0[3 * i], &u[6 * i], &u[6 * i + 3], dt););
	/* the motions were checked when the frame was placed */
	if (s->setup.nmotions)
		(void)mrdem_motion_place_particles(&s->setup, p, pc->cur.t + dt);
}

/* Add one iteration's search work to the step's account. */
static void count_iteration(struct mrdem_picard_counts *c, const struct mrdem_search_work *w,
			    unsigned iter)
{
	unsigned k = iter < MRDEM_PICARD_ITER_COUNTERS ? iter : MRDEM_PICARD_ITER_COUNTERS - 1;
	c->iterative += w->iterative;
	c->fallbacks += w->fallbacks;
	for (int r = 0; r <= MRDEM_SEARCH_ROUNDS; r++) {
		c->comparisons += w->round[r];
		c->comparisons_round[k][r] += w->round[r];
	}
	mrdem_front_counts_add(&c->front, &w->front);
	c->iterations++;
}

/* Forces at the placed state from its contacts (and guesses), and the
 * fresh updates and gross forces they give. */
static int evaluate(struct mrdem_picard *pc, struct mrdem_scene *s, const struct mrdem_bodies *b,
		    const struct mrdem_id_index *ix, const struct mrdem_contacts *contacts,
		    const struct mrdem_contacts *guesses)
{
	struct mrdem_stage_log *l = &pc->log;
	double dt = pc->cur.dt, t0 = mrdem_clock();
	if (mrdem_forces_compute(&pc->forces, s, b, ix, contacts, dt) ||
	    (guesses && mrdem_forces_add_guesses(&pc->forces, s, b, ix, guesses,
						 pc->opts.damping)))
		return -1;
	l->seconds[MRDEM_STAGE_FORCES] += mrdem_clock() - t0;
	l->calls[MRDEM_STAGE_FORCES]++;
	l->picard_iterations++;

	const struct mrdem_particles *p = &s->frame.p;
	size_t n = p->n;
	const double *F = pc->forces.force, *T = pc->forces.torque;
	const double *g = s->setup.gravity;
	MRDEM_FOR_PARALLEL_IF(MRDEM_PARALLEL_MIN, i, n,
		mrdem_implicit_torque(&pc->torque0[3 * i], &b->b[i], &pc->x0[3 * i], &p->pos[3 * i],
				      &F[3 * i], &T[3 * i], g);
		mrdem_implicit_update(&pc->fresh[6 * i], &pc->fresh[6 * i + 3], &b->b[i],
				      &pc->q0[4 * i], &p->quat[4 * i], &pc->w0[3 * i], &F[3 * i],
				      &pc->torque0[3 * i], dt););

	/* Gross force per particle, summed in contact order like the forces. */
	double weight = vec3_norm(g);
	for (size_t i = 0; i < n; i++)
		pc->gross[i] = b->b[i].mass * weight;
	const struct mrdem_forces *f = &pc->forces;
	for (size_t k = 0; k < contacts->n; k++) {
		double m = vec3_norm(&f->cf[3 * k]);
		pc->gross[f->ia[k]] += m;
		if (f->ib[k] != MRDEM_NO_INDEX)
			pc->gross[f->ib[k]] += m;
	}
	for (size_t k = 0; k < f->nguess; k++) {
		double m = vec3_norm(&f->gcf[3 * k]);
		pc->gross[f->gia[k]] += m;
		if (f->gib[k] != MRDEM_NO_INDEX)
			pc->gross[f->gib[k]] += m;
	}
	return 0;
}
/* Fixed-point residual per free particle as a change of force and torque:
 * the iterate was built from the (averaged) force m dv / dt and angular
 * impulse, the state it placed yields the fresh ones, and their difference
 * m (fresh - guess) / dt, I_w (fresh - guess)_w / dt is measured against
 * the forces acting on the particle. Returns the largest. */
static double residual(struct mrdem_picard *pc, const struct mrdem_particles *p,
		       const struct mrdem_bodies *b, double dt)
{
	size_t n = p->n;
	double gmax = 0;
	for (size_t i = 0; i < n; i++)
		if (b->b[i].inv_mass > 0)
			gmax = fmax(gmax, fmax(pc->gross[i], pc->gross_prev[i]));
	double worst = 0;
	for (size_t i = 0; i < n; i++) {
		const struct mrdem_body *bi = &b->b[i];
		pc->resid[i] = 0;
		if (!(bi->inv_mass > 0))
			continue;
		const double *u = &pc->guess[6 * i], *f = &pc->fresh[6 * i];
		double dv[3], dw[3], dT[3];
		vec3_sub(dv, f, u);
		vec3_sub(dw, f + 3, u + 3);
		mrdem_body_angmom(dT, bi, &p->quat[4 * i], dw);
		double df = bi->mass * vec3_norm(dv) / dt, dt_ = vec3_norm(dT) / dt;
		double fbar = bi->mass * vec3_norm(u) / dt;
		double speed = vec3_norm(&pc->v0[3 * i]) + pc->size[i] * vec3_norm(&pc->w0[3 * i]);
		double floor = fmax(FLOOR_FRACTION * gmax, FLOOR_SPEED * bi->mass * speed / dt);
		double scale = fmax(fmax(pc->gross[i], pc->gross_prev[i]), fmax(fbar, floor));
		double tscale = scale * pc->size[i];
		double rf = df == 0 ? 0 : df / scale, rt = dt_ == 0 ? 0 : dt_ / tscale;
		pc->resid[i] = fmax(rf, rt);
		worst = fmax(worst, pc->resid[i]);
	}
	return worst;
}

/* Next guess: per particle and part (linear, angular) move from the guess
 * towards the fresh update by the weight, which grows while successive
 * increments point the same way and shrinks when they turn back. */
static void next_guess_of(struct mrdem_picard *pc, size_t i, int first)
{
	for (int part = 0; part < 2; part++) {
		double *u = &pc->guess[6 * i + 3 * part];
		const double *f = &pc->fresh[6 * i + 3 * part];
		double *prev = &pc->inc[6 * i + 3 * part];
		double *a = &pc->weight[2 * i + part];
		double d[3];
		vec3_sub(d, f, u);
		if (first) {
			/* Nothing to average with yet: take the first update whole. */
			vec3_copy(u, f);
			*a = WEIGHT_START;
		} else {
			double agree = vec3_dot(d, prev);
			if (agree > 0)
				*a = fmin(1.0, *a * WEIGHT_GROW);
			else if (agree < 0)
				*a = fmax(WEIGHT_MIN, *a * WEIGHT_SHRINK);
			vec3_axpy(u, u, *a, d);
		}
		vec3_copy(prev, d);
	}
}

static void next_guess(struct mrdem_picard *pc, size_t n, int first)
{
	MRDEM_FOR_PARALLEL_IF(MRDEM_PARALLEL_MIN, i, n, next_guess_of(pc, i, first););
}

enum outcome { CONVERGED, CAPPED, STALLED };

/* Start the attempt at the top of the pending list from the frame's
 * state: guess zero, placed there. A multiscale search then starts afresh
 * on its fronts (memory set emptied; cold: back at the roots). */
static void start_attempt(struct mrdem_picard *pc, struct mrdem_scene *s)
{
	pc->cur = pc->pending[--pc->npending];
	pc->iter = 0;
	pc->since_best = 0;
	pc->best = INFINITY;
	save_start(pc, &s->frame.p);
	if (pc->fronts)
		mrdem_front_store_new_step(pc->fronts, pc->opts.warm_start);
	memset(pc->guess, 0, 6 * pc->n * sizeof(double));
	memset(pc->gross_prev, 0, pc->n * sizeof(double));
	/* set by the first iteration before they are read, but a picard
	 * record written before it (mrdem-step) carries them */
	memset(pc->inc, 0, 6 * pc->n * sizeof(double));
	memset(pc->weight, 0, 2 * pc->n * sizeof(double));
	place(pc, s, pc->guess, pc->cur.dt);
}

static void push_pending(struct mrdem_picard *pc, double dt, double t, uint32_t depth)
{
	if (pc->npending == pc->pending_cap) {
		pc->pending_cap = pc->pending_cap ? 2 * pc->pending_cap : 8;
		pc->pending = mrdem_xrealloc(pc->pending, pc->pending_cap * sizeof *pc->pending);
	}
	pc->pending[pc->npending++] = (struct mrdem_picard_substep){ dt, t, depth };
}

static const char *why(enum outcome r, const struct mrdem_picard_opts *o, char *buf, size_t len)
{
	if (r == STALLED)
		snprintf(buf, len, "the residual stopped decreasing for %d iterations (diverging)",
			 MRDEM_PICARD_STALL);
	else
		snprintf(buf, len, "no convergence within %u iterations (--picard-max)", o->max_iter);
	return buf;
}

/* Failure message: the step, the attempt's time step and the particles
 * whose force or torque still changed by more than the tolerance. */
static int report_failure(const struct mrdem_picard *pc, const struct mrdem_scene *s,
			  enum outcome r)
{
	const struct mrdem_picard_opts *o = &pc->opts;
	const struct mrdem_particles *p = &s->frame.p;
	char list[NAMED_MAX * 24 + 32] = "", reason[96];
	size_t named = 0, over = 0, worst = 0;
	for (size_t i = 0; i < p->n; i++) {
		if (pc->resid[i] > pc->resid[worst])
			worst = i;
		if (!(pc->resid[i] > o->tol))
			continue;
		if (named < NAMED_MAX) {
			size_t len = strlen(list);
			snprintf(list + len, sizeof list - len, "%s%llu", named ? ", " : "",
				 (unsigned long long)p->id[i]);
			named++;
		}
		over++;
	}
	if (over > named) {
		size_t len = strlen(list);
		snprintf(list + len, sizeof list - len, " and %zu more", over - named);
	}
	return mrdem_error("step %llu (t = %.9g s): the implicit Euler's Picard iterations did not "
			   "converge: %s at dt = %g s after %u halving(s) of the time step "
			   "(--picard-retries); particle(s) %s not converged (largest relative "
			   "force/torque change %.3g at particle %llu, tolerance %g); reduce the "
			   "time step",
			   (unsigned long long)s->frame.step, pc->cur.t, why(r, o, reason, sizeof reason),
			   pc->cur.dt, o->max_retries, list, pc->resid[worst],
			   (unsigned long long)p->id[worst], o->tol);
}

/* An attempt that failed: two of half its time step in its place while
 * the depth allows, reported; else the step fails. */
static int retry(struct mrdem_picard *pc, struct mrdem_scene *s, enum outcome r)
{
	const struct mrdem_picard_substep c = pc->cur;
	if (c.depth >= pc->opts.max_retries)
		return report_failure(pc, s, r);
	char reason[96];
	restore_start(pc, &s->frame.p);
	mrdem_warning("step %llu (t = %.9g s): Picard iterations at dt = %g s: %s (largest "
		      "relative change %.3g); retrying as two steps of %g s",
		      (unsigned long long)s->frame.step, c.t, c.dt,
		      why(r, &pc->opts, reason, sizeof reason), pc->last.residual, c.dt / 2);
	pc->last.retries++;
	push_pending(pc, c.dt / 2, c.t + c.dt / 2, c.depth + 1);
	push_pending(pc, c.dt / 2, c.t, c.depth + 1);
	start_attempt(pc, s);
	return MRDEM_PICARD_MORE;
}

int mrdem_picard_begin(struct mrdem_picard *pc, const struct mrdem_picard_opts *o,
		       struct mrdem_scene *s, double dt)
{
	if (mrdem_picard_opts_check(o))
		return -1;
	if (!(dt > 0) || !isfinite(dt))
		return mrdem_error("step %llu: time step %g is not positive",
				   (unsigned long long)s->frame.step, dt);
	struct mrdem_particles *p = &s->frame.p;
	pc->opts = *o;
	mrdem_picard_reserve(pc, p->n);
	memset(&pc->last, 0, sizeof pc->last);
	memset(&pc->log, 0, sizeof pc->log);
	pc->npending = 0;
	push_pending(pc, dt, s->frame.time, 0);
	start_attempt(pc, s);
	return MRDEM_PICARD_MORE;
}

int mrdem_picard_respond(struct mrdem_picard *pc, struct mrdem_scene *s,
			 const struct mrdem_bodies *b, const struct mrdem_id_index *ix,
			 const struct mrdem_contacts *contacts,
			 const struct mrdem_contacts *guesses, const struct mrdem_search_work *work)
{
	struct mrdem_particles *p = &s->frame.p;
	size_t n = p->n;
	if (n != pc->n)
		return mrdem_error("step %llu: the frame has %zu particles, the Picard state %zu",
				   (unsigned long long)s->frame.step, n, pc->n);
	double dt = pc->cur.dt;
	for (size_t i = 0; i < n; i++) {
		const struct mrdem_body *bi = &b->b[i];
		pc->size[i] = bi->inv_mass > 0 ?
			sqrt((bi->inertia[0] + bi->inertia[4] + bi->inertia[8]) * bi->inv_mass) : 0;
	}
	if (evaluate(pc, s, b, ix, contacts, guesses))
		return -1;
	int unfolded = work->front.unfolds > 0;
	count_iteration(&pc->last, work, pc->iter);
	pc->last.contacts = contacts->n;
	double r = residual(pc, p, b, dt);
	pc->last.residual = r;
	if (r <= pc->opts.tol && !unfolded) {
		/* The springs of the converged iterate go on with the state: the
		 * iterations all started from those of the frame (backward Euler
		 * on the springs as on the motion). */
		struct mrdem_history h = s->frame.history;
		s->frame.history = pc->forces.history;
		pc->forces.history = h;
		place(pc, s, pc->fresh, dt);
		for (size_t i = 0; i < n; i++)
			mrdem_implicit_finish(p, i, &b->b[i], &pc->q0[4 * i], &pc->w0[3 * i],
					      &pc->torque0[3 * i], dt);
		pc->last.substeps++;
		if (!pc->npending)
			return MRDEM_PICARD_DONE;
		start_attempt(pc, s);
		return MRDEM_PICARD_MORE;
	}
	if (unfolded)
		/* a new active set, a new fixed-point problem */
		pc->best = INFINITY, pc->since_best = 0;
	else if (r < pc->best)
		pc->best = r, pc->since_best = 0;
	else if (++pc->since_best >= MRDEM_PICARD_STALL)
		return retry(pc, s, STALLED);
	memcpy(pc->gross_prev, pc->gross, n * sizeof(double));
	next_guess(pc, n, pc->iter == 0);
	if (++pc->iter >= pc->opts.max_iter)
		return retry(pc, s, CAPPED);
	place(pc, s, pc->guess, dt);
	return MRDEM_PICARD_MORE;
}

/* The search at the placed iterate, in process. */
static int search_iterate(struct mrdem_picard *pc, const struct mrdem_picard_search *search,
			  struct mrdem_scene *s, struct mrdem_search_work *work)
{
	struct mrdem_stage_log *l = &pc->log;
	double t0 = mrdem_clock();
	if (mrdem_broad_phase(search->broad, s, search->broad_method, &pc->pairs,
			      &pc->broad_stats))
		return -1;
	l->seconds[MRDEM_STAGE_BROAD] += mrdem_clock() - t0;
	l->calls[MRDEM_STAGE_BROAD]++;
	if (pc->fronts ? mrdem_find_contacts_multiscale(search->finder, s, &pc->pairs,
							search->contact, pc->fronts, &pc->contacts,
							&pc->guesses, &pc->counts) :
			 mrdem_find_contacts(search->finder, s, &pc->pairs, search->contact,
					     &pc->contacts, &pc->counts))
		return -1;
	mrdem_search_work_of_counts(work, &pc->counts);
	return 0;
}

int mrdem_picard_advance(struct mrdem_picard *pc, const struct mrdem_picard_opts *o,
			 const struct mrdem_picard_search *search, struct mrdem_scene *s,
			 const struct mrdem_bodies *b, const struct mrdem_id_index *ix, double dt)
{
	int multiscale = search->contact->hierarchy == MRDEM_HIERARCHY_MULTISCALE;
	if (multiscale && !pc->fronts)
		pc->fronts = mrdem_front_store_new();
	else if (!multiscale && pc->fronts) {
		mrdem_front_store_free(pc->fronts);
		pc->fronts = NULL;
	}
	double t0 = mrdem_clock();
	int rc = mrdem_picard_begin(pc, o, s, dt);
	while (rc == MRDEM_PICARD_MORE) {
		struct mrdem_search_work work;
		rc = search_iterate(pc, search, s, &work);
		if (!rc)
			rc = mrdem_picard_respond(pc, s, b, ix, &pc->contacts,
						  multiscale ? &pc->guesses : NULL, &work);
		else
			rc = -1;
	}
	pc->log.seconds[MRDEM_STAGE_PICARD] += mrdem_clock() - t0;
	pc->log.calls[MRDEM_STAGE_PICARD]++;
	return rc;
}

void mrdem_picard_place_last_iterate(struct mrdem_picard *pc, struct mrdem_scene *s)
{
	place(pc, s, pc->guess, pc->cur.dt);
}

void mrdem_picard_stats(const struct mrdem_picard_counts *c, struct mrdem_stats *out)
{
	mrdem_stats_add(out, "picard_iterations", (double)c->iterations);
	mrdem_stats_add(out, "picard_comparisons", (double)c->comparisons);
	for (int k = 0; k < MRDEM_PICARD_ITER_COUNTERS; k++) {
		char name[48];
		snprintf(name, sizeof name, "picard_comparisons_iteration_%d", k + 1);
		uint64_t sum = 0;
		for (int r = 0; r <= MRDEM_SEARCH_ROUNDS; r++)
			sum += c->comparisons_round[k][r];
		mrdem_stats_add(out, name, (double)sum);
	}
	mrdem_stats_add(out, "picard_iterative", (double)c->iterative);
	mrdem_stats_add(out, "picard_fallbacks", (double)c->fallbacks);
	mrdem_stats_add(out, "picard_contacts", (double)c->contacts);
	mrdem_stats_add(out, "picard_residual", c->residual);
	mrdem_stats_add(out, "picard_retries", (double)c->retries);
	mrdem_stats_add(out, "picard_substeps", (double)c->substeps);
	mrdem_stats_add(out, "picard_unfolds", (double)c->front.unfolds);
	mrdem_stats_add(out, "picard_narrows", (double)c->front.narrows);
	mrdem_stats_add(out, "picard_pinned", (double)c->front.pinned);
	mrdem_stats_add(out, "picard_guesses", (double)c->front.guesses);
	mrdem_stats_add(out, "picard_front_pairs", (double)c->front.size);
	mrdem_stats_add(out, "picard_front_skipped", (double)c->front.skipped);
	mrdem_stats_add(out, "picard_front_certificates", (double)c->front.certificates);
	/* Comparisons by round (summed over the iterations) up to the deepest
	 * one used, then per iteration and round where not zero (Figure 4). */
	uint64_t round[MRDEM_SEARCH_ROUNDS + 1] = {0};
	int last = 0;
	for (int k = 0; k < MRDEM_PICARD_ITER_COUNTERS; k++)
		for (int r = 0; r <= MRDEM_SEARCH_ROUNDS; r++)
			round[r] += c->comparisons_round[k][r];
	for (int r = 0; r < MRDEM_SEARCH_ROUNDS; r++)
		if (round[r])
			last = r + 1;
	char name[64];
	for (int r = 0; r < last; r++) {
		snprintf(name, sizeof name, "picard_comparisons_round_%d", r);
		mrdem_stats_add(out, name, (double)round[r]);
	}
	mrdem_stats_add(out, "picard_comparisons_real", (double)round[MRDEM_SEARCH_ROUNDS]);
	for (int k = 0; k < MRDEM_PICARD_ITER_COUNTERS; k++)
		for (int r = 0; r <= MRDEM_SEARCH_ROUNDS; r++) {
			if (!c->comparisons_round[k][r])
				continue;
			if (r < MRDEM_SEARCH_ROUNDS)
				snprintf(name, sizeof name, "picard_comparisons_iteration_%d_round_%d",
					 k + 1, r);
			else
				snprintf(name, sizeof name, "picard_comparisons_iteration_%d_real", k + 1);
			mrdem_stats_add(out, name, (double)c->comparisons_round[k][r]);
		}
}
