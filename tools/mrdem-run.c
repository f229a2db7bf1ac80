/* mrdem-run: the driver. Runs a whole simulation of a scene in one process
 * (pairs -> contacts -> step, as library calls; implicit Euler loops the
 * contact search inside each step), or an explicit one through the separate
 * tools and real pipes with --via-pipes, and writes a frame stream. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/dynamics/integrate.h"
#include "common/util/simd.h"
#include "common/sim/simulation.h"
#include "common/sim/sphere_fast.h"
#include "common/util/error.h"
#include "common/util/threads.h"
#include "common/util/parse.h"
#include "common/util/stages.h"
#include "formats/stream/records.h"
#include "tools/run/tool_chain.h"
#include "formats/foreign/scene_yaml.h"
#include "formats/stream/filter.h"
#include "formats/stream/meta.h"
#include "formats/stream/stream.h"

static const char usage_head[] =
	"usage: mrdem-run [options] SCENE\n"
	"\n"
	"Simulate SCENE (a YAML scene, docs/scene.md, or a state stream whose last\n"
	"frame is the start): broad phase, contact detection and a rigid-body step\n"
	"per time step (implicit Euler: Picard iterations of contact detection and\n"
	"forces per step, docs/dynamics.md). Writes the setup, the shapes\n"
	"with their surrogate trees, and every --every steps a frame with its pairs,\n"
	"contacts and statistics, flushed so a killed run keeps its frames. The last\n"
	"frame is always written. A progress bar goes to standard error when it is a\n"
	"terminal, and a summary at the end.\n"
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
	"                    kinetic and contact energy before it (default 1; 0: off)\n";
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
	"The hierarchy defaults to surrogate here: shapes without a tree get one\n"
	"built first (docs/surrogate-trees.md), for multiscale too.\n"
	"\n"
	"Exit status: 0 success, 1 error (bad input, failed computation), 2 usage\n"
	"error (unknown option, bad option value, too many arguments).\n";

struct run {
	struct mrdem_scene scene;
	struct mrdem_sim sim;
	struct mrdem_sim_opts opts;
	struct mrdem_writer w;
	const char *out;
	uint64_t steps, every;
	int via_pipes, quiet, progress, log_view;
	/* the sphere fast path (--fast-spheres, or chosen by itself: fast_auto),
	 * its skin */
	struct mrdem_sphere_fast *fast;
	int fast_auto;
	double fast_skin;
	/* --via-pipes: where the tools are and their files; the fronts record
	 * the tools carry from step to step; option values as text */
	struct tool_chain chain;
	pid_t step_pid;   /* mrdem-step started with the detection, or 0 */
	uint64_t pipe_contacts; /* the last contacts record's count (progress) */
	struct mrdem_buf fronts;
	char pipe_iters[32], pipe_thr[32], pipe_dt[32], pipe_growth[32], pipe_tol[32],
	     pipe_max[32], pipe_retries[32], pipe_damping[32];
	/* summary */
	double t0, e_first, e_last;
	int have_energy;
	uint64_t sum_comparisons, sum_real, sum_fallbacks, sum_contacts, sum_pairs, nsteps;
	struct mrdem_convex_counts sum_convex; /* convex pairs' tracking, in this process */
	uint64_t sum_round[MRDEM_SEARCH_ROUNDS];
	uint64_t sum_picard_iterations, sum_picard_comparisons, sum_picard_retries;
	uint64_t sum_picard_fallbacks, sum_unfolds, sum_narrows, sum_guesses;
	double sum_detect; /* broad + narrow phase wall time, s */
	uint64_t frames_written;
	/* stages of the whole run, with the output stage of this driver; the
	 * loop's wall time; output seconds of the step under way */
	struct mrdem_stage_log log;
	double t_loop, out_step, io_step; /* output CPU and I/O wait of the step */
};

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

/* A YAML scene, or the setup, shapes and last complete frame of a stream:
 * a run killed mid-way resumes from what it wrote. */
