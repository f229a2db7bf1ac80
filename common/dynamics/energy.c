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
