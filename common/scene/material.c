#include "common/scene/material.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/scene/scene.h"
#include "common/util/error.h"

const char *const mrdem_material_param_names[MRDEM_MAT_NPARAMS] = {
	[MRDEM_MAT_STIFFNESS] = "stiffness",
	[MRDEM_MAT_DAMPING] = "damping",
	[MRDEM_MAT_FRICTION] = "friction",
	[MRDEM_MAT_RESTITUTION] = "restitution",
	[MRDEM_MAT_YOUNG] = "young",
	[MRDEM_MAT_POISSON] = "poisson",
	[MRDEM_MAT_TANGENTIAL] = "tangential",
	[MRDEM_MAT_ROLLING] = "rolling_friction",
	[MRDEM_MAT_TWISTING] = "twisting_friction",
};

#define MODEL(m) (1u << (m))
#define PATCH_SPRINGS (MODEL(MRDEM_FORCE_HOOKE) | MODEL(MRDEM_FORCE_HERTZ))

unsigned mrdem_material_param_models(int k)
{
	switch (k) {
	case MRDEM_MAT_STIFFNESS:
		return MODEL(MRDEM_FORCE_SPRING) | MODEL(MRDEM_FORCE_SPRING_DASHPOT) |
		       MODEL(MRDEM_FORCE_HOOKE);
	case MRDEM_MAT_DAMPING:
		return MODEL(MRDEM_FORCE_SPRING_DASHPOT);
	case MRDEM_MAT_FRICTION:
		return MODEL(MRDEM_NFORCE_MODELS) - 1;
	case MRDEM_MAT_YOUNG:
	case MRDEM_MAT_POISSON:
		return MODEL(MRDEM_FORCE_HERTZ);
	case MRDEM_MAT_TANGENTIAL:
		return MODEL(MRDEM_FORCE_HOOKE);
	default: /* restitution, rolling and twisting friction */
		return PATCH_SPRINGS;
	}
}

uint32_t mrdem_material_params_read(int model)
{
	uint32_t read = 0;
	for (int k = 0; k < MRDEM_MAT_NPARAMS; k++)
		read |= (mrdem_material_param_models(k) >> model & 1u) << k;
	return read;
}

const char *mrdem_material_param_invalid(int k, double x)
{
	if (!isfinite(x))
		return "must be finite";
	switch (k) {
	case MRDEM_MAT_STIFFNESS:
	case MRDEM_MAT_YOUNG:
		return x > 0 ? NULL : "must be positive";
	case MRDEM_MAT_RESTITUTION:
		return x > 0 && x <= 1 ? NULL : "must be in (0, 1]";
	case MRDEM_MAT_POISSON:
		return x > -1 && x < 0.5 ? NULL : "must be in (-1, 0.5)";
	default:
		return x >= 0 ? NULL : "must be >= 0";
	}
}

void mrdem_material_params_of_setup(double v[MRDEM_MAT_NPARAMS], const struct mrdem_setup *s)
{
	v[MRDEM_MAT_STIFFNESS] = s->stiffness;
	v[MRDEM_MAT_DAMPING] = s->damping;
	v[MRDEM_MAT_FRICTION] = s->friction;
	v[MRDEM_MAT_RESTITUTION] = s->restitution;
	v[MRDEM_MAT_YOUNG] = s->young;
	v[MRDEM_MAT_POISSON] = s->poisson;
	v[MRDEM_MAT_TANGENTIAL] = s->tangential;
	v[MRDEM_MAT_ROLLING] = s->rolling_friction;
	v[MRDEM_MAT_TWISTING] = s->twisting_friction;
}

struct mrdem_materials *mrdem_materials_new(void)
{
	return mrdem_xcalloc(1, sizeof(struct mrdem_materials));
}

void mrdem_materials_free(struct mrdem_materials *m)
{
	if (!m)
		return;
	for (uint32_t i = 0; i < m->n; i++)
		free(m->m[i].name);
	free(m->m);
	free(m->pairs);
	free(m->table);
	free(m);
}

