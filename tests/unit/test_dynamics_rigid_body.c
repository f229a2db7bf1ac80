/* Rigid-body kernels: inertia tensors, quaternion updates, and torque-free
 * rotation of an asymmetric body against an independent reference
 * (Euler's equations in the body frame, classical RK4 at a tiny step). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/dynamics/integrate.h"
#include "common/dynamics/rigid_body.h"
#include "common/dynamics/step.h"
#include "common/geom/quat.h"
#include "common/geom/vec3.h"
#include "common/util/rng.h"
#include "tests/lib/tap.h"
#include "tests/unit/dynamics_fixture.h"

static void test_spd_inverse(void)
{
	struct mrdem_rng r;
	mrdem_rng_seed(&r, 42);
	double worst = 0;
	for (int t = 0; t < 200; t++) {
		double M[9], A[9], inv[9];
		for (int k = 0; k < 9; k++)
			M[k] = mrdem_rng_range(&r, -1, 1);
		/* A = M M^T + 0.1 I is symmetric positive definite */
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 3; j++)
				A[3 * i + j] = M[3 * i] * M[3 * j] + M[3 * i + 1] * M[3 * j + 1] +
					       M[3 * i + 2] * M[3 * j + 2] + (i == j ? 0.1 : 0);
		if (mrdem_spd3_inverse(inv, A)) {
			tap_ok(0, "random SPD matrix %d rejected", t);
			return;
		}
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 3; j++) {
				double s = A[3 * i] * inv[j] + A[3 * i + 1] * inv[3 + j] +
					   A[3 * i + 2] * inv[6 + j];
				worst = fmax(worst, fabs(s - (i == j)));
			}
	}
	tap_ok(worst < 1e-10, "A * inverse(A) = identity on 200 random SPD matrices (worst %.2g)",
	       worst);
	double indef[9] = {1, 0, 0, 0, -1, 0, 0, 0, 1}, sing[9] = {1, 1, 0, 1, 1, 0, 0, 0, 1}, inv[9];
	tap_ok(mrdem_spd3_inverse(inv, indef) == -1 && mrdem_spd3_inverse(inv, sing) == -1,
	       "indefinite and singular matrices are refused");
}

static void test_world_inertia(void)
{
	struct mrdem_scene s;
	mrdem_scene_init(&s);
	fx_add_box(&s, 1, 2, 3);
	fx_add_particle(&s, 1, 0, 0, 0, 0, 0.01);
	s.frame.p.density[0] = 2.5;
	struct mrdem_bodies b;
	mrdem_bodies_init(&b);
	tap_ok(mrdem_bodies_compute(&b, &s) == 0, "box body computed");
	double V = 6, rho = 2.5;
	tap_near(b.b[0].mass, rho * V, 1e-12, "mass = density * volume");
	double Ib[3] = {rho * V * 13 / 12, rho * V * 10 / 12, rho * V * 5 / 12};

	/* Each body axis R e_k is an eigenvector of I_w with eigenvalue I_k. */
	struct mrdem_rng r;
	mrdem_rng_seed(&r, 7);
	double worst = 0, worst_inv = 0;
	for (int t = 0; t < 50; t++) {
		double q[4], R[9];
		mrdem_rng_quat(&r, q);
		quat_to_matrix(q, R);
		double Iw[9];
		mrdem_body_world_inertia(Iw, &b.b[0], q);
		for (int k = 0; k < 3; k++) {
			double axis[3] = {R[k], R[3 + k], R[6 + k]}, L[3], L2[3], w[3];
			mat3_apply(L, Iw, axis);
			mrdem_body_angmom(L2, &b.b[0], q, axis);
			for (int c = 0; c < 3; c++) {
				worst = fmax(worst, fabs(L[c] - Ib[k] * axis[c]));
				worst = fmax(worst, fabs(L2[c] - Ib[k] * axis[c]));
			}
			mrdem_body_angvel(w, &b.b[0], q, L);
			for (int c = 0; c < 3; c++)
				worst_inv = fmax(worst_inv, fabs(w[c] - axis[c]));
		}
	}
	tap_ok(worst < 1e-12, "I_w (R e_k) = I_k R e_k for random orientations (worst %.2g)", worst);
	tap_ok(worst_inv < 1e-14, "I_w^-1 inverts I_w (worst %.2g)", worst_inv);

	s.frame.p.density[0] = 0;
	tap_capture_begin();
	int rc = mrdem_bodies_compute(&b, &s);
	const char *err = tap_capture_end();
	tap_ok(rc == -1 && strstr(err, "particle 1 has density 0"),
	       "a free particle with zero density is refused, naming it: %s", err);
	s.frame.p.flags[0] = MRDEM_PARTICLE_FIXED;
	tap_ok(mrdem_bodies_compute(&b, &s) == 0 && b.b[0].inv_mass == 0,
	       "a fixed particle has infinite mass");
	mrdem_bodies_release(&b);
	mrdem_scene_release(&s);
}

