#include "common/dynamics/forces.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dynamics/patch_forces.h"
#include "common/geom/vec3.h"
#include "common/util/error.h"
#include "common/util/threads.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* Contacts come from single-precision kernels: accept their unit normals
 * and depths to this relative accuracy. */
#define NORMAL_TOL 1e-3
#define DEPTH_TOL 1e-4

void mrdem_forces_init(struct mrdem_forces *f)
{
	memset(f, 0, sizeof *f);
}

void mrdem_forces_release(struct mrdem_forces *f)
{
	free(f->force);
	free(f->torque);
	free(f->ia);
	free(f->ib);
	free(f->cf);
	free(f->ce);
	free(f->gia);
	free(f->gib);
	free(f->gcf);
	free(f->ct);
	free(f->plane_force);
	free(f->plane_torque);
	for (uint32_t i = 0; i < f->nsmooth; i++)
		mrdem_mesh_smooth_release(&f->smooth[i]);
	free(f->smooth);
	free(f->pfirst);
	free(f->pmember);
	free(f->pspring);
	free(f->used);
	mrdem_history_release(&f->history);
	mrdem_forces_init(f);
}

static void reserve(struct mrdem_forces *f, size_t n, size_t nc)
{
	if (n > f->cap) {
		f->force = mrdem_xrealloc_for(f->force, n, 3 * sizeof *f->force, "particles");
		f->torque = mrdem_xrealloc_for(f->torque, n, 3 * sizeof *f->torque, "particles");
		f->cap = n;
	}
	if (nc > f->ccap) {
		f->ia = mrdem_xrealloc_for(f->ia, nc, sizeof *f->ia, "contacts");
		f->ib = mrdem_xrealloc_for(f->ib, nc, sizeof *f->ib, "contacts");
		f->cf = mrdem_xrealloc_for(f->cf, nc, 3 * sizeof *f->cf, "contacts");
		f->ce = mrdem_xrealloc_for(f->ce, nc, sizeof *f->ce, "contacts");
		f->ct = mrdem_xrealloc_for(f->ct, nc, 3 * sizeof *f->ct, "contacts");
		f->pfirst = mrdem_xrealloc_for(f->pfirst, nc + 1, sizeof *f->pfirst, "contacts");
		f->pmember = mrdem_xrealloc_for(f->pmember, nc, sizeof *f->pmember, "contacts");
		f->pspring = mrdem_xrealloc_for(f->pspring, nc, sizeof *f->pspring, "contacts");
		f->ccap = nc;
	}
	f->n = n;
}

/* "contact 12 (particles 3 and 4)" or "contact 12 (particle 3 and plane 0)" */
static const char *contact_name(char *buf, size_t len, size_t k, const struct mrdem_contact *c)
{
	if (mrdem_is_plane_id(c->b))
		snprintf(buf, len, "contact %zu (particle %llu and plane %llu)", k,
			 (unsigned long long)c->a, (unsigned long long)mrdem_plane_index(c->b));
	else
		snprintf(buf, len, "contact %zu (particles %llu and %llu)", k,
			 (unsigned long long)c->a, (unsigned long long)c->b);
	return buf;
}

/* Resolve the ids of contact k into *ia, *ib and check that it fits this
 * frame (its depth only when check_depth: a guess has the halo of two
 * surrogates). */
