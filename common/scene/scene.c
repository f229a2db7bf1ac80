#include "common/scene/scene.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/quat.h"
#include "common/shape/convex.h"
#include "common/tree/tree.h"
#include "common/util/names.h"
#include "common/util/error.h"

const char *const mrdem_scheme_names[MRDEM_NSCHEMES] = {
	[MRDEM_SCHEME_EXPLICIT_EULER] = "explicit-euler",
	[MRDEM_SCHEME_SYMPLECTIC_EULER] = "symplectic-euler",
	[MRDEM_SCHEME_VELOCITY_VERLET] = "velocity-verlet",
	[MRDEM_SCHEME_IMPLICIT_EULER] = "implicit-euler",
};
const char *const mrdem_force_model_names[MRDEM_NFORCE_MODELS] = {
	[MRDEM_FORCE_SPRING] = "paper",
	[MRDEM_FORCE_SPRING_DASHPOT] = "spring-dashpot",
	[MRDEM_FORCE_HOOKE] = "hooke",
	[MRDEM_FORCE_HERTZ] = "hertz",
};

const char *mrdem_scheme_name(int v)
{
	return mrdem_name_at(mrdem_scheme_names, MRDEM_NSCHEMES, v, NULL);
}
int mrdem_scheme_parse(const char *s)
{
	return mrdem_name_index(mrdem_scheme_names, MRDEM_NSCHEMES, s);
}
const char *mrdem_force_model_name(int v)
{
	return mrdem_name_at(mrdem_force_model_names, MRDEM_NFORCE_MODELS, v, NULL);
}

void mrdem_setup_default(struct mrdem_setup *s)
{
	memset(s, 0, sizeof *s);
	s->force_model = MRDEM_FORCE_SPRING;
	s->stiffness = 1000.0;
	s->plane_epsilon = 0.01;
	s->dt = 1e-4;
	s->steps = 1000;
	/* second order and symplectic: explicit Euler adds energy at every
	 * contact, so scenes that want it (the paper's) name it */
	s->scheme = MRDEM_SCHEME_VELOCITY_VERLET;
	s->output_every = 10;
	s->broad = -1; /* none named: mrdem_broad_default chooses for the scene */
	s->restitution = 1.0;
	s->poisson = 0.3;
	s->tangential = 2.0 / 7.0;
}

void mrdem_setup_release(struct mrdem_setup *s)
{
	mrdem_materials_free(s->materials);
	s->materials = NULL;
	free(s->planes);
	s->planes = NULL;
	s->nplanes = 0;
	free(s->motions);
	s->motions = NULL;
	s->nmotions = 0;
}

static void particles_init(struct mrdem_particles *p)
{
	memset(p, 0, sizeof *p);
}

static void particles_release(struct mrdem_particles *p)
{
	free(p->id);
	free(p->shape);
	free(p->flags);
	free(p->pos);
	free(p->quat);
	free(p->vel);
	free(p->angvel);
	free(p->density);
	free(p->eps);
	free(p->material);
	particles_init(p);
}

void mrdem_particles_reserve(struct mrdem_particles *p, size_t cap)
{
	if (cap <= p->cap)
		return;
	p->id = mrdem_xrealloc_for(p->id, cap, sizeof *p->id, "particles");
	p->shape = mrdem_xrealloc_for(p->shape, cap, sizeof *p->shape, "particles");
	p->flags = mrdem_xrealloc_for(p->flags, cap, sizeof *p->flags, "particles");
	p->pos = mrdem_xrealloc_for(p->pos, cap, 3 * sizeof *p->pos, "particles");
	p->quat = mrdem_xrealloc_for(p->quat, cap, 4 * sizeof *p->quat, "particles");
	p->vel = mrdem_xrealloc_for(p->vel, cap, 3 * sizeof *p->vel, "particles");
	p->angvel = mrdem_xrealloc_for(p->angvel, cap, 3 * sizeof *p->angvel, "particles");
	p->density = mrdem_xrealloc_for(p->density, cap, sizeof *p->density, "particles");
	p->eps = mrdem_xrealloc_for(p->eps, cap, sizeof *p->eps, "particles");
	if (p->material)
		p->material = mrdem_xrealloc_for(p->material, cap, sizeof *p->material,
						 "particles");
	p->cap = cap;
}