static int load(struct run *r, const char *path)
{
	if (has_suffix(path, ".yaml") || has_suffix(path, ".yml"))
		return mrdem_scene_load_yaml(path, &r->scene);
	struct mrdem_filter f;
	mrdem_filter_init(&f, "mrdem-run");
	f.read_flags = MRDEM_READ_RECOVER;
	int rc = mrdem_filter_run(&f, path, NULL, 0, NULL);
	if (rc == 0 && !f.total_frames)
		rc = mrdem_error("%s: the stream has no frame to start from", path);
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

/* ---- the same step through the separate tools */

/* The frame and what the tools carry from step to step (the multiscale
 * fronts), for mrdem-pairs. */
static int write_state(struct run *r, const char *path)
{
	struct mrdem_writer w;
	if (mrdem_writer_open(&w, path, MRDEM_WRITE_STORED))
		return -1;
	if (mrdem_scene_write(&w, &r->scene) ||
	    (r->fronts.len && mrdem_writer_put(&w, MRDEM_REC_FRONTS, r->fronts.p, r->fronts.len))) {
		mrdem_writer_abort(&w);
		return -1;
	}
	return mrdem_writer_commit(&w);
}

static void tmp_path(char *buf, size_t size, const struct run *r, const char *name)
{
	tool_chain_path(&r->chain, buf, size, name);
}

/* Read pairs, contacts and their stats (det.mrd) or the next frame and the
 * step's stats (next.mrd, which also carries the earlier tools' stats
 * through: only_source picks the step's). Pairs, contacts and stats go to
 * the output when the frame is written. An implicit step's file says
 * whether the step goes on (a picard record: *more) and holds the fronts
 * to carry on. */
static int read_back(struct run *r, const char *path, int output, const char *only_source,
		     int *more)
{
	struct mrdem_reader rd;
	struct mrdem_record rec;
	int rc;
	if (mrdem_reader_open(&rd, path, 0))
		return -1;
	if (more)
		*more = 0;
	while ((rc = mrdem_reader_next(&rd, &rec)) == 1) {
		if (rec.type == MRDEM_REC_FRAME || rec.type == MRDEM_REC_HISTORY) {
			if (mrdem_scene_absorb(&r->scene, &rec, rd.name) < 0) {
				rc = -1;
				break;
			}
		} else if (rec.type == MRDEM_REC_PICARD && more) {
			*more = 1;
		} else if (rec.type == MRDEM_REC_FRONTS) {
			r->fronts.len = 0;
			mrdem_buf_bytes(&r->fronts, rec.data, rec.len);
		} else if (rec.type == MRDEM_REC_PAIRS || rec.type == MRDEM_REC_CONTACTS ||
			   rec.type == MRDEM_REC_STATS) {
			/* Only counted: mrdem-step decodes and checks the contacts. */
			if (rec.type == MRDEM_REC_CONTACTS &&
			    mrdem_count_contacts(&rec, rd.name, &r->pipe_contacts)) {
				rc = -1;
				break;
			}
			int copy = output;
			if (copy && only_source) {
				struct mrdem_stats st;
				if (rec.type != MRDEM_REC_STATS || mrdem_decode_stats(&rec, rd.name, &st)) {
					rc = -1;
					break;
				}
				copy = !strcmp(st.source, only_source);
				mrdem_stats_release(&st);
			}
			if (copy && mrdem_writer_put_record(&r->w, &rec)) {
				rc = -1;
				break;
			}
		}
	}
	mrdem_reader_close(&rd);
	return rc;
}

/* mrdem-contact with this run's options (hierarchy h) reading standard
 * input, writing to out (NULL: standard output); argv fills buf. */
static char **contact_tool(struct run *r, int h, const char *out, char *buf[16])
{
	const struct mrdem_contact_opts *o = &r->opts.contact;
	snprintf(r->pipe_iters, sizeof r->pipe_iters, "%d", o->narrow.iterations);
	snprintf(r->pipe_thr, sizeof r->pipe_thr, "%.17g", o->narrow.threshold);
	char *v[] = { "mrdem-contact", "--hierarchy", (char *)mrdem_hierarchy_name(h),
		      "--method", (char *)mrdem_narrow_method_name(o->narrow.method),
		      "--iterations", r->pipe_iters, "--threshold", r->pipe_thr, "--simd",
		      (char *)mrdem_simd_name(mrdem_simd_resolve(o->narrow.simd)),
		      o->merge ? NULL : "--no-merge", NULL, NULL, NULL, NULL };
	int n = o->merge ? 11 : 12;
	if (out)
		v[n++] = "-o", v[n++] = (char *)out;
	v[n] = NULL;
	memcpy(buf, v, sizeof v);
	return buf;
}

/* mrdem-step with this run's options, reading in, writing out. */
static char **step_tool(struct run *r, const char *in, const char *out, char *buf[24])
{
	const struct mrdem_picard_opts *p = &r->opts.picard;
	snprintf(r->pipe_dt, sizeof r->pipe_dt, "%.17g", r->opts.step.dt);
	snprintf(r->pipe_growth, sizeof r->pipe_growth, "%.17g", r->opts.step.max_energy_growth);
	snprintf(r->pipe_tol, sizeof r->pipe_tol, "%.17g", p->tol);
	snprintf(r->pipe_max, sizeof r->pipe_max, "%u", p->max_iter);
	snprintf(r->pipe_retries, sizeof r->pipe_retries, "%u", p->max_retries);
	snprintf(r->pipe_damping, sizeof r->pipe_damping, "%.17g", p->damping);
	int n = 0;
	buf[n++] = "mrdem-step";
	buf[n++] = "--scheme", buf[n++] = (char *)mrdem_scheme_name(r->opts.step.scheme);
	buf[n++] = "--dt", buf[n++] = r->pipe_dt;
	buf[n++] = "--max-energy-growth", buf[n++] = r->pipe_growth;
	if (r->opts.step.scheme == MRDEM_SCHEME_IMPLICIT_EULER) {
		buf[n++] = "--picard-tol", buf[n++] = r->pipe_tol;
		buf[n++] = "--picard-max", buf[n++] = r->pipe_max;
		buf[n++] = "--picard-retries", buf[n++] = r->pipe_retries;
		if (r->opts.contact.hierarchy == MRDEM_HIERARCHY_MULTISCALE) {
			buf[n++] = "--surrogate-damping", buf[n++] = r->pipe_damping;
			buf[n++] = p->warm_start ? "--warm-start" : "--cold-start";
		}
	}
	if (in)
		buf[n++] = (char *)in;
	buf[n++] = "-o", buf[n++] = (char *)out;
	buf[n] = NULL;
	return buf;
}

/* mrdem-pairs | mrdem-contact with this run's options, into det.mrd. A
 * frame's own contacts come from the surrogate search when the run is
 * multiscale (as in process, Lemma 5.1). With step, the step's mrdem-step
 * (into next.mrd) reads the same bytes as they come: it starts and decodes
 * the frame during the search instead of after it, and this driver reads
 * det.mrd while it steps (pipe_advance waits for it). */
static int pipe_detect(struct run *r, int output, int step)
{
	char state[PATH_MAX + 16], det[PATH_MAX + 16], next[PATH_MAX + 16], *cbuf[16], *sbuf[24];
	tmp_path(state, sizeof state, r, "state.mrd");
	tmp_path(det, sizeof det, r, "det.mrd");
	tmp_path(next, sizeof next, r, "next.mrd");
	if (write_state(r, state))
		return -1;
	int h = r->opts.contact.hierarchy;
	if (h == MRDEM_HIERARCHY_MULTISCALE)
		h = MRDEM_HIERARCHY_SURROGATE;
	char *pairs[] = { "mrdem-pairs", "--broad", (char *)mrdem_broad_method_name(r->opts.broad),
			  state, NULL };
	if (!step) {
		char **tools[] = { pairs, contact_tool(r, h, det, cbuf) };
		return tools_run(&r->chain, tools, 2) || read_back(r, det, output, NULL, NULL);
	}
	char **tools[] = { pairs, contact_tool(r, h, NULL, cbuf) };
	int from[2], to[2];
	pid_t pid[2] = { -1, -1 };
	if (tool_pipe(from))
		return -1;
	if (tool_pipe(to)) {
		close(from[0]);
		close(from[1]);
		return -1;
	}
	/* the detection first: it is the longer path */
	r->step_pid = -1;
	int rc = tools_start(&r->chain, tools, 2, from[1], pid);
	close(from[1]);
	rc = rc || tool_spawn(&r->chain, step_tool(r, NULL, next, sbuf), to[0], -1, &r->step_pid);
	close(to[0]);
	rc = rc || tool_pump(from[0], "mrdem-contact", det, to[1]);
	close(from[0]);
	rc = tools_wait(tools, 2, pid) || rc || read_back(r, det, output, NULL, NULL);
	/* After a failed detection mrdem-step goes before it sees the end of
	 * its input: its error would only repeat the detection's. */
	if (rc && r->step_pid > 0)
		kill(r->step_pid, SIGKILL);
	close(to[1]);
	if (rc) {
		if (r->step_pid > 0)
			waitpid(r->step_pid, NULL, 0);
		r->step_pid = 0;
		return -1;
	}
	return 0;
}

/* One step: mrdem-step on det.mrd into next.mrd, started by pipe_detect;
 * implicit Euler then runs mrdem-pairs | mrdem-contact | mrdem-step per
 * Picard iteration until the step's file has no picard record. */
static int pipe_advance(struct run *r, int output)
{
	char next[PATH_MAX + 16], iter[PATH_MAX + 16], *sbuf[24], *cbuf[16];
	tmp_path(next, sizeof next, r, "next.mrd");
	tmp_path(iter, sizeof iter, r, "iter.mrd");
	pid_t step = r->step_pid;
	r->step_pid = 0;
	int more = 0;
	if (step <= 0)
		return mrdem_error("--via-pipes: no mrdem-step was started for step %llu",
				   (unsigned long long)r->scene.frame.step);
	if (tool_wait(step, "mrdem-step") || read_back(r, next, output, "mrdem-step", &more))
		return -1;
	while (more) {
		char *pairs[] = { "mrdem-pairs", "--broad",
				  (char *)mrdem_broad_method_name(r->opts.broad), next, NULL };
		char **tools[] = { pairs, contact_tool(r, r->opts.contact.hierarchy, NULL, cbuf),
				   step_tool(r, NULL, iter, sbuf) };
		if (tools_run(&r->chain, tools, 3) || rename(iter, next) ||
		    read_back(r, next, output, "mrdem-step", &more))
			return -1;
	}
	return 0;
}

/* ---- reporting */

static void account(struct run *r)
{
	const struct mrdem_contact_counts *c = &r->sim.counts;
	struct mrdem_narrow_counts all = {0};
	mrdem_search_counts_total(&c->search, &all);
	for (int k = 0; k < MRDEM_SEARCH_ROUNDS; k++)
		r->sum_round[k] += c->search.round[k].comparisons;
	r->sum_comparisons += all.comparisons;
	r->sum_real += c->search.real.comparisons;
	r->sum_fallbacks += all.fallbacks;
	mrdem_convex_counts_add(&r->sum_convex, &c->convex);
	r->sum_contacts += r->sim.contacts.n;
	r->sum_pairs += r->sim.pairs.n;
	r->sum_detect += r->sim.t_broad + r->sim.t_narrow;
	r->nsteps++;
	if (r->sim.stepper.scheme == MRDEM_SCHEME_IMPLICIT_EULER) {
		const struct mrdem_picard_counts *pc = &r->sim.picard.last;
		r->sum_picard_iterations += pc->iterations;
		r->sum_picard_comparisons += pc->comparisons;
		r->sum_picard_retries += pc->retries;
		r->sum_picard_fallbacks += pc->fallbacks;
		r->sum_unfolds += pc->front.unfolds;
		r->sum_narrows += pc->front.narrows;
		r->sum_guesses += pc->front.guesses;
	}
	double e = mrdem_energy_total(&r->sim.stepper.energy);
	if (!r->have_energy)
		r->e_first = e, r->have_energy = 1;
	r->e_last = e;
}

static void progress(struct run *r, uint64_t done)
{
	if (!r->progress)
		return;
	int width = 30, fill = r->steps ? (int)(width * done / r->steps) : width;
	double el = mrdem_clock() - r->t0;
	double eta = done ? el / done * (r->steps - done) : 0;
	fprintf(stderr, "\r[%.*s%*s] %3d%% step %llu/%llu  t=%.4g s  contacts %zu  eta %.0f s ",
		fill, "==============================", width - fill, "",
		r->steps ? (int)(100 * done / r->steps) : 100, (unsigned long long)done,
		(unsigned long long)r->steps, r->scene.frame.time,
		r->via_pipes ? (size_t)r->pipe_contacts : r->sim.contacts.n, eta);
	fflush(stderr);
}

/* Stages shown; the Picard loop encloses broad phase, narrow phase and
 * forces of its iterations, so it is shown apart and not summed. */
static int stage_shown(const struct run *r, int k)
{
	return k != MRDEM_STAGE_PICARD || r->opts.step.scheme == MRDEM_SCHEME_IMPLICIT_EULER;
}

/* Two lines of the summary: ms per step and share of each stage. */
static void compact_log(const struct run *r)
{
	double n = r->nsteps ? (double)r->nsteps : 1, total = r->t_loop > 0 ? r->t_loop : 1;
	fputs("  stages, ms per step (share):", stderr);
	for (int k = 0; k < MRDEM_STAGES; k++) {
		if (!stage_shown(r, k))
			continue;
		if (k == MRDEM_STAGE_PARALLEL)
			fputs("\n   ", stderr);
		fprintf(stderr, "%s %s %.2g (%.0f%%)", k == MRDEM_STAGE_BROAD ||
			k == MRDEM_STAGE_PARALLEL ? "" : ",", k == MRDEM_STAGE_PICARD ? "Picard loop" :
			mrdem_stage_name(k), 1e3 * r->log.seconds[k] / n, 100 * r->log.seconds[k] / total);
	}
	fputs("\n", stderr);
}

/* PETSc -log_view in spirit: per stage calls, time, time per step and
 * share of the run loop; then the work counters with their rates. */
static void log_view(const struct run *r)
{
	const struct mrdem_stage_log *l = &r->log;
	double n = r->nsteps ? (double)r->nsteps : 1, total = r->t_loop > 0 ? r->t_loop : 1e-300;
	int implicit = r->opts.step.scheme == MRDEM_SCHEME_IMPLICIT_EULER;
	fprintf(stderr,
		"---- mrdem-run performance log (--log-view) ----\n"
		"%llu steps, %.6g s in the run loop (%.4g ms per step), %d OpenMP thread(s), %s\n"
		"Times are wall-clock seconds (CLOCK_MONOTONIC). search, kernels, fallback and\n"
		"merge run per pair on the threads in parallel: each is the threads' seconds\n"
		"summed and divided by the threads of the loop (the mean thread); 'parallel' is\n"
		"the rest of the narrow phase's wall time (thread start and join, load\n"
		"imbalance, job list). Share: of the run loop's wall time; the stages and\n"
		"'other' add up to it. Calls: broad phase runs; pairs searched; kernel batches\n"
		"(and plane pairs); fallback blocks; pairs' contact points; narrow phases;\n"
		"force evaluations; steps; output steps. output is the CPU time writing,\n"
		"io_wait the rest of its wall time (blocked on a full pipe or a slow disk).\n\n",
		(unsigned long long)r->nsteps, r->t_loop, 1e3 * r->t_loop / n, omp_get_max_threads(),
		mrdem_scheme_name(r->opts.step.scheme));
	fprintf(stderr, "%-12s %12s %12s %12s %8s\n", "Stage", "Calls", "Time (s)", "ms/step",
		"Share");
	double sum = 0;
	for (int k = 0; k < MRDEM_STAGES; k++) {
		if (k == MRDEM_STAGE_PICARD)
			continue;
		sum += l->seconds[k];
		fprintf(stderr, "%-12s %12llu %12.6f %12.4f %7.1f%%\n", mrdem_stage_name(k),
			(unsigned long long)l->calls[k], l->seconds[k], 1e3 * l->seconds[k] / n,
			100 * l->seconds[k] / total);
	}
	double other = r->t_loop - sum;
	fprintf(stderr, "%-12s %12s %12.6f %12.4f %7.1f%%\n", "other", "", other, 1e3 * other / n,
		100 * other / total);
	fprintf(stderr, "%-12s %12s %12.6f %12.4f %7.1f%%\n", "total", "", r->t_loop,
		1e3 * r->t_loop / n, 100.0);
	if (implicit) {
		const int k = MRDEM_STAGE_PICARD;
		fprintf(stderr, "%-12s %12llu %12.6f %12.4f %7.1f%%  (encloses the broad phase, narrow "
			"phase and forces of its iterations)\n", mrdem_stage_name(k),
			(unsigned long long)l->calls[k], l->seconds[k], 1e3 * l->seconds[k] / n,
			100 * l->seconds[k] / total);
	}
	double narrow = l->seconds[MRDEM_STAGE_SEARCH] + l->seconds[MRDEM_STAGE_KERNELS] +
			l->seconds[MRDEM_STAGE_FALLBACK] + l->seconds[MRDEM_STAGE_MERGE] +
			l->seconds[MRDEM_STAGE_PARALLEL];
	double kernels = l->seconds[MRDEM_STAGE_KERNELS] + l->seconds[MRDEM_STAGE_FALLBACK];
	struct { const char *name; uint64_t v; double per_s; const char *of; } c[] = {
		{"pairs", l->pairs, narrow, "narrow phase"},
		{"comparisons", l->comparisons, kernels, "kernels + fallback"},
		{"hits", l->hits, narrow, "narrow phase"},
		{"contacts", l->contacts, narrow, "narrow phase"},
		{"picard_iter", l->picard_iterations, l->seconds[MRDEM_STAGE_PICARD], "Picard loop"},
	};
	fprintf(stderr, "\n%-12s %14s %14s %14s  %s\n", "Counter", "Total", "Per step", "Rate (/s)",
		"per second of");
	for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
		if (k == 4 && !implicit)
			continue;
		fprintf(stderr, "%-12s %14llu %14.6g %14.4g  %s\n", c[k].name,
			(unsigned long long)c[k].v, (double)c[k].v / n,
			c[k].per_s > 0 ? (double)c[k].v / c[k].per_s : 0.0, c[k].of);
	}
	fputs("Counters cover every contact search: each frame's (also the last) and, with\n"
	      "implicit-euler, every Picard iteration's.\n", stderr);
}

