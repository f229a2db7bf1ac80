/* The stepper keeps its bodies and id index while the particles they are
 * made of stay the same (common/dynamics/bind_key.h): runs that insert and
 * remove particles, move walls and edit densities, shapes and fixed flags
 * between steps give the very bits of runs that rebuild them every step.
 * And the guards' energies, summed from what each particle's integration
 * leaves, are the full energy pass's up to rounding, and what a step read
 * back from a stream makes of them is begin's to the bit. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/sim/simulation.h"
#include "common/util/error.h"
#include "formats/foreign/scene_yaml.h"
#include "tests/lib/tap.h"

/* A paddle turning through falling grains of two shapes, a side wall that
 * shakes, grains rained in from above and removed below the paddle. */
static const char flow_yaml[] =
	"shapes:\n"
	"  small: {analytic-sphere: {radius: 0.01}}\n"
	"  big: {sphere: {triangles: 80, radius: 0.015}}\n"
	"  paddle: {box: {size: [0.1, 0.02, 0.02]}}\n"
	"particles:\n"
	"  - {shape: paddle, position: [0, 0, 0.03], fixed: true,\n"
	"     motion: {rotate: {axis: [0, 0, 1], point: [0, 0, 0.03], omega: 20}}}\n"
	"  - {shape: big, position: [0.03, 0, 0.06], density: 2000, velocity: [0, 0, -0.5],\n"
	"     angular_velocity: [1, 2, 3]}\n"
	"  - {shape: small, position: [-0.03, 0.01, 0.05], density: 3000, velocity: [0, 0, -0.5]}\n"
	"planes:\n"
	"  - {point: [-0.07, 0, 0], normal: [1, 0, 0],\n"
	"     motion: {oscillate: {direction: [1, 0, 0], amplitude: 0.002, frequency: 30}}}\n"
	"insert:\n"
	"  - region: {box: {min: [-0.05, -0.05, 0.07], max: [0.05, 0.05, 0.12]}}\n"
	"    shape: small\n"
	"    density: 2500\n"
	"    velocity: [0, 0, -1]\n"
	"    rate: 500\n"
	"    to: 0.08\n"
	"    seed: 3\n"
	"remove:\n"
	"  - {box: {min: [-1, -1, -1], max: [1, 1, 0.01]}}\n"
	"gravity: [0, 0, -9.81]\n"
	"contact: {model: hooke, stiffness: 2.0e4, restitution: 0.5, friction: 0.3,\n"
	"          epsilon_abs: 0.001, plane_epsilon: 0.001}\n"
	"time: {dt: 2.0e-4, steps: 400, scheme: velocity-verlet}\n";

/* Tumbling boxes on a floor, no motion: the energy guard is on. */
static const char box_yaml[] =
	"shapes:\n"
	"  brick: {box: {size: [0.04, 0.03, 0.02]}}\n"
	"particles:\n"
	"  - lattice: {shape: brick, origin: [0, 0, 0.03], count: [3, 2, 2], spacing: 0.05,\n"
	"              jitter: 0.003, rotate: true, seed: 4, density: 1500,\n"
	"              velocity: [0.1, 0, -0.3], angular_velocity: [3, -2, 5]}\n"
	"planes:\n"
	"  - {point: [0, 0, 0], normal: [0, 0, 1]}\n"
	"gravity: [0, 0, -9.81]\n"
	"contact: {model: hooke, stiffness: 1.0e4, restitution: 0.4, friction: 0.5,\n"
	"          epsilon_abs: 0.001, plane_epsilon: 0.001}\n"
	"time: {dt: 1.0e-4, steps: 300, scheme: velocity-verlet}\n";

struct run {
	struct mrdem_scene s;
	struct mrdem_sim sim;
};

static void start(struct run *r, const char *yaml, int scheme, int rebind_always)
{
	char path[] = "/tmp/mrdem-step-bind-XXXXXX";
	int fd = mkstemp(path);
	size_t len = strlen(yaml);
	if (fd < 0 || write(fd, yaml, len) != (ssize_t)len)
		mrdem_die("cannot write the test scene");
	close(fd);
	mrdem_scene_init(&r->s);
	if (mrdem_scene_load_yaml(path, &r->s))
		mrdem_die("cannot load the test scene");
	unlink(path);
	r->s.setup.scheme = scheme;
	struct mrdem_sim_opts o;
	mrdem_sim_opts_default(&o, &r->s);
	if (mrdem_sim_init(&r->sim, &r->s, &o))
		mrdem_die("cannot start the simulation");
	r->sim.stepper.rebind_always = rebind_always;
}

static void stop(struct run *r)
{
	mrdem_sim_release(&r->sim);
	mrdem_scene_release(&r->s);
}

#define SAME(f, k) (memcmp(a->f, b->f, (k) * n * sizeof *a->f) == 0)

static int same_frames(const struct mrdem_frame *fa, const struct mrdem_frame *fb)
{
	const struct mrdem_particles *a = &fa->p, *b = &fb->p;
	size_t n = a->n;
	return fa->step == fb->step && b->n == n && SAME(id, 1) && SAME(shape, 1) &&
	       SAME(flags, 1) && SAME(pos, 3) && SAME(quat, 4) && SAME(vel, 3) &&
	       SAME(angvel, 3) && SAME(density, 1);
}

