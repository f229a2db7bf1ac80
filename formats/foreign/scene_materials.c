#include "formats/foreign/scene_materials.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"

#define BIT(i) MRDEM_YAML_BIT(i)
#define NP MRDEM_MAT_NPARAMS

/* Keys of a material: its parameters, then density; of a pair: the
 * parameters, then the two materials. */
static const char *const mat_keys[] = {
	"stiffness", "damping", "friction", "restitution", "young", "poisson", "tangential",
	"rolling_friction", "twisting_friction", "density"};
static const char *const pair_keys[] = {
	"stiffness", "damping", "friction", "restitution", "young", "poisson", "tangential",
	"rolling_friction", "twisting_friction", "materials"};
enum { K_EXTRA = NP };
/* The material of what names none; a scene cannot define it. */
#define DEFAULT "default"

void mrdem_yaml_materials_init(struct mrdem_yaml_materials *ym)
{
	memset(ym, 0, sizeof *ym);
}

void mrdem_yaml_materials_release(struct mrdem_yaml_materials *ym)
{
	mrdem_materials_free(ym->m);
	free(ym->given);
	free(ym->key);
	free(ym->at);
	for (uint32_t k = 0; k < 2 * ym->npairs; k++)
		free(ym->pair_name[k]);
	free(ym->pair_name);
	free(ym->pair_key);
	free(ym->pair_at);
	for (uint32_t k = 0; k < ym->nref; k++) {
		free(ym->ref[k]);
		free(ym->ref_what[k]);
	}
	free(ym->ref);
	free(ym->ref_what);
	free(ym->ref_at);
	free(ym->index);
	mrdem_yaml_materials_init(ym);
}

/* A parameter's value at the current event into *x, checked. */
static int param_value(struct mrdem_yaml *y, const char *what, int k, double *x)
{
	if (mrdem_yaml_number(y, what, x))
		return -1;
	const char *bad = mrdem_material_param_invalid(k, *x);
	if (bad)
		return mrdem_yaml_err(y, "%s: %s, got %s", what, bad, mrdem_yaml_text(y));
	return 0;
}

static int parse_material(struct mrdem_yaml *y, struct mrdem_yaml_materials *ym, uint32_t i,
			  const char *what)
{
	struct mrdem_yaml_keys k;
	struct mrdem_material *m = &ym->m->m[i];
	int id, r;
	mrdem_yaml_keys_init(&k, what, mat_keys, NP + 1, MRDEM_YAML_ALL(NP + 1));
	if (mrdem_yaml_map_begin(y, &k))
		return -1;
	while ((r = mrdem_yaml_map_next(y, &k, &id)) > 0) {
		if (id == K_EXTRA) {
			if (mrdem_yaml_number(y, k.cur, &m->density) ||
			    mrdem_yaml_positive(y, k.cur, m->density))
				return -1;
			continue;
		}
		if (param_value(y, k.cur, id, &m->v[id]))
			return -1;
		ym->key[i][id] = k.key[id];
	}
	if (r < 0 || mrdem_yaml_require(y, &k, K_EXTRA))
		return -1;
	ym->given[i] = k.seen & (BIT(NP) - 1);
	return 0;
}

