#include "common/narrow/analytic/convex_track.h"

#include <math.h>
#include <string.h>

#include "common/geom/point_triangle.h"
#include "common/geom/vec3.h"
#include "common/narrow/tri/tri_distance_ref.h"
#include "common/shape/gjk.h"

#define NONE UINT32_MAX

/* One side of the pair: its features, and x mapping its frame into a's
 * (NULL for a itself). */
struct side {
	const struct mrdem_convex *c;
	const struct mrdem_xform *x;
};

static void side_point(const struct side *s, const double *p, double o[3])
{
	if (s->x)
		xform_apply_d(s->x, p, o);
	else
		vec3_copy(o, p);
}

static void side_dir(const struct side *s, const double *d, double o[3])
{
	if (s->x)
		mat3_apply(o, s->x->r, d);
	else
		vec3_copy(o, d);
}

static void side_vertex(const struct side *s, uint32_t v, double o[3])
{
	side_point(s, &s->c->v[3 * (size_t)v], o);
}

/* Boundary edge k of face f, counter-clockwise: its ends and inward
 * normal, in a's frame. */
static void face_edge(const struct side *s, uint32_t f, uint32_t k, double u[3], double w[3],
		      double g[3])
{
	const struct mrdem_convex *c = s->c;
	uint32_t e = c->fe[k], a = mrdem_convex_edge_start(c, e, f);
	side_vertex(s, a, u);
	side_vertex(s, c->e[2 * (size_t)e] == a ? c->e[2 * (size_t)e + 1] : c->e[2 * (size_t)e], w);
	if (g)
		side_dir(s, mrdem_convex_edge_inward(c, e, f), g);
}

/* Closest point of face f to p. */
static double point_face(const struct side *s, uint32_t f, const double p[3], double q[3])
{
	const struct mrdem_convex *c = s->c;
	double u[3], w[3], g[3], d[3], n[3];
	int inside = 1;
	for (uint32_t k = c->fe_first[f]; k < c->fe_first[f + 1] && inside; k++) {
		face_edge(s, f, k, u, w, g);
		vec3_sub(d, p, u);
		inside = vec3_dot(d, g) >= 0;
	}
	if (inside) {
		side_dir(s, &c->fp[4 * (size_t)f], n);
		face_edge(s, f, c->fe_first[f], u, w, NULL);
		vec3_sub(d, p, u);
		vec3_axpy(q, p, -vec3_dot(d, n), n);
		return vec3_dist(p, q);
	}
	double best = INFINITY, qq[3];
	for (uint32_t k = c->fe_first[f]; k < c->fe_first[f + 1]; k++) {
		face_edge(s, f, k, u, w, NULL);
		double dd = mrdem_point_segment(p, u, w, qq);
		if (dd < best)
			best = dd, vec3_copy(q, qq);
	}
	return best;
}

/* Closest points of segment [p0, p1] (ps on it) and face f (pf on it);
 * 0 where the segment crosses the face. */
static double segment_face(const struct side *s, uint32_t f, const double p0[3],
			   const double p1[3], double ps[3], double pf[3])
{
	const struct mrdem_convex *c = s->c;
	double n[3], u[3], w[3], g[3], d0[3], d1[3], q[3], a[3], b[3];
	side_dir(s, &c->fp[4 * (size_t)f], n);
	face_edge(s, f, c->fe_first[f], u, w, NULL);
	vec3_sub(d0, p0, u);
	vec3_sub(d1, p1, u);
	double s0 = vec3_dot(d0, n), s1 = vec3_dot(d1, n);
	if ((s0 < 0 && s1 > 0) || (s0 > 0 && s1 < 0)) {
		double x[3], dx[3];
		vec3_sub(dx, p1, p0);
		vec3_axpy(x, p0, s0 / (s0 - s1), dx);
		int inside = 1;
		for (uint32_t k = c->fe_first[f]; k < c->fe_first[f + 1] && inside; k++) {
			face_edge(s, f, k, u, w, g);
			vec3_sub(d0, x, u);
			inside = vec3_dot(d0, g) >= 0;
		}
		if (inside) {
			vec3_copy(ps, x);
			vec3_copy(pf, x);
			return 0;
		}
	}
	double best = point_face(s, f, p0, pf);
	vec3_copy(ps, p0);
	double dd = point_face(s, f, p1, q);
	if (dd < best)
		best = dd, vec3_copy(ps, p1), vec3_copy(pf, q);
	for (uint32_t k = c->fe_first[f]; k < c->fe_first[f + 1]; k++) {
		face_edge(s, f, k, u, w, NULL);
		dd = mrdem_segment_segment(p0, p1, u, w, a, b);
		if (dd < best)
			best = dd, vec3_copy(ps, a), vec3_copy(pf, b);
	}
	return best;
}

