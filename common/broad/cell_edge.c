/* Cell sizing shared by the cell methods (grid, MR, MMR, the rebuild of
 * sort-and-update): which spheres are too large for the cells, and the
 * cell edge with its rounding margin. */
#include <float.h>
#include <math.h>

#include "common/broad/broad_methods.h"

double mrdem_broad_cell_edge(double rmax, double big)
{
	double h = 2 * rmax + 32 * DBL_EPSILON * (big + rmax);
	return h > 0 ? h : 1;
}

size_t mrdem_broad_split_large(const double *pos, const double *radius, size_t n, uint8_t *level,
			       double *rmax, double *big)
{
	double mean = 0;
	for (size_t i = 0; i < n; i++)
		mean += radius[i];
	mean = n ? mean / (double)n : 0;
	double limit = MRDEM_BROAD_LARGE_FACTOR * mean;
	size_t nlarge = 0;
	double rm = 0, bg = 0;
	for (size_t i = 0; i < n; i++) {
		level[i] = radius[i] <= limit;
		if (!level[i]) {
			nlarge++;
			continue;
		}
		/* finite values (checked by the caller): compares, not fmax calls */
		rm = radius[i] > rm ? radius[i] : rm;
		for (int a = 0; a < 3; a++)
			bg = fabs(pos[3 * i + a]) > bg ? fabs(pos[3 * i + a]) : bg;
	}
	*rmax = rm;
	*big = bg;
	return nlarge;
}
