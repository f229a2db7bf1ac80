#include "common/narrow/search/front_search.h"

/* Cap on a front's iterations at one pose. A front from the roots settles
 * within about the trees' depths together; pins keep unfolds and narrows
 * from cycling (front_search.h). The cap only bounds a front that somehow
 * keeps moving: the caller then searches from the roots. */
#define SETTLE_MAX_ITERATIONS 512

int mrdem_front_settle(struct mrdem_tree_search *s, struct mrdem_front *fr,
		       const struct mrdem_search_side *a, const struct mrdem_search_side *b,
		       const struct mrdem_xform *xb, const struct mrdem_narrow_opts *o,
		       struct mrdem_tri_hits *hits, struct mrdem_tri_hits *guesses,
		       struct mrdem_search_counts *cnt, struct mrdem_front_counts *fc)
{
	size_t first = hits->n, gfirst = guesses->n;
	mrdem_front_new_step(fr);
	for (int it = 1; it <= SETTLE_MAX_ITERATIONS; it++) {
		uint64_t unfolds = fc->unfolds;
		hits->n = first;
		guesses->n = gfirst;
		mrdem_front_search(s, fr, a, b, xb, o, hits, guesses, cnt, fc);
		if (fc->unfolds == unfolds) {
			/* nothing unfolded: no node pair was in contact or undecided */
			int settled = guesses->n == gfirst;
			guesses->n = gfirst;
			if (!settled)
				hits->n = first;
			return settled ? it : -1;
		}
	}
	hits->n = first;
	guesses->n = gfirst;
	return -1;
}