/* A feature in a's frame: a vertex or an edge as one or two points. */
struct feature {
	const struct side *s;
	int type;
	uint32_t i;
	double p[2][3];
};

static void feature_set(struct feature *ft, const struct side *s, int type, uint32_t i)
{
	ft->s = s, ft->type = type, ft->i = i;
	if (type == MRDEM_FEAT_VERTEX)
		side_vertex(s, i, ft->p[0]);
	else if (type == MRDEM_FEAT_EDGE) {
		side_vertex(s, s->c->e[2 * (size_t)i], ft->p[0]);
		side_vertex(s, s->c->e[2 * (size_t)i + 1], ft->p[1]);
	}
}

/* Closest points of features x (px) and y (py), dim x <= dim y. */
static double closest_ordered(const struct feature *x, const struct feature *y, double px[3],
			      double py[3])
{
	switch (3 * x->type + y->type) {
	case 3 * MRDEM_FEAT_VERTEX + MRDEM_FEAT_VERTEX:
		vec3_copy(px, x->p[0]);
		vec3_copy(py, y->p[0]);
		return vec3_dist(px, py);
	case 3 * MRDEM_FEAT_VERTEX + MRDEM_FEAT_EDGE:
		vec3_copy(px, x->p[0]);
		return mrdem_point_segment(px, y->p[0], y->p[1], py);
	case 3 * MRDEM_FEAT_VERTEX + MRDEM_FEAT_FACE:
		vec3_copy(px, x->p[0]);
		return point_face(y->s, y->i, px, py);
	case 3 * MRDEM_FEAT_EDGE + MRDEM_FEAT_EDGE:
		return mrdem_segment_segment(x->p[0], x->p[1], y->p[0], y->p[1], px, py);
	case 3 * MRDEM_FEAT_EDGE + MRDEM_FEAT_FACE:
		return segment_face(y->s, y->i, x->p[0], x->p[1], px, py);
	default: { /* two faces: each one's boundary edges against the other */
		const struct mrdem_convex *cx = x->s->c, *cy = y->s->c;
		double best = INFINITY, u[3], w[3], a[3], b[3];
		for (uint32_t k = cx->fe_first[x->i]; k < cx->fe_first[x->i + 1]; k++) {
			face_edge(x->s, x->i, k, u, w, NULL);
			double d = segment_face(y->s, y->i, u, w, a, b);
			if (d < best)
				best = d, vec3_copy(px, a), vec3_copy(py, b);
		}
		for (uint32_t k = cy->fe_first[y->i]; k < cy->fe_first[y->i + 1]; k++) {
			face_edge(y->s, y->i, k, u, w, NULL);
			double d = segment_face(x->s, x->i, u, w, b, a);
			if (d < best)
				best = d, vec3_copy(px, a), vec3_copy(py, b);
		}
		return best;
	}
	}
}

static double closest(const struct feature *fa, const struct feature *fb, double pa[3],
		      double pb[3])
{
	if (fa->type <= fb->type)
		return closest_ordered(fa, fb, pa, pb);
	return closest_ordered(fb, fa, pb, pa);
}

