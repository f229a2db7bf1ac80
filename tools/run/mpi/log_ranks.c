/* mrdem-run-mpi --log-view: each rank's stage times per written frame in
 * its part (mrdem-merge sums them: rank-seconds), and at the end, on rank
 * 0, the table of the mean rank with how far the slowest rank is from it,
 * the ghosts, the bytes sent and the balance of the work. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#include "tools/run/mpi/mpi_run.h"

int log_ranks_stats(struct run *r, double t_iter)
{
	const struct mpi_run *m = r->backend_state;
	return run_write_log_stats(r, &m->log, m->stepper.step, t_iter);
}

/* Per rank: the stages, the run loop, the loop less the exchange (time
 * the rank computed or wrote), and the free particles it owns at the end. */
enum { LOOP = MRDEM_STAGES, BUSY, OWNED, NTIMES };

int log_ranks_gather(struct run *r)
{
	struct mpi_run *m = r->backend_state;
	double v[NTIMES], sum[NTIMES], max[NTIMES], min[NTIMES];
	for (int k = 0; k < MRDEM_STAGES; k++)
		v[k] = r->log.seconds[k];
	v[LOOP] = r->t_loop;
	v[BUSY] = r->t_loop - r->log.seconds[MRDEM_STAGE_EXCHANGE];
	v[OWNED] = 0;
	for (size_t i = 0; i < m->rf.n; i++)
		v[OWNED] += m->rf.owner[i] == m->me;
	MPI_Reduce(v, sum, NTIMES, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	MPI_Reduce(v, max, NTIMES, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	MPI_Reduce(v, min, NTIMES, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
	/* the work counters: every search a rank made, those of the pairs
	 * across its faces that the neighbour also searches included */
	uint64_t c[4] = {r->log.pairs, r->log.comparisons, r->log.hits, r->log.contacts}, cs[4];
	MPI_Reduce(c, cs, 4, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
	if (m->me != 0)
		return 0;
	double n = m->nranks;
	for (int k = 0; k < MRDEM_STAGES; k++) {
		r->log.seconds[k] = sum[k] / n;
		m->stage_max[k] = max[k];
	}
	r->t_loop = sum[LOOP] / n;
	m->loop_max = max[LOOP];
	m->busy_mean = sum[BUSY] / n;
	m->busy_max = max[BUSY];
	m->owned_min = min[OWNED], m->owned_mean = sum[OWNED] / n, m->owned_max = max[OWNED];
	r->log.pairs = cs[0], r->log.comparisons = cs[1], r->log.hits = cs[2];
	r->log.contacts = cs[3];
	return 1;
}

void log_ranks_view(const struct run *r)
{
	const struct mpi_run *m = r->backend_state;
	double n = r->nsteps ? (double)r->nsteps : 1, samples = m->samples ? (double)m->samples : 1;
	fprintf(stderr,
		"\n---- the ranks (mrdem-run-mpi) ----\n"
		"%d ranks, grid %s. The stage times above are the mean rank's, the counters\n"
		"the ranks' sums (a pair across a face is searched by both of its ranks);\n"
		"exchange is what a rank does with the others: ghost state, rebuilds and\n"
		"migration, inflow and outflow, the ranks' agreements, waits for slower ranks.\n\n",
		m->nranks, r->grid_name);
	fprintf(stderr, "%-12s %12s %12s %10s\n", "Stage", "Mean (s)", "Max (s)", "Max/mean");
	for (int k = 0; k < MRDEM_STAGES; k++) {
		if (k == MRDEM_STAGE_PICARD)
			continue;
		double mean = r->log.seconds[k];
		fprintf(stderr, "%-12s %12.6f %12.6f %10.3f\n", mrdem_stage_name(k), mean,
			m->stage_max[k], mean > 0 ? m->stage_max[k] / mean : 1.0);
	}
	fprintf(stderr, "%-12s %12.6f %12.6f %10.3f\n", "loop", r->t_loop, m->loop_max,
		r->t_loop > 0 ? m->loop_max / r->t_loop : 1.0);
	fprintf(stderr, "%-12s %12.6f %12.6f %10.3f  (the loop less exchange)\n", "busy",
		m->busy_mean, m->busy_max, m->busy_mean > 0 ? m->busy_max / m->busy_mean : 1.0);
	double per_step = (double)m->particles.bytes_sent / n;
	fprintf(stderr,
		"\nparticles owned per rank at the end: %.0f to %.0f (mean %.1f)\n"
		"ghosts per rank: %.1f on average over the ranks and steps, at most %llu\n"
		"bytes sent per step: %.0f in all, %.2f per particle\n"
		"rebuilds: %llu, %llu of them with the cuts balanced\n"
		"imbalance (max/mean): work (particles weighted by triangles) %.3f after the last\n"
		"rebuild, at most %.3f; measured busy time %.3f\n",
		m->owned_min, m->owned_max, m->owned_mean,
		(double)m->ghosts_sum / samples / m->nranks, (unsigned long long)m->ghosts_max,
		per_step, per_step / fmax((double)m->total, 1), (unsigned long long)m->rebuilds,
		(unsigned long long)m->balances, m->imbalance, m->imbalance_max,
		m->busy_mean > 0 ? m->busy_max / m->busy_mean : 1.0);
}
