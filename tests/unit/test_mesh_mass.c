/* Polyhedral mass properties against analytic values and an independent
 * tetrahedron-sum reference; rigid motions transform them exactly. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/vec3.h"
#include "common/mesh/mesh.h"
#include "common/util/rng.h"
#include "tests/lib/tap.h"

/* Independent reference: sum over tetrahedra (origin, a, b, c) of the
 * signed volume and of the second-moment matrix
 * integral(w w^T) = det/120 * (sum_i w_i w_i^T + s s^T), s = sum_i w_i. */
static void reference(const struct mrdem_mesh *m, double *vol, double first[3], double second[3][3])
{
	*vol = 0;
	memset(first, 0, 3 * sizeof *first);
	memset(second, 0, 9 * sizeof **second);
	for (uint32_t t = 0; t < m->ntris; t++) {
		const double *w[3];
		for (int i = 0; i < 3; i++)
			w[i] = &m->verts[3 * (size_t)m->tris[3 * t + i]];
		double n[3], s[3];
		vec3_cross(n, w[1], w[2]);
		double det = vec3_dot(w[0], n);
		*vol += det / 6;
		for (int k = 0; k < 3; k++) {
			s[k] = w[0][k] + w[1][k] + w[2][k];
			first[k] += det / 24 * s[k];
		}
		for (int a = 0; a < 3; a++)
			for (int b = 0; b < 3; b++) {
				double sum = s[a] * s[b];
				for (int i = 0; i < 3; i++)
					sum += w[i][a] * w[i][b];
				second[a][b] += det / 120 * sum;
			}
	}
}

/* Full 3x3 tensor from the xx yy zz xy yz xz layout. */
static void tensor(const double in[6], double I[3][3])
{
	I[0][0] = in[0], I[1][1] = in[1], I[2][2] = in[2];
	I[0][1] = I[1][0] = in[3];
	I[1][2] = I[2][1] = in[4];
	I[0][2] = I[2][0] = in[5];
}

static void rotation_matrix(const double q[4], double R[3][3])
{
	double w = q[0], x = q[1], y = q[2], z = q[3];
	R[0][0] = 1 - 2 * (y * y + z * z), R[0][1] = 2 * (x * y - w * z), R[0][2] = 2 * (x * z + w * y);
	R[1][0] = 2 * (x * y + w * z), R[1][1] = 1 - 2 * (x * x + z * z), R[1][2] = 2 * (y * z - w * x);
	R[2][0] = 2 * (x * z - w * y), R[2][1] = 2 * (y * z + w * x), R[2][2] = 1 - 2 * (x * x + y * y);
}

static void test_box(double a, double b, double c, unsigned n)
{
	struct mrdem_mesh m;
	mrdem_mesh_init(&m);
	double size[3] = { a, b, c };
	tap_ok(mrdem_mesh_box(&m, size, n) == 0, "box %gx%gx%g n=%u builds", a, b, c, n);
	double v = a * b * c, tol = 1e-13 * v * (a * a + b * b + c * c);
	tap_near(m.mass.volume, v, 1e-14 * v, "box %gx%gx%g n=%u volume", a, b, c, n);
	tap_near(vec3_norm(m.mass.com), 0, 1e-14 * (a + b + c), "box com at the origin");
	tap_near(m.mass.inertia[0], v * (b * b + c * c) / 12, tol, "box Ixx");
	tap_near(m.mass.inertia[1], v * (a * a + c * c) / 12, tol, "box Iyy");
	tap_near(m.mass.inertia[2], v * (a * a + b * b) / 12, tol, "box Izz");
	tap_near(fabs(m.mass.inertia[3]) + fabs(m.mass.inertia[4]) + fabs(m.mass.inertia[5]), 0, tol,
		 "box products of inertia vanish");
	mrdem_mesh_release(&m);
}