/* Whether point x (in c's own frame) lies in the Voronoi region of
 * feature (*type, *idx) of c: 0 when it does, 1 when the feature moved to
 * the neighbour across the most violated plane, -1 when x lies below
 * every face plane (inside c). */
static int check_region(const struct mrdem_convex *c, uint8_t *type, uint32_t *idx,
			const double x[3])
{
	double tol = c->tol, best = tol, d[3];
	uint32_t i = *idx, to = NONE;
	uint8_t to_type = 0;
	switch (*type) {
	case MRDEM_FEAT_VERTEX:
		vec3_sub(d, x, &c->v[3 * (size_t)i]);
		for (uint32_t k = c->ve_first[i]; k < c->ve_first[i + 1]; k++) {
			uint32_t e = c->ve[k];
			double s = vec3_dot(d, &c->ed[4 * (size_t)e]);
			if (c->e[2 * (size_t)e] != i)
				s = -s;
			if (s > best)
				best = s, to = e, to_type = MRDEM_FEAT_EDGE;
		}
		break;
	case MRDEM_FEAT_EDGE: {
		const double *ed = &c->ed[4 * (size_t)i], *eg = &c->eg[6 * (size_t)i];
		vec3_sub(d, x, &c->v[3 * (size_t)c->e[2 * (size_t)i]]);
		double t = vec3_dot(d, ed);
		double v[4] = {-t, t - ed[3], vec3_dot(d, eg), vec3_dot(d, eg + 3)};
		for (int k = 0; k < 4; k++)
			if (v[k] > best) {
				best = v[k];
				to_type = k < 2 ? MRDEM_FEAT_VERTEX : MRDEM_FEAT_FACE;
				to = k < 2 ? c->e[2 * (size_t)i + k] : c->ef[2 * (size_t)i + k - 2];
			}
		break;
	}
	default: {
		for (uint32_t k = c->fe_first[i]; k < c->fe_first[i + 1]; k++) {
			uint32_t e = c->fe[k];
			vec3_sub(d, x, &c->v[3 * (size_t)mrdem_convex_edge_start(c, e, i)]);
			double s = -vec3_dot(d, mrdem_convex_edge_inward(c, e, i));
			if (s > best)
				best = s, to = e, to_type = MRDEM_FEAT_EDGE;
		}
		if (to != NONE)
			break;
		const double *fp = &c->fp[4 * (size_t)i];
		if (vec3_dot(fp, x) - fp[3] >= -tol)
			break;
		/* below the face: a face it lies above, or inside */
		best = tol;
		for (uint32_t f = 0; f < c->nf; f++) {
			double h = vec3_dot(&c->fp[4 * (size_t)f], x) - c->fp[4 * (size_t)f + 3];
			if (h > best)
				best = h, to = f, to_type = MRDEM_FEAT_FACE;
		}
		if (to == NONE)
			return -1;
	}
	}
	if (to == NONE)
		return 0;
	*type = to_type;
	*idx = to;
	return 1;
}

void mrdem_convex_counts_add(struct mrdem_convex_counts *into,
			     const struct mrdem_convex_counts *c)
{
	into->pairs += c->pairs;
	into->apart += c->apart;
	into->steps += c->steps;
	into->fallbacks += c->fallbacks;
}

void mrdem_convex_counts_stats(const struct mrdem_convex_counts *c, struct mrdem_stats *out)
{
	if (!c->pairs)
		return;
	mrdem_stats_add(out, "convex_pairs", (double)c->pairs);
	mrdem_stats_add(out, "convex_apart", (double)c->apart);
}

/* ---- GJK on the vertex sets */

