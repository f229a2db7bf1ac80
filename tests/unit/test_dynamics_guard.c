/* The stability guard: a step that produces a non-finite state or creates
 * energy beyond the bound fails with a message naming the step and the
 * particle; the same scenes at a sane time step pass. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/dynamics/step.h"
#include "common/geom/vec3.h"
#include "tests/lib/tap.h"
#include "tests/unit/dynamics_fixture.h"

/* Two overlapping balls (ids 11 and 12) pushed apart by a stiff spring. */
static void stiff_pair(struct mrdem_scene *s, double dt, int scheme)
{
	fx_scene(s, MRDEM_FORCE_SPRING_DASHPOT, 1e6, dt, scheme);
	fx_add_ball(s, 1.0);
	fx_add_particle(s, 11, 0, -1.01, 0, 0, 0.02);
	fx_add_particle(s, 12, 0, 1.01, 0, 0, 0.02);
	s->frame.p.density[1] = 3.0; /* the light one gains most */
}

static int run(struct mrdem_scene *s, int steps, const char **msg, struct fx_capture *cap,
	       double growth)
{
	struct mrdem_stepper st;
	mrdem_stepper_init(&st);
	struct mrdem_contacts c;
	mrdem_contacts_init(&c);
	struct mrdem_step_opts o;
	mrdem_step_opts_default(&o, &s->setup);
	o.max_energy_growth = growth;
	int rc = 0;
	fx_capture_begin(cap);
	for (int n = 0; n < steps && rc == 0; n++) {
		c.n = 0;
		c.step = s->frame.step;
		fx_ball_ball(&c, s, 0, 1.0, 1, 1.0);
		rc = mrdem_stepper_step(&st, s, &c, &o);
	}
	*msg = fx_capture_end(cap);
	mrdem_contacts_release(&c);
	mrdem_stepper_release(&st);
	return rc;
}

static void test_energy_growth(void)
{
	struct mrdem_scene s;
	struct fx_capture cap;
	const char *msg;
	/* omega dt = sqrt(k / m_eff) dt = 3.4: symplectic Euler is unstable */
	stiff_pair(&s, 5e-3, MRDEM_SCHEME_SYMPLECTIC_EULER);
	int rc = run(&s, 50, &msg, &cap, MRDEM_DEFAULT_MAX_ENERGY_GROWTH);
	if (!tap_ok(rc == -1 && strstr(msg, "step 0 (t = 0 s): the energy grew") &&
			    strstr(msg, "most at particle 11"),
		    "energy blow-up stops at the first step, naming particle 11"))
		tap_diag("message: %s", msg);
	mrdem_scene_release(&s);

	stiff_pair(&s, 5e-3, MRDEM_SCHEME_SYMPLECTIC_EULER);
	rc = run(&s, 50, &msg, &cap, 0);
	tap_ok(rc == 0 && s.frame.step == 50, "with the bound disabled the same run goes on");
	mrdem_scene_release(&s);

	stiff_pair(&s, 2e-5, MRDEM_SCHEME_SYMPLECTIC_EULER);
	rc = run(&s, 2000, &msg, &cap, MRDEM_DEFAULT_MAX_ENERGY_GROWTH);
	if (!tap_ok(rc == 0 && s.frame.step == 2000, "at omega dt = 0.014 the bound never fires"))
		tap_diag("message: %s", msg);
	mrdem_scene_release(&s);

	/* explicit Euler gains energy in every step it runs unstably */
	stiff_pair(&s, 5e-3, MRDEM_SCHEME_EXPLICIT_EULER);
	rc = run(&s, 50, &msg, &cap, MRDEM_DEFAULT_MAX_ENERGY_GROWTH);
	if (!tap_ok(rc == -1 && strstr(msg, "the energy grew") && strstr(msg, "particle 11"),
		    "explicit Euler blow-up is stopped too"))
		tap_diag("message: %s", msg);
	mrdem_scene_release(&s);
}

static void test_nonfinite(void)
{
	struct mrdem_scene s;
	struct fx_capture cap;
	const char *msg;
	fx_scene(&s, MRDEM_FORCE_SPRING, 1000, 1e300, MRDEM_SCHEME_VELOCITY_VERLET);
	fx_add_ball(&s, 1.0);
	fx_add_particle(&s, 11, 0, -10, 0, 0, 0.02);
	fx_add_particle(&s, 12, 0, 10, 0, 0, 0.02);
	vec3_set(&s.frame.p.vel[3], 0, 1e10, 0);
	int rc = run(&s, 1, &msg, &cap, 0);
	if (!tap_ok(rc == -1 && strstr(msg, "step 0 (t = 0 s): particle 12 has a non-finite "
					    "position after the step"),
		    "overflow to infinity names the step and particle 12"))
		tap_diag("message: %s", msg);
	mrdem_scene_release(&s);

	/* a contact whose force overflows is named before anything moves */
	fx_scene(&s, MRDEM_FORCE_SPRING_DASHPOT, 1e308, 1e-4, MRDEM_SCHEME_VELOCITY_VERLET);
	fx_add_ball(&s, 1.0);
	fx_add_particle(&s, 11, 0, -1.0, 0, 0, 0.02);
	fx_add_particle(&s, 12, 0, 1.0, 0, 0, 0.02);
	s.setup.damping = 1e308;
	vec3_set(&s.frame.p.vel[0], 1, 0, 0);
	rc = run(&s, 1, &msg, &cap, 0);
	if (!tap_ok(rc == -1 && strstr(msg, "contact 0 (particles 11 and 12): non-finite contact "
					    "force"),
		    "an overflowing contact force names the contact"))
		tap_diag("message: %s", msg);
	mrdem_scene_release(&s);
}

int main(void)
{
	test_energy_growth();
	test_nonfinite();
	return tap_done();
}
