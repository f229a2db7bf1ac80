/* Particle-particle contact forces: conservation laws and restitution of
 * the paper's spring model, friction torques of the spring-dashpot model,
 * bitwise independence of the thread count, and rejection of contact
 * lists that do not fit the frame. Contacts between ideal spheres are
 * generated analytically each step (tests/unit/dynamics_fixture.h). */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "common/dynamics/integrate.h"
#include "common/dynamics/step.h"
#include "common/geom/vec3.h"
#include "common/util/rng.h"
#include "tests/lib/tap.h"
#include "tests/unit/dynamics_fixture.h"

#define R 1.0
#define EPS 0.02 /* 1 % of the diameter, as in the paper */

struct run {
	struct mrdem_energy e0, e1;   /* first and last step's account */
	double max_dp, max_dl;        /* largest relative change of P and L */
	double v0[2][3], v1[2][3], w1[2][3];
	int touched, ok, steps;
};

/* Two balls, ids 1 and 2, stepped until they have separated again. */
static void collide(struct run *r, struct mrdem_scene *s, int max_steps)
{
	struct mrdem_stepper st;
	mrdem_stepper_init(&st);
	struct mrdem_contacts c;
	mrdem_contacts_init(&c);
	memset(r, 0, sizeof *r);
	memcpy(r->v0[0], &s->frame.p.vel[0], sizeof r->v0);
	double p0 = 0, l0 = 0;
	r->ok = 1;
	int after = 0;
	for (int n = 0; n < max_steps && r->ok; n++) {
		c.n = 0;
		fx_ball_ball(&c, s, 0, R, 1, R);
		r->touched |= c.n > 0;
		r->ok = fx_step(&st, s, &c) == 0;
		if (n == 0) {
			r->e0 = st.energy;
			p0 = vec3_norm(st.energy.momentum);
			l0 = vec3_norm(st.energy.angular_momentum);
		}
		double d[3];
		vec3_sub(d, st.energy.momentum, r->e0.momentum);
		r->max_dp = fmax(r->max_dp, vec3_norm(d) / p0);
		vec3_sub(d, st.energy.angular_momentum, r->e0.angular_momentum);
		r->max_dl = fmax(r->max_dl, vec3_norm(d) / l0);
		r->e1 = st.energy;
		r->steps = n + 1;
		/* a few steps after the contact ended, the pending kicks are zero */
		if (r->touched && c.n == 0 && ++after == 3)
			break;
	}
	memcpy(r->v1[0], &s->frame.p.vel[0], sizeof r->v1);
	memcpy(r->w1[0], &s->frame.p.angvel[0], sizeof r->w1);
	mrdem_contacts_release(&c);
	mrdem_stepper_release(&st);
}

/* Paper setup: spring model, Ks = 1000, no damping, no gravity. Ball 1 hits
 * ball 2 at rest along a line off the origin, both spinning, so momentum and
 * angular momentum about the origin are both non-zero. */
static void test_head_on(int scheme, double lo, double hi)
{
	const char *name = mrdem_scheme_name(scheme);
	struct mrdem_scene s;
	fx_scene(&s, MRDEM_FORCE_SPRING, 1000, 1e-4, scheme);
	fx_add_ball(&s, R);
	fx_add_particle(&s, 1, 0, -1.05, 0.3, 0.2, EPS);
	fx_add_particle(&s, 2, 0, 1.05, 0.3, 0.2, EPS);
	vec3_set(&s.frame.p.vel[0], 1.0, 0, 0);
	vec3_set(&s.frame.p.angvel[0], 0.3, -0.2, 0.5);
	vec3_set(&s.frame.p.angvel[3], 0, 0.7, 0);
	struct run r;
	collide(&r, &s, 5000);
	tap_ok(r.ok && r.touched, "%s head-on: collided and separated in %d steps", name, r.steps);
	tap_ok(r.max_dp < 1e-6, "%s head-on: momentum conserved (max relative change %.2g)", name,
	       r.max_dp);
	tap_ok(r.max_dl < 1e-6, "%s head-on: angular momentum conserved (max relative change %.2g)",
	       name, r.max_dl);
	double sep = r.v1[1][0] - r.v1[0][0], app = r.v0[0][0] - r.v0[1][0];
	tap_ok(sep / app > lo && sep / app < hi,
	       "%s head-on: separation speed / approach speed = %.5f in (%g, %g)", name, sep / app,
	       lo, hi);
	tap_ok(fabs(r.v1[0][0]) < 0.03 * app, "%s head-on: the striker stops (v = %.3g)", name,
	       r.v1[0][0]);
	double dw = 0;
	for (int k = 0; k < 3; k++)
		dw = fmax(dw, fabs(r.w1[0][k] - s.frame.p.angvel[k]));
	tap_ok(fabs(r.w1[0][0] - 0.3) < 1e-12 && fabs(r.w1[1][1] - 0.7) < 1e-12,
	       "%s head-on: frictionless central contact leaves the spins alone", name);
	mrdem_scene_release(&s);
}

