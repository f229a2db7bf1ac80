/* The state of one mrdem-run (the driver, tools/mrdem-run.c), shared by its
 * parts: the options in the main, the step loop (loop.c) and the backend
 * it runs the steps with (in_process.c, via_pipes.c, sphere_fast.c), the
 * reporting (report.c). */
#ifndef MRDEM_TOOLS_RUN_RUN_H
#define MRDEM_TOOLS_RUN_RUN_H

#include <stdint.h>

#include "common/sim/overlap.h"
#include "common/sim/run_guard.h"
#include "common/sim/simulation.h"
#include "common/sim/sphere_fast.h"
#include "common/util/stages.h"
#include "formats/stream/stream.h"

/* A frame's state kept through the step from it (loop.c). */
struct saved_frame {
	size_t cap;
	uint32_t *flags;
	double *state;            /* pos, quat, vel, angvel: 13 per particle */
	struct mrdem_history history;
	uint64_t step;
	double time;
	/* a scene whose particles come and go (flow.h): the whole frame */
	struct mrdem_frame whole;
};

struct run;

/* Options a backend may not take (struct run_backend, refuses). */
enum run_option {
	RUN_OPT_LOG_VIEW = 1,       /* --log-view */
	RUN_OPT_ENERGY_BOUND = 2,   /* --max-energy-growth */
	RUN_OPT_CONTACT = 4,        /* the contact options (--hierarchy, ...) */
	RUN_OPT_OTHER_BACKEND = 8,  /* the option of another backend */
	RUN_OPT_FRONTS = 16,        /* --warm-start of an explicit scheme */
};

/* A way to run the steps: the loop (loop.c) calls these, and nothing else
 * of the backend, for every step; mrdem-run.c chooses it (by option, or by
 * itself) from what it says it takes. Each returns 0, or -1 after
 * reporting an error. Hooks marked optional may be NULL. */
struct run_backend {
	/* The long option that chooses it (without "--"); NULL: the default. */
	const char *option;
	/* Before the first step, with the command line (a backend beside
	 * its tools, or one of several processes, starts from it); close
	 * releases what open made, also after a failed open. */
	int (*open)(struct run *r, int argc, char **argv);
	void (*close)(struct run *r);
	/* Optional: whether it can run the scene s; 0 with why when not. */
	int (*covers)(const struct mrdem_scene *s, char *why, size_t size);
	/* The current frame's contact search. With output, its pairs,
	 * contacts and stats records go to the output, and with frame the
	 * frame before them, synchronised with the contacts found; step: a
	 * step from it follows. */
	int (*detect)(struct run *r, int output, int frame, int step);
	/* The step from the current frame to the next (its records to the
	 * output when output). -1: the step failed. */
	int (*advance)(struct run *r, int output);
	/* The velocities at the current frame's time of a frame whose Verlet
	 * half kicks are pending, with the forces of its contacts c (NULL:
	 * those the backend keeps, if any): 1 with vel and angvel set (3 per
	 * particle, the backend's until its next call), 0 to write the frame
	 * as it is, -1 after an error. */
	int (*synchronise)(struct run *r, const struct mrdem_contacts *c, double **vel,
			   double **angvel);
	/* Optional: the energies of the step's start (kinetic, gravitational,
	 * contact) for the run's energy guard: 1 with e set, 0 when not
	 * known. NULL: the run has no energy bound. */
	int (*start_energies)(const struct run *r, double e[3]);
	/* Optional: after a step (counted by the loop), its counters into
	 * the run's sums, and with output its stats record to the output. */
	int (*account)(struct run *r, int output);
	/* Optional: after the last detection, which no step follows: its
	 * stages. */
	void (*account_last)(struct run *r);
	/* Optional: with --log-view, the stage times of this frame's
	 * detection and the step from it (none after the last frame), with
	 * the output so far, as a stats record; t_iter: when the frame's
	 * turn of the loop began. */
	int (*log_stats)(struct run *r, double t_iter);
	/* Optional: the last detection's contacts (the progress bar). */
	uint64_t (*contacts)(const struct run *r);
	/* Optional: its own lines of the summary (n: the steps, at least 1);
	 * 1 when they replace the rest (memory, counters, energy). */
	int (*summary)(const struct run *r, double n);
	/* Optional, with --log-view: after the run, the ranks' logs gathered
	 * into this process's (every process calls it); 1 when this process
	 * prints the table, 0 when another does. */
	int (*log_gather)(struct run *r);
	/* Optional: its own lines after the --log-view table. */
	void (*log_view)(const struct run *r);
	/* Chosen by itself for a scene it covers when no option asks for
	 * another backend or for what it refuses. */
	int automatic;
	/* Its open measures the start's overlaps (r->start) itself, where the
	 * run judges them after it instead of before. */
	int measures_start;
	/* The search and the steps run in this process, so its stage log and
	 * detection times cover them (--log-view, the summary). */
	int stage_log;
	/* The options it cannot take (enum run_option), refused with refusal
	 * where the backend is chosen (mrdem-run.c). */
	unsigned refuses;
	const char *refusal;
	/* What the summary says of this process's peak memory. */
	const char *memory_note;
};

