#include "common/dynamics/integrate.h"

#include <string.h>

#include "common/geom/quat.h"
#include "common/geom/vec3.h"

/* v += h F/m and L = I_w w + h T, with R the particle's rotation matrix;
 * returns L. */
static void kick(struct mrdem_particles *p, size_t i, const struct mrdem_body *b,
		 const double R[9], const double F[3], const double T[3], double h, double L[3])
{
	double *v = &p->vel[3 * i], *w = &p->angvel[3 * i];
	vec3_axpy(v, v, h * b->inv_mass, F);
	mrdem_body_angmom_at(L, b, R, w);
	vec3_axpy(L, L, h, T);
}

/* 1/2 m |v|^2 + 1/2 w . L of particle i, whose angular momentum is L. */
static double kinetic(const struct mrdem_particles *p, size_t i, const struct mrdem_body *b,
		      const double L[3])
{
	return 0.5 * b->mass * vec3_norm2(&p->vel[3 * i]) + 0.5 * vec3_dot(&p->angvel[3 * i], L);
}

void mrdem_integrate_close(struct mrdem_particles *p, size_t i, const struct mrdem_body *b,
			   const double F[3], const double T[3], double dt, double *ke)
{
	uint32_t f = p->flags[i];
	if (ke)
		*ke = 0;
	if (f & MRDEM_PARTICLE_GHOST)
		return;
	p->flags[i] &= ~MRDEM_PARTICLE_HALF_KICK;
	if (f & MRDEM_PARTICLE_FIXED)
		return;
	double L[3];
	if (!(f & MRDEM_PARTICLE_HALF_KICK)) {
		if (ke) {
			mrdem_body_angmom(L, b, &p->quat[4 * i], &p->angvel[3 * i]);
			*ke = kinetic(p, i, b, L);
		}
		return;
	}
	double R[9];
	quat_to_matrix(&p->quat[4 * i], R);
	kick(p, i, b, R, F, T, 0.5 * dt, L);
	mrdem_body_angvel_at(&p->angvel[3 * i], b, R, L);
	if (ke)
		*ke = kinetic(p, i, b, L);
}

void mrdem_integrate_advance(struct mrdem_particles *p, size_t i, const struct mrdem_body *b,
			     const double F[3], const double T[3], int scheme, double dt,
			     double *ke)
{
	double *x = &p->pos[3 * i], *q = &p->quat[4 * i], *v = &p->vel[3 * i];
	double *w = &p->angvel[3 * i];
	double L[3] = {0, 0, 0}, R[9];
	if (ke)
		*ke = 0;
	if (p->flags[i] & MRDEM_PARTICLE_GHOST) /* its owner steps it */
		return;
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
		quat_to_matrix(q, R);
		kick(p, i, b, R, F, T, dt, L);
		vec3_axpy(x, x, dt, v);
		mrdem_body_rotate_free_at(q, R, w, b, L, dt);
		break;
	case MRDEM_SCHEME_VELOCITY_VERLET:
		quat_to_matrix(q, R);
		kick(p, i, b, R, F, T, 0.5 * dt, L);
		vec3_axpy(x, x, dt, v);
		mrdem_body_rotate_free_at(q, R, w, b, L, dt);
		p->flags[i] |= MRDEM_PARTICLE_HALF_KICK;
		break;
	}
	if (ke)
		*ke = kinetic(p, i, b, L);
}

void mrdem_implicit_place(struct mrdem_particles *p, size_t i, const double x0[3],
			  const double q0[4], const double v0[3], const double w0[3],
			  const double dv[3], const double dw[3], double dt)
{
	double *x = &p->pos[3 * i], *q = &p->quat[4 * i], *v = &p->vel[3 * i];
	double *w = &p->angvel[3 * i];
	if (p->flags[i] & MRDEM_PARTICLE_FIXED) {
		vec3_copy(v, v0);
		vec3_copy(w, w0);
	} else {
		vec3_add(v, v0, dv);
		vec3_add(w, w0, dw);
	}
	vec3_axpy(x, x0, dt, v);
	memcpy(q, q0, 4 * sizeof *q);
	mrdem_quat_advance(q, w, dt);
}

void mrdem_implicit_torque(double T0[3], const struct mrdem_body *b, const double x0[3],
			   const double x[3], const double F[3], const double T[3],
			   const double g[3])
{
	if (b->inv_mass == 0) {
		vec3_set(T0, 0, 0, 0);
		return;
	}
	double shift[3], fc[3], t[3];
	vec3_sub(shift, x, x0);
	vec3_axpy(fc, F, -b->mass, g);
	vec3_cross(t, shift, fc);
	vec3_add(T0, T, t);
}

void mrdem_implicit_update(double dv[3], double dw[3], const struct mrdem_body *b,
			   const double q0[4], const double q[4], const double w0[3],
			   const double F[3], const double T0[3], double dt)
{
	if (b->inv_mass == 0) {
		vec3_set(dv, 0, 0, 0);
		vec3_set(dw, 0, 0, 0);
		return;
	}
	double L[3], w[3];
	vec3_scale(dv, F, dt * b->inv_mass);
	mrdem_body_angmom(L, b, q0, w0);
	vec3_axpy(L, L, dt, T0);
	mrdem_body_angvel(w, b, q, L);
	vec3_sub(dw, w, w0);
}

void mrdem_implicit_finish(struct mrdem_particles *p, size_t i, const struct mrdem_body *b,
			   const double q0[4], const double w0[3], const double T0[3], double dt)
{
	if (p->flags[i] & MRDEM_PARTICLE_FIXED)
		return;
	double L[3];
	mrdem_body_angmom(L, b, q0, w0);
	vec3_axpy(L, L, dt, T0);
	mrdem_body_angvel(&p->angvel[3 * i], b, &p->quat[4 * i], L);
}
