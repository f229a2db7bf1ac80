/* Uniform-grid broad phase (the sphere DEM course notes "binning", Munjiza & Rougier cell search).
 *
 * Space is cut into cubic cells of edge h slightly above the largest
 * sphere diameter, so spheres that touch lie in the same or adjacent
 * cells: each particle is tested against the 27 cells around its own.
 * Occupied cells are found through a hash table of integer cell
 * coordinates, so memory is O(n) however sparse the scene, and binning is
 * a counting sort: O(n) time for a bounded number of particles per cell.
 *
 * Polydisperse scenes: h follows the largest "regular" sphere. Spheres
 * with a radius above MRDEM_BROAD_LARGE_FACTOR times the mean (a big fixed obstacle,
 * a scaled particle) are kept out of the grid and tested against every
 * particle, so one large body does not make every cell huge. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "common/broad/broad_methods.h"
#include "common/util/error.h"

#define NO_CELL SIZE_MAX

struct mrdem_grid {
	size_t cap;        /* particle capacity of the arrays below */
	int64_t *coord;    /* 3 per particle: integer cell coordinates */
	size_t *cell_of;   /* cell id of each particle, NO_CELL for large ones */
	size_t *start;     /* ncells + 1 offsets into member */
	size_t *member;    /* particle indices grouped by cell, ascending in each */
	size_t *large;     /* indices of large particles, ascending */
	uint8_t *level;    /* 0 for large particles, 1 for the others */
	size_t hcap;       /* hash slots, a power of two */
	int64_t *hkey;     /* 3 per slot */
	size_t *hval;      /* cell id per slot, NO_CELL when empty */
};

struct mrdem_grid *mrdem_grid_new(void)
{
	return mrdem_xcalloc(1, sizeof(struct mrdem_grid));
}

void mrdem_grid_free(struct mrdem_grid *g)
{
	if (!g)
		return;
	free(g->coord);
	free(g->cell_of);
	free(g->start);
	free(g->member);
	free(g->large);
	free(g->level);
	free(g->hkey);
	free(g->hval);
	free(g);
}

size_t mrdem_grid_bytes(const struct mrdem_grid *g)
{
	return g->cap * (3 * sizeof *g->coord + sizeof *g->cell_of + sizeof *g->start +
			 sizeof *g->member + sizeof *g->large + sizeof *g->level) +
	       g->hcap * (3 * sizeof *g->hkey + sizeof *g->hval);
}

static void grid_reserve(struct mrdem_grid *g, size_t n)
{
	/* start has n + 1 entries: one even for an empty frame */
	if (n > g->cap || !g->start) {
		g->coord = mrdem_xrealloc(g->coord, 3 * n * sizeof *g->coord);
		g->cell_of = mrdem_xrealloc(g->cell_of, n * sizeof *g->cell_of);
		g->start = mrdem_xrealloc(g->start, (n + 1) * sizeof *g->start);
		g->member = mrdem_xrealloc(g->member, n * sizeof *g->member);
		g->large = mrdem_xrealloc(g->large, n * sizeof *g->large);
		g->level = mrdem_xrealloc(g->level, n * sizeof *g->level);
		g->cap = n;
	}
	size_t want = 16;
	while (want < 2 * n)
		want *= 2;
	if (want > g->hcap) {
		g->hkey = mrdem_xrealloc(g->hkey, 3 * want * sizeof *g->hkey);
		g->hval = mrdem_xrealloc(g->hval, want * sizeof *g->hval);
		g->hcap = want;
	}
}

static size_t hash_slot(const struct mrdem_grid *g, const int64_t c[3])
{
	uint64_t h = (uint64_t)c[0] * 0x9E3779B97F4A7C15u;
	h ^= (uint64_t)c[1] * 0xC2B2AE3D27D4EB4Fu;
	h ^= (uint64_t)c[2] * 0x165667B19E3779F9u;
	h ^= h >> 29;
	h *= 0xBF58476D1CE4E5B9u;
	h ^= h >> 32;
	return (size_t)h & (g->hcap - 1);
}

/* Cell id of cell c, NO_CELL when unoccupied. */
static size_t hash_find(const struct mrdem_grid *g, const int64_t c[3])
{
	for (size_t s = hash_slot(g, c);; s = (s + 1) & (g->hcap - 1)) {
		if (g->hval[s] == NO_CELL)
			return NO_CELL;
		const int64_t *k = &g->hkey[3 * s];
		if (k[0] == c[0] && k[1] == c[1] && k[2] == c[2])
			return g->hval[s];
	}
}

