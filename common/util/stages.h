/* Per-stage account of a run (mrdem-run --log-view): wall seconds and
 * calls per stage, with the narrow phase's work counters. Each simulation
 * keeps its own (struct mrdem_sim, the contact finder, the stepper, the
 * Picard workspace); nothing here is global. Timing never feeds back into
 * a computation, so results stay bitwise the same. */
#ifndef MRDEM_UTIL_STAGES_H
#define MRDEM_UTIL_STAGES_H

#include <stdint.h>
#include <time.h>

enum mrdem_stage {
	MRDEM_STAGE_BROAD,     /* broad phase */
	MRDEM_STAGE_SEARCH,    /* surrogate traversal, transforms (parallel) */
	MRDEM_STAGE_KERNELS,   /* triangle kernels, plane tests (parallel) */
	MRDEM_STAGE_FALLBACK,  /* comparison kernel on unconverged pairs (parallel) */
	MRDEM_STAGE_MERGE,     /* contact points from hits, merging, collation */
	MRDEM_STAGE_PARALLEL,  /* the rest of the narrow phase's wall time: job
				* list, thread start and join, load imbalance */
	MRDEM_STAGE_FORCES,    /* contact forces and torques */
	MRDEM_STAGE_INTEGRATE, /* half kicks, energies, advance, guard */
	MRDEM_STAGE_OUTPUT,    /* encoding, compressing and writing records (the
				* driver): its thread's CPU time */
	MRDEM_STAGE_OUTPUT_WAIT, /* the rest of the output's wall time, off the
				* CPU: blocked on a full pipe or a slow disk,
				* or runnable and waiting for a CPU (the two
				* are not told apart) */
	MRDEM_STAGE_EXCHANGE,  /* mrdem-run-mpi: what a rank does with the
				* others (ghost state, rebuilds and migration,
				* inflow and outflow, the ranks' agreements),
				* the waits for slower ranks included; no
				* calls in one process */
	MRDEM_STAGE_PICARD,    /* implicit Euler: the Picard loop as a whole */
	MRDEM_STAGES
};

struct mrdem_stage_log {
	double seconds[MRDEM_STAGES];
	uint64_t calls[MRDEM_STAGES];
	/* narrow-phase work: pairs examined (particle and plane), triangle
	 * comparisons (every round), hits, contact points after merging */
	uint64_t pairs, comparisons, hits, contacts;
	uint64_t picard_iterations;
};

/* "broad", "search", "kernels", "fallback", "merge", "parallel", "forces",
 * "integrate", "output", "output_wait", "exchange", "picard" (stats name
 * time_<name>). */
const char *mrdem_stage_name(int stage);
void mrdem_stage_log_add(struct mrdem_stage_log *dst, const struct mrdem_stage_log *src);

/* Monotonic wall clock in seconds. */
static inline double mrdem_clock(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* CPU seconds of the calling thread: against mrdem_clock() it tells
 * computing from waiting. */
static inline double mrdem_thread_cpu_clock(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#endif
