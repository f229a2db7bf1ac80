/* Contacts of the analytic kinds (analytic-sphere, ellipsoid) through the
 * whole contact search (mrdem_find_contacts) and their geometry kernels:
 *
 * - closed forms: sphere-sphere, sphere-plane, ellipsoid-plane and a
 *   sphere or ellipsoid over a box mesh give the exact distance, normal,
 *   point and depth;
 * - against tessellations of the same shapes searched by the existing
 *   exact triangle kernel: the analytic distance lies below the mesh's by
 *   at most the tessellation error, which shrinks about 4x per icosphere
 *   refinement; the analytic-mesh kernel lies in between;
 * - the surrogate tree prunes analytic-mesh pairs without losing a contact
 *   (the same contacts as the flat search);
 * - random poses: the two-variable optimisation agrees with GJK, and the
 *   characteristic-polynomial test never calls touching or overlapping
 *   ellipsoids apart (also when grown by a halo). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/point_triangle.h"
#include "common/geom/quat.h"
#include "common/geom/vec3.h"
#include "common/mesh/mesh.h"
#include "common/narrow/contacts/particle_contacts.h"
#include "common/shape/ellipsoid.h"
#include "common/shape/gjk.h"
#include "common/tree/tree.h"
#include "common/util/error.h"
#include "common/util/rng.h"
#include "tests/lib/tap.h"

static uint32_t add_mesh_sphere(struct mrdem_scene *s, uint32_t tris, double stretch, int tree)
{
	struct mrdem_sphere_opts o;
	struct mrdem_mesh m;
	mrdem_sphere_opts_default(&o);
	o.triangles = tris;
	o.stretch = stretch;
	o.stretch_axis = 2;
	mrdem_mesh_init(&m);
	if (mrdem_mesh_sphere(&m, &o) || mrdem_mesh_validate(&m, 0, "test sphere"))
		mrdem_die("cannot make a sphere of %u triangles", tris);
	struct mrdem_tree *t = NULL;
	if (tree) {
		struct mrdem_tree_params p;
		mrdem_tree_params_default(&p);
		if (mrdem_tree_build(&m, &p, &t))
			mrdem_die("cannot build a tree");
	}
	uint32_t i = mrdem_scene_add_shape(s, "mesh", &m);
	s->shapes[i].tree = t;
	return i;
}

/* Smallest contact distance of the frame's particles 0 and 1 (NAN: none). */
static double min_dist(struct mrdem_contact_finder *f, struct mrdem_scene *s, int hierarchy,
		       struct mrdem_contacts *c)
{
	struct mrdem_contact_opts o;
	mrdem_contact_opts_default(&o);
	o.narrow.method = MRDEM_NARROW_COMPARISON;
	o.hierarchy = hierarchy;
	if (mrdem_find_contacts(f, s, NULL, &o, c, NULL))
		mrdem_die("contact search failed");
	double d = NAN;
	for (size_t i = 0; i < c->n; i++)
		if (c->c[i].b < MRDEM_PLANE_ID_MIN && !(c->c[i].dist >= d))
			d = c->c[i].dist;
	return d;
}

static void two_particles(struct mrdem_scene *s, uint32_t sa, uint32_t sb, const double xb[3],
			  const double qa[4], const double qb[4], double eps)
{
	s->frame.p.n = 0;
	size_t a = mrdem_particles_push(&s->frame.p, 1, sa);
	size_t b = mrdem_particles_push(&s->frame.p, 2, sb);
	memcpy(&s->frame.p.quat[4 * a], qa, 4 * sizeof(double));
	memcpy(&s->frame.p.quat[4 * b], qb, 4 * sizeof(double));
	vec3_copy(&s->frame.p.pos[3 * b], xb);
	s->frame.p.eps[a] = s->frame.p.eps[b] = eps;
}

