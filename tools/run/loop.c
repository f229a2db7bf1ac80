/* mrdem-run's step loop: per step the contact search of the frame, the
 * frame and its records to the output every --every steps, the step, the
 * run's guards and the progress, on the backend chosen for the run
 * (struct run_backend: in_process.c, via_pipes.c, sphere_fast.c). */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dynamics/rigid_body.h"
#include "common/util/error.h"
#include "formats/stream/records.h"
#include "tools/run/run.h"

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

void run_catch_stop_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int run_stop_signal(void)
{
	return stop_signal;
}

/* ---- output */

struct run_out_mark run_output_begin(void)
{
	return (struct run_out_mark){mrdem_clock(), mrdem_thread_cpu_clock()};
}

void run_output_done(struct run *r, struct run_out_mark m)
{
	double wall = mrdem_clock() - m.wall;
	double cpu = fmax(0.0, fmin(mrdem_thread_cpu_clock() - m.cpu, wall));
	r->out_step += cpu;
	r->wait_step += wall - cpu;
	r->log.seconds[MRDEM_STAGE_OUTPUT] += cpu;
	r->log.seconds[MRDEM_STAGE_OUTPUT_WAIT] += wall - cpu;
}

static void output_call(struct run *r)
{
	r->log.calls[MRDEM_STAGE_OUTPUT]++;
	r->log.calls[MRDEM_STAGE_OUTPUT_WAIT]++;
}

/* Frame fr into the output as it is. */
static int write_frame_as_is(struct run *r, const struct mrdem_frame *fr)
{
	struct run_out_mark t0 = run_output_begin();
	int rc = mrdem_write_frame(&r->w, fr);
	run_output_done(r, t0);
	if (rc)
		return -1;
	r->frames_written++;
	return 0;
}

int run_stepper_synchronise(struct mrdem_stepper *st, struct run *r,
			    const struct mrdem_contacts *c, double **vel, double **angvel)
{
	if (!c)
		return 0;
	if (mrdem_stepper_synchronise(st, &r->scene, c, &r->opts.step))
		return -1;
	*vel = st->sync.vel;
	*angvel = st->sync.angvel;
	return 1;
}

void run_add_search_counts(struct run *r, const struct mrdem_contact_counts *c)
{
	struct mrdem_narrow_counts all = {0};
	mrdem_search_counts_total(&c->search, &all);
	for (int k = 0; k < MRDEM_SEARCH_ROUNDS; k++)
		r->sum_round[k] += c->search.round[k].comparisons;
	r->sum_comparisons += all.comparisons;
	r->sum_real += c->search.real.comparisons;
	r->sum_fallbacks += all.fallbacks;
	mrdem_convex_counts_add(&r->sum_convex, &c->convex);
}

void run_flow_add(struct run *r, const struct mrdem_flow_account *a)
{
	r->flow_sum.removed += a->removed;
	r->flow_sum.removed_mass += a->removed_mass;
	r->flow_sum.inserted += a->inserted;
}

/* The particles removed and inserted since the previous frame, after the
 * frame of a scene with a flow (docs/driver.md), in process and through
 * pipes alike. */
static int write_flow_stats(struct run *r)
{
	const struct mrdem_flow *fl = &r->scene.flow;
	if (!fl->ninsert && !fl->nremove)
		return 0;
	struct mrdem_stats st;
	mrdem_stats_init(&st, "mrdem-run", r->scene.frame.step);
	if (fl->nremove) {
		mrdem_stats_add(&st, "outflow_particles", (double)r->flow_sum.removed);
		mrdem_stats_add(&st, "outflow_mass", r->flow_sum.removed_mass);
	}
	if (fl->ninsert)
		mrdem_stats_add(&st, "inflow_particles", (double)r->flow_sum.inserted);
	int rc = mrdem_write_stats(&r->w, &st);
	mrdem_stats_release(&st);
	memset(&r->flow_sum, 0, sizeof r->flow_sum);
	return rc ? -1 : 0;
}

int run_write_log_stats(struct run *r, const struct mrdem_stage_log *log, uint64_t stepped,
			double t_iter)
{
	struct mrdem_stats st;
	struct mrdem_stage_log l = *log;
	l.seconds[MRDEM_STAGE_OUTPUT] = r->out_step;
	l.seconds[MRDEM_STAGE_OUTPUT_WAIT] = r->wait_step;
	/* after the last frame no step followed its detection */
	mrdem_stats_init(&st, "mrdem-run",
			 log->calls[MRDEM_STAGE_INTEGRATE] ? stepped : r->scene.frame.step);
	mrdem_sim_log_stats(&l, r->opts.step.scheme == MRDEM_SCHEME_IMPLICIT_EULER, &st);
	mrdem_stats_add(&st, "time_step", mrdem_clock() - t_iter);
	int rc = mrdem_write_stats(&r->w, &st);
	mrdem_stats_release(&st);
	return rc;
}

