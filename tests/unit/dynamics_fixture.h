/* Scenes and analytic contacts for the dynamics unit tests.
 *
 * Shapes carry exact mass properties of ideal solids (no mesh needed by the
 * dynamics), and contacts between ideal spheres and planes are generated
 * here in closed form, so the tests check the integrators and force laws
 * independently of the mesh-based contact search. */
#ifndef MRDEM_TESTS_DYNAMICS_FIXTURE_H
#define MRDEM_TESTS_DYNAMICS_FIXTURE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/dynamics/step.h"
#include "common/geom/vec3.h"
#include "common/scene/scene.h"
#include "formats/stream/records.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* Shape with the given unit-density mass properties and no triangles. */
static inline uint32_t fx_add_solid(struct mrdem_scene *s, const char *name, double volume,
				    double ixx, double iyy, double izz)
{
	struct mrdem_mesh m;
	mrdem_mesh_init(&m);
	m.mass.volume = volume;
	m.mass.inertia[0] = ixx;
	m.mass.inertia[1] = iyy;
	m.mass.inertia[2] = izz;
	return mrdem_scene_add_shape(s, name, &m);
}

/* Solid ball of radius r: V = 4/3 pi r^3, I = 2/5 V r^2. */
static inline uint32_t fx_add_ball(struct mrdem_scene *s, double r)
{
	double V = 4.0 / 3.0 * M_PI * r * r * r;
	double I = 0.4 * V * r * r;
	return fx_add_solid(s, "ball", V, I, I, I);
}

/* Solid box a x b x c: I_xx = V (b^2 + c^2) / 12 and so on. */
static inline uint32_t fx_add_box(struct mrdem_scene *s, double a, double b, double c)
{
	double V = a * b * c;
	return fx_add_solid(s, "box", V, V * (b * b + c * c) / 12, V * (a * a + c * c) / 12,
			    V * (a * a + b * b) / 12);
}

static inline size_t fx_add_particle(struct mrdem_scene *s, uint64_t id, uint32_t shape,
				     double x, double y, double z, double eps)
{
	size_t i = mrdem_particles_push(&s->frame.p, id, shape);
	vec3_set(&s->frame.p.pos[3 * i], x, y, z);
	s->frame.p.eps[i] = eps;
	return i;
}

static inline void fx_add_plane(struct mrdem_scene *s, const double point[3], const double normal[3])
{
	struct mrdem_setup *u = &s->setup;
	u->planes = realloc(u->planes, (u->nplanes + 1) * sizeof *u->planes);
	vec3_copy(u->planes[u->nplanes].point, point);
	vec3_copy(u->planes[u->nplanes].normal, normal);
	vec3_normalize(u->planes[u->nplanes].normal);
	u->nplanes++;
}

/* Contact between the surfaces of balls i and j (radii ri, rj) when their
 * halos overlap: the midpoint of the shortest segment, normal from j to i. */
static inline void fx_ball_ball(struct mrdem_contacts *c, const struct mrdem_scene *s, size_t i,
				double ri, size_t j, double rj)
{
	const struct mrdem_particles *p = &s->frame.p;
	double d[3];
	vec3_sub(d, &p->pos[3 * i], &p->pos[3 * j]);
	double len = vec3_norm(d);
	double dist = fmax(len - ri - rj, 0.0), eps = p->eps[i] + p->eps[j];
	if (dist > eps)
		return;
	struct mrdem_contact *k = mrdem_contacts_push(c);
	k->a = p->id[i];
	k->b = p->id[j];
	k->tri_a = k->tri_b = UINT32_MAX;
	vec3_scale(k->normal, d, 1.0 / len);
	vec3_axpy(k->x, &p->pos[3 * j], rj + 0.5 * dist, k->normal);
	k->dist = dist;
	k->depth = eps - dist;
}

/* Contact between ball i (radius r) and analytic plane k of the setup. */
static inline void fx_ball_plane(struct mrdem_contacts *c, const struct mrdem_scene *s, size_t i,
				 double r, uint32_t plane)
{
	const struct mrdem_particles *p = &s->frame.p;
	const struct mrdem_plane *pl = &s->setup.planes[plane];
	double d[3];
	vec3_sub(d, &p->pos[3 * i], pl->point);
	double h = vec3_dot(d, pl->normal);
	double dist = fmax(h - r, 0.0), eps = p->eps[i] + s->setup.plane_epsilon;
	if (dist > eps)
		return;
	struct mrdem_contact *k = mrdem_contacts_push(c);
	k->a = p->id[i];
	k->b = MRDEM_PLANE_ID(plane);
	k->tri_a = k->tri_b = UINT32_MAX;
	vec3_copy(k->normal, pl->normal);
	vec3_axpy(k->x, &p->pos[3 * i], -(r + 0.5 * dist), pl->normal);
	k->dist = dist;
	k->depth = eps - dist;
}

/* A scene with no planes, no gravity, one step = dt under scheme. */
static inline void fx_scene(struct mrdem_scene *s, int model, double stiffness, double dt,
			    int scheme)
{
	mrdem_scene_init(s);
	s->setup.force_model = model;
	s->setup.stiffness = stiffness;
	s->setup.dt = dt;
	s->setup.scheme = scheme;
}

/* Step once with the given contacts (their step set to the frame's). */
static inline int fx_step(struct mrdem_stepper *st, struct mrdem_scene *s, struct mrdem_contacts *c)
{
	struct mrdem_step_opts o;
	mrdem_step_opts_default(&o, &s->setup);
	c->step = s->frame.step;
	return mrdem_stepper_step(st, s, c, &o);
}

/* Capture what the library prints on stderr between begin and end. */
struct fx_capture {
	int saved;
	FILE *tmp;
	char text[4096];
};

static inline void fx_capture_begin(struct fx_capture *c)
{
	fflush(stderr);
	c->saved = dup(2);
	c->tmp = tmpfile();
	dup2(fileno(c->tmp), 2);
}

static inline const char *fx_capture_end(struct fx_capture *c)
{
	fflush(stderr);
	dup2(c->saved, 2);
	close(c->saved);
	rewind(c->tmp);
	size_t n = fread(c->text, 1, sizeof c->text - 1, c->tmp);
	c->text[n] = 0;
	fclose(c->tmp);
	return c->text;
}

#endif