static int resolve(size_t *ia_out, size_t *ib_out, const struct mrdem_scene *s,
		   const struct mrdem_id_index *ix, const struct mrdem_contact *c, size_t k,
		   int check_depth)
{
	char name[128];
	const struct mrdem_particles *p = &s->frame.p;
	size_t ia = !mrdem_is_plane_id(c->a) ? mrdem_id_index_find(ix, c->a) : MRDEM_NO_INDEX;
	if (ia == MRDEM_NO_INDEX)
		return mrdem_error("%s: particle a is not in the frame",
				   contact_name(name, sizeof name, k, c));
	size_t ib = MRDEM_NO_INDEX;
	double eps_b;
	if (mrdem_is_plane_id(c->b)) {
		uint64_t plane = mrdem_plane_index(c->b);
		if (plane >= s->setup.nplanes)
			return mrdem_error("%s: the setup has only %u planes",
					   contact_name(name, sizeof name, k, c), s->setup.nplanes);
		eps_b = s->setup.plane_epsilon;
	} else {
		ib = mrdem_id_index_find(ix, c->b);
		if (ib == MRDEM_NO_INDEX)
			return mrdem_error("%s: particle b is not in the frame",
					   contact_name(name, sizeof name, k, c));
		if (ib == ia)
			return mrdem_error("%s: a particle cannot touch itself",
					   contact_name(name, sizeof name, k, c));
		eps_b = p->eps[ib];
	}
	if (!vec3_isfinite(c->x) || !vec3_isfinite(c->normal) || !isfinite(c->dist) ||
	    !isfinite(c->depth))
		return mrdem_error("%s: non-finite point, normal, distance or depth",
				   contact_name(name, sizeof name, k, c));
	double nn = vec3_norm(c->normal);
	if (fabs(nn - 1) > NORMAL_TOL)
		return mrdem_error("%s: normal has length %g, not 1",
				   contact_name(name, sizeof name, k, c), nn);
	double epssum = p->eps[ia] + eps_b;
	if (check_depth && fabs(c->depth - (epssum - c->dist)) > DEPTH_TOL * epssum + 1e-12)
		return mrdem_error("%s: depth %g does not equal eps_a + eps_b - dist = %g; were "
				   "the contacts computed for this frame?",
				   contact_name(name, sizeof name, k, c), c->depth, epssum - c->dist);
	/* the narrow phase records triangles within the halos only: a record
	 * beyond them would be a force at a distance, wherever it came from */
	if (check_depth && c->dist > mrdem_contact_reach(s, ia, ib))
		return mrdem_error("%s: distance %g is beyond the halos (eps_a + eps_b = %g)",
				   contact_name(name, sizeof name, k, c), c->dist, epssum);
	if ((s->setup.force_model == MRDEM_FORCE_SPRING ||
	     MRDEM_FORCE_MODEL_HAS_PATCHES(s->setup.force_model)) && !(epssum > 0))
		return mrdem_error("%s: the %s model needs a positive halo (eps_a + eps_b = %g)",
				   contact_name(name, sizeof name, k, c),
				   mrdem_force_model_name(s->setup.force_model), epssum);
	*ia_out = ia;
	*ib_out = ib;
	return 0;
}

/* Force on particle a of one contact and the elastic energy it stores;
 * zero when both sides are immovable or the halos do not overlap. */
static void contact_force(double F[3], double *energy, const struct mrdem_scene *s,
			  const struct mrdem_bodies *bodies, size_t ia, size_t ib,
			  const struct mrdem_contact *c)
{
	const struct mrdem_particles *p = &s->frame.p;
	struct mrdem_pair_law own;
	const struct mrdem_pair_law *set =
		mrdem_pair_law_of(&s->setup, p, ia, ib, mrdem_plane_index(c->b), &own);
	int model = s->setup.force_model;
	vec3_set(F, 0, 0, 0);
	*energy = 0;
	double inv_a = bodies->b[ia].inv_mass;
	double inv_b = ib == MRDEM_NO_INDEX ? 0.0 : bodies->b[ib].inv_mass;
	if (inv_a + inv_b == 0 || !(c->depth > 0))
		return;
	double m_eff = 1.0 / (inv_a + inv_b);
	double n[3];
	vec3_copy(n, c->normal);
	vec3_normalize(n);
	double va[3], vb[3], vrel[3];
	mrdem_point_velocity(va, p, ia, c->x);
	mrdem_side_velocity(vb, s, ib, c->b, c->x);
	vec3_sub(vrel, va, vb);
	double vn = vec3_dot(vrel, n);

	double k, fn, delta;
	if (model == MRDEM_FORCE_SPRING) {
		double epssum = c->depth + c->dist;
		delta = fmin(c->depth, epssum);
		k = set->stiffness * sqrt(m_eff) / epssum;
		fn = k * delta;
	} else if (model == MRDEM_FORCE_HERTZ) {
		/* only multiscale guesses get here (mrdem_forces_add_guesses): the
		 * Hertz spring at this overlap, with the volume-equivalent radii
		 * of the two particles standing in for the local curvature (a
		 * plane's or an open mesh's is infinite) */
		double va = s->shapes[p->shape[ia]].mesh.mass.volume;
		double vb = ib == MRDEM_NO_INDEX ? 0 : s->shapes[p->shape[ib]].mesh.mass.volume;
		double ka = va > 0 ? 1.0 / cbrt(0.75 / M_PI * va) : 0.0;
		double kb = vb > 0 ? 1.0 / cbrt(0.75 / M_PI * vb) : 0.0;
		double rstar = 1.0 / (ka + kb);
		delta = c->depth;
		k = 4.0 / 3.0 * set->estar * sqrt(rstar * delta);
		fn = k * delta;
	} else { /* spring-dashpot; and hooke's guesses (its spring alone) */
		delta = c->depth;
		k = set->stiffness;
		fn = fmax(k * delta - set->damping * m_eff * vn, 0.0);
	}
	*energy = 0.5 * k * delta * delta;
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
}

