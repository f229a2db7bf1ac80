/* Mesh validation: orientation repair and every rejection class, with the
 * message naming the offending element. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/geom/vec3.h"
#include "common/mesh/mesh.h"
#include "common/util/rng.h"
#include "tests/lib/tap.h"

static char err[4096];

/* Validate with stderr captured into err. */
static int validate(struct mrdem_mesh *m, unsigned flags)
{
	fflush(stderr);
	FILE *tmp = tmpfile();
	int saved = dup(2);
	dup2(fileno(tmp), 2);
	int rc = mrdem_mesh_validate(m, flags, "test mesh");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	size_t n = fread(err, 1, sizeof err - 1, tmp);
	while (n && err[n - 1] == '\n')
		n--;
	err[n] = 0;
	fclose(tmp);
	return rc;
}

static void from_arrays(struct mrdem_mesh *m, const double *v, uint32_t nv, const uint32_t *t,
			uint32_t nt)
{
	mrdem_mesh_init(m);
	mrdem_mesh_alloc(m, nv, nt);
	memcpy(m->verts, v, 3 * nv * sizeof *v);
	memcpy(m->tris, t, 3 * nt * sizeof *t);
}

/* Unit cube [0,1]^3, outward. */
static const double cube_v[] = { 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0,
				 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1 };
static const uint32_t cube_t[] = { 0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
				   1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7 };

static void cube(struct mrdem_mesh *m, double scale, double shift)
{
	double v[24];
	for (int i = 0; i < 24; i++)
		v[i] = cube_v[i] * scale + shift;
	from_arrays(m, v, 8, cube_t, 12);
}

/* Each undirected edge used once in each direction. */
static int consistent(const struct mrdem_mesh *m)
{
	for (uint32_t t = 0; t < m->ntris; t++)
		for (int e = 0; e < 3; e++) {
			uint32_t a = m->tris[3 * t + e], b = m->tris[3 * t + (e + 1) % 3];
			int fwd = 0, back = 0;
			for (uint32_t u = 0; u < m->ntris; u++)
				for (int f = 0; f < 3; f++) {
					uint32_t c = m->tris[3 * u + f], d = m->tris[3 * u + (f + 1) % 3];
					fwd += c == a && d == b;
					back += c == b && d == a;
				}
			if (fwd != 1 || back > 1)
				return 0;
		}
	return 1;
}

static void flip(struct mrdem_mesh *m, uint32_t t)
{
	uint32_t x = m->tris[3 * t + 1];
	m->tris[3 * t + 1] = m->tris[3 * t + 2];
	m->tris[3 * t + 2] = x;
}

static void test_orientation(void)
{
	struct mrdem_mesh m;
	cube(&m, 1, 0);
	tap_ok(validate(&m, 0) == 0, "unit cube is valid");
	tap_near(m.mass.volume, 1, 1e-15, "unit cube volume");
	tap_ok(!memcmp(m.tris, cube_t, sizeof cube_t), "an outward cube is left untouched");
	mrdem_mesh_release(&m);

	cube(&m, 1, 0);
	flip(&m, 5);
	tap_ok(validate(&m, 0) == 0 && consistent(&m), "a flipped triangle is fixed");
	tap_ok(!memcmp(m.tris, cube_t, sizeof cube_t), "... back to the outward original");
	tap_near(m.mass.volume, 1, 1e-15, "... volume 1");
	mrdem_mesh_release(&m);

	cube(&m, 1, 0);
	for (uint32_t t = 0; t < 12; t++)
		flip(&m, t);
	tap_ok(validate(&m, 0) == 0 && !memcmp(m.tris, cube_t, sizeof cube_t),
	       "an inside-out cube is turned outward");
	tap_near(m.mass.volume, 1, 1e-15, "... volume +1");
	mrdem_mesh_release(&m);

	/* property: random flips of a bumpy sphere are all undone */
	struct mrdem_sphere_opts o;
	struct mrdem_mesh ref;
	mrdem_sphere_opts_default(&o);
	o.triangles = 320;
	o.noise = 2;
	mrdem_mesh_init(&ref);
	mrdem_mesh_sphere(&ref, &o);
	struct mrdem_rng rng;
	mrdem_rng_seed(&rng, 3);
	int ok = 1;
	for (int trial = 0; trial < 10; trial++) {
		mrdem_mesh_init(&m);
		mrdem_mesh_copy(&m, &ref);
		double p = mrdem_rng_uniform(&rng);
		for (uint32_t t = 0; t < m.ntris; t++)
			if (mrdem_rng_uniform(&rng) < p)
				flip(&m, t);
		ok &= validate(&m, 0) == 0 && !memcmp(m.tris, ref.tris, 3 * m.ntris * sizeof *m.tris) &&
		      m.mass.volume == ref.mass.volume;
		mrdem_mesh_release(&m);
	}
	tap_ok(ok, "10 random flip patterns on a bumpy sphere all restored exactly");
	mrdem_mesh_release(&ref);

	/* a cavity: outer cube 3^3 with an inner cube 1^3, both given outward */
	double v[48];
	uint32_t t[72];
	for (int i = 0; i < 24; i++) {
		v[i] = cube_v[i] * 3;
		v[24 + i] = cube_v[i] + 1;
	}
	for (int i = 0; i < 36; i++) {
		t[i] = cube_t[i];
		t[36 + i] = cube_t[i] + 8;
	}
	from_arrays(&m, v, 16, t, 24);
	tap_ok(validate(&m, 0) == 0, "hollow cube is valid");
	tap_near(m.mass.volume, 26, 1e-12, "inner surface turned inward: volume 27 - 1");
	tap_near(m.mass.com[0], 1.5, 1e-12, "hollow cube com");
	mrdem_mesh_release(&m);

	/* two separate cubes, one inside out: both outward */
	for (int i = 0; i < 24; i++)
		v[24 + i] = cube_v[i] + (i % 3 == 0 ? 5 : 0);
	from_arrays(&m, v, 16, t, 24);
	for (uint32_t k = 12; k < 24; k++)
		flip(&m, k);
	tap_ok(validate(&m, 0) == 0, "two disjoint cubes are valid");
	tap_near(m.mass.volume, 28, 1e-12, "both outward: volume 27 + 1");
	mrdem_mesh_release(&m);
}

