/* Pairs and contacts of one frame from those of the ranks of a parallel
 * run, in the order a one-rank run gives them (docs/parallel.md, "Merging
 * the ranks' streams"): pairs by the frame index of a, then of b, plane k
 * counting as index n + k (common/broad/broad.h); contacts by their
 * pair's place in that order, each pair's as they come. */
#ifndef MRDEM_SCENE_CONTACT_MERGE_H
#define MRDEM_SCENE_CONTACT_MERGE_H

#include <stddef.h>

#include "common/scene/contacts.h"
#include "common/scene/id_index.h"
#include "common/scene/pairs.h"

/* A pair's place in the canonical order: the two frame indices, the lower
 * first (plane k: n + k). 0, or -1 with a message naming what (the
 * part) when an id is not in the frame of x (n particles). */
int mrdem_pair_key(const struct mrdem_id_index *x, size_t n, uint64_t a, uint64_t b,
		   size_t key[2], const char *what);

/* out (initialised here): the union of the parts' pairs at step, a pair
 * named higher index first turned round; x indexes the merged frame of n
 * particles. 0, or -1 with a message naming the part (name[k]) when a
 * pair names a particle the frame lacks or two parts name one pair. */
int mrdem_pairs_merge(struct mrdem_pairs *out, const struct mrdem_pairs *parts, size_t nparts,
		      const struct mrdem_id_index *x, size_t n, const char *const *name);
/* out (initialised here): the union of the parts' contacts at step, as
 * above; a pair's contacts must all come from one part. */
int mrdem_contacts_merge(struct mrdem_contacts *out, const struct mrdem_contacts *parts,
			 size_t nparts, const struct mrdem_id_index *x, size_t n,
			 const char *const *name);

#endif
