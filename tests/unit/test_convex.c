/* The convex shape kind: the hull of point sets (inside, Euler, known
 * volumes, degenerate inputs refused), the features built from it, and
 * closest-feature tracking against the brute-force distance (every
 * triangle pair of the two hulls, exactly) at every step of tumbling
 * pairs, cold and warm, with the walk's steps per query. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/quat.h"
#include "common/geom/vec3.h"
#include "common/geom/xform.h"
#include "common/mesh/mesh.h"
#include "common/narrow/analytic/convex_track.h"
#include "common/narrow/contacts/particle_contacts.h"
#include "common/tree/tree.h"
#include "common/shape/convex.h"
#include "common/shape/hull.h"
#include "common/util/error.h"
#include "common/util/rng.h"
#include "tests/lib/convex_tumble.h"
#include "tests/lib/tap.h"

/* Largest height of a point above a hull triangle's plane. */
static double worst_outside(const struct mrdem_mesh *m, const double *p, size_t n)
{
	double worst = -INFINITY;
	for (uint32_t t = 0; t < m->ntris; t++) {
		const double *a = &m->verts[3 * m->tris[3 * t]], *b = &m->verts[3 * m->tris[3 * t + 1]],
			     *c = &m->verts[3 * m->tris[3 * t + 2]];
		double e1[3], e2[3], nn[3], d[3];
		vec3_sub(e1, b, a);
		vec3_sub(e2, c, a);
		vec3_cross(nn, e1, e2);
		vec3_normalize(nn);
		for (size_t i = 0; i < n; i++) {
			vec3_sub(d, &p[3 * i], a);
			worst = fmax(worst, vec3_dot(d, nn));
		}
	}
	return worst;
}

static void random_points(struct mrdem_rng *rng, double *p, size_t n, int ball)
{
	for (size_t i = 0; i < n; i++) {
		double *x = &p[3 * i];
		do
			for (int k = 0; k < 3; k++)
				x[k] = mrdem_rng_range(rng, -1, 1);
		while (ball && vec3_norm(x) > 1);
	}
}

static void test_random_hulls(void)
{
	struct mrdem_rng rng;
	mrdem_rng_seed(&rng, 5);
	size_t n = 3000;
	double *p = mrdem_xmalloc_array(3 * n, sizeof *p);
	for (int ball = 0; ball < 2; ball++) {
		random_points(&rng, p, n, ball);
		struct mrdem_mesh m;
		int rc = mrdem_hull(p, n, "random", &m);
		tap_ok(rc == 0, "hull of %zu random points in a %s", n, ball ? "ball" : "cube");
		double out = rc ? INFINITY : worst_outside(&m, p, n);
		tap_ok(out < 1e-9, "every point inside or on every hull face (largest height %.3g)",
		       out);
		tap_eq_int((long)m.nverts - (long)(3 * m.ntris / 2) + (long)m.ntris, 2,
			   "V - E + F = 2 (%u vertices, %u triangles)", m.nverts, m.ntris);
		struct mrdem_convex c;
		rc = mrdem_convex_build(&m, "random hull", &c);
		tap_ok(rc == 0 && c.nv == m.nverts && (long)c.nv - c.ne + c.nf == 2,
		       "its features: %u vertices, %u edges, %u faces, V - E + F = 2", c.nv, c.ne,
		       c.nf);
		/* a ball's hull is nearly the ball's volume; a cube's nearly 8 */
		double want = ball ? 4.0 / 3.0 * M_PI : 8;
		tap_ok(m.mass.volume < want && m.mass.volume > 0.9 * want,
		       "hull volume %.4f just below %.4f", m.mass.volume, want);
		mrdem_convex_release(&c);
		mrdem_mesh_release(&m);
	}
	free(p);
}

