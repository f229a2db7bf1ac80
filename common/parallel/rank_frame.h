/* A rank's working frame in an MPI run (docs/parallel.md): the particles
 * it owns, ghost copies of the particles other ranks own that can touch
 * them, and every fixed particle, in the order of the one-rank frame, so
 * that every broad phase lists its pairs as a subsequence of the one-rank
 * pairs and every sum over a particle's contacts runs in the one-rank
 * order. What travels between ranks (wire particles, springs) and how a
 * rank's pairs, contacts and springs are told apart: without MPI, so
 * every rank computes the same from the same data. */
#ifndef MRDEM_PARALLEL_RANK_FRAME_H
#define MRDEM_PARALLEL_RANK_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "common/scene/contacts.h"
#include "common/scene/id_index.h"
#include "common/scene/pairs.h"
#include "common/scene/scene.h"

/* No owner: a fixed particle, on every rank. */
#define MRDEM_RANK_GLOBAL (-1)

/* The frame column of a rank's stream that gives each particle's index in
 * the one-rank frame (u64), so mrdem-merge can put the parts together. */
#define MRDEM_COLUMN_ORDER "order"

/* The column MRDEM_COLUMN_ORDER of order[0..n) into c (replaced). */
void mrdem_order_column(struct mrdem_column *c, const uint64_t *order, size_t n);

/* One particle as it travels between ranks (a plain struct: every rank
 * of a run has the same byte order and layout). */
struct mrdem_wire_particle {
	uint64_t id, order;
	uint32_t shape, flags, material;
	int32_t owner;
	double pos[3], quat[4], vel[3], angvel[3], density, eps;
};

void mrdem_wire_particle_get(struct mrdem_wire_particle *w, const struct mrdem_particles *p,
			     size_t i, uint64_t order, int owner);

/* Per particle of the working frame: its one-rank order and owner. */
struct mrdem_rank_frame {
	size_t n, cap;
	uint64_t *order;
	int *owner;
	struct mrdem_id_index index;
};
void mrdem_rank_frame_init(struct mrdem_rank_frame *rf);
void mrdem_rank_frame_release(struct mrdem_rank_frame *rf);

/* The working frame of rank me from wire particles w[0..n) (owned, ghosts
 * and the fixed ones, each once), sorted by order into f's particles
 * (step, time and history stay f's); ghosts get MRDEM_PARTICLE_GHOST.
 * 0, or -1 with a message (a duplicate id or order). */
int mrdem_rank_frame_build(struct mrdem_rank_frame *rf, struct mrdem_frame *f,
			   struct mrdem_wire_particle *w, size_t n, int me);

/* The rank that computes a pair (and writes its contacts and springs):
 * the owner of its first particle that is not fixed (a plane is never
 * first); a pair of fixed particles: rank 0. Ids not in the frame: -2. */
int mrdem_rank_pair_owner(const struct mrdem_rank_frame *rf, uint64_t a, uint64_t b);

/* The pairs of all that concern rank me (one of the two particles is
 * its own): into mine those it computes for the run (its own pairs),
 * into theirs those another rank computes too but whose contacts its
 * particles need; kind[k] of each kept pair in order: 1 mine, 0 theirs. */
void mrdem_rank_pairs_split(const struct mrdem_rank_frame *rf, int me,
			    const struct mrdem_pairs *all, struct mrdem_pairs *mine,
			    struct mrdem_pairs *theirs, unsigned char **kind, size_t *kcap);

/* The contacts of the kept pairs in pair order, from those of the mine
 * and theirs pairs (each in its pairs' order): out, and mine_c[k] set for
 * the contacts of rank me's own pairs. 0, or -1 with a message when a
 * list does not follow its pairs. */
int mrdem_rank_contacts_merge(const struct mrdem_pairs *mine, const struct mrdem_pairs *theirs,
			      const unsigned char *kind, const struct mrdem_contacts *cm,
			      const struct mrdem_contacts *ct, struct mrdem_contacts *out);

/* Springs (sorted by (a, b), each pair's in creation order) received from
 * several ranks, src[k] the sender of s[k]: the ranks that own a pair's
 * two particles both send it, identical, so of each pair only the
 * springs of its first sender are kept; the rest sorted as a history. */
void mrdem_rank_springs_merge(struct mrdem_history *h, const int *src);

/* Delete from the working frame f the particles whose one-rank order is
 * in removed[0..nr) (sorted; the run's removals of a step, on every rank),
 * with their springs, and close the gaps in the order the one-rank frame
 * closes them: each order less the removed ones below it. 0, or -1 with a
 * message. */
int mrdem_rank_frame_remove(struct mrdem_rank_frame *rf, struct mrdem_frame *f,
			    const uint64_t *removed, size_t nr);

/* The frame rank me writes (docs/parallel.md): its own particles and, on
 * rank 0, the fixed ones, in order, with the column MRDEM_COLUMN_ORDER
 * and the springs of the pairs it owns. out is replaced. */
void mrdem_rank_frame_output(const struct mrdem_rank_frame *rf, const struct mrdem_frame *local,
			     int me, struct mrdem_frame *out);

#endif
