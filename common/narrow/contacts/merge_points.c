#include "common/narrow/contacts/merge_points.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"
#include "common/util/simd.h"

void mrdem_merge_points_release(struct mrdem_merge_points *m)
{
	free(m->x);
	free(m->dist);
	free(m->seed);
	free(m->keep);
	free(m->slot_group);
	free(m->start);
	free(m->fill);
	free(m->cand);
	memset(m, 0, sizeof *m);
}

void mrdem_merge_points_reserve(struct mrdem_merge_points *m, size_t n)
{
	if (n <= m->cap)
		return;
	m->x = mrdem_xrealloc_for(m->x, n, 3 * sizeof *m->x, "hits to merge");
	m->dist = mrdem_xrealloc_for(m->dist, n, sizeof *m->dist, "hits to merge");
	m->seed = mrdem_xrealloc_for(m->seed, n, 3 * sizeof *m->seed, "hits to merge");
	m->keep = mrdem_xrealloc_for(m->keep, n, sizeof *m->keep, "hits to merge");
	m->slot_group = mrdem_xrealloc_for(m->slot_group, n, sizeof *m->slot_group, "hits to merge");
	m->cand = mrdem_xrealloc_for(m->cand, n, sizeof *m->cand, "hits to merge");
	m->cap = n;
}

/* A grid over the n points m->x: cells of edge 2 r or more, at most
 * max(64, 2 n) of them. Fails (0) on coordinates that are not finite;
 * the caller scans the groups then. */
static int grid_setup(struct mrdem_merge_points *m, size_t n, double radius)
{
	double lo[3], hi[3];
	for (int a = 0; a < 3; a++)
		lo[a] = hi[a] = m->x[a];
	for (size_t i = 1; i < n; i++)
		for (int a = 0; a < 3; a++) {
			double v = m->x[3 * i + a];
			lo[a] = v < lo[a] ? v : lo[a];
			hi[a] = v > hi[a] ? v : hi[a];
		}
	for (int a = 0; a < 3; a++)
		if (!isfinite(lo[a]) || !isfinite(hi[a]))
			return 0;
	size_t cells = mrdem_merge_cells_shape(&m->cells, lo, hi, 2 * radius, n);
	if (!cells)
		return 0;
	mrdem_merge_cells_reserve(&m->start, &m->fill, &m->cells_cap, cells);
	m->cand_n = SIZE_MAX;
	/* each cell's room: the points in it, counted */
	memset(m->fill, 0, cells * sizeof *m->fill);
	for (size_t i = 0; i < n; i++)
		m->fill[mrdem_merge_cell_of(&m->cells, &m->x[3 * i])]++;
	for (size_t k = 0, at = 0; k < cells; k++) {
		m->start[k] = (uint32_t)at;
		at += m->fill[k];
		m->fill[k] = 0;
	}
	return 1;
}

/* The first group (lowest index) whose seed lies within sqrt(r2) of x: on
 * each axis those seeds lie in the cells that [x - r, x + r] meets (two
 * at most; rounding is monotone, so the computed bounds keep them). Every
 * group of those cells is looked at, in no particular order. */
static uint32_t grid_find(struct mrdem_merge_points *m, const double x[3], double r, double r2)
{
	size_t k[2][3];
	for (int a = 0; a < 3; a++) {
		k[0][a] = mrdem_merge_cell(&m->cells, a, x[a] - r);
		k[1][a] = mrdem_merge_cell(&m->cells, a, x[a] + r);
	}
	if (m->cand_n == SIZE_MAX || memcmp(k, m->near, sizeof k)) {
		memcpy(m->near, k, sizeof k);
		m->cand_n = 0;
		for (size_t i = k[0][0]; i <= k[1][0]; i++)
			for (size_t j = k[0][1]; j <= k[1][1]; j++)
				for (size_t l = k[0][2]; l <= k[1][2]; l++) {
					size_t cell = mrdem_merge_cell_at(&m->cells, i, j, l);
					for (uint32_t q = 0; q < m->fill[cell]; q++)
						m->cand[m->cand_n++] = m->slot_group[m->start[cell] + q];
				}
	}
	uint32_t best = MRDEM_MERGE_NONE;
	for (size_t c = 0; c < m->cand_n; c++) {
		uint32_t g = m->cand[c];
		double d[3];
		vec3_sub(d, x, &m->seed[3 * (size_t)g]);
		best = vec3_norm2(d) < r2 && g < best ? g : best;
	}
	return best;
}

