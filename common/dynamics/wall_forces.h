/* Forces on walls: for every fixed particle and every analytic plane, the
 * force and torque it receives from the particles in a step (the pressure
 * on a plate, the torque on a drum or a blade), kept with the step's
 * account and written as statistics (docs/output.md, "Forces on walls"):
 * wall_force_x.ID ... wall_torque_z.ID per fixed particle of id ID (torque
 * about its centre of mass), plane_force_x.K ... plane_torque_z.K per plane
 * K (torque about its point). Fixed particles feel no gravity, so their
 * totals in the forces are the contacts' alone. */
#ifndef MRDEM_DYNAMICS_WALL_FORCES_H
#define MRDEM_DYNAMICS_WALL_FORCES_H

#include <stddef.h>
#include <stdint.h>

#include "common/dynamics/forces.h"
#include "common/scene/scene.h"
#include "common/scene/stats.h"

struct mrdem_wall_forces {
	size_t n, cap;          /* fixed particles */
	uint64_t *id;
	double *ft;             /* 6 per wall: force, then torque */
	uint32_t nplanes, plane_cap;
	double *plane_ft;       /* 6 per plane */
};

void mrdem_wall_forces_init(struct mrdem_wall_forces *w);
void mrdem_wall_forces_release(struct mrdem_wall_forces *w);
/* Take the walls' forces of f, evaluated on the frame of s. */
void mrdem_wall_forces_collect(struct mrdem_wall_forces *w, const struct mrdem_scene *s,
			       const struct mrdem_forces *f);
void mrdem_wall_forces_stats(const struct mrdem_wall_forces *w, struct mrdem_stats *out);

#endif