void mrdem_particles_use_material(struct mrdem_particles *p)
{
	if (!p->material)
		p->material = mrdem_xcalloc(p->cap ? p->cap : 1, sizeof *p->material);
}

size_t mrdem_particles_push(struct mrdem_particles *p, uint64_t id, uint32_t shape)
{
	if (p->n == p->cap)
		mrdem_particles_reserve(p, p->cap ? 2 * p->cap : 16);
	size_t i = p->n++;
	p->id[i] = id;
	p->shape[i] = shape;
	p->flags[i] = 0;
	memset(&p->pos[3 * i], 0, 3 * sizeof(double));
	quat_identity(&p->quat[4 * i]);
	memset(&p->vel[3 * i], 0, 3 * sizeof(double));
	memset(&p->angvel[3 * i], 0, 3 * sizeof(double));
	p->density[i] = 1.0;
	p->eps[i] = 0.0;
	if (p->material)
		p->material[i] = 0;
	return i;
}

void mrdem_history_init(struct mrdem_history *h)
{
	memset(h, 0, sizeof *h);
}

void mrdem_history_release(struct mrdem_history *h)
{
	free(h->s);
	mrdem_history_init(h);
}

struct mrdem_spring *mrdem_history_push(struct mrdem_history *h)
{
	if (h->n == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 16;
		h->s = mrdem_xrealloc_for(h->s, h->cap, sizeof *h->s, "contact springs");
	}
	struct mrdem_spring *sp = &h->s[h->n++];
	memset(sp, 0, sizeof *sp);
	return sp;
}

void mrdem_frame_init(struct mrdem_frame *f)
{
	f->step = 0;
	f->time = 0.0;
	particles_init(&f->p);
	f->nextra = 0;
	f->extra = NULL;
	mrdem_history_init(&f->history);
}

void mrdem_frame_release(struct mrdem_frame *f)
{
	particles_release(&f->p);
	mrdem_history_release(&f->history);
	for (size_t i = 0; i < f->nextra; i++) {
		free(f->extra[i].name);
		free(f->extra[i].data);
	}
	free(f->extra);
	f->nextra = 0;
	f->extra = NULL;
}

/* Column data are little-endian, as in the stream. */
static void put_f64le(unsigned char *b, double x)
{
	uint64_t u;
	memcpy(&u, &x, 8);
	for (int k = 0; k < 8; k++)
		b[k] = (unsigned char)(u >> (8 * k));
}

static double get_f64le(const unsigned char *b)
{
	uint64_t u = 0;
	for (int k = 0; k < 8; k++)
		u |= (uint64_t)b[k] << (8 * k);
	double x;
	memcpy(&x, &u, 8);
	return x;
}

void mrdem_half_step_columns(struct mrdem_column cols[2], size_t n, const double *vel,
			     const double *angvel)
{
	const char *names[2] = {MRDEM_COLUMN_VELOCITY_HALF, MRDEM_COLUMN_ANGVEL_HALF};
	const double *src[2] = {vel, angvel};
	for (int c = 0; c < 2; c++) {
		cols[c].name = mrdem_xstrdup(names[c]);
		cols[c].type = MRDEM_COLUMN_F64;
		cols[c].components = 3;
		cols[c].size = 3 * n * 8;
		cols[c].data = mrdem_xmalloc(cols[c].size + 1);
		for (size_t i = 0; i < 3 * n; i++)
			put_f64le(cols[c].data + 8 * i, src[c][i]);
	}
}

void mrdem_columns_release(struct mrdem_column *cols, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(cols[i].name);
		free(cols[i].data);
	}
}