static void test_cylinder(double r, double h, unsigned s)
{
	struct mrdem_mesh m;
	mrdem_mesh_init(&m);
	tap_ok(mrdem_mesh_cylinder(&m, r, h, s) == 0, "cylinder r=%g h=%g s=%u builds", r, h, s);
	/* regular s-gon prism: exact polygon area and polar moment */
	double al = 2 * M_PI / s, area = s * r * r * sin(al) / 2;
	double polar = s * pow(r, 4) * sin(al) * (2 + cos(al)) / 12;
	double v = area * h;
	tap_near(m.mass.volume, v, 1e-13 * v, "cylinder volume = polygon area * height");
	tap_near(m.mass.inertia[2], h * polar, 1e-12 * h * polar, "cylinder Izz");
	double ixx = h * polar / 2 + area * h * h * h / 12;
	tap_near(m.mass.inertia[0], ixx, 1e-12 * ixx, "cylinder Ixx");
	tap_near(m.mass.inertia[1], ixx, 1e-12 * ixx, "cylinder Iyy");
	mrdem_mesh_release(&m);
}

static double sphere_volume_error(uint32_t tris)
{
	struct mrdem_sphere_opts o;
	struct mrdem_mesh m;
	mrdem_sphere_opts_default(&o);
	o.triangles = tris;
	mrdem_mesh_init(&m);
	if (mrdem_mesh_sphere(&m, &o))
		return NAN;
	double err = 4.0 / 3 * M_PI - m.mass.volume;
	mrdem_mesh_release(&m);
	return err;
}

static void test_icosphere(void)
{
	struct mrdem_sphere_opts o;
	struct mrdem_mesh m;
	mrdem_sphere_opts_default(&o);
	o.triangles = 5120;
	o.radius = 1.5;
	mrdem_mesh_init(&m);
	tap_ok(mrdem_mesh_sphere(&m, &o) == 0, "icosphere 5120 builds");

	double vol, first[3], second[3][3];
	reference(&m, &vol, first, second);
	tap_near(m.mass.volume, vol, 1e-13 * vol, "icosphere volume = tetrahedron sum");

	/* inscribed polyhedron: between the sphere through the nearest face
	 * plane and the circumscribed sphere */
	double dmin = INFINITY;
	for (uint32_t t = 0; t < m.ntris; t++) {
		const double *a = &m.verts[3 * m.tris[3 * t]], *b = &m.verts[3 * m.tris[3 * t + 1]],
			     *c = &m.verts[3 * m.tris[3 * t + 2]];
		double e1[3], e2[3], n[3];
		vec3_sub(e1, b, a);
		vec3_sub(e2, c, a);
		vec3_cross(n, e1, e2);
		vec3_normalize(n);
		dmin = fmin(dmin, vec3_dot(n, a));
	}
	double vs = 4.0 / 3 * M_PI * pow(1.5, 3);
	tap_ok(m.mass.volume < vs && m.mass.volume > 4.0 / 3 * M_PI * pow(dmin, 3),
	       "icosphere volume %.9g between inscribed %.9g and circumscribed %.9g", m.mass.volume,
	       4.0 / 3 * M_PI * pow(dmin, 3), vs);

	/* sphere inertia 2/5 m r^2, up to the same O(h^2) discretisation */
	double isph = 0.4 * vs * 1.5 * 1.5;
	for (int k = 0; k < 3; k++)
		tap_near(m.mass.inertia[k], isph, 0.01 * isph, "icosphere I[%d] ~ 2/5 m r^2", k);
	double I[3][3];
	tensor(m.mass.inertia, I);
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++) {
			/* reference about the com (com ~ 0 by symmetry, use it anyway) */
			double want = (a == b ? second[0][0] + second[1][1] + second[2][2] : 0) -
				      second[a][b];
			want -= (a == b ? vol * vec3_norm2(m.mass.com) : 0) -
				vol * m.mass.com[a] * m.mass.com[b];
			tap_near(I[a][b], want, 1e-12 * isph, "icosphere I[%d][%d] = reference", a, b);
		}
	mrdem_mesh_release(&m);

	/* second-order convergence: the volume error drops ~4x per split */
	double e1 = sphere_volume_error(320), e2 = sphere_volume_error(1280),
	       e3 = sphere_volume_error(5120);
	tap_ok(e1 > 0 && e2 > 0 && e3 > 0, "icosphere volume errors positive (%g %g %g)", e1, e2, e3);
	tap_ok(e1 / e2 > 3.6 && e1 / e2 < 4.4 && e2 / e3 > 3.8 && e2 / e3 < 4.2,
	       "volume error ratios %.4f %.4f ~ 4 (O(h^2))", e1 / e2, e2 / e3);
}