/* Add -F at x and torque -T to plane k (its torque about its point). */
static void apply_plane(struct mrdem_forces *f, const struct mrdem_plane *pl, uint32_t k,
			const double x[3], const double F[3], const double T[3])
{
	double r[3], t[3];
	vec3_sub(&f->plane_force[3 * k], &f->plane_force[3 * k], F);
	vec3_sub(r, x, pl->point);
	vec3_cross(t, r, F);
	vec3_sub(&f->plane_torque[3 * k], &f->plane_torque[3 * k], t);
	if (T)
		vec3_sub(&f->plane_torque[3 * k], &f->plane_torque[3 * k], T);
}

static void reset_planes(struct mrdem_forces *f, uint32_t nplanes)
{
	if (nplanes > f->plane_cap) {
		f->plane_force = mrdem_xrealloc_for(f->plane_force, nplanes,
						    3 * sizeof *f->plane_force, "planes");
		f->plane_torque = mrdem_xrealloc_for(f->plane_torque, nplanes,
						     3 * sizeof *f->plane_torque, "planes");
		f->plane_cap = nplanes;
	}
	f->nplanes = nplanes;
	if (nplanes) {
		memset(f->plane_force, 0, 3 * nplanes * sizeof *f->plane_force);
		memset(f->plane_torque, 0, 3 * nplanes * sizeof *f->plane_torque);
	}
}

/* Add force F at point x to particle ia and its opposite to ib. */
static void apply(struct mrdem_forces *f, const struct mrdem_particles *p, size_t ia, size_t ib,
		  const double x[3], const double F[3])
{
	double r[3], t[3];
	vec3_add(&f->force[3 * ia], &f->force[3 * ia], F);
	vec3_sub(r, x, &p->pos[3 * ia]);
	vec3_cross(t, r, F);
	vec3_add(&f->torque[3 * ia], &f->torque[3 * ia], t);
	if (ib != MRDEM_NO_INDEX) {
		vec3_sub(&f->force[3 * ib], &f->force[3 * ib], F);
		vec3_sub(r, x, &p->pos[3 * ib]);
		vec3_cross(t, r, F);
		vec3_sub(&f->torque[3 * ib], &f->torque[3 * ib], t);
	}
}


