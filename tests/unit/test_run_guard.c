/* The run's guards (common/sim/run_guard.h) on constructed frames: the box
 * around the start and the planes, the halo per step as the speed bound,
 * and the sliding window of the energy bound, each failure naming the step
 * and the particle. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/sim/run_guard.h"
#include "tests/lib/tap.h"
#include "tests/unit/dynamics_fixture.h"

/* Balls of radius 0.5 (bounding radius set by hand: the fixture's shapes
 * have no vertices), ids 7 and 8 at x = 0 and 2, halos 0.01. */
static void pair(struct mrdem_scene *s)
{
	fx_scene(s, MRDEM_FORCE_SPRING_DASHPOT, 1e4, 1e-3, MRDEM_SCHEME_VELOCITY_VERLET);
	fx_add_ball(s, 0.5);
	s->shapes[0].bound_radius = 0.5;
	fx_add_particle(s, 7, 0, 0, 0, 0, 0.01);
	fx_add_particle(s, 8, 0, 2, 0, 0, 0.01);
}

static int motion(const struct mrdem_run_guard *g, const struct mrdem_scene *s,
		  struct fx_capture *cap, const char **msg)
{
	fx_capture_begin(cap);
	int rc = mrdem_run_guard_motion(g, s, 12, 0.012, 1e-3);
	*msg = fx_capture_end(cap);
	return rc;
}

static void test_bounds(void)
{
	struct mrdem_scene s;
	struct mrdem_run_guard g;
	struct fx_capture cap;
	const char *msg;
	pair(&s);
	/* the start spans [-0.51, 2.51] in x: side 3.02, margin 30.2 m (no
	 * speed, no gravity) */
	mrdem_run_guard_init(&g, &s, 1e-3, 100, 1.0);
	tap_ok(motion(&g, &s, &cap, &msg) == 0, "the start is within its bounds");
	s.frame.p.pos[3 * 1 + 0] = 2.51 + 30.1;
	tap_ok(motion(&g, &s, &cap, &msg) == 0, "30.1 m beyond the start: still inside");
	s.frame.p.pos[3 * 1 + 0] = 2.51 + 30.3;
	int rc = motion(&g, &s, &cap, &msg);
	if (!tap_ok(rc == -1 && strstr(msg, "step 12 (t = 0.012 s): particle 8 left the scene's "
				       "bounds: its centre (32.81, 0, 0) is outside the box"),
		    "30.3 m beyond the start: particle 8 left the box"))
		tap_diag("message: %s", msg);
	s.frame.p.pos[3 * 1 + 0] = 2;
	mrdem_run_guard_release(&g);

	/* a floor at z = -1: its solid side is out, whatever the box says */
	s.setup.nplanes = 1;
	struct mrdem_plane floor = {.point = {0, 0, -1}, .normal = {0, 0, 1}};
	s.setup.planes = &floor;
	mrdem_run_guard_init(&g, &s, 1e-3, 100, 1.0);
	s.frame.p.pos[2] = -1.001;
	rc = motion(&g, &s, &cap, &msg);
	if (!tap_ok(rc == -1 && strstr(msg, "particle 7 left the scene through plane 0"),
		    "a centre below the floor has left through plane 0"))
		tap_diag("message: %s", msg);
	s.frame.p.flags[0] |= MRDEM_PARTICLE_FIXED;
	tap_ok(motion(&g, &s, &cap, &msg) == 0, "fixed particles are not checked");
	s.setup.nplanes = 0;
	s.setup.planes = NULL;
	mrdem_run_guard_release(&g);
	mrdem_scene_release(&s);

	/* the box grows by how far the start's fastest particle flies and falls */
	pair(&s);
	s.frame.p.vel[0] = 3;
	vec3_set(s.setup.gravity, 0, 0, -10);
	mrdem_run_guard_init(&g, &s, 1e-3, 1000, 1.0); /* 1 s: 3 m + 5 m */
	tap_near(g.hi[0], 2.51 + 30.2 + 8, 1e-9, "box: 10 sides, v T and g T^2 / 2 beyond the start");
	tap_near(g.lo[2], -0.51 - 30.2 - 8, 1e-9, "... on every side");
	mrdem_run_guard_release(&g);
	mrdem_scene_release(&s);
}

static void test_speed(void)
{
	struct mrdem_scene s;
	struct mrdem_run_guard g;
	struct fx_capture cap;
	const char *msg;
	pair(&s);
	mrdem_run_guard_init(&g, &s, 1e-3, 100, 1.0);
	s.frame.p.vel[3 * 1 + 1] = 9.9; /* 9.9 mm per step */
	tap_ok(motion(&g, &s, &cap, &msg) == 0, "9.9 mm per step within a halo of 10 mm");
	s.frame.p.vel[3 * 1 + 1] = 10.1;
	int rc = motion(&g, &s, &cap, &msg);
	if (!tap_ok(rc == -1 && strstr(msg, "step 12 (t = 0.012 s): particle 8 moves 0.0101 m in "
				       "one step (speed 10.1 m/s), more than its halo 0.01 m"), "10.1 mm per step: particle 8 is too fast"))
		tap_diag("message: %s", msg);
	mrdem_run_guard_release(&g);
	s.setup.scheme = MRDEM_SCHEME_IMPLICIT_EULER;
	mrdem_run_guard_init(&g, &s, 1e-3, 100, 1.0);
	tap_ok(motion(&g, &s, &cap, &msg) == 0,
	       "implicit Euler: 10.1 mm per step passes (its Picard iterations search where it goes)");
	s.frame.p.vel[3 * 1 + 1] = 5;
	s.frame.p.angvel[3 * 1 + 2] = 100; /* its rim: 50 m/s */
	tap_ok(motion(&g, &s, &cap, &msg) == 0, "spin does not count: the centre moves 5 mm");
	mrdem_run_guard_release(&g);
	mrdem_scene_release(&s);
}

