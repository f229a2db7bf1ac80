/* mrdem-run --via-pipes: one step of the driver as mrdem-pairs |
 * mrdem-contact | mrdem-step, real processes joined by pipes
 * (tool_chain.c), with the frame handed over and read back through files
 * in the run's scratch directory. Bit for bit the step in process. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/dynamics/step.h"
#include "common/util/error.h"
#include "common/util/simd.h"
#include "formats/stream/bytes.h"
#include "formats/stream/records.h"
#include "tools/run/run.h"
#include "tools/run/tool_chain.h"

/* What the steps through the tools keep from one to the next. */
struct pipes {
	struct tool_chain chain; /* where the tools are, and their files */
	pid_t step_pid;          /* mrdem-step started with the detection, or 0 */
	uint64_t contacts;       /* the last contacts record's count (progress) */
	struct mrdem_buf fronts; /* the fronts record the tools carry on */
	/* the energies of the step's start from mrdem-step's stats record */
	int have_energy;
	double energy[3];        /* kinetic, gravitational, contact */	/* the written frames' velocities, synchronised with their contacts */
	struct mrdem_stepper stepper;
};

static struct pipes *pipes_of(const struct run *r)
{
	return r->backend_state;
}

/* ---- command lines */

/* Room for the longest command line of a tool here (mrdem-step's with
 * every option is 19 words) and the option values it prints. */
enum { TOOL_ARGV_MAX = 24, TOOL_ARGV_TEXT = 256 };

/* A tool's command line, built word by word: more words or text than it
 * has room for is a bug, stopped here rather than written past its end. */
struct tool_argv {
	char *v[TOOL_ARGV_MAX + 1];
	int n;
	char text[TOOL_ARGV_TEXT];
	size_t used;
};

static void argv_add(struct tool_argv *a, const char *word)
{
	if (a->n >= TOOL_ARGV_MAX) {
		mrdem_error("--via-pipes: a command line of more than %d words (%s ...)",
			    TOOL_ARGV_MAX, a->v[0]);
		abort();
	}
	a->v[a->n++] = (char *)word;
	a->v[a->n] = NULL;
}

/* A word printed with fmt into the line's own text. */
static void argv_addf(struct tool_argv *a, const char *fmt, ...) MRDEM_PRINTF(2, 3);

static void argv_addf(struct tool_argv *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	size_t room = sizeof a->text - a->used;
	int len = vsnprintf(a->text + a->used, room, fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= room) {
		mrdem_error("--via-pipes: the option values of a command line pass %d bytes",
			    TOOL_ARGV_TEXT);
		abort();
	}
	argv_add(a, a->text + a->used);
	a->used += (size_t)len + 1;
}

static char **argv_start(struct tool_argv *a, const char *tool)
{
	a->n = 0;
	a->used = 0;
	argv_add(a, tool);
	return a->v;
}

/* The frame and what the tools carry from step to step (the multiscale
 * fronts), for mrdem-pairs. */
static int write_state(struct run *r, const char *path)
{
	const struct mrdem_buf *fronts = &pipes_of(r)->fronts;
	struct mrdem_writer w;
	if (mrdem_writer_open(&w, path, MRDEM_WRITE_STORED))
		return -1;
	if (mrdem_scene_write(&w, &r->scene) ||
	    (fronts->len && mrdem_writer_put(&w, MRDEM_REC_FRONTS, fronts->p, fronts->len))) {
		mrdem_writer_abort(&w);
		return -1;
	}
	return mrdem_writer_commit(&w);
}

/* The energies of the step's start from mrdem-step's stats record, for the
 * run's energy guard (the in-process run takes them from the stepper); a
 * record without one of them is an error, which would turn the guard off.
 * 0 or -1. */
