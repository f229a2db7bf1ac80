/* Who holds which particle in mrdem-run-mpi (docs/parallel.md). A rank
 * owns the free particles whose centres were in its box at the last
 * rebuild, and holds ghost copies of every free particle that came within
 * reach of its box: both bounding spheres with halos, plus a skin. Between
 * rebuilds the ghosts' state is refreshed each step along fixed lists; a
 * particle that has moved half the skin since the last rebuild (all ranks
 * decide together) makes the next: the cuts balanced when the work is
 * uneven, each particle to the rank whose box holds it with its springs,
 * then the ghosts anew. Fixed particles are on every rank and never sent. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"
#include "tools/run/mpi/mpi_run.h"

/* Rebuild with balanced cuts when the busiest rank has this much more work
 * than the mean. */
#define BALANCE_TRIGGER 1.1
/* The skin, as a fraction of the smallest free particle's bounding radius
 * with its halo. */
#define SKIN_FRACTION 0.5

static int is_free(const struct mrdem_particles *p, size_t i)
{
	return !(p->flags[i] & MRDEM_PARTICLE_FIXED);
}

/* A particle's share of the work: the triangles its searches visit. */
static double work(const struct mrdem_scene *s, uint32_t shape)
{
	return 1.0 + s->shapes[shape].mesh.ntris;
}

/* dims, cuts, reach and skin from the free particles of the start, the
 * same on every rank; totals for the checks. */
static int make_grid(struct run *r, struct mpi_run *m)
{
	const struct mrdem_particles *p = &r->scene.frame.p;
	double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	double *x = mrdem_xmalloc_array(p->n ? p->n : 1, 3 * sizeof *x);
	double *w = mrdem_xmalloc_array(p->n ? p->n : 1, sizeof *w);
	double smallest = INFINITY;
	size_t nf = 0;
	for (size_t i = 0; i < p->n; i++) {
		if (!is_free(p, i))
			continue;
		for (int a = 0; a < 3; a++) {
			x[3 * nf + a] = p->pos[3 * i + a];
			lo[a] = fmin(lo[a], p->pos[3 * i + a]);
			hi[a] = fmax(hi[a], p->pos[3 * i + a]);
		}
		w[nf++] = work(&r->scene, p->shape[i]);
		double radius = r->scene.shapes[p->shape[i]].bound_radius + p->eps[i];
		m->reach = fmax(m->reach, radius);
		smallest = fmin(smallest, radius);
		m->total++;
		m->idsum += p->id[i];
	}
	m->nframe = p->n;
	/* the particles insertions will bring, where they will bring them */
	const struct mrdem_flow *fl = &r->scene.flow;
	for (uint32_t k = 0; k < fl->ninsert; k++)
		for (uint32_t j = 0; j < fl->insert[k].nshapes; j++) {
			const struct mrdem_insert_shape *e = &fl->insert[k].shapes[j];
			double radius = r->scene.shapes[e->shape].bound_radius + e->eps;
			m->reach = fmax(m->reach, radius);
			smallest = fmin(smallest, radius);
		}
	double vmax = 0;
	mrdem_flow_grow_bounds(fl, lo, hi, &vmax);
	for (int a = 0; a < 3; a++)
		if (!(lo[a] <= hi[a]))
			lo[a] = hi[a] = 0;
	m->skin = SKIN_FRACTION * (isfinite(smallest) ? smallest : 0);
	double ext[3] = {hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]};
	int dims[3];
	if (mrdem_rank_grid_dims(m->nranks, ext, r->ranks_given, dims)) {
		free(x), free(w);
		return mrdem_error("--ranks %d,%d,%d: the ranks given do not make %d ranks "
				   "(mpirun -np)", r->ranks_given[0], r->ranks_given[1],
				   r->ranks_given[2], m->nranks);
	}
	mrdem_rank_grid_init(&m->grid, dims, lo, hi);
	for (int a = 0; a < 3; a++)
		mrdem_rank_grid_balance(&m->grid, a, x, w, nf);
	free(x), free(w);
	mrdem_rank_grid_name(&m->grid, r->grid_name, sizeof r->grid_name);
	return 0;
}