static void test_closed_forms(struct mrdem_contact_finder *f)
{
	struct mrdem_scene s;
	struct mrdem_contacts c;
	mrdem_scene_init(&s);
	mrdem_contacts_init(&c);
	double r1[3] = {0.5, 0.5, 0.5}, r2[3] = {0.25, 0.25, 0.25}, el[3] = {0.3, 0.2, 0.1};
	uint32_t b1 = mrdem_scene_add_analytic(&s, "b1", MRDEM_SHAPE_SPHERE, r1);
	uint32_t b2 = mrdem_scene_add_analytic(&s, "b2", MRDEM_SHAPE_SPHERE, r2);
	double id[4] = {1, 0, 0, 0}, xb[3] = {0.6, 0.8, 0}; /* |xb| = 1: gap 0.25 */
	two_particles(&s, b1, b2, xb, id, id, 0.2);
	s.frame.p.eps[1] = 0.1;
	double d = min_dist(f, &s, MRDEM_HIERARCHY_AUTO, &c);
	tap_ok(c.n == 1 && c.c[0].tri_a == UINT32_MAX && c.c[0].tri_b == UINT32_MAX,
	       "sphere-sphere: one contact, no triangles");
	tap_near(d, 0.25, 1e-15, "sphere-sphere: distance |x_b - x_a| - r_a - r_b");
	tap_near(c.c[0].depth, 0.05, 1e-15, "sphere-sphere: depth eps_a + eps_b - dist");
	tap_ok(fabs(c.c[0].normal[0] + 0.6) < 1e-15 && fabs(c.c[0].normal[1] + 0.8) < 1e-15,
	       "sphere-sphere: normal from b to a");
	/* overlap centre: a's surface point (0.3, 0.4) moved along b->a by -(d + ea - eb)/2 */
	tap_near(c.c[0].x[0], 0.3 + 0.6 * 0.5 * (0.25 + 0.1), 1e-15, "sphere-sphere: point");

	/* planes: z = 0 and a tilted one; sphere and ellipsoid above */
	uint32_t e = mrdem_scene_add_analytic(&s, "e", MRDEM_SHAPE_ELLIPSOID, el);
	s.setup.plane_epsilon = 0.05;
	s.setup.nplanes = 1;
	s.setup.planes = calloc(1, sizeof *s.setup.planes);
	s.setup.planes[0].normal[2] = 1;
	s.frame.p.n = 0;
	size_t i = mrdem_particles_push(&s.frame.p, 7, e);
	double q[4], ax[3] = {0, 1, 0};
	quat_from_axis_angle(q, ax, M_PI / 6); /* 30 degrees about y */
	memcpy(&s.frame.p.quat[4 * i], q, sizeof q);
	s.frame.p.pos[3 * i + 2] = 0.15;
	s.frame.p.eps[i] = 0.02;
	if (mrdem_find_contacts(f, &s, NULL, &(struct mrdem_contact_opts){.hierarchy = 0,
						  .narrow = {.method = 0, .iterations = 4,
							     .threshold = 1}},
				&c, NULL))
		mrdem_die("contact search failed");
	/* support along -z of the rotated ellipsoid: sqrt((a sin30)^2 + (c cos30)^2) */
	double h = sqrt(pow(0.3 * sin(M_PI / 6), 2) + pow(0.1 * cos(M_PI / 6), 2));
	tap_ok(c.n == 1 && c.c[0].b == MRDEM_PLANE_ID(0), "ellipsoid-plane: one contact");
	tap_near(c.c[0].dist, 0.15 - h, 1e-15, "ellipsoid-plane: distance c_z - h(-n)");
	tap_near(c.c[0].depth, 0.07 - (0.15 - h), 1e-15, "ellipsoid-plane: depth");
	tap_near(c.c[0].x[2], 0.15 - h - 0.5 * (0.15 - h + 0.02 - 0.05), 1e-15,
		 "ellipsoid-plane: point at the centre of the halos' overlap");
	mrdem_contacts_release(&c);
	mrdem_scene_release(&s);
}

