/* mrdem-run-mpi's steps: the scene cut into a brick grid of MPI ranks
 * (docs/parallel.md). Each rank steps the particles whose centres lie in
 * its box; ghost copies of the particles that can touch them come from
 * their owners every step. A pair that involves a rank's particle is
 * searched and its forces evaluated on that rank, so a pair across a face
 * is computed by both ranks, from the same data to the same bits, and no
 * force sum ever mixes ranks: each particle's forces are summed in the
 * one-rank order. The pairs, contacts and springs a rank writes are those
 * of the pairs it owns (the owner of the pair's first free particle), so
 * that mrdem-merge puts the one-rank stream back together. */
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/broad/broad.h"
#include "common/dynamics/energy.h"
#include "common/narrow/contacts/contact_stats.h"
#include "common/narrow/contacts/particle_contacts.h"
#include "common/sim/overlap.h"
#include "common/parallel/rank_frame.h"
#include "common/parallel/rank_grid.h"
#include "common/util/error.h"
#include "formats/stream/records.h"
#include "tools/run/mpi/mpi_run.h"

static int measure_start(struct run *r, struct mpi_run *m);

static struct mpi_run *mpi_of(const struct run *r)
{
	return r->backend_state;
}

/* The parts go to DIR/rank-K.mrd; a directory that holds parts of more
 * ranks than this run's is another run's: refused, never cleaned. */
static int part_path(struct run *r, struct mpi_run *m)
{
	if (!r->out || !strcmp(r->out, "-"))
		return mrdem_error("give -o DIR: each rank writes its stream to DIR/rank-K.mrd "
				   "(mrdem-merge DIR -o FILE makes one stream of them)");
	if (m->me == 0 && mkdir(r->out, 0777) && errno != EEXIST)
		mrdem_error("%s: cannot make the directory: %s", r->out, strerror(errno));
	int ok = ranks_agree(0) == 0;
	MPI_Barrier(MPI_COMM_WORLD);
	struct stat st;
	if (!ok || stat(r->out, &st) || !S_ISDIR(st.st_mode))
		return mrdem_error("%s: not a directory", r->out);
	snprintf(r->part, sizeof r->part, "%s/rank-%d.mrd", r->out, m->nranks);
	if (!access(r->part, F_OK))
		return mrdem_error("%s holds %s, a part of a run on more ranks than %d: give a new "
				   "or empty directory", r->out, r->part, m->nranks);
	snprintf(r->part, sizeof r->part, "%s/rank-%d.mrd", r->out, m->me);
	r->out = r->part;
	return 0;
}

/* What a rank cannot decompose yet, refused before anything is written. */
static int refuse(const struct run *r)
{
	const struct mrdem_scene *s = &r->scene;
	if (r->opts.step.scheme == MRDEM_SCHEME_IMPLICIT_EULER)
		return mrdem_error("mrdem-run-mpi steps the explicit schemes; implicit-euler is not "
				   "decomposed over ranks yet: run it with mrdem-run");
	for (size_t k = 0; k < s->frame.nextra; k++)
		if (strcmp(s->frame.extra[k].name, MRDEM_COLUMN_VELOCITY_HALF) &&
		    strcmp(s->frame.extra[k].name, MRDEM_COLUMN_ANGVEL_HALF))
			return mrdem_error("the frame has a column '%s' that mrdem-run-mpi does not "
					   "carry between ranks", s->frame.extra[k].name);
	return 0;
}