int run_write_frame(struct run *r, const struct mrdem_contacts *c)
{
	const struct mrdem_frame *fr = &r->scene.frame;
	size_t n = fr->p.n;
	int pending = 0;
	for (size_t i = 0; i < n && !pending; i++)
		pending = (fr->p.flags[i] & MRDEM_PARTICLE_HALF_KICK) != 0;
	struct mrdem_frame view = *fr;
	struct mrdem_column *extra = NULL;
	int sync = pending ? r->backend->synchronise(r, c, &view.p.vel, &view.p.angvel) : 0;
	if (sync < 0)
		return -1;
	if (sync) {
		/* velocities at the frame's time; the half-step ones the run
		 * goes on from in two more columns */
		extra = mrdem_xmalloc_array(fr->nextra + 2, sizeof *extra);
		if (fr->nextra)
			memcpy(extra, fr->extra, fr->nextra * sizeof *extra);
		mrdem_half_step_columns(extra + fr->nextra, n, fr->p.vel, fr->p.angvel);
		view.extra = extra;
		view.nextra = fr->nextra + 2;
	}
	int rc = write_frame_as_is(r, &view);
	if (!rc) {
		struct run_out_mark t0 = run_output_begin();
		rc = write_flow_stats(r);
		run_output_done(r, t0);
	}
	if (extra)
		mrdem_columns_release(extra + fr->nextra, 2);
	free(extra);
	return rc;
}

/* A SIGINT or SIGTERM ended the run after a step: say so, and end the
 * output with that step's frame (written by the caller). */
static int interrupted(struct run *r)
{
	mrdem_error("interrupted by %s after step %llu (t = %.9g s): the output ends with that "
		    "frame; continue with 'mrdem-run OUTPUT'",
		    stop_signal == SIGINT ? "SIGINT" : "SIGTERM",
		    (unsigned long long)r->scene.frame.step, r->scene.frame.time);
	return mrdem_writer_flush(&r->w) ? -1 : 0;
}

/* Whether a step may change which particles the frame holds: inflow and
 * outflow, and an MPI rank's rebuilds, which move particles between
 * ranks. Such a frame is kept whole. */
static int particles_may_change(const struct run *r)
{
	return r->scene.flow.ninsert || r->scene.flow.nremove || r->nranks > 1;
}

/* The state of a frame that was not written, kept through the step from
 * it: a step that fails leaves its frame half advanced, and the output
 * ends with the frame the step started from. */
static void save_frame(struct run *r)
{
	const struct mrdem_particles *p = &r->scene.frame.p;
	struct saved_frame *sv = &r->saved;
	size_t n = p->n;
	if (particles_may_change(r)) {
		mrdem_frame_copy(&sv->whole, &r->scene.frame);
		return;
	}
	if (n > sv->cap) {
		sv->flags = mrdem_xrealloc(sv->flags, n * sizeof *sv->flags);
		sv->state = mrdem_xrealloc(sv->state, 13 * n * sizeof *sv->state);
		sv->cap = n;
	}
	memcpy(sv->flags, p->flags, n * sizeof *p->flags);
	memcpy(sv->state, p->pos, 3 * n * sizeof(double));
	memcpy(sv->state + 3 * n, p->quat, 4 * n * sizeof(double));
	memcpy(sv->state + 7 * n, p->vel, 3 * n * sizeof(double));
	memcpy(sv->state + 10 * n, p->angvel, 3 * n * sizeof(double));
	const struct mrdem_history *h = &r->scene.frame.history;
	sv->history.n = 0;
	for (size_t k = 0; k < h->n; k++)
		*mrdem_history_push(&sv->history) = h->s[k];
	sv->step = r->scene.frame.step;
	sv->time = r->scene.frame.time;
}

