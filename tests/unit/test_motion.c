/* Prescribed wall motions (common/scene/motion.h) against their closed
 * forms: a quarter turn about an off-origin axis, the velocity of a point
 * of a rotating wall, an oscillation at a quarter period, rest before the
 * start; motions kept sorted by target; a free particle with a motion and
 * a missing one are refused; the motion record round-trips and refuses
 * unordered targets and unknown kinds. */
#include <math.h>
#include <string.h>

#include "common/geom/quat.h"
#include "common/geom/vec3.h"
#include "common/scene/motion.h"
#include "formats/stream/record_motion.h"
#include "tests/lib/tap.h"

static struct mrdem_motion rotation(void)
{
	struct mrdem_motion m;
	memset(&m, 0, sizeof m);
	m.target = 3;
	m.kind = MRDEM_MOTION_ROTATE;
	m.start = 1;
	vec3_set(m.ref_pos, 2, 0, 0);
	quat_identity(m.ref_quat);
	vec3_set(m.dir, 0, 0, 1);
	vec3_set(m.point, 1, 0, 0);
	m.omega = M_PI / 2;
	return m;
}

static void test_rotate(void)
{
	struct mrdem_motion m = rotation();
	double x[3], q[4], n[3], v[3], w[3];
	mrdem_motion_pose(&m, 0.5, x, q, n, v, w);
	tap_ok(x[0] == 2 && x[1] == 0 && vec3_norm(v) == 0 && vec3_norm(w) == 0,
	       "before its start a wall rests in its reference pose");
	mrdem_motion_pose(&m, 2, x, q, n, v, w);
	tap_near(x[0], 1, 1e-15, "a quarter turn about the axis through (1,0,0): x");
	tap_near(x[1], 1, 1e-15, "... y");
	tap_near(q[0], cos(M_PI / 4), 1e-15, "orientation: a quarter turn about z (w)");
	tap_near(q[3], sin(M_PI / 4), 1e-15, "... (z)");
	tap_near(v[0], -M_PI / 2, 1e-15, "velocity omega x (x - point): x");
	tap_near(v[1], 0, 1e-15, "... y");
	tap_near(w[2], M_PI / 2, 0, "angular velocity omega axis");
}

static void test_oscillate_and_translate(void)
{
	struct mrdem_motion m;
	memset(&m, 0, sizeof m);
	m.kind = MRDEM_MOTION_OSCILLATE;
	vec3_set(m.dir, 0, 0, 1);
	m.amplitude = 0.5;
	m.frequency = 2;
	double x[3], q[4], n[3], v[3], w[3];
	mrdem_motion_pose(&m, 0.125, x, q, n, v, w);
	tap_near(x[2], 0.5, 1e-15, "an oscillation at a quarter period is at its amplitude");
	tap_near(v[2], 0, 1e-14, "... at rest there");
	mrdem_motion_pose(&m, 0, x, q, n, v, w);
	tap_near(v[2], 0.5 * 2 * M_PI * 2, 1e-14, "... and fastest at its start, A 2 pi F");
	m.kind = MRDEM_MOTION_VELOCITY;
	vec3_set(m.dir, 0.1, 0, 0);
	vec3_set(m.ref_normal, 0, 0, 1);
	mrdem_motion_pose(&m, 3, x, q, n, v, w);
	tap_ok(x[0] == 0.1 * 3 && n[2] == 1 && v[0] == 0.1, "a translation: x0 + v t, normal kept");
}

static void test_place(void)
{
	struct mrdem_scene s;
	mrdem_scene_init(&s);
	struct mrdem_motion m = rotation(), m2 = rotation();
	m2.target = 1;
	mrdem_motion_add(&s.setup, &m);
	mrdem_motion_add(&s.setup, &m2);
	tap_ok(s.setup.motions[0].target == 1 && s.setup.motions[1].target == 3 &&
	       mrdem_motion_find(&s.setup, 3) == &s.setup.motions[1] &&
	       !mrdem_motion_find(&s.setup, 2), "motions are kept sorted by target and found");
	for (uint64_t id = 0; id < 4; id++)
		mrdem_particles_push(&s.frame.p, id, 0);
	s.frame.p.flags[1] = s.frame.p.flags[3] = MRDEM_PARTICLE_FIXED;
	s.frame.time = 2;
	tap_ok(mrdem_motion_place(&s) == 0 && fabs(s.frame.p.pos[3 * 3 + 1] - 1) < 1e-15 &&
	       s.frame.p.pos[3 * 2] == 0, "the moving fixed particles are placed, the others not");
	s.frame.p.flags[3] = 0;
	tap_capture_begin();
	int rc = mrdem_motion_place(&s);
	tap_ok(rc == -1 && strstr(tap_capture_end(), "particle 3 has a motion but is not fixed"),
	       "a free particle with a motion is refused");
	s.frame.p.n = 2;
	char why[160];
	tap_ok(mrdem_motion_frame_problem(&s.setup, &s.frame.p, why, sizeof why) &&
	       strstr(why, "1 of the 2 moving particles"), "a missing moving particle is named");
	mrdem_scene_release(&s);
}

static void test_record(void)
{
	struct mrdem_setup a, b;
	mrdem_setup_default(&a);
	mrdem_setup_default(&b);
	struct mrdem_motion m = rotation();
	mrdem_motion_add(&a, &m);
	m.target = MRDEM_PLANE_ID(0);
	m.kind = MRDEM_MOTION_VELOCITY;
	a.nplanes = b.nplanes = 1;
	mrdem_motion_add(&a, &m);
	struct mrdem_buf buf;
	mrdem_buf_init(&buf);
	mrdem_encode_motion(&buf, &a);
	struct mrdem_record rec = {.type = MRDEM_REC_MOTION, .data = buf.p, .len = buf.len};
	tap_ok(mrdem_decode_motion(&rec, "t", &b) == 0 && b.nmotions == 2 &&
	       !memcmp(b.motions, a.motions, 2 * sizeof *b.motions),
	       "the motion record round-trips");
	/* swap the two targets: out of order */
	uint64_t t0;
	memcpy(&t0, buf.p + 4, 8);
	memcpy(buf.p + 4, buf.p + 4 + 172, 8);
	memcpy(buf.p + 4 + 172, &t0, 8);
	tap_capture_begin();
	int rc = mrdem_decode_motion(&rec, "t", &b);
	tap_ok(rc == -1 && strstr(tap_capture_end(), "not ascending"), "unordered targets are refused");
	mrdem_buf_release(&buf);
	a.nplanes = b.nplanes = 0;
	mrdem_setup_release(&a);
	mrdem_setup_release(&b);
}

int main(void)
{
	test_rotate();
	test_oscillate_and_translate();
	test_place();
	test_record();
	return tap_done();
}