static int open_mpi(struct run *r, int argc, char **argv)
{
	(void)argc, (void)argv;
	struct mpi_run *m = mrdem_xcalloc(1, sizeof *m);
	r->backend_state = m;
	MPI_Comm_rank(MPI_COMM_WORLD, &m->me);
	MPI_Comm_size(MPI_COMM_WORLD, &m->nranks);
	r->rank = m->me;
	r->nranks = m->nranks;
	static char name[64];
	snprintf(name, sizeof name, "mrdem-run-mpi rank %d", m->me);
	mrdem_set_progname(name);
	if (m->me != 0)
		r->quiet = 1, r->progress = 0;
	mrdem_rank_frame_init(&m->rf);
	m->local = r->scene;
	mrdem_frame_init(&m->local.frame);
	/* the ranks' inflow and outflow run after the stepper's (flow_ranks.c) */
	memset(&m->local.flow, 0, sizeof m->local.flow);
	if (r->scene.frame.p.material)
		mrdem_particles_use_material(&m->local.frame.p);
	mrdem_stepper_init(&m->stepper);
	mrdem_pairs_init(&m->all);
	mrdem_pairs_init(&m->mine);
	mrdem_pairs_init(&m->theirs);
	mrdem_contacts_init(&m->cm);
	mrdem_contacts_init(&m->ct);
	mrdem_contacts_init(&m->contacts);
	m->broad = mrdem_broad_new();
	m->finder = mrdem_contact_finder_new();
	/* a run id every part carries: rank 0's clock and process */
	unsigned long long id = m->me == 0 ? ((unsigned long long)time(NULL) << 20) ^ getpid() : 0;
	MPI_Bcast(&id, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
	snprintf(r->run_id, sizeof r->run_id, "%llx", id);
	int rc = refuse(r) || part_path(r, m);
	if (ranks_agree(rc ? 1 : 0))
		return r->failure_agreed = 1, -1;
	rc = holdings_start(r, m);
	if (ranks_agree(rc ? 1 : 0) || measure_start(r, m))
		return r->failure_agreed = 1, -1;
	/* the first detection's search was the start check's, before the run
	 * loop: its calls count, its time is not the loop's */
	memset(m->log.seconds, 0, sizeof m->log.seconds);
	return 0;
}

static void close_mpi(struct run *r)
{
	struct mpi_run *m = mpi_of(r);
	if (!m)
		return;
	holdings_release(m);
	mrdem_frame_release(&m->local.frame);
	mrdem_rank_frame_release(&m->rf);
	mrdem_broad_free(m->broad);
	mrdem_contact_finder_free(m->finder);
	mrdem_stepper_release(&m->stepper);
	mrdem_pairs_release(&m->all);
	mrdem_pairs_release(&m->mine);
	mrdem_pairs_release(&m->theirs);
	mrdem_contacts_release(&m->cm);
	mrdem_contacts_release(&m->ct);
	mrdem_contacts_release(&m->contacts);
	free(m->kind);
	free(m->joined);
	free(m->sync_vel);
	free(m->sync_angvel);
	free(m);
	r->backend_state = NULL;
}

/* ---- the contact search */

/* Broad phase on the working frame; the rank's own pairs and those of
 * other ranks its particles need, searched apart (the counters are of its
 * own pairs alone, so the ranks' sum is the one-rank count). */
static int search(struct run *r, struct mpi_run *m)
{
	memset(&m->log, 0, sizeof m->log);
	double t0 = mrdem_clock();
	if (mrdem_broad_phase(m->broad, &m->local, r->opts.broad, &m->all, &m->broad_stats))
		return -1;
	double t1 = mrdem_clock();
	mrdem_rank_pairs_split(&m->rf, m->me, &m->all, &m->mine, &m->theirs, &m->kind, &m->kcap);
	struct mrdem_contact_counts scratch;
	if (mrdem_find_contacts(m->finder, &m->local, &m->mine, &r->opts.contact, &m->cm,
				&m->counts) ||
	    mrdem_find_contacts(m->finder, &m->local, &m->theirs, &r->opts.contact, &m->ct,
				&scratch) ||
	    mrdem_rank_contacts_merge(&m->mine, &m->theirs, m->kind, &m->cm, &m->ct, &m->contacts))
		return -1;
	m->broad_stats.particle_pairs = m->broad_stats.plane_pairs = 0;
	for (size_t k = 0; k < m->mine.n; k++)
		*(mrdem_is_plane_id(m->mine.p[k].b) ? &m->broad_stats.plane_pairs :
						      &m->broad_stats.particle_pairs) += 1;
	m->t_broad = t1 - t0;
	m->t_narrow = mrdem_clock() - t1;
	m->log.seconds[MRDEM_STAGE_BROAD] += m->t_broad;
	m->log.calls[MRDEM_STAGE_BROAD]++;
	mrdem_contact_finder_take_log(m->finder, &m->log);
	return 0;
}

/* The start's overlaps from the first search (which the first step then
 * takes as it is): each rank's own pairs and particles, the ranks' sums
 * added, the deepest pair the rank that holds it names. */
static int measure_start(struct run *r, struct mpi_run *m)
{
	struct mrdem_overlap *ov = &r->start;
	memset(ov, 0, sizeof *ov);
	struct mrdem_bodies b;
	struct mrdem_id_index ix;
	struct mrdem_forces f;
	mrdem_bodies_init(&b);
	mrdem_id_index_init(&ix);
	mrdem_forces_init(&f);
	int rc = search(r, m) ||
		 mrdem_forces_of_frame(&f, &b, &ix, &m->local, &m->contacts) ? -1 : 0;
	m->searched = !rc;
	/* contacts, deep pairs, contact, kinetic and gravitational energy, mass */
	double mine[6] = {0}, all[6], hmin = INFINITY, hmin_all;
	const double *g = m->local.setup.gravity;
	double gn = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
	if (!rc) {
		mrdem_overlap_summarise(ov, &m->cm);
		for (size_t k = 0; k < m->contacts.n; k++)
			if (mrdem_rank_pair_owner(&m->rf, m->contacts.c[k].a, m->contacts.c[k].b) ==
			    m->me)
				mine[2] += f.ce[k];
		struct mrdem_energy e;
		mrdem_energy_compute(&e, &m->local, &b);
		const struct mrdem_particles *p = &m->local.frame.p;
		for (size_t i = 0; gn > 0 && i < p->n; i++)
			if (m->rf.owner[i] == m->me)
				hmin = fmin(hmin, -(p->pos[3 * i] * g[0] + p->pos[3 * i + 1] * g[1] +
						    p->pos[3 * i + 2] * g[2]) / gn);
		mine[0] = (double)ov->contacts, mine[1] = (double)ov->deep;
		mine[3] = e.translational + e.rotational;
		mine[4] = e.gravity, mine[5] = e.mass;
	}
	mrdem_forces_release(&f);
	mrdem_id_index_release(&ix);
	mrdem_bodies_release(&b);
	if (ranks_agree(rc ? 1 : 0))
		return -1;
	MPI_Allreduce(mine, all, 6, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	MPI_Allreduce(&hmin, &hmin_all, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
	struct { double v; int rank; } worst = {ov->worst_fraction, m->me}, top;
	MPI_Allreduce(&worst, &top, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
	uint64_t ids[2] = {ov->worst_a, ov->worst_b};
	double depth = ov->worst_depth;
	MPI_Bcast(ids, 2, MPI_UINT64_T, top.rank, MPI_COMM_WORLD);
	MPI_Bcast(&depth, 1, MPI_DOUBLE, top.rank, MPI_COMM_WORLD);
	ov->contacts = (size_t)all[0];
	ov->deep = (size_t)all[1];
	ov->contact_energy = all[2];
	ov->kinetic = all[3];
	/* gravity's potential energy above the lowest particle (overlap.h) */
	ov->potential = gn > 0 && all[5] > 0 ? fmax(0.0, all[4] - all[5] * gn * hmin_all) : 0;
	ov->worst_fraction = top.v;
	ov->worst_a = ids[0], ov->worst_b = ids[1];
	ov->worst_depth = depth;
	return 0;
}

static int write_detection(struct run *r, struct mpi_run *m)
{
	struct mrdem_stats broad, narrow;
	mrdem_stats_init(&broad, "mrdem-pairs", m->local.frame.step);
	mrdem_broad_stats_add(&broad, r->opts.broad, &m->broad_stats);
	mrdem_stats_init(&narrow, "mrdem-contact", m->local.frame.step);
	mrdem_contact_counts_stats(&m->counts, &narrow);
	int rc = mrdem_write_pairs(&r->w, &m->mine) || mrdem_write_stats(&r->w, &broad) ||
		 mrdem_write_contacts(&r->w, &m->cm) || mrdem_write_stats(&r->w, &narrow);
	mrdem_stats_release(&broad);
	mrdem_stats_release(&narrow);
	return rc ? -1 : 0;
}

static int detect(struct run *r, int output, int frame, int step)
{
	(void)step;
	struct mpi_run *m = mpi_of(r);
	/* the start's search was the first detection's */
	int rc = m->searched ? 0 : search(r, m);
	m->searched = 0;
	double t_agree = mrdem_clock();
	if (ranks_agree(rc ? 1 : 0))
		return r->failure_agreed = 1, -1;
	m->log.seconds[MRDEM_STAGE_EXCHANGE] += mrdem_clock() - t_agree;
	m->log.calls[MRDEM_STAGE_EXCHANGE]++;
	if (frame && run_write_frame(r, &m->contacts))
		return -1;
	struct run_out_mark t0 = run_output_begin();
	rc = output && write_detection(r, m);
	run_output_done(r, t0);
	return rc ? -1 : 0;
}

/* The rank frame's velocities at its time: those of the working frame's
 * particles it holds, closed with the forces of the contacts c. */
static int synchronise(struct run *r, const struct mrdem_contacts *c, double **vel,
		       double **angvel)
{
	struct mpi_run *m = mpi_of(r);
	if (!c)
		return 0;
	if (mrdem_stepper_synchronise(&m->stepper, &m->local, c, &r->opts.step))
		return -1;
	const struct mrdem_particles *q = &r->scene.frame.p;
	if (q->n > m->scap) {
		m->sync_vel = mrdem_xrealloc(m->sync_vel, 3 * q->n * sizeof *m->sync_vel);
		m->sync_angvel = mrdem_xrealloc(m->sync_angvel, 3 * q->n * sizeof *m->sync_angvel);
		m->scap = q->n;
	}
	for (size_t k = 0; k < q->n; k++) {
		size_t i = mrdem_id_index_find(&m->rf.index, q->id[k]);
		if (i == MRDEM_NO_INDEX)
			return mrdem_error("particle %llu of the rank's frame is not in its working "
					   "frame", (unsigned long long)q->id[k]);
		memcpy(&m->sync_vel[3 * k], &m->stepper.sync.vel[3 * i], 3 * sizeof(double));
		memcpy(&m->sync_angvel[3 * k], &m->stepper.sync.angvel[3 * i], 3 * sizeof(double));
	}
	*vel = m->sync_vel;
	*angvel = m->sync_angvel;
	return 1;
}

/* ---- the step */

/* The stepper's one-step energy bound over all ranks' particles (the
 * ranks' sums added: a decision every rank makes alike, not an output).
 * The contact energy is that of the rank's own pairs. */
static int energy_bound(struct run *r, struct mpi_run *m)
{
	const struct mrdem_stepper *st = &m->stepper;
	const struct mrdem_contacts *c = &m->contacts;
	double contact = 0;
	for (size_t k = 0; k < c->n; k++)
		if (mrdem_rank_pair_owner(&m->rf, c->c[k].a, c->c[k].b) == m->me)
			contact += st->forces.ce[k];
	struct mrdem_energy after;
	mrdem_energy_compute(&after, &m->local, &st->bodies);
	const struct mrdem_energy *b = &st->energy;
	double mine[8] = {b->translational + b->rotational, b->gravity, contact, b->mass,
			  after.translational + after.rotational, after.gravity}, all[8];
	MPI_Allreduce(mine, all, 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	m->energy[0] = all[0], m->energy[1] = all[1], m->energy[2] = all[2];
	double bound = r->opts.step.max_energy_growth, dt = r->opts.step.dt;
	if (bound == 0 || m->local.setup.nmotions)
		return 0;
	const double *g = m->local.setup.gravity;
	double scale = all[0] + all[2] + 0.5 * all[3] * (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]) *
		       dt * dt;
	double growth = all[4] + all[5] - (all[0] + all[1] + all[2]);
	if (!(growth > bound * scale))
		return 0;
	if (m->me == 0)
		mrdem_error("step %llu (t = %g s): the energy grew by %.4g J in one step, more than "
			    "%g times the %.4g J of kinetic and contact energy before it (plus one "
			    "gravity kick); reduce the time step %g s",
			    (unsigned long long)st->step, st->time, growth, bound, scale, dt);
	return -1;
}

/* The test hook of a failure on one rank (tests/e2e/mpi.sh):
 * MRDEM_MPI_TEST_NAN=RANK:STEP gives that rank's first own particle a
 * velocity of NaN before that step, as a diverged state would. */
static void test_nan(struct mpi_run *m)
{
	const char *v = getenv("MRDEM_MPI_TEST_NAN");
	int rank;
	unsigned long long step;
	if (!v || sscanf(v, "%d:%llu", &rank, &step) != 2 || rank != m->me ||
	    step != m->local.frame.step)
		return;
	for (size_t i = 0; i < m->rf.n; i++)
		if (m->rf.owner[i] == m->me) {
			m->local.frame.p.vel[3 * i] = NAN;
			return;
		}
}

/* The step of the rank's particles, then what the ranks settle together:
 * failures, the energy bound, inflow and outflow, ghosts or a rebuild. */
static int step_and_exchange(struct run *r, struct mpi_run *m)
{
	test_nan(m);
	/* the one-step energy bound is the ranks' together (energy_bound) */
	struct mrdem_step_opts o = r->opts.step;
	o.max_energy_growth = 0;
	int rc = mrdem_stepper_step(&m->stepper, &m->local, &m->contacts, &o);
	if (ranks_agree(rc ? 1 : 0) || ranks_agree(energy_bound(r, m) ? 1 : 0))
		return r->failure_agreed = 1, -1;
	struct mrdem_flow_account acc;
	rc = flow_ranks_step_end(r, m, &acc, &m->joined, &m->njoined, &m->jcap);
	if (ranks_agree(rc ? 1 : 0))
		return r->failure_agreed = 1, -1;
	m->stepper.flow = acc;
	rc = holdings_after_step(m, m->joined, m->njoined, acc.removed || acc.inserted);
	if (!rc)
		mrdem_rank_frame_output(&m->rf, &m->local.frame, m->me, &r->scene.frame);
	/* the run's motion bounds here, where the ranks can agree on them */
	rc = rc || mrdem_run_guard_motion(&r->guard, &r->scene, m->stepper.step,
					  m->stepper.time, r->opts.step.dt);
	if (ranks_agree(rc ? 1 : 0))
		return r->failure_agreed = 1, -1;
	return 0;
}

static int advance(struct run *r, int output)
{
	(void)output;
	struct mpi_run *m = mpi_of(r);
	double t0 = mrdem_clock();
	int rc = step_and_exchange(r, m);
	/* the step's wall time beyond the stepper's stages is the exchange */
	const struct mrdem_stage_log *sl = &m->stepper.log;
	mrdem_stage_log_add(&m->log, sl);
	m->log.seconds[MRDEM_STAGE_EXCHANGE] += mrdem_clock() - t0 -
						sl->seconds[MRDEM_STAGE_FORCES] -
						sl->seconds[MRDEM_STAGE_INTEGRATE];
	m->log.calls[MRDEM_STAGE_EXCHANGE]++;
	return rc;
}

static int start_energies(const struct run *r, double e[3])
{
	memcpy(e, mpi_of(r)->energy, sizeof mpi_of(r)->energy);
	return 1;
}

/* The rank's counters; its step statistics are of its own particles
 * (mrdem-merge computes the run's from the merged frame). */
static int account(struct run *r, int output)
{
	struct mpi_run *m = mpi_of(r);
	run_add_search_counts(r, &m->counts);
	r->sum_contacts += m->cm.n;
	r->max_contacts = m->contacts.n > r->max_contacts ? m->contacts.n : r->max_contacts;
	r->sum_pairs += m->mine.n;
	r->sum_detect += m->t_broad + m->t_narrow;
	mrdem_stage_log_add(&r->log, &m->log);
	/* every rank counts the run's flow: rank 0 writes it, so the parts sum to it */
	if (m->me == 0)
		run_flow_add(r, &m->stepper.flow);
	double e = m->energy[0] + m->energy[1] + m->energy[2];
	if (!r->have_energy)
		r->e_first = e, r->have_energy = 1;
	r->e_last = e;
	if (!output)
		return 0;
	struct mrdem_stats st;
	mrdem_stats_init(&st, "mrdem-step", m->stepper.step);
	mrdem_stepper_stats(&m->stepper, &st);
	struct run_out_mark t0 = run_output_begin();
	int rc = mrdem_write_stats(&r->w, &st);
	run_output_done(r, t0);
	mrdem_stats_release(&st);
	return rc ? -1 : 0;
}

/* After the last detection: the ranks' counters summed on rank 0. */
static void account_last(struct run *r)
{
	struct mpi_run *m = mpi_of(r);
	mrdem_stage_log_add(&r->log, &m->log);
	uint64_t v[6 + MRDEM_SEARCH_ROUNDS] = {r->sum_comparisons, r->sum_real, r->sum_fallbacks,
					       r->sum_contacts, r->sum_pairs, m->ghosts_sum};
	for (int k = 0; k < MRDEM_SEARCH_ROUNDS; k++)
		v[6 + k] = r->sum_round[k];
	uint64_t s[6 + MRDEM_SEARCH_ROUNDS];
	MPI_Reduce(v, s, 6 + MRDEM_SEARCH_ROUNDS, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
	uint64_t most = 0;
	MPI_Reduce(&m->ghosts_max, &most, 1, MPI_UINT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
	uint64_t bytes = m->particles.bytes_sent + m->springs.bytes_sent + m->states.bytes_sent;
	uint64_t sbytes = 0;
	MPI_Reduce(&bytes, &sbytes, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
	if (m->me != 0)
		return;
	r->sum_comparisons = s[0], r->sum_real = s[1], r->sum_fallbacks = s[2];
	r->sum_contacts = s[3], r->sum_pairs = s[4];
	for (int k = 0; k < MRDEM_SEARCH_ROUNDS; k++)
		r->sum_round[k] = s[6 + k];
	m->ghosts_sum = s[5];
	m->ghosts_max = most;
	m->particles.bytes_sent = sbytes;
}

static int summary(const struct run *r, double n)
{
	const struct mpi_run *m = mpi_of(r);
	double samples = m->samples ? (double)m->samples : 1;
	fprintf(stderr, "  ranks: %d (grid %s); ghosts per rank %.1f on average over the ranks "
		"and steps, at most %llu; %.0f bytes sent per step (%.0f per particle); %llu "
		"rebuilds, %llu of them with the cuts balanced; work of the busiest rank over "
		"the mean %.3f after the last rebuild, at most %.3f\n", m->nranks, r->grid_name,
		(double)m->ghosts_sum / samples / m->nranks, (unsigned long long)m->ghosts_max,
		(double)m->particles.bytes_sent / fmax(n, 1),
		(double)m->particles.bytes_sent / fmax(n, 1) / fmax((double)m->total, 1),
		(unsigned long long)m->rebuilds, (unsigned long long)m->balances, m->imbalance,
		m->imbalance_max);
	return 0;
}

static uint64_t contacts(const struct run *r)
{
	return mpi_of(r)->contacts.n;
}

const struct run_backend run_mpi = {
	.open = open_mpi,
	.close = close_mpi,
	.detect = detect,
	.advance = advance,
	.synchronise = synchronise,
	.start_energies = start_energies,
	.account = account,
	.account_last = account_last,
	.summary = summary,
	.contacts = contacts,
	.log_stats = log_ranks_stats,
	.log_gather = log_ranks_gather,
	.log_view = log_ranks_view,
	.measures_start = 1,
	.stage_log = 1,
	.memory_note = " (rank 0)",
};