/* Sphere and ellipsoid over a fixed box mesh: the face distance is exact. */
static void test_over_box(struct mrdem_contact_finder *f)
{
	struct mrdem_scene s;
	struct mrdem_contacts c;
	struct mrdem_mesh m;
	mrdem_scene_init(&s);
	mrdem_contacts_init(&c);
	mrdem_mesh_init(&m);
	double size[3] = {4, 4, 1};
	if (mrdem_mesh_box(&m, size, 4) || mrdem_mesh_validate(&m, 0, "box"))
		mrdem_die("no box");
	uint32_t box = mrdem_scene_add_shape(&s, "box", &m);
	double r[3] = {0.3, 0.3, 0.3}, el[3] = {0.4, 0.25, 0.15};
	uint32_t kinds[2] = {mrdem_scene_add_analytic(&s, "ball", MRDEM_SHAPE_SPHERE, r),
			     mrdem_scene_add_analytic(&s, "grain", MRDEM_SHAPE_ELLIPSOID, el)};
	double q[4], ax[3] = {1, 1, 0}, id[4] = {1, 0, 0, 0};
	vec3_normalize(ax);
	quat_from_axis_angle(q, ax, 0.7);
	for (int k = 0; k < 2; k++) {
		struct mrdem_ellipsoid e;
		double R[9], c0[3] = {0.13, -0.21, 0}, down[3] = {0, 0, -1}, low[3];
		quat_to_matrix(q, R);
		mrdem_ellipsoid_set(&e, c0, R, s.shapes[kinds[k]].axes);
		mrdem_ellipsoid_support(&e, down, low);
		double gap = 0.004, xb[3] = {0.13, -0.21, 0.5 + gap - low[2]};
		two_particles(&s, box, kinds[k], xb, id, q, 0.01);
		s.frame.p.flags[0] = MRDEM_PARTICLE_FIXED;
		double d = min_dist(f, &s, MRDEM_HIERARCHY_FLAT, &c);
		tap_near(d, gap, 1e-12, "%s over a box mesh: exact face distance",
			 k ? "ellipsoid" : "sphere");
		tap_ok(c.n == 1 && c.c[0].tri_b == UINT32_MAX && c.c[0].tri_a != UINT32_MAX &&
			       fabs(c.c[0].normal[2] + 1) < 1e-12,
		       "%s over a box: one merged contact, box triangle on a, normal from b down",
		       k ? "ellipsoid" : "sphere");
	}
	mrdem_contacts_release(&c);
	mrdem_scene_release(&s);
}

/* The largest distance from the shape's surface (semi-axes ax) to a
 * triangle of its inscribed mesh: the height of the cap cut off by each
 * face plane, an upper bound of how much a tessellation can shorten a
 * support in any direction near that face. */
static double cap_height(const struct mrdem_mesh *m, const double ax[3])
{
	double worst = 0, q[9] = {ax[0] * ax[0], 0, 0, 0, ax[1] * ax[1], 0, 0, 0, ax[2] * ax[2]};
	for (uint32_t t = 0; t < m->ntris; t++) {
		const double *v0 = &m->verts[3 * m->tris[3 * t]], *v1 = &m->verts[3 * m->tris[3 * t + 1]],
			     *v2 = &m->verts[3 * m->tris[3 * t + 2]];
		double e1[3], e2[3], n[3], qn[3];
		vec3_sub(e1, v1, v0);
		vec3_sub(e2, v2, v0);
		vec3_cross(n, e1, e2);
		vec3_normalize(n);
		mat3_apply(qn, q, n);
		worst = fmax(worst, sqrt(vec3_dot(n, qn)) - vec3_dot(n, v0));
	}
	return worst;
}

/* Analytic spheres/ellipsoids against icospheres (stretched: spheroids) of
 * 80, 320 and 1280 triangles at random poses. */
