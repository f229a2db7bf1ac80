/* Dynamics of analytic particles through the whole simulation (broad
 * phase, the analytic contact kernels, the step):
 *
 * - two analytic spheres in a head-on collision with the spring-dashpot
 *   model reproduce its closed-form contact time and restitution to
 *   0.1 %: with m_eff x'' = -(kn x + gamma_n m_eff x') while that force is
 *   positive, a = gamma_n / 2, w_d = sqrt(kn / m_eff - a^2), the force
 *   ends at t_c = (pi - 2 atan(a / w_d)) / w_d with the speed ratio
 *   e = exp(-a t_c) (the velocity there is exactly -w_d/omega_0 times...
 *   of magnitude v0 e; see docs/dynamics.md);
 * - an ellipsoid dropped on a plane, its longest axis horizontal but
 *   tilted 3 degrees, stops bouncing and rests on its flat side: its
 *   longest axis stays horizontal and its shortest vertical (within 10
 *   degrees all along), its centre the height of its support at that
 *   angle above the plane. The force models damp only the normal motion,
 *   so nothing damps rocking (no rolling resistance): the rocking that the
 *   tilted impact starts goes on, bounded. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/quat.h"
#include "common/geom/vec3.h"
#include "common/sim/simulation.h"
#include "common/util/error.h"
#include "tests/lib/tap.h"

static void head_on(void)
{
	struct mrdem_scene s;
	mrdem_scene_init(&s);
	double r = 0.01, rho = 2500, kn = 1e4, gamma = 200, v = 0.5, eps = 1e-4;
	double ax[3] = {r, r, r};
	uint32_t ball = mrdem_scene_add_analytic(&s, "ball", MRDEM_SHAPE_SPHERE, ax);
	s.setup.force_model = MRDEM_FORCE_SPRING_DASHPOT;
	s.setup.stiffness = kn;
	s.setup.damping = gamma;
	s.setup.scheme = MRDEM_SCHEME_VELOCITY_VERLET;
	double m = rho * 4.0 / 3.0 * M_PI * r * r * r, meff = m / 2;
	double a = gamma / 2, wd = sqrt(kn / meff - a * a);
	double tc = (M_PI - 2 * atan(a / wd)) / wd, e = exp(-a * tc);
	s.setup.dt = tc / 20000;
	for (int k = 0; k < 2; k++) {
		size_t i = mrdem_particles_push(&s.frame.p, (uint64_t)k + 1, ball);
		s.frame.p.pos[3 * i] = (k ? 1 : -1) * (r + eps + 1e-6);
		s.frame.p.vel[3 * i] = (k ? -1 : 1) * v;
		s.frame.p.density[i] = rho;
		s.frame.p.eps[i] = eps;
	}
	struct mrdem_sim_opts o;
	struct mrdem_sim sim;
	mrdem_sim_opts_default(&o, &s);
	if (mrdem_sim_init(&sim, &s, &o))
		mrdem_die("sim init failed");
	long first = -1, last = -1, n;
	double prev = v;
	int ok = 1;
	for (n = 0; n < 40000 && ok; n++) {
		ok = mrdem_sim_advance(&sim) == 0;
		double vx = s.frame.p.vel[0];
		if (vx != prev) {
			if (first < 0)
				first = n;
			last = n;
		}
		prev = vx;
		if (first >= 0 && n > last + 100)
			break;
	}
	tap_ok(ok && first >= 0, "two analytic spheres: the collision ran (%ld steps)", n);
	/* the force acts from the step after the halos meet up to its zero */
	double t_meas = (double)(last - first + 1) * s.setup.dt;
	double e_meas = (s.frame.p.vel[3] - s.frame.p.vel[0]) / (2 * v);
	tap_diag("contact time %.9g (closed form %.9g), restitution %.9g (closed form %.9g)",
		 t_meas, tc, e_meas, e);
	tap_near(t_meas / tc, 1, 1e-3, "spring-dashpot contact time to 0.1 %%");
	tap_near(e_meas / e, 1, 1e-3, "spring-dashpot restitution to 0.1 %%");
	mrdem_sim_release(&sim);
	mrdem_scene_release(&s);
}