static void test_quat_advance(void)
{
	double q[4], want[4], w[3] = {0, 0, M_PI / 2}, z[3] = {0, 0, 1};
	quat_identity(q);
	for (int k = 0; k < 10; k++)
		mrdem_quat_advance(q, w, 0.1);
	quat_from_axis_angle(want, z, M_PI / 2);
	double d = 0;
	for (int k = 0; k < 4; k++)
		d = fmax(d, fabs(q[k] - want[k]));
	tap_ok(d < 1e-14, "ten advances by w dt/10 make the rotation exp(w dt) (error %.2g)", d);
	/* world-frame composition: a rotation about world x applied after one about z */
	double x[3] = {M_PI / 2, 0, 0}, v[3] = {1, 0, 0}, R[9], o[3];
	mrdem_quat_advance(q, x, 1.0);
	quat_to_matrix(q, R);
	mat3_apply(o, R, v);
	/* body x -> world y (by z), then world y -> world z (by x) */
	tap_ok(fabs(o[0]) < 1e-14 && fabs(o[1]) < 1e-14 && fabs(o[2] - 1) < 1e-14,
	       "advance rotates in the world frame (x -> [%.3g %.3g %.3g])", o[0], o[1], o[2]);
}

/* Reference: body-frame Euler equations and q' = q (0, w_b) / 2 by RK4. */
static void ref_rhs(const double y[7], double dy[7], const double I[3])
{
	const double *w = y, *q = y + 3;
	dy[0] = (I[1] - I[2]) * w[1] * w[2] / I[0];
	dy[1] = (I[2] - I[0]) * w[2] * w[0] / I[1];
	dy[2] = (I[0] - I[1]) * w[0] * w[1] / I[2];
	double wq[4] = {0, w[0], w[1], w[2]}, o[4];
	quat_mul(o, q, wq);
	for (int k = 0; k < 4; k++)
		dy[3 + k] = 0.5 * o[k];
}

static void reference_rotation(double w_world[3], const double w0_body[3], const double I[3],
			       double T, int steps)
{
	double y[7] = {w0_body[0], w0_body[1], w0_body[2], 1, 0, 0, 0}, h = T / steps;
	for (int n = 0; n < steps; n++) {
		double k1[7], k2[7], k3[7], k4[7], t[7];
		ref_rhs(y, k1, I);
		for (int k = 0; k < 7; k++)
			t[k] = y[k] + 0.5 * h * k1[k];
		ref_rhs(t, k2, I);
		for (int k = 0; k < 7; k++)
			t[k] = y[k] + 0.5 * h * k2[k];
		ref_rhs(t, k3, I);
		for (int k = 0; k < 7; k++)
			t[k] = y[k] + h * k3[k];
		ref_rhs(t, k4, I);
		for (int k = 0; k < 7; k++)
			y[k] += h / 6 * (k1[k] + 2 * k2[k] + 2 * k3[k] + k4[k]);
		quat_normalize(y + 3);
	}
	double R[9];
	quat_to_matrix(y + 3, R);
	mat3_apply(w_world, R, y);
}

