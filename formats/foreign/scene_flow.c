/* The scene file's insert: and remove: sections (scene_flow.h). */
#include "formats/foreign/scene_flow.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/quat.h"
#include "common/geom/vec3.h"
#include "common/scene/scaled_shape.h"
#include "common/util/error.h"

#define BIT(i) MRDEM_YAML_BIT(i)

static const char *const ikey_names[] = {
	"region", "shape", "shapes", "velocity", "angular_velocity", "orientation", "density",
	"mass", "epsilon", "epsilon_abs", "seed", "count", "time", "rate", "from", "to",
	"material", "scale",
};
enum {
	I_REGION, I_SHAPE, I_SHAPES, I_VELOCITY, I_ANGVEL, I_ORIENTATION, I_DENSITY, I_MASS,
	I_EPS, I_EPS_ABS, I_SEED, I_COUNT, I_TIME, I_RATE, I_FROM, I_TO, I_MATERIAL, I_SCALE, I_N
};

/* A scale as written: one factor, or factors drawn with fractions. */
struct scale_spec {
	uint32_t n;                  /* 0: none given (1) */
	double *value, *fraction;
	yaml_mark_t at;              /* the value of scale: */
};

/* A shape to draw from as written: shape: or an entry of shapes:. */
struct flow_entry {
	char *name;
	double fraction;
	yaml_mark_t at;              /* the name */
	char what[48];               /* "insert[i].shapes[j]", or "insert[i]" */
	uint32_t mat_ref;            /* a material reference; 0: the insertion's */
	struct scale_spec scale;     /* n 0: the insertion's */
};

/* One insertion as written, until the document is read. */
struct scene_flow_item {
	char what[32];               /* "insert[i]", which k.what points to */
	struct mrdem_yaml_keys k;
	struct mrdem_insertion in;   /* region, velocities, orientation, seed */
	uint32_t nentries;
	struct flow_entry *entry;
	uint32_t mat_ref;            /* 0: no material named */
	struct scale_spec scale;
	double density, mass, eps, time, rate, from, to;
	uint64_t count;
};

void scene_flow_init(struct scene_flow *f)
{
	memset(f, 0, sizeof *f);
}

static void scale_release(struct scale_spec *sc)
{
	free(sc->value);
	free(sc->fraction);
}

static void item_release(struct scene_flow_item *it)
{
	for (uint32_t j = 0; j < it->nentries; j++) {
		free(it->entry[j].name);
		scale_release(&it->entry[j].scale);
	}
	free(it->entry);
	scale_release(&it->scale);
	free(it->in.shapes);
}

void scene_flow_release(struct scene_flow *f)
{
	for (size_t i = 0; i < f->n; i++)
		item_release(&f->items[i]);
	free(f->items);
	scene_flow_init(f);
}

/* ---- regions */

static const char *const box_keys[] = {"min", "max"};
static const char *const cyl_keys[] = {"point", "axis", "radius", "length"};

static int parse_box(struct mrdem_yaml *y, const char *what, struct mrdem_region *r)
{
	struct mrdem_yaml_keys k;
	int id, rc;
	mrdem_yaml_keys_init(&k, what, box_keys, 2, MRDEM_YAML_ALL(2));
	if (mrdem_yaml_map_begin(y, &k))
		return -1;
	while ((rc = mrdem_yaml_map_next(y, &k, &id)) > 0)
		if (mrdem_yaml_vec(y, k.cur, id ? r->b : r->a, 3, MRDEM_YAML_ANY))
			return -1;
	if (rc < 0 || mrdem_yaml_require(y, &k, 0) || mrdem_yaml_require(y, &k, 1))
		return -1;
	for (int c = 0; c < 3; c++)
		if (!(r->a[c] <= r->b[c]))
			return mrdem_yaml_err_at(y, k.map, "%s: min [%g, %g, %g] is above max "
						 "[%g, %g, %g] in coordinate %d", what, r->a[0],
						 r->a[1], r->a[2], r->b[0], r->b[1], r->b[2], c);
	return 0;
}