/* The two columns' indices in f->extra (-1: none), checked. */
static int half_step_columns_of(const struct mrdem_frame *f, long at[2])
{
	const char *names[2] = {MRDEM_COLUMN_VELOCITY_HALF, MRDEM_COLUMN_ANGVEL_HALF};
	at[0] = at[1] = -1;
	for (size_t k = 0; k < f->nextra; k++)
		for (int c = 0; c < 2; c++)
			if (!strcmp(f->extra[k].name, names[c]))
				at[c] = (long)k;
	if (at[0] < 0 && at[1] < 0)
		return 0;
	for (int c = 0; c < 2; c++) {
		if (at[c] < 0)
			return mrdem_error("frame of step %llu: column %s without %s",
					   (unsigned long long)f->step, names[1 - c], names[c]);
		const struct mrdem_column *x = &f->extra[at[c]];
		if (x->type != MRDEM_COLUMN_F64 || x->components != 3 || x->size != 24 * f->p.n)
			return mrdem_error("frame of step %llu: column %s must be f64 x 3",
					   (unsigned long long)f->step, names[c]);
		for (size_t i = 0; i < 3 * f->p.n; i++)
			if (!isfinite(get_f64le(x->data + 8 * i)))
				return mrdem_error("frame of step %llu: particle %llu: %s is not "
						   "finite", (unsigned long long)f->step,
						   (unsigned long long)f->p.id[i / 3], names[c]);
	}
	return 0;
}

int mrdem_frame_half_step_velocities(const struct mrdem_frame *f, double *vel, double *angvel)
{
	long at[2];
	if (half_step_columns_of(f, at))
		return -1;
	if (at[0] < 0)
		return 0;
	double *dst[2] = {vel, angvel};
	if (f->p.n && vel != f->p.vel)
		memcpy(vel, f->p.vel, 3 * f->p.n * sizeof *vel);
	if (f->p.n && angvel != f->p.angvel)
		memcpy(angvel, f->p.angvel, 3 * f->p.n * sizeof *angvel);
	for (size_t i = 0; i < f->p.n; i++)
		if (f->p.flags[i] & MRDEM_PARTICLE_HALF_KICK)
			for (int c = 0; c < 2; c++)
				for (int k = 0; k < 3; k++)
					dst[c][3 * i + k] =
						get_f64le(f->extra[at[c]].data + 24 * i + 8 * k);
	return 1;
}

int mrdem_frame_resume_half_step(struct mrdem_frame *f)
{
	long at[2];
	int rc = mrdem_frame_half_step_velocities(f, f->p.vel, f->p.angvel);
	if (rc <= 0)
		return rc;
	half_step_columns_of(f, at);
	/* drop the two columns, keeping the others in their order */
	size_t m = 0;
	for (size_t k = 0; k < f->nextra; k++) {
		if ((long)k == at[0] || (long)k == at[1])
			mrdem_columns_release(&f->extra[k], 1);
		else
			f->extra[m++] = f->extra[k];
	}
	f->nextra = m;
	return 0;
}

void mrdem_scene_init(struct mrdem_scene *s)
{
	mrdem_setup_default(&s->setup);
	s->nshapes = 0;
	s->shapes = NULL;
	mrdem_frame_init(&s->frame);
	memset(&s->flow, 0, sizeof s->flow);
}

void mrdem_scene_release(struct mrdem_scene *s)
{
	for (uint32_t i = 0; i < s->nshapes; i++) {
		free(s->shapes[i].name);
		mrdem_mesh_release(&s->shapes[i].mesh);
		mrdem_tree_free(s->shapes[i].tree);
		free(s->shapes[i].tree_origin);
		if (s->shapes[i].convex) {
			mrdem_convex_release(s->shapes[i].convex);
			free(s->shapes[i].convex);
		}
	}
	free(s->shapes);
	mrdem_flow_release(&s->flow);
	mrdem_setup_release(&s->setup);
	mrdem_frame_release(&s->frame);
	mrdem_scene_init(s);
}

