/* One explicit time step of a scene: the call both mrdem-step and the
 * in-process driver make, so a chain of tools and one process compute the
 * same bits.
 *
 *   contacts of frame n --> forces --> pending Verlet half kicks closed
 *     --> energies of state n --> advance by dt --> stability guard --> frame n+1
 *
 * The workspace keeps its allocations between steps. */
#ifndef MRDEM_DYNAMICS_STEP_H
#define MRDEM_DYNAMICS_STEP_H

#include <stddef.h>
#include <stdint.h>

#include "common/dynamics/bind_key.h"
#include "common/dynamics/energy.h"
#include "common/dynamics/forces.h"
#include "common/scene/id_index.h"
#include "common/dynamics/rigid_body.h"
#include "common/dynamics/wall_forces.h"
#include "common/scene/scene.h"
#include "common/scene/contacts.h"
#include "common/scene/stats.h"
#include "common/util/stages.h"

struct mrdem_step_opts {
	int scheme;               /* enum mrdem_scheme (mrdem_stepper_step: explicit ones) */
	double dt;                /* s */
	/* Stop when the kinetic plus gravitational energy after a step exceeds
	 * the total energy before it by more than this many times the kinetic
	 * and contact energy before it (plus what gravity alone can add in one
	 * kick); 0 disables the check. */
	double max_energy_growth;
};

#define MRDEM_DEFAULT_MAX_ENERGY_GROWTH 1.0

/* scheme and dt of the setup, default energy bound. */
void mrdem_step_opts_default(struct mrdem_step_opts *o, const struct mrdem_setup *s);
/* 0 when steps of o can run with the setup s, else -1 with a message
 * naming the step (a bad dt or scheme, or a force model the scheme cannot
 * carry); implicit Euler is valid here (mrdem_stepper_step refuses it). */
int mrdem_step_opts_check(const struct mrdem_step_opts *o, const struct mrdem_setup *s,
			  uint64_t step);

/* The energies the guards weigh, summed over the free particles in frame
 * order from each particle's kinetic energy as its integration left it
 * (integrate.h: equal to mrdem_energy_compute's up to rounding, without a
 * pass of its own). */
struct mrdem_guard_energy {
	double kinetic;           /* translational + rotational, J */
	double gravity;           /* -sum m g . x, J (as mrdem_energy's) */
	double contact;           /* the forces' contact energy, J */
	double mass;              /* kg */
};

struct mrdem_stepper {
	struct mrdem_bodies bodies;
	struct mrdem_id_index index;
	/* what bodies and index were built from; a frame that matches it
	 * keeps them (bind_key.h). rebind_always: rebuild them in every step
	 * all the same (tests compare the two). */
	struct mrdem_bind_key key;
	int rebind_always;
	struct mrdem_forces forces;
	/* mrdem_stepper_synchronise: the forces and the state it closes */
	struct mrdem_forces sync_forces;
	struct mrdem_particles sync;
	/* per particle kinetic energy before and after the step (guard);
	 * after_ready: the advance filled kinetic_after */
	double *kinetic, *kinetic_after;
	size_t kcap;
	int after_ready;
	/* in: whether this step's energy (below) is wanted; init sets it, a
	 * caller that writes the step's statistics only on some steps clears
	 * it for the others, so the step saves the pass over the frame */
	int want_energy;
	/* Account of the last step, about the state it started from (with
	 * velocities synchronised, i.e. after closing pending half kicks). */
	uint64_t step;
	double time, dt;
	int scheme;
	size_t contacts;          /* contact records given */
	/* energies of the step's start; NaN when want_energy was 0 */
	struct mrdem_energy energy;
	struct mrdem_guard_energy start; /* the same for the guards, every step */
	struct mrdem_flow_account flow; /* particles the step's end removed and inserted */
	/* forces on the walls in the step: begin takes them at the frame; an
	 * implicit step takes them again at its converged iterate */
	struct mrdem_wall_forces walls;
	/* wall time of the last step: forces of begin, and the rest of begin,
	 * the advance and finish as integration */
	struct mrdem_stage_log log;
};

void mrdem_stepper_init(struct mrdem_stepper *st);
void mrdem_stepper_release(struct mrdem_stepper *st);

/* Advance s->frame by one step using the contacts c (NULL: none) computed
 * for this very frame (c->step must equal the frame's step). Returns 0, or
 * -1 with a message naming the step and the particle or contact at fault:
 * bad contacts, non-finite state after the step, or energy growth beyond
 * the bound. After a failure the frame is in an unspecified state and must
 * not be written. */
int mrdem_stepper_step(struct mrdem_stepper *st, struct mrdem_scene *s,
		       const struct mrdem_contacts *c, const struct mrdem_step_opts *o);

/* The velocities of frame s synchronised with its positions: its pending
 * Verlet half kicks (MRDEM_PARTICLE_HALF_KICK) closed with the forces of
 * its contacts c, as the step from it will close them, in st->sync (vel,
 * angvel and flags; the other arrays are s's). The frame stays as it is,
 * so writing such a view changes nothing that follows. 0, or -1 with the
 * step's message when the contacts are bad. */
int mrdem_stepper_synchronise(struct mrdem_stepper *st, const struct mrdem_scene *s,
			      const struct mrdem_contacts *c, const struct mrdem_step_opts *o);

/* The parts of a step around the advance, for schemes whose advance needs
 * more than the contacts of the frame (implicit Euler, common/sim/picard.h):
 * begin checks the options (implicit-euler accepted), computes the forces
 * from c at the frame, closes pending Verlet half kicks and records the
 * energies of the state (the step's account); finish runs the stability
 * guard on the advanced frame, moves it on by one step of o->dt and then
 * removes and inserts the particles of the scene's flow (flow.h). */
int mrdem_stepper_begin(struct mrdem_stepper *st, struct mrdem_scene *s,
			const struct mrdem_contacts *c, const struct mrdem_step_opts *o);
int mrdem_stepper_finish(struct mrdem_stepper *st, struct mrdem_scene *s,
			 const struct mrdem_step_opts *o);

/* Bodies and id index of the frame (part of begin; a step in progress
 * read back from a stream binds its iterate), rebuilt only when the
 * particles or shapes they are made of changed. 0, or -1 with a message. */
int mrdem_stepper_bind(struct mrdem_stepper *st, const struct mrdem_scene *s);

/* Room in st for the per-particle arrays of a step from n particles. */
void mrdem_stepper_reserve(struct mrdem_stepper *st, size_t n);
/* The start of a step read back (mrdem_decode_picard: its energy and the
 * kinetic energies of its n particles, from a stepper whose begin wanted
 * its energy): the guards' sums, the bits begin left. */
void mrdem_stepper_resume(struct mrdem_stepper *st, size_t n);

/* The account of the last step as named statistics (names in docs/dynamics.md). */
void mrdem_stepper_stats(const struct mrdem_stepper *st, struct mrdem_stats *out);

/* The names of the energies of the step's start in those statistics that
 * a reader of them takes back (mrdem-run --via-pipes, for its energy
 * guard): kinetic (translational + rotational), gravitational, contact. */
#define MRDEM_STAT_ENERGY_KINETIC "energy_kinetic"
#define MRDEM_STAT_ENERGY_GRAVITY "energy_gravity"
#define MRDEM_STAT_ENERGY_CONTACT "energy_contact"

#endif
