/* The store of multiscale Picard's fronts between iterations and steps:
 * an open-addressing map from a pair of particle ids to its front
 * (front_search.h), and the entries the fronts record holds. */
#ifndef MRDEM_NARROW_FRONT_STORE_H
#define MRDEM_NARROW_FRONT_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "common/narrow/search/front_search.h"
#include "common/scene/scene.h"

/* The fronts of multiscale Picard, one per pair of particles, kept from
 * one Picard iteration to the next (and from step to step when warm). */
struct mrdem_front_store;
struct mrdem_front_store *mrdem_front_store_new(void);
void mrdem_front_store_free(struct mrdem_front_store *fr);
/* A new time step (or a retry): warm keeps each pair's front (memory set
 * emptied, pins released), cold sends every front back to the roots.
 * Either way pairs that were not searched since the last call are
 * forgotten. */
void mrdem_front_store_new_step(struct mrdem_front_store *fr, int warm);
/* The fronts as the fronts record holds them: one entry per pair of
 * particle ids, sorted by ids; used: searched since the last new step. */
struct mrdem_front_store_entry {
	uint64_t a, b;
	int used;
	struct mrdem_front_arrays front;
};
/* Every entry, into a malloc'd array (mrdem_front_store_entries_free). */
size_t mrdem_front_store_save(const struct mrdem_front_store *fr,
			      struct mrdem_front_store_entry **out);
void mrdem_front_store_entries_free(struct mrdem_front_store_entry *v, size_t n);
/* Add the front of one entry, its structure checked now (message prefixed
 * by what) and its nodes against the particles' trees when first searched.
 * Returns 0, or -1 with a message (also for a pair that has one already). */
int mrdem_front_store_load(struct mrdem_front_store *fr, const struct mrdem_front_store_entry *e,
			   const char *what);
/* The front of particles ia and ib of s into *front (a new one at the
 * roots when the pair has none), a loaded one checked against their
 * trees first. Returns 0, or -1 with a message. */
int mrdem_front_store_bind(struct mrdem_front_store *fr, const struct mrdem_scene *s, size_t ia,
			   size_t ib, struct mrdem_front **front);

/* The front of particles ia and ib of s for a search that remembers
 * across calls (particle_contacts.h): their front of the last call, or one
 * at the roots when the pair had none or their shapes' trees changed; NULL
 * when the pair was claimed since the last new step already (listed
 * twice: its second search starts at the roots, without a front). */
struct mrdem_front *mrdem_front_store_claim(struct mrdem_front_store *fr,
					    const struct mrdem_scene *s, size_t ia, size_t ib);

#endif
