/* Contacts of pairs in which a shape is analytic (a sphere or an
 * ellipsoid, common/shape/analytic.h): against another analytic shape,
 * a triangle mesh, or an analytic plane. particle_contacts.c dispatches
 * to these by the two kinds; every function appends ordinary contact
 * records (tri = UINT32_MAX on an analytic side), normal from b to a,
 * dist signed (negative where the solids overlap), depth = eps_a + eps_b -
 * dist, the point at the centre of the halos' overlap as for meshes. */
#ifndef MRDEM_NARROW_ANALYTIC_CONTACTS_H
#define MRDEM_NARROW_ANALYTIC_CONTACTS_H

#include <stddef.h>
#include <stdint.h>

#include "common/scene/contacts.h"
#include "common/scene/scene.h"
#include "common/scene/stats.h"

/* Work of the analytic kernels (added to a stats record when nonzero). */
struct mrdem_analytic_counts {
	uint64_t pairs;            /* particle pairs with an analytic shape */
	uint64_t separation_tests; /* characteristic-polynomial tests (ellipsoid pairs) */
	uint64_t separated;        /* of those, pairs found apart */
	uint64_t optimisations;    /* two-variable optimisations run */
	uint64_t newton_steps;     /* their Newton iterations */
	uint64_t unconverged;      /* optimisations that stopped unconverged */
	uint64_t triangle_tests;   /* analytic shape against a mesh triangle, exactly */
	uint64_t nodes;            /* surrogate tree nodes visited for them */
};
void mrdem_analytic_counts_add(struct mrdem_analytic_counts *into,
			       const struct mrdem_analytic_counts *c);
void mrdem_analytic_counts_stats(const struct mrdem_analytic_counts *c, struct mrdem_stats *out);

/* Scratch of one thread for analytic-mesh pairs. */
struct mrdem_analytic_scratch;
struct mrdem_analytic_scratch *mrdem_analytic_scratch_new(void);
void mrdem_analytic_scratch_free(struct mrdem_analytic_scratch *w);

/* Particles ia and ib of s->frame, at least one of them analytic.
 * use_tree: prune a mesh side by its surrogate tree (which it must have),
 * else test each of its triangles. Contacts with a mesh come one per
 * triangle in reach, sorted by triangle (the caller merges them). */
void mrdem_analytic_pair(struct mrdem_analytic_scratch *w, const struct mrdem_scene *s, size_t ia,
			 size_t ib, int use_tree, struct mrdem_contacts *out,
			 struct mrdem_analytic_counts *cnt);

/* Analytic particle ia against plane k of the setup: at most one contact. */
void mrdem_analytic_plane(const struct mrdem_scene *s, size_t ia, uint32_t k,
			  struct mrdem_contacts *out);

#endif