extern const struct run_backend run_in_process;  /* in_process.c */
extern const struct run_backend run_via_pipes;   /* via_pipes.c */
extern const struct run_backend run_sphere_fast; /* sphere_fast.c */
#ifdef MRDEM_MPI
extern const struct run_backend run_mpi;         /* mpi/run_mpi.c, mrdem-run-mpi only */
#endif

struct run {
	struct mrdem_scene scene;
	struct mrdem_sim_opts opts;
	struct mrdem_writer w;
	const char *out;
	uint64_t steps, every;
	int quiet, progress, log_view, allow_overlap;
	/* how the steps run (chosen once, apply_options), and its own state */
	const struct run_backend *backend;
	void *backend_state;
	/* mrdem-run-mpi: the ranks asked for (--ranks, 0: free), this rank's
	 * part of the output and what each part's meta record names */
	int ranks_given[3];
	int rank, nranks;
	char part[4096], run_id[32], grid_name[32];
	/* a failure every rank knows of: each ends cleanly (else the failing
	 * rank ends them all) */
	int failure_agreed;
	/* the start's contacts and energies (check_start) */
	struct mrdem_overlap start;
	int have_start;
	/* the run's guards, the state of the step under way */
	struct mrdem_run_guard guard;
	struct saved_frame saved;
	double saved_time;
	int backend_auto; /* chosen by itself, not by an option */
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
	/* particles removed and inserted since the last frame written */
	struct mrdem_flow_account flow_sum;
	/* stages of the whole run, with the output stage of this driver; the
	 * loop's wall time; output seconds of the step under way */
	struct mrdem_stage_log log;
	double t_loop, out_step, wait_step; /* output CPU and off-CPU time of the step */
};

/* The step loop (loop.c) on the run's backend. 0 or -1. */
int run_loop(struct run *r);
/* SIGINT/SIGTERM end the run after the current step, with its frame:
 * caught from here on; the signal that did, or 0. */
void run_catch_stop_signals(void);
int run_stop_signal(void);

/* Output (loop.c): the writing thread's CPU time between begin and done is
 * the output stage, the rest of its wall time output_wait (blocked on the
 * pipe or disk, or waiting for a CPU: the thread CPU clock cannot tell
 * them apart). */
struct run_out_mark {
	double wall, cpu;
};
struct run_out_mark run_output_begin(void);
void run_output_done(struct run *r, struct run_out_mark m);

/* The current frame to the output, its pending Verlet half kicks closed
 * by the backend's synchronise with the forces of its contacts c
 * (docs/dynamics.md, "Where the closing half kick happens"). 0 or -1
 * (loop.c). */
int run_write_frame(struct run *r, const struct mrdem_contacts *c);
/* --log-view's record of a turn of the loop: the stage times of log (the
 * frame's detection and the step from it, from step stepped, if any), the
 * output so far, the turn's wall time since t_iter. 0 or -1 (loop.c). */
int run_write_log_stats(struct run *r, const struct mrdem_stage_log *log, uint64_t stepped,
			double t_iter);
/* Add a detection's search counters to the run's sums (the summary). */
void run_add_search_counts(struct run *r, const struct mrdem_contact_counts *c);
/* Add a step's removals and insertions to the run's since the last frame. */
void run_flow_add(struct run *r, const struct mrdem_flow_account *a);
/* synchronise of the backends that take the forces of a frame's contacts
 * with stepper st: with c, else the frame as it is. */
int run_stepper_synchronise(struct mrdem_stepper *st, struct run *r,
			    const struct mrdem_contacts *c, double **vel, double **angvel);

/* Reporting (report.c): the progress bar after done steps, the summary
 * and the --log-view table at the end, from the sums the backend's account
 * keeps. */
void run_progress(struct run *r, uint64_t done);
void run_summary(struct run *r);
void run_log_view(const struct run *r);

#endif
