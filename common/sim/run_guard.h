/* Guards over a whole run, beside the per-step guard of the stepper
 * (common/dynamics/step.h: non-finite state, one step's energy growth):
 * a run whose energy creeps up over many steps, particles that move
 * further than their halo in one step (the contact search can no longer
 * see their contacts), and particles that leave the scene's bounds. Each
 * fails naming the step and the particle. docs/dynamics.md, "Stability
 * guard", states the bounds. */
#ifndef MRDEM_SIM_RUN_GUARD_H
#define MRDEM_SIM_RUN_GUARD_H

#include <stddef.h>
#include <stdint.h>

#include "common/scene/scene.h"

/* Steps over which the energy's growth is bounded. */
#define MRDEM_GUARD_WINDOW 1000
/* The bounds' box: the start's box of particles grown on every side by
 * this many times its largest side, plus the distance the fastest
 * particle of the start travels, falling, over the run. */
#define MRDEM_GUARD_BOX_MARGIN 10.0

struct mrdem_run_guard {
	double lo[3], hi[3];      /* the box the centres of free particles stay in */
	double growth;            /* R of the energy window (0: off) */
	double mass;              /* of the free particles, kg */
	double gravity_allowance; /* W sum m |g|^2 dt^2 / 2, J */
	int energy_on;            /* the window applies (no fixed particle moves) */
	int speed_on;             /* the speed bound applies (explicit schemes) */
	/* sliding minimum of E_j + R A_j over the last MRDEM_GUARD_WINDOW steps:
	 * a ring of candidates with increasing keys */
	size_t head, n;
	uint64_t *step;
	double *key, *e, *s;
};

/* Bounds of the run that starts at s's frame and takes `steps` steps of
 * dt, with the energy window's bound growth (0 disables it). The speed
 * bound holds for every scheme but implicit Euler, whose Picard iterations
 * search the contacts of the state a step reaches: its steps may cross a
 * halo, which is what makes them large (docs/dynamics.md). */
void mrdem_run_guard_init(struct mrdem_run_guard *g, const struct mrdem_scene *s, double dt,
			  uint64_t steps, double growth);
void mrdem_run_guard_release(struct mrdem_run_guard *g);

/* The frame after step `step`, which started at `time` (s->frame): every
 * free particle within its bounds and no further than its halo in a step
 * of dt. 0, or -1 with a message naming the step and particle. */
int mrdem_run_guard_motion(const struct mrdem_run_guard *g, const struct mrdem_scene *s,
			   uint64_t step, double time, double dt);

/* The energies of the state at the start of step `step`, in step order:
 * kinetic K, gravitational G (-sum m g . x) and contact energy C. With A =
 * K + C + gravity's potential energy above the lowest point of any
 * particle's bounding sphere in s's frame, fixed ones included (the
 * energy the scene has to move with), fails when
 * (K + G)_n - (K + G + C)_j > R A_j + the gravity allowance for a step j
 * of the window: the motion gained more than the total energy at j and R
 * times what was free to move then. The contact energy at n is left out
 * (as in the stepper's one-step bound): it is room to move, and a contact
 * model's account of it must not stop a run whose motion is sound. Names
 * the fastest particle of s's frame. */
int mrdem_run_guard_energy(struct mrdem_run_guard *g, const struct mrdem_scene *s, uint64_t step,
			   double time, double kinetic, double gravity, double contact);

#endif