/* Cell id of cell c, inserting it as cell *ncells when new. */
static size_t hash_insert(struct mrdem_grid *g, const int64_t c[3], size_t *ncells)
{
	for (size_t s = hash_slot(g, c);; s = (s + 1) & (g->hcap - 1)) {
		int64_t *k = &g->hkey[3 * s];
		if (g->hval[s] == NO_CELL) {
			k[0] = c[0], k[1] = c[1], k[2] = c[2];
			return g->hval[s] = (*ncells)++;
		}
		if (k[0] == c[0] && k[1] == c[1] && k[2] == c[2])
			return g->hval[s];
	}
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

/* Sort the candidates of particle i and keep those that touch it. */
static void emit_row(size_t i, size_t *cand, size_t ncand, const double *pos,
		     const double *radius, struct mrdem_ipairs *out, uint64_t *tests)
{
	qsort(cand, ncand, sizeof *cand, cmp_size);
	for (size_t k = 0; k < ncand; k++) {
		size_t j = cand[k];
		++*tests;
		if (mrdem_spheres_touch(&pos[3 * i], radius[i], &pos[3 * j], radius[j]))
			mrdem_ipairs_push(out, i, j);
	}
}

/* Bin the regular particles; returns the number of occupied cells. */
static size_t bin_particles(struct mrdem_grid *g, const double *pos, const double *radius,
			    size_t n, size_t *nlarge, double *cell_size)
{
	double rmax, big, lo[3] = {INFINITY, INFINITY, INFINITY};
	mrdem_broad_split_large(pos, radius, n, g->level, &rmax, &big);
	*nlarge = 0;
	for (size_t i = 0; i < n; i++) {
		if (!g->level[i]) {
			g->large[(*nlarge)++] = i;
			continue;
		}
		for (int a = 0; a < 3; a++)
			lo[a] = fmin(lo[a], pos[3 * i + a]);
	}
	double h = *cell_size = mrdem_broad_cell_edge(rmax, big);

	for (size_t s = 0; s < g->hcap; s++)
		g->hval[s] = NO_CELL;
	size_t ncells = 0;
	for (size_t i = 0; i < n; i++) {
		if (!g->level[i]) {
			g->cell_of[i] = NO_CELL;
			continue;
		}
		int64_t *c = &g->coord[3 * i];
		for (int a = 0; a < 3; a++)
			c[a] = (int64_t)floor((pos[3 * i + a] - lo[a]) / h);
		g->cell_of[i] = hash_insert(g, c, &ncells);
	}
	/* Counting sort by cell; particles stay ascending within a cell. */
	memset(g->start, 0, (ncells + 1) * sizeof *g->start);
	for (size_t i = 0; i < n; i++)
		if (g->cell_of[i] != NO_CELL)
			g->start[g->cell_of[i] + 1]++;
	for (size_t c = 0; c < ncells; c++)
		g->start[c + 1] += g->start[c];
	for (size_t i = 0; i < n; i++)
		if (g->cell_of[i] != NO_CELL)
			g->member[g->start[g->cell_of[i]]++] = i;
	for (size_t c = ncells; c > 0; c--)
		g->start[c] = g->start[c - 1];
	g->start[0] = 0;
	return ncells;
}

/* The pairs of particles lo to hi - 1 with those after them into out. */
static void grid_rows(const struct mrdem_grid *g, const double *pos, const double *radius,
		      const uint32_t *flags, size_t n, size_t nlarge, size_t lo, size_t hi,
		      struct mrdem_ipairs *out, uint64_t *ntests)
{
	size_t cap = 64, *cand = mrdem_xmalloc(cap * sizeof *cand);
	for (size_t i = lo; i < hi; i++) {
		size_t ncand = 0;
#define ADD_CANDIDATE(j)                                                                  \
	do {                                                                              \
		if ((j) > i && !mrdem_both_fixed(flags, i, (j))) {                        \
			if (ncand == cap)                                                 \
				cand = mrdem_xrealloc_for(cand, cap *= 2, sizeof *cand,   \
							  "candidates");                  \
			cand[ncand++] = (j);                                              \
		}                                                                         \
	} while (0)
		if (g->cell_of[i] == NO_CELL) {
			/* A large particle meets everything after it. */
			for (size_t j = i + 1; j < n; j++)
				ADD_CANDIDATE(j);
		} else {
			const int64_t *c = &g->coord[3 * i];
			for (int dz = -1; dz <= 1; dz++)
				for (int dy = -1; dy <= 1; dy++)
					for (int dx = -1; dx <= 1; dx++) {
						int64_t nb[3] = {c[0] + dx, c[1] + dy, c[2] + dz};
						size_t cell = hash_find(g, nb);
						if (cell == NO_CELL)
							continue;
						for (size_t k = g->start[cell]; k < g->start[cell + 1]; k++)
							ADD_CANDIDATE(g->member[k]);
					}
			for (size_t k = 0; k < nlarge; k++)
				ADD_CANDIDATE(g->large[k]);
		}
#undef ADD_CANDIDATE
		emit_row(i, cand, ncand, pos, radius, out, ntests);
	}
	free(cand);
}

void mrdem_broad_grid_pairs(struct mrdem_grid *g, const double *pos, const double *radius,
			    const uint32_t *flags, size_t n, struct mrdem_ipairs *out,
			    uint64_t *tests, uint64_t *cells, double *cell_size)
{
	grid_reserve(g, n);
	size_t nlarge;
	*cells = bin_particles(g, pos, radius, n, &nlarge, cell_size);

	uint64_t ntests = 0;
	if (n < MRDEM_BROAD_PARALLEL_MIN) {
		/* Outside OpenMP (util/threads.h), straight into out: the one
		 * part that the concatenation would copy. */
		out->n = 0;
		grid_rows(g, pos, radius, flags, n, nlarge, 0, n, out, &ntests);
		*tests = ntests;
		return;
	}
	int nparts = omp_get_max_threads();
	struct mrdem_ipairs *part = mrdem_xcalloc((size_t)nparts, sizeof *part);
#pragma omp parallel num_threads(nparts) reduction(+ : ntests)
	{
		int t = omp_get_thread_num(), nt = omp_get_num_threads();
		size_t lo = n * (size_t)t / (size_t)nt, hi = n * (size_t)(t + 1) / (size_t)nt;
		grid_rows(g, pos, radius, flags, n, nlarge, lo, hi, &part[t], &ntests);
	}
	mrdem_ipairs_concat(out, part, nparts);
	free(part);
	*tests = ntests;
}