/* How far from wire particle w a rank's box may be for its particles to
 * touch w before either has moved half the skin: both bounding spheres
 * with halos, the skin, and a margin for the rounding of the broad
 * phase's own test. */
static double ghost_reach(const struct mpi_run *m, const struct mrdem_wire_particle *w)
{
	double r = m->local.shapes[w->shape].bound_radius + w->eps + m->reach + m->skin;
	return r * (1 + 1e-9);
}

static int cmp_order(const void *x, const void *y)
{
	const struct mrdem_wire_particle *a = x, *b = y;
	return (a->order > b->order) - (a->order < b->order);
}

/* The fixed particles of frame f (every rank has them all, as the last
 * step left them), orders from order (NULL: their index in f). */
static size_t fixed_wire(struct mrdem_wire_particle **w, const struct mrdem_frame *f,
			 const uint64_t *order)
{
	const struct mrdem_particles *p = &f->p;
	size_t n = 0;
	*w = mrdem_xmalloc_array(p->n ? p->n : 1, sizeof **w);
	for (size_t i = 0; i < p->n; i++)
		if (!is_free(p, i))
			mrdem_wire_particle_get(&(*w)[n++], p, i, order ? order[i] : i,
						MRDEM_RANK_GLOBAL);
	return n;
}

static void push_index(size_t **v, size_t *n, size_t *cap, size_t x)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*v = mrdem_xrealloc(*v, *cap * sizeof **v);
	}
	(*v)[(*n)++] = x;
}

/* After the owned particles are settled: their ghosts to every rank they
 * reach, the working frame of owned, ghosts and fixed, the lists that
 * refresh the ghosts, and the check that no particle was lost. */
