/* Inflow and outflow on constructed scenes (common/scene/flow.h): regions,
 * the schedule's closed form, removing particles from a frame with their
 * columns and springs, and placing an insertion clear of particles, a
 * fixed mesh and planes, the same way every time. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/scene/flow.h"
#include "tests/lib/tap.h"
#include "tests/unit/dynamics_fixture.h"

static void test_regions(void)
{
	struct mrdem_region box = {MRDEM_REGION_BOX, {0, 0, 0}, {1, 2, 3}, 0};
	struct mrdem_region out = box;
	out.kind = MRDEM_REGION_OUTSIDE;
	struct mrdem_region cyl = {MRDEM_REGION_CYLINDER, {0, 0, 0}, {0, 0, 2}, 0.5};
	double in[3] = {0.5, 1, 3}, beyond[3] = {0.5, 1, 3.001};
	tap_ok(mrdem_region_contains(&box, in) && !mrdem_region_contains(&box, beyond),
	       "a box holds its faces, not beyond");
	tap_ok(!mrdem_region_contains(&out, in) && mrdem_region_contains(&out, beyond),
	       "outside a box is its complement");
	double c1[3] = {0.3, 0.4, 1}, c2[3] = {0.3, 0.41, 1}, c3[3] = {0, 0, -0.01};
	tap_ok(mrdem_region_contains(&cyl, c1) && !mrdem_region_contains(&cyl, c2) &&
	       !mrdem_region_contains(&cyl, c3), "a cylinder: radius 0.5 about the axis, between its ends");
	double lo[3], hi[3];
	mrdem_region_bounds(&cyl, lo, hi);
	tap_ok(lo[0] == -0.5 && hi[1] == 0.5 && lo[2] == 0 && hi[2] == 2, "a cylinder's bounds");
	struct mrdem_region bad = box;
	bad.a[1] = 5;
	tap_ok(mrdem_region_check(&bad) != NULL && mrdem_region_check(&box) == NULL,
	       "min above max is no region");
	cyl.radius = 0;
	tap_ok(mrdem_region_check(&cyl) != NULL, "nor a cylinder of radius 0");
}

static void test_schedule(void)
{
	struct mrdem_insertion in = {0};
	in.total = 50, in.start = 10, in.per_step = 0.5;
	tap_ok(mrdem_insertion_placed(&in, 9) == 0 && mrdem_insertion_placed(&in, 10) == 0 &&
	       mrdem_insertion_placed(&in, 11) == 0 && mrdem_insertion_placed(&in, 12) == 1 &&
	       mrdem_insertion_placed(&in, 109) == 49 && mrdem_insertion_placed(&in, 110) == 50 &&
	       mrdem_insertion_placed(&in, 1000) == 50,
	       "a rate: floor((s - start) per_step), at most the total");
	in.per_step = 1000 * 1e-3; /* a whole rate in one step: no rounding below */
	tap_ok(mrdem_insertion_placed(&in, 13) == 3, "a product of one stays whole");
	in.per_step = 0;
	tap_ok(mrdem_insertion_placed(&in, 9) == 0 && mrdem_insertion_placed(&in, 10) == 50,
	       "a count: all at its step");
}

/* Five particles ids 1..5, an extra u32 column holding 10 x id, springs
 * between them and with a plane. */
static void five(struct mrdem_scene *s)
{
	fx_scene(s, MRDEM_FORCE_HOOKE, 1e4, 1e-3, MRDEM_SCHEME_VELOCITY_VERLET);
	fx_add_ball(s, 0.5);
	for (int i = 1; i <= 5; i++)
		fx_add_particle(s, (uint64_t)i, 0, i, 0, 0, 0.01);
	struct mrdem_frame *f = &s->frame;
	f->extra = calloc(1, sizeof *f->extra);
	f->nextra = 1;
	f->extra[0].name = strdup("tag");
	f->extra[0].type = MRDEM_COLUMN_U32;
	f->extra[0].components = 1;
	f->extra[0].size = 5 * 4;
	f->extra[0].data = malloc(20);
	for (uint32_t i = 0; i < 5; i++) {
		uint32_t v = 10 * (i + 1);
		memcpy(f->extra[0].data + 4 * i, &v, 4);
	}
	uint64_t pairs[][2] = {{1, 2}, {2, 3}, {3, 4}, {4, MRDEM_PLANE_ID(0)}, {5, MRDEM_PLANE_ID(0)}};
	for (int k = 0; k < 5; k++) {
		struct mrdem_spring *sp = mrdem_history_push(&f->history);
		memset(sp, 0, sizeof *sp);
		sp->a = pairs[k][0], sp->b = pairs[k][1];
	}
}

