/* Inflow and outflow over the ranks (docs/parallel.md): at the end of a
 * step, each rank finds its own particles in a remove region, every rank
 * learns all of them (their one-rank order and mass) and deletes them
 * with their springs, closing the orders' gaps as the one-rank frame
 * closes its own; an insertion is placed by every rank alike from the
 * particles near its region, gathered from their owners in order, and
 * each rank keeps what lands in its box. The ranks then rebuild. */
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"
#include "tools/run/mpi/mpi_run.h"

struct removal {
	uint64_t order, id;
	double mass;
};

static int cmp_removal(const void *x, const void *y)
{
	const struct removal *a = x, *b = y;
	return (a->order > b->order) - (a->order < b->order);
}

/* Every rank's items (bytes each) gathered on every rank, in rank order. */
static void *gather_all(const void *mine, int n, size_t bytes, int nranks, int *total)
{
	int *counts = mrdem_xmalloc_array((size_t)nranks, 2 * sizeof *counts), *displs = counts + nranks;
	int b = (int)((size_t)n * bytes);
	MPI_Allgather(&b, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
	int sum = 0;
	for (int q = 0; q < nranks; q++)
		displs[q] = sum, sum += counts[q];
	unsigned char *all = mrdem_xmalloc((size_t)sum + 1);
	MPI_Allgatherv(mine, b, MPI_BYTE, all, counts, displs, MPI_BYTE, MPI_COMM_WORLD);
	free(counts);
	*total = (int)((size_t)sum / bytes);
	return all;
}

/* The free particles in a remove region, deleted on every rank. */
static int outflow(struct run *r, struct mpi_run *m, struct mrdem_flow_account *acc)
{
	const struct mrdem_flow *fl = &r->scene.flow;
	const struct mrdem_particles *p = &m->local.frame.p;
	struct removal *mine = mrdem_xmalloc_array(p->n + 1, sizeof *mine);
	int n = 0, total;
	for (size_t i = 0; i < p->n; i++) {
		if (m->rf.owner[i] != m->me)
			continue;
		for (uint32_t k = 0; k < fl->nremove; k++)
			if (mrdem_region_contains(&fl->remove[k], &p->pos[3 * i])) {
				mine[n++] = (struct removal){m->rf.order[i], p->id[i],
							     mrdem_particle_mass(&m->local, i)};
				break;
			}
	}
	struct removal *all = gather_all(mine, n, sizeof *mine, m->nranks, &total);
	free(mine);
	qsort(all, (size_t)total, sizeof *all, cmp_removal);
	/* the mass in the one-rank frame's order, as its outflow sums it */
	uint64_t *orders = mrdem_xmalloc_array((size_t)total + 1, sizeof *orders);
	for (int k = 0; k < total; k++) {
		acc->removed_mass += all[k].mass;
		orders[k] = all[k].order;
		m->idsum -= all[k].id;
	}
	acc->removed = (uint64_t)total;
	m->total -= (uint64_t)total;
	m->nframe -= (uint64_t)total;
	free(all);
	int rc = total ? mrdem_rank_frame_remove(&m->rf, &m->local.frame, orders, (size_t)total) : 0;
	free(orders);
	return rc;
}

/* Whether a free particle at x of bounding radius + halo rad can touch
 * what lands in [lo, hi]: within rad + the insertions' reach. */
static int near_region(const double x[3], double rad, const double lo[3], const double hi[3],
		       double reach)
{
	double d2 = 0;
	for (int a = 0; a < 3; a++) {
		double d = x[a] < lo[a] ? lo[a] - x[a] : x[a] > hi[a] ? x[a] - hi[a] : 0;
		d2 += d * d;
	}
	return sqrt(d2) <= (rad + reach) * (1 + 1e-9);
}

/* The largest bounding radius + halo a particle of insertion in can have. */
static double insertion_reach(const struct mrdem_scene *s, const struct mrdem_insertion *in)
{
	double most = 0;
	for (uint32_t j = 0; j < in->nshapes; j++)
		most = fmax(most, s->shapes[in->shapes[j].shape].bound_radius + in->shapes[j].eps);
	return most;
}

/* Insertion k's particles due at this step, placed by every rank from the
 * particles near its region (and the fixed ones), the ones this rank's
 * box holds appended to joined. */
static int inflow(struct run *r, struct mpi_run *m, uint32_t k, struct mrdem_wire_particle **joined,
		  size_t *njoined, size_t *jcap, uint64_t *inserted)
{
	const struct mrdem_insertion *in = &r->scene.flow.insert[k];
	uint64_t step = m->local.frame.step;
	uint64_t before = step ? mrdem_insertion_placed(in, step - 1) : 0;
	uint64_t after = mrdem_insertion_placed(in, step);
	if (after <= before)
		return 0;
	*inserted += after - before;
	double lo[3], hi[3];
	mrdem_region_bounds(&in->region, lo, hi);
	double reach = insertion_reach(&m->local, in);
	const struct mrdem_particles *p = &m->local.frame.p;
	struct mrdem_wire_particle *near = mrdem_xmalloc_array(p->n + *njoined + 1, sizeof *near);
	int n = 0, total;
	for (size_t i = 0; i < p->n; i++)
		if (m->rf.owner[i] == m->me &&
		    near_region(&p->pos[3 * i], m->local.shapes[p->shape[i]].bound_radius + p->eps[i],
				lo, hi, reach))
			mrdem_wire_particle_get(&near[n++], p, i, m->rf.order[i], m->me);
	/* this step's earlier insertions too (each rank has them all) */
	struct mrdem_wire_particle *all = gather_all(near, n, sizeof *near, m->nranks, &total);
	free(near);
	size_t nall = (size_t)total;
	all = mrdem_xrealloc(all, (nall + p->n + m->step_joined_n + 1) * sizeof *all);
	for (size_t j = 0; j < m->step_joined_n; j++)
		all[nall++] = m->step_joined[j];
	for (size_t i = 0; i < p->n; i++)
		if (p->flags[i] & MRDEM_PARTICLE_FIXED)
			mrdem_wire_particle_get(&all[nall++], p, i, m->rf.order[i], MRDEM_RANK_GLOBAL);
	for (size_t j = 0; j < nall; j++) /* nobody's ghost in the view */
		if (all[j].owner != MRDEM_RANK_GLOBAL)
			all[j].owner = m->me;
	struct mrdem_scene view = m->local;
	mrdem_frame_init(&view.frame);
	view.frame.step = step;
	view.frame.time = m->local.frame.time;
	if (p->material)
		mrdem_particles_use_material(&view.frame.p);
	view.flow = r->scene.flow;
	struct mrdem_rank_frame vf;
	mrdem_rank_frame_init(&vf);
	int rc = mrdem_rank_frame_build(&vf, &view.frame, all, nall, m->me);
	free(all);
	size_t n0 = view.frame.p.n;
	rc = rc || mrdem_inflow_place(&view, k, before, after, step);
	for (size_t j = n0; !rc && j < view.frame.p.n; j++) {
		struct mrdem_wire_particle w;
		int owner = mrdem_rank_grid_owner(&m->grid, &view.frame.p.pos[3 * j]);
		mrdem_wire_particle_get(&w, &view.frame.p, j, m->nframe++, owner);
		m->total++;
		m->idsum += w.id;
		if (m->step_joined_n == m->step_joined_cap) {
			m->step_joined_cap = m->step_joined_cap ? 2 * m->step_joined_cap : 16;
			m->step_joined = mrdem_xrealloc(m->step_joined,
							m->step_joined_cap * sizeof *m->step_joined);
		}
		m->step_joined[m->step_joined_n++] = w;
		if (owner != m->me)
			continue;
		if (*njoined == *jcap) {
			*jcap = *jcap ? 2 * *jcap : 16;
			*joined = mrdem_xrealloc(*joined, *jcap * sizeof **joined);
		}
		(*joined)[(*njoined)++] = w;
	}
	mrdem_rank_frame_release(&vf);
	mrdem_frame_release(&view.frame);
	return rc;
}

int flow_ranks_step_end(struct run *r, struct mpi_run *m, struct mrdem_flow_account *acc,
			struct mrdem_wire_particle **joined, size_t *njoined, size_t *jcap)
{
	const struct mrdem_flow *fl = &r->scene.flow;
	memset(acc, 0, sizeof *acc);
	*njoined = 0;
	m->step_joined_n = 0;
	acc->removes = fl->nremove > 0;
	acc->inserts = fl->ninsert > 0;
	if (acc->removes && outflow(r, m, acc))
		return -1;
	for (uint32_t k = 0; k < fl->ninsert; k++) {
		if (fl->insert[k].dt != r->opts.step.dt)
			return mrdem_error("step %llu: insert[%u] is scheduled in steps of %.17g s, "
					   "but the run steps %.17g s; run it with the scene's dt",
					   (unsigned long long)m->local.frame.step, k,
					   fl->insert[k].dt, r->opts.step.dt);
		if (inflow(r, m, k, joined, njoined, jcap, &acc->inserted))
			return -1;
	}
	return 0;
}
