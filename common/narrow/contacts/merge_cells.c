#include "common/narrow/contacts/merge_cells.h"

#include <math.h>

#include "common/util/error.h"

size_t mrdem_merge_cells_shape(struct mrdem_merge_cells *g, const double lo[3],
			       const double hi[3], double edge, size_t n)
{
	double limit = (double)(2 * n > 64 ? 2 * n : 64), d[3];
	if (!(edge > 0))
		return 0;
	for (;;) {
		for (int a = 0; a < 3; a++)
			d[a] = floor((hi[a] - lo[a]) / edge) + 1;
		if (d[0] * d[1] * d[2] <= limit)
			break;
		edge *= 2;
	}
	if (!isfinite(edge))
		return 0;
	size_t cells = 1;
	for (int a = 0; a < 3; a++) {
		g->lo[a] = lo[a];
		g->dims[a] = (size_t)d[a];
		cells *= g->dims[a];
	}
	g->inv_edge = 1 / edge;
	return cells;
}

void mrdem_merge_cells_reserve(uint32_t **a, uint32_t **b, size_t *cap, size_t cells)
{
	if (cells + 1 <= *cap)
		return;
	*a = mrdem_xrealloc(*a, (cells + 1) * sizeof **a);
	*b = mrdem_xrealloc(*b, (cells + 1) * sizeof **b);
	*cap = cells + 1;
}