/* {point: END, axis: DIRECTION, radius: R, length: L}: from point along axis. */
static int parse_cylinder(struct mrdem_yaml *y, const char *what, struct mrdem_region *r)
{
	struct mrdem_yaml_keys k;
	double axis[3] = {0, 0, 0}, len = 0;
	int id, rc;
	mrdem_yaml_keys_init(&k, what, cyl_keys, 4, MRDEM_YAML_ALL(4));
	if (mrdem_yaml_map_begin(y, &k))
		return -1;
	while ((rc = mrdem_yaml_map_next(y, &k, &id)) > 0) {
		if (id == 0)
			rc = mrdem_yaml_vec(y, k.cur, r->a, 3, MRDEM_YAML_ANY);
		else if (id == 1)
			rc = mrdem_yaml_vec(y, k.cur, axis, 3, MRDEM_YAML_ANY);
		else
			rc = mrdem_yaml_number(y, k.cur, id == 2 ? &r->radius : &len) ||
			     mrdem_yaml_positive(y, k.cur, id == 2 ? r->radius : len);
		if (rc)
			return -1;
	}
	for (int i = 0; i < 4 && rc == 0; i++)
		rc = mrdem_yaml_require(y, &k, i);
	if (rc)
		return -1;
	if (!(vec3_normalize(axis) > 0))
		return mrdem_yaml_err_at(y, k.val[1], "%s.axis: the zero vector has no direction",
					 what);
	vec3_axpy(r->b, r->a, len, axis);
	return 0;
}

static const char *const region_keys[] = {"box", "cylinder", "outside"};

/* A region: one of the kinds in `allowed` (bits of enum mrdem_region_kind - 1). */
static int parse_region(struct mrdem_yaml *y, const char *what, uint32_t allowed,
			struct mrdem_region *r)
{
	struct mrdem_yaml_keys k;
	int id, rc;
	memset(r, 0, sizeof *r);
	mrdem_yaml_keys_init(&k, what, region_keys, 3, allowed);
	if (mrdem_yaml_map_begin(y, &k))
		return -1;
	while ((rc = mrdem_yaml_map_next(y, &k, &id)) > 0) {
		if (r->kind)
			return mrdem_yaml_err_at(y, k.key[id], "%s: a region is one of %s; '%s' "
						 "comes beside '%s'", what,
						 allowed & BIT(2) ? "box, cylinder or outside" :
								    "box or cylinder",
						 region_keys[id], mrdem_region_name(r->kind));
		r->kind = (uint32_t)id + 1;
		if (id == 1 ? parse_cylinder(y, k.cur, r) : parse_box(y, k.cur, r))
			return -1;
	}
	if (rc < 0)
		return -1;
	if (!r->kind)
		return mrdem_yaml_err_at(y, k.map, "%s: no region given (%s)", what,
					 allowed & BIT(2) ? "box, cylinder or outside" :
							    "box or cylinder");
	return 0;
}

int scene_flow_parse_remove(struct mrdem_yaml *y, struct scene_flow *f, struct mrdem_scene *s)
{
	char what[64];
	f->remove_mark = mrdem_yaml_mark(y);
	if (mrdem_yaml_type(y) != YAML_SEQUENCE_START_EVENT)
		return mrdem_yaml_err_type(y, "remove", "a list of regions");
	for (;;) {
		if (mrdem_yaml_next(y))
			return -1;
		if (mrdem_yaml_type(y) == YAML_SEQUENCE_END_EVENT)
			break;
		struct mrdem_flow *fl = &s->flow;
		snprintf(what, sizeof what, "remove[%" PRIu32 "]", fl->nremove);
		struct mrdem_region r;
		if (parse_region(y, what, MRDEM_YAML_ALL(3), &r))
			return -1;
		fl->remove = mrdem_xrealloc(fl->remove, (fl->nremove + 1) * sizeof *fl->remove);
		fl->remove[fl->nremove++] = r;
	}
	if (!s->flow.nremove)
		return mrdem_yaml_err_at(y, f->remove_mark, "remove: the list is empty");
	return 0;
}