/* Spring-dashpot with damping and Coulomb friction, oblique impact: the
 * friction torques spin the balls up; momentum and angular momentum are
 * still conserved, energy is dissipated. */
static void test_oblique_friction(int scheme)
{
	const char *name = mrdem_scheme_name(scheme);
	struct mrdem_scene s;
	fx_scene(&s, MRDEM_FORCE_SPRING_DASHPOT, 2e5, 1e-4, scheme);
	s.setup.damping = 50;
	s.setup.friction = 0.4;
	fx_add_ball(&s, R);
	fx_add_particle(&s, 1, 0, -1.2, 0.9, 0.5, EPS);
	fx_add_particle(&s, 2, 0, 1.2, -0.1, 0.5, EPS);
	s.frame.p.density[1] = 2.0;
	vec3_set(&s.frame.p.vel[0], 2.0, 0, 0.1);
	vec3_set(&s.frame.p.vel[3], -1.0, 0, 0);
	vec3_set(&s.frame.p.angvel[3], 0, 0, 1.5);
	struct run r;
	collide(&r, &s, 20000);
	tap_ok(r.ok && r.touched, "%s oblique: collided and separated in %d steps", name, r.steps);
	tap_ok(r.max_dp < 1e-12, "%s oblique: momentum conserved (max relative change %.2g)", name,
	       r.max_dp);
	tap_ok(r.max_dl < 1e-6, "%s oblique: angular momentum conserved (max relative change %.2g)",
	       name, r.max_dl);
	double k0 = r.e0.translational + r.e0.rotational, k1 = r.e1.translational + r.e1.rotational;
	tap_ok(k1 < 0.99 * k0, "%s oblique: damping and friction dissipate (%.4g -> %.4g J)", name,
	       k0, k1);
	tap_ok(fabs(r.w1[0][2]) > 0.1 && fabs(r.w1[1][2] - 1.5) > 0.05,
	       "%s oblique: friction changed the spins about z (%.3g, %.3g)", name, r.w1[0][2],
	       r.w1[1][2]);
	mrdem_scene_release(&s);
}

/* Many random contacts (enough for the parallel force path) give the
 * same bits on 1 and 4 threads. */
static void test_thread_independence(void)
{
	struct mrdem_frame out[2];
	struct mrdem_rng rng;
	for (int pass = 0; pass < 2; pass++) {
		struct mrdem_scene s;
		fx_scene(&s, MRDEM_FORCE_SPRING_DASHPOT, 100, 1e-4, MRDEM_SCHEME_VELOCITY_VERLET);
		s.setup.damping = 1;
		s.setup.friction = 0.3;
		vec3_set(s.setup.gravity, 0, 0, -9.81);
		double pt[3] = {0, 0, -50}, nz[3] = {0, 0.1, 1};
		fx_add_plane(&s, pt, nz);
		fx_add_box(&s, 1, 1.5, 0.7);
		mrdem_rng_seed(&rng, 99);
		const int np = 200, nc = 6000;
		for (int i = 0; i < np; i++) {
			size_t k = fx_add_particle(&s, 10 + 3 * i, 0, mrdem_rng_range(&rng, -5, 5),
						   mrdem_rng_range(&rng, -5, 5),
						   mrdem_rng_range(&rng, -5, 5), 0.05);
			mrdem_rng_quat(&rng, &s.frame.p.quat[4 * k]);
			for (int d = 0; d < 3; d++) {
				s.frame.p.vel[3 * k + d] = mrdem_rng_normal(&rng);
				s.frame.p.angvel[3 * k + d] = mrdem_rng_normal(&rng);
			}
			if (i % 17 == 0)
				s.frame.p.flags[k] = MRDEM_PARTICLE_FIXED;
		}
		struct mrdem_contacts c;
		mrdem_contacts_init(&c);
		for (int k = 0; k < nc; k++) {
			struct mrdem_contact *ck = mrdem_contacts_push(&c);
			size_t a = mrdem_rng_u64(&rng) % np, b = mrdem_rng_u64(&rng) % (np + 1);
			if (b == a)
				b = (a + 1) % np;
			ck->a = s.frame.p.id[a];
			ck->b = b == (size_t)np ? MRDEM_PLANE_ID(0) : s.frame.p.id[b];
			ck->tri_a = ck->tri_b = 0;
			for (int d = 0; d < 3; d++) {
				ck->x[d] = s.frame.p.pos[3 * a + d] + mrdem_rng_range(&rng, -0.5, 0.5);
				ck->normal[d] = mrdem_rng_normal(&rng);
			}
			vec3_normalize(ck->normal);
			double epssum = 0.05 + (b == (size_t)np ? s.setup.plane_epsilon : 0.05);
			ck->dist = mrdem_rng_range(&rng, 0, epssum);
			ck->depth = epssum - ck->dist;
		}
		omp_set_num_threads(pass == 0 ? 1 : 4);
		struct mrdem_stepper st;
		mrdem_stepper_init(&st);
		int ok = 1;
		for (int n = 0; n < 3 && ok; n++)
			ok = fx_step(&st, &s, &c) == 0;
		tap_ok(ok, "random contacts: 3 steps on %d thread(s)", pass == 0 ? 1 : 4);
		out[pass] = s.frame;
		mrdem_frame_init(&s.frame);
		mrdem_stepper_release(&st);
		mrdem_contacts_release(&c);
		mrdem_scene_release(&s);
	}
	size_t n = out[0].p.n;
	int same = out[1].p.n == n && !memcmp(out[0].p.pos, out[1].p.pos, 3 * n * sizeof(double)) &&
		   !memcmp(out[0].p.quat, out[1].p.quat, 4 * n * sizeof(double)) &&
		   !memcmp(out[0].p.vel, out[1].p.vel, 3 * n * sizeof(double)) &&
		   !memcmp(out[0].p.angvel, out[1].p.angvel, 3 * n * sizeof(double));
	tap_ok(same, "random contacts: bitwise the same state on 1 and 4 threads");
	mrdem_frame_release(&out[0]);
	mrdem_frame_release(&out[1]);
}

