/* The patch force models (hooke, hertz) on the sphere fast path
 * (common/sim/sphere_fast.h). A pair of analytic spheres, or a sphere and
 * an analytic plane, has one contact record (analytic_contacts.c) and so
 * one patch; mrdem_sphere_patch_force computes that record, the patch's
 * point, normal and depth, the law (mrdem_patch_law) and the sums as
 * mrdem_patch_forces and mrdem_forces_compute do, operation for
 * operation, but for shortcuts that are equal to rounding: R* is
 * 1 / (1/r_a + 1/r_b) once per pair (the general path evaluates an
 * analytic shape's curvature h^2 / abc in its rotated axes), a plane's
 * record is the sphere's closed form (the general path's is the
 * ellipsoid kernel's), the unit normal is not normalised a second time,
 * and the springs' anchor is compared by its squared distance. What the general path reads from a
 * shape's smooth surface is fixed for an analytic sphere (no mesh): no
 * edge to link records over, no cap on the radius.
 *
 * The springs live per Verlet-list entry (struct mrdem_sphere_springs):
 * the frame's, read from its history when the list is built, and the
 * step's, which become the frame's history after the step. */
#ifndef MRDEM_SIM_SPHERE_PATCH_H
#define MRDEM_SIM_SPHERE_PATCH_H

#include <stddef.h>
#include <stdint.h>

#include "common/scene/material.h"
#include "common/scene/scene.h"

/* What the force of one pair reads and adds to. */
struct mrdem_sphere_patch {
	const struct mrdem_scene *s;
	const double *rot;       /* 9 per particle: its rotation at the frame */
	const double *radius;
	double *force, *torque;  /* 3 per particle: the sums */
};

/* What a pair's law needs that stays while it is listed. */
struct mrdem_sphere_pair {
	double m_eff;   /* effective mass, kg; 0: both immovable */
	double r_eff;   /* R*, m */
	double ratio;   /* the damping ratio of the law's restitution */
	const struct mrdem_pair_law *law;
};

/* Particle ia against particle ib, or against plane `plane` when ib is
 * SIZE_MAX, by the scene's model with pr's law: the force and
 * torque added to c's sums (on ib the opposite), the springs of the frame
 * taken from old (all zero: none; the general path's rule for whether
 * they go on with this patch applied) and the step's left in out (all
 * zero when the pair is not in contact; out's ids are the caller's).
 * Returns 1 when the halos overlap and a particle is free. */
int mrdem_sphere_patch_force(const struct mrdem_sphere_patch *c, size_t ia, size_t ib,
			     uint32_t plane, const struct mrdem_sphere_pair *pr,
			     const struct mrdem_spring *old, struct mrdem_spring *out);

/* The springs of the n entries of a Verlet list: cur, the frame's; next,
 * the step's; order, the entries by their pair's ids (the history's order). */
struct mrdem_sphere_springs {
	size_t n, cap;
	struct mrdem_spring *cur, *next;
	size_t *order;
};

void mrdem_sphere_springs_init(struct mrdem_sphere_springs *sp);
void mrdem_sphere_springs_release(struct mrdem_sphere_springs *sp);
/* For a list of n entries, the pair of entry k of ids a[k], b[k] (b a
 * plane id for a plane): its spring from history h (the first of its
 * pair, which for spheres is the only one), else none. */
void mrdem_sphere_springs_load(struct mrdem_sphere_springs *sp, const struct mrdem_history *h,
			       const uint64_t *a, const uint64_t *b, size_t n);
/* After a step: its springs become the frame's, and h the springs in
 * contact, sorted by ids as the general path leaves them. */
void mrdem_sphere_springs_advance(struct mrdem_sphere_springs *sp, struct mrdem_history *h);

#endif
