#include "common/dynamics/energy.h"

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

void mrdem_energy_compute(struct mrdem_energy *e, const struct mrdem_scene *s,
			  const struct mrdem_bodies *b)
{
	const struct mrdem_particles *p = &s->frame.p;
	memset(e, 0, sizeof *e);
	for (size_t i = 0; i < p->n; i++) {
		const struct mrdem_body *bi = &b->b[i];
		if (bi->mass == 0)
			continue;
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
}

double mrdem_energy_total(const struct mrdem_energy *e)
{
	return e->translational + e->rotational + e->gravity + e->contact;
}

void mrdem_energy_expectation(const struct mrdem_setup *s, int scheme, const char **contacts,
			      const char **integrator)
{
	int damped = (s->force_model == MRDEM_FORCE_SPRING_DASHPOT && s->damping > 0) ||
		     (MRDEM_FORCE_MODEL_HAS_SPRINGS(s->force_model) &&
		      (s->restitution < 1 || s->rolling_friction > 0 || s->twisting_friction > 0));
	int rubs = s->friction > 0;
	*contacts = damped && rubs ? "contact damping and friction dissipate energy at every contact"
		    : damped   ? "contact damping dissipates energy at every contact"
		    : rubs     ? "friction dissipates energy at sliding contacts"
			       : "no contact damping or friction: contacts return the energy they store";
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
