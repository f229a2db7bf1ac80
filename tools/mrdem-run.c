/* mrdem-run: the driver. Runs a whole simulation of a scene in one process
 * (pairs -> contacts -> step, as library calls; implicit Euler loops the
 * contact search inside each step), or an explicit one through the separate
 * tools and real pipes with --via-pipes, and writes a frame stream. Here:
 * options, the loop and the output; its other parts are in tools/run/. */
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/dynamics/rigid_body.h"
#include "common/util/error.h"
#include "common/util/parse.h"
#include "common/util/threads.h"
#include "formats/foreign/scene_yaml.h"
#include "formats/stream/filter.h"
#include "formats/stream/meta.h"
#include "formats/stream/records.h"
#include "tools/run/run.h"

static const char usage_head[] =
	"usage: mrdem-run [options] SCENE\n"
	"\n"
	"Simulate SCENE (a YAML scene, docs/scene.md, named *.yaml or *.yml, or a\n"
	"state stream whose last frame is the start; '-': a stream on standard\n"
	"input): broad phase, contact detection and a rigid-body step\n"
	"per time step (implicit Euler: Picard iterations of contact detection and\n"
	"forces per step, docs/dynamics.md). Writes the setup, the shapes\n"
	"with their surrogate trees, and every --every steps a frame with its pairs,\n"
	"contacts and statistics, flushed so a killed run keeps its frames. The last\n"
	"frame is always written. Frames hold velocities at their time: velocity\n"
	"Verlet's are synchronised with the forces at the frame as it is written,\n"
	"the half-step ones a resumed run goes on from in velocity_half and\n"
	"angular_velocity_half (docs/dynamics.md). A progress bar goes to standard\n"
	"error when it is a terminal, and a summary at the end.\n"
	"\n"
	"  -o FILE           output stream (default: standard output)\n"
	"  --steps N         number of steps (default: the scene's time.steps)\n"
	"  --every N         write a frame every N steps (default: output.every)\n"
	"  --dt S            time step in seconds (default: time.dt)\n"
	"  --scheme S        explicit-euler, symplectic-euler, velocity-verlet or\n"
	"                    implicit-euler\n";
static const char usage_middle[] =
	"  --broad M         broad phase: sap, mr, mmr, grid or brute (default: the\n"
	"                    scene's contact.broad, else grid); all give the same pairs\n"
	"  --max-energy-growth X  stop when a step gains more energy than X times the\n"
	"                    kinetic and contact energy before it, or the last 1000\n"
	"                    steps more than X times the kinetic, contact and potential\n"
	"                    energy at their start (default 1; 0: both off)\n"
	"  --allow-overlap   start even when the initial overlaps hold more energy than\n"
	"                    the scene's kinetic and potential energy (as the scene key\n"
	"                    contact.allow_overlap: true)\n";
static const char usage_tail[] =
	"  --via-pipes       run every step as mrdem-pairs | mrdem-contact | mrdem-step\n"
	"                    through real pipes, implicit Euler once per Picard\n"
	"                    iteration (same results, bit for bit)\n"
	"  --fast-spheres    a scene of analytic spheres only, spring-dashpot, velocity\n"
	"                    Verlet: step it on the sphere fast path (Verlet list, skin\n"
	"                    0.1 x the smallest radius; docs/dynamics.md), equal to the\n"
	"                    general path to rounding; writes frames only (no pairs,\n"
	"                    contacts or stats records) and has no energy bound; not\n"
	"                    with --via-pipes, --log-view, --max-energy-growth or\n"
	"                    contact options. Chosen by itself for a scene it covers\n"
	"                    when none of those is given\n"
	"  --general-path    never the sphere fast path: every record, every check\n"
	"  --log-view        at the end, a per-stage performance log on standard error\n"
	"                    (calls, time, share of the step, work counters and rates;\n"
	"                    docs/driver.md), and a stats record of stage times per\n"
	"                    written frame (not with --via-pipes)\n"
	"  -q, --quiet       no progress bar and no summary (--log-view still prints)\n"
	"  -h, --help        show this help\n"
	"\n"
	"A start at step 0 (a YAML scene, or a stream at its first frame) is searched\n"
	"for contacts first: overlaps deeper than 0.5 of the two halos are reported,\n"
	"and a start whose contact energy exceeds its kinetic energy plus gravity's\n"
	"potential energy above the lowest particle is refused (exit 1, no output)\n"
	"unless allowed; the summary names the start's contact energy. Besides the\n"
	"per-step energy bound, the run stops when the energy grows beyond the bound\n"
	"over a window of steps, a particle moves further than its halo in one step\n"
	"(explicit schemes: implicit Euler searches where its steps go), or a\n"
	"particle leaves the scene's bounds (docs/dynamics.md, \"Stability\n"
	"guard\"): exit 1, the step and particle named, and the output ends with the\n"
	"frame that step started from.\n"
	"\n"
	"The hierarchy defaults to surrogate here: shapes without a tree get one\n"
	"built first (docs/surrogate-trees.md), for multiscale too.\n"
	"\n"
	"Exit status: 0 success, 1 error (bad input, failed computation), 2 usage\n"
	"error (unknown option, bad option value, an option given twice, too many\n"
	"arguments).\n";


