#include "common/narrow/contacts/merge.h"

#include <math.h>

#include "common/narrow/search/search_scratch.h"
#include "common/util/simd.h"

/* The peel for pairs of at most this many hits: a pass per group over the
 * hits left is cheaper than sorting them while the groups are few, and
 * with few hits the passes it can waste before it stops (8 per hit at
 * most) are few too */
#define MERGE_PEEL_HITS 256

void mrdem_merge_scratch_release(struct mrdem_merge_scratch *m)
{
	mrdem_merge_points_release(&m->points);
	mrdem_merge_scan_release(&m->scan);
	mrdem_merge_peel_release(&m->peel);
}

/* A group's kept member comes at or after the group's place, so the list
 * compacts in place. */
void mrdem_merge_close(struct mrdem_merge_scratch *m, struct mrdem_contacts *c, size_t first,
		       double radius)
{
	struct mrdem_merge_points *p = &m->points;
	size_t n = c->n - first;
	if (n < 2)
		return;
	mrdem_merge_points_reserve(p, n);
	for (size_t i = 0; i < n; i++) {
		vec3_copy(&p->x[3 * i], c->c[first + i].x);
		p->dist[i] = c->c[first + i].dist;
	}
	size_t kept = mrdem_merge_points_groups(p, n, radius);
	for (size_t g = 0; g < kept; g++)
		c->c[first + g] = c->c[first + p->keep[g]];
	c->n = first + kept;
}

/* With m, only the kept hits become contacts, the same as
 * mrdem_merge_close on all of them (the definition on the hits' points). */
void mrdem_hits_to_contacts(const struct mrdem_hit_frame *f, struct mrdem_tri_hits *hits,
			    struct mrdem_merge_scratch *m, double radius, int simd,
			    struct mrdem_tree_search *sorter, struct mrdem_contacts *out)
{
	if (m && mrdem_hits_one_contact(f, hits, radius, out))
		return;
	/* the midpoints decide with the particles' halos alone */
	int by_mid = !f->node_a && !f->node_b && radius > 0 && isfinite(radius);
	/* few hits: their groups one by one without a sort, as far as that
	 * pays; the scan merges the rest */
	float big = 0;
#if MRDEM_SIMD_X86
	if (m && by_mid && hits->n >= 2 && hits->n <= MERGE_PEEL_HITS &&
	    mrdem_simd_resolve(simd) == MRDEM_SIMD_AVX512)
		big = mrdem_merge_peel_avx512(f, hits, &m->peel, radius, out);
#endif
	if (sorter)
		mrdem_search_sort_hits(sorter, hits, 0);
	size_t n = hits->n;
	if (!m || n < 2) {
		for (size_t k = 0; k < n; k++)
			mrdem_hit_contact(f, &hits->h[k], out);
		return;
	}
	if (by_mid) {
		size_t kept = mrdem_merge_scan(f, hits, &m->scan, radius, simd, big);
		if (kept != SIZE_MAX) {
			for (size_t g = 0; g < kept; g++)
				mrdem_hit_contact(f, &hits->h[m->scan.keep[g]], out);
			return;
		}
	}
	mrdem_merge_hits_by_points(f, hits, &m->points, radius, simd, out);
}
