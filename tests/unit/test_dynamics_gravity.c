/* Gravity and analytic planes: projectiles against the closed-form discrete
 * solutions of each scheme (velocity Verlet is exact for a constant force),
 * a ball rolling down a 20 degree incline with and without friction, and a
 * ball dropped on a tilted plane. Ball-plane contacts are generated
 * analytically each step (tests/unit/dynamics_fixture.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/dynamics/integrate.h"
#include "common/dynamics/step.h"
#include "common/geom/vec3.h"
#include "tests/lib/tap.h"
#include "tests/unit/dynamics_fixture.h"

#define G 9.81

/* x_n for n steps of dt from x0, v0 under constant g, per scheme:
 *   Verlet: x0 + v0 t + g t^2 / 2 (exact)
 *   symplectic Euler: ... + g t dt / 2;  explicit Euler: ... - g t dt / 2 */
static void test_projectile(int scheme)
{
	const char *name = mrdem_scheme_name(scheme);
	const double dt = 1e-3, x0[3] = {1, -2, 3}, v0[3] = {3, 0.5, 4}, g[3] = {0, 0, -G};
	const int steps = 1000;
	struct mrdem_scene s;
	fx_scene(&s, MRDEM_FORCE_SPRING, 1000, dt, scheme);
	vec3_copy(s.setup.gravity, g);
	fx_add_ball(&s, 0.5);
	fx_add_particle(&s, 4, 0, x0[0], x0[1], x0[2], 0.01);
	vec3_copy(&s.frame.p.vel[0], v0);
	vec3_set(&s.frame.p.angvel[0], 0.1, 0.2, 0.3);
	struct mrdem_stepper st;
	mrdem_stepper_init(&st);
	struct mrdem_contacts c;
	mrdem_contacts_init(&c);
	double ex = 0, ev = 0, de = 0, e0 = 0;
	int ok = 1;
	for (int n = 1; n <= steps && ok; n++) {
		ok = fx_step(&st, &s, &c) == 0;
		double t = n * dt, corr = 0, vcorr = 0;
		if (scheme == MRDEM_SCHEME_SYMPLECTIC_EULER)
			corr = 0.5 * dt;
		else if (scheme == MRDEM_SCHEME_EXPLICIT_EULER)
			corr = -0.5 * dt;
		else
			vcorr = -0.5 * dt; /* written velocity is half a step behind */
		for (int k = 0; k < 3; k++) {
			double x = x0[k] + v0[k] * t + 0.5 * g[k] * t * t + g[k] * t * corr;
			double v = v0[k] + g[k] * (t + vcorr);
			ex = fmax(ex, fabs(s.frame.p.pos[k] - x));
			ev = fmax(ev, fabs(s.frame.p.vel[k] - v));
		}
		double e = mrdem_energy_total(&st.energy);
		if (n == 1)
			e0 = e;
		de = fmax(de, fabs(e - e0));
	}
	tap_ok(ok, "%s projectile: %d steps", name, steps);
	tap_ok(ex < 1e-11, "%s projectile: positions follow the scheme's closed form (error %.2g m)",
	       name, ex);
	tap_ok(ev < 1e-11, "%s projectile: velocities follow it too (error %.2g m/s)", name, ev);
	if (scheme == MRDEM_SCHEME_VELOCITY_VERLET)
		tap_ok(de < 1e-9 * e0, "%s projectile: total energy of the synchronised states "
		       "conserved (drift %.2g J of %.4g)", name, de, e0);
	tap_ok(fabs(s.frame.p.angvel[0] - 0.1) < 1e-12 && fabs(s.frame.p.angvel[2] - 0.3) < 1e-12,
	       "%s projectile: a free ball keeps its spin", name);
	mrdem_contacts_release(&c);
	mrdem_stepper_release(&st);
	mrdem_scene_release(&s);
}

/* A ball of radius 1 resting on a plane tilted by 20 degrees, released:
 * mean acceleration along the slope over 0.5 s. */
static double incline(int scheme, double friction, double *roll_ratio)
{
	const double theta = 20 * M_PI / 180, dt = 1e-4, T = 0.5;
	struct mrdem_scene s;
	fx_scene(&s, MRDEM_FORCE_SPRING_DASHPOT, 1e5, dt, scheme);
	s.setup.damping = 150;
	s.setup.friction = friction;
	s.setup.plane_epsilon = 0.01;
	vec3_set(s.setup.gravity, 0, 0, -G);
	/* slope rises towards +x; down-slope is d */
	double n[3] = {-sin(theta), 0, cos(theta)}, d[3] = {-cos(theta), 0, -sin(theta)};
	double o[3] = {0, 0, 0};
	fx_add_plane(&s, o, n);
	fx_add_ball(&s, 1.0);
	double m = 4.0 / 3.0 * M_PI;
	double eps = 0.02, rest = m * G * cos(theta) / s.setup.stiffness;
	double h = 1.0 + eps + s.setup.plane_epsilon - rest; /* static overlap */
	fx_add_particle(&s, 1, 0, h * n[0], h * n[1], h * n[2], eps);
	double x0[3];
	vec3_copy(x0, &s.frame.p.pos[0]);
	struct mrdem_stepper st;
	mrdem_stepper_init(&st);
	struct mrdem_contacts c;
	mrdem_contacts_init(&c);
	int steps = (int)lround(T / dt), ok = 1;
	for (int k = 0; k < steps && ok; k++) {
		c.n = 0;
		fx_ball_plane(&c, &s, 0, 1.0, 0);
		ok = fx_step(&st, &s, &c) == 0;
	}
	double dx[3], w[3];
	vec3_sub(dx, &s.frame.p.pos[0], x0);
	double along = vec3_dot(dx, d), t = s.frame.time;
	/* rolling without slip: v = w x (R n), i.e. |v| = R |w| */
	vec3_copy(w, &s.frame.p.angvel[0]);
	*roll_ratio = vec3_norm(w) / vec3_norm(&s.frame.p.vel[0]);
	mrdem_contacts_release(&c);
	mrdem_stepper_release(&st);
	mrdem_scene_release(&s);
	return ok ? 2 * along / (t * t) : NAN;
}

