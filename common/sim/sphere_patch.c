#include "common/sim/sphere_patch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/dynamics/contact_law.h"
#include "common/dynamics/forces.h"
#include "common/geom/quat.h"
#include "common/geom/vec3.h"
#include "common/util/error.h"

/* A pair's contact record (analytic_contacts.c: point x, distance,
 * depth) and the same contact measured on the smooth surfaces as
 * patch_forces.c's measure() does (point mx, normal mn, distance md). */
struct record {
	double x[3], dist, depth;
	double mx[3], mn[3], md;
};

/* Two spheres: sphere_sphere() and push_contact(). measure() repeats
 * their arithmetic for two spheres (normal scaled by one over the same
 * length, the same distance), so its values are the record's bits. */
static int sphere_record(struct record *r, const struct mrdem_sphere_patch *c, size_t ia,
			 size_t ib, double ea, double eb)
{
	const double *xa = &c->s->frame.p.pos[3 * ia], *xb = &c->s->frame.p.pos[3 * ib];
	double ra = c->radius[ia], rb = c->radius[ib], n[3], pa[3];
	vec3_sub(n, xa, xb);
	double n2 = vec3_norm2(n), reach = ra + rb + ea + eb;
	if (n2 > reach * reach * (1 + 1e-12)) /* far beyond rounding: no record */
		return 0;
	double len = sqrt(n2), d = len - ra - rb;
	if (d > ea + eb)
		return 0;
	if (len > 0)
		vec3_scale(n, n, 1 / len);
	else
		vec3_set(n, 0, 0, 1);
	vec3_axpy(pa, xa, -ra, n);
	vec3_axpy(r->x, pa, -0.5 * (d + ea - eb), n);
	r->dist = d;
	r->depth = ea + eb - d;
	vec3_copy(r->mx, r->x);
	vec3_copy(r->mn, n);
	r->md = d;
	return 1;
}

/* A sphere and plane k: measure()'s sphere against a plane. The record
 * (mrdem_analytic_plane, the ellipsoid kernel) is taken to be the same:
 * its distance and point differ from the sphere's closed form in the
 * last bits at most. */
static int plane_record(struct record *r, const struct mrdem_sphere_patch *c, size_t ia,
			uint32_t k, double ea, double ep)
{
	const struct mrdem_plane *pl = &c->s->setup.planes[k];
	const double *xa = &c->s->frame.p.pos[3 * ia];
	double ra = c->radius[ia], w[3], pa[3];
	vec3_sub(w, xa, pl->point);
	double d = vec3_dot(w, pl->normal) - ra;
	if (d > ea + ep)
		return 0;
	vec3_copy(r->mn, pl->normal);
	vec3_axpy(pa, xa, -ra, r->mn);
	vec3_axpy(r->mx, pa, -0.5 * (d + ea - ep), r->mn);
	r->md = d;
	vec3_copy(r->x, r->mx);
	r->dist = d;
	r->depth = ea + ep - d;
	return 1;
}

/* The patch of one record (reduce_patch: one record weighs (d / d)^2 =
 * 1 exactly) into delta; 0 when it does not overlap. Its point and
 * normal are the measured ones (the general path's second normalisation
 * of a unit normal is left out: equal to rounding). */
static int reduce(const struct record *r, double *delta)
{
	double epssum = r->depth + r->dist, exact = fmax(0.0, epssum - r->dist), dmax = 0;
	if (epssum - r->md > dmax)
		dmax = epssum - r->md;
	if (!(dmax > 0))
		return 0;
	*delta = fmin(dmax, exact);
	return 1;
}

/* The law at the patch into pc (patch_force): velocities at x, the
 * frame's springs when their anchor (on a's body) is within twice the
 * link distance (the halos' sum, no mesh edge) of x. */
