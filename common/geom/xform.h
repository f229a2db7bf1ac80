/* Rigid transforms between particle frames.
 *
 * Geometry kernels run in single precision in one particle's shape frame:
 * the other particle's triangles are mapped into it with a transform built
 * in double from both poses, so float keeps its accuracy however far the
 * particles are from the origin. Every path that maps triangles (flat and
 * surrogate search alike) goes through xform_apply_f, so both see the very
 * same float coordinates. */
#ifndef MRDEM_GEOM_XFORM_H
#define MRDEM_GEOM_XFORM_H

#include <stddef.h>

#include "common/geom/quat.h"

struct mrdem_xform {
	double r[9]; /* row-major rotation */
	double t[3]; /* translation */
};

/* Map from the shape frame of particle b to the shape frame of particle a,
 * given each particle's position (world centre of mass), orientation and
 * shape centre of mass: x_a = R_a^T (R_b (x_b - com_b) + pos_b - pos_a) + com_a. */
static inline void xform_relative(struct mrdem_xform *x, const double pos_a[3],
				  const double q_a[4], const double com_a[3],
				  const double pos_b[3], const double q_b[4],
				  const double com_b[3])
{
	double ra[9], rb[9], d[3], rbc[3];
	quat_to_matrix(q_a, ra);
	quat_to_matrix(q_b, rb);
	/* r = R_a^T R_b */
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			x->r[3 * i + j] = ra[i] * rb[j] + ra[3 + i] * rb[3 + j] + ra[6 + i] * rb[6 + j];
	/* t = R_a^T (pos_b - pos_a - R_b com_b) + com_a */
	mat3_apply(rbc, rb, com_b);
	for (int k = 0; k < 3; k++)
		d[k] = pos_b[k] - pos_a[k] - rbc[k];
	mat3_apply_transpose(x->t, ra, d);
	for (int k = 0; k < 3; k++)
		x->t[k] += com_a[k];
}

/* Map one point given in float through x, in double, rounded once. */
static inline void xform_apply_f(const struct mrdem_xform *x, const float in[3], float out[3])
{
	double p[3] = {in[0], in[1], in[2]}, o[3];
	mat3_apply(o, x->r, p);
	out[0] = (float)(o[0] + x->t[0]);
	out[1] = (float)(o[1] + x->t[1]);
	out[2] = (float)(o[2] + x->t[2]);
}

/* Map n triangles (9 floats each). */
static inline void xform_apply_tris(const struct mrdem_xform *x, const float *in, float *out,
				    size_t n)
{
	for (size_t i = 0; i < 3 * n; i++)
		xform_apply_f(x, &in[3 * i], &out[3 * i]);
}

/* Map a point given in double (contact points back to the world). */
static inline void xform_apply_d(const struct mrdem_xform *x, const double in[3], double out[3])
{
	mat3_apply(out, x->r, in);
	for (int k = 0; k < 3; k++)
		out[k] += x->t[k];
}

#endif