/* ---- insertions, as written */

/* A new entry, its name and scale still to come. */
static struct flow_entry *add_entry(struct scene_flow_item *it, const char *what)
{
	uint32_t n = it->nentries + 1;
	it->entry = mrdem_xrealloc(it->entry, n * sizeof *it->entry);
	struct flow_entry *e = &it->entry[it->nentries];
	memset(e, 0, sizeof *e);
	e->fraction = 1.0;
	snprintf(e->what, sizeof e->what, "%s", what);
	it->nentries = n;
	return e;
}

/* A list of numbers > 0 of any length at least 1. */
static int parse_positives(struct mrdem_yaml *y, const char *what, double **out, uint32_t *n)
{
	char el[300];
	if (mrdem_yaml_type(y) != YAML_SEQUENCE_START_EVENT)
		return mrdem_yaml_err_type(y, what, "a list of numbers");
	yaml_mark_t start = mrdem_yaml_mark(y);
	for (;;) {
		double x;
		if (mrdem_yaml_next(y))
			return -1;
		if (mrdem_yaml_type(y) == YAML_SEQUENCE_END_EVENT)
			break;
		snprintf(el, sizeof el, "%s[%" PRIu32 "]", what, *n);
		if (mrdem_yaml_number(y, el, &x) || mrdem_yaml_positive(y, el, x))
			return -1;
		*out = mrdem_xrealloc(*out, (*n + 1) * sizeof **out);
		(*out)[(*n)++] = x;
	}
	if (!*n)
		return mrdem_yaml_err_at(y, start, "%s: the list is empty", what);
	return 0;
}

static const char *const scale_keys[] = {"values", "fractions"};

/* scale: S, or scale: {values: [S1, ...], fractions: [F1, ...]} (each
 * fraction > 0, as many as values, summing to 1 within 1e-6). */
static int parse_scale(struct mrdem_yaml *y, const char *what, struct scale_spec *sc)
{
	sc->at = mrdem_yaml_mark(y);
	if (mrdem_yaml_type(y) != YAML_MAPPING_START_EVENT) {
		double x;
		if (mrdem_yaml_type(y) != YAML_SCALAR_EVENT)
			return mrdem_yaml_err_type(y, what, "a number > 0 or {values: [...], "
						   "fractions: [...]}");
		if (mrdem_yaml_number(y, what, &x) || mrdem_yaml_positive(y, what, x))
			return -1;
		sc->value = mrdem_xmalloc(sizeof *sc->value);
		sc->fraction = mrdem_xmalloc(sizeof *sc->fraction);
		sc->value[0] = x;
		sc->fraction[0] = 1;
		sc->n = 1;
		return 0;
	}
	struct mrdem_yaml_keys k;
	uint32_t nv = 0, nf = 0;
	int id, rc;
	mrdem_yaml_keys_init(&k, what, scale_keys, 2, MRDEM_YAML_ALL(2));
	if (mrdem_yaml_map_begin(y, &k))
		return -1;
	while ((rc = mrdem_yaml_map_next(y, &k, &id)) > 0)
		if (id ? parse_positives(y, k.cur, &sc->fraction, &nf) :
			 parse_positives(y, k.cur, &sc->value, &nv))
			return -1;
	if (rc < 0 || mrdem_yaml_require(y, &k, 0) || mrdem_yaml_require(y, &k, 1))
		return -1;
	if (nf != nv)
		return mrdem_yaml_err_at(y, k.val[1], "%s.fractions: %" PRIu32 " fractions for %"
					 PRIu32 " values: one fraction per value", what, nf, nv);
	double sum = 0;
	for (uint32_t j = 0; j < nf; j++)
		sum += sc->fraction[j];
	if (!(fabs(sum - 1) <= 1e-6))
		return mrdem_yaml_err_at(y, k.val[1], "%s.fractions: the fractions sum to %.9g, "
					 "not 1", what, sum);
	sc->n = nv;
	return 0;
}

