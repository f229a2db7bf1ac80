/* The brick grid of MPI ranks a scene is cut into (docs/parallel.md): X x
 * Y x Z boxes by planes across each axis, the outer ones open to
 * infinity, so every point has exactly one owner. A particle belongs to
 * the rank whose half-open box [lo, hi) holds its centre. Pure geometry,
 * without MPI: every rank computes the same grid from the same data. */
#ifndef MRDEM_PARALLEL_RANK_GRID_H
#define MRDEM_PARALLEL_RANK_GRID_H

#include <stddef.h>

struct mrdem_rank_grid {
	int dims[3];
	int nranks;
	double *cuts[3]; /* dims[a] - 1 increasing positions per axis */
};

/* dims for nranks ranks over a box of extent ext: the factors given (> 0)
 * kept, the others chosen so that the boxes are closest to cubes (the
 * least surface, so the fewest ghosts). 0, or -1 when the given factors
 * do not divide nranks. */
int mrdem_rank_grid_dims(int nranks, const double ext[3], const int given[3], int dims[3]);

/* A grid of dims whose cuts split [lo, hi] evenly. */
void mrdem_rank_grid_init(struct mrdem_rank_grid *g, const int dims[3], const double lo[3],
			  const double hi[3]);
void mrdem_rank_grid_release(struct mrdem_rank_grid *g);

/* Move the cuts of axis a so that each slab holds about the same weight
 * of the n points x (3 per point, weights w): the weighted quantiles,
 * each cut half-way between the points on its two sides. */
void mrdem_rank_grid_balance(struct mrdem_rank_grid *g, int a, const double *x, const double *w,
			     size_t n);

/* The rank that owns point x, and the grid cell (c[3]) of a rank. */
int mrdem_rank_grid_owner(const struct mrdem_rank_grid *g, const double x[3]);
void mrdem_rank_grid_cell(const struct mrdem_rank_grid *g, int rank, int c[3]);
/* The box of a rank; outer faces at -/+ infinity. */
void mrdem_rank_grid_box(const struct mrdem_rank_grid *g, int rank, double lo[3], double hi[3]);

/* The ranks whose box comes within distance r of x (x's owner among
 * them), ascending, into ranks (room for g->nranks). Returns how many. */
int mrdem_rank_grid_reach(const struct mrdem_rank_grid *g, const double x[3], double r,
			  int *ranks);

/* "XxYxZ" */
void mrdem_rank_grid_name(const struct mrdem_rank_grid *g, char *buf, size_t size);

#endif
