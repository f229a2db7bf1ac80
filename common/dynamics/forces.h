/* Contact forces and torques per particle, from a frame's contact list.
 *
 * Each contact record (formats/stream/records.h) pushes particle a along its
 * normal and b the opposite way. The patch models (spring-dashpot, hooke,
 * hertz) first group the records of each particle pair into contact
 * patches and give each patch one contact law
 * (common/dynamics/contact_law.h), spread over its records. The paper's
 * spring is a law per record: F = Ks (1 - dist/(eps_a+eps_b)) sqrt(m_eff),
 * the paper's |n|/eps with |n| = dist/2 and eps = (eps_a+eps_b)/2, with
 * m_eff = 1/(1/m_a + 1/m_b) (the free particle's mass against a fixed
 * particle or a plane), and optional Coulomb friction regularised by the
 * normal contact's critical damping: |F_t| = min(mu F_n, 2 sqrt(k m_eff) |v_t|)
 * against the tangential slip velocity v_t. Multiscale guesses use the
 * per-record law of their model's spring. Gravity is added to every free
 * particle. Sums run in contact record order, so the result does not depend
 * on the number of threads. Formulas and units: docs/dynamics.md. */
#ifndef MRDEM_DYNAMICS_FORCES_H
#define MRDEM_DYNAMICS_FORCES_H

#include <stddef.h>

#include "common/scene/id_index.h"
#include "common/mesh/mesh_smooth.h"
#include "common/dynamics/rigid_body.h"
#include "common/scene/scene.h"
#include "common/scene/contacts.h"

struct mrdem_forces {
	size_t n, cap;
	double *force;        /* 3n, world frame, N */
	double *torque;       /* 3n, world frame, about the centre of mass, N m */
	/* per-contact scratch */
	size_t ccap;
	size_t *ia, *ib;      /* frame indices; ib = MRDEM_NO_INDEX for a plane */
	double *cf;           /* 3 per contact: force on a */
	double *ce;           /* elastic energy per contact */
	double *ct;           /* 3 per contact: torque on a besides cf's (rolling) */
	/* patch models (hooke, hertz): the patches of the last evaluation, each
	 * a run of pmember from pfirst[k] to pfirst[k + 1], and the springs
	 * they leave for the next step (the frame's history after it) */
	uint32_t nsmooth;
	struct mrdem_mesh_smooth *smooth; /* per shape */
	size_t npatch;
	size_t *pfirst, *pmember;
	struct mrdem_spring *pspring;
	unsigned char *used;
	size_t ucap;
	struct mrdem_history history;
	/* per guess (mrdem_forces_add_guesses): the same, damped force on a */
	size_t nguess, gcap;
	size_t *gia, *gib;
	double *gcf;
	/* summary of the last evaluation */
	size_t active;        /* contacts that exerted a force */
	size_t plane_active;  /* ... of them against analytic planes */
	double contact_energy;/* elastic energy stored in the contacts, J */
	double max_overlap;   /* largest depth / (eps_a + eps_b) */
	/* force and torque (about its point) on each analytic plane from the
	 * particles, summed in contact order like the particles' */
	uint32_t nplanes, plane_cap;
	double *plane_force, *plane_torque;
};

void mrdem_forces_init(struct mrdem_forces *f);

/* v = u + w x (x - c): the velocity at x of a rigid body whose point c
 * moves at u while it turns at w. */
static inline void mrdem_rigid_velocity(double v[3], const double u[3], const double w[3],
					const double c[3], const double x[3])
{
	double r[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
	v[0] = u[0] + w[1] * r[2] - w[2] * r[1];
	v[1] = u[1] + w[2] * r[0] - w[0] * r[2];
	v[2] = u[2] + w[0] * r[1] - w[1] * r[0];
}

/* Velocity of the material point at x of particle i of p, m/s (0 for
 * MRDEM_NO_INDEX: a plane). */
static inline void mrdem_point_velocity(double v[3], const struct mrdem_particles *p, size_t i,
					const double x[3])
{
	if (i == MRDEM_NO_INDEX) {
		v[0] = v[1] = v[2] = 0;
		return;
	}
	mrdem_rigid_velocity(v, &p->vel[3 * i], &p->angvel[3 * i], &p->pos[3 * i], x);
}
/* Velocity at x of side b of a contact: particle ib of s's frame, or for
 * ib == MRDEM_NO_INDEX plane b (its id), whose velocity and angular velocity
 * about its point a moving plane sets (common/scene/motion.h). */
static inline void mrdem_side_velocity(double v[3], const struct mrdem_scene *s, size_t ib,
				       uint64_t b, const double x[3])
{
	if (ib != MRDEM_NO_INDEX) {
		mrdem_point_velocity(v, &s->frame.p, ib, x);
		return;
	}
	const struct mrdem_plane *pl = &s->setup.planes[mrdem_plane_index(b)];
	mrdem_rigid_velocity(v, pl->vel, pl->angvel, pl->point, x);
}
void mrdem_forces_release(struct mrdem_forces *f);

/* Forces and torques on the particles of s->frame from gravity and the
 * contacts c (NULL: none), with bodies b and index ix built for the same
 * frame; the patch models stretch the springs of s->frame.history over a
 * step of dt and leave them in f->history. Fails with a message naming
 * the contact when it refers to an unknown particle or plane, is
 * inconsistent with the particles' halos, or yields a non-finite force. */
int mrdem_forces_compute(struct mrdem_forces *f, const struct mrdem_scene *s,
			 const struct mrdem_bodies *b, const struct mrdem_id_index *ix,
			 const struct mrdem_contacts *c, double dt);

/* The forces of a frame as a step from it applies them (for output:
 * mrdem-vtk): the bodies b and index ix of s's frame, then
 * mrdem_forces_compute with its contacts c. Afterwards f->cf holds the
 * force on particle a of every contact of c, f->force and f->torque the
 * totals per particle (gravity included). */
int mrdem_forces_of_frame(struct mrdem_forces *f, struct mrdem_bodies *b,
			  struct mrdem_id_index *ix, const struct mrdem_scene *s,
			  const struct mrdem_contacts *c);

/* Add damped force guesses of multiscale Picard (paper Alg. 6, remark 5)
 * to the forces of the last mrdem_forces_compute: each guess is a contact
 * of two surrogate triangles (common/narrow/contacts/particle_contacts.h), its halo
 * depth + dist those of the two nodes; its force is the contact law's for
 * that overlap times damping (0 < damping <= 1). Guesses store no energy
 * and do not count as active contacts. */
int mrdem_forces_add_guesses(struct mrdem_forces *f, const struct mrdem_scene *s,
			     const struct mrdem_bodies *b, const struct mrdem_id_index *ix,
			     const struct mrdem_contacts *g, double damping);

#endif