static void summary(struct run *r)
{
	double wall = r->t_loop;
	double n = r->nsteps ? (double)r->nsteps : 1;
	if (r->progress)
		fputc('\n', stderr);
	fprintf(stderr, "mrdem-run: %llu steps in %.3f s (%.3g ms per step), %llu frames to %s\n",
		(unsigned long long)r->nsteps, wall, 1e3 * wall / n,
		(unsigned long long)r->frames_written, r->out ? r->out : "standard output");
	if (r->fast) {
		struct mrdem_sphere_fast_stats st;
		mrdem_sphere_fast_get_stats(r->fast, &st);
		double np = r->scene.frame.p.n ? (double)r->scene.frame.p.n : 1;
		fprintf(stderr, "  sphere fast path (skin %g m): %.3g ns per particle-step, %llu "
			"Verlet-list builds, per step %.1f listed pairs and %.1f contacts\n",
			r->fast_skin, 1e9 * wall / (n * np), (unsigned long long)st.rebuilds,
			st.list_pairs / n, st.contacts / n);
		if (r->fast_auto)
			fprintf(stderr, "  (chosen for this scene of analytic spheres: frames only; "
				"--general-path writes pairs, contacts and stats records)\n");
		return;
	}
	struct rusage ru;
	size_t np = r->scene.frame.p.n;
	if (!getrusage(RUSAGE_SELF, &ru)) {
		fprintf(stderr, "  peak resident memory: %.1f MB", ru.ru_maxrss / 1024.0);
		if (np >= 100) /* a share worth stating */
			fprintf(stderr, " (%.0f bytes per particle)", 1024.0 * ru.ru_maxrss / (double)np);
		fprintf(stderr, "%s\n", r->via_pipes ? ", this process (the tools of --via-pipes "
			"apart)" : "");
	}
	fprintf(stderr, "  per step: %.1f pairs, %.1f contacts, %.4g triangle comparisons "
		"(real %.4g", r->sum_pairs / n, r->sum_contacts / n, r->sum_comparisons / n,
		r->sum_real / n);
	for (int k = 0; k < MRDEM_SEARCH_ROUNDS; k++)
		if (r->sum_round[k])
			fprintf(stderr, ", round %d %.4g", k, r->sum_round[k] / n);
	fprintf(stderr, "), %.4g fallbacks\n", r->sum_fallbacks / n);
	const struct mrdem_convex_counts *cv = &r->sum_convex;
	if (cv->pairs)
		fprintf(stderr, "  convex pairs: %.4g per step, %.1f %% apart by closest-feature tracking, "
			"%.3g walk steps per pair, %llu GJK fallbacks\n", cv->pairs / n,
			100.0 * (double)cv->apart / (double)cv->pairs,
			(double)cv->steps / (double)cv->pairs, (unsigned long long)cv->fallbacks);
	if (r->sum_picard_iterations)
		fprintf(stderr, "  Picard: %.3g iterations per step, %.4g triangle comparisons per step "
			"(%.4g per iteration), %llu retries\n", r->sum_picard_iterations / n,
			r->sum_picard_comparisons / n,
			(double)r->sum_picard_comparisons / (double)r->sum_picard_iterations,
			(unsigned long long)r->sum_picard_retries);
	if (r->sum_picard_iterations)
		fprintf(stderr, "          %.4g fallbacks per step", r->sum_picard_fallbacks / n);
	if (r->sum_unfolds)
		fprintf(stderr, "; fronts (%s start): %.4g unfolds, %.4g narrows, %.4g surrogate "
			"guesses per step", r->opts.picard.warm_start ? "warm" : "cold",
			r->sum_unfolds / n, r->sum_narrows / n, r->sum_guesses / n);
	if (r->sum_picard_iterations)
		fprintf(stderr, "\n");
	if (!r->via_pipes) {
		fprintf(stderr, "  contact detection (broad + narrow phase): %.4g ms per step\n",
			1e3 * r->sum_detect / n);
		compact_log(r);
	}
	if (r->have_energy) {
		double drift = r->e_last - r->e_first;
		const char *contacts, *integrator;
		mrdem_energy_expectation(&r->scene.setup, r->opts.step.scheme, &contacts, &integrator);
		fprintf(stderr, "  energy (kinetic + gravitational + elastic): %.9g J at the first step, "
			"%.9g J at the last (change %.3g J, %.3g relative)\n    expected: %s;\n    %s\n",
			r->e_first, r->e_last, drift, r->e_first != 0 ? drift / fabs(r->e_first) : 0.0,
			contacts, integrator);
	}
}