static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

/* Whether path is a file that opens and does not start with the gzip
 * magic of a stream (standard input is not looked at). */
static int opens_without_gzip_magic(const char *path)
{
	unsigned char m[2];
	FILE *fp = strcmp(path, "-") ? fopen(path, "rb") : NULL;
	if (!fp)
		return 0;
	int gz = fread(m, 1, 2, fp) == 2 && m[0] == 0x1f && m[1] == 0x8b;
	fclose(fp);
	return !gz;
}

/* Where the stream's last frame record was, for messages about it. */
static int note_frame(struct mrdem_filter *f, const struct mrdem_record *rec)
{
	if (rec->type == MRDEM_REC_FRAME)
		*(struct mrdem_record *)f->ctx = *rec;
	return 0;
}

/* A YAML scene, or the setup, shapes and last complete frame of a stream:
 * a run killed mid-way resumes from what it wrote. */
static int load(struct run *r, const char *path)
{
	if (has_suffix(path, ".yaml") || has_suffix(path, ".yml"))
		return mrdem_scene_load_yaml(path, &r->scene);
	struct mrdem_filter f;
	struct mrdem_record last = {0};
	mrdem_filter_init(&f, "mrdem-run");
	f.read_flags = MRDEM_READ_RECOVER;
	f.before = note_frame;
	f.ctx = &last;
	int rc = mrdem_filter_run(&f, path, NULL, 0, NULL);
	if (rc && opens_without_gzip_magic(path)) /* a YAML scene by another name? */
		mrdem_error("%s: a YAML scene needs the suffix .yaml or .yml", path);
	if (rc == 0 && !f.total_frames)
		rc = mrdem_error("%s: the stream has no frame to start from", path);
	/* A frame valid for contact detection that no step can take (a free
	 * particle of density 0): refused here, naming the stream and record,
	 * on every path (the sphere fast path would carry it on silently). */
	char why[160];
	long bad = rc ? -1 : mrdem_particles_unsteppable(&f.scene.frame.p, why, sizeof why);
	if (bad >= 0) {
		last.data = NULL;
		rc = mrdem_record_error(&last, strcmp(path, "-") ? path : "<stdin>",
					"particle %ld (id %llu): %s",
					bad, (unsigned long long)f.scene.frame.p.id[bad], why);
	}
	if (rc == 0 && f.damaged)
		mrdem_warning("%s: resuming from step %llu (t = %.9g s), the last of %llu complete "
			      "frame(s)", path, (unsigned long long)f.scene.frame.step,
			      f.scene.frame.time, (unsigned long long)f.total_frames);
	if (rc == 0) {
		mrdem_scene_release(&r->scene);
		r->scene = f.scene;
		mrdem_scene_init(&f.scene);
	}
	mrdem_filter_release(&f);
	return rc;
}

