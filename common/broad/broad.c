/* Broad-phase driver: bounding spheres, particle pairs by the chosen
 * method, plane pairs, and the canonical id list. */
#include "common/broad/broad.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/broad/broad_methods.h"
#include "common/util/error.h"
#include "common/util/names.h"

/* How many pairs ahead the output prefetches the second particle's id. */
#define ID_PREFETCH 16

struct mrdem_broad {
	size_t cap;
	double *radius;
	struct mrdem_ipairs pairs;
	int simd; /* enum mrdem_simd of the cell searches */
	/* each method's state, made on its first use */
	struct mrdem_grid *grid;
	struct mrdem_sap *sap;
	struct mrdem_mr *mr;
	struct mrdem_mmr *mmr;
};

const char *const mrdem_broad_method_names[MRDEM_BROAD_NMETHODS] = {
	[MRDEM_BROAD_GRID] = "grid", [MRDEM_BROAD_BRUTE] = "brute", [MRDEM_BROAD_SAP] = "sap",
	[MRDEM_BROAD_MR] = "mr",     [MRDEM_BROAD_MMR] = "mmr",
};

int mrdem_broad_method_parse(const char *name)
{
	return mrdem_name_index(mrdem_broad_method_names, MRDEM_BROAD_NMETHODS, name);
}

int mrdem_broad_method_option(const char *opt, const char *value)
{
	int m = mrdem_broad_method_parse(value);
	if (m < 0)
		mrdem_error("%s: '%s' is not " MRDEM_BROAD_METHOD_LIST, opt, value);
	return m;
}

const char *mrdem_broad_method_name(int method)
{
	return mrdem_name_at(mrdem_broad_method_names, MRDEM_BROAD_NMETHODS, method, NULL);
}

int mrdem_broad_default(const struct mrdem_scene *s)
{
	return s->frame.p.n <= MRDEM_BROAD_SAP_MAX && !s->flow.ninsert ? MRDEM_BROAD_SAP
									  : MRDEM_BROAD_MR;
}

void mrdem_ipairs_push(struct mrdem_ipairs *p, size_t i, size_t j)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 256;
		p->ij = mrdem_xrealloc_for(p->ij, p->cap, 2 * sizeof *p->ij, "candidate pairs");
	}
	p->ij[2 * p->n] = i;
	p->ij[2 * p->n + 1] = j;
	p->n++;
}

void mrdem_ipairs_release(struct mrdem_ipairs *p)
{
	free(p->ij);
	memset(p, 0, sizeof *p);
}

void mrdem_ipairs_concat(struct mrdem_ipairs *out, struct mrdem_ipairs *part, int nparts)
{
	size_t total = 0;
	for (int t = 0; t < nparts; t++)
		total += part[t].n;
	if (total > out->cap) {
		out->ij = mrdem_xrealloc_for(out->ij, total, 2 * sizeof *out->ij, "candidate pairs");
		out->cap = total;
	}
	out->n = 0;
	for (int t = 0; t < nparts; t++) {
		if (part[t].n)
			memcpy(&out->ij[2 * out->n], part[t].ij, 2 * part[t].n * sizeof *out->ij);
		out->n += part[t].n;
		mrdem_ipairs_release(&part[t]);
	}
}

struct mrdem_broad *mrdem_broad_new(void)
{
	return mrdem_xcalloc(1, sizeof(struct mrdem_broad));
}

void mrdem_broad_set_simd(struct mrdem_broad *b, int simd)
{
	b->simd = simd;
}

void mrdem_broad_free(struct mrdem_broad *b)
{
	if (!b)
		return;
	free(b->radius);
	mrdem_ipairs_release(&b->pairs);
	mrdem_grid_free(b->grid);
	mrdem_sap_free(b->sap);
	mrdem_mr_free(b->mr);
	mrdem_mmr_free(b->mmr);
	free(b);
}

