#include "common/sim/sphere_fast.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/broad/broad.h"
#include "common/dynamics/integrate.h"
#include "common/dynamics/rigid_body.h"
#include "common/geom/quat.h"
#include "common/geom/vec3.h"
#include "common/scene/id_index.h"
#include "common/util/error.h"

struct mrdem_sphere_fast {
	struct mrdem_scene *s;
	int broad_method;
	double skin;
	struct mrdem_broad *broad;
	struct mrdem_pairs pairs;
	struct mrdem_id_index index;
	struct mrdem_bodies bodies;
	double *radius;        /* per particle */
	uint32_t *pa, *pb;     /* the Verlet list: frame indices; pb >= n: plane pb - n */
	size_t npairs, cap;
	double *x_built;       /* positions at the last build */
	double *eps_grown;     /* scratch: halos grown by half the skin */
	double *force, *torque;
	int built;
	struct mrdem_sphere_fast_stats stats;
};

int mrdem_sphere_fast_covers(const struct mrdem_scene *s, char *why, size_t len)
{
	for (uint32_t k = 0; k < s->nshapes; k++)
		if (s->shapes[k].kind != MRDEM_SHAPE_SPHERE) {
			snprintf(why, len, "shape '%s' is %s, not an analytic sphere", s->shapes[k].name,
				 mrdem_shape_kind_name(s->shapes[k].kind));
			return 0;
		}
	if (s->setup.force_model != MRDEM_FORCE_SPRING_DASHPOT) {
		snprintf(why, len, "the force model is %s, not spring-dashpot",
			 mrdem_force_model_name(s->setup.force_model));
		return 0;
	}
	if (s->setup.scheme != MRDEM_SCHEME_VELOCITY_VERLET) {
		snprintf(why, len, "the scheme is %s, not velocity-verlet",
			 mrdem_scheme_name(s->setup.scheme));
		return 0;
	}
	if (!(s->setup.dt > 0) || !isfinite(s->setup.dt)) {
		snprintf(why, len, "dt is %g", s->setup.dt);
		return 0;
	}
	return 1;
}

struct mrdem_sphere_fast *mrdem_sphere_fast_new(struct mrdem_scene *s, int broad, double skin)
{
	char why[256];
	if (!mrdem_sphere_fast_covers(s, why, sizeof why)) {
		mrdem_error("the sphere fast path does not cover this scene: %s", why);
		return NULL;
	}
	if (!(skin >= 0) || !isfinite(skin)) {
		mrdem_error("the sphere fast path needs a skin >= 0, not %g", skin);
		return NULL;
	}
	struct mrdem_sphere_fast *f = mrdem_xcalloc(1, sizeof *f);
	f->s = s;
	f->broad_method = broad;
	f->skin = skin;
	f->broad = mrdem_broad_new();
	mrdem_pairs_init(&f->pairs);
	mrdem_id_index_init(&f->index);
	mrdem_bodies_init(&f->bodies);
	size_t n = s->frame.p.n ? s->frame.p.n : 1;
	f->radius = mrdem_xmalloc_array(n, sizeof *f->radius);
	f->x_built = mrdem_xmalloc_array(3 * n, sizeof *f->x_built);
	f->eps_grown = mrdem_xmalloc_array(n, sizeof *f->eps_grown);
	f->force = mrdem_xmalloc_array(3 * n, sizeof *f->force);
	f->torque = mrdem_xmalloc_array(3 * n, sizeof *f->torque);
	for (size_t i = 0; i < s->frame.p.n; i++)
		f->radius[i] = s->shapes[s->frame.p.shape[i]].axes[0];
	if (mrdem_bodies_compute(&f->bodies, s) || mrdem_id_index_build(&f->index, &s->frame.p)) {
		mrdem_sphere_fast_free(f);
		return NULL;
	}
	return f;
}

void mrdem_sphere_fast_free(struct mrdem_sphere_fast *f)
{
	if (!f)
		return;
	mrdem_broad_free(f->broad);
	mrdem_pairs_release(&f->pairs);
	mrdem_id_index_release(&f->index);
	mrdem_bodies_release(&f->bodies);
	free(f->radius);
	free(f->pa);
	free(f->pb);
	free(f->x_built);
	free(f->eps_grown);
	free(f->force);
	free(f->torque);
	free(f);
}

