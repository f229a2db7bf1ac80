#include "common/dynamics/integrate.h"

#include <string.h>

#include "common/geom/vec3.h"

/* v += h F/m and L = I_w w + h T; returns L. */
static void kick(struct mrdem_particles *p, size_t i, const struct mrdem_body *b,
		 const double F[3], const double T[3], double h, double L[3])
{
	double *q = &p->quat[4 * i], *v = &p->vel[3 * i], *w = &p->angvel[3 * i];
	vec3_axpy(v, v, h * b->inv_mass, F);
	mrdem_body_angmom(L, b, q, w);
	vec3_axpy(L, L, h, T);
}

void mrdem_integrate_close(struct mrdem_particles *p, size_t i, const struct mrdem_body *b,
			   const double F[3], const double T[3], double dt)
{
	if (!(p->flags[i] & MRDEM_PARTICLE_HALF_KICK))
		return;
	p->flags[i] &= ~MRDEM_PARTICLE_HALF_KICK;
	if (p->flags[i] & MRDEM_PARTICLE_FIXED)
		return;
	double L[3];
	kick(p, i, b, F, T, 0.5 * dt, L);
	mrdem_body_angvel(&p->angvel[3 * i], b, &p->quat[4 * i], L);
}

void mrdem_integrate_advance(struct mrdem_particles *p, size_t i, const struct mrdem_body *b,
			     const double F[3], const double T[3], int scheme, double dt)
{
	double *x = &p->pos[3 * i], *q = &p->quat[4 * i], *v = &p->vel[3 * i];
	double *w = &p->angvel[3 * i];
	double L[3];
	if (p->flags[i] & MRDEM_PARTICLE_FIXED) {
		vec3_axpy(x, x, dt, v);
		mrdem_quat_advance(q, w, dt);
		return;
	}
	switch (scheme) {
	case MRDEM_SCHEME_EXPLICIT_EULER:
		/* Alg. 1: move with the old velocities, then update them. */
		mrdem_body_angmom(L, b, q, w);
		vec3_axpy(L, L, dt, T);
		vec3_axpy(x, x, dt, v);
		mrdem_quat_advance(q, w, dt);
		vec3_axpy(v, v, dt * b->inv_mass, F);
		mrdem_body_angvel(w, b, q, L);
		break;
	case MRDEM_SCHEME_SYMPLECTIC_EULER:
		kick(p, i, b, F, T, dt, L);
		vec3_axpy(x, x, dt, v);
		mrdem_body_rotate_free(q, w, b, L, dt);
		break;
	case MRDEM_SCHEME_VELOCITY_VERLET:
		kick(p, i, b, F, T, 0.5 * dt, L);
		vec3_axpy(x, x, dt, v);
		mrdem_body_rotate_free(q, w, b, L, dt);
		p->flags[i] |= MRDEM_PARTICLE_HALF_KICK;
		break;
	}
}
