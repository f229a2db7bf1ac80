/* mrdem-run --via-pipes: one step of the driver as mrdem-pairs |
 * mrdem-contact | mrdem-step, real processes joined by pipes
 * (tool_chain.c), with the frame handed over and read back through files
 * in the run's scratch directory. Bit for bit the step in process. */
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/util/error.h"
#include "common/util/simd.h"
#include "formats/stream/records.h"
#include "tools/run/run.h"

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

/* Read pairs, contacts and their stats (det.mrd) or the next frame and the
 * step's stats (next.mrd, which also carries the earlier tools' stats
 * through: only_source picks the step's). Pairs, contacts and stats go to
 * the output when the frame is written. An implicit step's file says
 * whether the step goes on (a picard record: *more) and holds the fronts
 * to carry on. */
/* The energies of the step's start from mrdem-step's stats record, for the
 * run's energy guard (the in-process run takes them from the stepper). */
static void take_energies(struct run *r, const struct mrdem_stats *st)
{
	double v[3] = {NAN, NAN, NAN};
	static const char *const names[3] = {"energy_kinetic", "energy_gravity", "energy_contact"};
	for (size_t i = 0; i < st->n; i++)
		for (int k = 0; k < 3; k++)
			if (!strcmp(st->names[i], names[k]))
				v[k] = st->values[i];
	r->pipe_have_energy = isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
	for (int k = 0; k < 3; k++)
		r->pipe_energy[k] = v[k];
}

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
			if (only_source && rec.type == MRDEM_REC_STATS) {
				struct mrdem_stats st;
				if (mrdem_decode_stats(&rec, rd.name, &st)) {
					rc = -1;
					break;
				}
				copy = copy && !strcmp(st.source, only_source);
				if (!strcmp(st.source, "mrdem-step"))
					take_energies(r, &st);
				mrdem_stats_release(&st);
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

/* mrdem-contact with this run's options (hierarchy h) reading standard
 * input, writing to out (NULL: standard output); argv fills buf. */
static char **contact_tool(struct run *r, int h, const char *out, char *buf[16])
{
	const struct mrdem_contact_opts *o = &r->opts.contact;
	snprintf(r->pipe_iters, sizeof r->pipe_iters, "%d", o->narrow.iterations);
	snprintf(r->pipe_thr, sizeof r->pipe_thr, "%.17g", o->narrow.threshold);
	char *v[16] = { "mrdem-contact", "--hierarchy", (char *)mrdem_hierarchy_name(h),
			"--method", (char *)mrdem_narrow_method_name(o->narrow.method), "--simd",
			(char *)mrdem_simd_name(mrdem_simd_resolve(o->narrow.simd)) };
	int n = 7;
	if (o->narrow.method != MRDEM_NARROW_COMPARISON) { /* which has no sweeps to tune */
		v[n++] = "--iterations", v[n++] = r->pipe_iters;
		v[n++] = "--threshold", v[n++] = r->pipe_thr;
	}
	if (!o->merge)
		v[n++] = "--no-merge";
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

int run_pipe_detect(struct run *r, int output, int frame, int step)
{
	char state[PATH_MAX + 16], det[PATH_MAX + 16], next[PATH_MAX + 16], *cbuf[16], *sbuf[24];
	tool_chain_path(&r->chain, state, sizeof state, "state.mrd");
	tool_chain_path(&r->chain, det, sizeof det, "det.mrd");
	tool_chain_path(&r->chain, next, sizeof next, "next.mrd");
	if (write_state(r, state))
		return -1;
	int h = r->opts.contact.hierarchy;
	if (h == MRDEM_HIERARCHY_MULTISCALE)
		h = MRDEM_HIERARCHY_SURROGATE;
	char *pairs[] = { "mrdem-pairs", "--broad", (char *)mrdem_broad_method_name(r->opts.broad),
			  state, NULL };
	if (!step) {
		char **tools[] = { pairs, contact_tool(r, h, det, cbuf) };
		return tools_run(&r->chain, tools, 2) || (frame && write_frame_with(r, det)) ||
		       read_back(r, det, output, NULL, NULL);
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
	rc = tools_wait(tools, 2, pid) || rc || (frame && write_frame_with(r, det)) ||
	     read_back(r, det, output, NULL, NULL);
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
int run_pipe_advance(struct run *r, int output)
{
	char next[PATH_MAX + 16], iter[PATH_MAX + 16], *sbuf[24], *cbuf[16];
	tool_chain_path(&r->chain, next, sizeof next, "next.mrd");
	tool_chain_path(&r->chain, iter, sizeof iter, "iter.mrd");
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