static const char *const mix_keys[] = {"shape", "fraction", "material", "scale"};

/* shapes: [{shape: NAME, fraction: F, material: M, scale: S}, ...] */
static int parse_shapes(struct mrdem_yaml *y, const char *what, struct scene_flow_item *it,
			struct mrdem_yaml_materials *ym)
{
	char w[300];
	if (mrdem_yaml_type(y) != YAML_SEQUENCE_START_EVENT)
		return mrdem_yaml_err_type(y, what, "a list of {shape: NAME, fraction: F}");
	yaml_mark_t start = mrdem_yaml_mark(y);
	for (;;) {
		struct mrdem_yaml_keys k;
		int id, rc;
		if (mrdem_yaml_next(y))
			return -1;
		if (mrdem_yaml_type(y) == YAML_SEQUENCE_END_EVENT)
			break;
		snprintf(w, sizeof w, "%s[%" PRIu32 "]", what, it->nentries);
		struct flow_entry *e = add_entry(it, w);
		e->at = start;
		mrdem_yaml_keys_init(&k, w, mix_keys, 4, MRDEM_YAML_ALL(4));
		if (mrdem_yaml_map_begin(y, &k))
			return -1;
		while ((rc = mrdem_yaml_map_next(y, &k, &id)) > 0) {
			if (id == 0) {
				e->at = mrdem_yaml_mark(y);
				rc = mrdem_yaml_string(y, k.cur, &e->name);
			} else if (id == 1) {
				rc = mrdem_yaml_number(y, k.cur, &e->fraction) ||
				     mrdem_yaml_positive(y, k.cur, e->fraction);
			} else if (id == 2) {
				rc = mrdem_yaml_material_ref(y, ym, k.cur, &e->mat_ref);
			} else {
				rc = parse_scale(y, k.cur, &e->scale);
			}
			if (rc)
				return -1;
		}
		if (rc || mrdem_yaml_require(y, &k, 0) || mrdem_yaml_require(y, &k, 1))
			return -1;
	}
	if (!it->nentries)
		return mrdem_yaml_err_at(y, start, "%s: the list is empty", what);
	return 0;
}

/* orientation: random, or a quaternion [w, x, y, z] (normalised). */
static int parse_orientation(struct mrdem_yaml *y, const char *what, struct mrdem_insertion *in)
{
	if (mrdem_yaml_type(y) == YAML_SCALAR_EVENT && mrdem_yaml_is(y, "random")) {
		in->random_orientation = 1;
		return 0;
	}
	if (mrdem_yaml_type(y) == YAML_SCALAR_EVENT)
		return mrdem_yaml_err_type(y, what, "random or a quaternion [w, x, y, z]");
	if (mrdem_yaml_vec(y, what, in->quat, 4, MRDEM_YAML_ANY))
		return -1;
	if (!(quat_normalize(in->quat) > 1e-12))
		return mrdem_yaml_err(y, "%s: the zero quaternion is no orientation", what);
	in->random_orientation = 0;
	return 0;
}

