/* The material pair table (common/scene/material.h): one material gives
 * the law of no materials bit for bit, mixed pairs follow the documented
 * rules (docs/dynamics.md, "Materials"), pair overrides win in either
 * order, and what is wrong is said. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/scene/material.h"
#include "common/scene/scene.h"
#include "tests/lib/tap.h"

static void hertz_setup(struct mrdem_setup *s)
{
	mrdem_setup_default(s);
	s->force_model = MRDEM_FORCE_HERTZ;
	s->young = 7e10;
	s->poisson = 0.3;
	s->restitution = 0.8;
	s->friction = 0.4;
	s->rolling_friction = 0.1;
}

static void test_one_material(void)
{
	struct mrdem_setup s;
	hertz_setup(&s);
	struct mrdem_particles p;
	memset(&p, 0, sizeof p);
	struct mrdem_pair_law own, own2;
	const struct mrdem_pair_law *none = mrdem_pair_law_of(&s, &p, 0, 1, 0, &own);
	s.materials = mrdem_materials_new();
	mrdem_materials_add(s.materials, "al", &s);
	char buf[200];
	tap_ok(!mrdem_materials_build(s.materials, &s, buf, sizeof buf), "one material builds");
	uint32_t mat[2] = {0, 0};
	p.material = mat;
	const struct mrdem_pair_law *one = mrdem_pair_law_of(&s, &p, 0, 1, 0, &own2);
	tap_ok(one != &own2 && !memcmp(none, one, sizeof *one),
	       "its pair law is the setup's, bit for bit");
	mrdem_setup_release(&s);
}

static void test_mixing(void)
{
	struct mrdem_setup s;
	hertz_setup(&s);
	struct mrdem_materials *m = s.materials = mrdem_materials_new();
	mrdem_materials_add(m, "steel", &s);
	mrdem_materials_add(m, "rubber", &s);
	mrdem_materials_add(m, "glass", &s);
	double *a = m->m[0].v, *b = m->m[1].v;
	a[MRDEM_MAT_YOUNG] = 2e11, a[MRDEM_MAT_POISSON] = 0.3, a[MRDEM_MAT_FRICTION] = 0.5;
	b[MRDEM_MAT_YOUNG] = 1e7, b[MRDEM_MAT_POISSON] = 0.45, b[MRDEM_MAT_FRICTION] = 0.9;
	a[MRDEM_MAT_RESTITUTION] = 0.9, b[MRDEM_MAT_RESTITUTION] = 0.6;
	m->pairs = calloc(1, sizeof *m->pairs);
	m->npairs = 1;
	m->pairs[0] = (struct mrdem_material_pair){.a = 0, .b = 2, .given = 1u << MRDEM_MAT_FRICTION};
	m->pairs[0].v[MRDEM_MAT_FRICTION] = 0.05;
	char buf[200];
	tap_ok(!mrdem_materials_build(m, &s, buf, sizeof buf), "three materials build");
	const struct mrdem_pair_law *ab = &m->table[0 * 3 + 1], *ba = &m->table[1 * 3 + 0];
	double estar = 1 / ((1 - 0.09) / 2e11 + (1 - 0.2025) / 1e7);
	double ga = 2e11 / 2.6, gb = 1e7 / 2.9, gstar = 1 / (1.7 / ga + 1.55 / gb);
	tap_ok(fabs(ab->estar / estar - 1) < 1e-14 && fabs(ab->gstar / gstar - 1) < 1e-14,
	       "hertz: E* = 1/((1-nu1^2)/E1 + (1-nu2^2)/E2), G* likewise (%g, %g)", ab->estar,
	       ab->gstar);
	tap_ok(ab->friction == 0.5 && ab->restitution == 0.6 && !memcmp(ab, ba, sizeof *ab),
	       "friction and restitution: the smaller; symmetric");
	tap_ok(m->table[2].friction == 0.05 && m->table[6].friction == 0.05,
	       "a pair entry overrides its pair in either order");
	tap_ok(m->table[8].friction == 0.4 && m->table[8].estar == 7e10 / (2 * (1 - 0.09)),
	       "a material with itself: its own values");

	s.force_model = MRDEM_FORCE_HOOKE;
	s.stiffness = 1e5;
	for (uint32_t i = 0; i < 3; i++)
		m->m[i].v[MRDEM_MAT_STIFFNESS] = 1e5 * (i + 1);
	tap_ok(!mrdem_materials_build(m, &s, buf, sizeof buf) &&
		       fabs(m->table[1].stiffness - 2 * 1e5 * 2e5 / 3e5) < 1e-9,
	       "hooke: springs in series, 2 k1 k2 / (k1 + k2)");
	m->pairs[0].given |= 1u << MRDEM_MAT_DAMPING;
	const char *bad = mrdem_materials_build(m, &s, buf, sizeof buf);
	tap_ok(bad && strstr(bad, "damping") && strstr(bad, "not read"),
	       "a pair parameter the model does not read is refused: %s", bad);
	m->pairs[0].given = 1u << MRDEM_MAT_FRICTION;
	m->pairs = realloc(m->pairs, 2 * sizeof *m->pairs);
	m->pairs[1] = m->pairs[0];
	m->npairs = 2;
	bad = mrdem_materials_build(m, &s, buf, sizeof buf);
	tap_ok(bad && strstr(bad, "given twice"), "a pair given twice is refused: %s", bad);
	mrdem_setup_release(&s);
}

int main(void)
{
	test_one_material();
	test_mixing();
	return tap_done();
}