int mrdem_yaml_materials_parse(struct mrdem_yaml *y, struct mrdem_yaml_materials *ym)
{
	char what[300];
	if (mrdem_yaml_type(y) != YAML_MAPPING_START_EVENT)
		return mrdem_yaml_err_type(y, "materials", "a mapping of material names to materials");
	ym->m = mrdem_materials_new();
	for (;;) {
		if (mrdem_yaml_next(y))
			return -1;
		if (mrdem_yaml_type(y) == YAML_MAPPING_END_EVENT)
			break;
		char *name;
		yaml_mark_t at = mrdem_yaml_mark(y);
		if (mrdem_yaml_string(y, "materials", &name))
			return -1;
		long prev = mrdem_materials_find(ym->m, name);
		if (!strcmp(name, DEFAULT)) {
			free(name);
			return mrdem_yaml_err(y, "materials: the name '%s' is reserved for the "
					      "material of what names none (the contact "
					      "section's parameters, density 1)", DEFAULT);
		}
		if (prev >= 0) {
			mrdem_yaml_err(y, "materials: duplicate material '%s' (first at line %zu)",
				       name, ym->at[prev].line + 1);
			free(name);
			return -1;
		}
		struct mrdem_setup none;
		mrdem_setup_default(&none);
		uint32_t i = mrdem_materials_add(ym->m, name, &none);
		free(name);
		ym->given = mrdem_xrealloc_for(ym->given, i + 1, sizeof *ym->given, "materials");
		ym->key = mrdem_xrealloc_for(ym->key, i + 1, sizeof *ym->key, "materials");
		ym->at = mrdem_xrealloc_for(ym->at, i + 1, sizeof *ym->at, "materials");
		ym->at[i] = at;
		snprintf(what, sizeof what, "materials.%s", ym->m->m[i].name);
		if (mrdem_yaml_next(y) || parse_material(y, ym, i, what))
			return -1;
	}
	if (!ym->m->n)
		return mrdem_yaml_err(y, "materials: the mapping is empty");
	return 0;
}

/* The pair's two names: a list of two material names. */
static int pair_names(struct mrdem_yaml *y, const char *what, char **names)
{
	if (mrdem_yaml_type(y) != YAML_SEQUENCE_START_EVENT)
		return mrdem_yaml_err_type(y, what, "a list of two material names");
	int n = 0;
	for (;;) {
		if (mrdem_yaml_next(y))
			return -1;
		if (mrdem_yaml_type(y) == YAML_SEQUENCE_END_EVENT)
			break;
		if (n == 2)
			return mrdem_yaml_err(y, "%s: a pair names two materials, not more", what);
		if (mrdem_yaml_string(y, what, &names[n]))
			return -1;
		n++;
	}
	if (n != 2)
		return mrdem_yaml_err(y, "%s: a pair names two materials, got %d", what, n);
	return 0;
}

static int parse_pair(struct mrdem_yaml *y, struct mrdem_yaml_materials *ym, uint32_t i,
		      const char *what)
{
	struct mrdem_yaml_keys k;
	struct mrdem_material_pair *p = &ym->m->pairs[i];
	int id, r;
	mrdem_yaml_keys_init(&k, what, pair_keys, NP + 1,
			     MRDEM_MAT_PAIR_PARAMS | BIT(K_EXTRA));
	if (mrdem_yaml_map_begin(y, &k))
		return -1;
	ym->pair_at[i] = k.map;
	while ((r = mrdem_yaml_map_next(y, &k, &id)) > 0) {
		ym->pair_key[i][id] = k.key[id];
		if (id == K_EXTRA ? pair_names(y, k.cur, &ym->pair_name[2 * i])
				  : param_value(y, k.cur, id, &p->v[id]))
			return -1;
	}
	if (r < 0 || mrdem_yaml_require(y, &k, K_EXTRA))
		return -1;
	p->given = k.seen & (BIT(NP) - 1);
	if (!p->given)
		return mrdem_yaml_err_at(y, k.map, "%s: the pair overrides no parameter", what);
	return 0;
}

