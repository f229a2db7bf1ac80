/* The state of one rank of mrdem-run-mpi (docs/parallel.md), shared by
 * the backend's hooks (run_mpi.c) and who holds which particle (holdings.c). */
#ifndef MRDEM_TOOLS_RUN_MPI_MPI_RUN_H
#define MRDEM_TOOLS_RUN_MPI_MPI_RUN_H

#include "common/broad/broad.h"
#include "common/narrow/contacts/particle_contacts.h"
#include "common/parallel/rank_frame.h"
#include "common/parallel/rank_grid.h"
#include "tools/run/mpi/exchange.h"
#include "tools/run/run.h"

/* A ghost's state as refreshed between rebuilds. */
struct ghost_state {
	double pos[3], quat[4], vel[3], angvel[3];
	uint32_t flags, pad;
};

struct mpi_run {
	int me, nranks;
	struct mrdem_rank_grid grid;
	double reach;              /* largest bounding radius + halo of a free particle */
	double skin;               /* ghosts reach this much further: lists hold until
				      a particle moves half of it */
	struct mrdem_scene local;  /* the working frame; setup and shapes are the run's */
	struct mrdem_rank_frame rf;
	struct mrdem_broad *broad;
	struct mrdem_contact_finder *finder;
	struct mrdem_stepper stepper;
	struct mrdem_pairs all, mine, theirs;
	unsigned char *kind;
	size_t kcap;
	struct mrdem_contacts cm, ct, contacts;
	struct mrdem_contact_counts counts;
	struct mrdem_broad_stats broad_stats;
	double t_broad, t_narrow;
	/* this turn of the loop's stages: the detection, the step, and the
	 * rest of the step's wall time, which is the ranks' exchange */
	struct mrdem_stage_log log;
	int searched;              /* the search of the frame is done (the start's) */
	struct exchange particles, springs, states;
	int *ranks;                /* room for nranks */
	/* since the last rebuild: the owned particles' positions then, the
	 * local indices of the ghosts each rank gets from this one, and of
	 * the ghosts this one gets, in the order they come */
	double *xref;
	size_t xcap;
	size_t **send, *nsend, *send_cap;
	size_t *recv, nrecv, rcap;
	/* what the run holds in all: free particles and the sum of their ids,
	 * checked after every rebuild */
	uint64_t total, idsum;
	uint64_t nframe;           /* particles of the one-rank frame, fixed ones too */
	/* the particles this step's insertions placed, on every rank */
	struct mrdem_wire_particle *step_joined;
	size_t step_joined_n, step_joined_cap;
	/* ... those this rank's box holds, which it takes at the rebuild */
	struct mrdem_wire_particle *joined;
	size_t njoined, jcap;
	/* the rank frame's velocities at its time, for output */
	double *sync_vel, *sync_angvel;
	size_t scap;
	double energy[3];          /* the step's start, all ranks: kinetic, gravity, contact */
	/* account: ghosts per step, rebuilds, balances */
	uint64_t ghosts_max, ghosts_sum, samples, rebuilds, balances;
	/* the busiest rank's work (particles weighted by triangles) over the
	 * mean, after the last rebuild and the most after any */
	double imbalance, imbalance_max;
	/* --log-view on rank 0 (log_ranks.c): the slowest rank's stage and
	 * loop times, the mean and slowest busy time, particles owned */
	double stage_max[MRDEM_STAGES], loop_max, busy_mean, busy_max, owned_min, owned_mean,
	       owned_max;
};

/* The grid, and this rank's part of the start r->scene (every rank has it
 * all): its working frame, and r->scene.frame the part it writes. 0, or
 * -1 with a message. */
int holdings_start(struct run *r, struct mpi_run *m);
/* After a step: the ghosts' new state, or, when a particle has moved
 * half the skin since the last rebuild (all ranks decide together), a
 * rebuild: cuts balanced when the work is uneven, particles to the ranks
 * whose boxes hold them with their springs, ghosts anew. 0, or -1 with
 * a message. */
int holdings_after_step(struct mpi_run *m, const struct mrdem_wire_particle *joined,
			size_t njoined, int force);
void holdings_release(struct mpi_run *m);

/* The end of a step's inflow and outflow (flow_ranks.c): the particles in
 * remove regions deleted on every rank (orders closed up, acc counting
 * them), the insertions placed alike on every rank, the new particles
 * this rank's box holds into joined (grown as needed). 0, or -1 with a
 * message. */
int flow_ranks_step_end(struct run *r, struct mpi_run *m, struct mrdem_flow_account *acc,
			struct mrdem_wire_particle **joined, size_t *njoined, size_t *jcap);

/* --log-view (log_ranks.c): the rank's record of stage times of a turn
 * of the loop; the ranks' logs gathered after the run (every rank calls
 * it; 1 on rank 0, which prints); rank 0's lines after the table. */
int log_ranks_stats(struct run *r, double t_iter);
int log_ranks_gather(struct run *r);
void log_ranks_view(const struct run *r);

#endif