/* ---- the run */

/* Output: the thread's CPU time writing is the output stage, the rest of
 * the wall time waiting for the pipe or disk (I/O wait). */
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
	r->io_step += wall - cpu;
	r->log.seconds[MRDEM_STAGE_OUTPUT] += cpu;
	r->log.seconds[MRDEM_STAGE_IO_WAIT] += wall - cpu;
}

static void output_call(struct run *r)
{
	r->log.calls[MRDEM_STAGE_OUTPUT]++;
	r->log.calls[MRDEM_STAGE_IO_WAIT]++;
}

static int write_frame(struct run *r)
{
	struct out_mark t0 = output_begin();
	int rc = mrdem_write_frame(&r->w, &r->scene.frame);
	output_done(r, t0);
	if (rc)
		return -1;
	r->frames_written++;
	return 0;
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
	l.seconds[MRDEM_STAGE_IO_WAIT] = r->io_step;
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
		if (output && i > 0 && (write_frame(r) || mrdem_writer_flush(w)))
			return -1;
		if (stop_signal)
			return interrupted(r);
		if (i == r->steps)
			return mrdem_writer_flush(w) ? -1 : 0;
		uint64_t step = r->scene.frame.step;
		if (mrdem_sphere_fast_step(r->fast)) {
			mrdem_error("stopped at step %llu (t = %.9g s); the frames before it are in the "
				    "output", (unsigned long long)step, r->scene.frame.time);
			return -1;
		}
		r->nsteps++;
		progress(r, i + 1);
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
		r->out_step = r->io_step = 0;
		if (output && !r->via_pipes)
			output_call(r);
		if (output && i > 0 && write_frame(r))
			return -1;
		if (stop_signal)
			return interrupted(r);
		if (r->via_pipes ? pipe_detect(r, output, i < r->steps) : mrdem_sim_detect(&r->sim))
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
		if (r->via_pipes ? pipe_advance(r, output) : mrdem_sim_advance(&r->sim)) {
			if (stop_signal) /* the tools of --via-pipes got the signal too */
				mrdem_error("interrupted during step %llu", (unsigned long long)step);
			else
				mrdem_error("stopped at step %llu (t = %.9g s); the frames before it are in "
				    "the output", (unsigned long long)step, r->scene.frame.time);
			return -1;
		}
		if (!r->via_pipes) {
			account(r);
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
		progress(r, i + 1);
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
};

/* Options into o (reset first). Returns 0, or the exit status 2 for a
 * usage error; after --help, 0 with o->help set. */
static int parse_options(struct options *o, int argc, char **argv)
{
	enum { OPT_STEPS = 256, OPT_EVERY, OPT_DT, OPT_SCHEME, OPT_BROAD, OPT_GROWTH, OPT_PIPES,
	       OPT_NO_MERGE, OPT_CONTACT, OPT_PICARD, OPT_MULTISCALE, OPT_LOG_VIEW,
	       OPT_FAST_SPHERES, OPT_GENERAL_PATH };
	static const struct option longopts[] = {
		{"steps", required_argument, NULL, OPT_STEPS},
		{"every", required_argument, NULL, OPT_EVERY},
		{"dt", required_argument, NULL, OPT_DT},
		{"scheme", required_argument, NULL, OPT_SCHEME},
		{"broad", required_argument, NULL, OPT_BROAD},
		{"max-energy-growth", required_argument, NULL, OPT_GROWTH},
		{"via-pipes", no_argument, NULL, OPT_PIPES},
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
	while ((c = getopt_long(argc, argv, "o:qh", longopts, &li)) != -1) {
		switch (c) {
		case OPT_STEPS: o->steps = optarg; break;
		case OPT_EVERY: o->every = optarg; break;
		case OPT_DT: o->dt = optarg; break;
		case OPT_SCHEME: o->scheme = optarg; break;
		case OPT_BROAD: o->broad = optarg; break;
		case OPT_GROWTH: o->growth = optarg; break;
		case OPT_PIPES: o->via_pipes = 1; break;
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
	if (o->every) {
		bad |= mrdem_parse_u64("--every", o->every, UINT64_MAX, &o->every_v);
		if (!bad && !o->every_v)
			bad = mrdem_error("--every must be at least 1");
	}
	if (o->dt)
		bad |= mrdem_parse_positive("--dt", o->dt, &o->dt_v);
	if (o->growth) {
		bad |= mrdem_parse_double("--max-energy-growth", o->growth, &o->growth_v);
		if (!bad && o->growth_v < 0)
			bad = mrdem_error("--max-energy-growth must not be negative");
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
	if (o->scheme && (o->scheme_v = mrdem_scheme_parse(o->scheme)) < 0)
		bad = mrdem_error("--scheme: unknown scheme '%s'", o->scheme);
	if (o->broad && (o->broad_v = mrdem_broad_method_parse(o->broad)) < 0)
		bad = mrdem_error("--broad: '%s' is not " MRDEM_BROAD_METHOD_LIST, o->broad);
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
	mrdem_sim_opts_default(&r->opts, &r->scene.setup);
	r->opts.contact = o->contact;
	if (o->contact.hierarchy == MRDEM_HIERARCHY_AUTO)
		r->opts.contact.hierarchy = MRDEM_HIERARCHY_SURROGATE;
	r->steps = o->steps ? o->steps_v : r->scene.setup.steps;
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

/* Simulate into the output stream, with a summary. Returns 0 or -1. */
static int run_scene(struct run *r, const char *scene, int argc, char **argv)
{
	if (mrdem_sim_init(&r->sim, &r->scene, &r->opts))
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
	r->t0 = mrdem_clock();
	int rc = r->fast ? simulate_fast(r) : simulate(r);
	r->t_loop = mrdem_clock() - r->t0;
	/* Close the stream either way: after a failure it still ends with the
	 * complete frames written so far. */
	if (mrdem_writer_commit(&r->w))
		rc = -1;
	if (!r->quiet)
		summary(r);
	if (r->log_view)
		log_view(r);
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
	mrdem_scene_release(&r.scene);
	if (stop_signal)
		return 128 + stop_signal;
	return rc == 0 ? 0 : 1;
}
