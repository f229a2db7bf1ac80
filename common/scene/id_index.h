/* Lookup from stable particle ids to positions in a frame, so records that
 * name particles by id (pairs, contacts) can be applied to the
 * structure-of-arrays state. */
#ifndef MRDEM_SCENE_ID_INDEX_H
#define MRDEM_SCENE_ID_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "common/scene/scene.h"

#define MRDEM_NO_INDEX ((size_t)-1)

struct mrdem_id_index {
	size_t n, cap;
	uint64_t *id;   /* sorted ascending */
	size_t *index;  /* frame index of id[k] */
};

void mrdem_id_index_init(struct mrdem_id_index *x);
void mrdem_id_index_release(struct mrdem_id_index *x);
/* Index the particles of p; fails with a message on a duplicate id or an id
 * in the range reserved for analytic planes. */
int mrdem_id_index_build(struct mrdem_id_index *x, const struct mrdem_particles *p);
/* Whether the ids of p are valid: distinct and below MRDEM_PLANE_ID_MIN.
 * Returns 0, or -1 with what is wrong in msg (no message printed), for
 * callers that name the input (the frame decoder). Linear for ids in
 * increasing order. */
int mrdem_ids_check(const struct mrdem_particles *p, char *msg, size_t size);
/* Frame index of a particle id, or MRDEM_NO_INDEX. */
size_t mrdem_id_index_find(const struct mrdem_id_index *x, uint64_t id);

#endif