uint32_t mrdem_scene_add_shape(struct mrdem_scene *s, const char *name, struct mrdem_mesh *mesh)
{
	s->shapes = mrdem_xrealloc(s->shapes, (s->nshapes + 1) * sizeof *s->shapes);
	struct mrdem_shape *sh = &s->shapes[s->nshapes];
	sh->id = s->nshapes;
	sh->name = mrdem_xstrdup(name ? name : "");
	sh->kind = MRDEM_SHAPE_MESH;
	sh->axes[0] = sh->axes[1] = sh->axes[2] = 0;
	sh->mesh = *mesh;
	sh->convex = NULL;
	sh->tree = NULL;
	sh->tree_origin = NULL;
	sh->base = MRDEM_SHAPE_NO_BASE;
	sh->scale = 1;
	mrdem_mesh_init(mesh);
	mrdem_scene_shape_changed(s, s->nshapes);
	return s->nshapes++;
}

void mrdem_scene_shape_changed(struct mrdem_scene *s, uint32_t i)
{
	struct mrdem_shape *sh = &s->shapes[i];
	/* Positions are those of mass.com (mesh.h), so the sphere is about
	 * that point; radius_about takes the farthest vertex. */
	sh->bound_radius = sh->kind == MRDEM_SHAPE_MESH ?
				   mrdem_mesh_radius_about(&sh->mesh, sh->mesh.mass.com) :
				   mrdem_analytic_bound_radius(sh->axes);
}

uint32_t mrdem_scene_add_analytic(struct mrdem_scene *s, const char *name, int kind,
				  const double axes[3])
{
	struct mrdem_mesh none;
	mrdem_mesh_init(&none);
	mrdem_analytic_mass(axes, &none.mass);
	uint32_t i = mrdem_scene_add_shape(s, name, &none);
	s->shapes[i].kind = kind;
	for (int k = 0; k < 3; k++)
		s->shapes[i].axes[k] = axes[k];
	mrdem_scene_shape_changed(s, i);
	return i;
}

int mrdem_scene_make_convex(struct mrdem_scene *s, uint32_t i, const char *what)
{
	struct mrdem_shape *sh = &s->shapes[i];
	if (sh->kind != MRDEM_SHAPE_MESH || sh->convex)
		return mrdem_error("%s: shape '%s' is %s, not a mesh to make convex", what, sh->name,
				   mrdem_shape_kind_name(mrdem_shape_kind(sh)));
	struct mrdem_convex *c = mrdem_xmalloc(sizeof *c);
	if (mrdem_convex_build(&sh->mesh, what, c)) {
		free(c);
		return -1;
	}
	sh->convex = c;
	return 0;
}

int mrdem_scene_has_analytic(const struct mrdem_scene *s)
{
	for (uint32_t i = 0; i < s->nshapes; i++)
		if (s->shapes[i].kind != MRDEM_SHAPE_MESH)
			return 1;
	return 0;
}

long mrdem_scene_find_shape(const struct mrdem_scene *s, const char *name)
{
	for (uint32_t i = 0; i < s->nshapes; i++)
		if (!strcmp(s->shapes[i].name, name))
			return i;
	return -1;
}

double mrdem_particle_mass(const struct mrdem_scene *s, size_t i)
{
	const struct mrdem_particles *p = &s->frame.p;
	if (p->flags[i] & MRDEM_PARTICLE_FIXED)
		return 0.0;
	return p->density[i] * s->shapes[p->shape[i]].mesh.mass.volume;
}

double mrdem_contact_reach(const struct mrdem_scene *s, size_t ia, size_t ib)
{
	const struct mrdem_particles *p = &s->frame.p;
	int plane = ib == SIZE_MAX;
	double eb = plane ? s->setup.plane_epsilon : p->eps[ib];
	double rb = plane ? 0 : s->shapes[p->shape[ib]].bound_radius;
	double halos = p->eps[ia] + eb;
	return halos + 1e-6 * (halos + s->shapes[p->shape[ia]].bound_radius + rb);
}