/* Signed distance of x from plane k's surface, positive on the free side. */
static double plane_distance(const struct mrdem_plane *pl, const double x[3])
{
	double d[3] = {x[0] - pl->point[0], x[1] - pl->point[1], x[2] - pl->point[2]};
	return d[0] * pl->normal[0] + d[1] * pl->normal[1] + d[2] * pl->normal[2];
}

static int check_planes(const struct mrdem_setup *su)
{
	for (uint32_t k = 0; k < su->nplanes; k++) {
		const struct mrdem_plane *pl = &su->planes[k];
		double len = sqrt(pl->normal[0] * pl->normal[0] + pl->normal[1] * pl->normal[1] +
				  pl->normal[2] * pl->normal[2]);
		if (!(fabs(len - 1) <= 1e-6) || !isfinite(pl->point[0] + pl->point[1] + pl->point[2]))
			return mrdem_error("plane %u: needs a finite point and a unit normal (|n| = %g)",
					   k, len);
	}
	if (su->nplanes && !(su->plane_epsilon >= 0 && isfinite(su->plane_epsilon)))
		return mrdem_error("plane_epsilon %g: need a finite value >= 0", su->plane_epsilon);
	return 0;
}

/* The particle pairs by method into b->pairs (indices), with the method's
 * counters and state size. */
static void find_particle_pairs(struct mrdem_broad *b, const struct mrdem_particles *p,
				int method, struct mrdem_broad_stats *st)
{
	size_t n = p->n;
	switch (method) {
	case MRDEM_BROAD_BRUTE:
		mrdem_broad_brute_pairs(p->pos, b->radius, p->flags, n, &b->pairs, &st->sphere_tests);
		break;
	case MRDEM_BROAD_GRID:
		if (!b->grid)
			b->grid = mrdem_grid_new();
		mrdem_broad_grid_pairs(b->grid, p->pos, b->radius, p->flags, n, &b->pairs,
				       &st->sphere_tests, &st->cells, &st->cell_size);
		st->state_bytes = mrdem_grid_bytes(b->grid);
		break;
	case MRDEM_BROAD_SAP:
		if (!b->sap)
			b->sap = mrdem_sap_new();
		mrdem_broad_sap_pairs(b->sap, p->pos, b->radius, p->flags, n, &b->pairs,
				      &st->sphere_tests);
		st->moves = mrdem_sap_moves(b->sap, &st->rebuilt);
		st->state_bytes = mrdem_sap_bytes(b->sap);
		break;
	case MRDEM_BROAD_MR:
		if (!b->mr)
			b->mr = mrdem_mr_new();
		mrdem_broad_mr_pairs(b->mr, p->pos, b->radius, p->flags, n, b->simd, &b->pairs,
				     &st->sphere_tests, &st->cells, &st->cell_size);
		st->moves = mrdem_mr_moves(b->mr, &st->rebuilt);
		st->state_bytes = mrdem_mr_bytes(b->mr);
		break;
	case MRDEM_BROAD_MMR:
		if (!b->mmr)
			b->mmr = mrdem_mmr_new();
		mrdem_broad_mmr_pairs(b->mmr, p->pos, b->radius, p->flags, n, b->simd, &b->pairs,
				      &st->sphere_tests, &st->cells, &st->cell_size);
		st->moves = mrdem_mmr_moves(b->mmr, &st->rebuilt);
		st->state_bytes = mrdem_mmr_bytes(b->mmr);
		break;
	}
}

/* The pairs as ids into out, interleaved: particle i's particle pairs, then
 * its plane pairs (planes tested here, with their counters). Without
 * planes, the particle pairs as they are (one loop over the pairs, not one
 * per particle whose length a branch mispredicts). */
