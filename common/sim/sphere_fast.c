#include "common/sim/sphere_fast.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/broad/broad.h"
#include "common/dynamics/contact_law.h"
#include "common/dynamics/rigid_body.h"
#include "common/scene/material.h"
#include "common/sim/sphere_patch.h"
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
	/* per particle, from the bodies (0 for fixed ones): structure of
	 * arrays, so the pair loop reads 8 bytes where a body holds 160 */
	double *mass, *inv_mass, *inv_inertia;
	uint32_t *pa, *pb;     /* the Verlet list: frame indices; pb >= n: plane pb - n */
	/* per list entry: the effective mass (0: both immovable), the
	 * friction cap's factor 2 sqrt(kn m_eff) (spring-dashpot) and the
	 * pair's law, constant while listed */
	double *meff, *cap_factor;
	/* hooke, hertz: R* = 1 / (1/r_a + 1/r_b) (r_a for a plane) and the
	 * law's damping ratio */
	double *rstar, *ratio;
	const struct mrdem_pair_law **law;
	size_t npairs, cap;
	struct mrdem_pair_law own;  /* the law of every pair without materials */
	/* hooke, hertz: the springs per list entry; the rotations at the frame */
	int patch;
	struct mrdem_sphere_springs springs;
	uint64_t *ida, *idb;   /* scratch: the list's ids */
	double *rot;
	double *x_built;       /* positions at the last build */
	double *eps_grown;     /* scratch: halos grown by half the skin */
	double *force, *torque;
	uint64_t forces_at;    /* frame step + 1 whose forces force, torque hold; 0: none */
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
	int m = s->setup.force_model;
	if (m != MRDEM_FORCE_SPRING_DASHPOT && m != MRDEM_FORCE_HOOKE && m != MRDEM_FORCE_HERTZ) {
		snprintf(why, len, "the force model is %s, not spring-dashpot, hooke or hertz",
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
	if (s->flow.ninsert || s->flow.nremove) {
		snprintf(why, len, "particles enter or leave it (insert, remove)");
		return 0;
	}
	/* it neither places walls nor writes the stats that report their forces */
	if (s->setup.nmotions) {
		snprintf(why, len, "it has %u moving walls", s->setup.nmotions);
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
	f->mass = mrdem_xmalloc_array(n, sizeof *f->mass);
	f->inv_mass = mrdem_xmalloc_array(n, sizeof *f->inv_mass);
	f->inv_inertia = mrdem_xmalloc_array(n, sizeof *f->inv_inertia);
	f->patch = s->setup.force_model != MRDEM_FORCE_SPRING_DASHPOT;
	f->rot = f->patch ? mrdem_xmalloc_array(9 * n, sizeof *f->rot) : NULL;
	mrdem_sphere_springs_init(&f->springs);
	for (size_t i = 0; i < s->frame.p.n; i++)
		f->radius[i] = s->shapes[s->frame.p.shape[i]].axes[0];
	if (mrdem_bodies_compute(&f->bodies, s) || mrdem_id_index_build(&f->index, &s->frame.p)) {
		mrdem_sphere_fast_free(f);
		return NULL;
	}
	for (size_t i = 0; i < s->frame.p.n; i++) {
		f->mass[i] = f->bodies.b[i].mass;
		f->inv_mass[i] = f->bodies.b[i].inv_mass;
		f->inv_inertia[i] = f->bodies.b[i].inv_inertia[0];
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
	free(f->mass);
	free(f->inv_mass);
	free(f->inv_inertia);
	free(f->pa);
	free(f->pb);
	free(f->meff);
	free(f->cap_factor);
	free(f->law);
	free(f->rstar);
	free(f->ratio);
	free(f->ida);
	free(f->idb);
	free(f->rot);
	mrdem_sphere_springs_release(&f->springs);
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
		f->meff = mrdem_xrealloc(f->meff, f->cap * sizeof *f->meff);
		f->cap_factor = mrdem_xrealloc(f->cap_factor, f->cap * sizeof *f->cap_factor);
		f->law = mrdem_xrealloc(f->law, f->cap * sizeof *f->law);
		f->rstar = mrdem_xrealloc(f->rstar, f->cap * sizeof *f->rstar);
		f->ratio = mrdem_xrealloc(f->ratio, f->cap * sizeof *f->ratio);
		f->ida = mrdem_xrealloc(f->ida, f->cap * sizeof *f->ida);
		f->idb = mrdem_xrealloc(f->idb, f->cap * sizeof *f->idb);
	}
	for (size_t k = 0; k < f->pairs.n; k++) {
		uint64_t a = f->pairs.p[k].a, b = f->pairs.p[k].b;
		int plane = mrdem_is_plane_id(b);
		f->pa[k] = (uint32_t)mrdem_id_index_find(&f->index, a);
		f->pb[k] = plane ? (uint32_t)(n + mrdem_plane_index(b))
				 : (uint32_t)mrdem_id_index_find(&f->index, b);
		double inv = f->inv_mass[f->pa[k]] + (f->pb[k] < n ? f->inv_mass[f->pb[k]] : 0.0);
		f->meff[k] = inv == 0 ? 0 : 1.0 / inv;
		f->law[k] = mrdem_pair_law_of(&s->setup, p, f->pa[k], plane ? SIZE_MAX : f->pb[k],
					      plane ? mrdem_plane_index(b) : 0, &f->own);
		f->cap_factor[k] = 2.0 * sqrt(f->law[k]->stiffness * f->meff[k]);
		f->rstar[k] = plane ? f->radius[f->pa[k]]
				    : 1.0 / (1.0 / f->radius[f->pa[k]] + 1.0 / f->radius[f->pb[k]]);
		f->ratio[k] = mrdem_damping_ratio(f->law[k]->restitution);
		f->ida[k] = a;
		f->idb[k] = b;
	}
	/* the springs go on from the frame's history, which holds the last
	 * step's (or those a stream resumed from) */
	if (f->patch)
		mrdem_sphere_springs_load(&f->springs, &s->frame.history, f->ida, f->idb, f->pairs.n);
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

/* Force of one contact on a, as the spring-dashpot law of
 * common/dynamics/contact_law.c computes it from the patch of the one
 * contact record analytic_contacts.c writes (point x at the centre of
 * the halos' overlap, unit normal n from b to a, signed distance d), added
 * to a and its opposite to b (planes: ib = SIZE_MAX); k is the list entry.
 * Equal to rounding: the normal is not normalised a second time, the
 * lever arms come from the point once, m_eff from the list. Returns 1
 * when the halos overlap. */
static inline __attribute__((always_inline)) int pair_force(struct mrdem_sphere_fast *f, size_t k, size_t ia, size_t ib,
			     const double pa[3], const double n[3], double d, double ea, double eb)
{
	const struct mrdem_pair_law *set = f->law[k];
	const struct mrdem_particles *p = &f->s->frame.p;
	double depth = ea + eb - d, m_eff = f->meff[k];
	if (m_eff == 0 || !(depth > 0))
		return 0;
	double x[3], ra[3], rb[3] = {0, 0, 0}, va[3], vrel[3], F[3], t[3];
	vec3_axpy(x, pa, -0.5 * (d + ea - eb), n);
	vec3_sub(ra, x, &p->pos[3 * ia]);
	vec3_cross(va, &p->angvel[3 * ia], ra);
	vec3_add(va, va, &p->vel[3 * ia]);
	if (ib == SIZE_MAX) {
		vec3_copy(vrel, va);
	} else {
		double vb[3];
		vec3_sub(rb, x, &p->pos[3 * ib]);
		vec3_cross(vb, &p->angvel[3 * ib], rb);
		vec3_add(vb, vb, &p->vel[3 * ib]);
		vec3_sub(vrel, va, vb);
	}
	double vn = vec3_dot(vrel, n);
	double fn = set->stiffness * depth - set->damping * m_eff * vn;
	if (!(fn > 0))
		return 1; /* no force, and the elastic energy is not needed here */
	vec3_scale(F, n, fn);
	if (set->friction > 0) {
		double vt[3];
		vec3_axpy(vt, vrel, -vn, n);
		double vtn = vec3_norm(vt);
		if (vtn > 0) {
			double ft = set->friction * fn, cap = f->cap_factor[k] * vtn;
			vec3_axpy(F, F, -(ft < cap ? ft : cap) / vtn, vt);
		}
	}
	vec3_add(&f->force[3 * ia], &f->force[3 * ia], F);
	vec3_cross(t, ra, F);
	vec3_add(&f->torque[3 * ia], &f->torque[3 * ia], t);
	if (ib != SIZE_MAX) {
		vec3_sub(&f->force[3 * ib], &f->force[3 * ib], F);
		vec3_cross(t, rb, F);
		vec3_sub(&f->torque[3 * ib], &f->torque[3 * ib], t);
	}
	return 1;
}

/* The spring-dashpot forces of the list; the number of contacts. */
static uint64_t dashpot_forces(struct mrdem_sphere_fast *f)
{
	const struct mrdem_scene *s = f->s;
	const struct mrdem_particles *p = &s->frame.p;
	size_t n = p->n;
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
			contacts += (uint64_t)pair_force(f, k, a, SIZE_MAX, pa, pl->normal, d, ea, ep);
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
		contacts += (uint64_t)pair_force(f, k, a, b, pa, nrm, d, ea, eb);
	}
	return contacts;
}

/* The hooke or hertz forces of the list, the springs of the frame
 * stretched into the step's; the number of contacts. */
static uint64_t patch_forces(struct mrdem_sphere_fast *f)
{
	const struct mrdem_particles *p = &f->s->frame.p;
	size_t n = p->n;
	for (size_t i = 0; i < n; i++)
		quat_to_matrix(&p->quat[4 * i], &f->rot[9 * i]);
	struct mrdem_sphere_patch c = {f->s, f->rot, f->radius, f->force, f->torque};
	uint64_t contacts = 0;
	for (size_t k = 0; k < f->npairs; k++) {
		size_t a = f->pa[k], b = f->pb[k];
		struct mrdem_sphere_pair pr = {f->meff[k], f->rstar[k], f->ratio[k], f->law[k]};
		contacts += (uint64_t)mrdem_sphere_patch_force(
			&c, a, b < n ? b : SIZE_MAX, b < n ? 0 : (uint32_t)(b - n), &pr,
			&f->springs.cur[k], &f->springs.next[k]);
	}
	return contacts;
}

/* Gravity and the contact forces of the list at the current positions. */
static int forces(struct mrdem_sphere_fast *f)
{
	const struct mrdem_scene *s = f->s;
	const struct mrdem_particles *p = &s->frame.p;
	size_t n = p->n;
	for (size_t i = 0; i < n; i++) {
		vec3_scale(&f->force[3 * i], s->setup.gravity, f->mass[i]);
		vec3_set(&f->torque[3 * i], 0, 0, 0);
	}
	uint64_t contacts = f->patch ? patch_forces(f) : dashpot_forces(f);
	f->stats.contacts += contacts;
	for (size_t i = 0; i < n; i++)
		if (!vec3_isfinite(&f->force[3 * i]) || !vec3_isfinite(&f->torque[3 * i]))
			return mrdem_error("step %llu: non-finite force on particle %llu (sphere fast "
					   "path); reduce the time step",
					   (unsigned long long)s->frame.step,
					   (unsigned long long)p->id[i]);
	return 0;
}

/* Velocity Verlet for a sphere: the calls of common/dynamics/integrate.c
 * with the inertia a scalar (I w = L, so w changes only by the torque and
 * the free rotation keeps it), which are equal to rounding; the half-kick
 * flag as there, so a frame written between steps means the same. */
static void integrate_sphere(struct mrdem_particles *p, size_t i, double inv_mass,
			     double inv_inertia, const double F[3], const double T[3], double dt)
{
	double *x = &p->pos[3 * i], *v = &p->vel[3 * i], *w = &p->angvel[3 * i];
	uint32_t fl = p->flags[i];
	if (fl & MRDEM_PARTICLE_FIXED) {
		p->flags[i] = fl & ~(uint32_t)MRDEM_PARTICLE_HALF_KICK;
		vec3_axpy(x, x, dt, v);
		mrdem_quat_advance(&p->quat[4 * i], w, dt);
		return;
	}
	double h = 0.5 * dt, kv = h * inv_mass, kw = h * inv_inertia;
	/* close the previous step's kick (when pending), then this step's */
	double n = fl & MRDEM_PARTICLE_HALF_KICK ? 2 : 1;
	vec3_axpy(v, v, n * kv, F);
	vec3_axpy(w, w, n * kw, T);
	vec3_axpy(x, x, dt, v);
	mrdem_quat_advance(&p->quat[4 * i], w, dt);
	p->flags[i] = fl | MRDEM_PARTICLE_HALF_KICK;
}

/* The forces at the frame, once per frame: a step's, computed early when
 * the frame is written synchronised. */
static int forces_at_frame(struct mrdem_sphere_fast *f)
{
	struct mrdem_scene *s = f->s;
	struct mrdem_particles *p = &s->frame.p;
	if (f->forces_at == s->frame.step + 1)
		return 0;
	if (!f->stats.steps && mrdem_frame_resume_half_step(&s->frame))
		return -1;
	if (list_stale(f) && build_list(f))
		return -1;
	f->stats.list_pairs += f->npairs;
	if (!f->stats.steps) /* as the general step does; later steps end normalised */
		for (size_t i = 0; i < p->n; i++)
			quat_normalize(&p->quat[4 * i]);
	if (forces(f))
		return -1;
	f->forces_at = s->frame.step + 1;
	return 0;
}

int mrdem_sphere_fast_synchronise(struct mrdem_sphere_fast *f, double *vel, double *angvel)
{
	struct mrdem_particles *p = &f->s->frame.p;
	if (forces_at_frame(f))
		return -1;
	double h = 0.5 * f->s->setup.dt;
	memcpy(vel, p->vel, 3 * p->n * sizeof *vel);
	memcpy(angvel, p->angvel, 3 * p->n * sizeof *angvel);
	for (size_t i = 0; i < p->n; i++)
		if ((p->flags[i] & MRDEM_PARTICLE_HALF_KICK) && !(p->flags[i] & MRDEM_PARTICLE_FIXED)) {
			vec3_axpy(&vel[3 * i], &vel[3 * i], h * f->inv_mass[i], &f->force[3 * i]);
			vec3_axpy(&angvel[3 * i], &angvel[3 * i], h * f->inv_inertia[i],
				  &f->torque[3 * i]);
		}
	return 0;
}

int mrdem_sphere_fast_step(struct mrdem_sphere_fast *f)
{
	struct mrdem_scene *s = f->s;
	struct mrdem_particles *p = &s->frame.p;
	double dt = s->setup.dt;
	if (forces_at_frame(f))
		return -1;
	f->forces_at = 0;
	for (size_t i = 0; i < p->n; i++)
		integrate_sphere(p, i, f->inv_mass[i], f->inv_inertia[i], &f->force[3 * i],
				 &f->torque[3 * i], dt);
	/* the springs stretched over this step go on with the next frame */
	if (f->patch)
		mrdem_sphere_springs_advance(&f->springs, &s->frame.history);
	s->frame.step++;
	s->frame.time += dt;
	f->stats.steps++;
	return 0;
}