static int send_ghosts(struct mpi_run *m, struct mrdem_wire_particle *own, size_t nown,
		       const struct mrdem_wire_particle *fixed, size_t nfixed)
{
	qsort(own, nown, sizeof *own, cmp_order);
	for (int q = 0; q < m->nranks; q++)
		m->nsend[q] = 0;
	for (size_t k = 0; k < nown; k++) {
		int n = mrdem_rank_grid_reach(&m->grid, own[k].pos, ghost_reach(m, &own[k]), m->ranks);
		for (int j = 0; j < n; j++) {
			int q = m->ranks[j];
			if (q == m->me)
				continue;
			exchange_put(&m->particles, q, &own[k]);
			push_index(&m->send[q], &m->nsend[q], &m->send_cap[q], k);
		}
	}
	if (exchange_run(&m->particles))
		return -1;
	struct exchange *x = &m->particles;
	size_t n = nown + x->nin + nfixed;
	struct mrdem_wire_particle *all = mrdem_xmalloc_array(n + 1, sizeof *all);
	memcpy(all, own, nown * sizeof *all);
	if (x->nin)
		memcpy(all + nown, x->in, x->nin * sizeof *all);
	if (nfixed)
		memcpy(all + nown + x->nin, fixed, nfixed * sizeof *all);
	int rc = mrdem_rank_frame_build(&m->rf, &m->local.frame, all, n, m->me);
	free(all);
	if (rc)
		return -1;
	/* the lists as local indices: sent by owned index k, received in order */
	const struct mrdem_wire_particle *in = (const struct mrdem_wire_particle *)x->in;
	for (int q = 0; q < m->nranks; q++)
		for (size_t j = 0; j < m->nsend[q]; j++)
			m->send[q][j] = mrdem_id_index_find(&m->rf.index, own[m->send[q][j]].id);
	m->nrecv = 0;
	for (size_t k = 0; k < x->nin; k++)
		push_index(&m->recv, &m->nrecv, &m->rcap, mrdem_id_index_find(&m->rf.index, in[k].id));
	/* where the owned particles were, for the next rebuild's decision */
	const struct mrdem_particles *p = &m->local.frame.p;
	if (p->n > m->xcap) {
		m->xref = mrdem_xrealloc(m->xref, 3 * p->n * sizeof *m->xref);
		m->xcap = p->n;
	}
	memcpy(m->xref, p->pos, 3 * p->n * sizeof *m->xref);
	uint64_t mine[2] = {nown, 0}, all_ranks[2];
	for (size_t k = 0; k < nown; k++)
		mine[1] += own[k].id;
	MPI_Allreduce(mine, all_ranks, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
	if (all_ranks[0] != m->total || all_ranks[1] != m->idsum)
		return mrdem_error("after an exchange the ranks own %llu particles (ids summing to "
				   "%llu), not the run's %llu (%llu): a particle was lost or doubled",
				   (unsigned long long)all_ranks[0], (unsigned long long)all_ranks[1],
				   (unsigned long long)m->total, (unsigned long long)m->idsum);
	/* the busiest rank's work against the mean */
	double load = 0, loads[2];
	for (size_t k = 0; k < nown; k++)
		load += work(&m->local, own[k].shape);
	MPI_Allreduce(&load, &loads[0], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	MPI_Allreduce(&load, &loads[1], 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	m->imbalance = loads[1] > 0 ? loads[0] * m->nranks / loads[1] : 1;
	m->imbalance_max = fmax(m->imbalance_max, m->imbalance);
	size_t ghosts = x->nin;
	m->ghosts_max = ghosts > m->ghosts_max ? ghosts : m->ghosts_max;
	return 0;
}

/* The springs of the start's history that this rank's particles need. */
static void start_springs(struct mpi_run *m, const struct mrdem_history *all)
{
	struct mrdem_history *h = &m->local.frame.history;
	h->n = 0;
	for (size_t k = 0; k < all->n; k++) {
		const struct mrdem_spring *s = &all->s[k];
		size_t ia = mrdem_id_index_find(&m->rf.index, s->a);
		size_t ib = mrdem_is_plane_id(s->b) ? MRDEM_NO_INDEX :
			    mrdem_id_index_find(&m->rf.index, s->b);
		if ((ia != MRDEM_NO_INDEX && m->rf.owner[ia] == m->me) ||
		    (ib != MRDEM_NO_INDEX && m->rf.owner[ib] == m->me))
			*mrdem_history_push(h) = *s;
	}
}

/* The frame rank 0 writes first: its particles as the scene has them
 * (synchronised velocities and their columns), the fixed ones on rank 0,
 * with the order column, and its pairs' springs. */
static void start_output_frame(struct run *r, struct mpi_run *m)
{
	struct mrdem_frame *f = &r->scene.frame;
	unsigned char *drop = mrdem_xcalloc(f->p.n ? f->p.n : 1, 1);
	uint64_t *keep = mrdem_xmalloc_array(f->p.n ? f->p.n : 1, sizeof *keep);
	size_t nk = 0;
	for (size_t i = 0; i < f->p.n; i++) {
		drop[i] = is_free(&f->p, i) ? mrdem_rank_grid_owner(&m->grid, &f->p.pos[3 * i]) != m->me
					    : m->me != 0;
		if (!drop[i])
			keep[nk++] = i;
	}
	struct mrdem_history all = f->history;
	mrdem_history_init(&f->history);
	mrdem_frame_remove(f, drop);
	for (size_t k = 0; k < all.n; k++)
		if (mrdem_rank_pair_owner(&m->rf, all.s[k].a, all.s[k].b) == m->me)
			*mrdem_history_push(&f->history) = all.s[k];
	mrdem_history_release(&all);
	f->extra = mrdem_xrealloc(f->extra, (f->nextra + 1) * sizeof *f->extra);
	mrdem_order_column(&f->extra[f->nextra++], keep, nk);
	free(drop);
	free(keep);
}

static void init_lists(struct mpi_run *m)
{
	size_t n = (size_t)m->nranks;
	m->send = mrdem_xcalloc(n, sizeof *m->send);
	m->nsend = mrdem_xcalloc(n, sizeof *m->nsend);
	m->send_cap = mrdem_xcalloc(n, sizeof *m->send_cap);
	m->ranks = mrdem_xmalloc_array(n, sizeof *m->ranks);
	exchange_init(&m->particles, m->nranks, sizeof(struct mrdem_wire_particle));
	exchange_init(&m->springs, m->nranks, sizeof(struct mrdem_spring));
	exchange_init(&m->states, m->nranks, sizeof(struct ghost_state));
}

int holdings_start(struct run *r, struct mpi_run *m)
{
	init_lists(m);
	if (make_grid(r, m))
		return -1;
	struct mrdem_frame start;
	mrdem_frame_init(&start);
	mrdem_frame_copy(&start, &r->scene.frame);
	/* a resumed velocity-Verlet frame: the half-step state it goes on from */
	if (mrdem_frame_resume_half_step(&start)) {
		mrdem_frame_release(&start);
		return -1;
	}
	const struct mrdem_particles *p = &start.p;
	struct mrdem_wire_particle *own = mrdem_xmalloc_array(p->n + 1, sizeof *own), *fixed;
	size_t nown = 0;
	for (size_t i = 0; i < p->n; i++)
		if (is_free(p, i) && mrdem_rank_grid_owner(&m->grid, &p->pos[3 * i]) == m->me)
			mrdem_wire_particle_get(&own[nown++], p, i, i, m->me);
	size_t nfixed = fixed_wire(&fixed, &start, NULL);
	m->local.frame.step = start.step;
	m->local.frame.time = start.time;
	int rc = send_ghosts(m, own, nown, fixed, nfixed);
	free(own);
	free(fixed);
	if (!rc) {
		start_springs(m, &start.history);
		start_output_frame(r, m);
	}
	mrdem_frame_release(&start);
	return rc;
}

/* Whether some particle moved half the skin since the last rebuild. */
static int must_rebuild(struct mpi_run *m)
{
	const struct mrdem_particles *p = &m->local.frame.p;
	double most = 0;
	for (size_t i = 0; i < p->n; i++)
		if (m->rf.owner[i] == m->me) {
			const double *x = &p->pos[3 * i], *x0 = &m->xref[3 * i];
			double dx = x[0] - x0[0], dy = x[1] - x0[1], dz = x[2] - x0[2];
			most = fmax(most, dx * dx + dy * dy + dz * dz);
		}
	double all;
	MPI_Allreduce(&most, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	return !(sqrt(all) <= 0.5 * m->skin); /* a NaN too */
}

/* The ghosts' state from their owners, along the lists of the last rebuild. */
static int refresh(struct mpi_run *m)
{
	struct mrdem_particles *p = &m->local.frame.p;
	for (int q = 0; q < m->nranks; q++)
		for (size_t j = 0; j < m->nsend[q]; j++) {
			size_t i = m->send[q][j];
			struct ghost_state g;
			memset(&g, 0, sizeof g);
			memcpy(g.pos, &p->pos[3 * i], sizeof g.pos);
			memcpy(g.quat, &p->quat[4 * i], sizeof g.quat);
			memcpy(g.vel, &p->vel[3 * i], sizeof g.vel);
			memcpy(g.angvel, &p->angvel[3 * i], sizeof g.angvel);
			g.flags = p->flags[i];
			exchange_put(&m->states, q, &g);
		}
	if (exchange_run(&m->states))
		return -1;
	if (m->states.nin != m->nrecv)
		return mrdem_error("%zu ghost states arrived for %zu ghosts", m->states.nin, m->nrecv);
	const struct ghost_state *in = (const struct ghost_state *)m->states.in;
	for (size_t k = 0; k < m->nrecv; k++) {
		size_t i = m->recv[k];
		memcpy(&p->pos[3 * i], in[k].pos, sizeof in[k].pos);
		memcpy(&p->quat[4 * i], in[k].quat, sizeof in[k].quat);
		memcpy(&p->vel[3 * i], in[k].vel, sizeof in[k].vel);
		memcpy(&p->angvel[3 * i], in[k].angvel, sizeof in[k].angvel);
		p->flags[i] = in[k].flags | MRDEM_PARTICLE_GHOST;
	}
	return 0;
}

/* Cuts at the weighted quantiles of every rank's particles when the
 * busiest rank has BALANCE_TRIGGER times the mean work (the same cuts on
 * every rank: they see the same gathered points). The test hook
 * MRDEM_MPI_TEST_CUTS=SEED moves them at random at every rebuild instead,
 * which must change no result. */
static void balance(struct mpi_run *m)
{
	const struct mrdem_particles *p = &m->local.frame.p;
	double load = 0, most, sum;
	for (size_t i = 0; i < p->n; i++)
		if (m->rf.owner[i] == m->me)
			load += work(&m->local, p->shape[i]);
	MPI_Allreduce(&load, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	MPI_Allreduce(&load, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	const char *hook = getenv("MRDEM_MPI_TEST_CUTS");
	if (hook && *hook) {
		unsigned long seed = strtoul(hook, NULL, 10) + m->rebuilds;
		for (int a = 0; a < 3; a++)
			for (int k = 0; k + 1 < m->grid.dims[a]; k++) {
				seed = seed * 6364136223846793005ul + 1442695040888963407ul;
				m->grid.cuts[a][k] += ((double)(seed >> 11) / 9007199254740992.0 - 0.5) *
						      m->reach;
			}
		for (int a = 0; a < 3; a++) /* kept increasing */
			for (int k = 1; k + 1 < m->grid.dims[a]; k++)
				m->grid.cuts[a][k] = fmax(m->grid.cuts[a][k], m->grid.cuts[a][k - 1]);
		m->balances++;
		return;
	}
	if (!(most > BALANCE_TRIGGER * sum / m->nranks))
		return;
	/* every rank's points, in rank order */
	int n = 0, *counts = mrdem_xmalloc_array((size_t)m->nranks, 2 * sizeof *counts);
	int *displs = counts + m->nranks;
	for (size_t i = 0; i < p->n; i++)
		n += m->rf.owner[i] == m->me;
	double *mine = mrdem_xmalloc_array((size_t)n + 1, 4 * sizeof *mine);
	int k = 0;
	for (size_t i = 0; i < p->n; i++)
		if (m->rf.owner[i] == m->me) {
			memcpy(&mine[4 * k], &p->pos[3 * i], 3 * sizeof *mine);
			mine[4 * k++ + 3] = work(&m->local, p->shape[i]);
		}
	int four = 4 * n;
	MPI_Allgather(&four, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
	int total = 0;
	for (int q = 0; q < m->nranks; q++)
		displs[q] = total, total += counts[q];
	double *all = mrdem_xmalloc_array((size_t)total + 4, sizeof *all);
	MPI_Allgatherv(mine, four, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
	size_t np = (size_t)total / 4;
	double *x = mrdem_xmalloc_array(np + 1, 3 * sizeof *x), *w = mrdem_xmalloc_array(np + 1, sizeof *w);
	for (size_t j = 0; j < np; j++) {
		memcpy(&x[3 * j], &all[4 * j], 3 * sizeof *x);
		w[j] = all[4 * j + 3];
	}
	for (int a = 0; a < 3; a++)
		mrdem_rank_grid_balance(&m->grid, a, x, w, np);
	m->balances++;
	free(x), free(w), free(all), free(mine), free(counts);
}

/* The springs of the pairs this rank owns: the ranks' sum is the number
 * of springs the one-rank run holds. */
static uint64_t owned_springs(const struct mpi_run *m)
{
	const struct mrdem_history *h = &m->local.frame.history;
	uint64_t n = 0;
	for (size_t k = 0; k < h->n; k++)
		n += mrdem_rank_pair_owner(&m->rf, h->s[k].a, h->s[k].b) == m->me;
	return n;
}

/* The test hook of a lost spring (tests/e2e/mpi.sh): MRDEM_MPI_TEST_LOSE=RANK
 * drops the last spring of a pair that rank owns after its first rebuild
 * that gives it one. */
static void test_lose(struct mpi_run *m)
{
	const char *v = getenv("MRDEM_MPI_TEST_LOSE");
	static int lost;
	if (!v || !*v || atoi(v) != m->me || lost)
		return;
	struct mrdem_history *h = &m->local.frame.history;
	for (size_t k = h->n; k-- > 0;)
		if (mrdem_rank_pair_owner(&m->rf, h->s[k].a, h->s[k].b) == m->me) {
			memmove(&h->s[k], &h->s[k + 1], (h->n - k - 1) * sizeof *h->s);
			h->n--, lost = 1;
			return;
		}
}

/* Each owned particle to the rank whose box holds it, each spring to the
 * next owners of its two particles (both send it; one copy is kept);
 * then the ghosts anew, and the check that no spring was lost. */
static int rebuild(struct mpi_run *m, const struct mrdem_wire_particle *joined, size_t njoined)
{
	uint64_t springs[2] = {owned_springs(m), 0}, sums[2];
	balance(m);
	/* new particles go straight to the rank whose box holds them: here */
	for (size_t k = 0; k < njoined; k++)
		exchange_put(&m->particles, m->me, &joined[k]);
	struct mrdem_frame *f = &m->local.frame;
	const struct mrdem_particles *p = &f->p;
	int *next = mrdem_xmalloc_array(p->n + 1, sizeof *next);
	for (size_t i = 0; i < p->n; i++) {
		next[i] = -1;
		if (m->rf.owner[i] != m->me)
			continue;
		next[i] = mrdem_rank_grid_owner(&m->grid, &p->pos[3 * i]);
		struct mrdem_wire_particle w;
		mrdem_wire_particle_get(&w, p, i, m->rf.order[i], next[i]);
		exchange_put(&m->particles, next[i], &w);
	}
	for (size_t k = 0; k < f->history.n; k++) {
		const struct mrdem_spring *s = &f->history.s[k];
		size_t ia = mrdem_id_index_find(&m->rf.index, s->a);
		size_t ib = mrdem_is_plane_id(s->b) ? MRDEM_NO_INDEX :
			    mrdem_id_index_find(&m->rf.index, s->b);
		int ta = ia == MRDEM_NO_INDEX ? -1 : next[ia];
		int tb = ib == MRDEM_NO_INDEX ? -1 : next[ib];
		if (ta >= 0)
			exchange_put(&m->springs, ta, s);
		if (tb >= 0 && tb != ta)
			exchange_put(&m->springs, tb, s);
	}
	free(next);
	if (exchange_run(&m->particles) || exchange_run(&m->springs))
		return -1;
	struct exchange *x = &m->particles;
	size_t nown = x->nin;
	struct mrdem_wire_particle *own = mrdem_xmalloc_array(nown + 1, sizeof *own), *fixed;
	if (nown)
		memcpy(own, x->in, nown * sizeof *own);
	size_t nfixed = fixed_wire(&fixed, f, m->rf.order);
	int rc = send_ghosts(m, own, nown, fixed, nfixed);
	free(own);
	free(fixed);
	struct mrdem_history *h = &f->history;
	h->n = 0;
	const struct mrdem_spring *in = (const struct mrdem_spring *)m->springs.in;
	for (size_t k = 0; k < m->springs.nin; k++)
		*mrdem_history_push(h) = in[k];
	mrdem_rank_springs_merge(h, m->springs.from);
	test_lose(m);
	m->rebuilds++;
	if (rc)
		return -1;
	springs[1] = owned_springs(m);
	MPI_Allreduce(springs, sums, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
	/* every rank knows; rank 0 says it, the others stop with it silently */
	if (sums[0] == sums[1] || m->me != 0)
		return 0;
	return mrdem_error("after step %llu an exchange left the ranks' pairs with %llu springs, "
			   "not the %llu before it: a spring was lost or doubled",
			   (unsigned long long)f->step - 1, (unsigned long long)sums[1],
			   (unsigned long long)sums[0]);
}

int holdings_after_step(struct mpi_run *m, const struct mrdem_wire_particle *joined,
			size_t njoined, int force)
{
	int rc = must_rebuild(m) || force ? rebuild(m, joined, njoined) : refresh(m);
	m->ghosts_sum += m->nrecv;
	m->samples++;
	return rc;
}

void holdings_release(struct mpi_run *m)
{
	for (int q = 0; m->send && q < m->nranks; q++)
		free(m->send[q]);
	free(m->send);
	free(m->nsend);
	free(m->send_cap);
	free(m->recv);
	free(m->xref);
	free(m->ranks);
	free(m->step_joined);
	exchange_release(&m->particles);
	exchange_release(&m->springs);
	exchange_release(&m->states);
	mrdem_rank_grid_release(&m->grid);
}
