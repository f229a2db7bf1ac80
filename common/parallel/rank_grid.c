#include "common/parallel/rank_grid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/util/error.h"

int mrdem_rank_grid_dims(int nranks, const double ext[3], const int given[3], int dims[3])
{
	int best[3] = {0, 0, 0};
	double best_area = INFINITY;
	/* every factorisation nranks = X Y Z that keeps the given factors */
	for (int x = 1; x <= nranks; x++) {
		if (nranks % x || (given[0] > 0 && given[0] != x))
			continue;
		for (int y = 1; y <= nranks / x; y++) {
			int z = nranks / x / y;
			if ((nranks / x) % y || (given[1] > 0 && given[1] != y) ||
			    (given[2] > 0 && given[2] != z))
				continue;
			/* the surface of one box, on a box no side of which is 0 */
			double a = fmax(ext[0], 1e-300) / x, b = fmax(ext[1], 1e-300) / y;
			double c = fmax(ext[2], 1e-300) / z;
			double area = a * b + b * c + a * c;
			if (area < best_area * (1 - 1e-12)) {
				best_area = area;
				best[0] = x, best[1] = y, best[2] = z;
			}
		}
	}
	if (!best[0])
		return -1;
	for (int k = 0; k < 3; k++)
		dims[k] = best[k];
	return 0;
}

void mrdem_rank_grid_init(struct mrdem_rank_grid *g, const int dims[3], const double lo[3],
			  const double hi[3])
{
	g->nranks = dims[0] * dims[1] * dims[2];
	for (int a = 0; a < 3; a++) {
		g->dims[a] = dims[a];
		g->cuts[a] = mrdem_xmalloc_array(dims[a] > 1 ? (size_t)dims[a] - 1 : 1,
						 sizeof *g->cuts[a]);
		for (int k = 1; k < dims[a]; k++)
			g->cuts[a][k - 1] = lo[a] + (hi[a] - lo[a]) * k / dims[a];
	}
}

void mrdem_rank_grid_release(struct mrdem_rank_grid *g)
{
	for (int a = 0; a < 3; a++)
		free(g->cuts[a]);
}

struct weighted {
	double x, w;
};

static int cmp_weighted(const void *p, const void *q)
{
	double a = ((const struct weighted *)p)->x, b = ((const struct weighted *)q)->x;
	return (a > b) - (a < b);
}

void mrdem_rank_grid_balance(struct mrdem_rank_grid *g, int a, const double *x, const double *w,
			     size_t n)
{
	int d = g->dims[a];
	if (d < 2 || n < 2)
		return;
	struct weighted *v = mrdem_xmalloc_array(n, sizeof *v);
	double total = 0;
	for (size_t i = 0; i < n; i++) {
		v[i].x = x[3 * i + a];
		v[i].w = w ? w[i] : 1.0;
		total += v[i].w;
	}
	qsort(v, n, sizeof *v, cmp_weighted);
	double sum = 0;
	size_t i = 0;
	for (int k = 1; k < d; k++) {
		double target = total * k / d;
		while (i + 1 < n && sum + v[i].w <= target)
			sum += v[i++].w;
		/* between the last point below the cut and the next, never
		 * below the previous cut */
		double c = i > 0 ? 0.5 * (v[i - 1].x + v[i].x) : v[0].x;
		g->cuts[a][k - 1] = k > 1 && c < g->cuts[a][k - 2] ? g->cuts[a][k - 2] : c;
	}
	free(v);
}

/* The slab of axis a that holds coordinate x: the number of cuts <= x. */
static int slab(const struct mrdem_rank_grid *g, int a, double x)
{
	int lo = 0, hi = g->dims[a] - 1;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (g->cuts[a][mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int mrdem_rank_grid_owner(const struct mrdem_rank_grid *g, const double x[3])
{
	return slab(g, 0, x[0]) + g->dims[0] * (slab(g, 1, x[1]) + g->dims[1] * slab(g, 2, x[2]));
}

void mrdem_rank_grid_cell(const struct mrdem_rank_grid *g, int rank, int c[3])
{
	c[0] = rank % g->dims[0];
	c[1] = rank / g->dims[0] % g->dims[1];
	c[2] = rank / (g->dims[0] * g->dims[1]);
}

static void slab_bounds(const struct mrdem_rank_grid *g, int a, int k, double *lo, double *hi)
{
	*lo = k > 0 ? g->cuts[a][k - 1] : -INFINITY;
	*hi = k < g->dims[a] - 1 ? g->cuts[a][k] : INFINITY;
}

void mrdem_rank_grid_box(const struct mrdem_rank_grid *g, int rank, double lo[3], double hi[3])
{
	int c[3];
	mrdem_rank_grid_cell(g, rank, c);
	for (int a = 0; a < 3; a++)
		slab_bounds(g, a, c[a], &lo[a], &hi[a]);
}

/* Squared distance from x to slab k of axis a (0 inside). */
static double slab_gap2(const struct mrdem_rank_grid *g, int a, int k, double x)
{
	double lo, hi;
	slab_bounds(g, a, k, &lo, &hi);
	double d = x < lo ? lo - x : x > hi ? x - hi : 0;
	return d * d;
}

int mrdem_rank_grid_reach(const struct mrdem_rank_grid *g, const double x[3], double r,
			  int *ranks)
{
	int lo[3], hi[3], n = 0;
	for (int a = 0; a < 3; a++) {
		lo[a] = slab(g, a, x[a] - r);
		hi[a] = slab(g, a, x[a] + r);
	}
	double r2 = r * r;
	for (int k = lo[2]; k <= hi[2]; k++)
		for (int j = lo[1]; j <= hi[1]; j++)
			for (int i = lo[0]; i <= hi[0]; i++)
				if (slab_gap2(g, 0, i, x[0]) + slab_gap2(g, 1, j, x[1]) +
					    slab_gap2(g, 2, k, x[2]) <= r2)
					ranks[n++] = i + g->dims[0] * (j + g->dims[1] * k);
	return n;
}

void mrdem_rank_grid_name(const struct mrdem_rank_grid *g, char *buf, size_t size)
{
	snprintf(buf, size, "%dx%dx%d", g->dims[0], g->dims[1], g->dims[2]);
}