/* A contact list that does not fit the frame is refused with a message
 * naming the contact. */
static void test_bad_contacts(void)
{
	struct mrdem_scene s;
	fx_scene(&s, MRDEM_FORCE_SPRING, 1000, 1e-4, MRDEM_SCHEME_SYMPLECTIC_EULER);
	double pt[3] = {0, 0, -1.0}, nz[3] = {0, 0, 1};
	fx_add_plane(&s, pt, nz);
	fx_add_ball(&s, R);
	fx_add_particle(&s, 1, 0, -1.01, 0, 0, EPS);
	fx_add_particle(&s, 2, 0, 1.01, 0, 0, EPS);
	struct mrdem_contacts good;
	mrdem_contacts_init(&good);
	fx_ball_ball(&good, &s, 0, R, 1, R);
	fx_ball_plane(&good, &s, 0, R, 0);
	tap_eq_int(good.n, 2, "fixture: a ball-ball and a ball-plane contact");
	static const struct {
		const char *what, *expect;
	} cases[] = {
		{"unknown particle", "contact 0 (particles 7 and 2): particle a is not in the frame"},
		{"unknown plane", "contact 1 (particle 1 and plane 3): the setup has only 1 planes"},
		{"self contact", "contact 0 (particles 1 and 1): a particle cannot touch itself"},
		{"bad normal", "contact 0 (particles 1 and 2): normal has length 2, not 1"},
		{"depth", "contact 1 (particle 1 and plane 0): depth 0.5 does not equal"},
		{"stale", "the contacts are for step 4 but the frame is at step 0"},
		{"nan", "contact 0 (particles 1 and 2): non-finite point"},
		{"beyond the halos", "contact 1 (particle 1 and plane 0): distance"},
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		struct mrdem_contacts c;
		mrdem_contacts_init(&c);
		for (size_t i = 0; i < good.n; i++)
			*mrdem_contacts_push(&c) = good.c[i];
		switch (k) {
		case 0: c.c[0].a = 7; break;
		case 1: c.c[1].b = MRDEM_PLANE_ID(3); break;
		case 2: c.c[0].b = 1; break;
		case 3: vec3_scale(c.c[0].normal, c.c[0].normal, 2); break;
		case 4: c.c[1].depth = 0.5; break;
		case 5: c.step = 4; break;
		case 6: c.c[0].x[1] = NAN; break;
		case 7: /* consistent, but 0.1 m further than the halos reach */
			c.c[1].dist += c.c[1].depth + 0.1;
			c.c[1].depth = -0.1;
			break;
		}
		struct mrdem_step_opts o;
		mrdem_step_opts_default(&o, &s.setup);
		struct mrdem_stepper st;
		mrdem_stepper_init(&st);
		struct fx_capture cap;
		fx_capture_begin(&cap);
		int rc = mrdem_stepper_step(&st, &s, &c, &o);
		const char *msg = fx_capture_end(&cap);
		if (!tap_ok(rc == -1 && strstr(msg, cases[k].expect), "bad contacts refused: %s",
			    cases[k].what))
			tap_diag("message: %s", msg);
		mrdem_stepper_release(&st);
		mrdem_contacts_release(&c);
	}
	mrdem_contacts_release(&good);
	mrdem_scene_release(&s);
}

int main(void)
{
	/* Velocity Verlet keeps the energy of the undamped spring; explicit
	 * Euler (Alg. 1) gains a little in every contact. */
	test_head_on(MRDEM_SCHEME_VELOCITY_VERLET, 0.98, 1.02);
	test_head_on(MRDEM_SCHEME_SYMPLECTIC_EULER, 0.98, 1.02);
	test_head_on(MRDEM_SCHEME_EXPLICIT_EULER, 1.0, 1.05);
	test_oblique_friction(MRDEM_SCHEME_VELOCITY_VERLET);
	test_oblique_friction(MRDEM_SCHEME_SYMPLECTIC_EULER);
	test_thread_independence();
	test_bad_contacts();
	return tap_done();
}