/* The meta record: this command, and the scene it ran. */
static int write_meta(struct run *r, const char *scene, int argc, char **argv)
{
	struct mrdem_meta m;
	mrdem_meta_init(&m, "mrdem-run", argc, argv);
	int rc = 0;
	if (has_suffix(scene, ".yaml") || has_suffix(scene, ".yml"))
		rc = mrdem_meta_add_scene(&m, scene, &r->scene);
	else
		mrdem_meta_add(&m, "resumed_from", scene);
	rc = rc || mrdem_write_meta(&r->w, &m);
	mrdem_meta_release(&m);
	return rc;
}

/* SIGINT/SIGTERM end the run after the current step, with its frame. */
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

static void catch_stop_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* ---- the run */

/* Output: the thread's CPU time writing is the output stage, the rest of
 * its wall time off the CPU is output_wait (blocked on the pipe or disk,
 * or waiting for a CPU: the thread CPU clock cannot tell them apart). */
struct out_mark {
	double wall, cpu;
};

static struct out_mark output_begin(void)
{
	return (struct out_mark){mrdem_clock(), mrdem_thread_cpu_clock()};
}

static void output_done(struct run *r, struct out_mark m)
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
	struct out_mark t0 = output_begin();
	int rc = mrdem_write_frame(&r->w, fr);
	output_done(r, t0);
	if (rc)
		return -1;
	r->frames_written++;
	return 0;
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
	double *sync = NULL;
	if (pending && (c || r->fast)) {
		/* velocities at the frame's time; the half-step ones the run
		 * goes on from in two more columns */
		if (r->fast) {
			sync = mrdem_xmalloc_array(6 * n + 1, sizeof *sync);
			if (mrdem_sphere_fast_synchronise(r->fast, sync, sync + 3 * n)) {
				free(sync);
				return -1;
			}
			view.p.vel = sync;
			view.p.angvel = sync + 3 * n;
		} else {
			if (mrdem_stepper_synchronise(&r->sim.stepper, &r->scene, c, &r->opts.step))
				return -1;
			view.p.vel = r->sim.stepper.sync.vel;
			view.p.angvel = r->sim.stepper.sync.angvel;
		}
		extra = mrdem_xmalloc_array(fr->nextra + 2, sizeof *extra);
		if (fr->nextra)
			memcpy(extra, fr->extra, fr->nextra * sizeof *extra);
		mrdem_half_step_columns(extra + fr->nextra, n, fr->p.vel, fr->p.angvel);
		view.extra = extra;
		view.nextra = fr->nextra + 2;
	}
	int rc = write_frame_as_is(r, &view);
	if (extra)
		mrdem_columns_release(extra + fr->nextra, 2);
	free(extra);
	free(sync);
	return rc;
}

/* The pairs, contacts and stats records of the current frame's detection,
 * as mrdem-pairs | mrdem-contact write them. */
static int write_detection(struct mrdem_sim *sim, struct mrdem_writer *w)
{
	struct mrdem_stats broad, narrow;
	mrdem_sim_detection_stats(sim, &broad, &narrow);
	int rc = mrdem_write_pairs(w, &sim->pairs) || mrdem_write_stats(w, &broad) ||
		 mrdem_write_contacts(w, &sim->contacts) || mrdem_write_stats(w, &narrow);
	mrdem_stats_release(&broad);
	mrdem_stats_release(&narrow);
	return rc ? -1 : 0;
}

static int write_step_stats(struct mrdem_sim *sim, struct mrdem_writer *w)
{
	struct mrdem_stats st;
	mrdem_sim_step_stats(sim, &st);
	int rc = mrdem_write_stats(w, &st);
	mrdem_stats_release(&st);
	return rc;
}

/* --log-view: the stage times of this frame's detection and the step from
 * it (none after the last frame), with the output so far, as a stats record. */
static int write_log_stats(struct run *r, double t_iter)
{
	struct mrdem_stats st;
	struct mrdem_stage_log l = r->sim.log;
	l.seconds[MRDEM_STAGE_OUTPUT] = r->out_step;
	l.seconds[MRDEM_STAGE_OUTPUT_WAIT] = r->wait_step;
	mrdem_stats_init(&st, "mrdem-run", r->sim.log.calls[MRDEM_STAGE_INTEGRATE] ?
			 r->sim.stepper.step : r->scene.frame.step);
	mrdem_sim_log_stats(&l, r->opts.step.scheme == MRDEM_SCHEME_IMPLICIT_EULER, &st);
	mrdem_stats_add(&st, "time_step", mrdem_clock() - t_iter);
	int rc = mrdem_write_stats(&r->w, &st);
	mrdem_stats_release(&st);
	return rc;
}

