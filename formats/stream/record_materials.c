#include "formats/stream/record_materials.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"
#include "formats/stream/records.h"

/* The parameters in mask by name: "name" f64 each. */
static void put_params(struct mrdem_buf *b, const double *v, uint32_t mask)
{
	uint32_t n = 0;
	for (int k = 0; k < MRDEM_MAT_NPARAMS; k++)
		n += (mask >> k) & 1u;
	mrdem_buf_u32(b, n);
	for (int k = 0; k < MRDEM_MAT_NPARAMS; k++)
		if (mask & 1u << k) {
			mrdem_buf_str(b, mrdem_material_param_names[k]);
			mrdem_buf_f64(b, v[k]);
		}
}

void mrdem_encode_materials(struct mrdem_buf *b, const struct mrdem_setup *s)
{
	const struct mrdem_materials *m = s->materials;
	uint32_t read = mrdem_material_params_read(s->force_model);
	mrdem_buf_u32(b, m->n);
	for (uint32_t i = 0; i < m->n; i++) {
		mrdem_buf_str(b, m->m[i].name);
		mrdem_buf_f64(b, m->m[i].density);
		put_params(b, m->m[i].v, read);
	}
	mrdem_buf_u32(b, m->npairs);
	for (uint32_t k = 0; k < m->npairs; k++) {
		mrdem_buf_u32(b, m->pairs[k].a);
		mrdem_buf_u32(b, m->pairs[k].b);
		put_params(b, m->pairs[k].v, m->pairs[k].given);
	}
	mrdem_buf_u32(b, s->nplanes);
	for (uint32_t k = 0; k < s->nplanes; k++)
		mrdem_buf_u32(b, s->planes[k].material);
}

/* Named parameters into v, their bits into *given; a name the model does
 * not read, or one given twice, is an error. */
static int get_params(struct mrdem_cursor *c, const struct mrdem_record *rec, const char *src,
		      int model, const char *what, double *v, uint32_t *given)
{
	uint32_t n = mrdem_get_u32(c);
	*given = 0;
	for (uint32_t i = 0; i < n && !c->bad; i++) {
		char *name = mrdem_get_str(c);
		double x = mrdem_get_f64(c);
		if (!name)
			break;
		int k = 0;
		while (k < MRDEM_MAT_NPARAMS && strcmp(name, mrdem_material_param_names[k]))
			k++;
		int bad = k == MRDEM_MAT_NPARAMS || (*given & 1u << k) ||
			  !(mrdem_material_param_models(k) & 1u << model);
		if (bad) {
			mrdem_record_error(rec, src, "%s: parameter '%s' is unknown, given twice "
					   "or not read by model %s", what, name,
					   mrdem_force_model_name(model));
			free(name);
			return -1;
		}
		free(name);
		v[k] = x;
		*given |= 1u << k;
	}
	return c->bad ? mrdem_record_done(rec, src, c) : 0;
}

static int get_all(struct mrdem_cursor *c, const struct mrdem_record *rec, const char *src,
		   struct mrdem_setup *s, struct mrdem_materials *m)
{
	char what[64];
	uint32_t n = mrdem_get_u32(c), given;
	if (!c->bad && (n == 0 || !mrdem_cursor_has(c, n, 16)))
		return mrdem_record_error(rec, src, "bad material count %u", n);
	for (uint32_t i = 0; i < n && !c->bad; i++) {
		char *name = mrdem_get_str(c);
		if (!name)
			break;
		mrdem_materials_add(m, name, s);
		free(name);
		m->m[i].density = mrdem_get_f64(c);
		snprintf(what, sizeof what, "material %u", i);
		if (get_params(c, rec, src, s->force_model, what, m->m[i].v, &given))
			return -1;
	}
	uint32_t np = mrdem_get_u32(c);
	if (!c->bad && !mrdem_cursor_has(c, np, 12))
		return mrdem_record_error(rec, src, "bad material pair count %u", np);
	m->pairs = mrdem_xcalloc(np ? np : 1, sizeof *m->pairs);
	for (uint32_t k = 0; k < np && !c->bad; k++, m->npairs++) {
		struct mrdem_material_pair *p = &m->pairs[k];
		p->a = mrdem_get_u32(c);
		p->b = mrdem_get_u32(c);
		snprintf(what, sizeof what, "material pair %u", k);
		if (get_params(c, rec, src, s->force_model, what, p->v, &p->given))
			return -1;
	}
	uint32_t nplanes = mrdem_get_u32(c);
	if (!c->bad && nplanes != s->nplanes)
		return mrdem_record_error(rec, src, "materials of %u planes, but the setup has %u",
					  nplanes, s->nplanes);
	for (uint32_t k = 0; k < nplanes && !c->bad; k++) {
		s->planes[k].material = mrdem_get_u32(c);
		if (!c->bad && s->planes[k].material >= m->n)
			return mrdem_record_error(rec, src, "plane %u: material %u of %u", k,
						  s->planes[k].material, m->n);
	}
	return mrdem_record_done(rec, src, c);
}

int mrdem_decode_materials(const struct mrdem_record *rec, const char *src,
			   struct mrdem_setup *s)
{
	struct mrdem_cursor c;
	mrdem_cursor_init(&c, rec->data, rec->len);
	struct mrdem_materials *m = mrdem_materials_new();
	char buf[400];
	const char *bad = NULL;
	if (get_all(&c, rec, src, s, m) ||
	    ((bad = mrdem_materials_build(m, s, buf, sizeof buf)) &&
	     mrdem_record_error(rec, src, "%s", bad))) {
		mrdem_materials_free(m);
		for (uint32_t k = 0; k < s->nplanes; k++)
			s->planes[k].material = 0;
		return -1;
	}
	mrdem_materials_free(s->materials);
	s->materials = m;
	return 0;
}

int mrdem_materials_check_frame(const struct mrdem_setup *s, const struct mrdem_particles *p,
				const struct mrdem_record *rec, const char *src)
{
	if (!s->materials != !p->material)
		return mrdem_record_error(rec, src, s->materials ?
					  "the stream has materials but the frame no "
					  "'material' column" :
					  "the frame has a 'material' column but the stream "
					  "no materials record before it");
	for (size_t i = 0; p->material && i < p->n; i++)
		if (p->material[i] >= s->materials->n)
			return mrdem_record_error(rec, src, "particle %zu (id %llu): material %u, "
						  "but the stream has %u", i,
						  (unsigned long long)p->id[i], p->material[i],
						  s->materials->n);
	return 0;
}