/* Put group g (seed already stored) into its cell, and into the list of
 * the last point's cells if it lies there. */
static void grid_insert(struct mrdem_merge_points *m, size_t g)
{
	const double *x = &m->seed[3 * g];
	size_t k[3];
	int near = m->cand_n != SIZE_MAX;
	for (int a = 0; a < 3; a++) {
		k[a] = mrdem_merge_cell(&m->cells, a, x[a]);
		near &= m->near[0][a] <= k[a] && k[a] <= m->near[1][a];
	}
	size_t cell = mrdem_merge_cell_at(&m->cells, k[0], k[1], k[2]);
	m->slot_group[m->start[cell] + m->fill[cell]++] = (uint32_t)g;
	if (near)
		m->cand[m->cand_n++] = (uint32_t)g;
}

/* Of the n points m->x (room reserved), in list order, each joins the
 * first group within reach of its seed (the first member's point), and a
 * group keeps its deepest member (smallest m->dist, the first on ties).
 * The lists arrive sorted by triangle ids, so the result does not depend
 * on how they were found. While there are few groups a scan of them is
 * cheapest; past MRDEM_MERGE_GRID_GROUPS they go into a grid of cells of at
 * least twice the radius over the points' bounding box, and a point looks
 * at the (at most 8) cells its reach meets, so the cost grows with the
 * points, not points times groups. Both find the same group. */
size_t mrdem_merge_points_groups(struct mrdem_merge_points *m, size_t n, double radius)
{
	size_t kept = 0;
	double r2 = radius * radius;
	/* grid: in use; tried: decided, once, when the groups got many */
	int grid = 0, tried = !(radius > 0);
	for (size_t i = 0; i < n; i++) {
		const double *xi = &m->x[3 * i];
		uint32_t g = MRDEM_MERGE_NONE;
		if (!tried && kept >= MRDEM_MERGE_GRID_GROUPS) {
			tried = 1;
			if ((grid = grid_setup(m, n, radius)))
				for (size_t h = 0; h < kept; h++)
					grid_insert(m, h);
		}
		if (grid) {
			g = grid_find(m, xi, radius, r2);
		} else {
			for (size_t h = 0; h < kept && g == MRDEM_MERGE_NONE; h++) {
				double d[3];
				vec3_sub(d, xi, &m->seed[3 * h]);
				if (vec3_norm2(d) < r2)
					g = (uint32_t)h;
			}
		}
		if (g == MRDEM_MERGE_NONE) {
			/* A new group: its first member's point steers grouping. */
			vec3_copy(&m->seed[3 * kept], xi);
			if (grid)
				grid_insert(m, kept);
			m->keep[kept++] = (uint32_t)i;
		} else if (m->dist[i] < m->dist[m->keep[g]]) {
			m->keep[g] = (uint32_t)i;
		}
	}
	return kept;
}

void mrdem_merge_hits_by_points(const struct mrdem_hit_frame *f, const struct mrdem_tri_hits *hits,
				struct mrdem_merge_points *m, double radius, int simd,
				struct mrdem_contacts *out)
{
	size_t n = hits->n, k = 0;
	mrdem_merge_points_reserve(m, n);
#if MRDEM_SIMD_X86
	if (!f->node_a && !f->node_b && mrdem_simd_resolve(simd) == MRDEM_SIMD_AVX512) {
		/* mrdem_hit_point's halos without tree nodes */
		double ea = f->p->eps[f->ia] + 0, eb = f->p->eps[f->ib] + 0;
		for (; k + 8 <= n; k += 8) {
			unsigned rest = mrdem_hit_points8_avx512(f, &hits->h[k], ea, eb, &m->x[3 * k]);
			for (; rest; rest &= rest - 1) {
				size_t i = k + (size_t)__builtin_ctz(rest);
				double normal[3], a, b;
				mrdem_hit_point(f, &hits->h[i], &m->x[3 * i], normal, &a, &b);
			}
		}
	}
#else
	(void)simd;
#endif
	for (; k < n; k++) {
		double normal[3], ea, eb;
		mrdem_hit_point(f, &hits->h[k], &m->x[3 * k], normal, &ea, &eb);
	}
	for (k = 0; k < n; k++)
		m->dist[k] = hits->h[k].dist;
	size_t kept = mrdem_merge_points_groups(m, n, radius);
	for (size_t g = 0; g < kept; g++)
		mrdem_hit_contact(f, &hits->h[m->keep[g]], out);
}
