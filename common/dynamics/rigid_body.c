#include "common/dynamics/rigid_body.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/quat.h"
#include "common/geom/vec3.h"
#include "common/util/error.h"

/* The midpoint iteration contracts by about dt |w| per sweep; at usable
 * time steps (dt |w| << 1) a handful of sweeps reach rounding level. */
#define MIDPOINT_MAX_SWEEPS 32
#define MIDPOINT_TOL 1e-15

void mrdem_bodies_init(struct mrdem_bodies *b)
{
	memset(b, 0, sizeof *b);
}

void mrdem_bodies_release(struct mrdem_bodies *b)
{
	free(b->b);
	mrdem_bodies_init(b);
}

void mrdem_inertia_matrix(double m[9], const double six[6])
{
	m[0] = six[0], m[1] = six[3], m[2] = six[5];
	m[3] = six[3], m[4] = six[1], m[5] = six[4];
	m[6] = six[5], m[7] = six[4], m[8] = six[2];
}

int mrdem_spd3_inverse(double inv[9], const double m[9])
{
	double c0 = m[4] * m[8] - m[5] * m[7];
	double c1 = m[5] * m[6] - m[3] * m[8];
	double c2 = m[3] * m[7] - m[4] * m[6];
	double det = m[0] * c0 + m[1] * c1 + m[2] * c2;
	/* Sylvester's criterion on the leading minors. */
	if (!(m[0] > 0) || !(m[0] * m[4] - m[1] * m[3] > 0) || !(det > 0) || !isfinite(det))
		return -1;
	double r = 1.0 / det;
	inv[0] = c0 * r;
	inv[1] = (m[2] * m[7] - m[1] * m[8]) * r;
	inv[2] = (m[1] * m[5] - m[2] * m[4]) * r;
	inv[3] = c1 * r;
	inv[4] = (m[0] * m[8] - m[2] * m[6]) * r;
	inv[5] = (m[2] * m[3] - m[0] * m[5]) * r;
	inv[6] = c2 * r;
	inv[7] = (m[1] * m[6] - m[0] * m[7]) * r;
	inv[8] = (m[0] * m[4] - m[1] * m[3]) * r;
	return 0;
}

long mrdem_particles_unsteppable(const struct mrdem_particles *p, char *why, size_t n)
{
	for (size_t i = 0; i < p->n; i++) {
		double rho = p->density[i];
		if (!(p->flags[i] & MRDEM_PARTICLE_FIXED) && !(rho > 0 && isfinite(rho))) {
			snprintf(why, n, "density %g; a free particle needs a positive density",
				 rho);
			return (long)i;
		}
	}
	return -1;
}

int mrdem_bodies_compute(struct mrdem_bodies *b, const struct mrdem_scene *s)
{
	const struct mrdem_particles *p = &s->frame.p;
	if (p->n > b->cap) {
		b->b = mrdem_xrealloc(b->b, p->n * sizeof *b->b);
		b->cap = p->n;
	}
	b->n = p->n;
	/* Invert each shape's tensor once, scale per particle. */
	double *shape_inv = mrdem_xmalloc_array(s->nshapes ? s->nshapes : 1, 9 * sizeof(double));
	unsigned char *shape_ok = mrdem_xcalloc(s->nshapes ? s->nshapes : 1, 1);
	for (uint32_t k = 0; k < s->nshapes; k++) {
		const struct mrdem_mesh *m = &s->shapes[k].mesh;
		double I[9];
		mrdem_inertia_matrix(I, m->mass.inertia);
		shape_ok[k] = !m->open && m->mass.volume > 0 && isfinite(m->mass.volume) &&
			      mrdem_spd3_inverse(&shape_inv[9 * k], I) == 0;
	}
	int rc = 0;
	for (size_t i = 0; i < p->n; i++) {
		struct mrdem_body *bi = &b->b[i];
		memset(bi, 0, sizeof *bi);
		if (p->flags[i] & MRDEM_PARTICLE_FIXED)
			continue;
		uint32_t k = p->shape[i];
		if (k >= s->nshapes) {
			rc = mrdem_error("particle %llu uses shape %u, but the scene has %u shapes",
					 (unsigned long long)p->id[i], k, s->nshapes);
			break;
		}
		const struct mrdem_shape *sh = &s->shapes[k];
		if (!shape_ok[k]) {
			rc = mrdem_error("particle %llu is free but its shape '%s' has no valid mass "
					 "properties (open mesh, zero volume or inertia tensor not "
					 "positive definite)",
					 (unsigned long long)p->id[i], sh->name);
			break;
		}
		double rho = p->density[i];
		if (!(rho > 0) || !isfinite(rho)) {
			rc = mrdem_error("particle %llu has density %g; a free particle needs a "
					 "positive density",
					 (unsigned long long)p->id[i], rho);
			break;
		}
		bi->mass = rho * sh->mesh.mass.volume;
		bi->inv_mass = 1.0 / bi->mass;
		mrdem_inertia_matrix(bi->inertia, sh->mesh.mass.inertia);
		for (int r = 0; r < 9; r++) {
			bi->inertia[r] *= rho;
			bi->inv_inertia[r] = shape_inv[9 * k + r] / rho;
		}
	}
	free(shape_inv);
	free(shape_ok);
	return rc;
}

