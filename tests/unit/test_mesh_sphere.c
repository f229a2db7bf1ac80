/* Sphere generator: triangle counts, radii, noise range and determinism,
 * stretch. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/vec3.h"
#include "common/mesh/mesh.h"
#include "tests/lib/tap.h"

static int make(struct mrdem_mesh *m, uint32_t tris, double r, double noise, uint64_t seed,
		double stretch, int axis)
{
	struct mrdem_sphere_opts o;
	mrdem_sphere_opts_default(&o);
	o.triangles = tris;
	o.radius = r;
	o.noise = noise;
	o.seed = seed;
	o.stretch = stretch;
	o.stretch_axis = axis;
	mrdem_mesh_init(m);
	return mrdem_mesh_sphere(m, &o);
}

static void radius_range(const struct mrdem_mesh *m, double *lo, double *hi)
{
	*lo = INFINITY, *hi = 0;
	for (uint32_t i = 0; i < m->nverts; i++) {
		double r = vec3_norm(&m->verts[3 * i]);
		*lo = fmin(*lo, r);
		*hi = fmax(*hi, r);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Number of distinct vertex heights: latitude rings plus the two poles. */
static unsigned distinct_z(const struct mrdem_mesh *m)
{
	double *z = malloc(m->nverts * sizeof *z);
	for (uint32_t i = 0; i < m->nverts; i++)
		z[i] = m->verts[3 * i + 2];
	qsort(z, m->nverts, sizeof *z, cmp_double);
	unsigned n = 1;
	for (uint32_t i = 1; i < m->nverts; i++)
		n += z[i] > z[i - 1] + 1e-12;
	free(z);
	return n;
}

/* Every triangle faces away from the centre (convex, star-shaped). */
static int all_outward(const struct mrdem_mesh *m)
{
	for (uint32_t t = 0; t < m->ntris; t++) {
		const double *a = &m->verts[3 * m->tris[3 * t]], *b = &m->verts[3 * m->tris[3 * t + 1]],
			     *c = &m->verts[3 * m->tris[3 * t + 2]];
		double e1[3], e2[3], n[3], s[3];
		vec3_sub(e1, b, a);
		vec3_sub(e2, c, a);
		vec3_cross(n, e1, e2);
		vec3_add(s, a, b);
		vec3_add(s, s, c);
		if (!(vec3_dot(n, s) > 0))
			return 0;
	}
	return 1;
}

static void test_counts(void)
{
	uint32_t ico = 20;
	for (int k = 0; k <= 4; k++, ico *= 4) {
		struct mrdem_mesh m;
		tap_ok(make(&m, ico, 1, 1, 1, 1, 0) == 0, "icosphere %u builds", ico);
		tap_eq_int(m.ntris, ico, "icosphere level %d triangle count", k);
		tap_eq_int(m.nverts, 10 * (ico / 20) + 2, "icosphere level %d vertex count", k);
		tap_ok(!m.open && m.mass.volume > 0, "icosphere %u closed, volume %g", ico,
		       m.mass.volume);
		tap_ok(all_outward(&m), "icosphere %u triangles face outward", ico);
		mrdem_mesh_release(&m);
	}
	/* the paper's Table 2 counts: lat-long with (meridians, bands) */
	const struct { uint32_t n; unsigned bands; } ll[] = {
		{ 12, 2 }, { 36, 4 }, { 140, 6 }, { 1224, 18 }, { 6, 2 }, { 1000, 21 },
	};
	for (size_t i = 0; i < sizeof ll / sizeof *ll; i++) {
		struct mrdem_mesh m;
		tap_ok(make(&m, ll[i].n, 1, 1, 1, 1, 0) == 0, "lat-long sphere %u builds", ll[i].n);
		tap_eq_int(m.ntris, ll[i].n, "lat-long %u triangle count", ll[i].n);
		tap_eq_int(m.nverts, ll[i].n / 2 + 2, "lat-long %u vertex count (Euler)", ll[i].n);
		tap_eq_int(distinct_z(&m), ll[i].bands + 1, "lat-long %u has %u bands", ll[i].n,
			   ll[i].bands);
		tap_ok(!m.open && m.mass.volume > 0 && all_outward(&m),
		       "lat-long %u closed and outward", ll[i].n);
		mrdem_mesh_release(&m);
	}
	const uint32_t bad[] = { 0, 4, 7, 26, 202, 1281 };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		struct mrdem_mesh m;
		tap_capture_begin();
		int rc = make(&m, bad[i], 1, 1, 1, 1, 0);
		const char *err = tap_capture_end();
		char want[64];
		snprintf(want, sizeof want, "cannot make a sphere of %u triangles (nearest: ", bad[i]);
		tap_ok(rc < 0 && strstr(err, want), "%u triangles refused, nearest counts named",
		       bad[i]);
		mrdem_mesh_release(&m);
	}
	char buf[512];
	mrdem_mesh_sphere_counts(buf, sizeof buf);
	tap_ok(strstr(buf, "1280") && strstr(buf, "1224"), "counts text lists 1280 and 1224: %s",
	       buf);
}

static void test_radius(void)
{
	const uint32_t n[] = { 1280, 1224 };
	for (int i = 0; i < 2; i++) {
		struct mrdem_mesh m;
		double lo, hi;
		make(&m, n[i], 2.5, 1, 1, 1, 0);
		radius_range(&m, &lo, &hi);
		tap_ok(fabs(lo - 2.5) < 1e-14 && fabs(hi - 2.5) < 1e-14,
		       "%u triangles: every vertex at radius 2.5 ([%.17g, %.17g])", n[i], lo, hi);
		mrdem_mesh_release(&m);
	}
}

