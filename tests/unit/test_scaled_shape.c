/* Scaled shapes: mass S^3 and inertia S^5 against closed forms and the
 * exact polyhedral mass of the scaled mesh, one shape per (base, scale),
 * the scaled surrogate tree conservative at every size, trees passed on
 * from the base whenever it gets one, and the scaled_shape record's
 * absorption rules. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/mesh/mesh.h"
#include "common/scene/scaled_shape.h"
#include "common/shape/convex.h"
#include "common/scene/scene.h"
#include "common/tree/tree.h"
#include "formats/stream/bytes.h"
#include "formats/stream/record_scaled_shape.h"
#include "formats/stream/record_tree.h"
#include "formats/stream/records.h"
#include "tests/lib/record_of.h"
#include "tests/lib/tap.h"

static void noisy_sphere(struct mrdem_mesh *m, uint32_t n, double radius)
{
	struct mrdem_sphere_opts o;
	mrdem_sphere_opts_default(&o);
	o.triangles = n;
	o.radius = radius;
	o.noise = 1.3;
	o.seed = 5;
	mrdem_mesh_init(m);
	if (mrdem_mesh_sphere(m, &o) || mrdem_mesh_validate(m, 0, "sphere"))
		exit(1);
}

static double rel(double got, double want)
{
	return fabs(got - want) / fmax(fabs(want), 1e-300);
}

static void test_analytic(void)
{
	struct mrdem_scene s;
	mrdem_scene_init(&s);
	double r = 0.7, S = 3.0, axes[3] = {r, r, r}, big[3] = {r * S, r * S, r * S};
	uint32_t b = mrdem_scene_add_analytic(&s, "orb", MRDEM_SHAPE_SPHERE, axes);
	uint32_t i = mrdem_scene_scaled_shape(&s, b, S);
	const struct mrdem_shape *sh = &s.shapes[i];
	struct mrdem_mass want;
	mrdem_analytic_mass(big, &want);
	tap_ok(sh->kind == MRDEM_SHAPE_SPHERE && sh->axes[0] == r * S && sh->bound_radius == r * S,
	       "a scaled analytic sphere has radius r S");
	tap_near(sh->mesh.mass.volume, 4.0 / 3.0 * M_PI * pow(r * S, 3), 1e-14 * want.volume,
		 "its volume is 4/3 pi (r S)^3");
	tap_near(sh->mesh.mass.inertia[0], 0.4 * want.volume * (r * S) * (r * S),
		 1e-14 * want.inertia[0], "its inertia is 2/5 V (r S)^2 (S^5 of the base's)");
	tap_near(sh->mesh.mass.inertia[2] / s.shapes[b].mesh.mass.inertia[2], pow(S, 5),
		 1e-13 * pow(S, 5), "inertia ratio S^5");
	double e[3] = {1, 2, 3};
	uint32_t el = mrdem_scene_add_analytic(&s, "egg", MRDEM_SHAPE_ELLIPSOID, e);
	uint32_t ej = mrdem_scene_scaled_shape(&s, el, 0.5);
	tap_ok(s.shapes[ej].kind == MRDEM_SHAPE_ELLIPSOID && s.shapes[ej].axes[0] == 0.5 &&
	       s.shapes[ej].axes[2] == 1.5, "an ellipsoid's semi-axes scale");
	mrdem_scene_release(&s);
}

static void test_mesh_mass_and_reuse(void)
{
	struct mrdem_scene s;
	mrdem_scene_init(&s);
	struct mrdem_mesh m;
	noisy_sphere(&m, 320, 0.5);
	uint32_t b = mrdem_scene_add_shape(&s, "rock", &m);
	double S = 1.7;
	uint32_t i = mrdem_scene_scaled_shape(&s, b, S);
	const struct mrdem_shape *base = &s.shapes[b], *sh = &s.shapes[i];
	struct mrdem_mass exact;
	mrdem_mesh_mass(&sh->mesh, &exact);
	tap_ok(!strcmp(sh->name, "rock*1.7") && sh->base == b && sh->scale == S,
	       "named BASE*S, base and scale kept: '%s'", sh->name);
	tap_ok(rel(sh->mesh.mass.volume, exact.volume) < 1e-13,
	       "volume S^3 V is the polyhedral volume of the scaled mesh (%.17g, %.17g)",
	       sh->mesh.mass.volume, exact.volume);
	int ok = 1;
	for (int k = 0; k < 3; k++)
		ok &= rel(sh->mesh.mass.inertia[k], exact.inertia[k]) < 1e-12 &&
		      fabs(sh->mesh.mass.com[k] - exact.com[k]) < 1e-13;
	tap_ok(ok, "inertia S^5 I and centre of mass S c are the scaled mesh's");
	tap_near(sh->bound_radius, S * base->bound_radius, 1e-15 * sh->bound_radius,
		 "bounding radius scales");
	tap_eq_int(mrdem_scene_scaled_shape(&s, b, S), i, "the same (base, scale) is one shape");
	tap_eq_int(mrdem_scene_scaled_shape(&s, b, 1.0), b, "scale 1 is the base");
	uint32_t twice = mrdem_scene_scaled_shape(&s, i, 2.0);
	tap_ok(s.shapes[twice].base == b && s.shapes[twice].scale == S * 2.0,
	       "a scaled shape scaled again derives from the base, factors multiplied");
	uint32_t tenth = mrdem_scene_scaled_shape(&s, b, 0.1);
	uint32_t odd = mrdem_scene_scaled_shape(&s, b, 0.1 + 0.2);
	tap_ok(!strcmp(s.shapes[tenth].name, "rock*0.1") &&
	       !strcmp(s.shapes[odd].name, "rock*0.30000000000000004"),
	       "names give the fewest digits that read back: '%s', '%s'", s.shapes[tenth].name,
	       s.shapes[odd].name);
	char why[256];
	tap_ok(mrdem_shape_scale_check(&s, b, 0, why, sizeof why) &&
	       mrdem_shape_scale_check(&s, b, NAN, why, sizeof why) &&
	       mrdem_shape_scale_check(&s, b, 1e300, why, sizeof why) &&
	       !mrdem_shape_scale_check(&s, b, 1e-3, why, sizeof why),
	       "scale 0, nan and 1e300 refused, 1e-3 taken");
	mrdem_scene_release(&s);
}

/* Trees built once for the base, scaled to every size, stay conservative. */
static void test_tree(void)
{
	struct mrdem_scene s;
	mrdem_scene_init(&s);
	struct mrdem_mesh m;
	noisy_sphere(&m, 1280, 0.5);
	uint32_t b = mrdem_scene_add_shape(&s, "rock", &m);
	/* a scaled shape made before its base has a tree gets one later */
	uint32_t early = mrdem_scene_scaled_shape(&s, b, 0.3);
	struct mrdem_tree_params p;
	mrdem_tree_params_default(&p);
	if (mrdem_tree_build(&s.shapes[b].mesh, &p, &s.shapes[b].tree))
		exit(1);
	tap_ok(mrdem_scene_scale_trees(&s, b) == 0 && s.shapes[early].tree,
	       "a tree given to the base is passed on to the shapes scaled before");
	const double scales[] = {1e-4, 0.3, 0.37, 1.0 / 3, 2.5, 7.1, 1e5};
	for (size_t k = 0; k < sizeof scales / sizeof *scales; k++) {
		uint32_t i = mrdem_scene_scaled_shape(&s, b, scales[k]);
		const struct mrdem_shape *sh = &s.shapes[i], *base = &s.shapes[b];
		struct mrdem_tree_violation v;
		size_t bad = sh->tree ? mrdem_tree_verify(sh->tree, &sh->mesh, &v) : 1;
		/* the margin is some float ulps of the shape's size */
		double worst = 0;
		for (uint32_t n = 0; sh->tree && n < sh->tree->nnodes; n++)
			worst = fmax(worst, (sh->tree->eps[n] - scales[k] * base->tree->eps[n]) /
						    sh->bound_radius);
		tap_ok(bad == 0 && sh->tree->nnodes == base->tree->nnodes && worst < 1e-6,
		       "scale %g: the scaled tree is conservative (every node's halo holds every "
		       "vertex beneath it), eps at most %.2g of the radius above S eps (%zu "
		       "violations)", scales[k], worst, bad);
	}
	mrdem_scene_release(&s);
}