void mrdem_body_world_inertia(double iw[9], const struct mrdem_body *b, const double q[4])
{
	double R[9], t[9];
	quat_to_matrix(q, R);
	/* t = I_b R^T, then iw = R t */
	for (int r = 0; r < 3; r++)
		for (int c = 0; c < 3; c++)
			t[3 * r + c] = b->inertia[3 * r + 0] * R[3 * c + 0] +
				       b->inertia[3 * r + 1] * R[3 * c + 1] +
				       b->inertia[3 * r + 2] * R[3 * c + 2];
	for (int r = 0; r < 3; r++)
		for (int c = 0; c < 3; c++)
			iw[3 * r + c] = R[3 * r + 0] * t[0 * 3 + c] + R[3 * r + 1] * t[1 * 3 + c] +
					R[3 * r + 2] * t[2 * 3 + c];
}

/* o = R M R^T v for a body-frame matrix M. */
static void apply_world(double o[3], const double M[9], const double R[9], const double v[3])
{
	double vb[3], ob[3];
	mat3_apply_transpose(vb, R, v);
	mat3_apply(ob, M, vb);
	mat3_apply(o, R, ob);
}

void mrdem_body_angmom(double L[3], const struct mrdem_body *b, const double q[4],
		       const double w[3])
{
	double R[9];
	quat_to_matrix(q, R);
	apply_world(L, b->inertia, R, w);
}

void mrdem_body_angvel(double w[3], const struct mrdem_body *b, const double q[4],
		       const double L[3])
{
	double R[9];
	quat_to_matrix(q, R);
	apply_world(w, b->inv_inertia, R, L);
}

void mrdem_body_angmom_at(double L[3], const struct mrdem_body *b, const double R[9],
			  const double w[3])
{
	apply_world(L, b->inertia, R, w);
}

void mrdem_body_angvel_at(double w[3], const struct mrdem_body *b, const double R[9],
			  const double L[3])
{
	apply_world(w, b->inv_inertia, R, L);
}

void mrdem_quat_advance(double q[4], const double w[3], double dt)
{
	double wn = vec3_norm(w);
	if (wn > 0 && dt != 0) {
		double half = 0.5 * wn * dt, s = sin(half) / wn;
		double dq[4] = {cos(half), w[0] * s, w[1] * s, w[2] * s};
		double o[4];
		quat_mul(o, dq, q);
		memcpy(q, o, sizeof o);
	}
	quat_normalize(q);
}

void mrdem_body_rotate_free(double q[4], double w_new[3], const struct mrdem_body *b,
			    const double L[3], double dt)
{
	double R[9];
	quat_to_matrix(q, R);
	mrdem_body_rotate_free_at(q, R, w_new, b, L, dt);
}

void mrdem_body_rotate_free_at(double q[4], const double R[9], double w_new[3],
			       const struct mrdem_body *b, const double L[3], double dt)
{
	double w[3], wm[3], qm[4];
	mrdem_body_angvel_at(w, b, R, L);
	for (int k = 0; k < MIDPOINT_MAX_SWEEPS; k++) {
		memcpy(qm, q, sizeof qm);
		mrdem_quat_advance(qm, w, 0.5 * dt);
		mrdem_body_angvel(wm, b, qm, L);
		double d[3];
		vec3_sub(d, wm, w);
		vec3_copy(w, wm);
		if (vec3_norm(d) <= MIDPOINT_TOL * vec3_norm(wm))
			break;
	}
	mrdem_quat_advance(q, w, dt);
	mrdem_body_angvel(w_new, b, q, L);
}
