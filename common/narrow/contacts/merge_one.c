/* The merge of a pair's hits where its result does not depend on their
 * order (mrdem_hits_one_contact, merge_one.h): when every hit's midpoint
 * lies certainly within the merge radius of every other's (their
 * bounding box against the scan's inner radius, with room to spare for
 * rounding), the scan (merge_scan.h) puts them all in the group of its
 * first hit, whichever that is, and keeps the hit of least distance, the
 * first in (ta, tb) order among equals. That hit, found in one pass over
 * hits in any order, is then the one contact: the sort that the scan
 * needs is not needed. On the paper's lattice every pair's hits are one
 * contact; a pole pair's 1,296 all tie on distance up to rounding. */
#include "common/narrow/contacts/merge_one.h"

#include <math.h>

/* What one pass over the hits finds: their midpoints' box, the hit of
 * least key (the scan's first seed), the hit of least (distance, key),
 * the largest point coordinate. */
struct one_pass {
	double lo[3], hi[3];
	size_t first, least;
	float big;
};

/* The pass, in blocks without an exit and the checks after each. Fails
 * (0) on hits that coincide or are not finite, or a box wider than
 * twice the radius. */
static int one_pass(const struct mrdem_tri_hits *hits, double r2, struct one_pass *o)
{
	const struct mrdem_tri_hit *h = hits->h;
	size_t n = hits->n, first = 0, least = 0;
	/* the midpoints' box in scalars (registers, not a store and load per
	 * hit) */
	double lo0 = INFINITY, lo1 = INFINITY, lo2 = INFINITY;
	double hi0 = -INFINITY, hi1 = -INFINITY, hi2 = -INFINITY;
	uint64_t key_first = (uint64_t)h[0].ta << 32 | h[0].tb, key_least = key_first;
	float big = 0, dist_least = h[0].dist;
	for (size_t i0 = 0; i0 < n; i0 += 32) {
		int odd = 0;
		for (size_t i = i0; i < n && i < i0 + 32; i++) {
			const struct mrdem_tri_hit *q = &h[i];
			/* coincident points: the scan takes their world point
			 * (b's normal), which may not be finite; NaN: no
			 * certain group (an infinite midpoint fails the box) */
			odd |= (q->pa[0] == q->pb[0]) & (q->pa[1] == q->pb[1]) &
			       (q->pa[2] == q->pb[2]);
			odd |= isnan(q->dist);
			double x0 = 0.5 * ((double)q->pa[0] + (double)q->pb[0]);
			double x1 = 0.5 * ((double)q->pa[1] + (double)q->pb[1]);
			double x2 = 0.5 * ((double)q->pa[2] + (double)q->pb[2]);
			odd |= isnan(x0) | isnan(x1) | isnan(x2);
			lo0 = x0 < lo0 ? x0 : lo0, hi0 = x0 > hi0 ? x0 : hi0;
			lo1 = x1 < lo1 ? x1 : lo1, hi1 = x1 > hi1 ? x1 : hi1;
			lo2 = x2 < lo2 ? x2 : lo2, hi2 = x2 > hi2 ? x2 : hi2;
			for (int c = 0; c < 3; c++) {
				float u = fabsf(q->pa[c]) > fabsf(q->pb[c]) ? fabsf(q->pa[c])
									    : fabsf(q->pb[c]);
				big = u > big ? u : big;
			}
			uint64_t key = (uint64_t)q->ta << 32 | q->tb;
			if (key < key_first)
				first = i, key_first = key;
			if (q->dist < dist_least || (q->dist == dist_least && key < key_least))
				least = i, key_least = key, dist_least = q->dist;
		}
		/* every midpoint within the radius of one: a box of 2 radii */
		double e2 = (hi0 - lo0) * (hi0 - lo0) + (hi1 - lo1) * (hi1 - lo1) +
			    (hi2 - lo2) * (hi2 - lo2);
		if (odd || !(e2 < 12 * r2))
			return 0;
	}
	*o = (struct one_pass){{lo0, lo1, lo2}, {hi0, hi1, hi2}, first, least, big};
	return 1;
}

/* Whether every midpoint lies within the inner radius of the first hit's,
 * which seeds the scan's group: the farthest corner of the box, widened
 * by far more than the rounding of the scan's differences and squares;
 * else each midpoint, by the scan's own test. */
static int one_within(const struct mrdem_tri_hits *hits, const struct one_pass *o, double in2)
{
	const struct mrdem_tri_hit *h = hits->h;
	double s[3], d2 = 0;
	for (int c = 0; c < 3; c++) {
		s[c] = 0.5 * ((double)h[o->first].pa[c] + (double)h[o->first].pb[c]);
		double far = o->hi[c] - s[c] > s[c] - o->lo[c] ? o->hi[c] - s[c] : s[c] - o->lo[c];
		d2 += far * far;
	}
	if (d2 * (1 + 1e-9) < in2)
		return 1;
	for (size_t i = 0; i < hits->n; i++) {
		double d[3];
		for (int c = 0; c < 3; c++)
			d[c] = 0.5 * ((double)h[i].pa[c] + (double)h[i].pb[c]) - s[c];
		if (!(vec3_norm2(d) < in2))
			return 0;
	}
	return 1;
}

/* Where that is not certain (hits that coincide or are not finite, tree
 * nodes, a merge radius that is not positive), nothing is written and 0
 * returned: the caller sorts and merges. */
int mrdem_hits_one_contact(const struct mrdem_hit_frame *f, const struct mrdem_tri_hits *hits,
			   double radius, struct mrdem_contacts *out)
{
	if (hits->n < 2 || f->node_a || f->node_b || !(radius > 0 && radius < INFINITY))
		return 0;
	struct one_pass o;
	if (!one_pass(hits, radius * radius, &o))
		return 0;
	struct mrdem_merge_radii r = mrdem_merge_radii(f, radius, o.big);
	if (!(r.rin > 0) || !one_within(hits, &o, r.in2))
		return 0;
	/* the seed's world point must be finite, or the scan compares others
	 * by world points */
	double xi[3], normal[3], a, b;
	mrdem_hit_point(f, &hits->h[o.first], xi, normal, &a, &b);
	if (!mrdem_point_finite(xi))
		return 0;
	mrdem_hit_contact(f, &hits->h[o.least], out);
	return 1;
}