static int parse_ifield(struct mrdem_yaml *y, struct scene_flow_item *it, int id,
			struct mrdem_yaml_materials *ym)
{
	const char *w = it->k.cur;
	struct mrdem_insertion *in = &it->in;
	struct flow_entry *e;
	switch (id) {
	case I_REGION:
		return parse_region(y, w, MRDEM_YAML_ALL(2), &in->region);
	case I_SHAPE:
		e = add_entry(it, it->what);
		e->at = mrdem_yaml_mark(y);
		return mrdem_yaml_string(y, w, &e->name);
	case I_SHAPES:
		return parse_shapes(y, w, it, ym);
	case I_MATERIAL:
		return mrdem_yaml_material_ref(y, ym, w, &it->mat_ref);
	case I_SCALE:
		return parse_scale(y, w, &it->scale);
	case I_VELOCITY:
		return mrdem_yaml_vec(y, w, in->vel, 3, MRDEM_YAML_ANY);
	case I_ANGVEL:
		return mrdem_yaml_vec(y, w, in->angvel, 3, MRDEM_YAML_ANY);
	case I_ORIENTATION:
		return parse_orientation(y, w, in);
	case I_DENSITY:
		return mrdem_yaml_number(y, w, &it->density) || mrdem_yaml_positive(y, w, it->density);
	case I_MASS:
		return mrdem_yaml_number(y, w, &it->mass) || mrdem_yaml_positive(y, w, it->mass);
	case I_EPS:
	case I_EPS_ABS:
		return mrdem_yaml_number(y, w, &it->eps) || mrdem_yaml_positive(y, w, it->eps);
	case I_SEED:
		return mrdem_yaml_u64(y, w, &in->seed);
	case I_COUNT:
		if (mrdem_yaml_u64(y, w, &it->count))
			return -1;
		return it->count ? 0 : mrdem_yaml_err(y, "%s: must be at least 1, got 0", w);
	case I_TIME:
		return mrdem_yaml_number(y, w, &it->time) || mrdem_yaml_nonnegative(y, w, it->time);
	case I_RATE:
		return mrdem_yaml_number(y, w, &it->rate) || mrdem_yaml_positive(y, w, it->rate);
	case I_FROM:
		return mrdem_yaml_number(y, w, &it->from) || mrdem_yaml_nonnegative(y, w, it->from);
	case I_TO:
		return mrdem_yaml_number(y, w, &it->to) || mrdem_yaml_positive(y, w, it->to);
	}
	return mrdem_yaml_err(y, "%s: internal error: key without parser", w);
}

/* The keys that exclude each other, and those each schedule needs. */
static int check_ikeys(struct mrdem_yaml *y, const struct scene_flow_item *it)
{
	static const int excl[][2] = {
		{I_SHAPE, I_SHAPES}, {I_DENSITY, I_MASS}, {I_EPS, I_EPS_ABS}, {I_COUNT, I_RATE},
		{I_COUNT, I_FROM}, {I_COUNT, I_TO}, {I_TIME, I_RATE}, {I_TIME, I_FROM},
		{I_TIME, I_TO},
	};
	const struct mrdem_yaml_keys *k = &it->k;
	for (size_t e = 0; e < sizeof excl / sizeof *excl; e++)
		if (mrdem_yaml_exclusive(y, k, excl[e][0], excl[e][1]))
			return -1;
	if (mrdem_yaml_require(y, k, I_REGION))
		return -1;
	if (!mrdem_yaml_has(k, I_SHAPE) && !mrdem_yaml_has(k, I_SHAPES))
		return mrdem_yaml_err_at(y, k->map, "%s: no 'shape' or 'shapes' to draw from",
					 k->what);
	if (!mrdem_yaml_has(k, I_COUNT) && !mrdem_yaml_has(k, I_RATE))
		return mrdem_yaml_err_at(y, k->map, "%s: no 'count' (all at once, at 'time') or "
					 "'rate' (particles per second, 'from' 'to')", k->what);
	if (mrdem_yaml_has(k, I_RATE) && mrdem_yaml_require(y, k, I_TO))
		return -1;
	if (mrdem_yaml_has(k, I_TO) && !(it->to > it->from))
		return mrdem_yaml_err_at(y, k->val[I_TO], "%s.to: %g is not after from, %g",
					 k->what, it->to, it->from);
	return 0;
}

