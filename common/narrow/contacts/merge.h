/* Contact points of a particle pair's triangle hits, and the merge of
 * close ones (paper Sec. 2 and remark 1; docs/narrow-phase.md): hits
 * whose points (hit_frame.h) lie closer than the mean halo merge into one
 * contact, the hit of least distance of its group. The merge has four
 * ways to the same groups, chosen here: one pass where the hits are
 * certainly one contact (merge_one.h), group by group for few hits with
 * AVX-512 (merge_peel.h), a scan of the sorted hits by their midpoints
 * (merge_scan.h), and the definition on world points (merge_points.h).
 * Private to common/narrow (particle_contacts.c). */
#ifndef MRDEM_NARROW_MERGE_H
#define MRDEM_NARROW_MERGE_H

#include <stddef.h>

#include "common/narrow/contacts/hit_frame.h"
#include "common/narrow/contacts/merge_one.h"
#include "common/narrow/contacts/merge_peel.h"
#include "common/narrow/contacts/merge_points.h"
#include "common/narrow/contacts/merge_scan.h"
#include "common/narrow/search/tree_search.h"
#include "common/scene/contacts.h"

/* Scratch of the merges, each its own. */
struct mrdem_merge_scratch {
	struct mrdem_merge_points points;
	struct mrdem_merge_scan scan;
	struct mrdem_merge_peel peel;
};
void mrdem_merge_scratch_release(struct mrdem_merge_scratch *m);

/* Merge the contacts of c from first closer than radius in place: a group
 * keeps its member of least distance (the analytic kinds' contacts). */
void mrdem_merge_close(struct mrdem_merge_scratch *m, struct mrdem_contacts *c, size_t first,
		       double radius);

/* The hits as contacts appended to out; with m, merged closer than radius
 * first: in one pass where they are certainly one contact whatever their
 * order (mrdem_hits_one_contact), else by a scan in (ta, tb) order.
 * sorter: NULL where the hits are in that order already, else the search
 * scratch that sorts them (mrdem_search_sort_hits) when the order matters.
 * simd: the level asked for (the points are the same bits at every
 * level). */
void mrdem_hits_to_contacts(const struct mrdem_hit_frame *f, struct mrdem_tri_hits *hits,
			    struct mrdem_merge_scratch *m, double radius, int simd,
			    struct mrdem_tree_search *sorter, struct mrdem_contacts *out);

#endif