static void restore_frame(struct run *r)
{
	struct mrdem_particles *p = &r->scene.frame.p;
	const struct saved_frame *sv = &r->saved;
	size_t n = p->n;
	if (particles_may_change(r)) {
		mrdem_frame_copy(&r->scene.frame, &sv->whole);
		return;
	}
	memcpy(p->flags, sv->flags, n * sizeof *p->flags);
	memcpy(p->pos, sv->state, 3 * n * sizeof(double));
	memcpy(p->quat, sv->state + 3 * n, 4 * n * sizeof(double));
	memcpy(p->vel, sv->state + 7 * n, 3 * n * sizeof(double));
	memcpy(p->angvel, sv->state + 10 * n, 3 * n * sizeof(double));
	struct mrdem_history *h = &r->scene.frame.history;
	h->n = 0;
	for (size_t k = 0; k < sv->history.n; k++)
		*mrdem_history_push(h) = sv->history.s[k];
	r->scene.frame.step = sv->step;
	r->scene.frame.time = sv->time;
}

/* A step failed (the stepper's guard, the run's guards or a tool): end the
 * output with the frame the step started from (restored unless it was
 * written already) and say where the run stopped. The output appears once
 * a step is done (mrdem_writer_publish), so a scene that fails its first
 * step leaves none, and an older file at that path as it was. */
static int stopped(struct run *r, uint64_t step, double time, int written)
{
	const char *what = "no output written";
	if (mrdem_writer_published(&r->w)) {
		what = "the output ends with the frame at its start";
		if (!written) {
			restore_frame(r);
			/* its velocities as the step took them (half a step
			 * behind under Verlet, flag bit 1): the forces that would
			 * synchronise them are those of the failed step */
			if (write_frame_as_is(r, &r->scene.frame) || mrdem_writer_flush(&r->w))
				what = "the frame at its start could not be written";
		}
	}
	mrdem_error("stopped at step %llu (t = %.9g s); %s", (unsigned long long)step, time, what);
	return -1;
}

/* The run's guards on the step just taken (common/sim/run_guard.h): the
 * energies of the state it started from, then the motion to the frame it
 * reached. */
static int guard_step(struct run *r, uint64_t step)
{
	double e[3];
	if (r->backend->start_energies && r->backend->start_energies(r, e) &&
	    mrdem_run_guard_energy(&r->guard, &r->scene, step, r->saved_time, e[0], e[1], e[2]))
		return -1;
	return mrdem_run_guard_motion(&r->guard, &r->scene, step, r->saved_time, r->opts.step.dt);
}

/* The loop on the backend. Frames are written after their contact search:
 * the forces of its contacts synchronise a Verlet frame's velocities. */
int run_loop(struct run *r)
{
	const struct run_backend *b = r->backend;
	struct mrdem_writer *w = &r->w;
	struct run_out_mark t0 = run_output_begin();
	int rc = mrdem_scene_write(w, &r->scene);
	run_output_done(r, t0);
	output_call(r);
	if (rc)
		return -1;
	r->frames_written = 1;
	for (uint64_t i = 0;; i++) {
		int output = i % r->every == 0 || i == r->steps || stop_signal;
		double t_iter = mrdem_clock();
		r->out_step = r->wait_step = 0;
		if (output && b->stage_log)
			output_call(r);
		/* an interrupted run ends with the frame as the step left it */
		if (stop_signal)
			return (i > 0 && run_write_frame(r, NULL)) ? -1 : interrupted(r);
		if (b->detect(r, output, output && i > 0, i < r->steps))
			return -1;
		if (i == r->steps) {
			t0 = run_output_begin();
			if (b->account_last)
				b->account_last(r);
			rc = r->log_view && b->log_stats && b->log_stats(r, t_iter);
			rc = rc || mrdem_writer_flush(w);
			run_output_done(r, t0);
			return rc ? -1 : 0;
		}
		uint64_t step = r->scene.frame.step;
		r->saved_time = r->scene.frame.time;
		if (!output)
			save_frame(r);
		if (b->advance(r, output)) {
			if (stop_signal) /* a backend's processes got the signal too */
				return mrdem_error("interrupted during step %llu", (unsigned long long)step);
			return stopped(r, step, r->saved_time, output);
		}
		if (guard_step(r, step))
			return stopped(r, step, r->saved_time, output);
		if (mrdem_writer_publish(w))
			return -1;
		r->nsteps++;
		if (b->account && b->account(r, output))
			return -1;
		t0 = run_output_begin();
		rc = output && r->log_view && b->log_stats && b->log_stats(r, t_iter);
		rc = rc || (output && mrdem_writer_flush(w));
		run_output_done(r, t0);
		if (rc)
			return -1;
		run_progress(r, i + 1);
	}
}