int scene_flow_parse_insert(struct mrdem_yaml *y, struct scene_flow *f,
			    struct mrdem_yaml_materials *ym)
{
	f->insert_mark = mrdem_yaml_mark(y);
	if (mrdem_yaml_type(y) != YAML_SEQUENCE_START_EVENT)
		return mrdem_yaml_err_type(y, "insert", "a list of insertions");
	for (;;) {
		int id, rc;
		if (mrdem_yaml_next(y))
			return -1;
		if (mrdem_yaml_type(y) == YAML_SEQUENCE_END_EVENT)
			break;
		f->items = mrdem_xrealloc(f->items, (f->n + 1) * sizeof *f->items);
		struct scene_flow_item *it = &f->items[f->n++];
		memset(it, 0, sizeof *it);
		it->in.random_orientation = 1;
		snprintf(it->what, sizeof it->what, "insert[%zu]", f->n - 1);
		mrdem_yaml_keys_init(&it->k, it->what, ikey_names, I_N, MRDEM_YAML_ALL(I_N));
		if (mrdem_yaml_map_begin(y, &it->k))
			return -1;
		while ((rc = mrdem_yaml_map_next(y, &it->k, &id)) > 0)
			if (parse_ifield(y, it, id, ym))
				return -1;
		if (rc < 0 || check_ikeys(y, it))
			return -1;
		/* what names no material is of the default one */
		for (uint32_t j = 0; j < it->nentries; j++)
			ym->unnamed |= !it->mat_ref && !it->entry[j].mat_ref;
	}
	if (!f->n)
		return mrdem_yaml_err_at(y, f->insert_mark, "insert: the list is empty");
	return 0;
}

/* ---- the document is read */

/* The scale of entry e: its own, else the insertion's, else 1. */
static const struct scale_spec *entry_scale(const struct scene_flow_item *it,
					    const struct flow_entry *e)
{
	static double one = 1;
	static const struct scale_spec unit = {1, &one, &one, {0, 0, 0}};
	return e->scale.n ? &e->scale : it->scale.n ? &it->scale : &unit;
}

/* The density and halo of entry e of shape si (its base's diameter times
 * scale), of material mat. */
static int entry_density_eps(struct mrdem_yaml *y, const struct scene_flow_item *it,
			     const struct mrdem_scene *s, const struct scene_flow_defaults *d,
			     uint32_t base, double scale, struct mrdem_insert_shape *e)
{
	const struct mrdem_yaml_keys *k = &it->k;
	const struct mrdem_shape *sh = &s->shapes[e->shape];
	double diameter = d->diameter[base] * scale;
	if (mrdem_yaml_has(k, I_MASS))
		e->density = it->mass / sh->mesh.mass.volume;
	else if (mrdem_yaml_has(k, I_DENSITY))
		e->density = it->density;
	else
		e->density = s->setup.materials ? s->setup.materials->m[e->material].density : 1.0;
	if (mrdem_yaml_has(k, I_EPS_ABS))
		e->eps = it->eps;
	else if (mrdem_yaml_has(k, I_EPS))
		e->eps = it->eps * diameter;
	else
		e->eps = d->eps_default_abs ? d->eps_default : d->eps_default * diameter;
	if (!(e->density > 0 && isfinite(e->density)) || !(e->eps > 0 && isfinite(e->eps)))
		return mrdem_yaml_err_at(y, k->map, "%s: shape '%s' gets density %g and "
					 "epsilon %g: not positive and finite", k->what,
					 sh->name, e->density, e->eps);
	return 0;
}

/* The shapes with their fractions (summing to 1), materials, densities
 * and halos: one entry per shape and size, a scaled shape made for each
 * size other than 1. */
