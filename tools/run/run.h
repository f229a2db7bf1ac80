/* The state of one mrdem-run (the driver, tools/mrdem-run.c), shared by its
 * parts: the loop in the main, the steps through the separate tools
 * (via_pipes.c) and the reporting (report.c). */
#ifndef MRDEM_TOOLS_RUN_RUN_H
#define MRDEM_TOOLS_RUN_RUN_H

#include <stdint.h>
#include <sys/types.h>

#include "common/sim/overlap.h"
#include "common/sim/run_guard.h"
#include "common/sim/simulation.h"
#include "common/sim/sphere_fast.h"
#include "common/util/stages.h"
#include "formats/stream/bytes.h"
#include "formats/stream/stream.h"
#include "tools/run/tool_chain.h"

/* A frame's state kept through the step from it (mrdem-run.c). */
struct saved_frame {
	size_t cap;
	uint32_t *flags;
	double *state;            /* pos, quat, vel, angvel: 13 per particle */
	struct mrdem_history history;
	uint64_t step;
	double time;
};

struct run {
	struct mrdem_scene scene;
	struct mrdem_sim sim;
	struct mrdem_sim_opts opts;
	struct mrdem_writer w;
	const char *out;
	uint64_t steps, every;
	int via_pipes, quiet, progress, log_view, allow_overlap;
	/* the start's contacts and energies (check_start) */
	struct mrdem_overlap start;
	int have_start;
	/* the run's guards, the state of the step under way, and (--via-pipes)
	 * the energies of its start from mrdem-step's stats record */
	struct mrdem_run_guard guard;
	struct saved_frame saved;
	double saved_time;
	int pipe_have_energy;
	double pipe_energy[3];    /* kinetic, gravitational, contact */
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
	uint64_t max_contacts; /* of a step: what the contact memory is sized by */
	long base_rss_kb;      /* peak resident size before the scene was read */
	struct mrdem_convex_counts sum_convex; /* convex pairs' tracking, in this process */
	uint64_t sum_round[MRDEM_SEARCH_ROUNDS];
	uint64_t sum_picard_iterations, sum_picard_comparisons, sum_picard_retries;
	uint64_t sum_picard_fallbacks, sum_unfolds, sum_narrows, sum_guesses;
	double sum_detect; /* broad + narrow phase wall time, s */
	uint64_t frames_written;
	/* stages of the whole run, with the output stage of this driver; the
	 * loop's wall time; output seconds of the step under way */
	struct mrdem_stage_log log;
	double t_loop, out_step, wait_step; /* output CPU and off-CPU time of the step */
};

/* The current frame to the output, its pending Verlet half kicks closed
 * with the forces of its contacts c (NULL: as it is) or on the sphere fast
 * path (docs/output.md, "Velocities"). 0 or -1 (mrdem-run.c). */
int run_write_frame(struct run *r, const struct mrdem_contacts *c);

/* --via-pipes (via_pipes.c). run_pipe_detect: mrdem-pairs | mrdem-contact
 * on the current frame, the frame (when frame is set, synchronised with the
 * contacts found) and then its records to the output when output is set; with
 * step, the step's mrdem-step is started on the same bytes.
 * run_pipe_advance: that step (and the Picard iterations of implicit
 * Euler), the next frame read back. */
int run_pipe_detect(struct run *r, int output, int frame, int step);
int run_pipe_advance(struct run *r, int output);

/* Reporting (report.c): a step's counters into the run's sums, the progress
 * bar after done steps, the summary and the --log-view table at the end. */
void run_account(struct run *r);
void run_progress(struct run *r, uint64_t done);
void run_summary(struct run *r);
void run_log_view(const struct run *r);

#endif
