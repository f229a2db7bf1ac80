/* A grid of cubic cells over a box of points, shared by the merges of
 * many groups (merge_points.c, merge_scan.c): its shape and the cell of
 * a point. What a cell holds is each merge's own. */
#ifndef MRDEM_NARROW_MERGE_CELLS_H
#define MRDEM_NARROW_MERGE_CELLS_H

#include <stddef.h>
#include <stdint.h>

/* Up to this many groups a scan of them is cheaper than a grid. */
#define MRDEM_MERGE_GRID_GROUPS 24

struct mrdem_merge_cells {
	double lo[3], inv_edge; /* the grid's corner and 1 / cell edge */
	size_t dims[3];         /* cells along each axis */
};

/* Cell index along axis a of coordinate v, clamped to the grid. */
static inline size_t mrdem_merge_cell(const struct mrdem_merge_cells *g, int a, double v)
{
	double t = (v - g->lo[a]) * g->inv_edge;
	if (!(t > 0))
		return 0;
	/* t is small here: a signed conversion, cheaper than to size_t */
	return t < (double)(g->dims[a] - 1) ? (size_t)(int64_t)t : g->dims[a] - 1;
}

/* The cell at indices i, j, l along the axes. */
static inline size_t mrdem_merge_cell_at(const struct mrdem_merge_cells *g, size_t i, size_t j,
					 size_t l)
{
	return (i * g->dims[1] + j) * g->dims[2] + l;
}

/* The cell of point x. */
static inline size_t mrdem_merge_cell_of(const struct mrdem_merge_cells *g, const double x[3])
{
	return mrdem_merge_cell_at(g, mrdem_merge_cell(g, 0, x[0]), mrdem_merge_cell(g, 1, x[1]),
				   mrdem_merge_cell(g, 2, x[2]));
}

/* Shape g for n points within lo..hi (finite): cells of edge `edge` or
 * doubled until at most max(64, 2 n) of them. Returns the number of
 * cells, or 0 where the edge is not a positive finite number. */
size_t mrdem_merge_cells_shape(struct mrdem_merge_cells *g, const double lo[3],
			       const double hi[3], double edge, size_t n);

/* Room for cells + 1 entries in each of the per-cell arrays a and b
 * (*cap: their room). */
void mrdem_merge_cells_reserve(uint32_t **a, uint32_t **b, size_t *cap, size_t cells);

#endif