static int finish_shapes(struct mrdem_yaml *y, struct scene_flow_item *it, struct mrdem_scene *s,
			 const struct scene_flow_defaults *d)
{
	const struct mrdem_yaml_keys *k = &it->k;
	struct mrdem_insertion *in = &it->in;
	double sum = 0;
	uint32_t n = 0;
	for (uint32_t j = 0; j < it->nentries; j++) {
		sum += it->entry[j].fraction;
		n += entry_scale(it, &it->entry[j])->n;
	}
	if (!(fabs(sum - 1) <= 1e-6))
		return mrdem_yaml_err_at(y, k->val[I_SHAPES], "%s.shapes: the fractions sum to %.9g, "
					 "not 1", k->what, sum);
	in->shapes = mrdem_xcalloc(n, sizeof *in->shapes);
	in->nshapes = n;
	n = 0;
	for (uint32_t j = 0; j < it->nentries; j++) {
		const struct flow_entry *fe = &it->entry[j];
		long si = mrdem_scene_find_shape(s, fe->name);
		if (si < 0 || mrdem_shape_is_scaled(&s->shapes[si]))
			return mrdem_yaml_err_at(y, fe->at, "%s: unknown shape '%s'", k->what,
						 fe->name);
		if (s->shapes[si].mesh.open)
			return mrdem_yaml_err_at(y, fe->at, "%s: shape '%s' is an open mesh: "
						 "only fixed particles may use it", k->what,
						 s->shapes[si].name);
		const struct scale_spec *sc = entry_scale(it, fe);
		uint32_t ref = fe->mat_ref ? fe->mat_ref : it->mat_ref;
		double fsum = 0;
		for (uint32_t v = 0; v < sc->n; v++)
			fsum += sc->fraction[v];
		for (uint32_t v = 0; v < sc->n; v++) {
			struct mrdem_insert_shape *e = &in->shapes[n++];
			double scale = sc->value[v];
			e->shape = (uint32_t)si;
			if (scale != 1) {
				char why[400];
				if (mrdem_shape_scale_check(s, e->shape, scale, why, sizeof why))
					return mrdem_yaml_err_at(y, sc->at, "%s.scale: %s",
								 fe->scale.n ? fe->what : k->what,
								 why);
				e->shape = mrdem_scene_scaled_shape(s, e->shape, scale);
			}
			e->material = d->mat_index ? d->mat_index[ref] : 0;
			e->fraction = fe->fraction / sum;
			if (sc->n > 1)
				e->fraction *= sc->fraction[v] / fsum;
			if (entry_density_eps(y, it, s, d, (uint32_t)si, scale, e))
				return -1;
		}
	}
	return 0;
}

/* The schedule in whole steps of the setup's dt. */
static int finish_schedule(struct mrdem_yaml *y, struct scene_flow_item *it, double dt)
{
	const struct mrdem_yaml_keys *k = &it->k;
	struct mrdem_insertion *in = &it->in;
	int rate = mrdem_yaml_has(k, I_RATE);
	double t0 = rate ? it->from : it->time;
	double start = ceil(t0 / dt - 1e-9), end = rate ? floor(it->to / dt + 1e-9) : start;
	if (!(end < 9e18))
		return mrdem_yaml_err_at(y, k->map, "%s: its times are more than 9e18 steps of "
					 "%g s away", k->what, dt);
	in->dt = dt;
	in->start = (uint64_t)fmax(start, 0);
	in->per_step = rate ? it->rate * dt : 0;
	if (!rate) {
		in->total = it->count;
		return 0;
	}
	double total = floor((end - start) * in->per_step + 1e-9);
	if (!(total >= 1))
		return mrdem_yaml_err_at(y, k->val[I_RATE], "%s.rate: %g particles per second from "
					 "%g s to %g s inserts no particle in steps of %g s",
					 k->what, it->rate, it->from, it->to, dt);
	if (!(total < 9e18) || !isfinite(in->per_step))
		return mrdem_yaml_err_at(y, k->val[I_RATE], "%s.rate: %g particles per second "
					 "makes more particles than ids", k->what, it->rate);
	in->total = (uint64_t)total;
	return 0;
}

/* Regions wholly behind a plane, or wholly in what remove regions delete,
 * would lose every particle at once. */