/* The run's account of one detection (and step): stages and counters. */
static void log_step(struct run *r)
{
	mrdem_stage_log_add(&r->log, &r->sim.log);
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

/* The state of a frame that was not written, kept through the step from
 * it: a step that fails leaves its frame half advanced, and the output
 * ends with the frame the step started from. */
static void save_frame(struct run *r)
{
	const struct mrdem_particles *p = &r->scene.frame.p;
	struct saved_frame *sv = &r->saved;
	size_t n = p->n;
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
	if (r->fast)
		return mrdem_run_guard_motion(&r->guard, &r->scene, step, r->saved_time,
					      r->opts.step.dt);
	const struct mrdem_energy *en = &r->sim.stepper.energy;
	double kin = en->translational + en->rotational, grav = en->gravity, con = en->contact;
	if (r->via_pipes)
		kin = r->pipe_energy[0], grav = r->pipe_energy[1], con = r->pipe_energy[2];
	if ((!r->via_pipes || r->pipe_have_energy) &&
	    mrdem_run_guard_energy(&r->guard, &r->scene, step, r->saved_time, kin, grav, con))
		return -1;
	return mrdem_run_guard_motion(&r->guard, &r->scene, step, r->saved_time, r->opts.step.dt);
}

/* --fast-spheres: the loop of simulate on the sphere fast path, frames
 * only. */
static int simulate_fast(struct run *r)
{
	struct mrdem_writer *w = &r->w;
	struct out_mark t0 = output_begin();
	int rc = mrdem_scene_write(w, &r->scene);
	output_done(r, t0);
	if (rc)
		return -1;
	r->frames_written = 1;
	for (uint64_t i = 0;; i++) {
		int output = i % r->every == 0 || i == r->steps || stop_signal;
		if (output && i > 0 && (run_write_frame(r, NULL) || mrdem_writer_flush(w)))
			return -1;
		if (stop_signal)
			return interrupted(r);
		if (i == r->steps)
			return mrdem_writer_flush(w) ? -1 : 0;
		uint64_t step = r->scene.frame.step;
		r->saved_time = r->scene.frame.time;
		if (!output)
			save_frame(r);
		if (mrdem_sphere_fast_step(r->fast) || guard_step(r, step))
			return stopped(r, step, r->saved_time, output);
		r->nsteps++;
		if (mrdem_writer_publish(w))
			return -1;
		run_progress(r, i + 1);
	}
}

static int simulate(struct run *r)
{
	struct mrdem_writer *w = &r->w;
	struct out_mark t0 = output_begin();
	int rc = mrdem_scene_write(w, &r->scene);
	output_done(r, t0);
	output_call(r);
	if (rc)
		return -1;
	r->frames_written = 1;
	for (uint64_t i = 0;; i++) {
		int output = i % r->every == 0 || i == r->steps || stop_signal;
		double t_iter = mrdem_clock();
		r->out_step = r->wait_step = 0;
		if (output && !r->via_pipes)
			output_call(r);
		/* an interrupted run ends with the frame as the step left it */
		if (stop_signal)
			return (i > 0 && run_write_frame(r, NULL)) ? -1 : interrupted(r);
		/* frames are written after their contact search: the forces of its
		 * contacts synchronise a Verlet frame's velocities */
		if (r->via_pipes ? run_pipe_detect(r, output, output && i > 0, i < r->steps)
				 : mrdem_sim_detect(&r->sim))
			return -1;
		if (output && i > 0 && !r->via_pipes && run_write_frame(r, &r->sim.contacts))
			return -1;
		t0 = output_begin();
		rc = output && !r->via_pipes && write_detection(&r->sim, w);
		output_done(r, t0);
		if (rc)
			return -1;
		if (i == r->steps) {
			t0 = output_begin();
			if (!r->via_pipes)
				log_step(r);
			rc = r->log_view && write_log_stats(r, t_iter);
			rc = rc || mrdem_writer_flush(w);
			output_done(r, t0);
			return rc ? -1 : 0;
		}
		uint64_t step = r->scene.frame.step;
		r->saved_time = r->scene.frame.time;
		if (!output)
			save_frame(r);
		r->pipe_have_energy = 0;
		if (r->via_pipes ? run_pipe_advance(r, output) : mrdem_sim_advance(&r->sim)) {
			if (stop_signal) /* the tools of --via-pipes got the signal too */
				return mrdem_error("interrupted during step %llu", (unsigned long long)step);
			return stopped(r, step, r->saved_time, output);
		}
		if (guard_step(r, step))
			return stopped(r, step, r->saved_time, output);
		if (mrdem_writer_publish(w))
			return -1;
		if (!r->via_pipes) {
			run_account(r);
			log_step(r);
			t0 = output_begin();
			rc = output && write_step_stats(&r->sim, w);
			output_done(r, t0);
			if (rc)
				return -1;
		} else {
			r->nsteps++;
		}
		t0 = output_begin();
		rc = output && r->log_view && write_log_stats(r, t_iter);
		rc = rc || (output && mrdem_writer_flush(w));
		output_done(r, t0);
		if (rc)
			return -1;
		run_progress(r, i + 1);
	}
}

/* ---- options and main */

/* The command line. Values are checked before the scene is read, so a bad
 * one is a usage error whatever the scene; they are applied over its
 * defaults after (apply_options), so each is kept as given too. */
struct options {
	const char *scene, *out;
	const char *steps, *every, *dt, *scheme, *broad, *growth;
	/* Picard options given: for implicit-euler, for multiscale only */
	int picard_given, multiscale_given;
	struct mrdem_picard_opts picard;
	uint64_t steps_v, every_v;
	double dt_v, growth_v;
	int scheme_v, broad_v;
	struct mrdem_contact_opts contact;
	int via_pipes, quiet, help, log_view, fast_spheres, general_path, contact_given;
	int allow_overlap;
};

/* Options into o (reset first). Returns 0, or the exit status 2 for a
 * usage error; after --help, 0 with o->help set. */
static int parse_options(struct options *o, int argc, char **argv)
{
	enum { OPT_STEPS = 256, OPT_EVERY, OPT_DT, OPT_SCHEME, OPT_BROAD, OPT_GROWTH, OPT_PIPES,
	       OPT_NO_MERGE, OPT_CONTACT, OPT_PICARD, OPT_MULTISCALE, OPT_LOG_VIEW,
	       OPT_FAST_SPHERES, OPT_GENERAL_PATH, OPT_ALLOW_OVERLAP };
	static const struct option longopts[] = {
		{"steps", required_argument, NULL, OPT_STEPS},
		{"every", required_argument, NULL, OPT_EVERY},
		{"dt", required_argument, NULL, OPT_DT},
		{"scheme", required_argument, NULL, OPT_SCHEME},
		{"broad", required_argument, NULL, OPT_BROAD},
		{"max-energy-growth", required_argument, NULL, OPT_GROWTH},
		{"via-pipes", no_argument, NULL, OPT_PIPES},
		{"allow-overlap", no_argument, NULL, OPT_ALLOW_OVERLAP},
		{"picard-tol", required_argument, NULL, OPT_PICARD},
		{"picard-max", required_argument, NULL, OPT_PICARD},
		{"picard-retries", required_argument, NULL, OPT_PICARD},
		{"surrogate-damping", required_argument, NULL, OPT_MULTISCALE},
		{"warm-start", no_argument, NULL, OPT_MULTISCALE},
		{"cold-start", no_argument, NULL, OPT_MULTISCALE},
		{"no-merge", no_argument, NULL, OPT_NO_MERGE},
		{"log-view", no_argument, NULL, OPT_LOG_VIEW},
		{"fast-spheres", no_argument, NULL, OPT_FAST_SPHERES},
		{"general-path", no_argument, NULL, OPT_GENERAL_PATH},
		{"hierarchy", required_argument, NULL, OPT_CONTACT},
		{"method", required_argument, NULL, OPT_CONTACT},
		{"iterations", required_argument, NULL, OPT_CONTACT},
		{"threshold", required_argument, NULL, OPT_CONTACT},
		{"simd", required_argument, NULL, OPT_CONTACT},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	memset(o, 0, sizeof *o);
	mrdem_contact_opts_default(&o->contact);
	o->contact.hierarchy = MRDEM_HIERARCHY_SURROGATE;
	mrdem_picard_opts_default(&o->picard);
	int c, li, bad = 0;
	struct mrdem_opts_seen seen = {{0}};
	while ((c = mrdem_getopt_once(argc, argv, "o:qh", longopts, &li, &seen)) != -1) {
		switch (c) {
		case OPT_STEPS: o->steps = optarg; break;
		case OPT_EVERY: o->every = optarg; break;
		case OPT_DT: o->dt = optarg; break;
		case OPT_SCHEME: o->scheme = optarg; break;
		case OPT_BROAD: o->broad = optarg; break;
		case OPT_GROWTH: o->growth = optarg; break;
		case OPT_PIPES: o->via_pipes = 1; break;
		case OPT_ALLOW_OVERLAP: o->allow_overlap = 1; break;
		case OPT_LOG_VIEW: o->log_view = 1; break;
		case OPT_FAST_SPHERES: o->fast_spheres = 1; break;
		case OPT_GENERAL_PATH: o->general_path = 1; break;
		case OPT_PICARD:
		case OPT_MULTISCALE:
			bad |= mrdem_picard_opts_set(&o->picard, longopts[li].name, optarg);
			*(c == OPT_PICARD ? &o->picard_given : &o->multiscale_given) = 1;
			break;
		case OPT_NO_MERGE: o->contact.merge = 0; o->contact_given = 1; break;
		case OPT_CONTACT:
			if (mrdem_contact_opts_set(&o->contact, longopts[li].name, optarg))
				return 2;
			o->contact_given = 1;
			break;
		case 'o': o->out = optarg; break;
		case 'q': o->quiet = 1; break;
		case 'h':
			printf("%s%s%s%s%s", usage_head, mrdem_picard_opts_usage, usage_middle,
			       mrdem_contact_opts_usage, usage_tail);
			o->help = 1;
			return 0;
		default: fputs("try 'mrdem-run --help'\n", stderr); return 2;
		}
	}
	if (argc - optind != 1) {
		fputs("mrdem-run: give one scene (try 'mrdem-run --help')\n", stderr);
		return 2;
	}
	o->scene = argv[optind];
	if (o->steps)
		bad |= mrdem_parse_u64("--steps", o->steps, UINT64_MAX - 1, &o->steps_v);
	if (o->every)
		bad |= mrdem_parse_u64_range("--every", o->every, 1, UINT64_MAX, &o->every_v);
	if (o->dt)
		bad |= mrdem_parse_positive("--dt", o->dt, &o->dt_v);
	if (o->growth) {
		bad |= mrdem_parse_double("--max-energy-growth", o->growth, &o->growth_v);
		if (!bad && o->growth_v < 0)
			bad = mrdem_error("--max-energy-growth: '%s' must not be negative", o->growth);
	}
	if (o->log_view && o->via_pipes)
		bad = mrdem_error("--log-view times the stages in process; the tools of --via-pipes "
				  "run apart (use one of the two)");
	if (o->fast_spheres && (o->via_pipes || o->log_view || o->contact_given || o->growth))
		bad = mrdem_error("--fast-spheres has no contact records, tools, stages or energy "
				  "bound to take --via-pipes, --log-view, --max-energy-growth or "
				  "contact options (--hierarchy, --method, --no-merge, ...)");
	if (o->fast_spheres && o->general_path)
		bad = mrdem_error("--fast-spheres and --general-path: choose one");
	int multiscale = o->contact.hierarchy == MRDEM_HIERARCHY_MULTISCALE;
	if (o->multiscale_given && !multiscale)
		bad = mrdem_error("--surrogate-damping, --warm-start and --cold-start apply to "
				  "--hierarchy multiscale only");
	if (mrdem_contact_opts_check(&o->contact))
		bad = 1;
	if (o->scheme && (o->scheme_v = mrdem_scheme_parse(o->scheme)) < 0)
		bad = mrdem_error("--scheme: unknown scheme '%s'", o->scheme);
	if (o->broad && (o->broad_v = mrdem_broad_method_option("--broad", o->broad)) < 0)
		bad = -1;
	return bad ? 2 : 0;
}

/* The options over the defaults of the scene just read, which then
 * records what the run uses. Returns 0, or an exit status. */
static int apply_options(struct run *r, const struct options *o)
{
	r->out = o->out;
	r->via_pipes = o->via_pipes;
	r->log_view = o->log_view;
	r->quiet = o->quiet;
	r->allow_overlap = o->allow_overlap || r->scene.setup.allow_overlap;
	mrdem_sim_opts_default(&r->opts, &r->scene.setup);
	r->opts.contact = o->contact;
	if (o->contact.hierarchy == MRDEM_HIERARCHY_AUTO)
		r->opts.contact.hierarchy = MRDEM_HIERARCHY_SURROGATE;
	r->steps = o->steps ? o->steps_v : r->scene.setup.steps;
	/* A resumed run goes on from its frame's step: the last step's number
	 * must fit the counter (a wrapped one would go back to step 0). */
	uint64_t start = r->scene.frame.step;
	if (start > UINT64_MAX - r->steps) {
		mrdem_error("%s: resuming at step %llu, %llu more steps (%s) would pass the "
			    "largest step number %llu; give --steps %llu or fewer",
			    o->scene, (unsigned long long)start, (unsigned long long)r->steps,
			    o->steps ? "--steps" : "time.steps of its setup record",
			    (unsigned long long)UINT64_MAX, (unsigned long long)(UINT64_MAX - start));
		return o->steps ? 2 : 1;
	}
	r->every = o->every ? o->every_v :
		   r->scene.setup.output_every ? r->scene.setup.output_every : 1;
	if (o->dt)
		r->opts.step.dt = o->dt_v;
	if (o->growth)
		r->opts.step.max_energy_growth = o->growth_v;
	if (o->scheme)
		r->opts.step.scheme = o->scheme_v;
	if (o->broad)
		r->opts.broad = o->broad_v;
	int implicit = r->opts.step.scheme == MRDEM_SCHEME_IMPLICIT_EULER;
	if (!implicit && o->contact.hierarchy == MRDEM_HIERARCHY_MULTISCALE) {
		mrdem_error("--hierarchy multiscale fuses the search into the Picard loop of "
			    "implicit-euler (paper Alg. 6), and this run uses %s; add --scheme "
			    "implicit-euler, or use flat or surrogate",
			    mrdem_scheme_name(r->opts.step.scheme));
		return 2;
	}
	if (!implicit && o->picard_given) {
		mrdem_error("--picard-tol, --picard-max and --picard-retries apply to implicit-euler "
			    "only, and this run uses %s", mrdem_scheme_name(r->opts.step.scheme));
		return 2;
	}
	r->opts.picard = o->picard;
	r->scene.setup.steps = r->steps;
	r->scene.setup.output_every = r->every;
	r->scene.setup.dt = r->opts.step.dt;
	r->scene.setup.scheme = r->opts.step.scheme;
	r->progress = !r->quiet && isatty(2);
	/* The fast path by itself when it covers the scene and no option asks
	 * for what only the general path has. */
	char why[256];
	int covered = mrdem_sphere_fast_covers(&r->scene, why, sizeof why);
	r->fast_auto = covered && !o->fast_spheres && !o->general_path && !o->via_pipes &&
		       !o->log_view && !o->contact_given && !o->growth;
	if (o->fast_spheres || r->fast_auto) {
		if (!covered) {
			mrdem_error("%s: --fast-spheres does not cover this scene: %s", o->scene, why);
			return 1;
		}
		double rmin = INFINITY;
		for (uint32_t k = 0; k < r->scene.nshapes; k++)
			rmin = fmin(rmin, r->scene.shapes[k].axes[0]);
		r->fast_skin = r->scene.nshapes ? 0.1 * rmin : 0;
		if (!(r->fast = mrdem_sphere_fast_new(&r->scene, r->opts.broad, r->fast_skin)))
			return 1;
	}
	return 0;
}

/* The start's contacts and their energy, for the summary; at step 0 its
 * overlaps are reported, and refused when they would throw the particles
 * apart (common/sim/overlap.h). Before any output. */
static int check_start(struct run *r, const char *scene)
{
	if (mrdem_overlap_measure(&r->scene, &r->opts, &r->start))
		return -1;
	r->have_start = 1;
	if (r->scene.frame.step != 0 || !r->start.deep)
		return 0;
	char what[512];
	mrdem_overlap_describe(&r->start, what, sizeof what);
	if (!mrdem_overlap_excessive(&r->start) || r->allow_overlap) {
		mrdem_warning("%s: %s", scene, what);
		return 0;
	}
	return mrdem_error("%s: %s: the first steps would throw the particles apart; move them "
			   "apart, or give --allow-overlap (scene key contact.allow_overlap: true) "
			   "if the overlap is intended", scene, what);
}

/* Simulate into the output stream, with a summary. Returns 0 or -1. */
static int run_scene(struct run *r, const char *scene, int argc, char **argv)
{
	if (mrdem_sim_init(&r->sim, &r->scene, &r->opts) || check_start(r, scene))
		return -1;
	if (r->via_pipes && tool_chain_open(&r->chain, argv[0]))
		return -1;
	/* Before the output exists: a signal as soon as it does ends the run
	 * cleanly (the loop looks at it before every step). */
	catch_stop_signals();
	/* Written in place and flushed per frame: a killed run keeps its frames. */
	if (mrdem_writer_open(&r->w, r->out, MRDEM_WRITE_INCREMENTAL))
		return -1;
	if (write_meta(r, scene, argc, argv)) {
		mrdem_writer_abort(&r->w);
		return -1;
	}
	mrdem_run_guard_init(&r->guard, &r->scene, r->opts.step.dt, r->steps,
			     r->fast ? 0 : r->opts.step.max_energy_growth);
	/* the scheme this run steps with, --scheme included */
	r->guard.speed_on = r->opts.step.scheme != MRDEM_SCHEME_IMPLICIT_EULER;
	r->t0 = mrdem_clock();
	int rc = r->fast ? simulate_fast(r) : simulate(r);
	r->t_loop = mrdem_clock() - r->t0;
	/* Close the stream either way once published: after a failure it still
	 * ends with the complete frames written so far. A run that failed before
	 * its first step was done leaves no output. */
	int written = !rc || mrdem_writer_published(&r->w);
	if (!written)
		mrdem_writer_abort(&r->w);
	else if (mrdem_writer_commit(&r->w))
		rc = -1;
	if (!r->quiet && written) /* else no step and no frame to report */
		run_summary(r);
	if (r->log_view)
		run_log_view(r);
	return rc;
}

int main(int argc, char **argv)
{
	struct run r;
	struct options o;
	memset(&r, 0, sizeof r);
	mrdem_set_progname(argv[0]);
	mrdem_threads_init();
	mrdem_scene_init(&r.scene);
	struct rusage ru;
	if (!getrusage(RUSAGE_SELF, &ru))
		r.base_rss_kb = ru.ru_maxrss;
	int rc = parse_options(&o, argc, argv);
	if (rc || o.help)
		return rc;
	if (load(&r, o.scene)) {
		mrdem_scene_release(&r.scene);
		return 1;
	}
	if ((rc = apply_options(&r, &o))) {
		mrdem_scene_release(&r.scene);
		return rc;
	}
	rc = run_scene(&r, o.scene, argc, argv);
	tool_chain_close(&r.chain);
	mrdem_buf_release(&r.fronts);
	mrdem_sim_release(&r.sim);
	mrdem_sphere_fast_free(r.fast);
	mrdem_run_guard_release(&r.guard);
	free(r.saved.flags);
	free(r.saved.state);
	mrdem_history_release(&r.saved.history);
	mrdem_scene_release(&r.scene);
	if (stop_signal)
		return 128 + stop_signal;
	return rc == 0 ? 0 : 1;
}