int mrdem_forces_compute(struct mrdem_forces *f, const struct mrdem_scene *s,
			 const struct mrdem_bodies *b, const struct mrdem_id_index *ix,
			 const struct mrdem_contacts *c, double dt)
{
	const struct mrdem_particles *p = &s->frame.p;
	size_t n = p->n, nc = c ? c->n : 0;
	reserve(f, n, nc);
	f->active = f->plane_active = 0;
	f->nguess = 0;
	f->contact_energy = f->max_overlap = 0;
	reset_planes(f, s->setup.nplanes);

	for (size_t i = 0; i < n; i++) {
		vec3_scale(&f->force[3 * i], s->setup.gravity, b->b[i].mass);
		vec3_set(&f->torque[3 * i], 0, 0, 0);
	}
	for (size_t k = 0; k < nc; k++)
		if (resolve(&f->ia[k], &f->ib[k], s, ix, &c->c[k], k, 1))
			return -1;

	/* Each contact's (or patch's) force is independent: compute them in
	 * parallel into per-contact slots, then sum serially in record order. */
	f->history.n = 0;
	if (MRDEM_FORCE_MODEL_HAS_PATCHES(s->setup.force_model)) {
		mrdem_patch_forces(f, s, b, c, dt);
	} else {
		MRDEM_FOR_PARALLEL_IF(MRDEM_PARALLEL_MIN_RECORDS, k, nc,
			contact_force(&f->cf[3 * k], &f->ce[k], s, b, f->ia[k], f->ib[k], &c->c[k]);
			vec3_set(&f->ct[3 * k], 0, 0, 0););
	}

	for (size_t k = 0; k < nc; k++) {
		const struct mrdem_contact *ck = &c->c[k];
		const double *F = &f->cf[3 * k];
		if (!vec3_isfinite(F) || !isfinite(f->ce[k])) {
			char name[128];
			return mrdem_error("%s: non-finite contact force",
					   contact_name(name, sizeof name, k, ck));
		}
		const double *T = &f->ct[3 * k];
		if (F[0] == 0 && F[1] == 0 && F[2] == 0 && f->ce[k] == 0 && !vec3_norm2(T))
			continue;
		f->active++;
		f->plane_active += f->ib[k] == MRDEM_NO_INDEX;
		f->contact_energy += f->ce[k];
		double epssum = ck->depth + ck->dist;
		if (epssum > 0)
			f->max_overlap = fmax(f->max_overlap, ck->depth / epssum);
		apply(f, p, f->ia[k], f->ib[k], ck->x, F);
		vec3_add(&f->torque[3 * f->ia[k]], &f->torque[3 * f->ia[k]], T);
		if (f->ib[k] != MRDEM_NO_INDEX)
			vec3_sub(&f->torque[3 * f->ib[k]], &f->torque[3 * f->ib[k]], T);
		else
			apply_plane(f, &s->setup.planes[mrdem_plane_index(ck->b)],
				    mrdem_plane_index(ck->b), ck->x, F, T);
	}
	return 0;
}

int mrdem_forces_of_frame(struct mrdem_forces *f, struct mrdem_bodies *b,
			  struct mrdem_id_index *ix, const struct mrdem_scene *s,
			  const struct mrdem_contacts *c)
{
	if (mrdem_bodies_compute(b, s) || mrdem_id_index_build(ix, &s->frame.p))
		return -1;
	/* a synchronised Verlet frame: the step applies the forces at the
	 * half-step velocities it keeps */
	size_t n = s->frame.p.n;
	double *half = mrdem_xmalloc_array(6 * n + 1, sizeof *half);
	struct mrdem_scene view = *s;
	int rc = mrdem_frame_half_step_velocities(&s->frame, half, half + 3 * n);
	if (rc > 0) {
		view.frame.p.vel = half;
		view.frame.p.angvel = half + 3 * n;
	}
	rc = rc < 0 ? -1 : mrdem_forces_compute(f, &view, b, ix, c, s->setup.dt);
	free(half);
	return rc;
}

int mrdem_forces_add_guesses(struct mrdem_forces *f, const struct mrdem_scene *s,
			     const struct mrdem_bodies *b, const struct mrdem_id_index *ix,
			     const struct mrdem_contacts *g, double damping)
{
	const struct mrdem_particles *p = &s->frame.p;
	size_t ng = g ? g->n : 0;
	if (ng > f->gcap) {
		f->gia = mrdem_xrealloc(f->gia, ng * sizeof *f->gia);
		f->gib = mrdem_xrealloc(f->gib, ng * sizeof *f->gib);
		f->gcf = mrdem_xrealloc(f->gcf, 3 * ng * sizeof *f->gcf);
		f->gcap = ng;
	}
	f->nguess = ng;
	for (size_t k = 0; k < ng; k++) {
		const struct mrdem_contact *ck = &g->c[k];
		double energy, *F = &f->gcf[3 * k];
		if (resolve(&f->gia[k], &f->gib[k], s, ix, ck, k, 0))
			return -1;
		contact_force(F, &energy, s, b, f->gia[k], f->gib[k], ck);
		vec3_scale(F, F, damping);
		if (!vec3_isfinite(F)) {
			char name[128];
			return mrdem_error("%s (a surrogate guess): non-finite contact force",
					   contact_name(name, sizeof name, k, ck));
		}
		apply(f, p, f->gia[k], f->gib[k], ck->x, F);
		if (f->gib[k] == MRDEM_NO_INDEX)
			apply_plane(f, &s->setup.planes[mrdem_plane_index(ck->b)],
				    mrdem_plane_index(ck->b), ck->x, F, NULL);
	}
	return 0;
}