void mrdem_sphere_fast_get_stats(const struct mrdem_sphere_fast *f,
				 struct mrdem_sphere_fast_stats *out)
{
	*out = f->stats;
}

/* The Verlet list: the broad phase with halos grown by half the skin, in
 * its canonical order (that of the general path's contacts). */
static int build_list(struct mrdem_sphere_fast *f)
{
	struct mrdem_scene *s = f->s;
	struct mrdem_particles *p = &s->frame.p;
	size_t n = p->n;
	double *eps = p->eps;
	double plane_eps = s->setup.plane_epsilon;
	for (size_t i = 0; i < n; i++)
		f->eps_grown[i] = eps[i] + 0.5 * f->skin;
	p->eps = f->eps_grown; /* the broad phase reads halos from the frame */
	s->setup.plane_epsilon = plane_eps + 0.5 * f->skin;
	int rc = mrdem_broad_phase(f->broad, s, f->broad_method, &f->pairs, NULL);
	p->eps = eps;
	s->setup.plane_epsilon = plane_eps;
	if (rc)
		return -1;
	if (f->pairs.n > f->cap) {
		f->cap = f->pairs.n;
		f->pa = mrdem_xrealloc(f->pa, f->cap * sizeof *f->pa);
		f->pb = mrdem_xrealloc(f->pb, f->cap * sizeof *f->pb);
	}
	for (size_t k = 0; k < f->pairs.n; k++) {
		uint64_t a = f->pairs.p[k].a, b = f->pairs.p[k].b;
		f->pa[k] = (uint32_t)mrdem_id_index_find(&f->index, a);
		f->pb[k] = b >= MRDEM_PLANE_ID_MIN ? (uint32_t)(n + (UINT64_MAX - b))
						  : (uint32_t)mrdem_id_index_find(&f->index, b);
	}
	f->npairs = f->pairs.n;
	memcpy(f->x_built, p->pos, 3 * n * sizeof *p->pos);
	f->built = 1;
	f->stats.rebuilds++;
	return 0;
}

/* Whether a particle has moved half the skin since the list was built. */
static int list_stale(const struct mrdem_sphere_fast *f)
{
	const struct mrdem_particles *p = &f->s->frame.p;
	double lim = 0.25 * f->skin * f->skin;
	if (!f->built || f->skin == 0)
		return 1;
	for (size_t i = 0; i < p->n; i++)
		if (vec3_dist2(&p->pos[3 * i], &f->x_built[3 * i]) > lim)
			return 1;
	return 0;
}

/* Force of one contact on a, as common/dynamics/forces.c computes it from
 * the contact record analytic_contacts.c writes, added to a and its
 * opposite to b (planes: bi = SIZE_MAX). Returns 1 when in contact. */
static int pair_force(struct mrdem_sphere_fast *f, size_t ia, size_t ib, const double pa[3],
		      const double normal[3], double d, double ea, double eb)
{
	const struct mrdem_setup *set = &f->s->setup;
	const struct mrdem_particles *p = &f->s->frame.p;
	double x[3], n[3], F[3];
	vec3_axpy(x, pa, -0.5 * (d + ea - eb), normal);
	double depth = ea + eb - d;
	double inv_a = f->bodies.b[ia].inv_mass;
	double inv_b = ib == SIZE_MAX ? 0.0 : f->bodies.b[ib].inv_mass;
	if (inv_a + inv_b == 0 || !(depth > 0))
		return 0;
	double m_eff = 1.0 / (inv_a + inv_b);
	vec3_copy(n, normal);
	vec3_normalize(n);
	double va[3], vb[3], vrel[3], r[3], wr[3];
	vec3_sub(r, x, &p->pos[3 * ia]);
	vec3_cross(wr, &p->angvel[3 * ia], r);
	vec3_add(va, &p->vel[3 * ia], wr);
	if (ib == SIZE_MAX) {
		vec3_set(vb, 0, 0, 0);
	} else {
		vec3_sub(r, x, &p->pos[3 * ib]);
		vec3_cross(wr, &p->angvel[3 * ib], r);
		vec3_add(vb, &p->vel[3 * ib], wr);
	}
	vec3_sub(vrel, va, vb);
	double vn = vec3_dot(vrel, n);
	double k = set->stiffness;
	double fn = fmax(k * depth - set->damping * m_eff * vn, 0.0);
	vec3_scale(F, n, fn);
	if (set->friction > 0 && fn > 0) {
		double vt[3];
		vec3_axpy(vt, vrel, -vn, n);
		double vtn = vec3_norm(vt);
		if (vtn > 0) {
			double ft = fmin(set->friction * fn, 2.0 * sqrt(k * m_eff) * vtn);
			vec3_axpy(F, F, -ft / vtn, vt);
		}
	}
	if (F[0] == 0 && F[1] == 0 && F[2] == 0 && 0.5 * k * depth * depth == 0)
		return 1;
	double t[3];
	vec3_add(&f->force[3 * ia], &f->force[3 * ia], F);
	vec3_sub(r, x, &p->pos[3 * ia]);
	vec3_cross(t, r, F);
	vec3_add(&f->torque[3 * ia], &f->torque[3 * ia], t);
	if (ib != SIZE_MAX) {
		vec3_sub(&f->force[3 * ib], &f->force[3 * ib], F);
		vec3_sub(r, x, &p->pos[3 * ib]);
		vec3_cross(t, r, F);
		vec3_sub(&f->torque[3 * ib], &f->torque[3 * ib], t);
	}
	return 1;
}