static int take_energies(struct run *r, const struct mrdem_stats *st, const char *where)
{
	struct pipes *ps = pipes_of(r);
	static const char *const names[3] = {MRDEM_STAT_ENERGY_KINETIC, MRDEM_STAT_ENERGY_GRAVITY,
					     MRDEM_STAT_ENERGY_CONTACT};
	double v[3];
	for (int k = 0; k < 3; k++) {
		size_t i = 0;
		while (i < st->n && strcmp(st->names[i], names[k]))
			i++;
		if (i == st->n)
			return mrdem_error("%s: the stats record of mrdem-step has no %s", where,
					   names[k]);
		v[k] = st->values[i];
	}
	ps->have_energy = isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
	for (int k = 0; k < 3; k++)
		ps->energy[k] = v[k];
	/* the summary's first and last energies, summed as mrdem_energy_total */
	if (ps->have_energy) {
		double e = v[0] + v[1] + v[2];
		if (!r->have_energy)
			r->e_first = e, r->have_energy = 1;
		r->e_last = e;
	}
	return 0;
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
	struct pipes *ps = pipes_of(r);
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
			ps->fronts.len = 0;
			mrdem_buf_bytes(&ps->fronts, rec.data, rec.len);
		} else if (rec.type == MRDEM_REC_PAIRS || rec.type == MRDEM_REC_CONTACTS ||
			   rec.type == MRDEM_REC_STATS) {
			/* Only counted: mrdem-step decodes and checks the contacts. */
			if (rec.type == MRDEM_REC_CONTACTS &&
			    mrdem_count_contacts(&rec, rd.name, &ps->contacts)) {
				rc = -1;
				break;
			}
			int copy = output;
			if (only_source && rec.type == MRDEM_REC_STATS) {
				struct mrdem_stats st;
				if (mrdem_decode_stats(&rec, rd.name, &st)) {
					rc = -1;
					break;
				}
				copy = copy && !strcmp(st.source, only_source);
				int bad = !strcmp(st.source, "mrdem-step") &&
					  take_energies(r, &st, rd.name);
				if (!strcmp(st.source, "mrdem-step")) {
					struct mrdem_flow_account a = {0};
					mrdem_flow_account_add_stats(&a, &st);
					run_flow_add(r, &a);
				}
				mrdem_stats_release(&st);
				if (bad) {
					rc = -1;
					break;
				}
			} else if (only_source && copy) {
				rc = -1;
				break;
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

/* mrdem-pairs on the frame in path with this run's broad phase. */
static char **pairs_tool(struct run *r, const char *path, struct tool_argv *a)
{
	char **v = argv_start(a, "mrdem-pairs");
	argv_add(a, "--broad");
	argv_add(a, mrdem_broad_method_name(r->opts.broad));
	argv_add(a, path);
	return v;
}

/* mrdem-contact with this run's options (hierarchy h) reading standard
 * input, writing to out (NULL: standard output). */
static char **contact_tool(struct run *r, int h, const char *out, struct tool_argv *a)
{
	const struct mrdem_contact_opts *o = &r->opts.contact;
	char **v = argv_start(a, "mrdem-contact");
	argv_add(a, "--hierarchy"), argv_add(a, mrdem_hierarchy_name(h));
	argv_add(a, "--method"), argv_add(a, mrdem_narrow_method_name(o->narrow.method));
	argv_add(a, "--simd"), argv_add(a, mrdem_simd_name(mrdem_simd_resolve(o->narrow.simd)));
	if (o->narrow.method != MRDEM_NARROW_COMPARISON) { /* which has no sweeps to tune */
		argv_add(a, "--iterations"), argv_addf(a, "%d", o->narrow.iterations);
		argv_add(a, "--threshold"), argv_addf(a, "%.17g", o->narrow.threshold);
	}
	if (!o->merge)
		argv_add(a, "--no-merge");
	if (out)
		argv_add(a, "-o"), argv_add(a, out);
	return v;
}

/* mrdem-step with this run's options, reading in, writing out. */
static char **step_tool(struct run *r, const char *in, const char *out, struct tool_argv *a)
{
	const struct mrdem_picard_opts *p = &r->opts.picard;
	char **v = argv_start(a, "mrdem-step");
	argv_add(a, "--scheme"), argv_add(a, mrdem_scheme_name(r->opts.step.scheme));
	argv_add(a, "--dt"), argv_addf(a, "%.17g", r->opts.step.dt);
	argv_add(a, "--max-energy-growth"), argv_addf(a, "%.17g", r->opts.step.max_energy_growth);
	if (r->opts.step.scheme == MRDEM_SCHEME_IMPLICIT_EULER) {
		argv_add(a, "--picard-tol"), argv_addf(a, "%.17g", p->tol);
		argv_add(a, "--picard-max"), argv_addf(a, "%u", p->max_iter);
		argv_add(a, "--picard-retries"), argv_addf(a, "%u", p->max_retries);
		if (r->opts.contact.hierarchy == MRDEM_HIERARCHY_MULTISCALE) {
			argv_add(a, "--surrogate-damping"), argv_addf(a, "%.17g", p->damping);
			argv_add(a, p->warm_start ? "--warm-start" : "--cold-start");
		}
	}
	if (in)
		argv_add(a, in);
	argv_add(a, "-o"), argv_add(a, out);
	return v;
}

/* The frame to the output, synchronised with the contacts in det.mrd. */
static int write_frame_with(struct run *r, const char *det)
{
	struct mrdem_reader rd;
	struct mrdem_record rec;
	struct mrdem_contacts c;
	int rc, found = 0;
	if (mrdem_reader_open(&rd, det, 0))
		return -1;
	mrdem_contacts_init(&c);
	while ((rc = mrdem_reader_next(&rd, &rec)) == 1)
		if (rec.type == MRDEM_REC_CONTACTS) {
			if (mrdem_decode_contacts(&rec, rd.name, &c)) {
				rc = -1;
				break;
			}
			found = 1;
		}
	mrdem_reader_close(&rd);
	rc = rc < 0 || run_write_frame(r, found ? &c : NULL) ? -1 : 0;
	mrdem_contacts_release(&c);
	return rc;
}

/* mrdem-pairs | mrdem-contact with this run's options, into det.mrd. A
 * frame's own contacts come from the surrogate search when the run is
 * multiscale (as in process, Lemma 5.1). With step, the step's mrdem-step
 * (into next.mrd) reads the same bytes as they come: it starts and decodes
 * the frame during the search instead of after it, and this driver reads
 * det.mrd while it steps (advance waits for it). */
static int detect(struct run *r, int output, int frame, int step)
{
	struct pipes *ps = pipes_of(r);
	struct tool_argv pa, ca, sa;
	char state[PATH_MAX + 16], det[PATH_MAX + 16], next[PATH_MAX + 16];
	tool_chain_path(&ps->chain, state, sizeof state, "state.mrd");
	tool_chain_path(&ps->chain, det, sizeof det, "det.mrd");
	tool_chain_path(&ps->chain, next, sizeof next, "next.mrd");
	if (write_state(r, state))
		return -1;
	int h = r->opts.contact.hierarchy;
	if (h == MRDEM_HIERARCHY_MULTISCALE)
		h = MRDEM_HIERARCHY_SURROGATE;
	if (!step) {
		char **tools[] = { pairs_tool(r, state, &pa), contact_tool(r, h, det, &ca) };
		return tools_run(&ps->chain, tools, 2) || (frame && write_frame_with(r, det)) ||
		       read_back(r, det, output, NULL, NULL);
	}
	char **tools[] = { pairs_tool(r, state, &pa), contact_tool(r, h, NULL, &ca) };
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
	ps->step_pid = -1;
	int rc = tools_start(&ps->chain, tools, 2, from[1], pid);
	close(from[1]);
	rc = rc || tool_spawn(&ps->chain, step_tool(r, NULL, next, &sa), to[0], -1, &ps->step_pid);
	close(to[0]);
	rc = rc || tool_pump(from[0], "mrdem-contact", det, to[1]);
	close(from[0]);
	rc = tools_wait(tools, 2, pid) || rc || (frame && write_frame_with(r, det)) ||
	     read_back(r, det, output, NULL, NULL);
	/* After a failed detection mrdem-step goes before it sees the end of
	 * its input: its error would only repeat the detection's. */
	if (rc && ps->step_pid > 0)
		kill(ps->step_pid, SIGKILL);
	close(to[1]);
	if (rc) {
		if (ps->step_pid > 0)
			waitpid(ps->step_pid, NULL, 0);
		ps->step_pid = 0;
		return -1;
	}
	return 0;
}

/* One step: mrdem-step on det.mrd into next.mrd, started by detect;
 * implicit Euler then runs mrdem-pairs | mrdem-contact | mrdem-step per
 * Picard iteration until the step's file has no picard record. */
static int advance(struct run *r, int output)
{
	struct pipes *ps = pipes_of(r);
	struct tool_argv pa, ca, sa;
	char next[PATH_MAX + 16], iter[PATH_MAX + 16];
	tool_chain_path(&ps->chain, next, sizeof next, "next.mrd");
	tool_chain_path(&ps->chain, iter, sizeof iter, "iter.mrd");
	pid_t step = ps->step_pid;
	ps->step_pid = 0;
	ps->have_energy = 0;
	int more = 0;
	if (step <= 0)
		return mrdem_error("--via-pipes: no mrdem-step was started for step %llu",
				   (unsigned long long)r->scene.frame.step);
	if (tool_wait(step, "mrdem-step") || read_back(r, next, output, "mrdem-step", &more))
		return -1;
	while (more) {
		char **tools[] = { pairs_tool(r, next, &pa),
				   contact_tool(r, r->opts.contact.hierarchy, NULL, &ca),
				   step_tool(r, NULL, iter, &sa) };
		if (tools_run(&ps->chain, tools, 3))
			return -1;
		if (rename(iter, next))
			return mrdem_error("--via-pipes: cannot rename %s to %s: %s", iter, next,
					   strerror(errno));
		if (read_back(r, next, output, "mrdem-step", &more))
			return -1;
	}
	return 0;
}

static int start_energies(const struct run *r, double e[3])
{
	const struct pipes *ps = pipes_of(r);
	for (int k = 0; k < 3; k++)
		e[k] = ps->energy[k];
	return ps->have_energy;
}

static uint64_t contacts(const struct run *r)
{
	return pipes_of(r)->contacts;
}

static int synchronise(struct run *r, const struct mrdem_contacts *c, double **vel,
		       double **angvel)
{
	return run_stepper_synchronise(&pipes_of(r)->stepper, r, c, vel, angvel);
}

static int open_pipes(struct run *r, int argc, char **argv)
{
	(void)argc;
	struct pipes *ps = mrdem_xcalloc(1, sizeof *ps);
	mrdem_stepper_init(&ps->stepper);
	r->backend_state = ps;
	return tool_chain_open(&ps->chain, argv[0]);
}

static void close_pipes(struct run *r)
{
	struct pipes *ps = pipes_of(r);
	if (!ps)
		return;
	tool_chain_close(&ps->chain);
	mrdem_buf_release(&ps->fronts);
	mrdem_stepper_release(&ps->stepper);
	free(ps);
	r->backend_state = NULL;
}

const struct run_backend run_via_pipes = {
	.option = "via-pipes",
	.open = open_pipes,
	.close = close_pipes,
	.detect = detect,
	.advance = advance,
	.synchronise = synchronise,
	.start_energies = start_energies,
	/* no account: the tools wrote the step's records and timed it */
	.contacts = contacts,
	.refuses = RUN_OPT_LOG_VIEW | RUN_OPT_FRONTS,
	.refusal = "--log-view times the stages in process, and --warm-start keeps the fronts of "
		   "the explicit search in process; the tools of --via-pipes run apart, anew each "
		   "step (use one of the two)",
	.memory_note = "; this process (the tools of --via-pipes apart)",
};