/* Rigid motion x -> R x + t: volume unchanged, com -> R com + t,
 * inertia -> R I R^T, for random motions of an asymmetric bumpy sphere. */
static void test_rigid_motion(void)
{
	struct mrdem_sphere_opts o;
	struct mrdem_mesh m, w;
	mrdem_sphere_opts_default(&o);
	o.triangles = 320;
	o.noise = 1.8;
	o.seed = 7;
	o.stretch = 1.3;
	mrdem_mesh_init(&m);
	mrdem_mesh_init(&w);
	tap_ok(mrdem_mesh_sphere(&m, &o) == 0, "bumpy sphere builds");
	struct mrdem_rng rng;
	mrdem_rng_seed(&rng, 42);
	int bad = 0;
	double worst = 0;
	for (int trial = 0; trial < 20; trial++) {
		double q[4], R[3][3], t[3];
		mrdem_rng_quat(&rng, q);
		rotation_matrix(q, R);
		double scale = trial < 10 ? 1.0 : 1000.0; /* far from the origin too */
		for (int k = 0; k < 3; k++)
			t[k] = mrdem_rng_range(&rng, -scale, scale);
		mrdem_mesh_copy(&w, &m);
		for (uint32_t i = 0; i < w.nverts; i++) {
			const double *p = &m.verts[3 * i];
			for (int a = 0; a < 3; a++)
				w.verts[3 * i + a] =
					R[a][0] * p[0] + R[a][1] * p[1] + R[a][2] * p[2] + t[a];
		}
		struct mrdem_mass mm;
		mrdem_mesh_mass(&w, &mm);
		double I0[3][3], I1[3][3], err = fabs(mm.volume - m.mass.volume) / m.mass.volume;
		tensor(m.mass.inertia, I0);
		tensor(mm.inertia, I1);
		for (int a = 0; a < 3; a++) {
			double c = t[a];
			for (int b = 0; b < 3; b++)
				c += R[a][b] * m.mass.com[b];
			err = fmax(err, fabs(mm.com[a] - c));
			for (int b = 0; b < 3; b++) {
				double r = 0;
				for (int i = 0; i < 3; i++)
					for (int j = 0; j < 3; j++)
						r += R[a][i] * I0[i][j] * R[b][j];
				err = fmax(err, fabs(I1[a][b] - r) / m.mass.inertia[0]);
			}
		}
		worst = fmax(worst, err);
		bad += !(err < 1e-9);
	}
	tap_ok(!bad, "20 random rigid motions transform volume, com, inertia (worst rel. error %.3g)",
	       worst);
	tap_ok(fabs(m.mass.com[0]) > 1e-3 || fabs(m.mass.com[1]) > 1e-3,
	       "bumpy sphere's com is off the origin (%g %g %g), so the test moves it",
	       m.mass.com[0], m.mass.com[1], m.mass.com[2]);
	mrdem_mesh_release(&w);
	mrdem_mesh_release(&m);
}

int main(void)
{
	test_box(1, 1, 1, 1);
	test_box(2, 3, 0.5, 1);
	test_box(2, 3, 0.5, 4);
	test_cylinder(0.7, 2.5, 24);
	test_cylinder(2, 0.1, 5);
	test_icosphere();
	test_rigid_motion();
	return tap_done();
}