static void test_open(void)
{
	struct mrdem_mesh m;
	cube(&m, 1, 0);
	m.ntris = 11; /* drop the last triangle */
	tap_ok(validate(&m, 0) < 0 && strstr(err, "open") && strstr(err, "triangle"),
	       "open mesh rejected without the flag: %s", err);
	tap_ok(validate(&m, MRDEM_MESH_ALLOW_OPEN) == 0 && m.open, "accepted and marked open with it");
	mrdem_mesh_release(&m);

	cube(&m, 1, 0);
	tap_ok(validate(&m, MRDEM_MESH_ALLOW_OPEN) == 0 && !m.open && m.mass.volume == 1,
	       "a closed mesh with the flag stays closed");
	mrdem_mesh_release(&m);

	mrdem_mesh_init(&m);
	tap_ok(mrdem_mesh_plane(&m, 4, 2, 4, 2, 0) == 0 && m.open, "plane is an open mesh");
	flip(&m, 3);
	tap_ok(validate(&m, MRDEM_MESH_ALLOW_OPEN) == 0 && consistent(&m), "plane: flipped triangle fixed");
	int up = 1;
	for (uint32_t t = 0; t < m.ntris; t++) {
		const double *a = &m.verts[3 * m.tris[3 * t]], *b = &m.verts[3 * m.tris[3 * t + 1]],
			     *c = &m.verts[3 * m.tris[3 * t + 2]];
		double e1[3], e2[3], n[3];
		vec3_sub(e1, b, a);
		vec3_sub(e2, c, a);
		vec3_cross(n, e1, e2);
		up &= n[2] > 0;
	}
	tap_ok(up, "plane keeps the majority orientation (+z normals)");
	mrdem_mesh_release(&m);

	/* The tilt is an angle in -180..180 (every orientation once). */
	static const double tilts[] = {180, -180, 180.001, -1e300, NAN, INFINITY};
	for (int k = 0; k < 6; k++) {
		mrdem_mesh_init(&m);
		tap_capture_begin();
		int rc = mrdem_mesh_plane(&m, 4, 2, 1, 1, tilts[k]);
		const char *e = tap_capture_end();
		if (k < 2)
			tap_ok(rc == 0 && fabs(m.verts[5]) < 1e-12, "plane tilt %g accepted, flat", tilts[k]);
		else
			tap_ok(rc == -1 && strstr(e, "plane tilt must be an angle in degrees from -180 to "
						 "180"),
			       "plane tilt %g refused", tilts[k]);
		mrdem_mesh_release(&m);
	}

	/* Moebius strip: a band of 4 quads closed with a half twist */
	const double mv[] = { 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 0, 2, 0, 1, 2, 1, 1,
			      1, 0, 2, 1, 1, 2 };
	const uint32_t mt[] = { 0, 2, 3, 0, 3, 1, 2, 4, 5, 2, 5, 3, 4, 6, 7, 4, 7, 5,
				6, 1, 0, 6, 0, 7 };
	from_arrays(&m, mv, 8, mt, 8);
	tap_ok(validate(&m, MRDEM_MESH_ALLOW_OPEN) < 0 && strstr(err, "not orientable"),
	       "Moebius strip rejected: %s", err);
	mrdem_mesh_release(&m);
}

