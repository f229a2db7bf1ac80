#include "tools/run/mpi/exchange.h"

#include <limits.h>
#include <mpi.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"

void exchange_init(struct exchange *x, int nranks, size_t item)
{
	memset(x, 0, sizeof *x);
	x->nranks = nranks;
	x->item = item;
	x->count = mrdem_xcalloc((size_t)nranks, sizeof *x->count);
	x->cap = mrdem_xcalloc((size_t)nranks, sizeof *x->cap);
	x->out = mrdem_xcalloc((size_t)nranks, sizeof *x->out);
}

void exchange_release(struct exchange *x)
{
	for (int k = 0; k < x->nranks; k++)
		free(x->out[k]);
	free(x->out);
	free(x->count);
	free(x->cap);
	free(x->in);
	free(x->from);
	memset(x, 0, sizeof *x);
}

void exchange_put(struct exchange *x, int to, const void *item)
{
	if (x->count[to] == x->cap[to]) {
		x->cap[to] = x->cap[to] ? 2 * x->cap[to] : 64;
		x->out[to] = mrdem_xrealloc(x->out[to], x->cap[to] * x->item);
	}
	memcpy(x->out[to] + x->count[to]++ * x->item, item, x->item);
}

int exchange_run(struct exchange *x)
{
	int n = x->nranks, me;
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	int *sc = mrdem_xmalloc_array((size_t)n, 4 * sizeof *sc), *rc = sc + n;
	int *sd = rc + n, *rd = sd + n;
	size_t total_out = 0;
	for (int k = 0; k < n; k++) {
		if (x->count[k] * x->item > INT_MAX / 2) {
			free(sc);
			return mrdem_error("rank %d: %zu items for rank %d are more than one message "
					   "can carry", me, x->count[k], k);
		}
		sc[k] = (int)(x->count[k] * x->item);
		total_out += x->count[k] * x->item;
	}
	MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, MPI_COMM_WORLD);
	/* one contiguous send buffer, by destination */
	unsigned char *send = mrdem_xmalloc(total_out ? total_out : 1);
	size_t at = 0, total_in = 0;
	for (int k = 0; k < n; k++) {
		sd[k] = (int)at;
		if (sc[k])
			memcpy(send + at, x->out[k], (size_t)sc[k]);
		at += (size_t)sc[k];
		if (k != me)
			x->bytes_sent += (uint64_t)sc[k];
		rd[k] = (int)total_in;
		total_in += (size_t)rc[k];
		x->count[k] = 0;
	}
	if (total_in > INT_MAX) {
		free(send);
		free(sc);
		return mrdem_error("rank %d: %zu bytes to receive in one exchange, more than one "
				   "message can carry", me, total_in);
	}
	if (total_in > x->incap) {
		x->in = mrdem_xrealloc(x->in, total_in);
		x->incap = total_in;
	}
	MPI_Alltoallv(send, sc, sd, MPI_BYTE, x->in, rc, rd, MPI_BYTE, MPI_COMM_WORLD);
	free(send);
	x->nin = total_in / x->item;
	if (x->nin > x->fcap) {
		x->from = mrdem_xrealloc(x->from, x->nin * sizeof *x->from);
		x->fcap = x->nin;
	}
	for (int k = 0; k < n; k++)
		for (size_t j = 0; j < (size_t)rc[k] / x->item; j++)
			x->from[(size_t)rd[k] / x->item + j] = k;
	free(sc);
	return 0;
}

int ranks_agree(int failed)
{
	int any = 0;
	MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	/* the ranks that failed say why, and where the run stopped */
	if (any && !failed)
		mrdem_set_silent();
	return any;
}

void ranks_share_cores(void)
{
	if (getenv("OMP_NUM_THREADS"))
		return;
	MPI_Comm local;
	int here = 1;
	if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local) ==
	    MPI_SUCCESS) {
		MPI_Comm_size(local, &here);
		MPI_Comm_free(&local);
	}
	int share = omp_get_num_procs() / here;
	omp_set_num_threads(share > 1 ? share : 1);
}