static void test_noise(void)
{
	const double eta[] = { 1.2, 2.6 };
	for (int i = 0; i < 2; i++) {
		struct mrdem_mesh m;
		double lo, hi, r = 0.5;
		tap_ok(make(&m, 1280, r, eta[i], 3, 1, 0) == 0, "noise %g builds", eta[i]);
		radius_range(&m, &lo, &hi);
		tap_near(lo, r, 1e-14, "noise %g: smallest radius is r", eta[i]);
		tap_near(hi, eta[i] * r, 1e-14, "noise %g: largest radius is eta*r", eta[i]);
		/* hierarchical, not white: most vertices are neither extreme, and
		 * neighbours differ far less than the full range */
		double maxjump = 0, sum = 0;
		for (uint32_t t = 0; t < m.ntris; t++)
			for (int e = 0; e < 3; e++) {
				double ra = vec3_norm(&m.verts[3 * m.tris[3 * t + e]]);
				double rb = vec3_norm(&m.verts[3 * m.tris[3 * t + (e + 1) % 3]]);
				maxjump = fmax(maxjump, fabs(ra - rb));
				sum += fabs(ra - rb);
			}
		/* white noise would give ~1 and ~1/3 of the range */
		tap_ok(maxjump < 0.5 * (hi - lo) && sum / (3 * m.ntris) < 0.1 * (hi - lo),
		       "noise %g is smooth: edge jumps max %.3g mean %.3g of range %.3g", eta[i],
		       maxjump, sum / (3 * m.ntris), hi - lo);
		tap_ok(!m.open && m.mass.volume > 4.0 / 3 * M_PI * r * r * r * 0.9,
		       "noisy sphere closed with volume %g", m.mass.volume);
		mrdem_mesh_release(&m);
	}
	struct mrdem_mesh a, b, c;
	make(&a, 320, 1, 1.5, 11, 1, 0);
	make(&b, 320, 1, 1.5, 11, 1, 0);
	make(&c, 320, 1, 1.5, 12, 1, 0);
	tap_ok(!memcmp(a.verts, b.verts, 3 * a.nverts * sizeof *a.verts) &&
		       !memcmp(a.tris, b.tris, 3 * a.ntris * sizeof *a.tris),
	       "same seed, same mesh bit for bit");
	double diff = 0;
	for (uint32_t i = 0; i < 3 * a.nverts; i++)
		diff = fmax(diff, fabs(a.verts[i] - c.verts[i]));
	tap_ok(diff > 0.05, "different seed, different mesh (max coordinate difference %g)", diff);
	mrdem_mesh_release(&a);
	mrdem_mesh_release(&b);
	mrdem_mesh_release(&c);

	/* small lat-long spheres get noise too, still inside [r, eta r] */
	struct mrdem_mesh s;
	double lo, hi;
	tap_ok(make(&s, 140, 1, 2, 5, 1, 0) == 0, "noisy lat-long 140 builds");
	radius_range(&s, &lo, &hi);
	tap_ok(lo >= 1 - 1e-14 && hi <= 2 + 1e-14 && hi - lo > 0.99, "lat-long radii [%g, %g]", lo,
	       hi);
	mrdem_mesh_release(&s);
}

static void test_stretch(void)
{
	for (int axis = 0; axis < 3; axis++) {
		struct mrdem_mesh a, b;
		make(&a, 1280, 1, 1.4, 9, 1, axis);
		tap_ok(make(&b, 1280, 1, 1.4, 9, 2.2, axis) == 0, "stretch 2.2 along axis %d", axis);
		int same = a.nverts == b.nverts;
		for (uint32_t i = 0; same && i < a.nverts; i++)
			for (int k = 0; k < 3; k++)
				same &= b.verts[3 * i + k] ==
					a.verts[3 * i + k] * (k == axis ? 2.2 : 1.0);
		tap_ok(same, "stretch scales only axis %d, after the noise", axis);
		tap_near(b.mass.volume, 2.2 * a.mass.volume, 1e-12 * b.mass.volume,
			 "stretch multiplies the volume by 2.2");
		mrdem_mesh_release(&a);
		mrdem_mesh_release(&b);
	}
	struct mrdem_mesh m;
	static const struct {
		double r, noise, stretch;
		int axis;
		const char *what, *msg;
	} bad_opts[] = {
		{ 1, 1, 0, 0, "stretch 0", "stretch must be a positive number" },
		{ 1, 0.5, 1, 0, "noise below 1", "noise eta must be a number >= 1" },
		{ -1, 1, 1, 0, "negative radius", "radius must be a positive number" },
		{ NAN, 1, 1, 0, "NaN radius", "radius must be a positive number" },
		{ 1, 1, 1, 3, "axis 3", "stretch axis must be 0 (x), 1 (y) or 2 (z)" },
	};
	for (size_t i = 0; i < sizeof bad_opts / sizeof *bad_opts; i++) {
		tap_capture_begin();
		int rc = make(&m, 80, bad_opts[i].r, bad_opts[i].noise, 1, bad_opts[i].stretch,
			      bad_opts[i].axis);
		const char *err = tap_capture_end();
		tap_ok(rc < 0 && strstr(err, bad_opts[i].msg), "%s refused: %s", bad_opts[i].what, err);
	}
	mrdem_mesh_release(&m);
}

int main(void)
{
	test_counts();
	test_radius();
	test_noise();
	test_stretch();
	return tap_done();
}
