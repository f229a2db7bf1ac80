/* Broad-phase candidate pairs of one frame, named by particle id. */
#ifndef MRDEM_SCENE_PAIRS_H
#define MRDEM_SCENE_PAIRS_H

#include <stddef.h>
#include <stdint.h>

/* One candidate pair, a < b by index order of the frame (planes last). */
struct mrdem_pair {
	uint64_t a, b; /* particle ids (b may be a plane id, MRDEM_PLANE_ID) */
};
struct mrdem_pairs {
	uint64_t step;
	size_t n, cap;
	struct mrdem_pair *p;
};
void mrdem_pairs_init(struct mrdem_pairs *p);
void mrdem_pairs_release(struct mrdem_pairs *p);
void mrdem_pairs_push(struct mrdem_pairs *p, uint64_t a, uint64_t b);
/* Whether a pair appears twice in p (in either order): 1 with the indices of
 * its first two appearances, else 0. Linear time. */
int mrdem_pairs_find_duplicate(const struct mrdem_pairs *p, size_t *first, size_t *second);

#endif
