#include "common/sim/overlap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dynamics/energy.h"
#include "common/geom/vec3.h"
#include "common/scene/scaled_shape.h"
#include "common/util/error.h"

struct id_pair {
	uint64_t a, b;
};

static int cmp_pair(const void *x, const void *y)
{
	const struct id_pair *p = x, *q = y;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return p->b < q->b ? -1 : p->b > q->b;
}

/* Distinct pairs among the n records' pairs (sorted in place): a pair's
 * records need not lie together in the list. */
static size_t count_pairs(struct id_pair *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_pair);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += i == 0 || cmp_pair(&v[i - 1], &v[i]) != 0;
	return k;
}

/* Kinetic energy, and gravity's potential energy above the lowest free
 * particle's centre. */
static void free_energy(struct mrdem_overlap *ov, const struct mrdem_scene *s,
			const struct mrdem_bodies *b)
{
	struct mrdem_energy e;
	mrdem_energy_compute(&e, s, b);
	ov->kinetic = e.translational + e.rotational;
	double g = sqrt(vec3_norm2(s->setup.gravity));
	ov->potential = 0;
	if (!(g > 0) || !(e.mass > 0))
		return;
	/* e.gravity = sum m |g| h_i, h = -x . g / |g| */
	const struct mrdem_particles *p = &s->frame.p;
	double hmin = INFINITY;
	for (size_t i = 0; i < p->n; i++)
		if (!(p->flags[i] & MRDEM_PARTICLE_FIXED))
			hmin = fmin(hmin, -vec3_dot(&p->pos[3 * i], s->setup.gravity) / g);
	ov->potential = fmax(0.0, e.gravity - e.mass * g * hmin);
}

void mrdem_overlap_summarise(struct mrdem_overlap *ov, const struct mrdem_contacts *c)
{
	struct id_pair *deep = mrdem_xmalloc((c->n ? c->n : 1) * sizeof *deep);
	size_t nd = 0;
	ov->contacts = c->n;
	for (size_t k = 0; k < c->n; k++) {
		const struct mrdem_contact *ck = &c->c[k];
		double halos = ck->depth + ck->dist;
		double frac = halos > 0 ? ck->depth / halos : 0;
		if (!(frac > MRDEM_OVERLAP_DEEP_FRACTION))
			continue;
		deep[nd++] = (struct id_pair){ck->a, ck->b};
		if (frac > ov->worst_fraction) {
			ov->worst_fraction = frac;
			ov->worst_depth = ck->depth;
			ov->worst_a = ck->a;
			ov->worst_b = ck->b;
		}
	}
	ov->deep = count_pairs(deep, nd);
	free(deep);
}

/* Contacts and energies with every mesh shape's tree at hand. */
static int measure(struct mrdem_scene *s, const struct mrdem_sim_opts *o,
		   struct mrdem_overlap *out)
{
	struct mrdem_broad *broad = mrdem_broad_new();
	struct mrdem_contact_finder *finder = mrdem_contact_finder_new();
	struct mrdem_pairs pairs;
	struct mrdem_contacts contacts;
	struct mrdem_contact_counts counts;
	struct mrdem_bodies bodies;
	struct mrdem_id_index index;
	struct mrdem_forces forces;
	mrdem_pairs_init(&pairs);
	mrdem_contacts_init(&contacts);
	mrdem_bodies_init(&bodies);
	mrdem_id_index_init(&index);
	mrdem_forces_init(&forces);
	struct mrdem_contact_opts co = o->contact;
	if (co.hierarchy == MRDEM_HIERARCHY_MULTISCALE || co.hierarchy == MRDEM_HIERARCHY_AUTO)
		co.hierarchy = MRDEM_HIERARCHY_SURROGATE; /* the same contacts at a frame */
	int rc = mrdem_broad_phase(broad, s, o->broad, &pairs, NULL) ||
		 mrdem_find_contacts(finder, s, &pairs, &co, &contacts, &counts) ||
		 mrdem_forces_of_frame(&forces, &bodies, &index, s, &contacts) ? -1 : 0;
	if (!rc) {
		out->contact_energy = forces.contact_energy;
		free_energy(out, s, &bodies);
		mrdem_overlap_summarise(out, &contacts);
	}
	mrdem_forces_release(&forces);
	mrdem_id_index_release(&index);
	mrdem_bodies_release(&bodies);
	mrdem_contacts_release(&contacts);
	mrdem_pairs_release(&pairs);
	mrdem_contact_finder_free(finder);
	mrdem_broad_free(broad);
	return rc;
}

int mrdem_overlap_measure(struct mrdem_scene *s, const struct mrdem_sim_opts *o,
			  struct mrdem_overlap *out)
{
	memset(out, 0, sizeof *out);
	int need_trees = o->contact.hierarchy != MRDEM_HIERARCHY_FLAT;
	unsigned char *built = mrdem_xcalloc(s->nshapes ? s->nshapes : 1, 1);
	int rc = 0;
	for (uint32_t i = 0; need_trees && i < s->nshapes && !rc; i++) {
		struct mrdem_shape *sh = &s->shapes[i];
		if (sh->kind != MRDEM_SHAPE_MESH || sh->tree)
			continue;
		if (mrdem_shape_is_scaled(sh)) { /* its base comes first: scale its tree */
			int got = mrdem_shape_scale_tree(s, i);
			rc = got < 0 ? -1 : 0;
			built[i] = got > 0;
		} else if (mrdem_tree_build(&sh->mesh, &o->tree, &sh->tree))
			rc = mrdem_error("shape %u '%s': cannot build its surrogate tree", i, sh->name);
		else
			built[i] = 1;
	}
	if (!rc)
		rc = measure(s, o, out);
	for (uint32_t i = 0; i < s->nshapes; i++)
		if (built[i]) {
			mrdem_tree_free(s->shapes[i].tree);
			s->shapes[i].tree = NULL;
		}
	free(built);
	return rc;
}

int mrdem_overlap_excessive(const struct mrdem_overlap *ov)
{
	return ov->deep > 0 && ov->contact_energy > ov->kinetic + ov->potential;
}

/* Name of particle or plane id (a plane as "plane K"). */
static void body_name(uint64_t id, char *buf, size_t size)
{
	if (mrdem_is_plane_id(id))
		snprintf(buf, size, "plane %llu", (unsigned long long)mrdem_plane_index(id));
	else
		snprintf(buf, size, "particle %llu", (unsigned long long)id);
}

void mrdem_overlap_describe(const struct mrdem_overlap *ov, char *buf, size_t size)
{
	char a[48], b[48];
	body_name(ov->worst_a, a, sizeof a);
	body_name(ov->worst_b, b, sizeof b);
	snprintf(buf, size,
		 "%zu initial overlap(s) deeper than %g of the halos; deepest: %s and %s, depth "
		 "%.4g m (%.3g of their halos); contact energy %.4g J against %.4g J of kinetic + "
		 "potential energy (%.4g + %.4g J, gravity above the lowest particle)",
		 ov->deep, MRDEM_OVERLAP_DEEP_FRACTION, a, b, ov->worst_depth, ov->worst_fraction,
		 ov->contact_energy, ov->kinetic + ov->potential, ov->kinetic, ov->potential);
}
