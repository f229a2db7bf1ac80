/* Time integration of one particle for the explicit schemes, given the
 * force and torque at the current state (docs/dynamics.md):
 *
 *   explicit Euler (paper Alg. 1): positions and orientations move with the
 *     old velocities, then the velocities take the force kick;
 *   symplectic Euler: kick, then move with the new velocities;
 *   velocity Verlet: half kick, move, and the closing half kick with the
 *     forces at the new positions. Those forces only exist after the next
 *     contact search, so the closing half kick is left pending on the
 *     particle (MRDEM_PARTICLE_HALF_KICK) and applied by the next step,
 *     before anything else, with the forces that step computes anyway: one
 *     contact search and one force evaluation per step, and a stream
 *     between two steps is a complete, resumable state.
 *
 * Rotations integrate the world angular momentum L = I_w w (kick by the
 * torque) and move the orientation with w = I_w^-1 L; fixed particles move
 * with their prescribed velocities and ignore forces. */
#ifndef MRDEM_DYNAMICS_INTEGRATE_H
#define MRDEM_DYNAMICS_INTEGRATE_H

#include <stddef.h>

#include "common/dynamics/rigid_body.h"
#include "common/scene/scene.h"


/* Scheme names: mrdem_scheme_name()/_parse() in common/scene/scene.h. */

/* Apply particle i's pending half kick, if any, with force F and torque T
 * evaluated at its current position: afterwards its velocities belong to
 * the same time as its position. dt is the full step. ke (NULL: not
 * wanted) receives its kinetic energy then, 1/2 m |v|^2 + 1/2 w . L, from
 * the angular momentum L the kick made (0 for fixed particles and ghosts):
 * the energy guard's measure, equal to mrdem_energy_kinetic up to rounding. */
void mrdem_integrate_close(struct mrdem_particles *p, size_t i, const struct mrdem_body *b,
			   const double F[3], const double T[3], double dt, double *ke);

/* Advance particle i by dt under scheme (an explicit one) with force F and
 * torque T evaluated at its current, synchronised state; ke as for
 * mrdem_integrate_close, of the state reached. */
void mrdem_integrate_advance(struct mrdem_particles *p, size_t i, const struct mrdem_body *b,
			     const double F[3], const double T[3], int scheme, double dt,
			     double *ke);

/* Implicit Euler (paper Alg. 3) per particle; the Picard loop that calls
 * these lives in common/sim/picard.c, since it needs the contact search.
 * The start of the step is x0, q0, v0, w0 (3, 4, 3, 3 values); the unknowns
 * are the updates dv, dw of the velocities over the step.
 *
 * Place particle i where the guess dv, dw puts it after dt:
 * v = v0 + dv, w = w0 + dw, x = x0 + dt v, q = exp(dt w / 2) q0. A fixed
 * particle ignores the guess and moves with its prescribed v0, w0. */
void mrdem_implicit_place(struct mrdem_particles *p, size_t i, const double x0[3],
			  const double q0[4], const double v0[3], const double w0[3],
			  const double dv[3], const double dw[3], double dt);

/* The torque of the step about the start position x0: T, taken about the
 * placed centre of mass x, plus (x - x0) x (F - m g) for the contact part
 * of the force F (gravity acts at the centre of mass). With
 * x_{n+1} = x_n + dt v_{n+1} the orbital angular momentum changes by
 * x_n x dt F, so torques about x_n make a step conserve the total angular
 * momentum exactly. Zero for a fixed particle. */
void mrdem_implicit_torque(double T0[3], const struct mrdem_body *b, const double x0[3],
			   const double x[3], const double F[3], const double T[3],
			   const double g[3]);

/* The update that force F and torque T0 (about x0), evaluated at the placed
 * state q, ask for, as the explicit kick computes it: dv = dt F / m and
 * dw = I_w(q)^-1 (I_w(q0) w0 + dt T0) - w0. Zero for a fixed particle. */
void mrdem_implicit_update(double dv[3], double dw[3], const struct mrdem_body *b,
			   const double q0[4], const double q[4], const double w0[3],
			   const double F[3], const double T0[3], double dt);

/* End of the step for free particle i after mrdem_implicit_place with the
 * converged update: the angular velocity is recovered from the angular
 * momentum I_w(q0) w0 + dt T0 at the final orientation, so torque-free
 * bodies keep their angular momentum exactly, as in the explicit schemes. */
void mrdem_implicit_finish(struct mrdem_particles *p, size_t i, const struct mrdem_body *b,
			   const double q0[4], const double w0[3], const double T0[3], double dt);

#endif