static void test_rejections(void)
{
	struct mrdem_mesh m;

	cube(&m, 1, 0);
	m.tris[3 * 7 + 2] = m.tris[3 * 7];
	tap_ok(validate(&m, 0) < 0 && strstr(err, "triangle 7 is degenerate"),
	       "repeated vertex rejected with the index: %s", err);
	mrdem_mesh_release(&m);

	/* tetrahedron whose triangle 2 has collinear vertices 0, 1, 2 */
	const double tv[] = { 0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 1, 1 };
	const uint32_t tt[] = { 0, 1, 3, 1, 2, 3, 0, 2, 1, 2, 0, 3 };
	from_arrays(&m, tv, 4, tt, 4);
	tap_ok(validate(&m, 0) < 0 && strstr(err, "triangle 2 is degenerate") &&
		       strstr(err, "collinear"),
	       "zero-area triangle rejected with the index: %s", err);
	mrdem_mesh_release(&m);

	/* a fin: an extra triangle on the cube edge (0, 1) */
	double v[27];
	uint32_t t[39];
	memcpy(v, cube_v, sizeof cube_v);
	v[24] = 0.5, v[25] = -1, v[26] = -1;
	memcpy(t, cube_t, sizeof cube_t);
	t[36] = 0, t[37] = 1, t[38] = 8;
	from_arrays(&m, v, 9, t, 13);
	tap_ok(validate(&m, MRDEM_MESH_ALLOW_OPEN) < 0 && strstr(err, "edge (0, 1)") &&
		       strstr(err, "3 triangles"),
	       "non-manifold edge rejected: %s", err);
	mrdem_mesh_release(&m);

	/* two tetrahedra touching at vertex 0 */
	const double bv[] = { 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, -1, 0, 0, 0, -1, 0, 0, 0, -1 };
	const uint32_t bt[] = { 0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3,
				0, 5, 4, 0, 4, 6, 0, 6, 5, 4, 5, 6 };
	from_arrays(&m, bv, 7, bt, 8);
	tap_ok(validate(&m, 0) < 0 && strstr(err, "vertex 0 is not a 2-manifold point"),
	       "surfaces touching at a vertex rejected: %s", err);
	mrdem_mesh_release(&m);

	/* two triangles back to back: closed but empty */
	const double pv[] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 };
	const uint32_t pt[] = { 0, 1, 2, 0, 2, 1 };
	from_arrays(&m, pv, 3, pt, 2);
	tap_ok(validate(&m, 0) < 0 && strstr(err, "encloses no volume"),
	       "zero-volume closed surface rejected: %s", err);
	mrdem_mesh_release(&m);

	cube(&m, 1, 0);
	m.tris[4] = 8;
	tap_ok(validate(&m, 0) < 0 && strstr(err, "triangle 1 refers to vertex 8"),
	       "vertex index out of range rejected: %s", err);
	mrdem_mesh_release(&m);

	cube(&m, 1, 0);
	m.verts[3 * 6 + 1] = NAN;
	tap_ok(validate(&m, 0) < 0 && strstr(err, "vertex 6 has a non-finite"),
	       "NaN vertex rejected: %s", err);
	mrdem_mesh_release(&m);

	memcpy(v, cube_v, sizeof cube_v);
	v[24] = v[25] = v[26] = 5;
	from_arrays(&m, v, 9, cube_t, 12);
	tap_ok(validate(&m, 0) < 0 && strstr(err, "vertex 8 is not used"),
	       "unused vertex rejected: %s", err);
	mrdem_mesh_release(&m);

	mrdem_mesh_init(&m);
	tap_ok(validate(&m, 0) < 0 && strstr(err, "no triangles"), "empty mesh rejected: %s", err);
	mrdem_mesh_release(&m);
}

int main(void)
{
	test_orientation();
	test_open();
	test_rejections();
	return tap_done();
}
