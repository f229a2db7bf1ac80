/* The merge of hits sorted by (ta, tb) by their midpoints (a's frame),
 * without the world point of every hit: two hits' midpoints settle
 * whether their world points lie within the merge radius except in a
 * band around it (mrdem_merge_radii); only there, and for the seeds, are
 * world points computed, and compared as merge_points.c compares them.
 * The groups and kept hits are merge_points.c's: a comparison settled by
 * midpoints is one whose computed result is certain. */
#ifndef MRDEM_NARROW_MERGE_SCAN_H
#define MRDEM_NARROW_MERGE_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "common/narrow/contacts/hit_frame.h"
#include "common/narrow/contacts/merge_cells.h"

/* An entry of a cell's chain: a group, its seed's midpoint (so that a hit
 * reads one line per group it looks at), the next entry. */
struct mrdem_merge_chain_entry {
	double mid[3];
	uint32_t group, next;
};

/* Scratch of the scan, and past a few groups a grid over the midpoints
 * where a cell chains, in group order, every group whose seed's reach
 * meets it, so that a hit reads one cell's chain and its first group
 * within reach is the lowest. */
struct mrdem_merge_scan {
	double *mid;      /* per hit the midpoint of its two points, 3 each */
	double *seed;     /* per group its seed's world point, 3 each */
	/* per group its seed's midpoint, as 3 columns of cap (NaN where the
	 * seed's world point is not finite, so that it is always compared
	 * by that point) */
	double *seed_mid;
	double *dist;     /* per group its least distance */
	uint32_t *keep;   /* per group the hit it keeps */
	size_t cap;
	struct mrdem_merge_cells cells;
	uint32_t *head, *tail; /* per cell its chain's first and last entry */
	size_t cells_cap;
	struct mrdem_merge_chain_entry *ent;
	size_t ent_n, ent_cap;
};
void mrdem_merge_scan_release(struct mrdem_merge_scan *m);

/* The groups of the hits (halos the particles', radius > 0 and finite),
 * per group its kept hit in m->keep. big0: the largest point coordinate
 * of hits merged before these (merge_peel_avx512.c), so that the band is
 * the one of all the pair's hits. Returns SIZE_MAX where the grid cannot
 * be laid (reach or midpoints not finite): the caller then merges with
 * every world point. simd: the level asked for. */
size_t mrdem_merge_scan(const struct mrdem_hit_frame *f, const struct mrdem_tri_hits *hits,
			struct mrdem_merge_scan *m, double radius, int simd, float big0);

#endif