/* Gravity and the contact forces of the list at the current positions. */
static int forces(struct mrdem_sphere_fast *f)
{
	const struct mrdem_scene *s = f->s;
	const struct mrdem_particles *p = &s->frame.p;
	size_t n = p->n;
	for (size_t i = 0; i < n; i++) {
		vec3_scale(&f->force[3 * i], s->setup.gravity, f->bodies.b[i].mass);
		vec3_set(&f->torque[3 * i], 0, 0, 0);
	}
	uint64_t contacts = 0;
	for (size_t k = 0; k < f->npairs; k++) {
		size_t a = f->pa[k], b = f->pb[k];
		const double *xa = &p->pos[3 * a];
		double ra = f->radius[a], ea = p->eps[a], nrm[3], pa[3];
		if (b >= n) { /* a plane: closed form (mrdem_analytic_plane) */
			const struct mrdem_plane *pl = &s->setup.planes[b - n];
			double ep = s->setup.plane_epsilon, rel[3];
			vec3_sub(rel, xa, pl->point);
			double d = vec3_dot(rel, pl->normal) - ra;
			if (d > ea + ep)
				continue;
			vec3_axpy(pa, xa, -ra, pl->normal);
			contacts += (uint64_t)pair_force(f, a, SIZE_MAX, pa, pl->normal, d, ea, ep);
			continue;
		}
		double eb = p->eps[b];
		vec3_sub(nrm, xa, &p->pos[3 * b]);
		double len = vec3_norm(nrm), d = len - ra - f->radius[b];
		if (d > ea + eb)
			continue;
		if (len > 0)
			vec3_scale(nrm, nrm, 1 / len);
		else
			vec3_set(nrm, 0, 0, 1);
		vec3_axpy(pa, xa, -ra, nrm);
		contacts += (uint64_t)pair_force(f, a, b, pa, nrm, d, ea, eb);
	}
	f->stats.contacts += contacts;
	for (size_t i = 0; i < n; i++)
		if (!vec3_isfinite(&f->force[3 * i]) || !vec3_isfinite(&f->torque[3 * i]))
			return mrdem_error("step %llu: non-finite force on particle %llu (sphere fast "
					   "path); reduce the time step",
					   (unsigned long long)s->frame.step,
					   (unsigned long long)p->id[i]);
	return 0;
}

int mrdem_sphere_fast_step(struct mrdem_sphere_fast *f)
{
	struct mrdem_scene *s = f->s;
	struct mrdem_particles *p = &s->frame.p;
	double dt = s->setup.dt;
	if (list_stale(f) && build_list(f))
		return -1;
	f->stats.list_pairs += f->npairs;
	for (size_t i = 0; i < p->n; i++)
		quat_normalize(&p->quat[4 * i]); /* as the general step does */
	if (forces(f))
		return -1;
	const struct mrdem_body *b = f->bodies.b;
	for (size_t i = 0; i < p->n; i++) {
		mrdem_integrate_close(p, i, &b[i], &f->force[3 * i], &f->torque[3 * i], dt);
		mrdem_integrate_advance(p, i, &b[i], &f->force[3 * i], &f->torque[3 * i],
					MRDEM_SCHEME_VELOCITY_VERLET, dt);
	}
	s->frame.step++;
	s->frame.time += dt;
	f->stats.steps++;
	return 0;
}