static void test_convex(void)
{
	struct mrdem_scene s;
	mrdem_scene_init(&s);
	struct mrdem_mesh m;
	mrdem_mesh_init(&m);
	if (mrdem_mesh_box(&m, (double[3]){1, 2, 3}, 2) || mrdem_mesh_validate(&m, 0, "box"))
		exit(1);
	uint32_t b = mrdem_scene_add_shape(&s, "brick", &m);
	if (mrdem_scene_make_convex(&s, b, "brick"))
		exit(1);
	uint32_t i = mrdem_scene_scaled_shape(&s, b, 0.25);
	const struct mrdem_convex *c = s.shapes[i].convex, *cb = s.shapes[b].convex;
	tap_ok(c && c->nv == cb->nv && c->nf == cb->nf && c->ne == cb->ne &&
	       fabs(c->radius - 0.25 * cb->radius) < 1e-15,
	       "a scaled convex shape has its base's features, scaled");
	mrdem_scene_release(&s);
}

/* Absorb a scaled_shape record of these fields: its result, the message in *err. */
static int absorb_scaled(struct mrdem_scene *s, uint32_t id, uint32_t base, double scale,
			 const char **err)
{
	struct mrdem_buf b;
	mrdem_buf_init(&b);
	mrdem_encode_scaled_shape(&b, id, "x", base, scale);
	struct mrdem_record r = rec_of(&b, MRDEM_REC_SCALED_SHAPE);
	tap_capture_begin();
	int rc = mrdem_scene_absorb(s, &r, "test");
	*err = tap_capture_end();
	mrdem_buf_release(&b);
	return rc;
}

