/* mrdem-info's description of the materials record (formats/foreign/describe.h). */
#include "formats/foreign/describe_materials.h"

#include <stdio.h>

/* The parameters the model reads, as "name value" or JSON keys. */
static void params(struct mrdem_describe *in, const double *v, uint32_t mask)
{
	for (int k = 0; k < MRDEM_MAT_NPARAMS; k++) {
		if (!(mask & 1u << k))
			continue;
		if (in->json)
			mrdem_json_kv_num(&in->j, mrdem_material_param_names[k], v[k]);
		else
			printf(", %s %g", mrdem_material_param_names[k], v[k]);
	}
}

static void text(struct mrdem_describe *in, const struct mrdem_setup *s, uint32_t read)
{
	const struct mrdem_materials *m = s->materials;
	printf("  %u material(s), %u pair override(s)\n", m->n, m->npairs);
	for (uint32_t i = 0; i < m->n; i++) {
		printf("    material %u '%s': density %g", i, m->m[i].name, m->m[i].density);
		params(in, m->m[i].v, read);
		printf("\n");
	}
	for (uint32_t k = 0; k < m->npairs; k++) {
		const struct mrdem_material_pair *p = &m->pairs[k];
		printf("    pair ['%s', '%s']", m->m[p->a].name, m->m[p->b].name);
		params(in, p->v, p->given);
		printf("\n");
	}
	for (uint32_t k = 0; k < s->nplanes; k++)
		printf("    plane %u: material '%s'\n", k, m->m[s->planes[k].material].name);
}

void mrdem_describe_materials(struct mrdem_describe *in, const struct mrdem_setup *s)
{
	const struct mrdem_materials *m = s->materials;
	uint32_t read = mrdem_material_params_read(s->force_model);
	if (!in->json) {
		text(in, s, read);
		return;
	}
	struct mrdem_json *j = &in->j;
	mrdem_json_key(j, "materials");
	mrdem_json_begin_array(j);
	for (uint32_t i = 0; i < m->n; i++) {
		mrdem_json_begin_object(j);
		mrdem_json_kv_str(j, "name", m->m[i].name);
		mrdem_json_kv_num(j, "density", m->m[i].density);
		params(in, m->m[i].v, read);
		mrdem_json_end_object(j);
	}
	mrdem_json_end_array(j);
	mrdem_json_key(j, "pairs");
	mrdem_json_begin_array(j);
	for (uint32_t k = 0; k < m->npairs; k++) {
		const struct mrdem_material_pair *p = &m->pairs[k];
		mrdem_json_begin_object(j);
		mrdem_json_kv_str(j, "a", m->m[p->a].name);
		mrdem_json_kv_str(j, "b", m->m[p->b].name);
		params(in, p->v, p->given);
		mrdem_json_end_object(j);
	}
	mrdem_json_end_array(j);
	mrdem_json_key(j, "plane_materials");
	mrdem_json_begin_array(j);
	for (uint32_t k = 0; k < s->nplanes; k++)
		mrdem_json_uint(j, s->planes[k].material);
	mrdem_json_end_array(j);
}
