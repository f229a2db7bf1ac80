/* What the ranks of an MPI run send each other (tools/run/mpi/): the
 * particles each owns, to their next owner and as ghosts to every rank
 * they can touch, the springs of their pairs, and the ranks' agreement on
 * a failure. Only here and in run_mpi.c does mrdem call MPI. */
#ifndef MRDEM_TOOLS_RUN_MPI_EXCHANGE_H
#define MRDEM_TOOLS_RUN_MPI_EXCHANGE_H

#include <stddef.h>
#include <stdint.h>

#include "common/parallel/rank_frame.h"

/* Items bound for each rank, then received from each. */
struct exchange {
	int nranks;
	size_t item;           /* bytes of one item */
	size_t *count, *cap;   /* per destination */
	unsigned char **out;   /* per destination */
	unsigned char *in;     /* received, by sender */
	size_t nin, incap;
	int *from;             /* sender of each received item */
	size_t fcap;
	uint64_t bytes_sent;   /* to other ranks, over the run */
};

void exchange_init(struct exchange *x, int nranks, size_t item);
void exchange_release(struct exchange *x);
/* Queue one item for rank to. */
void exchange_put(struct exchange *x, int to, const void *item);
/* Send the queued items and receive this rank's (x->in, x->nin, x->from),
 * emptying the queues. 0, or -1 with a message. */
int exchange_run(struct exchange *x);

/* Without OMP_NUM_THREADS, the ranks on one machine share its cores out
 * (each its share, at least one thread) instead of each taking them all. */
void ranks_share_cores(void);

/* Every rank's failure flag (0: none): the largest, on every rank. */
int ranks_agree(int failed);

#endif