/* Between steps, edits a tool could make to a frame: a density, a shape
 * and a fixed flag, and a shape's mass properties (a mesh replaced), each
 * at its own step, to both runs alike; steps between insertions (every
 * 10th step), whose new ids rebuild anyway. */
static void edit(struct mrdem_scene *s, uint64_t step)
{
	struct mrdem_particles *p = &s->frame.p;
	if (p->n < 3)
		return;
	if (step == 155) {
		struct mrdem_mass *m = &s->shapes[1].mesh.mass;
		m->volume *= 1.2;
		for (int k = 0; k < 6; k++)
			m->inertia[k] *= 1.3;
	}
	if (step == 63)
		p->density[2] *= 1.5;
	if (step == 95)
		p->shape[2] = p->shape[1];
	if (step == 127)
		p->flags[2] |= MRDEM_PARTICLE_FIXED;
}

static void test_flow_and_motion(int scheme, const char *name)
{
	struct run cached, fresh;
	start(&cached, flow_yaml, scheme, 0);
	start(&fresh, flow_yaml, scheme, 1);
	int same = 1, rc = 0;
	size_t nmin = (size_t)-1, nmax = 0;
	uint64_t removed = 0, inserted = 0;
	for (int k = 0; k < 400 && same && !rc; k++) {
		edit(&cached.s, cached.s.frame.step);
		edit(&fresh.s, fresh.s.frame.step);
		rc = mrdem_sim_advance(&cached.sim) || mrdem_sim_advance(&fresh.sim);
		same = same_frames(&cached.s.frame, &fresh.s.frame) &&
		       memcmp(&cached.sim.stepper.energy, &fresh.sim.stepper.energy,
			      sizeof cached.sim.stepper.energy) == 0;
		removed += cached.sim.stepper.flow.removed;
		inserted += cached.sim.stepper.flow.inserted;
		size_t n = cached.s.frame.p.n;
		nmin = n < nmin ? n : nmin;
		nmax = n > nmax ? n : nmax;
	}
	tap_ok(!rc, "%s: 400 steps of inflow, outflow and moving walls run", name);
	tap_ok(removed > 0 && inserted > 0 && nmin < nmax,
	       "%s: particles came (%llu) and went (%llu)", name, (unsigned long long)inserted,
	       (unsigned long long)removed);
	if (!tap_ok(same, "%s: kept bodies and index give the bits of rebuilt ones", name))
		tap_diag("differ after step %llu", (unsigned long long)cached.s.frame.step);
	stop(&cached);
	stop(&fresh);
}

/* The guards' sums against the full pass: the start's every step, and a
 * step's end against the next start's (symplectic Euler leaves nothing
 * pending, so the two are one state). */
static void test_guard_energies(int scheme, const char *name)
{
	struct run r;
	start(&r, box_yaml, scheme, 0);
	struct mrdem_stepper *st = &r.sim.stepper;
	double worst = 0, worst_after = 0, after = NAN;
	int rc = 0, resumed = 1, ready = 1;
	for (int k = 0; k < 300 && !rc; k++) {
		rc = mrdem_sim_advance(&r.sim);
		ready &= st->after_ready;
		/* as mrdem-step reads them back from a picard record */
		struct mrdem_guard_energy begun = st->start;
		memset(&st->start, 0, sizeof st->start);
		mrdem_stepper_resume(st, r.s.frame.p.n);
		resumed &= memcmp(&begun, &st->start, sizeof begun) == 0;
		double exact = st->energy.translational + st->energy.rotational;
		worst = fmax(worst, fabs(st->start.kinetic - exact) / exact);
		if (!isnan(after))
			worst_after = fmax(worst_after, fabs(after - exact) / exact);
		after = 0;
		for (size_t i = 0; i < r.s.frame.p.n; i++)
			after += st->kinetic_after[i];
	}
	tap_ok(!rc && ready, "%s: 300 steps with the energy guard on", name);
	tap_ok(resumed, "%s: the guard's sums from the step's energies and kinetic[] are begin's",
	       name);
	if (!tap_ok(worst < 1e-12, "%s: the guard's start kinetic energy is the full pass's", name))
		tap_diag("relative difference %g", worst);
	if (scheme == MRDEM_SCHEME_SYMPLECTIC_EULER &&
	    !tap_ok(worst_after < 1e-12, "%s: a step's end energy is the next start's", name))
		tap_diag("relative difference %g", worst_after);
	st->want_energy = 0;
	rc = mrdem_sim_advance(&r.sim);
	tap_ok(!rc && isnan(st->energy.translational) && isnan(st->energy.momentum[0]) &&
	       st->energy.contact == st->start.contact && st->start.kinetic > 0,
	       "%s: a step not asked for its energies says so (NaN), the guards keep theirs", name);
	stop(&r);
}

int main(void)
{
	mrdem_set_progname("test_step_bind");
	test_flow_and_motion(MRDEM_SCHEME_VELOCITY_VERLET, "velocity Verlet");
	test_flow_and_motion(MRDEM_SCHEME_EXPLICIT_EULER, "explicit Euler");
	test_guard_energies(MRDEM_SCHEME_VELOCITY_VERLET, "velocity Verlet");
	test_guard_energies(MRDEM_SCHEME_SYMPLECTIC_EULER, "symplectic Euler");
	return tap_done();
}