static void support(const void *set, const double dir[3], double out[3])
{
	const struct side *s = set;
	double d[3];
	if (s->x)
		mat3_apply_transpose(d, s->x->r, dir);
	else
		vec3_copy(d, dir);
	uint32_t best = 0;
	double bd = -INFINITY;
	for (uint32_t v = 0; v < s->c->nv; v++) {
		double h = vec3_dot(&s->c->v[3 * (size_t)v], d);
		if (h > bd)
			bd = h, best = v;
	}
	side_vertex(s, best, out);
}

static void run_gjk(const struct side *a, const struct side *b, struct mrdem_convex_result *r)
{
	struct mrdem_gjk_result g;
	mrdem_gjk_distance(a, support, b, support, 1e-12 * (a->c->radius + b->c->radius), &g);
	r->dist = g.dist;
	r->intersect = g.intersect;
	vec3_copy(r->pa, g.pa);
	vec3_copy(r->pb, g.pb);
	r->fallback = 1;
}

void mrdem_convex_gjk(const struct mrdem_convex *a, const struct mrdem_convex *b,
		      const struct mrdem_xform *x, struct mrdem_convex_result *r)
{
	struct side sa = {a, NULL}, sb = {b, x};
	memset(r, 0, sizeof *r);
	run_gjk(&sa, &sb, r);
}

/* ---- the walk */

/* Cold start: the vertex of a furthest towards b's centre and the vertex
 * of b furthest towards a's. */
static void cold_start(const struct side *sa, const struct side *sb,
		       struct mrdem_feature_pair *fp)
{
	double cb[3], dir[3], back[3];
	side_point(sb, sb->c->centre, cb);
	vec3_sub(dir, cb, sa->c->centre);
	vec3_scale(back, dir, -1);
	uint32_t va = 0, vb = 0;
	double ba = -INFINITY, bb = -INFINITY;
	for (uint32_t v = 0; v < sa->c->nv; v++) {
		double h = vec3_dot(&sa->c->v[3 * (size_t)v], dir);
		if (h > ba)
			ba = h, va = v;
	}
	double db[3];
	mat3_apply_transpose(db, sb->x->r, back);
	for (uint32_t v = 0; v < sb->c->nv; v++) {
		double h = vec3_dot(&sb->c->v[3 * (size_t)v], db);
		if (h > bb)
			bb = h, vb = v;
	}
	*fp = (struct mrdem_feature_pair){MRDEM_FEAT_VERTEX, MRDEM_FEAT_VERTEX, 1, va, vb};
}

void mrdem_convex_distance(const struct mrdem_convex *a, const struct mrdem_convex *b,
			   const struct mrdem_xform *x, struct mrdem_feature_pair *fp,
			   struct mrdem_convex_result *r)
{
	struct side sa = {a, NULL}, sb = {b, x};
	memset(r, 0, sizeof *r);
	if (!fp->valid)
		cold_start(&sa, &sb, fp);
	int limit = 64 + (int)(a->nv + b->nv);
	double touch = a->tol + b->tol;
	for (;;) {
		if (r->steps++ >= limit)
			break;
		struct feature fa, fb;
		feature_set(&fa, &sa, fp->ta, fp->ia);
		feature_set(&fb, &sb, fp->tb, fp->ib);
		double d = closest(&fa, &fb, r->pa, r->pb);
		if (!(d > touch)) { /* two features touch: the shapes do */
			r->dist = 0;
			r->intersect = 1;
			return;
		}
		int m = check_region(a, &fp->ta, &fp->ia, r->pb);
		if (m > 0)
			continue;
		if (m == 0) {
			double pa_b[3], rel[3];
			vec3_sub(rel, r->pa, x->t);
			mat3_apply_transpose(pa_b, x->r, rel);
			m = check_region(b, &fp->tb, &fp->ib, pa_b);
			if (m > 0)
				continue;
		}
		r->dist = 0;
		r->intersect = m < 0; /* a point of one inside the other */
		if (!r->intersect)
			r->dist = d;
		return;
	}
	fp->valid = 0;
	run_gjk(&sa, &sb, r);
}