static void test_tessellation(struct mrdem_contact_finder *f, double stretch, int kind)
{
	static const uint32_t levels[] = {80, 320, 1280};
	const char *what = kind == MRDEM_SHAPE_SPHERE ? "sphere" : "spheroid";
	double ax[3] = {1, 1, stretch}, err[3] = {0};
	int ok_order = 1, ok_bound = 1, ok_mixed = 1, ok_tree = 1, poses = 12;
	for (int l = 0; l < 3; l++) {
		struct mrdem_scene s;
		struct mrdem_contacts c, c2;
		struct mrdem_rng rng;
		mrdem_scene_init(&s);
		mrdem_contacts_init(&c);
		mrdem_contacts_init(&c2);
		mrdem_rng_seed(&rng, 42);
		uint32_t an = mrdem_scene_add_analytic(&s, "an", kind, ax);
		uint32_t me = add_mesh_sphere(&s, levels[l], stretch, 1);
		double cap = cap_height(&s.shapes[me].mesh, ax);
		for (int k = 0; k < poses; k++) {
			double qa[4], qb[4], dir[3], xb[3];
			mrdem_rng_quat(&rng, qa);
			mrdem_rng_quat(&rng, qb);
			for (int a = 0; a < 3; a++)
				dir[a] = mrdem_rng_normal(&rng);
			vec3_normalize(dir);
			/* place b at analytic gap g along dir */
			struct mrdem_ellipsoid A, B;
			double ra[9], rb[9], o[3] = {0, 0, 0};
			quat_to_matrix(qa, ra);
			quat_to_matrix(qb, rb);
			mrdem_ellipsoid_set(&A, o, ra, ax);
			vec3_scale(xb, dir, 3 * stretch);
			mrdem_ellipsoid_set(&B, xb, rb, ax);
			struct mrdem_ellipsoid_pair r;
			mrdem_ellipsoids_distance(&A, &B, NULL, &r);
			double g = mrdem_rng_range(&rng, 0, 0.02);
			vec3_axpy(xb, xb, g - r.dist, r.n);
			two_particles(&s, an, an, xb, qa, qb, 0.1);
			double d_an = min_dist(f, &s, MRDEM_HIERARCHY_FLAT, &c);
			two_particles(&s, me, me, xb, qa, qb, 0.1);
			double d_mesh = min_dist(f, &s, MRDEM_HIERARCHY_FLAT, &c);
			two_particles(&s, an, me, xb, qa, qb, 0.1);
			double d_mix = min_dist(f, &s, MRDEM_HIERARCHY_FLAT, &c);
			double d_mix_tree = min_dist(f, &s, MRDEM_HIERARCHY_SURROGATE, &c2);
			ok_tree &= c.n == c2.n && (c.n == 0 || !memcmp(c.c, c2.c, c.n * sizeof *c.c));
			(void)d_mix_tree;
			err[l] = fmax(err[l], fabs(d_mesh - d_an));
			/* float triangles: 1e-6 slack */
			int ok = fabs(d_an - g) < 1e-9 && d_mesh >= d_an - 1e-6 &&
				 d_mesh <= d_an + 2 * cap + 1e-6;
			if (!ok)
				tap_diag("pose %d: gap %.9g analytic %.9g mesh %.9g", k, g, d_an,
					 d_mesh);
			ok_bound &= ok;
			ok_mixed &= d_mix >= d_an - 1e-9 && d_mix <= d_an + cap + 1e-9;
		}
		tap_diag("%s vs %u-triangle mesh: max |d_mesh - d_analytic| %.3g, cap height %.3g",
			 what, levels[l], err[l], cap);
		if (l) /* about 4x (the caps' height goes with the edge squared) */
			ok_order &= err[l] < err[l - 1] / 2.5;
		mrdem_contacts_release(&c);
		mrdem_contacts_release(&c2);
		mrdem_scene_release(&s);
	}
	tap_ok(ok_bound, "%s: analytic distance below the meshes' by at most their cap heights",
	       what);
	tap_ok(ok_mixed, "%s: analytic-mesh distance between analytic and mesh-mesh", what);
	ok_order &= err[2] < err[0] / 10;
	tap_ok(ok_order, "%s: the difference shrinks about 4x per refinement (%.3g %.3g %.3g)",
	       what, err[0], err[1], err[2]);
	tap_ok(ok_tree, "%s against a mesh: the surrogate tree gives the flat search's contacts",
	       what);
}