int mrdem_yaml_material_pairs_parse(struct mrdem_yaml *y, struct mrdem_yaml_materials *ym)
{
	char what[64];
	if (mrdem_yaml_type(y) != YAML_SEQUENCE_START_EVENT)
		return mrdem_yaml_err_type(y, "material_pairs", "a list of material pairs");
	if (!ym->m)
		ym->m = mrdem_materials_new();
	for (;;) {
		if (mrdem_yaml_next(y))
			return -1;
		if (mrdem_yaml_type(y) == YAML_SEQUENCE_END_EVENT)
			return 0;
		uint32_t i = ym->npairs++;
		struct mrdem_materials *m = ym->m;
		m->pairs = mrdem_xrealloc_for(m->pairs, i + 1, sizeof *m->pairs, "material pairs");
		memset(&m->pairs[i], 0, sizeof m->pairs[i]);
		m->npairs = i + 1;
		ym->pair_name = mrdem_xrealloc_for(ym->pair_name, 2 * (size_t)i + 2,
						   sizeof *ym->pair_name, "material pairs");
		ym->pair_name[2 * i] = ym->pair_name[2 * i + 1] = NULL;
		ym->pair_key = mrdem_xrealloc_for(ym->pair_key, i + 1, sizeof *ym->pair_key,
						  "material pairs");
		ym->pair_at = mrdem_xrealloc_for(ym->pair_at, i + 1, sizeof *ym->pair_at,
						 "material pairs");
		snprintf(what, sizeof what, "material_pairs[%" PRIu32 "]", i);
		if (parse_pair(y, ym, i, what))
			return -1;
	}
}

int mrdem_yaml_material_ref(struct mrdem_yaml *y, struct mrdem_yaml_materials *ym,
			    const char *what, uint32_t *ref)
{
	char *name;
	if (mrdem_yaml_string(y, what, &name))
		return -1;
	uint32_t k = 0;
	while (k < ym->nref && strcmp(ym->ref[k], name))
		k++;
	if (k == ym->nref) {
		ym->ref = mrdem_xrealloc_for(ym->ref, k + 1, sizeof *ym->ref, "materials");
		ym->ref_at = mrdem_xrealloc_for(ym->ref_at, k + 1, sizeof *ym->ref_at, "materials");
		ym->ref_what = mrdem_xrealloc_for(ym->ref_what, k + 1, sizeof *ym->ref_what,
						  "materials");
		ym->ref[k] = name;
		ym->ref_what[k] = mrdem_xstrdup(what);
		ym->ref_at[k] = mrdem_yaml_mark(y);
		ym->nref++;
	} else {
		free(name);
	}
	*ref = k + 1;
	return 0;
}

double mrdem_yaml_material_density(const struct mrdem_yaml_materials *ym, uint32_t ref)
{
	long i = ref && ym->m ? mrdem_materials_find(ym->m, ym->ref[ref - 1]) : -1;
	return i >= 0 ? ym->m->m[i].density : NAN;
}

/* "unknown material 'X' (defined: A, B)" at m. */
static int unknown(const struct mrdem_yaml *y, yaml_mark_t at, const char *what,
		   const char *name, const struct mrdem_materials *m)
{
	char list[512] = "";
	size_t len = 0;
	for (uint32_t j = 0; m && j < m->n; j++)
		len += snprintf(list + len, len < sizeof list ? sizeof list - len : 0, "%s%s",
				j ? ", " : "", m->m[j].name);
	if (!m || !m->n)
		return mrdem_yaml_err_at(y, at, "%s: unknown material '%s' (the scene defines no "
					 "materials)", what, name);
	return mrdem_yaml_err_at(y, at, "%s: unknown material '%s' (defined: %s)", what, name,
				 list);
}

/* Parameters given that the model does not read are errors at their key. */
static int check_models(const struct mrdem_yaml *y, uint32_t given, const yaml_mark_t *key,
			const char *what, int model)
{
	for (int k = 0; k < NP; k++) {
		unsigned models = mrdem_material_param_models(k);
		if (!(given & BIT(k)) || (models & 1u << model))
			continue;
		char list[128] = "";
		size_t len = 0;
		for (int j = 0; j < MRDEM_NFORCE_MODELS; j++)
			if (models & 1u << j)
				len += snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "",
						mrdem_force_model_name(j));
		return mrdem_yaml_err_at(y, key[k], "%s.%s: applies to model: %s, not %s", what,
					 mrdem_material_param_names[k], list,
					 mrdem_force_model_name(model));
	}
	return 0;
}