uint32_t mrdem_materials_add(struct mrdem_materials *m, const char *name,
			     const struct mrdem_setup *s)
{
	m->m = mrdem_xrealloc_for(m->m, (size_t)m->n + 1, sizeof *m->m, "materials");
	struct mrdem_material *x = &m->m[m->n];
	x->name = mrdem_xstrdup(name);
	x->density = 1.0;
	mrdem_material_params_of_setup(x->v, s);
	return m->n++;
}

long mrdem_materials_find(const struct mrdem_materials *m, const char *name)
{
	for (uint32_t i = 0; m && i < m->n; i++)
		if (!strcmp(m->m[i].name, name))
			return (long)i;
	return -1;
}

struct mrdem_material_pair *mrdem_materials_pair(struct mrdem_materials *m, uint32_t a,
						 uint32_t b)
{
	uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
	for (uint32_t k = 0; k < m->npairs; k++)
		if (m->pairs[k].a == lo && m->pairs[k].b == hi)
			return &m->pairs[k];
	return NULL;
}

/* A material's own law: the setup's arithmetic, so one material gives the
 * bits of no materials. */
static void own_law(struct mrdem_pair_law *l, const double *v)
{
	double E = v[MRDEM_MAT_YOUNG], nu = v[MRDEM_MAT_POISSON];
	l->stiffness = v[MRDEM_MAT_STIFFNESS];
	l->damping = v[MRDEM_MAT_DAMPING];
	l->friction = v[MRDEM_MAT_FRICTION];
	l->restitution = v[MRDEM_MAT_RESTITUTION];
	l->tangential = v[MRDEM_MAT_TANGENTIAL];
	l->rolling_friction = v[MRDEM_MAT_ROLLING];
	l->twisting_friction = v[MRDEM_MAT_TWISTING];
	l->estar = E / (2 * (1 - nu * nu));
	l->gstar = E / (2 * (1 + nu)) / (2 * (2 - nu));
}

/* Two different materials (docs/dynamics.md, "Materials"): springs in
 * series, Hertz-Mindlin's effective moduli (as LIGGGHTS forms them), the
 * smaller friction coefficients and restitution (YADE's and Chrono's
 * default), the mean of damping rates and of kt / kn. */
static void mixed_law(struct mrdem_pair_law *l, const double *a, const double *b)
{
	double ka = a[MRDEM_MAT_STIFFNESS], kb = b[MRDEM_MAT_STIFFNESS];
	double Ea = a[MRDEM_MAT_YOUNG], Eb = b[MRDEM_MAT_YOUNG];
	double na = a[MRDEM_MAT_POISSON], nb = b[MRDEM_MAT_POISSON];
	double Ga = Ea / (2 * (1 + na)), Gb = Eb / (2 * (1 + nb));
	l->stiffness = 2 * ka * kb / (ka + kb);
	l->damping = 0.5 * (a[MRDEM_MAT_DAMPING] + b[MRDEM_MAT_DAMPING]);
	l->friction = fmin(a[MRDEM_MAT_FRICTION], b[MRDEM_MAT_FRICTION]);
	l->restitution = fmin(a[MRDEM_MAT_RESTITUTION], b[MRDEM_MAT_RESTITUTION]);
	l->tangential = 0.5 * (a[MRDEM_MAT_TANGENTIAL] + b[MRDEM_MAT_TANGENTIAL]);
	l->rolling_friction = fmin(a[MRDEM_MAT_ROLLING], b[MRDEM_MAT_ROLLING]);
	l->twisting_friction = fmin(a[MRDEM_MAT_TWISTING], b[MRDEM_MAT_TWISTING]);
	l->estar = 1 / ((1 - na * na) / Ea + (1 - nb * nb) / Eb);
	l->gstar = 1 / ((2 - na) / Ga + (2 - nb) / Gb);
}

static void override_law(struct mrdem_pair_law *l, const struct mrdem_material_pair *p)
{
	double *dst[MRDEM_MAT_NPARAMS] = {
		[MRDEM_MAT_STIFFNESS] = &l->stiffness, [MRDEM_MAT_DAMPING] = &l->damping,
		[MRDEM_MAT_FRICTION] = &l->friction, [MRDEM_MAT_RESTITUTION] = &l->restitution,
		[MRDEM_MAT_ROLLING] = &l->rolling_friction,
		[MRDEM_MAT_TWISTING] = &l->twisting_friction,
	};
	for (int k = 0; k < MRDEM_MAT_NPARAMS; k++)
		if ((p->given & 1u << k) && dst[k])
			*dst[k] = p->v[k];
}

