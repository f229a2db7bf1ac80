/* Rigid-body mass properties and rotation kernels.
 *
 * A particle's mass and body-frame inertia are its shape's unit-density
 * mass properties scaled by its density. The world inertia tensor is
 * I_w = R I_b R^T with R the rotation of the particle's quaternion; it is
 * never stored, but applied as R (I_b (R^T v)). Angular motion is integrated
 * through the angular momentum L = I_w w, so dL/dt = torque holds exactly and
 * the gyroscopic term w x (I_w w) of Euler's equations comes from re-evaluating
 * I_w at the rotated orientation (formulas in docs/dynamics.md). */
#ifndef MRDEM_DYNAMICS_RIGID_BODY_H
#define MRDEM_DYNAMICS_RIGID_BODY_H

#include <stddef.h>

#include "common/scene/scene.h"

/* Mass properties of one particle; all zero for a fixed particle, whose
 * motion is prescribed (infinite mass). */
struct mrdem_body {
	double mass, inv_mass;  /* kg, 1/kg */
	double inertia[9];      /* body frame, about the centre of mass, row-major */
	double inv_inertia[9];  /* its inverse */
};

/* One body per particle of a frame, in frame order. */
struct mrdem_bodies {
	size_t n, cap;
	struct mrdem_body *b;
};

void mrdem_bodies_init(struct mrdem_bodies *b);
void mrdem_bodies_release(struct mrdem_bodies *b);
/* Fill b from the scene's shapes and frame. Fails with a message naming the
 * particle when a free particle has a non-positive density, an open shape,
 * a non-positive volume or an inertia tensor that is not positive definite. */
int mrdem_bodies_compute(struct mrdem_bodies *b, const struct mrdem_scene *s);
/* The first particle a step cannot take as it is: a free one whose density
 * is not positive and finite. Returns its index, with what is wrong in
 * why[n], or -1. For the tools that step a frame read from a stream, so the
 * message can name the stream and record; contact detection takes such
 * frames (density is not used there). Orientations that are no rotation
 * are refused by the frame decoder, for every tool. */
long mrdem_particles_unsteppable(const struct mrdem_particles *p, char *why, size_t n);

/* Row-major symmetric matrix from the xx yy zz xy yz xz order of struct mrdem_mass. */
void mrdem_inertia_matrix(double m[9], const double six[6]);
/* Inverse of a symmetric positive definite 3x3 matrix: 0, or -1 (no message)
 * when it is not positive definite. */
int mrdem_spd3_inverse(double inv[9], const double m[9]);

/* I_w = R I_b R^T (used by tests and diagnostics; steps use the products below). */
void mrdem_body_world_inertia(double iw[9], const struct mrdem_body *b, const double q[4]);
/* L = I_w(q) w. */
void mrdem_body_angmom(double L[3], const struct mrdem_body *b, const double q[4],
		       const double w[3]);
/* w = I_w(q)^-1 L. */
void mrdem_body_angvel(double w[3], const struct mrdem_body *b, const double q[4],
		       const double L[3]);

/* The same with R, the rotation matrix of q (quat_to_matrix), given: for
 * a caller that applies several at one orientation (bit for bit the same). */
void mrdem_body_angmom_at(double L[3], const struct mrdem_body *b, const double R[9],
			  const double w[3]);
void mrdem_body_angvel_at(double w[3], const struct mrdem_body *b, const double R[9],
			  const double L[3]);

/* q <- exp(dt w / 2) q: rotate by the angle |w| dt about w (world frame),
 * then renormalise. */
void mrdem_quat_advance(double q[4], const double w[3], double dt);

/* Torque-free rotation of a body with constant angular momentum L over dt
 * by the implicit midpoint rule on the orientation: q_mid is q rotated by
 * w(q_mid) dt/2, q_new is q rotated by w(q_mid) dt, with w(q) = I_w(q)^-1 L
 * and q_mid found by fixed-point iteration. The map is symmetric in time,
 * so the rotational energy of a free body oscillates instead of drifting.
 * Writes the angular velocity at the new orientation to w_new. */
void mrdem_body_rotate_free(double q[4], double w_new[3], const struct mrdem_body *b,
			    const double L[3], double dt);
/* The same with R the rotation matrix of q on entry. */
void mrdem_body_rotate_free_at(double q[4], const double R[9], double w_new[3],
			       const struct mrdem_body *b, const double L[3], double dt);

#endif
