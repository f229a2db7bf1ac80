/* What the bodies and the id index of a frame (rigid_body.h, id_index.h)
 * are made of, kept by the stepper to rebuild them only when it changed:
 * the particles' ids, shapes, densities and fixed flags, and the shapes'
 * mass properties. Orientations play no part (bodies hold body-frame
 * inertia; the world tensor is applied from the quaternion at each use).
 * The key compares contents, not pointers or counters, so no code that
 * edits a frame (flow, motions, a stream's next frame, an MPI exchange)
 * has to announce it. */
#ifndef MRDEM_DYNAMICS_BIND_KEY_H
#define MRDEM_DYNAMICS_BIND_KEY_H

#include <stddef.h>
#include <stdint.h>

#include "common/scene/scene.h"

struct mrdem_bind_key {
	int valid;            /* taken from a frame whose binding succeeded */
	size_t n, cap;
	uint64_t *id;
	uint32_t *shape;
	unsigned char *fixed;
	double *density;
	uint32_t nshapes, shapes_cap;
	struct mrdem_mass *mass;  /* per shape */
	unsigned char *open;      /* per shape */
};

void mrdem_bind_key_init(struct mrdem_bind_key *k);
void mrdem_bind_key_release(struct mrdem_bind_key *k);
/* 1 when k was taken from a frame with the same ids, shapes, densities,
 * fixed flags and shape mass properties as s's, else 0. */
int mrdem_bind_key_matches(const struct mrdem_bind_key *k, const struct mrdem_scene *s);
/* Remember s's frame in k (after its bodies and index were built). */
void mrdem_bind_key_take(struct mrdem_bind_key *k, const struct mrdem_scene *s);
/* Forget it: the next binding rebuilds. */
void mrdem_bind_key_forget(struct mrdem_bind_key *k);

#endif