/* A value of a parameter the model does not read, or an invalid one. */
static const char *check_params(const double *v, uint32_t given, int model, const char *what,
				char *buf, size_t len)
{
	for (int k = 0; k < MRDEM_MAT_NPARAMS; k++) {
		if (!(given & 1u << k))
			continue;
		const char *bad = mrdem_material_param_invalid(k, v[k]);
		if (!bad && !(mrdem_material_param_models(k) & MODEL(model)))
			bad = "is not read by this force model";
		if (bad) {
			snprintf(buf, len, "%s: %s %g %s (model %s)", what,
				 mrdem_material_param_names[k], v[k], bad,
				 mrdem_force_model_name(model));
			return buf;
		}
	}
	return NULL;
}

const char *mrdem_materials_build(struct mrdem_materials *m, const struct mrdem_setup *s,
				  char *buf, size_t len)
{
	char what[160];
	/* the model's parameters are checked; the others keep the setup's
	 * values, valid or not */
	uint32_t n = m->n, read = mrdem_material_params_read(s->force_model);
	if (!n)
		return "no materials";
	for (uint32_t i = 0; i < n; i++) {
		const struct mrdem_material *x = &m->m[i];
		snprintf(what, sizeof what, "material '%s'", x->name);
		if (check_params(x->v, read, s->force_model, what, buf, len))
			return buf;
		if (!(x->density > 0) || !isfinite(x->density)) {
			snprintf(buf, len, "%s: density %g is not positive", what, x->density);
			return buf;
		}
		for (uint32_t j = 0; j < i; j++)
			if (!strcmp(m->m[j].name, x->name)) {
				snprintf(buf, len, "%s is named twice", what);
				return buf;
			}
	}
	for (uint32_t k = 0; k < m->npairs; k++) {
		const struct mrdem_material_pair *p = &m->pairs[k];
		if (p->a > p->b || p->b >= n || (p->given & ~(uint32_t)MRDEM_MAT_PAIR_PARAMS)) {
			snprintf(buf, len, "material pair %u: materials %u and %u (of %u), or "
				 "parameters 0x%x, out of range", k, p->a, p->b, n, p->given);
			return buf;
		}
		snprintf(what, sizeof what, "material pair ['%s', '%s']", m->m[p->a].name,
			 m->m[p->b].name);
		if (mrdem_materials_pair(m, p->a, p->b) != p) {
			snprintf(buf, len, "%s is given twice", what);
			return buf;
		}
		if (check_params(p->v, p->given, s->force_model, what, buf, len))
			return buf;
	}
	free(m->table);
	m->table = mrdem_xmalloc_array((size_t)n * n, sizeof *m->table);
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < n; j++) {
			struct mrdem_pair_law *l = &m->table[(size_t)i * n + j];
			if (i == j)
				own_law(l, m->m[i].v);
			else
				mixed_law(l, m->m[i].v, m->m[j].v);
			const struct mrdem_material_pair *p = mrdem_materials_pair(m, i, j);
			if (p)
				override_law(l, p);
		}
	return NULL;
}

void mrdem_setup_pair_law(const struct mrdem_setup *s, struct mrdem_pair_law *out)
{
	double v[MRDEM_MAT_NPARAMS];
	mrdem_material_params_of_setup(v, s);
	own_law(out, v);
}

const struct mrdem_pair_law *mrdem_pair_law_of(const struct mrdem_setup *s,
					       const struct mrdem_particles *p, size_t ia,
					       size_t ib, uint32_t plane,
					       struct mrdem_pair_law *scratch)
{
	const struct mrdem_materials *m = s->materials;
	if (!m || !m->table || !p->material) {
		mrdem_setup_pair_law(s, scratch);
		return scratch;
	}
	uint32_t a = p->material[ia];
	uint32_t b = ib == SIZE_MAX ? s->planes[plane].material : p->material[ib];
	return &m->table[(size_t)a * m->n + b];
}
