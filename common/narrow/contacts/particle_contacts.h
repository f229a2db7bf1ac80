/* Contact points of a frame: every candidate pair of particles (or of a
 * particle and an analytic plane) through the narrow phase, with the flat
 * search (Alg. 2) or the surrogate-tree search (Alg. 5), then contact
 * points per paper Sec. 2 and merging of close-by points (remark 1).
 *
 * Both particles of a pair are tested in the first one's shape frame: the
 * second one's triangles are mapped into it (common/geom/xform.h), never
 * stored per particle in world space. Pairs run in parallel and their
 * contacts are concatenated in pair order, each pair's sorted by triangle
 * ids, so the list does not depend on the number of threads. */
#ifndef MRDEM_NARROW_PARTICLE_CONTACTS_H
#define MRDEM_NARROW_PARTICLE_CONTACTS_H

#include <stdint.h>

#include "common/narrow/analytic/analytic_contacts.h"
#include "common/narrow/analytic/convex_track.h"
#include "common/narrow/contacts/contact_opts.h"
#include "common/narrow/search/front_search.h"
#include "common/narrow/search/front_store.h"
#include "common/narrow/search/tree_search.h"
#include "common/narrow/tri/tri_batch.h"
#include "common/scene/scene.h"
#include "common/scene/contacts.h"
#include "common/scene/pairs.h"
#include "common/scene/stats.h"
#include "common/util/stages.h"

struct mrdem_contact_counts {
	/* triangle comparisons by search round; the flat search and the real
	 * triangles of the surrogate search count under .real */
	struct mrdem_search_counts search;
	uint64_t particle_pairs;  /* particle-particle pairs examined */
	uint64_t plane_pairs;     /* particle-plane pairs examined */
	uint64_t plane_tests;     /* vertex-plane distance tests */
	uint64_t hits;            /* triangle pairs / vertices in contact */
	uint64_t contacts;        /* contact points after merging */
	struct mrdem_front_counts front; /* multiscale: the fronts' work */
	struct mrdem_analytic_counts analytic; /* pairs with an analytic shape */
	struct mrdem_convex_counts convex;     /* pairs of two convex shapes */
};
/* Workspace reused from step to step (per-thread kernels' scratch and a
 * float copy of each shape's triangles). Not shared between calls running
 * at the same time. */
struct mrdem_contact_finder;
struct mrdem_contact_finder *mrdem_contact_finder_new(void);
void mrdem_contact_finder_free(struct mrdem_contact_finder *f);
/* Add the times and work of the calls since the last take (stages search,
 * kernels, fallback, merge and the counters, common/util/stages.h) to
 * into, and start afresh. */
void mrdem_contact_finder_take_log(struct mrdem_contact_finder *f, struct mrdem_stage_log *into);

/* Contacts of s->frame for the candidate pairs (NULL: every pair of
 * particles that are not both fixed, and every particle with every plane)
 * into out (replaced; out->step = the frame's step). Each pair goes to the
 * kernel of its two shape kinds: two meshes to the triangle search below,
 * a pair with an analytic shape (or an analytic shape and a plane) to
 * common/narrow/analytic/analytic_contacts.h; the surrogate hierarchy prunes the
 * mesh side of analytic-mesh pairs with its tree. Two convex shapes are
 * first decided by closest-feature tracking (common/narrow/analytic/convex_track.h,
 * warm-started from the features this finder found for the pair in its
 * last call): beyond both halos they are apart, else their hull meshes
 * go through the triangle search as any two meshes. Returns 0, or -1 with
 * a message: unknown particle ids in the pairs, or the surrogate hierarchy
 * asked for with a mesh shape that has no tree. */
int mrdem_find_contacts(struct mrdem_contact_finder *f, const struct mrdem_scene *s,
			const struct mrdem_pairs *pairs, const struct mrdem_contact_opts *o,
			struct mrdem_contacts *out, struct mrdem_contact_counts *cnt);

/* One Picard iteration of the multiscale search (Alg. 6): as
 * mrdem_find_contacts with the surrogate hierarchy, but each particle pair
 * is searched on its front (common/narrow/search/front_search.h), which then
 * unfolds and narrows. Real contacts go to out; node pairs in contact go
 * to guesses (replaced) as contacts between the two surrogates: tri_a and
 * tri_b are node indices, and depth + dist is the nodes' halo
 * (tree eps + the particle's) instead of eps_a + eps_b. Analytic planes
 * are searched as always. cnt->front counts the fronts' work. Scenes with
 * analytic shapes are refused (fronts are of two trees). */
int mrdem_find_contacts_multiscale(struct mrdem_contact_finder *f, const struct mrdem_scene *s,
				   const struct mrdem_pairs *pairs,
				   const struct mrdem_contact_opts *o,
				   struct mrdem_front_store *fronts, struct mrdem_contacts *out,
				   struct mrdem_contacts *guesses,
				   struct mrdem_contact_counts *cnt);

#endif