static void ellipsoid_rests(void)
{
	struct mrdem_scene s;
	mrdem_scene_init(&s);
	double ax[3] = {0.03, 0.02, 0.01}, rho = 1000;
	uint32_t grain = mrdem_scene_add_analytic(&s, "grain", MRDEM_SHAPE_ELLIPSOID, ax);
	s.setup.force_model = MRDEM_FORCE_SPRING_DASHPOT;
	s.setup.stiffness = 1e4;
	s.setup.damping = 300;
	s.setup.friction = 0.5;
	s.setup.plane_epsilon = 1e-4;
	s.setup.gravity[2] = -9.81;
	s.setup.scheme = MRDEM_SCHEME_VELOCITY_VERLET;
	s.setup.dt = 2e-5;
	s.setup.nplanes = 1;
	s.setup.planes = calloc(1, sizeof *s.setup.planes);
	s.setup.planes[0].normal[2] = 1;
	size_t i = mrdem_particles_push(&s.frame.p, 1, grain);
	double q[4], axis[3] = {0, 1, 0}, tilt = 3 * M_PI / 180, drop = 0.002;
	quat_from_axis_angle(q, axis, tilt);
	memcpy(&s.frame.p.quat[4 * i], q, sizeof q);
	/* lowest point `drop` above the plane */
	s.frame.p.pos[3 * i + 2] = drop + sqrt(pow(ax[0] * sin(tilt), 2) + pow(ax[2] * cos(tilt), 2));
	s.frame.p.density[i] = rho;
	s.frame.p.eps[i] = 1e-4;
	struct mrdem_sim_opts o;
	struct mrdem_sim sim;
	mrdem_sim_opts_default(&o, &s);
	if (mrdem_sim_init(&sim, &s, &o))
		mrdem_die("sim init failed");
	int ok = 1;
	double worst_c = 1, worst_a = 0, R[9];
	long airborne = 0; /* steps of the second half without a plane contact */
	for (int n = 0; n < 50000 && ok; n++) { /* 1 s */
		ok = mrdem_sim_advance(&sim) == 0;
		airborne += n >= 25000 && sim.contacts.n == 0;
		quat_to_matrix(&s.frame.p.quat[0], R); /* columns: the body axes in the world */
		worst_c = fmin(worst_c, fabs(R[8]));
		worst_a = fmax(worst_a, fabs(R[6]));
	}
	double vz = fabs(s.frame.p.vel[2]), impact = sqrt(2 * 9.81 * drop);
	tap_diag("over 1 s: shortest axis . z >= %.6f, longest axis . z <= %.6f; at the end height "
		 "%.6g, vertical speed %.3g (impact %.3g)", worst_c, worst_a, s.frame.p.pos[2], vz,
		 impact);
	tap_ok(ok, "ellipsoid on a plane: 1 s simulated");
	tap_ok(worst_c > cos(10 * M_PI / 180) && worst_a < sin(10 * M_PI / 180),
	       "it stays on its flat side: longest axis horizontal, shortest vertical, to 10 "
	       "degrees");
	double top = sqrt(pow(ax[0] * worst_a, 2) + pow(ax[2] * worst_c, 2));
	tap_ok(s.frame.p.pos[2] > ax[2] - 2e-4 && s.frame.p.pos[2] < top + 2e-4,
	       "its centre rests between its shortest semi-axis and its support at the largest "
	       "tilt above the plane (%.6g in [%.6g, %.6g])", s.frame.p.pos[2], ax[2], top);
	tap_eq_int(airborne, 0, "it has stopped bouncing: in contact all through the second half");
	mrdem_sim_release(&sim);
	mrdem_scene_release(&s);
}

int main(void)
{
	head_on();
	ellipsoid_rests();
	return tap_done();
}
