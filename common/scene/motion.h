/* Prescribed motions of walls: fixed particles and analytic planes that
 * translate, rotate or oscillate (docs/dynamics.md, "Moving walls").
 *
 * A wall's pose at time t is a closed form of its reference pose (the
 * scene's, held until `start`) and t, never integrated, so it does not
 * drift however many steps are taken. Its velocity and angular velocity
 * at t are set with it: the contact laws take the wall's velocity at the
 * contact point. The motions live in the setup and travel in the motion
 * record (docs/stream-format.md). */
#ifndef MRDEM_SCENE_MOTION_H
#define MRDEM_SCENE_MOTION_H

#include <stddef.h>
#include <stdint.h>

#include "common/scene/scene.h"

enum mrdem_motion_kind {
	MRDEM_MOTION_VELOCITY = 1,  /* x0 + v (t - start) */
	MRDEM_MOTION_ROTATE = 2,    /* omega (t - start) about axis through point */
	MRDEM_MOTION_OSCILLATE = 3, /* x0 + d A sin(2 pi F (t - start)) */
};
#define MRDEM_MOTION_KINDS 3

struct mrdem_motion {
	uint64_t target;     /* particle id, or MRDEM_PLANE_ID(k) */
	uint32_t kind;       /* enum mrdem_motion_kind */
	double start;        /* s; at rest in the reference pose before it */
	/* reference pose: a particle's centre of mass and orientation, or a
	 * plane's point and normal (quat unused) */
	double ref_pos[3], ref_quat[4], ref_normal[3];
	double dir[3];       /* velocity (m/s), or unit rotation axis or direction */
	double point[3];     /* rotate: a point on the axis */
	double omega;        /* rotate: rad/s */
	double amplitude;    /* oscillate: m */
	double frequency;    /* oscillate: Hz */
};

/* "velocity", "rotate", "oscillate"; NULL for another value. */
const char *mrdem_motion_kind_name(uint32_t kind);

/* NULL when m is valid (known kind, finite values, unit axis or
 * direction, non-negative amplitude and frequency), else what is wrong. */
const char *mrdem_motion_invalid(const struct mrdem_motion *m);

/* Append a motion to the setup; returns it. */
struct mrdem_motion *mrdem_motion_add(struct mrdem_setup *s, const struct mrdem_motion *m);

/* The motion whose target is id, or NULL. */
const struct mrdem_motion *mrdem_motion_find(const struct mrdem_setup *s, uint64_t id);

/* Pose, velocity and angular velocity of m at time t. */
void mrdem_motion_pose(const struct mrdem_motion *m, double t, double pos[3], double quat[4],
		       double normal[3], double vel[3], double angvel[3]);

/* Every moving plane and fixed particle of p at time t. A particle that
 * a motion names must be in p and fixed: -1 with a message otherwise. */
int mrdem_motion_place_planes(struct mrdem_setup *s, double t);
int mrdem_motion_place_particles(const struct mrdem_setup *s, struct mrdem_particles *p,
				 double t);
/* NULL when every particle a motion names is in p and fixed, else what is
 * wrong, in why. */
const char *mrdem_motion_frame_problem(const struct mrdem_setup *s,
				       const struct mrdem_particles *p, char *why, size_t len);
/* Both, at the time of the scene's frame. */
int mrdem_motion_place(struct mrdem_scene *s);

#endif
