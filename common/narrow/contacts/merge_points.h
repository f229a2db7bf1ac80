/* The merge by its definition on points in order (remark 1): each point
 * joins the first group whose seed (its first point) lies within the
 * radius, and a group keeps its member of least distance. Used on the
 * analytic kinds' contacts and on hits where the midpoints cannot decide
 * (tree nodes' halos, coordinates that are not finite). */
#ifndef MRDEM_NARROW_MERGE_POINTS_H
#define MRDEM_NARROW_MERGE_POINTS_H

#include <stddef.h>
#include <stdint.h>

#include "common/narrow/contacts/hit_frame.h"
#include "common/narrow/contacts/merge_cells.h"

/* Scratch of the merge of points: the points and their groups, and past a
 * few groups a grid over the points' bounding box (cells of at least
 * twice the merge radius). Each cell has room for as many groups as it
 * holds points (start: where its room begins; fill: the groups it lists
 * there, those whose seeds it holds). */
struct mrdem_merge_points {
	double *x;            /* the points to merge, 3 each */
	double *dist;         /* per point its distance */
	double *seed;         /* per group its seed, 3 each */
	uint32_t *keep;       /* per group the point it keeps */
	uint32_t *slot_group; /* per slot: a group whose seed lies in the cell */
	size_t cap;
	struct mrdem_merge_cells cells;
	uint32_t *start, *fill;
	size_t cells_cap;
	/* the groups of the cells from near[0] to near[1] on each axis (the
	 * last point's reach; cand_n = SIZE_MAX: none yet): consecutive points
	 * mostly reach the same cells, and a short list of them is cheaper
	 * to look at than cells */
	uint32_t *cand;
	size_t cand_n, near[2][3];
};
void mrdem_merge_points_release(struct mrdem_merge_points *m);

/* Room for n points in m. */
void mrdem_merge_points_reserve(struct mrdem_merge_points *m, size_t n);

/* Merge the n points m->x (distances m->dist) closer than radius: the
 * groups, in order, and per group the point it keeps (m->keep). */
size_t mrdem_merge_points_groups(struct mrdem_merge_points *m, size_t n, double radius);

/* The hits' world points merged closer than radius, each group's kept hit
 * appended to out as a contact. simd: the level asked for (the points are
 * the same bits at every level). */
void mrdem_merge_hits_by_points(const struct mrdem_hit_frame *f, const struct mrdem_tri_hits *hits,
				struct mrdem_merge_points *m, double radius, int simd,
				struct mrdem_contacts *out);

/* mrdem_hit_point's world point for the 8 hits h[0..7] into xw (3 each),
 * with AVX-512, bit for bit, for the hits whose points differ; the others
 * (returned as a mask) are left to mrdem_hit_point. The halos ea, eb are
 * the particles' (no tree nodes). merge_points_avx512.c. */
unsigned mrdem_hit_points8_avx512(const struct mrdem_hit_frame *f, const struct mrdem_tri_hit *h,
				  double ea, double eb, double *xw);

#endif
