/* Scaled shapes: derived once from their base, shared by every particle
 * of that size (common/scene/scaled_shape.h). */
#include "common/scene/scaled_shape.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/shape/analytic.h"
#include "common/tree/tree.h"
#include "common/util/error.h"

int mrdem_shape_scale_check(const struct mrdem_scene *s, uint32_t base, double scale, char *why,
			    size_t len)
{
	if (!isfinite(scale) || !(scale > 0)) {
		snprintf(why, len, "scale %g is not a finite factor > 0", scale);
		return -1;
	}
	const struct mrdem_shape *sh = &s->shapes[base];
	/* a scaled base stands for its own base: check the product */
	const struct mrdem_shape *root = mrdem_shape_is_scaled(sh) ? &s->shapes[sh->base] : sh;
	const struct mrdem_mass *r = &root->mesh.mass;
	double total = scale * sh->scale;
	double s3 = total * total * total, s5 = s3 * total * total;
	double v = r->volume * s3;
	int ok = isfinite(s5) && s3 > 0 && root->bound_radius * total <= MRDEM_ANALYTIC_AXIS_MAX &&
		 isfinite(v) && (root->mesh.open || v > 0);
	for (int k = 0; ok && k < 6; k++)
		ok = isfinite(r->inertia[k] * s5) && (r->inertia[k] == 0 || r->inertia[k] * s5 != 0);
	if (ok)
		return 0;
	snprintf(why, len, "scale %g of shape '%s' gives a size, volume or inertia beyond "
		 "double precision", scale, sh->name);
	return -1;
}

/* m scaled by S into out: vertices, and mass properties as S^3 and S^5. */
static void scale_mesh(const struct mrdem_mesh *m, double S, struct mrdem_mesh *out)
{
	mrdem_mesh_init(out);
	mrdem_mesh_alloc(out, m->nverts, m->ntris);
	for (size_t k = 0; k < 3 * (size_t)m->nverts; k++)
		out->verts[k] = S * m->verts[k];
	if (m->ntris)
		memcpy(out->tris, m->tris, 3 * (size_t)m->ntris * sizeof *out->tris);
	out->open = m->open;
	double S3 = S * S * S, S5 = S3 * S * S;
	out->mass.volume = m->mass.volume * S3;
	for (int k = 0; k < 3; k++)
		out->mass.com[k] = m->mass.com[k] * S;
	for (int k = 0; k < 6; k++)
		out->mass.inertia[k] = m->mass.inertia[k] * S5;
}

uint32_t mrdem_scene_add_scaled(struct mrdem_scene *s, const char *name, uint32_t base,
				double scale)
{
	const struct mrdem_shape *b = &s->shapes[base];
	uint32_t i;
	if (b->kind != MRDEM_SHAPE_MESH) {
		double axes[3] = {b->axes[0] * scale, b->axes[1] * scale, b->axes[2] * scale};
		i = mrdem_scene_add_analytic(s, name, b->kind, axes);
	} else {
		struct mrdem_mesh m;
		scale_mesh(&b->mesh, scale, &m);
		int convex = b->convex != NULL;
		i = mrdem_scene_add_shape(s, name, &m);
		/* the scaled hull is convex as its base is: rebuilding the
		 * features finds the same ones scaled */
		if (convex && mrdem_scene_make_convex(s, i, name))
			mrdem_die("shape '%s': scaled convex hull lost its features", name);
	}
	s->shapes[i].base = base;
	s->shapes[i].scale = scale;
	if (s->shapes[base].tree)
		mrdem_scene_scale_trees(s, base);
	return i;
}

void mrdem_scale_text(char buf[MRDEM_SCALE_TEXT], double scale)
{
	/* the fewest digits that read back: "1.6", not "1.6000000000000001" */
	for (int digits = 1; digits <= 17; digits++) {
		snprintf(buf, MRDEM_SCALE_TEXT, "%.*g", digits, scale);
		if (strtod(buf, NULL) == scale)
			return;
	}
}

uint32_t mrdem_scene_scaled_shape(struct mrdem_scene *s, uint32_t base, double scale)
{
	if (mrdem_shape_is_scaled(&s->shapes[base])) {
		scale *= s->shapes[base].scale;
		base = s->shapes[base].base;
	}
	if (scale == 1)
		return base;
	for (uint32_t i = 0; i < s->nshapes; i++)
		if (s->shapes[i].base == base && s->shapes[i].scale == scale)
			return i;
	char name[MRDEM_SCALE_TEXT + 1] = "*";
	mrdem_scale_text(name + 1, scale);
	size_t len = strlen(name);
	char *full = mrdem_xmalloc(strlen(s->shapes[base].name) + len + 1);
	strcpy(full, s->shapes[base].name);
	strcat(full, name);
	uint32_t i = mrdem_scene_add_scaled(s, full, base, scale);
	free(full);
	return i;
}

int mrdem_shape_scale_tree(struct mrdem_scene *s, uint32_t i)
{
	struct mrdem_shape *sh = &s->shapes[i];
	if (!mrdem_shape_is_scaled(sh) || sh->tree || !s->shapes[sh->base].tree)
		return 0;
	char what[300];
	snprintf(what, sizeof what, "shape %u '%s' (scaled from shape %u)", i, sh->name, sh->base);
	sh->tree = mrdem_tree_scaled(s->shapes[sh->base].tree, sh->scale, &sh->mesh, what);
	return sh->tree ? 1 : -1;
}

int mrdem_scene_scale_trees(struct mrdem_scene *s, uint32_t base)
{
	for (uint32_t i = 0; i < s->nshapes; i++)
		if (s->shapes[i].base == base && mrdem_shape_scale_tree(s, i) < 0)
			return -1;
	return 0;
}
