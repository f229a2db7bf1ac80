#include "common/dynamics/energy.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/geom/vec3.h"

double mrdem_energy_kinetic(const struct mrdem_scene *s, const struct mrdem_bodies *b, size_t i)
{
	const struct mrdem_particles *p = &s->frame.p;
	const struct mrdem_body *bi = &b->b[i];
	if (bi->mass == 0)
		return 0;
	double L[3];
	mrdem_body_angmom(L, bi, &p->quat[4 * i], &p->angvel[3 * i]);
	return 0.5 * bi->mass * vec3_norm2(&p->vel[3 * i]) + 0.5 * vec3_dot(&p->angvel[3 * i], L);
}

/* What free particle i of body bi adds to the sums of e. */
static void add_particle(struct mrdem_energy *e, const struct mrdem_scene *s,
			 const struct mrdem_body *bi, size_t i)
{
	const struct mrdem_particles *p = &s->frame.p;
	const double *x = &p->pos[3 * i], *v = &p->vel[3 * i], *w = &p->angvel[3 * i];
	double L[3], mv[3], xmv[3];
	mrdem_body_angmom(L, bi, &p->quat[4 * i], w);
	vec3_scale(mv, v, bi->mass);
	vec3_cross(xmv, x, mv);
	e->translational += 0.5 * bi->mass * vec3_norm2(v);
	e->rotational += 0.5 * vec3_dot(w, L);
	e->gravity -= bi->mass * vec3_dot(s->setup.gravity, x);
	vec3_add(e->momentum, e->momentum, mv);
	vec3_add(e->angular_momentum, e->angular_momentum, xmv);
	vec3_add(e->angular_momentum, e->angular_momentum, L);
	e->mass += bi->mass;
}

void mrdem_energy_compute(struct mrdem_energy *e, const struct mrdem_scene *s,
			  const struct mrdem_bodies *b)
{
	const struct mrdem_particles *p = &s->frame.p;
	memset(e, 0, sizeof *e);
	for (size_t i = 0; i < p->n; i++)
		if (b->b[i].mass != 0 && !(p->flags[i] & MRDEM_PARTICLE_GHOST))
			add_particle(e, s, &b->b[i], i);
}

void mrdem_energy_unknown(struct mrdem_energy *e)
{
	e->translational = e->rotational = e->gravity = e->contact = e->mass = NAN;
	for (int k = 0; k < 3; k++)
		e->momentum[k] = e->angular_momentum[k] = NAN;
}

/* The first sum of e that is not finite, by name, or NULL. */
static const char *unbounded_sum(const struct mrdem_energy *e)
{
	if (!isfinite(e->translational))
		return "translational kinetic energy";
	if (!isfinite(e->rotational))
		return "rotational kinetic energy";
	if (!isfinite(e->gravity))
		return "gravitational energy";
	for (int k = 0; k < 3; k++)
		if (!isfinite(e->momentum[k]))
			return "momentum";
	for (int k = 0; k < 3; k++)
		if (!isfinite(e->angular_momentum[k]))
			return "angular momentum";
	return isfinite(e->mass) ? NULL : "mass";
}

long mrdem_energy_unbounded(const struct mrdem_scene *s, size_t first, size_t end, char *why,
			    size_t n)
{
	const struct mrdem_particles *p = &s->frame.p;
	struct mrdem_energy sum, one;
	memset(&sum, 0, sizeof sum);
	for (size_t i = first; i < end && i < p->n; i++) {
		if ((p->flags[i] & MRDEM_PARTICLE_FIXED) || p->shape[i] >= s->nshapes)
			continue;
		const struct mrdem_mesh *m = &s->shapes[p->shape[i]].mesh;
		struct mrdem_body bi = {.mass = p->density[i] * m->mass.volume};
		mrdem_inertia_matrix(bi.inertia, m->mass.inertia);
		for (int r = 0; r < 9; r++)
			bi.inertia[r] *= p->density[i];
		memset(&one, 0, sizeof one);
		add_particle(&one, s, &bi, i);
		add_particle(&sum, s, &bi, i);
		const char *own = unbounded_sum(&one), *all = unbounded_sum(&sum);
		if (!own && !all)
			continue;
		const double *x = &p->pos[3 * i], *v = &p->vel[3 * i], *w = &p->angvel[3 * i];
		if (own)
			snprintf(why, n, "its %s is not finite (mass %g kg, position [%g, %g, %g] m, "
				 "velocity [%g, %g, %g] m/s, angular velocity [%g, %g, %g] rad/s)",
				 own, bi.mass, x[0], x[1], x[2], v[0], v[1], v[2], w[0], w[1], w[2]);
		else
			snprintf(why, n, "the %s summed over the particles up to this one is not finite",
				 all);
		return (long)i;
	}
	return -1;
}

double mrdem_energy_total(const struct mrdem_energy *e)
{
	return e->translational + e->rotational + e->gravity + e->contact;
}

void mrdem_energy_expectation(const struct mrdem_setup *s, int scheme, const char **contacts,
			      const char **integrator)
{
	/* any pair of materials that damps or rubs counts */
	const struct mrdem_materials *m = s->materials;
	struct mrdem_pair_law own;
	mrdem_setup_pair_law(s, &own);
	const struct mrdem_pair_law *laws = m && m->table ? m->table : &own;
	size_t npairs = m && m->table ? (size_t)m->n * m->n : 1;
	int damped = 0, rubs = 0;
	for (size_t k = 0; k < npairs; k++) {
		const struct mrdem_pair_law *l = &laws[k];
		damped |= (s->force_model == MRDEM_FORCE_SPRING_DASHPOT && l->damping > 0) ||
			  (MRDEM_FORCE_MODEL_HAS_SPRINGS(s->force_model) &&
			   (l->restitution < 1 || l->rolling_friction > 0 ||
			    l->twisting_friction > 0));
		rubs |= l->friction > 0;
	}
	*contacts = damped && rubs ? "contact damping and friction dissipate energy at every contact"
		    : damped   ? "contact damping dissipates energy at every contact"
		    : rubs     ? "friction dissipates energy at sliding contacts"
			       : "no contact damping or friction: contacts return the energy they store";
	if (s->nmotions)
		*contacts = "moving walls do work on the particles (not counted), and contacts "
			    "may dissipate it";
	switch (scheme) {
	case MRDEM_SCHEME_EXPLICIT_EULER:
		*integrator = "explicit Euler (first order, paper Alg. 1) adds energy at every "
			      "contact, more with larger dt";
		break;
	case MRDEM_SCHEME_SYMPLECTIC_EULER:
		*integrator = "symplectic Euler adds an error that shrinks as dt";
		break;
	case MRDEM_SCHEME_VELOCITY_VERLET:
		*integrator = "velocity Verlet (symplectic) adds an error that shrinks as dt^2";
		break;
	default:
		*integrator = "implicit Euler takes energy at every contact (numerical damping)";
		break;
	}
}