/* Tumbling box: spin mostly about the unstable intermediate axis. */
static void test_free_rotation(int scheme, double e_tol, double ref_tol)
{
	const char *name = mrdem_scheme_name(scheme);
	struct mrdem_scene s;
	fx_scene(&s, MRDEM_FORCE_SPRING, 1000, 1e-3, scheme);
	fx_add_box(&s, 1, 2, 3);
	fx_add_particle(&s, 1, 0, 0.5, -1, 2, 0.01);
	double w0[3] = {0.05, 2.0, 0.1};
	vec3_copy(&s.frame.p.angvel[0], w0);
	vec3_set(&s.frame.p.vel[0], 0.1, 0.2, -0.3);
	struct mrdem_stepper st;
	mrdem_stepper_init(&st);
	struct mrdem_contacts c;
	mrdem_contacts_init(&c);

	const int steps = 8000; /* T = 8 s: the spin axis flips over once */
	struct mrdem_energy e0;
	double emax = 0, lmax = 0;
	int ok = 1;
	for (int n = 0; n <= steps && ok; n++) {
		ok = fx_step(&st, &s, &c) == 0;
		if (n == 0)
			e0 = st.energy;
		double de = fabs(st.energy.rotational - e0.rotational) / e0.rotational;
		double dl[3];
		vec3_sub(dl, st.energy.angular_momentum, e0.angular_momentum);
		emax = fmax(emax, de);
		lmax = fmax(lmax, vec3_norm(dl) / vec3_norm(e0.angular_momentum));
	}
	tap_ok(ok, "%s: %d torque-free steps", name, steps);
	tap_ok(lmax < 1e-11, "%s: angular momentum conserved (max relative change %.2g)", name,
	       lmax);
	tap_ok(emax < e_tol, "%s: rotational energy conserved within %.0e (max relative change %.2g)",
	       name, e_tol, emax);
	double qn = sqrt(s.frame.p.quat[0] * s.frame.p.quat[0] + s.frame.p.quat[1] * s.frame.p.quat[1] +
			 s.frame.p.quat[2] * s.frame.p.quat[2] + s.frame.p.quat[3] * s.frame.p.quat[3]);
	tap_near(qn, 1.0, 1e-14, "%s: orientation stays a unit quaternion", name);

	/* The torque-free pending half kick leaves L unchanged, so the written
	 * angular velocity is the synchronised one for every scheme. */
	if (scheme == MRDEM_SCHEME_VELOCITY_VERLET)
		tap_ok(s.frame.p.flags[0] & MRDEM_PARTICLE_HALF_KICK, "%s: half kick pending", name);
	double I[3] = {13.0 / 12 * 6, 10.0 / 12 * 6, 5.0 / 12 * 6}, wref[3], d[3];
	reference_rotation(wref, w0, I, s.frame.time, 80000);
	const double *w = &s.frame.p.angvel[0];
	vec3_sub(d, w, wref);
	double err = vec3_norm(d) / vec3_norm(wref);
	tap_ok(err < ref_tol, "%s: angular velocity at t = %g s matches Euler's equations within "
	       "%.0e (relative error %.2g)", name, s.frame.time, ref_tol, err);
	double R[9], wb[3];
	quat_to_matrix(&s.frame.p.quat[0], R);
	mat3_apply_transpose(wb, R, w);
	tap_ok(wb[1] < -1.5, "%s: the spin about the intermediate axis flipped (body w_y %.3g -> %.3g)",
	       name, w0[1], wb[1]);
	double x[3] = {0.5 + 0.1 * s.frame.time, -1 + 0.2 * s.frame.time, 2 - 0.3 * s.frame.time};
	vec3_sub(d, &s.frame.p.pos[0], x);
	tap_ok(vec3_norm(d) < 1e-12, "%s: centre of mass moves uniformly", name);
	mrdem_contacts_release(&c);
	mrdem_stepper_release(&st);
	mrdem_scene_release(&s);
}

int main(void)
{
	test_spd_inverse();
	test_world_inertia();
	test_quat_advance();
	test_free_rotation(MRDEM_SCHEME_SYMPLECTIC_EULER, 1e-6, 1e-5);
	test_free_rotation(MRDEM_SCHEME_VELOCITY_VERLET, 1e-6, 1e-5);
	test_free_rotation(MRDEM_SCHEME_EXPLICIT_EULER, 1e-2, 1e-1);
	return tap_done();
}