static void test_remove(void)
{
	struct mrdem_scene s;
	five(&s);
	struct mrdem_frame *f = &s.frame;
	unsigned char drop[5] = {0, 1, 0, 1, 0}; /* ids 2 and 4 */
	mrdem_frame_remove(f, drop);
	uint32_t tags[3];
	memcpy(tags, f->extra[0].data, sizeof tags);
	tap_ok(f->p.n == 3 && f->p.id[0] == 1 && f->p.id[1] == 3 && f->p.id[2] == 5 &&
	       f->p.pos[3 * 1] == 3 && f->p.pos[3 * 2] == 5, "ids and positions compacted");
	tap_ok(f->extra[0].size == 12 && tags[0] == 10 && tags[1] == 30 && tags[2] == 50,
	       "an extra column compacted with them");
	tap_ok(f->history.n == 1 && f->history.s[0].a == 5, "the springs naming 2 or 4 are gone, "
	       "the others kept");
	size_t i = mrdem_frame_push(f, 9, 0);
	memcpy(tags, f->extra[0].data + 12, 4);
	tap_ok(i == 3 && f->extra[0].size == 16 && tags[0] == 0 && f->p.id[3] == 9,
	       "a pushed particle grows the column with a zero");
	struct mrdem_frame copy;
	mrdem_frame_init(&copy);
	mrdem_frame_copy(&copy, f);
	tap_ok(copy.p.n == 4 && copy.p.id[3] == 9 && copy.history.n == 1 && copy.nextra == 1 &&
	       !memcmp(copy.extra[0].data, f->extra[0].data, 16) && copy.extra[0].data != f->extra[0].data,
	       "a frame copied deep");
	mrdem_frame_release(&copy);
	mrdem_scene_release(&s);
}

/* A fixed open square of 2 x 2 at z = 0 (a floor mesh), a ball of radius
 * 0.05, and an insertion of 150 balls in the box above the square. */
static void floor_scene(struct mrdem_scene *s)
{
	fx_scene(s, MRDEM_FORCE_HOOKE, 1e4, 1e-3, MRDEM_SCHEME_VELOCITY_VERLET);
	uint32_t ball = fx_add_ball(s, 0.05);
	s->shapes[ball].bound_radius = 0.05;
	struct mrdem_mesh m;
	mrdem_mesh_init(&m);
	mrdem_mesh_plane(&m, 2, 2, 4, 4, 0);
	uint32_t sq = mrdem_scene_add_shape(s, "floor", &m);
	size_t i = fx_add_particle(s, 1000, sq, 0, 0, 0, 0.01);
	s->frame.p.flags[i] = MRDEM_PARTICLE_FIXED;
	struct mrdem_insertion *in = s->flow.insert = calloc(1, sizeof *in);
	s->flow.ninsert = 1;
	in->region = (struct mrdem_region){MRDEM_REGION_BOX, {-0.5, -0.5, 0}, {0.5, 0.5, 0.3}, 0};
	in->nshapes = 1;
	in->shapes = calloc(1, sizeof *in->shapes);
	in->shapes[0] = (struct mrdem_insert_shape){.shape = ball, .fraction = 1, .density = 2500,
						   .eps = 0.005};
	in->random_orientation = 1;
	in->seed = 3, in->first_id = 0, in->total = 150, in->dt = 1e-3;
}