static void test_record(void)
{
	struct mrdem_scene s;
	mrdem_scene_init(&s);
	struct mrdem_mesh m;
	noisy_sphere(&m, 80, 0.5);
	uint32_t b = mrdem_scene_add_shape(&s, "rock", &m);
	const char *err;
	tap_ok(absorb_scaled(&s, 1, b, 2.0, &err) == 1 && s.nshapes == 2 &&
	       s.shapes[1].scale == 2.0 && s.shapes[1].mesh.verts[0] == 2 * s.shapes[0].mesh.verts[0],
	       "a scaled_shape record adds the base scaled");
	tap_ok(absorb_scaled(&s, 2, 1, 2.0, &err) < 0 && strstr(err, "is itself scaled"),
	       "a scaled base is refused: %s", err);
	tap_ok(absorb_scaled(&s, 2, 2, 2.0, &err) < 0 && strstr(err, "not a smaller id"),
	       "a base that is not a smaller id is refused: %s", err);
	tap_ok(absorb_scaled(&s, 5, 0, 2.0, &err) < 0 && strstr(err, "out of order"),
	       "an id out of order is refused: %s", err);
	tap_ok(absorb_scaled(&s, 2, 0, -1.0, &err) < 0 && strstr(err, "not a finite factor"),
	       "a negative scale is refused: %s", err);
	tap_ok(absorb_scaled(&s, 2, 0, 1e300, &err) < 0 && strstr(err, "beyond double precision"),
	       "a scale beyond double precision is refused: %s", err);

	/* a tree record: the base's is scaled into the shape, the scaled's refused */
	struct mrdem_tree_params p;
	struct mrdem_tree *t;
	mrdem_tree_params_default(&p);
	if (mrdem_tree_build(&s.shapes[0].mesh, &p, &t))
		exit(1);
	struct mrdem_buf tb;
	mrdem_buf_init(&tb);
	mrdem_encode_tree(&tb, 1, t);
	struct mrdem_record r = rec_of(&tb, MRDEM_REC_TREE);
	tap_capture_begin();
	int rc = mrdem_scene_absorb(&s, &r, "test");
	err = tap_capture_end();
	tap_ok(rc < 0 && strstr(err, "which is scaled from shape 0"),
	       "a tree record for a scaled shape is refused: %s", err);
	mrdem_buf_release(&tb);
	mrdem_buf_init(&tb);
	mrdem_encode_tree(&tb, 0, t);
	r = rec_of(&tb, MRDEM_REC_TREE);
	tap_ok(mrdem_scene_absorb(&s, &r, "test") == 1 && s.shapes[0].tree && s.shapes[1].tree &&
	       mrdem_tree_verify(s.shapes[1].tree, &s.shapes[1].mesh, NULL) == 0,
	       "the base's tree record, after the scaled shape, gives it the tree scaled");
	mrdem_buf_release(&tb);
	mrdem_tree_free(t);
	mrdem_scene_release(&s);
}

int main(void)
{
	test_analytic();
	test_mesh_mass_and_reuse();
	test_tree();
	test_convex();
	test_record();
	return tap_done();
}
