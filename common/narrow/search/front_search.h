/* Persistent active sets of multiscale Picard (paper Alg. 6, Sec. 5.3).
 *
 * The front of a particle pair is its active set: node pairs (one surrogate
 * node of each particle) and pairs of real triangles that together cover
 * every pair of real triangles exactly once. It starts at the two roots and
 * lives across the Picard iterations of a time step (and, warm-started,
 * across steps). Each iteration tests every pair of the front once, then
 *   - unfolds a node pair that reports contact or "not converged" one level
 *     on each side (both leaves: into their real triangle pairs), to be
 *     tested in the next iteration: at most one level per iteration;
 *   - narrows: every unfolded pair is tested again; when it separates, no
 *     real pair beneath it can touch (conservative halos), so everything
 *     beneath is replaced by the pair again (the topmost such pair wins)
 *     and the pair goes into the memory set. Testing the pair itself, not
 *     only its members, matters: a child surrogate's halo need not lie in
 *     its parent's, so members can report contact beneath a separate pair.
 *     An unfolded pair with a real contact beneath cannot separate and is
 *     not tested;
 *   - a pair unfolded again after it was narrowed in the same step is
 *     pinned: neither it nor a pair above it narrows again in the step
 *     (remark 5), so that unfolding and narrowing cannot cycle.
 * Real pairs use the flat search's kernels, halos and float triangles, with
 * the comparison fallback for undecided pairs; node pairs never fall back.
 *
 * Motion bound: a front keeps a certificate pose of b (in a's frame). A
 * pair new since then is first tested with both halos widened by a margin
 * (a tenth of the two particles' halos) plus b's motion since the
 * certificate; found apart, it is FAR and not tested again while every
 * point of b stays within the margin of where it was at the certificate
 * (|R - Rc|_F r + |t - tc|, r bounding b's tree about its origin). Between
 * Picard iterations, and across warm-started steps, b moves far less than
 * a halo, so most of the front is FAR. When b has moved further, a new
 * certificate is taken and every pair is tested again. A FAR pair is
 * apart with the true halos too, so no contact beneath it is lost (Lemma
 * 5.7 holds); testing it would find it apart as well, except that the
 * iterative kernel can leave a node pair undecided (not converged), which
 * then unfolds: the bound spares such unfolds. Steady iterations (nothing
 * unfolds or narrows) touch only the pairs that are not FAR.
 * A separate node pair has no real contact beneath it (conservative halos),
 * so once an iteration unfolds nothing, its real contacts are exactly the
 * flat search's (Lemma 5.7). Node pairs in contact are handed back as
 * guesses, for damped force guesses (remark 5). */
#ifndef MRDEM_NARROW_FRONT_SEARCH_H
#define MRDEM_NARROW_FRONT_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "common/narrow/search/tree_search.h"

struct mrdem_front;
struct mrdem_front *mrdem_front_new(void);
void mrdem_front_free(struct mrdem_front *fr);
/* Back to the two roots, memory set emptied (a new step, cold start). */
void mrdem_front_reset(struct mrdem_front *fr);
/* Keep the pairs, empty the memory set and unpin (a new step, warm start). */
void mrdem_front_new_step(struct mrdem_front *fr);
/* Pairs on the front (node pairs plus real pairs). */
size_t mrdem_front_size(const struct mrdem_front *fr);

/* A front as plain arrays, for the fronts record (docs/stream-format.md):
 * its pairs (a, b, group, real, standing: 5 values each; group UINT32_MAX
 * for the roots'; standing 0 uncertified, 1 far, 2 near), its unfolded
 * pairs (a, b, group, members, pinned: 5 each, parents first), its memory
 * set (a << 32 | b) and the motion bound's certificate: whether there is
 * one, the halos then, the radius of b's tree and b's pose in a's frame
 * (rotation row-major, translation). */