static void pairs_to_ids(const struct mrdem_broad *b, const struct mrdem_scene *s,
			 struct mrdem_pairs *out, struct mrdem_broad_stats *st)
{
	const struct mrdem_particles *p = &s->frame.p;
	const struct mrdem_setup *su = &s->setup;
	size_t n = p->n;
	size_t k = 0;
	if (!su->nplanes) {
		size_t np = b->pairs.n;
		const size_t *ij = b->pairs.ij;
		if (np > out->cap) {
			out->cap = np > 2 * out->cap ? np : 2 * out->cap;
			out->p = mrdem_xrealloc_for(out->p, out->cap, sizeof *out->p, "pairs");
		}
		for (; k < np; k++) {
			/* the second ids lie all over the id array: fetch ahead */
			if (k + ID_PREFETCH < np)
				__builtin_prefetch(&p->id[ij[2 * (k + ID_PREFETCH) + 1]]);
			out->p[k].a = p->id[ij[2 * k]];
			out->p[k].b = p->id[ij[2 * k + 1]];
		}
		out->n = np;
	} else {
		for (size_t i = 0; i < n; i++) {
			for (; k < b->pairs.n && b->pairs.ij[2 * k] == i; k++)
				mrdem_pairs_push(out, p->id[i], p->id[b->pairs.ij[2 * k + 1]]);
			if (p->flags[i] & MRDEM_PARTICLE_FIXED)
				continue;
			for (uint32_t q = 0; q < su->nplanes; q++) {
				st->plane_tests++;
				if (plane_distance(&su->planes[q], &p->pos[3 * i]) <=
				    b->radius[i] + su->plane_epsilon) {
					mrdem_pairs_push(out, p->id[i], MRDEM_PLANE_ID(q));
					st->plane_pairs++;
				}
			}
		}
	}
}

int mrdem_broad_phase(struct mrdem_broad *b, const struct mrdem_scene *s, int method,
		      struct mrdem_pairs *out, struct mrdem_broad_stats *st)
{
	const struct mrdem_particles *p = &s->frame.p;
	const struct mrdem_setup *su = &s->setup;
	size_t n = p->n;
	struct mrdem_broad_stats local;
	if (!st)
		st = &local;
	memset(st, 0, sizeof *st);
	out->n = 0;
	out->step = s->frame.step;

	if (!mrdem_broad_method_name(method))
		return mrdem_error("unknown broad-phase method %d", method);
	if (n > UINT32_MAX / 2 && method != MRDEM_BROAD_GRID && method != MRDEM_BROAD_BRUTE)
		return mrdem_error("broad phase %s: %zu particles, at most %u",
				   mrdem_broad_method_names[method], n, UINT32_MAX / 2);
	if (check_planes(su))
		return -1;
	if (n > b->cap) {
		b->radius = mrdem_xrealloc(b->radius, n * sizeof *b->radius);
		b->cap = n;
	}
	if (mrdem_broad_bounds(s, b->radius))
		return -1;

	find_particle_pairs(b, p, method, st);
	st->state_bytes += b->cap * sizeof *b->radius + 2 * b->pairs.cap * sizeof *b->pairs.ij;
	pairs_to_ids(b, s, out, st);
	st->particle_pairs = b->pairs.n;
	return 0;
}

void mrdem_broad_stats_add(struct mrdem_stats *out, int method, const struct mrdem_broad_stats *st)
{
	mrdem_stats_add(out, "broad_pairs", (double)st->particle_pairs);
	mrdem_stats_add(out, "broad_plane_pairs", (double)st->plane_pairs);
	mrdem_stats_add(out, "broad_sphere_tests", (double)st->sphere_tests);
	mrdem_stats_add(out, "broad_plane_tests", (double)st->plane_tests);
	if (method == MRDEM_BROAD_GRID || method == MRDEM_BROAD_MR || method == MRDEM_BROAD_MMR) {
		mrdem_stats_add(out, "broad_cells", (double)st->cells);
		mrdem_stats_add(out, "broad_cell_size", st->cell_size);
	}
}
