/* A particle pair's triangle hits as contacts (paper Sec. 2;
 * docs/narrow-phase.md): a hit's point is the centre of the halos'
 * overlap on the segment between its two closest points, in the world
 * frame. Shared by the merges (merge.h); inline, as they run once
 * per hit in their inner loops. */
#ifndef MRDEM_NARROW_HIT_FRAME_H
#define MRDEM_NARROW_HIT_FRAME_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "common/geom/vec3.h"
#include "common/geom/xform.h"
#include "common/narrow/tri/tri_batch.h"
#include "common/scene/contacts.h"
#include "common/scene/scene.h"
#include "common/tree/tree.h"

/* Where triangle hits of particles ia, ib (b mapped into a's frame by
 * x_b) become world-frame contacts. soup_b is b's soup in its own frame:
 * the face normal of touching triangles maps the one triangle it needs,
 * so the normal never depends on which of b's triangles a search happened
 * to map (an iterative hit can have coincident points at a distance > 0).
 * With trees (multiscale guesses) the hits are node pairs: halos and
 * triangles are the nodes'. */
struct mrdem_hit_frame {
	const struct mrdem_particles *p;
	size_t ia, ib;
	const double *com_a; /* a's centre of mass in its mesh frame */
	double ra[9];        /* a's rotation */
	const struct mrdem_xform *x_b;
	const float *soup_b;
	const struct mrdem_tree *node_a, *node_b;
};

void mrdem_hit_frame_init(struct mrdem_hit_frame *f, const struct mrdem_scene *s, size_t ia,
			  size_t ib, const struct mrdem_xform *x_b, const float *soup_b,
			  const struct mrdem_tree *node_a, const struct mrdem_tree *node_b);

/* No group (a group index, a chain's end). */
#define MRDEM_MERGE_NONE UINT32_MAX

/* Outward unit normal of a float triangle, in double. */
static inline void mrdem_face_normal(const float *t, double n[3])
{
	double e1[3], e2[3];
	for (int k = 0; k < 3; k++) {
		e1[k] = (double)t[3 + k] - t[k];
		e2[k] = (double)t[6 + k] - t[k];
	}
	vec3_cross(n, e1, e2);
	vec3_normalize(n);
}

/* Hit h's contact point xw (world frame), normal n (a's frame) and halos. */
static inline void mrdem_hit_point(const struct mrdem_hit_frame *f, const struct mrdem_tri_hit *h,
				   double xw[3], double n[3], double *ea, double *eb)
{
	*ea = f->p->eps[f->ia] + (f->node_a ? f->node_a->eps[h->ta] : 0);
	*eb = f->p->eps[f->ib] + (f->node_b ? f->node_b->eps[h->tb] : 0);
	double pa[3] = {h->pa[0], h->pa[1], h->pa[2]}, pb[3] = {h->pb[0], h->pb[1], h->pb[2]};
	double x[3], d, rel[3];
	vec3_sub(n, pa, pb);
	d = vec3_norm(n);
	if (d > 0) {
		vec3_scale(n, n, 1.0 / d);
		/* Centre of the halos' overlap along the shortest segment
		 * (the midpoint when both halos are equal, Sec. 2). */
		vec3_axpy(x, pa, -0.5 * (d + *ea - *eb), n);
	} else {
		/* Touching or crossing triangles: b's outward normal, and the
		 * same overlap centre at d = 0, so the point moves continuously
		 * as d reaches 0 (no torque jump), as the plane rule does. */
		float tb[9];
		xform_apply_tris(f->x_b, &f->soup_b[9 * (size_t)h->tb], tb, 1);
		mrdem_face_normal(tb, n);
		vec3_axpy(x, pa, 0.5 * (*eb - *ea), n);
	}
	vec3_sub(rel, x, f->com_a);
	mat3_apply(xw, f->ra, rel);
	vec3_add(xw, xw, &f->p->pos[3 * f->ia]);
}

/* Whether the world point x is finite (a seed's is compared by world
 * points where it is not). */
static inline int mrdem_point_finite(const double x[3])
{
	return isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]);
}

/* Hit h as a contact appended to out. */
static inline void mrdem_hit_contact(const struct mrdem_hit_frame *f, const struct mrdem_tri_hit *h,
				     struct mrdem_contacts *out)
{
	struct mrdem_contact *c = mrdem_contacts_push(out);
	double n[3], ea, eb;
	mrdem_hit_point(f, h, c->x, n, &ea, &eb);
	c->a = f->p->id[f->ia];
	c->b = f->p->id[f->ib];
	c->tri_a = h->ta;
	c->tri_b = h->tb;
	mat3_apply(c->normal, f->ra, n);
	c->dist = h->dist;
	c->depth = ea + eb - (double)h->dist;
}

/* The merge radius and the band around it where the midpoints of two hits
 * (a's frame) do not settle whether their world points lie within it: a
 * hit's contact point lies within |ea - eb| / 2 of its midpoint
 * (mrdem_hit_point) and the world frame only moves points rigidly, so the
 * band is the halos' difference plus far more than the rounding of
 * coordinates of the scale of the positions, halos, radius and the
 * largest point coordinate. */
struct mrdem_merge_radii {
	double r2;       /* radius squared: world points within it merge */
	double rin, in2; /* midpoints closer than rin merge (in2: -1 where rin <= 0) */
	double rout, out2; /* midpoints farther than rout do not */
};

/* The radii for the particles' halos (no tree nodes); big: the largest
 * point coordinate of the pair's hits. */
static inline struct mrdem_merge_radii mrdem_merge_radii(const struct mrdem_hit_frame *f,
							 double radius, float big)
{
	const double ea = f->p->eps[f->ia], eb = f->p->eps[f->ib];
	double scale = fabs(ea) + fabs(eb) + radius;
	for (int c = 0; c < 3; c++)
		scale += fabs(f->com_a[c]) + fabs(f->p->pos[3 * f->ia + c]);
	double band = fabs(ea - eb) + 1e-10 * (scale + big);
	struct mrdem_merge_radii r;
	r.r2 = radius * radius;
	r.rin = radius - band;
	r.rout = radius + band;
	/* NaN anywhere leaves a group near and not inside: world points decide */
	r.in2 = r.rin > 0 ? r.rin * r.rin : -1;
	r.out2 = r.rout * r.rout;
	return r;
}

#endif