/* The pairs' names to indices (a <= b); a pair given twice is an error at
 * the second. */
static int resolve_pairs(const struct mrdem_yaml *y, struct mrdem_yaml_materials *ym, int model)
{
	struct mrdem_materials *m = ym->m;
	char what[64];
	for (uint32_t i = 0; i < m->npairs; i++) {
		struct mrdem_material_pair *p = &m->pairs[i];
		long ab[2];
		snprintf(what, sizeof what, "material_pairs[%" PRIu32 "]", i);
		for (int s = 0; s < 2; s++) {
			ab[s] = mrdem_materials_find(m, ym->pair_name[2 * i + s]);
			if (ab[s] < 0)
				return unknown(y, ym->pair_key[i][K_EXTRA], what,
					       ym->pair_name[2 * i + s], m);
		}
		p->a = (uint32_t)(ab[0] < ab[1] ? ab[0] : ab[1]);
		p->b = (uint32_t)(ab[0] < ab[1] ? ab[1] : ab[0]);
		for (uint32_t j = 0; j < i; j++)
			if (m->pairs[j].a == p->a && m->pairs[j].b == p->b)
				return mrdem_yaml_err_at(y, ym->pair_at[i], "%s: the pair [%s, %s] "
							 "is given twice (first at line %zu)", what,
							 ym->pair_name[2 * i], ym->pair_name[2 * i + 1],
							 ym->pair_at[j].line + 1);
		if (check_models(y, p->given, ym->pair_key[i], what, model))
			return -1;
	}
	return 0;
}

int mrdem_yaml_materials_finish(struct mrdem_yaml *y, struct mrdem_yaml_materials *ym,
				struct mrdem_setup *st)
{
	struct mrdem_materials *m = ym->m;
	if (!m || !m->n) {
		if (ym->nref)
			return unknown(y, ym->ref_at[0], ym->ref_what[0], ym->ref[0], NULL);
		if (ym->npairs)
			return mrdem_yaml_err_at(y, ym->pair_at[0], "material_pairs: the scene "
						 "defines no materials");
		return 0;
	}
	char what[300], buf[400];
	double sv[NP];
	mrdem_material_params_of_setup(sv, st);
	for (uint32_t i = 0; i < m->n; i++) {
		snprintf(what, sizeof what, "materials.%s", m->m[i].name);
		if (check_models(y, ym->given[i], ym->key[i], what, st->force_model))
			return -1;
		for (int k = 0; k < NP; k++)
			if (!(ym->given[i] & BIT(k)))
				m->m[i].v[k] = sv[k];
	}
	if (resolve_pairs(y, ym, st->force_model))
		return -1;
	/* what names no material is of "default", the contact section's
	 * parameters and density 1 */
	int used = ym->unnamed;
	for (uint32_t k = 0; k < ym->nref; k++)
		used |= !strcmp(ym->ref[k], DEFAULT);
	uint32_t def = used ? mrdem_materials_add(m, DEFAULT, st) : 0;
	ym->index = mrdem_xmalloc_array((size_t)ym->nref + 1, sizeof *ym->index);
	ym->index[0] = def;
	for (uint32_t k = 0; k < ym->nref; k++) {
		long i = mrdem_materials_find(m, ym->ref[k]);
		if (i < 0)
			return unknown(y, ym->ref_at[k], ym->ref_what[k], ym->ref[k], m);
		ym->index[k + 1] = (uint32_t)i;
	}
	const char *bad = mrdem_materials_build(m, st, buf, sizeof buf);
	if (bad)
		return mrdem_yaml_err_at(y, ym->at[0], "materials: %s", bad);
	mrdem_materials_free(st->materials);
	st->materials = m;
	ym->m = NULL;
	return 0;
}