struct mrdem_front_arrays {
	size_t npairs, ngroups, nmemory;
	uint32_t *pairs, *groups;
	uint64_t *memory;
	int certified;
	float cert_eps;
	double radius_b, cert[12];
};
#define MRDEM_FRONT_PAIR_VALUES 5
#define MRDEM_FRONT_GROUP_VALUES 5
/* Copy of the front's arrays (malloc'd; mrdem_front_arrays_release). */
void mrdem_front_save(const struct mrdem_front *fr, struct mrdem_front_arrays *out);
/* A front from arrays, after checking how they refer to each other.
 * Returns NULL with a message (prefixed by what) when they do not form a
 * front. */
struct mrdem_front *mrdem_front_load(const struct mrdem_front_arrays *in, const char *what);
void mrdem_front_arrays_release(struct mrdem_front_arrays *a);
/* Whether every node and triangle of the front exists in trees ta and tb:
 * 0, or -1 (no message). */
int mrdem_front_fits(const struct mrdem_front *fr, const struct mrdem_tree *ta,
		     const struct mrdem_tree *tb);

struct mrdem_front_counts {
	uint64_t unfolds;  /* node pairs replaced by their children */
	uint64_t narrows;  /* groups of children replaced by their pair */
	uint64_t pinned;   /* unfolds of a pair narrowed before in the step */
	uint64_t guesses;  /* node pairs in contact */
	uint64_t size;     /* pairs on the front when tested */
	uint64_t skipped;  /* pairs not tested: apart by the motion bound */
	uint64_t certificates; /* poses the motion bound was taken from anew */
};
void mrdem_front_counts_add(struct mrdem_front_counts *dst, const struct mrdem_front_counts *src);
/* The counts one by one, in the order of the struct, and their names
 * (mrdem-contact's stats prefix them with "front_"): the one list that
 * adding, the stats and the picard record go through, so that what one
 * tool writes the next reads. */
#define MRDEM_FRONT_COUNTS 7
extern const char *const mrdem_front_count_names[MRDEM_FRONT_COUNTS];
void mrdem_front_counts_fields(struct mrdem_front_counts *c, uint64_t *v[MRDEM_FRONT_COUNTS]);

/* One iteration on the front of a and b, with b mapped into a's frame by
 * xb: real pairs in contact go to hits (mesh triangle indices, sorted by
 * (ta, tb) like the flat search; closest points and distance from the
 * comparison kernel whatever the method, those it finds apart dropped),
 * node pairs in contact to guesses (node
 * indices: halo tree->eps[n] + the particle's eps), then the front unfolds
 * and narrows for the next iteration. Node pairs are counted by round
 * level_a + level_b (as in mrdem_tree_search), real pairs under real. */
void mrdem_front_search(struct mrdem_tree_search *s, struct mrdem_front *fr,
			const struct mrdem_search_side *a, const struct mrdem_search_side *b,
			const struct mrdem_xform *xb, const struct mrdem_narrow_opts *o,
			struct mrdem_tri_hits *hits, struct mrdem_tri_hits *guesses,
			struct mrdem_search_counts *cnt, struct mrdem_front_counts *fc);

/* Iterate the front at the one pose xb until an iteration unfolds
 * nothing (its memory set emptied and pins released first, as at a new
 * step): that iteration's real contacts, the flat search's bit for bit
 * (Lemma 5.7), are appended to hits, sorted by (ta, tb), with the
 * comparison kernel's points. guesses is scratch (left as it was). For a
 * search that remembers across steps (the explicit schemes' fronts,
 * particle_contacts.h). Returns the iterations, or -1 (hits as they were)
 * when the front did not settle within a cap, or settled with node pairs
 * in contact (neither should happen): then search from the roots. */
int mrdem_front_settle(struct mrdem_tree_search *s, struct mrdem_front *fr,
		       const struct mrdem_search_side *a, const struct mrdem_search_side *b,
		       const struct mrdem_xform *xb, const struct mrdem_narrow_opts *o,
		       struct mrdem_tri_hits *hits, struct mrdem_tri_hits *guesses,
		       struct mrdem_search_counts *cnt, struct mrdem_front_counts *fc);

#endif
