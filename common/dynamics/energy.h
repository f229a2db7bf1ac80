/* Conserved and monitored quantities of a frame: kinetic energy
 * (translational and rotational), gravitational potential energy,
 * linear momentum and angular momentum about the origin. Fixed particles
 * (infinite mass, prescribed motion) are left out. Sums run in frame order. */
#ifndef MRDEM_DYNAMICS_ENERGY_H
#define MRDEM_DYNAMICS_ENERGY_H

#include "common/dynamics/rigid_body.h"
#include "common/scene/scene.h"

struct mrdem_energy {
	double translational;      /* sum 1/2 m |v|^2, J */
	double rotational;         /* sum 1/2 w . I_w w, J */
	double gravity;            /* sum -m g . x (zero at the origin), J */
	double contact;            /* elastic energy in the contacts (set by the caller), J */
	double momentum[3];        /* sum m v, kg m/s */
	double angular_momentum[3];/* sum m x cross v + I_w w, about the origin, kg m^2/s */
	double mass;               /* total mass of the free particles, kg */
};

/* Everything but .contact, which only a contact list can give (forces.h). */
void mrdem_energy_compute(struct mrdem_energy *e, const struct mrdem_scene *s,
			  const struct mrdem_bodies *b);
/* Every value NaN: the energies of a state that were not computed. */
void mrdem_energy_unknown(struct mrdem_energy *e);
/* Kinetic energy of free particle i, J. */
double mrdem_energy_kinetic(const struct mrdem_scene *s, const struct mrdem_bodies *b, size_t i);
/* The first free particle of frame particles [first, end) at which what
 * mrdem_energy_compute sums (its kinetic and gravitational energy,
 * momentum and angular momentum, or their sums over the range so far)
 * leaves the doubles: a finite velocity of 1e308 m/s has an infinite
 * energy, which every reader of the run's frames would refuse. Masses come
 * from the densities, so frames that detection tools take (free particles
 * of density 0) are measured too. Returns its index, with what is wrong in
 * why[n], or -1. */
long mrdem_energy_unbounded(const struct mrdem_scene *s, size_t first, size_t end, char *why,
			    size_t n);
/* translational + rotational + gravity + contact */
double mrdem_energy_total(const struct mrdem_energy *e);

/* What change of the total energy a run of setup s with this scheme should
 * show, in two phrases for a run's summary: whether the contacts dissipate
 * (damping, friction) and what the integrator adds (docs/dynamics.md). */
void mrdem_energy_expectation(const struct mrdem_setup *s, int scheme, const char **contacts,
			      const char **integrator);

#endif