static void test_incline(int scheme)
{
	const char *name = mrdem_scheme_name(scheme);
	const double theta = 20 * M_PI / 180, a_roll = 5.0 / 7.0 * G * sin(theta);
	const double a_slide = G * sin(theta);
	double ratio;
	double a = incline(scheme, 0.5, &ratio);
	tap_ok(fabs(a / a_roll - 1) < 0.05, "%s incline, friction 0.5: acceleration %.4f within 5 %% "
	       "of (5/7) g sin(theta) = %.4f", name, a, a_roll);
	tap_ok(fabs(ratio - 1) < 0.05, "%s incline, friction 0.5: rolls without slipping "
	       "(R w / v = %.4f)", name, ratio);
	a = incline(scheme, 0.0, &ratio);
	tap_ok(fabs(a / a_slide - 1) < 0.01, "%s incline, frictionless: acceleration %.4f within 1 %% "
	       "of g sin(theta) = %.4f", name, a, a_slide);
	tap_ok(ratio < 1e-12, "%s incline, frictionless: slides without turning", name);
}

/* Dropped from 0.5 m above a plane tilted by 15 degrees: the ball bounces
 * (the velocity along the normal reverses), picks up spin from friction and
 * moves down the slope. */
static void test_drop(void)
{
	const double theta = 15 * M_PI / 180, dt = 1e-4;
	struct mrdem_scene s;
	fx_scene(&s, MRDEM_FORCE_SPRING_DASHPOT, 1e5, dt, MRDEM_SCHEME_VELOCITY_VERLET);
	s.setup.damping = 30;
	s.setup.friction = 0.3;
	vec3_set(s.setup.gravity, 0, 0, -G);
	double n[3] = {0, -sin(theta), cos(theta)}, o[3] = {0, 0, 0};
	fx_add_plane(&s, o, n);
	fx_add_ball(&s, 1.0);
	fx_add_particle(&s, 1, 0, 0, 0, 1.5, 0.02);
	struct mrdem_stepper st;
	mrdem_stepper_init(&st);
	struct mrdem_contacts c;
	mrdem_contacts_init(&c);
	int ok = 1, contact_steps = 0;
	double vn_in = 0, vn_out = -1;
	for (int k = 0; k < 6000 && ok; k++) {
		c.n = 0;
		fx_ball_plane(&c, &s, 0, 1.0, 0);
		double vn = vec3_dot(&s.frame.p.vel[0], n);
		if (c.n && !contact_steps)
			vn_in = vn;
		contact_steps += c.n > 0;
		if (!c.n && contact_steps && vn_out < 0)
			vn_out = vn;
		ok = fx_step(&st, &s, &c) == 0;
	}
	tap_ok(ok && contact_steps > 0, "drop on a tilted plane: %d contact steps", contact_steps);
	tap_ok(vn_in < -1 && vn_out > 0.1 * -vn_in && vn_out < -vn_in,
	       "drop: bounces off the plane (normal speed %.3f in, %.3f out)", vn_in, vn_out);
	tap_ok(s.frame.p.pos[1] < -0.1, "drop: moves down the slope (y = %.3f)", s.frame.p.pos[1]);
	tap_ok(fabs(s.frame.p.angvel[0]) > 0.1, "drop: friction spins it up (w_x = %.3f)",
	       s.frame.p.angvel[0]);
	mrdem_contacts_release(&c);
	mrdem_stepper_release(&st);
	mrdem_scene_release(&s);
}

int main(void)
{
	test_projectile(MRDEM_SCHEME_VELOCITY_VERLET);
	test_projectile(MRDEM_SCHEME_SYMPLECTIC_EULER);
	test_projectile(MRDEM_SCHEME_EXPLICIT_EULER);
	test_incline(MRDEM_SCHEME_VELOCITY_VERLET);
	test_incline(MRDEM_SCHEME_SYMPLECTIC_EULER);
	test_incline(MRDEM_SCHEME_EXPLICIT_EULER);
	test_drop();
	return tap_done();
}