static void law_at(struct mrdem_patch_contact *pc, const struct mrdem_sphere_patch *c, size_t ia,
		   size_t ib, uint32_t plane, const struct record *r, const double x[3],
		   const struct mrdem_spring *old)
{
	const struct mrdem_scene *s = c->s;
	const struct mrdem_particles *p = &s->frame.p;
	size_t jb = ib == SIZE_MAX ? MRDEM_NO_INDEX : ib;
	double va[3], vb[3];
	mrdem_point_velocity(va, p, ia, x);
	mrdem_side_velocity(vb, s, jb, MRDEM_PLANE_ID(plane), x);
	vec3_sub(pc->v, va, vb);
	vec3_copy(pc->w, &p->angvel[3 * ia]);
	vec3_sub(pc->w, pc->w, ib != SIZE_MAX ? &p->angvel[3 * ib] : s->setup.planes[plane].angvel);
	double xw[3], link = 2 * (r->depth + r->dist);
	mat3_apply(xw, &c->rot[9 * ia], old->anchor);
	vec3_add(xw, xw, &p->pos[3 * ia]);
	vec3_sub(xw, xw, x);
	if (vec3_norm2(xw) <= link * link) {
		vec3_copy(pc->shear, old->shear);
		vec3_copy(pc->roll, old->roll);
		pc->twist = old->twist;
	}
}

/* F at the record's point and T to a, their opposites to b
 * (mrdem_forces_compute's apply, then the extra torque). */
static void add(const struct mrdem_sphere_patch *c, size_t ia, size_t ib, const double x[3],
		const double F[3], const double T[3])
{
	const double *pos = c->s->frame.p.pos;
	double r[3], t[3];
	vec3_add(&c->force[3 * ia], &c->force[3 * ia], F);
	vec3_sub(r, x, &pos[3 * ia]);
	vec3_cross(t, r, F);
	vec3_add(&c->torque[3 * ia], &c->torque[3 * ia], t);
	if (ib != SIZE_MAX) {
		vec3_sub(&c->force[3 * ib], &c->force[3 * ib], F);
		vec3_sub(r, x, &pos[3 * ib]);
		vec3_cross(t, r, F);
		vec3_sub(&c->torque[3 * ib], &c->torque[3 * ib], t);
	}
	vec3_add(&c->torque[3 * ia], &c->torque[3 * ia], T);
	if (ib != SIZE_MAX)
		vec3_sub(&c->torque[3 * ib], &c->torque[3 * ib], T);
}

int mrdem_sphere_patch_force(const struct mrdem_sphere_patch *c, size_t ia, size_t ib,
			     uint32_t plane, const struct mrdem_sphere_pair *pr,
			     const struct mrdem_spring *old, struct mrdem_spring *out)
{
	const struct mrdem_scene *s = c->s;
	const struct mrdem_particles *p = &s->frame.p;
	struct record r;
	double delta, ea = p->eps[ia];
	vec3_set(out->shear, 0, 0, 0);
	vec3_set(out->roll, 0, 0, 0);
	out->twist = 0;
	int found = ib == SIZE_MAX ? plane_record(&r, c, ia, plane, ea, s->setup.plane_epsilon)
				   : sphere_record(&r, c, ia, ib, ea, p->eps[ib]);
	if (!found || pr->m_eff == 0 || !reduce(&r, &delta) || !(delta > 0))
		return 0;
	struct mrdem_patch_contact pc = {.delta = delta, .m_eff = pr->m_eff, .r_eff = pr->r_eff,
					 .dt = s->setup.dt};
	const double *x = r.mx;
	vec3_copy(pc.n, r.mn);
	law_at(&pc, c, ia, ib, plane, &r, x, old);
	mrdem_patch_law_ratio(s->setup.force_model, pr->law, pr->ratio, &pc);
	/* the record carries the patch's force; its torque at the patch's
	 * point instead of the record's is the difference */
	double arm[3], t[3], T[3], rel[3];
	vec3_sub(arm, x, r.x);
	vec3_cross(t, arm, pc.F);
	vec3_add(T, pc.T, t);
	add(c, ia, ib, r.x, pc.F, T);
	vec3_sub(rel, x, &p->pos[3 * ia]);
	mat3_apply_transpose(out->anchor, &c->rot[9 * ia], rel);
	vec3_copy(out->shear, pc.shear);
	vec3_copy(out->roll, pc.roll);
	out->twist = pc.twist;
	return 1;
}