/* Random poses: optimisation against GJK, and the separation test. */
static void test_random_poses(int n)
{
	struct mrdem_rng rng;
	mrdem_rng_seed(&rng, 7);
	int agree = 1, never_apart = 1, touching_apart = 0, grown_apart = 0, converged = 1;
	double worst = 0;
	long steps = 0;
	for (int k = 0; k < n; k++) {
		double qa[4], qb[4], ra[9], rb[9], aa[3], ab[3], ca[3] = {0, 0, 0}, cb[3];
		mrdem_rng_quat(&rng, qa);
		mrdem_rng_quat(&rng, qb);
		quat_to_matrix(qa, ra);
		quat_to_matrix(qb, rb);
		for (int a = 0; a < 3; a++) {
			aa[a] = mrdem_rng_range(&rng, 0.1, 1);
			ab[a] = mrdem_rng_range(&rng, 0.1, 1);
			cb[a] = mrdem_rng_range(&rng, -2, 2);
		}
		struct mrdem_ellipsoid A, B;
		mrdem_ellipsoid_set(&A, ca, ra, aa);
		mrdem_ellipsoid_set(&B, cb, rb, ab);
		struct mrdem_ellipsoid_pair r;
		converged &= mrdem_ellipsoids_distance(&A, &B, NULL, &r) == 0;
		steps += r.iterations;
		struct mrdem_gjk_result g;
		mrdem_gjk_distance(&A, mrdem_ellipsoid_support, &B, mrdem_ellipsoid_support, 1e-13,
				   &g);
		if (!g.intersect) {
			worst = fmax(worst, fabs(g.dist - r.dist));
			agree &= fabs(g.dist - r.dist) < 1e-9;
		} else {
			agree &= r.dist < 1e-9;
		}
		if (r.dist <= 0)
			never_apart &= !mrdem_ellipsoids_apart(&A, &B, 0);
		/* touching: b moved along the normal by the distance */
		double ct[3];
		vec3_axpy(ct, cb, -r.dist, r.n);
		mrdem_ellipsoid_set(&B, ct, rb, ab);
		touching_apart += mrdem_ellipsoids_apart(&A, &B, 0);
		/* 0.05 apart but grown by 0.05: may touch */
		vec3_axpy(ct, ct, 0.05, r.n);
		mrdem_ellipsoid_set(&B, ct, rb, ab);
		grown_apart += mrdem_ellipsoids_apart(&A, &B, 0.05);
	}
	tap_ok(converged, "optimisation converged on all %d random pairs (%.2f Newton steps each)",
	       n, (double)steps / n);
	tap_ok(agree, "optimisation equals GJK's distance on %d random pairs (worst %.3g)", n,
	       worst);
	tap_ok(never_apart, "separation test: overlapping pairs never apart");
	tap_eq_int(touching_apart, 0, "separation test: %d touching pairs never apart", n);
	tap_eq_int(grown_apart, 0, "separation test: pairs within the growth never apart");
}

int main(void)
{
	struct mrdem_contact_finder *f = mrdem_contact_finder_new();
	test_closed_forms(f);
	test_over_box(f);
	test_tessellation(f, 1, MRDEM_SHAPE_SPHERE);
	test_tessellation(f, 1.5, MRDEM_SHAPE_ELLIPSOID);
	test_random_poses(getenv("MRDEM_ASAN") ? 500 : 3000);
	mrdem_contact_finder_free(f);
	return tap_done();
}
