/* Overlaps a scene starts with: particles placed inside each other's halos
 * (or across a plane) start with the elastic energy of that overlap, which
 * the first steps turn into speed. mrdem-init and mrdem-run measure a
 * scene's start with the library's own contact search and force models
 * (the same contacts and contact energy the first step will see) and
 * refuse a start whose contact energy exceeds the kinetic and potential
 * energy of the scene (docs/dynamics.md, "Initial overlaps"). */
#ifndef MRDEM_SIM_OVERLAP_H
#define MRDEM_SIM_OVERLAP_H

#include <stddef.h>
#include <stdint.h>

#include "common/sim/simulation.h"

/* A contact counts as an overlap when its depth exceeds this fraction of
 * the two halos (eps_a + eps_b); shallower ones are bodies touching, as in
 * settled piles and lattices whose halos just meet. */
#define MRDEM_OVERLAP_DEEP_FRACTION 0.5

struct mrdem_overlap {
	size_t contacts;          /* contact records at the frame */
	size_t deep;              /* particle pairs (or particle-plane) with an overlap */
	uint64_t worst_a, worst_b;/* ids of the deepest pair (b: MRDEM_PLANE_ID(k)) */
	double worst_depth;       /* its depth, m */
	double worst_fraction;    /* depth / (eps_a + eps_b) */
	double contact_energy;    /* elastic energy of every contact at the frame, J */
	double kinetic;           /* translational + rotational, J */
	/* gravity's potential energy above the lowest free particle's centre
	 * (sum m |g| (h_i - h_min), h the height against g): what the scene
	 * can release by falling that far; 0 without gravity, J */
	double potential;
};

/* Contacts and contact energy of s's current frame with the search
 * options o (broad method, contact options; the hierarchy surrogate
 * builds the missing trees of mesh shapes for the measure and frees them
 * again, so s is as it was). Returns 0, or -1 with a message. */
int mrdem_overlap_measure(struct mrdem_scene *s, const struct mrdem_sim_opts *o,
			  struct mrdem_overlap *out);

/* contacts, deep and the deepest pair of ov from the contacts c (an MPI
 * rank's own, whose sums the ranks then add). */
void mrdem_overlap_summarise(struct mrdem_overlap *ov, const struct mrdem_contacts *c);

/* Whether the overlaps hold more energy than the scene's kinetic and
 * potential energy (the start would throw particles out). */
int mrdem_overlap_excessive(const struct mrdem_overlap *ov);

/* One line describing ov: the overlaps' count, the deepest pair with ids
 * and depth, and the contact energy against kinetic + potential. */
void mrdem_overlap_describe(const struct mrdem_overlap *ov, char *buf, size_t size);


#endif