static void test_place(void)
{
	struct mrdem_scene s, t;
	floor_scene(&s);
	floor_scene(&t);
	tap_ok(mrdem_inflow_place(&s, 0, 0, 150, 7) == 0 && s.frame.p.n == 151,
	       "150 balls placed above the floor");
	mrdem_inflow_place(&t, 0, 0, 150, 7);
	tap_ok(!memcmp(s.frame.p.pos, t.frame.p.pos, 3 * 151 * sizeof(double)) &&
	       !memcmp(s.frame.p.quat, t.frame.p.quat, 4 * 151 * sizeof(double)),
	       "the same draws every time");
	const struct mrdem_particles *p = &s.frame.p;
	double low = INFINITY, close = INFINITY;
	for (size_t i = 1; i < p->n; i++) {
		low = fmin(low, p->pos[3 * i + 2]);
		for (size_t j = 1; j < i; j++)
			close = fmin(close, vec3_dist(&p->pos[3 * i], &p->pos[3 * j]));
	}
	tap_ok(low >= 0.05 + 0.005 + 0.01, "every ball clear of the floor mesh (lowest %g)", low);
	tap_ok(close >= 2 * 0.055, "no two balls overlap (closest %g)", close);
	/* a region too full: 150 more cannot fit beside them */
	s.flow.insert[0].total = 2000;
	struct fx_capture cap;
	fx_capture_begin(&cap);
	int rc = mrdem_inflow_place(&s, 0, 150, 2000, 8);
	const char *msg = fx_capture_end(&cap);
	if (!tap_ok(rc == -1 && strstr(msg, "step 8") && strstr(msg, "insert[0] placed"),
		    "a full region: an error naming the step and insertion"))
		tap_diag("message: %s", msg);
	mrdem_scene_release(&s);
	mrdem_scene_release(&t);
}

/* Entries of two materials and two shapes: each particle placed carries
 * its entry's shape, material, density and halo. */
static void test_place_kinds(void)
{
	struct mrdem_scene s;
	floor_scene(&s);
	uint32_t big = fx_add_ball(&s, 0.08);
	s.shapes[big].bound_radius = 0.08;
	mrdem_particles_use_material(&s.frame.p);
	s.setup.materials = mrdem_materials_new();
	mrdem_materials_add(s.setup.materials, "glass", &s.setup);
	mrdem_materials_add(s.setup.materials, "steel", &s.setup);
	struct mrdem_insertion *in = &s.flow.insert[0];
	uint32_t ball = in->shapes[0].shape;
	free(in->shapes);
	in->shapes = calloc(2, sizeof *in->shapes);
	in->nshapes = 2;
	in->shapes[0] = (struct mrdem_insert_shape){ball, 0, 0.5, 2500, 0.005};
	in->shapes[1] = (struct mrdem_insert_shape){big, 1, 0.5, 7800, 0.004};
	char buf[160];
	const char *why = mrdem_insertion_check(&s, in, buf, sizeof buf);
	tap_ok(!why, "two materials, two shapes: a valid insertion (%s)", why ? why : "ok");
	int rc = mrdem_inflow_place(&s, 0, 0, 60, 3);
	const struct mrdem_particles *p = &s.frame.p;
	size_t wrong = 0, of[2] = {0, 0};
	for (size_t i = 1; i < p->n; i++) {
		uint32_t m = p->material[i];
		const struct mrdem_insert_shape *e = &in->shapes[m < 2 ? m : 0];
		wrong += m > 1 || p->shape[i] != e->shape || p->density[i] != e->density ||
			 p->eps[i] != e->eps;
		of[m & 1]++;
	}
	tap_ok(rc == 0 && p->n == 61 && !wrong && of[0] && of[1],
	       "each particle placed has its entry's shape, material, density and halo "
	       "(%zu of one, %zu of the other, %zu wrong)", of[0], of[1], wrong);
	in->shapes[1].material = 2;
	why = mrdem_insertion_check(&s, in, buf, sizeof buf);
	tap_ok(why && strstr(why, "material 2 of 2"), "a material beyond the scene's refused (%s)",
	       why ? why : "accepted");
	mrdem_scene_release(&s);
}

int main(void)
{
	test_regions();
	test_schedule();
	test_remove();
	test_place();
	test_place_kinds();
	return tap_done();
}
