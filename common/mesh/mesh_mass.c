/* Exact mass properties of a closed, outward-oriented triangle mesh
 * (D. Eberly, "Polyhedral Mass Properties (Revisited)", 2002): the volume
 * integrals of 1, x, y, z, x^2, y^2, z^2, xy, yz, zx are turned into
 * surface integrals by the divergence theorem and evaluated exactly per
 * triangle. Coordinates are taken relative to the bounding-box centre so a
 * mesh far from the origin loses no precision to cancellation. */
#include <string.h>

#include "common/geom/vec3.h"
#include "common/mesh/mesh.h"

static void subexpressions(double w0, double w1, double w2, double *f1, double *f2, double *f3,
			   double *g0, double *g1, double *g2)
{
	double t0 = w0 + w1, t1 = w0 * w0, t2 = t1 + w1 * t0;
	*f1 = t0 + w2;
	*f2 = t2 + w2 * *f1;
	*f3 = w0 * t1 + w1 * t2 + w2 * *f2;
	*g0 = *f2 + w0 * (*f1 + w0);
	*g1 = *f2 + w1 * (*f1 + w1);
	*g2 = *f2 + w2 * (*f1 + w2);
}

void mrdem_mesh_mass(const struct mrdem_mesh *m, struct mrdem_mass *out)
{
	double lo[3], hi[3], ref[3];
	mrdem_mesh_bbox(m, lo, hi);
	for (int k = 0; k < 3; k++)
		ref[k] = 0.5 * (lo[k] + hi[k]);

	double in[10] = { 0 }; /* 1, x, y, z, x2, y2, z2, xy, yz, zx */
	for (uint32_t t = 0; t < m->ntris; t++) {
		const uint32_t *f = &m->tris[3 * (size_t)t];
		double p[3][3];
		for (int i = 0; i < 3; i++)
			vec3_sub(p[i], &m->verts[3 * (size_t)f[i]], ref);
		double e1[3], e2[3], d[3];
		vec3_sub(e1, p[1], p[0]);
		vec3_sub(e2, p[2], p[0]);
		vec3_cross(d, e1, e2);

		double f1x, f2x, f3x, g0x, g1x, g2x;
		double f1y, f2y, f3y, g0y, g1y, g2y;
		double f1z, f2z, f3z, g0z, g1z, g2z;
		subexpressions(p[0][0], p[1][0], p[2][0], &f1x, &f2x, &f3x, &g0x, &g1x, &g2x);
		subexpressions(p[0][1], p[1][1], p[2][1], &f1y, &f2y, &f3y, &g0y, &g1y, &g2y);
		subexpressions(p[0][2], p[1][2], p[2][2], &f1z, &f2z, &f3z, &g0z, &g1z, &g2z);

		in[0] += d[0] * f1x;
		in[1] += d[0] * f2x;
		in[2] += d[1] * f2y;
		in[3] += d[2] * f2z;
		in[4] += d[0] * f3x;
		in[5] += d[1] * f3y;
		in[6] += d[2] * f3z;
		in[7] += d[0] * (p[0][1] * g0x + p[1][1] * g1x + p[2][1] * g2x);
		in[8] += d[1] * (p[0][2] * g0y + p[1][2] * g1y + p[2][2] * g2y);
		in[9] += d[2] * (p[0][0] * g0z + p[1][0] * g1z + p[2][0] * g2z);
	}
	static const double scale[10] = { 1.0 / 6,   1.0 / 24,  1.0 / 24,  1.0 / 24,  1.0 / 60,
					  1.0 / 60,  1.0 / 60,  1.0 / 120, 1.0 / 120, 1.0 / 120 };
	for (int i = 0; i < 10; i++)
		in[i] *= scale[i];

	memset(out, 0, sizeof *out);
	double v = in[0];
	out->volume = v;
	if (!(v != 0)) {
		vec3_copy(out->com, ref);
		return;
	}
	double c[3] = { in[1] / v, in[2] / v, in[3] / v }; /* relative to ref */
	/* second moments about the centre of mass (parallel axis theorem) */
	double xx = in[4] - v * c[0] * c[0], yy = in[5] - v * c[1] * c[1],
	       zz = in[6] - v * c[2] * c[2];
	out->inertia[0] = yy + zz;
	out->inertia[1] = xx + zz;
	out->inertia[2] = xx + yy;
	/* + 0.0 turns an exact -0 into 0 for readers */
	out->inertia[3] = -(in[7] - v * c[0] * c[1]) + 0.0;
	out->inertia[4] = -(in[8] - v * c[1] * c[2]) + 0.0;
	out->inertia[5] = -(in[9] - v * c[2] * c[0]) + 0.0;
	vec3_add(out->com, c, ref);
}