static void test_known(void)
{
	/* a box's corners, points inside it and on its faces and edges */
	struct mrdem_rng rng;
	mrdem_rng_seed(&rng, 6);
	double p[3 * 200];
	size_t n = 0;
	for (int i = 0; i < 8; i++, n++)
		vec3_set(&p[3 * n], i & 1 ? 1 : -1, i & 2 ? 2 : -2, i & 4 ? 3 : -3);
	for (; n < 200; n++) {
		for (int k = 0; k < 3; k++)
			p[3 * n + k] = mrdem_rng_range(&rng, -1, 1) * (k + 1);
		p[3 * n + n % 3] = (n & 8 ? 1 : -1) * (double)(n % 3 + 1); /* on a face */
		if (n % 5 == 0)
			p[3 * n + (n + 1) % 3] = (double)((n + 1) % 3 + 1); /* on an edge */
	}
	struct mrdem_mesh m;
	int rc = mrdem_hull(p, n, "box", &m);
	tap_ok(rc == 0 && m.nverts == 8 && m.ntris == 12,
	       "box with points on its faces and edges: 8 vertices, 12 triangles");
	tap_near(rc ? 0 : m.mass.volume, 48, 1e-12, "box volume 2 x 4 x 6");
	struct mrdem_convex c;
	rc = rc ? rc : mrdem_convex_build(&m, "box", &c);
	tap_ok(rc == 0 && c.nv == 8 && c.ne == 12 && c.nf == 6,
	       "box features: coplanar triangles merged into 6 faces of 4 edges");
	if (!rc)
		mrdem_convex_release(&c);
	mrdem_mesh_release(&m);
	double tet[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
	rc = mrdem_hull(tet, 4, "tetrahedron", &m);
	tap_near(rc ? 0 : m.mass.volume, 1.0 / 6, 1e-15, "tetrahedron volume 1/6");
	mrdem_mesh_release(&m);
}

static void test_degenerate(void)
{
	struct mrdem_mesh m;
	double three[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
	tap_ok(mrdem_hull(three, 3, "three", &m) < 0, "3 points refused");
	double flat[3 * 10], line[3 * 10], same[3 * 10];
	for (int i = 0; i < 10; i++) {
		vec3_set(&flat[3 * i], i % 3, i / 3, 0.5 * i);
		flat[3 * i + 2] = flat[3 * i] + flat[3 * i + 1]; /* on the plane z = x + y */
		vec3_set(&line[3 * i], i, 2 * i, -i);
		vec3_set(&same[3 * i], 1, 2, 3);
	}
	tap_ok(mrdem_hull(flat, 10, "flat", &m) < 0, "coplanar points refused");
	tap_ok(mrdem_hull(line, 10, "line", &m) < 0, "collinear points refused");
	tap_ok(mrdem_hull(same, 10, "same", &m) < 0, "coincident points refused");
	double nan[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, NAN};
	tap_ok(mrdem_hull(nan, 4, "nan", &m) < 0, "a non-finite coordinate refused");
	/* a noisy sphere is closed but not convex */
	struct mrdem_sphere_opts o;
	mrdem_sphere_opts_default(&o);
	o.triangles = 320;
	o.noise = 1.3;
	mrdem_mesh_sphere(&m, &o);
	mrdem_mesh_mass(&m, &m.mass);
	struct mrdem_convex c;
	tap_ok(mrdem_convex_build(&m, "noisy sphere", &c) < 0, "a non-convex mesh refused as convex");
	mrdem_mesh_release(&m);
}

/* ---- tracking */

/* b tumbles around a (tests/lib/convex_tumble.h). */
static void tumble(const char *what, const struct tumble_shape *ta,
		   const struct tumble_shape *tb, double r0, double r1, int steps)
{
	const struct mrdem_convex *a = &ta->c, *b = &tb->c;
	struct mrdem_feature_pair warm = {0};
	double q[4] = {1, 0, 0, 0};
	double worst_w = 0, worst_c = 0;
	long steps_w = 0, steps_c = 0, fb_w = 0, fb_c = 0, apart = 0, wrong_inside = 0;
	for (int s = 0; s < steps; s++) {
		double rb[9], pb[3];
		struct mrdem_xform x;
		tumble_pose(s, r0, r1, q, rb, pb);
		tumble_xform(rb, pb, &x);
		double want = tumble_brute(&ta->m, &tb->m, &x);
		struct mrdem_feature_pair cold = {0};
		struct mrdem_convex_result rw, rc;
		mrdem_convex_distance(a, b, &x, &warm, &rw);
		mrdem_convex_distance(a, b, &x, &cold, &rc);
		steps_w += rw.steps, steps_c += rc.steps;
		fb_w += rw.fallback, fb_c += rc.fallback;
		if (want > 0) {
			apart++;
			worst_w = fmax(worst_w, fabs(rw.dist - want));
			worst_c = fmax(worst_c, fabs(rc.dist - want));
		} else
			wrong_inside += rw.dist > 1e-9 || rc.dist > 1e-9;
	}
	tap_ok(apart > steps / 4 && apart < steps && worst_w < 1e-9 && worst_c < 1e-9,
	       "%s: tracked distance equals the brute-force one at %ld separated steps of %d, "
	       "warm and cold (largest differences %.3g, %.3g)", what, apart, steps, worst_w,
	       worst_c);
	tap_eq_int(wrong_inside, 0, "%s: intersecting steps give distance 0", what);
	tap_diag("%s: walk steps per query warm %.2f, cold %.2f; fallbacks warm %ld, cold %ld "
		 "(%d queries)", what, (double)steps_w / steps, (double)steps_c / steps, fb_w, fb_c,
		 steps);
	tap_ok(steps_w < steps_c, "%s: warm start takes fewer walk steps (%.2f per query) than "
	       "cold (%.2f)", what, (double)steps_w / steps, (double)steps_c / steps);
	tap_ok(fb_w <= steps / 50 && fb_c <= steps / 50, "%s: GJK fallbacks (the walk cycling) "
	       "in at most 2 %% of the steps (warm %ld, cold %ld)", what, fb_w, fb_c);
}

static void test_tracking(void)
{
	int steps = 400; /* one swing of the orbit through contact and back */
	struct mrdem_rng rng;
	mrdem_rng_seed(&rng, 7);
	struct tumble_shape a, b;
	tumble_rock(&rng, 60, 1, &a);
	tumble_rock(&rng, 40, 0.7, &b);
	tumble("rocks", &a, &b, 1.2, 2.6, steps);
	tumble_shape_release(&b);
	tumble_box(0.5, 0.4, 0.3, &b);
	tumble("rock and box", &a, &b, 1.0, 2.2, steps);
	tumble_shape_release(&a);
	tumble_box(0.6, 0.6, 0.6, &a);
	tumble("boxes", &a, &b, 0.9, 2.0, steps);
	tumble_shape_release(&a);
	tumble_shape_release(&b);
}

/* Shape i of s: a copy of m with a tree, convex or a plain mesh. */
static uint32_t add_rock(struct mrdem_scene *s, const struct mrdem_mesh *m, int convex)
{
	struct mrdem_mesh copy;
	struct mrdem_tree_params tp;
	struct mrdem_tree *t;
	mrdem_mesh_init(&copy);
	mrdem_mesh_copy(&copy, m);
	mrdem_tree_params_default(&tp);
	if (mrdem_tree_build(&copy, &tp, &t))
		mrdem_die("cannot build a tree");
	uint32_t i = mrdem_scene_add_shape(s, "rock", &copy);
	s->shapes[i].tree = t;
	if (convex && mrdem_scene_make_convex(s, i, "rock"))
		mrdem_die("the hull is not convex");
	return i;
}

static void place(struct mrdem_scene *s, uint32_t sa, uint32_t sb, const double q[4],
		  const double pb[3])
{
	s->frame.p.n = 0;
	mrdem_particles_push(&s->frame.p, 1, sa);
	mrdem_particles_push(&s->frame.p, 2, sb);
	memcpy(&s->frame.p.quat[4], q, 4 * sizeof(double));
	memcpy(&s->frame.p.pos[3], pb, 3 * sizeof(double));
	s->frame.p.eps[0] = s->frame.p.eps[1] = 0.02;
}

/* The contact decision by tracking against the triangle search alone:
 * the same two hulls as convex shapes (a finder kept from step to step,
 * and a fresh one every step) and as plain meshes give the same contacts
 * at every step of a tumble through the halos. */
static void test_decision(void)
{
	int steps = 300; /* through the halos and out */
	struct mrdem_rng rng;
	mrdem_rng_seed(&rng, 8);
	struct tumble_shape ra, rb;
	tumble_rock(&rng, 80, 1, &ra);
	tumble_rock(&rng, 50, 0.7, &rb);
	struct mrdem_scene sc, sm;
	mrdem_scene_init(&sc);
	mrdem_scene_init(&sm);
	uint32_t a = add_rock(&sc, &ra.m, 1), b = add_rock(&sc, &rb.m, 1);
	add_rock(&sm, &ra.m, 0);
	add_rock(&sm, &rb.m, 0);
	struct mrdem_contact_finder *warm = mrdem_contact_finder_new(),
				    *plain = mrdem_contact_finder_new();
	struct mrdem_contacts cw, cc, cm;
	mrdem_contacts_init(&cw);
	mrdem_contacts_init(&cc);
	mrdem_contacts_init(&cm);
	struct mrdem_contact_opts o;
	mrdem_contact_opts_default(&o);
	struct mrdem_contact_counts nw, nc;
	struct mrdem_convex_counts sum_w = {0}, sum_c = {0};
	long differ = 0, touching = 0;
	double q[4] = {1, 0, 0, 0};
	for (int s = 0; s < steps; s++) {
		double rb[9], pb[3];
		tumble_pose(s, 1.0, 2.4, q, rb, pb);
		place(&sc, a, b, q, pb);
		place(&sm, a, b, q, pb);
		struct mrdem_contact_finder *cold = mrdem_contact_finder_new();
		if (mrdem_find_contacts(warm, &sc, NULL, &o, &cw, &nw) ||
		    mrdem_find_contacts(cold, &sc, NULL, &o, &cc, &nc) ||
		    mrdem_find_contacts(plain, &sm, NULL, &o, &cm, NULL))
			mrdem_die("contact search failed");
		mrdem_contact_finder_free(cold);
		mrdem_convex_counts_add(&sum_w, &nw.convex);
		mrdem_convex_counts_add(&sum_c, &nc.convex);
		touching += cm.n > 0;
		differ += cw.n != cm.n || cc.n != cm.n ||
			  (cm.n && (memcmp(cw.c, cm.c, cm.n * sizeof *cm.c) ||
				    memcmp(cc.c, cm.c, cm.n * sizeof *cm.c)));
	}
	tap_ok(differ == 0 && touching > steps / 10 && sum_w.apart > (uint64_t)steps / 4,
	       "two convex rocks, warm and cold, give the contacts of the same hulls as meshes at "
	       "all %d steps (%ld with contacts, %llu decided apart by tracking)", steps, touching,
	       (unsigned long long)sum_w.apart);
	tap_ok(sum_w.pairs == (uint64_t)steps && sum_w.apart == sum_c.apart &&
	       sum_w.steps < sum_c.steps,
	       "the contact finder warm-starts each pair: %.2f walk steps per pair, %.2f cold",
	       (double)sum_w.steps / steps, (double)sum_c.steps / steps);
	mrdem_contacts_release(&cw);
	mrdem_contacts_release(&cc);
	mrdem_contacts_release(&cm);
	mrdem_contact_finder_free(warm);
	mrdem_contact_finder_free(plain);
	mrdem_scene_release(&sc);
	mrdem_scene_release(&sm);
	tumble_shape_release(&ra);
	tumble_shape_release(&rb);
}

int main(void)
{
	test_random_hulls();
	test_known();
	test_degenerate();
	test_tracking();
	test_decision();
	return tap_done();
}
