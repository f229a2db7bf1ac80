/* Distance between two convex shapes by closest-feature tracking
 * (Schinner's Voronoi-region walk for polygons, in 3D after Lin and Canny
 * 1991): a pair of features (vertex, edge or face of each side,
 * common/shape/convex.h) is the state. Each step takes the closest points
 * of the two features, tests each against the other feature's Voronoi
 * region, and moves the feature whose region is violated to the
 * neighbour across the violated plane (the most violated one). When both
 * points lie in the other feature's region, each is the closest point of
 * its polyhedron to the other: they are the closest pair, their distance
 * the exact distance. Started from the last step's features (warm) the
 * walk takes a step or two; from scratch (cold) it starts at the
 * vertices that reach furthest towards each other.
 *
 * When the walk finds the shapes intersecting (a point of one below every
 * face plane of the other, or two features within the shapes' tolerances,
 * MRDEM_CONVEX_TOL_REL of their radii), it stops there with distance 0:
 * the contact decision needs no more. When it runs longer than
 * 64 + V_a + V_b steps (a cycle between features at the same distance),
 * the distance comes from GJK on the two vertex sets (common/shape/gjk.h)
 * and the result says so. */
#ifndef MRDEM_NARROW_CONVEX_TRACK_H
#define MRDEM_NARROW_CONVEX_TRACK_H

#include <stdint.h>

#include "common/geom/xform.h"
#include "common/scene/stats.h"
#include "common/shape/convex.h"

enum { MRDEM_FEAT_VERTEX = 0, MRDEM_FEAT_EDGE = 1, MRDEM_FEAT_FACE = 2 };

/* A feature pair: what a warm start keeps between steps. */
struct mrdem_feature_pair {
	uint8_t ta, tb;   /* MRDEM_FEAT_* */
	uint8_t valid;    /* 0: start cold */
	uint32_t ia, ib;
};

struct mrdem_convex_result {
	double dist;            /* >= 0; 0 when the shapes intersect */
	double pa[3], pb[3];    /* closest points, in a's shape frame (apart only) */
	int steps;              /* walk steps (closest points of a feature pair) */
	int fallback;           /* 1: the distance is GJK's (the walk cycled) */
	int intersect;          /* 1: the shapes intersect or touch */
};

/* Distance between convex a and b, b placed in a's frame by x (b's shape
 * frame to a's). fp: the start (valid = 0: cold) and, on return, the
 * closest features found (where the walk stopped when they intersect;
 * valid = 0 after a fallback). */
void mrdem_convex_distance(const struct mrdem_convex *a, const struct mrdem_convex *b,
			   const struct mrdem_xform *x, struct mrdem_feature_pair *fp,
			   struct mrdem_convex_result *r);

/* Work of the contact decision of convex pairs (particle_contacts.c). */
struct mrdem_convex_counts {
	uint64_t pairs;     /* convex-convex particle pairs decided by tracking */
	uint64_t apart;     /* of those, found beyond both halos (no triangle search) */
	uint64_t steps;     /* walk steps */
	uint64_t fallbacks; /* distances from GJK instead */
};
void mrdem_convex_counts_add(struct mrdem_convex_counts *into,
			     const struct mrdem_convex_counts *c);
/* convex_pairs and convex_apart, when there were convex pairs. The walk
 * steps and fallbacks depend on where each walk started (the features a
 * process kept from the last step), so they stay out of the stream,
 * which must not depend on it (mrdem-run --via-pipes starts every step
 * cold): mrdem-run's summary prints them. */
void mrdem_convex_counts_stats(const struct mrdem_convex_counts *c, struct mrdem_stats *out);

/* The same distance by GJK on the vertex sets (the fallback). */
void mrdem_convex_gjk(const struct mrdem_convex *a, const struct mrdem_convex *b,
		      const struct mrdem_xform *x, struct mrdem_convex_result *r);

#endif
