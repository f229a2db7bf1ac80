/* Surfaces of revolution against the closed forms of the polygonal
 * solids they are: prisms, pyramids and the annulus-and-tube of a
 * flat-bottomed hopper. */
#include <math.h>
#include <stdlib.h>

#include "common/mesh/mesh.h"
#include "tests/lib/tap.h"

/* Area of the regular S-gon of circumradius r. */
static double polygon_area(unsigned s, double r)
{
	return 0.5 * s * sin(2 * M_PI / s) * r * r;
}

/* Edges used by one triangle only (the rims of an open surface). */
static unsigned boundary_edges(const struct mrdem_mesh *m)
{
	uint32_t *twin = malloc(3 * (size_t)m->ntris * sizeof *twin);
	mrdem_mesh_twins(m, twin);
	unsigned n = 0;
	for (size_t e = 0; e < 3 * (size_t)m->ntris; e++)
		n += twin[e] == MRDEM_NO_TWIN;
	free(twin);
	return n;
}

static void test_drum(unsigned s, unsigned d)
{
	double R = 0.3, H = 0.7, rz[] = { 0, 0, R, 0, R, H, 0, H };
	struct mrdem_mesh m;
	mrdem_mesh_init(&m);
	if (!tap_ok(mrdem_mesh_revolve(&m, rz, 4, s, d) == 0, "drum %u x %u: made", s, d))
		return;
	tap_ok(!m.open, "drum %u x %u: closed", s, d);
	/* a cap of d rings: a fan and d - 1 bands; the side: d bands */
	tap_eq_int(m.ntris, 2 * s * (2 * d - 1) + 2 * s * d, "drum %u x %u: triangles", s, d);
	double v = polygon_area(s, R) * H;
	tap_near(m.mass.volume, v, 1e-12 * v, "drum %u x %u: volume of the prism", s, d);
	tap_near(m.mass.com[2], H / 2, 1e-12, "drum %u x %u: centre of mass on the axis", s, d);
	tap_near(m.mass.com[0], 0, 1e-12, "drum %u x %u: centre of mass x", s, d);
	mrdem_mesh_release(&m);
}

static void test_cone(unsigned s)
{
	double R = 1.5, H = 2, rz[] = { 0, 0, R, 0, 0, H };
	struct mrdem_mesh m;
	mrdem_mesh_init(&m);
	if (!tap_ok(mrdem_mesh_revolve(&m, rz, 3, s, 1) == 0, "cone %u: made", s))
		return;
	double v = polygon_area(s, R) * H / 3;
	tap_near(m.mass.volume, v, 1e-12 * v, "cone %u: volume of the pyramid", s);
	tap_near(m.mass.com[2], H / 4, 1e-12, "cone %u: centre of mass at a quarter height", s);
	mrdem_mesh_release(&m);
}

static void test_hopper(unsigned s, unsigned d)
{
	double a = 0.02, R = 0.1, H = 0.3, rz[] = { a, 0, R, 0, R, H };
	struct mrdem_mesh m;
	mrdem_mesh_init(&m);
	if (!tap_ok(mrdem_mesh_revolve(&m, rz, 3, s, d) == 0, "hopper %u x %u: made", s, d))
		return;
	tap_ok(m.open, "hopper %u x %u: open", s, d);
	tap_eq_int(m.ntris, 4 * s * d, "hopper %u x %u: triangles", s, d);
	tap_eq_int(boundary_edges(&m), 2 * s, "hopper %u x %u: two rims, outlet and top", s, d);
	double area = polygon_area(s, R) - polygon_area(s, a) + s * 2 * R * sin(M_PI / s) * H;
	tap_near(mrdem_mesh_area(&m), area, 1e-12 * area,
		 "hopper %u x %u: area of the annulus and the tube", s, d);
	double lo[3], hi[3];
	mrdem_mesh_bbox(&m, lo, hi);
	tap_ok(lo[2] == 0 && hi[2] == H && hi[0] == R, "hopper %u x %u: profile ends exact", s, d);
	mrdem_mesh_release(&m);
}

static void test_refused(const char *what, const double *rz, size_t n, unsigned s, unsigned d,
			 const char *msg)
{
	struct mrdem_mesh m;
	mrdem_mesh_init(&m);
	tap_capture_begin();
	int rc = mrdem_mesh_revolve(&m, rz, n, s, d);
	const char *err = tap_capture_end();
	tap_ok(rc != 0 && strstr(err, msg), "refused: %s (%s)", what, err);
	mrdem_mesh_release(&m);
}

int main(void)
{
	test_drum(64, 1);
	test_drum(7, 3);
	test_cone(32);
	test_cone(5);
	test_hopper(48, 1);
	test_hopper(12, 4);
	double pole_inside[] = { 1, 0, 0, 1, 1, 2 };
	test_refused("an inner point on the axis", pole_inside, 3, 16, 1, "on the axis");
	double twice[] = { 1, 0, 1, 0, 1, 2 };
	test_refused("coincident points", twice, 3, 16, 1, "coincide");
	double negative[] = { 1, 0, -1, 1 };
	test_refused("a negative radius", negative, 2, 16, 1, "negative radius");
	double one[] = { 1, 0 };
	test_refused("one point", one, 1, 16, 1, "at least 2");
	double axis[] = { 0, 0, 0, 1 };
	test_refused("a profile on the axis", axis, 2, 16, 1, "sweeps no surface");
	double ok[] = { 1, 0, 1, 1 };
	test_refused("2 segments", ok, 2, 2, 1, "segments");
	test_refused("0 divisions", ok, 2, 8, 0, "divisions");
	double nan_point[] = { 1, 0, NAN, 1 };
	test_refused("a NaN radius", nan_point, 2, 8, 1, "not finite");
	return tap_done();
}
