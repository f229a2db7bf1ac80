/* The fast path for scenes of analytic spheres only: the
 * spring-dashpot model of the sphere DEM course notes with Coulomb
 * friction, or hooke or hertz with their tangential, rolling and
 * twisting springs (common/sim/sphere_patch.h), materials included, and
 * velocity Verlet, without contact records, particle ids or tree
 * searches. Each step runs over a Verlet list, the broad phase's pairs (mr or grid method, any
 * method gives the same list) with every halo grown by half a skin,
 * rebuilt only when a particle has moved half the skin since the last
 * build; a pair of the list is in contact by the closed form of
 * common/narrow/analytic/analytic_contacts.c, and its force is the spring-dashpot
 * law of common/dynamics/contact_law.c (one patch per sphere pair),
 * written out, summed in the same (pair) order, then the
 * particles are integrated as the general path's are
 * (common/dynamics/integrate.h), the rotation with the scalar inertia of
 * a sphere. The trajectory therefore equals the general path's
 * (mrdem_sim_advance) to rounding (tests/unit/test_sphere_fast.c): the
 * forces and springs are the same operations, the turning differs in
 * the last bits. Under hooke and hertz the frame's history holds the
 * springs after every step, as the general path leaves it.
 *
 * State is the scene's own structure of arrays (positions, velocities,
 * ...), so frames can be written from it at any step. */
#ifndef MRDEM_SIM_SPHERE_FAST_H
#define MRDEM_SIM_SPHERE_FAST_H

#include <stddef.h>
#include <stdint.h>

#include "common/scene/scene.h"

/* 1 when the fast path covers the scene: every shape an analytic sphere,
 * the spring-dashpot, hooke or hertz model, velocity Verlet, dt > 0, no
 * insertion, removal or moving wall. Otherwise 0 with the
 * reason in why (a sentence fragment, e.g. "shape 'rock' is a mesh"). */
int mrdem_sphere_fast_covers(const struct mrdem_scene *s, char *why, size_t len);

struct mrdem_sphere_fast_stats {
	uint64_t steps, rebuilds;  /* steps taken, Verlet-list builds */
	uint64_t list_pairs;       /* pairs in the list, summed over steps */
	uint64_t contacts;         /* pairs in contact, summed over steps */
};

struct mrdem_sphere_fast;
/* A fast path on s (not owned; its frame is advanced in place). broad:
 * enum mrdem_broad_method; skin: added to every pair's reach for the
 * Verlet list, m (0: rebuild every step). Returns NULL with a message
 * when the scene is not covered or its particles are invalid. */
struct mrdem_sphere_fast *mrdem_sphere_fast_new(struct mrdem_scene *s, int broad, double skin);
void mrdem_sphere_fast_free(struct mrdem_sphere_fast *f);
/* One velocity Verlet step of the frame (step and time advance).
 * Returns 0, or -1 with a message (non-finite force). */
int mrdem_sphere_fast_step(struct mrdem_sphere_fast *f);
/* The frame's velocities synchronised with its positions in vel and
 * angvel (3n each): pending half kicks closed with the forces at the
 * frame, which the next step then uses as they are. 0, or -1 with a
 * message. */
int mrdem_sphere_fast_synchronise(struct mrdem_sphere_fast *f, double *vel, double *angvel);
void mrdem_sphere_fast_get_stats(const struct mrdem_sphere_fast *f,
				 struct mrdem_sphere_fast_stats *out);

#endif
