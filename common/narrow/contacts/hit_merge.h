/* Contact points of a particle pair's triangle hits, and the merge of
 * close ones (paper Sec. 2 and remark 1; docs/narrow-phase.md): a hit's
 * point is the centre of the halos' overlap on the segment between its
 * two closest points, in the world frame; hits whose points lie closer
 * than the mean halo merge into one contact, the hit of least distance of
 * its group. Private to common/narrow (particle_contacts.c). */
#ifndef MRDEM_NARROW_HIT_MERGE_H
#define MRDEM_NARROW_HIT_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "common/geom/xform.h"
#include "common/narrow/search/tree_search.h"
#include "common/narrow/tri/tri_batch.h"
#include "common/scene/contacts.h"
#include "common/scene/scene.h"
#include "common/tree/tree.h"

/* Scratch of mrdem_merge_close: the groups' seeds, and a grid over the points'
 * bounding box (cells of at least twice the merge radius). Each cell has
 * room for as many groups as it holds points (start: where its room
 * begins) and lists there the groups whose seeds it holds. */
struct mrdem_merge_grid {
	double *seed;         /* 3 per group */
	/* per hit the midpoint of its two points (a's frame): 3 each in
	 * merge_hits_scan, 3 columns of cap in merge_hits_peel; per group its
	 * seed's as 3 columns of cap */
	double *mid, *seed_col;
	/* the points to merge (3 each) and their distances (merge_hits_peel:
	 * of the hits left; merge_hits_scan: per group, its least); per
	 * group, the point it keeps */
	double *x, *dist;
	uint32_t *keep;
	uint32_t *slot_group; /* per slot: a group whose seed lies in the cell */
	size_t cap;
	uint32_t *start, *fill; /* per cell: its first slot, its seeds */
	size_t cells_cap;
	double lo[3], inv_edge; /* the grid's corner and 1 / cell edge */
	size_t dims[3];       /* cells along each axis */
	/* the groups of the cells from near[0] to near[1] on each axis (the
	 * last point's reach; cand_n = SIZE_MAX: none yet): consecutive points
	 * mostly reach the same cells, and a short list of them is cheaper
	 * to look at than cells */
	uint32_t *cand;
	size_t cand_n, near[2][3];
	/* merge_hits_scan's grid (lo, dims, inv_edge above; start and fill
	 * are each cell's first and last entry): a cell chains, in group
	 * order, every group whose seed's reach meets it, so that a point
	 * reads one cell's chain and its first group within reach is the
	 * lowest */
	struct mrdem_merge_chain_entry *ent;
	size_t ent_n, ent_cap;
	/* merge_hits_peel: per hit not yet in a group, its key (ta, tb) and
	 * place in the hits */
	uint64_t *key;
	uint32_t *left;
	unsigned char *odd; /* per block of 8 hits: those whose points coincide */
};
void mrdem_merge_grid_release(struct mrdem_merge_grid *m);

/* Where triangle hits of particles ia, ib (b mapped into a's frame by
 * x_b) become world-frame contacts. soup_b is b's soup in its own frame:
 * the face normal of touching triangles maps the one triangle it needs,
 * so the normal never depends on which of b's triangles a search happened
 * to map (an iterative hit can have coincident points at a distance > 0).
 * With trees (multiscale guesses) the hits are node pairs: halos and
 * triangles are the nodes'. */
struct mrdem_hit_frame {
	const struct mrdem_particles *p;
	size_t ia, ib;
	const double *com_a; /* a's centre of mass in its mesh frame */
	double ra[9];        /* a's rotation */
	const struct mrdem_xform *x_b;
	const float *soup_b;
	const struct mrdem_tree *node_a, *node_b;
};

void mrdem_hit_frame_init(struct mrdem_hit_frame *f, const struct mrdem_scene *s, size_t ia,
			  size_t ib, const struct mrdem_xform *x_b, const float *soup_b,
			  const struct mrdem_tree *node_a, const struct mrdem_tree *node_b);

/* Merge the contacts of c from first closer than radius in place: a group
 * keeps its member of least distance (the analytic kinds' contacts). */
void mrdem_merge_close(struct mrdem_merge_grid *m, struct mrdem_contacts *c, size_t first,
		       double radius);

/* The hits as contacts appended to out; with m, merged closer than radius
 * first: in one pass where they are certainly one contact whatever their
 * order (mrdem_hits_one_contact), else by a scan in (ta, tb) order.
 * sorter: NULL where the hits are in that order already, else the search
 * scratch that sorts them (mrdem_search_sort_hits) when the order matters.
 * simd: the level asked for (the points are the same bits at every
 * level). */
void mrdem_hits_to_contacts(const struct mrdem_hit_frame *f, struct mrdem_tri_hits *hits,
			    struct mrdem_merge_grid *m, double radius, int simd,
			    struct mrdem_tree_search *sorter, struct mrdem_contacts *out);

/* mrdem_hits_to_contacts' merge for hits in any order, where its result
 * is certainly one contact whatever the order: then appends it to out and
 * returns 1; else appends nothing and returns 0 (sort, then scan). */
int mrdem_hits_one_contact(const struct mrdem_hit_frame *f, const struct mrdem_tri_hits *hits,
			   double radius, struct mrdem_contacts *out);

#endif