static int check_domain(struct mrdem_yaml *y, const struct scene_flow_item *it,
			const struct mrdem_scene *s)
{
	double lo[3], hi[3];
	mrdem_region_bounds(&it->in.region, lo, hi);
	for (uint32_t p = 0; p < s->setup.nplanes; p++) {
		const struct mrdem_plane *pl = &s->setup.planes[p];
		int behind = 1;
		for (int c = 0; c < 8 && behind; c++) {
			double x[3] = {c & 1 ? hi[0] : lo[0], c & 2 ? hi[1] : lo[1],
				       c & 4 ? hi[2] : lo[2]}, dd[3];
			vec3_sub(dd, x, pl->point);
			behind = vec3_dot(dd, pl->normal) < 0;
		}
		if (behind)
			return mrdem_yaml_err_at(y, it->k.val[I_REGION], "%s.region: lies behind "
						 "planes[%" PRIu32 "], outside the scene's domain",
						 it->k.what, p);
	}
	for (uint32_t r = 0; r < s->flow.nremove; r++) {
		const struct mrdem_region *rm = &s->flow.remove[r];
		if (rm->kind == MRDEM_REGION_CYLINDER)
			continue;
		int meets = 1, inside = 1;
		for (int c = 0; c < 3; c++) {
			meets = meets && hi[c] >= rm->a[c] && lo[c] <= rm->b[c];
			inside = inside && lo[c] >= rm->a[c] && hi[c] <= rm->b[c];
		}
		if (rm->kind == MRDEM_REGION_OUTSIDE ? !meets : inside)
			return mrdem_yaml_err_at(y, it->k.val[I_REGION], "%s.region: lies wholly in "
						 "remove[%" PRIu32 "] (%s the box [%g, %g, %g] - "
						 "[%g, %g, %g]): its particles would be removed at "
						 "once", it->k.what, r,
						 rm->kind == MRDEM_REGION_OUTSIDE ? "outside" : "inside",
						 rm->a[0], rm->a[1], rm->a[2], rm->b[0], rm->b[1],
						 rm->b[2]);
	}
	return 0;
}

int scene_flow_finish(struct mrdem_yaml *y, struct scene_flow *f, struct mrdem_scene *s,
		      const struct scene_flow_defaults *d)
{
	if (!f->n)
		return 0;
	uint64_t next_id = 0;
	for (size_t i = 0; i < s->frame.p.n; i++)
		if (s->frame.p.id[i] >= next_id)
			next_id = s->frame.p.id[i] + 1;
	for (size_t i = 0; i < f->n; i++)
		f->items[i].k.what = f->items[i].what; /* the list moved as it grew */
	s->flow.insert = mrdem_xcalloc(f->n, sizeof *s->flow.insert);
	for (size_t i = 0; i < f->n; i++) {
		struct scene_flow_item *it = &f->items[i];
		char buf[160];
		if (finish_shapes(y, it, s, d) || finish_schedule(y, it, s->setup.dt) ||
		    check_domain(y, it, s))
			return -1;
		it->in.first_id = next_id;
		if (it->in.total >= MRDEM_PLANE_ID_MIN - next_id)
			return mrdem_yaml_err_at(y, it->k.map, "%s: %" PRIu64 " particles need ids "
						 "beyond the largest particle id", it->k.what,
						 it->in.total);
		next_id += it->in.total;
		const char *why = mrdem_insertion_check(s, &it->in, buf, sizeof buf);
		if (why)
			return mrdem_yaml_err_at(y, it->k.map, "%s: %s", it->k.what, why);
		s->flow.insert[i] = it->in;
		it->in.shapes = NULL; /* the scene's now */
		s->flow.ninsert = (uint32_t)i + 1;
	}
	for (uint32_t i = 0; i < s->flow.ninsert; i++) {
		uint64_t due = mrdem_insertion_placed(&s->flow.insert[i], 0);
		if (due && mrdem_inflow_place(s, i, 0, due, 0))
			return mrdem_yaml_err_at(y, f->items[i].k.map, "%s: cannot place the %" PRIu64
						 " particles due at time 0", f->items[i].k.what, due);
	}
	return 0;
}