/* Feed energies (kinetic k, no gravity, no contact) for steps from..to. */
static int feed(struct mrdem_run_guard *g, const struct mrdem_scene *s, uint64_t from,
		uint64_t to, double k0, double slope, uint64_t *failed, struct fx_capture *cap,
		const char **msg)
{
	fx_capture_begin(cap);
	int rc = 0;
	for (uint64_t n = from; n <= to && !rc; n++) {
		rc = mrdem_run_guard_energy(g, s, n, 1e-3 * (double)n, k0 + slope * (double)(n - from),
					    0, 0);
		*failed = n;
	}
	*msg = fx_capture_end(cap);
	return rc;
}

static void test_window(void)
{
	struct mrdem_scene s;
	struct mrdem_run_guard g;
	struct fx_capture cap;
	const char *msg;
	uint64_t at;
	pair(&s);
	mrdem_run_guard_init(&g, &s, 1e-3, 10000, 1.0);
	/* kinetic energy from 1 J growing by 0.75 J per window: never double
	 * within 1000 steps, though it triples over the run */
	int rc = feed(&g, &s, 0, 3000, 1.0, 0.75e-3, &at, &cap, &msg);
	if (!tap_ok(rc == 0, "growth of 0.75 per window from 1 J: never stopped"))
		tap_diag("message: %s", msg);
	mrdem_run_guard_release(&g);

	/* doubling within the window: from 1 J by 2e-3 J per step, E_n - E_0 >
	 * 1 J from step 501 */
	mrdem_run_guard_init(&g, &s, 1e-3, 10000, 1.0);
	rc = feed(&g, &s, 0, 3000, 1.0, 2e-3, &at, &cap, &msg);
	if (!tap_ok(rc == -1 && at == 501 &&
			    strstr(msg, "step 501 (t = 0.501 s): the kinetic and gravitational energy "
					"grew beyond the total energy by 1.002 J over the 501 steps "
					"since step 0, more than 1 "
					"times the 1 J") && strstr(msg, "fastest particle 7"),
		    "energy doubled in 501 steps: stopped at step 501, measured from step 0"))
		tap_diag("at %llu, message: %s", (unsigned long long)at, msg);
	mrdem_run_guard_release(&g);

	/* the window slides: 0.6 J at step 0 (bound 1.2 J) is out of it from
	 * step 1000 on, so 1.9 J at step 2999 passes; within it 1.3 J stops */
	mrdem_run_guard_init(&g, &s, 1e-3, 10000, 1.0);
	rc = feed(&g, &s, 0, 0, 0.6, 0, &at, &cap, &msg) ||
	     feed(&g, &s, 1, 1999, 1.0, 0, &at, &cap, &msg) ||
	     feed(&g, &s, 2000, 2999, 1.0, 0.9e-3, &at, &cap, &msg);
	if (!tap_ok(rc == 0, "0.6 J long ago, then 1 J growing by 0.9 J per window: not stopped"))
		tap_diag("message: %s", msg);
	mrdem_run_guard_release(&g);
	mrdem_run_guard_init(&g, &s, 1e-3, 10000, 1.0);
	rc = feed(&g, &s, 0, 0, 0.6, 0, &at, &cap, &msg) ||
	     feed(&g, &s, 1, 998, 1.0, 0, &at, &cap, &msg) ||
	     feed(&g, &s, 999, 999, 1.3, 0, &at, &cap, &msg);
	if (!tap_ok(rc != 0 && at == 999 && strstr(msg, "over the 999 steps since step 0"),
		    "... but within the window it counts: 1.3 J at step 999 after 0.6 J at step 0"))
		tap_diag("at %llu, message: %s", (unsigned long long)at, msg);
	mrdem_run_guard_release(&g);

	mrdem_run_guard_init(&g, &s, 1e-3, 10000, 0);
	rc = feed(&g, &s, 0, 1000, 1.0, 1.0, &at, &cap, &msg);
	tap_ok(rc == 0, "bound 0: the window is off");
	mrdem_run_guard_release(&g);

	/* a fixed particle that moves does work the energies do not see */
	s.frame.p.flags[1] |= MRDEM_PARTICLE_FIXED;
	s.frame.p.vel[3 * 1] = 1;
	mrdem_run_guard_init(&g, &s, 1e-3, 10000, 1.0);
	rc = feed(&g, &s, 0, 1000, 1.0, 1.0, &at, &cap, &msg);
	tap_ok(rc == 0 && !g.energy_on, "a moving fixed particle turns the window off");
	mrdem_run_guard_release(&g);
	mrdem_scene_release(&s);
}

int main(void)
{
	test_bounds();
	test_speed();
	test_window();
	return tap_done();
}