/* ---- the springs per list entry */

void mrdem_sphere_springs_init(struct mrdem_sphere_springs *sp)
{
	memset(sp, 0, sizeof *sp);
}

void mrdem_sphere_springs_release(struct mrdem_sphere_springs *sp)
{
	free(sp->cur);
	free(sp->next);
	free(sp->order);
	mrdem_sphere_springs_init(sp);
}

static int cmp_ids(const void *x, const void *y)
{
	const struct mrdem_spring *p = x, *q = y;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return (p->b > q->b) - (p->b < q->b);
}

/* The first spring of pair (a, b) in h (sorted by ids), or NULL. */
static const struct mrdem_spring *spring_of(const struct mrdem_history *h, uint64_t a, uint64_t b)
{
	struct mrdem_spring key = {.a = a, .b = b};
	size_t l = 0, r = h->n;
	while (l < r) {
		size_t m = l + (r - l) / 2;
		if (cmp_ids(&h->s[m], &key) < 0)
			l = m + 1;
		else
			r = m;
	}
	return l < h->n && !cmp_ids(&h->s[l], &key) ? &h->s[l] : NULL;
}

/* qsort's scratch: a spring's ids and its entry. */
struct keyed {
	struct mrdem_spring ids;
	size_t k;
};

static int cmp_keyed(const void *x, const void *y)
{
	const struct keyed *p = x, *q = y;
	int c = cmp_ids(&p->ids, &q->ids);
	return c ? c : (p->k > q->k) - (p->k < q->k);
}

void mrdem_sphere_springs_load(struct mrdem_sphere_springs *sp, const struct mrdem_history *h,
			       const uint64_t *a, const uint64_t *b, size_t n)
{
	if (n > sp->cap) {
		sp->cur = mrdem_xrealloc_for(sp->cur, n, sizeof *sp->cur, "springs");
		sp->next = mrdem_xrealloc_for(sp->next, n, sizeof *sp->next, "springs");
		sp->order = mrdem_xrealloc_for(sp->order, n, sizeof *sp->order, "springs");
		sp->cap = n;
	}
	sp->n = n;
	struct keyed *key = mrdem_xmalloc_array(n ? n : 1, sizeof *key);
	for (size_t k = 0; k < n; k++) {
		const struct mrdem_spring *old = spring_of(h, a[k], b[k]);
		if (old) {
			sp->cur[k] = *old;
		} else {
			memset(&sp->cur[k], 0, sizeof sp->cur[k]);
			sp->cur[k].a = a[k];
			sp->cur[k].b = b[k];
		}
		memset(&sp->next[k], 0, sizeof sp->next[k]);
		sp->next[k].a = a[k];
		sp->next[k].b = b[k];
		key[k] = (struct keyed){.ids = sp->cur[k], .k = k};
	}
	qsort(key, n, sizeof *key, cmp_keyed);
	for (size_t k = 0; k < n; k++)
		sp->order[k] = key[k].k;
	free(key);
}

void mrdem_sphere_springs_advance(struct mrdem_sphere_springs *sp, struct mrdem_history *h)
{
	struct mrdem_spring *t = sp->cur;
	sp->cur = sp->next;
	sp->next = t;
	h->n = 0;
	if (h->cap < sp->n) { /* room for all: no growth in the loop */
		h->cap = sp->n;
		h->s = mrdem_xrealloc_for(h->s, h->cap, sizeof *h->s, "contact springs");
	}
	for (size_t i = 0; i < sp->n; i++) {
		struct mrdem_spring *q = &sp->cur[sp->order[i]];
		/* the general path keeps the springs that are not all zero */
		if (vec3_norm2(q->shear) > 0 || vec3_norm2(q->roll) > 0 || q->twist != 0) {
			h->s[h->n++] = *q;
		} else {
			uint64_t a = q->a, b = q->b;
			memset(q, 0, sizeof *q);
			q->a = a;
			q->b = b;
		}
	}
}
