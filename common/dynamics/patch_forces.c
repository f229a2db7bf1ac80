#include "common/dynamics/patch_forces.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/dynamics/contact_law.h"
#include "common/shape/analytic.h"
#include "common/geom/point_triangle.h"
#include "common/geom/quat.h"
#include "common/geom/vec3.h"
#include "common/util/error.h"
#include "common/util/threads.h"

/* A record's weight in its patch is (depth / deepest)^PATCH_SHARPNESS: it
 * is 0 where a record enters or leaves the halo, so a patch's point,
 * normal and depth move continuously, and it leans towards the deepest
 * part, so a tilted flat face is pushed back where it sinks in. */
#define PATCH_SHARPNESS 2

/* Two records are in one patch when their points are at most
 * PATCH_LINK longest edges (of the two shapes) plus the halos apart:
 * points of one contact area are never further apart than a triangle or
 * two. */
#define PATCH_LINK 1.5

/* ---- the smooth surfaces */

/* One particle's pose: rotation and the translation of shape coordinates. */
struct pose {
	double r[9];
	const double *pos, *com;
};

static void pose_of(struct pose *q, const struct mrdem_scene *s, size_t i)
{
	const struct mrdem_particles *p = &s->frame.p;
	quat_to_matrix(&p->quat[4 * i], q->r);
	q->pos = &p->pos[3 * i];
	q->com = s->shapes[p->shape[i]].mesh.mass.com;
}

static void to_world(double o[3], const struct pose *q, const double v[3])
{
	double rel[3];
	vec3_sub(rel, v, q->com);
	mat3_apply(o, q->r, rel);
	vec3_add(o, o, q->pos);
}

static void triangle_world(double t[3][3], const struct pose *q, const struct mrdem_mesh *m,
			   uint32_t tri)
{
	for (int k = 0; k < 3; k++)
		to_world(t[k], q, &m->verts[3 * (size_t)m->tris[3 * (size_t)tri + k]]);
}

/* One side of a contact record as the patch models see it: the sphere
 * standing for it (a smooth triangle's, or an analytic sphere), its
 * triangle (a mesh's other triangles), or nothing smooth to measure (an
 * ellipsoid, whose kernel is exact already). */
enum side_kind { SIDE_SPHERE, SIDE_TRIANGLE, SIDE_EXACT };

struct side {
	enum side_kind kind;
	double c[3], r;       /* sphere: world centre and radius */
	/* a smooth triangle's sphere stands for the surface where its outward
	 * direction is within the cone of cosine cap about axis (world) */
	double axis[3], cap;
	double t[3][3];       /* triangle: world corners */
	unsigned flat;        /* triangle: its flat-edge bits (mesh_smooth.h) */
};

static void side_of(struct side *sd, const struct mrdem_forces *f, const struct mrdem_scene *s,
		    size_t i, const struct pose *q, uint32_t tri)
{
	const struct mrdem_shape *sh = &s->shapes[s->frame.p.shape[i]];
	const struct mrdem_mesh_smooth *g = &f->smooth[s->frame.p.shape[i]];
	if (sh->kind == MRDEM_SHAPE_SPHERE) {
		sd->kind = SIDE_SPHERE;
		sd->r = sh->axes[0];
		sd->cap = -INFINITY;
		vec3_copy(sd->c, &s->frame.p.pos[3 * i]);
		return;
	}
	if (sh->kind != MRDEM_SHAPE_MESH || tri >= g->ntris) {
		sd->kind = SIDE_EXACT;
		return;
	}
	sd->flat = mrdem_mesh_smooth_flat_edges(g, tri);
	triangle_world(sd->t, q, &sh->mesh, tri);
	sd->r = mrdem_mesh_smooth_radius(g, tri, s->frame.p.eps[i]);
	sd->kind = sd->r > 0 ? SIDE_SPHERE : SIDE_TRIANGLE;
	if (sd->kind == SIDE_SPHERE) {
		to_world(sd->c, q, &g->centre[3 * (size_t)tri]);
		mat3_apply(sd->axis, q->r, &g->normal[3 * (size_t)tri]);
		sd->cap = g->cap[tri];
	}
}

/* Whether sphere side sd stands for the surface in outward direction u. */
static int within_cap(const struct side *sd, const double u[3])
{
	return sd->cap == -INFINITY || vec3_dot(u, sd->axis) >= sd->cap;
}

/* The point q of the face that triangle sd is part of nearest to p: p's
 * foot on its plane where that lies beyond edges across which the face
 * goes on flat, else the triangle's own nearest point. A sphere over the
 * edge between two triangles of a plane mesh thus meets the plane along
 * its normal, not the edge along a tilted one, whichever of the two
 * triangles its record names (merging keeps one). */
static void nearest_on_face(const double p[3], const struct side *sd, double q[3])
{
	const double(*t)[3] = sd->t;
	double e1[3], e2[3], n[3];
	vec3_sub(e1, t[1], t[0]);
	vec3_sub(e2, t[2], t[0]);
	vec3_cross(n, e1, e2);
	double n2 = vec3_norm2(n);
	if (sd->flat && n2 > 0) {
		double w[3], f[3];
		vec3_sub(w, p, t[0]);
		vec3_axpy(f, p, -vec3_dot(w, n) / n2, n);
		int beyond = 0, flat = 1;
		for (int k = 0; k < 3; k++) {
			double a[3], b[3], c[3];
			vec3_sub(a, t[(k + 1) % 3], t[k]);
			vec3_sub(b, f, t[k]);
			vec3_cross(c, a, b);
			if (vec3_dot(c, n) < 0) {
				beyond = 1;
				flat &= sd->flat >> k & 1u;
			}
		}
		if (beyond && flat) {
			vec3_copy(q, f);
			return;
		}
	}
	mrdem_point_triangle(p, t[0], t[1], t[2], q);
}

/* A contact record measured between the smooth surfaces of its sides
 * (sphere to sphere, sphere to triangle or plane; as recorded when
 * neither side has a sphere, or one is exact already): distance d, unit
 * normal n from b towards a, and the point x in the middle of the halos'
 * overlap on it, as the narrow phase places points. */
struct smooth_record {
	double d, n[3], x[3];
	/* a sphere against a triangle: which sphere (its side and triangle,
	 * 2 tri + side), else UINT64_MAX */
	uint64_t sphere;
};

/* The record between sides a and b (b NULL: plane pl) on their smooth
 * surfaces into *out: MEASURED, also when neither side has a sphere (out
 * keeps the record's own values), or which sphere side's contact falls
 * outside the cone it stands for. */
enum measured { MEASURED, OUTSIDE_A, OUTSIDE_B };
static enum measured measure(struct smooth_record *out, const struct side *a,
			     const struct side *b, const struct mrdem_plane *pl,
			     const struct mrdem_contact *c, double ea, double eb)
{
	if (a->kind == SIDE_EXACT || (b && b->kind == SIDE_EXACT) ||
	    (a->kind != SIDE_SPHERE && (!b || b->kind != SIDE_SPHERE)))
		return MEASURED;
	double pa[3], v[3], d, out_a[3];
	uint64_t sphere = UINT64_MAX;
	if (!b) { /* sphere of a and plane */
		double w[3];
		vec3_sub(w, a->c, pl->point);
		d = vec3_dot(w, pl->normal) - a->r;
		vec3_copy(v, pl->normal);
		vec3_axpy(pa, a->c, -a->r, v);
	} else if (a->kind == SIDE_SPHERE) { /* sphere of a, sphere or triangle of b */
		double q[3], rb = 0;
		if (b->kind == SIDE_SPHERE) {
			vec3_copy(q, b->c), rb = b->r;
		} else {
			nearest_on_face(a->c, b, q);
			sphere = 2 * (uint64_t)c->tri_a;
		}
		vec3_sub(v, a->c, q);
		if (!(vec3_normalize(v) > 0))
			return MEASURED;
		d = vec3_dist(a->c, q) - a->r - rb;
		vec3_axpy(pa, a->c, -a->r, v);
		if (b->kind == SIDE_SPHERE && !within_cap(b, v))
			return OUTSIDE_B;
	} else { /* triangle of a, sphere of b */
		nearest_on_face(b->c, a, pa);
		sphere = 2 * (uint64_t)c->tri_b + 1;
		vec3_sub(v, pa, b->c);
		if (!(vec3_normalize(v) > 0))
			return MEASURED;
		d = vec3_dist(pa, b->c) - b->r;
		if (!within_cap(b, v))
			return OUTSIDE_B;
	}
	vec3_scale(out_a, v, -1);
	if (a->kind == SIDE_SPHERE && !within_cap(a, out_a))
		return OUTSIDE_A;
	out->d = d;
	out->sphere = sphere;
	vec3_copy(out->n, v);
	vec3_axpy(out->x, pa, -0.5 * (d + ea - eb), v);
	return MEASURED;
}

/* qa, qb: the poses of particles ia and ib (qb unused for a plane). A
 * sphere whose contact falls outside its cone gives way to its triangle. */
static void smooth_record(struct smooth_record *out, const struct mrdem_forces *f,
			  const struct mrdem_scene *s, const struct mrdem_contact *c, size_t ia,
			  size_t ib, const struct pose *qa, const struct pose *qb)
{
	const struct mrdem_particles *p = &s->frame.p;
	out->d = c->dist;
	vec3_copy(out->n, c->normal);
	vec3_copy(out->x, c->x);
	out->sphere = UINT64_MAX;
	struct side a, b;
	int plane = ib == MRDEM_NO_INDEX;
	side_of(&a, f, s, ia, qa, c->tri_a);
	if (!plane)
		side_of(&b, f, s, ib, qb, c->tri_b);
	const struct mrdem_plane *pl = plane ? &s->setup.planes[mrdem_plane_index(c->b)] : NULL;
	double eb = plane ? s->setup.plane_epsilon : p->eps[ib];
	/* at most both sides give way, then the triangles' record stands */
	for (int tries = 0; tries < 3; tries++) {
		enum measured m = measure(out, &a, plane ? NULL : &b, pl, c, p->eps[ia], eb);
		if (m == MEASURED)
			return;
		(m == OUTSIDE_A ? &a : &b)->kind = SIDE_TRIANGLE;
	}
}

/* ---- patches */

struct pair_key {
	uint64_t a, b;
	size_t k;
};

static int cmp_pair_key(const void *x, const void *y)
{
	const struct pair_key *p = x, *q = y;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	return p->k < q->k ? -1 : p->k > q->k;
}

static size_t uf_find(size_t *parent, size_t i)
{
	while (parent[i] != i)
		i = parent[i] = parent[parent[i]];
	return i;
}

/* Records sorted along x: only records close in x can link. */
struct by_x {
	double x;
	size_t i;
};

static int cmp_by_x(const void *p, const void *q)
{
	const struct by_x *a = p, *b = q;
	return a->x < b->x ? -1 : a->x > b->x ? 1 : (a->i > b->i) - (a->i < b->i);
}

/* The records of one pair (keys[0..n), in record order) into patches:
 * the groups their `link` relation connects, ordered by first record,
 * members in record order, appended to f's patch lists. parent, slot
 * and byx are scratch of n entries. */
static void group_pair(struct mrdem_forces *f, const struct mrdem_contacts *c,
		       const struct pair_key *keys, size_t n, double link, size_t *parent,
		       size_t *slot, struct by_x *byx)
{
	for (size_t i = 0; i < n; i++) {
		parent[i] = i;
		byx[i] = (struct by_x){c->c[keys[i].k].x[0], i};
	}
	qsort(byx, n, sizeof *byx, cmp_by_x);
	double l2 = link * link;
	for (size_t i = 0; i < n; i++) {
		const double *xi = c->c[keys[byx[i].i].k].x;
		for (size_t j = i + 1; j < n && byx[j].x - byx[i].x <= link; j++)
			if (vec3_dist2(xi, c->c[keys[byx[j].i].k].x) <= l2) {
				size_t ri = uf_find(parent, byx[i].i), rj = uf_find(parent, byx[j].i);
				if (ri != rj) /* the smaller index is the root */
					parent[ri > rj ? ri : rj] = ri < rj ? ri : rj;
			}
	}
	/* A patch's root is its first record (roots come before their
	 * members): number the patches, count their records, then place
	 * them in record order. */
	size_t first = f->npatch;
	for (size_t i = 0; i < n; i++) {
		size_t r = uf_find(parent, i);
		if (r == i)
			f->pfirst[++f->npatch] = 0;
		slot[i] = r == i ? f->npatch - 1 : slot[r];
		f->pfirst[slot[i] + 1]++;
	}
	for (size_t k = first; k < f->npatch; k++)
		f->pfirst[k + 1] += f->pfirst[k];
	size_t *fill = parent; /* the patches are numbered: reuse as cursors */
	for (size_t k = first; k < f->npatch; k++)
		fill[k - first] = f->pfirst[k];
	for (size_t i = 0; i < n; i++)
		f->pmember[fill[slot[i] - first]++] = keys[i].k;
}

static double link_distance(const struct mrdem_forces *f, const struct mrdem_scene *s,
			    const struct mrdem_contact *c, size_t ia, size_t ib)
{
	const struct mrdem_particles *p = &s->frame.p;
	double edge = f->smooth[p->shape[ia]].max_edge;
	if (ib != MRDEM_NO_INDEX)
		edge = fmax(edge, f->smooth[p->shape[ib]].max_edge);
	return PATCH_LINK * edge + c->depth + c->dist;
}

/* All contacts into patches (f->pfirst, f->pmember, f->npatch), sorted
 * by particle ids, so the list does not depend on the record order. */
static void group_patches(struct mrdem_forces *f, const struct mrdem_scene *s,
			  const struct mrdem_contacts *c)
{
	size_t nc = c->n;
	struct pair_key *keys = mrdem_xmalloc_array(nc ? nc : 1, sizeof *keys);
	size_t *scratch = mrdem_xmalloc_array(2 * nc + 1, sizeof *scratch);
	struct by_x *byx = mrdem_xmalloc_array(nc ? nc : 1, sizeof *byx);
	for (size_t k = 0; k < nc; k++)
		keys[k] = (struct pair_key){c->c[k].a, c->c[k].b, k};
	qsort(keys, nc, sizeof *keys, cmp_pair_key);
	f->npatch = 0;
	f->pfirst[0] = 0;
	for (size_t i = 0; i < nc;) {
		size_t j = i + 1;
		while (j < nc && keys[j].a == keys[i].a && keys[j].b == keys[i].b)
			j++;
		size_t k = keys[i].k;
		group_pair(f, c, keys + i, j - i, link_distance(f, s, &c->c[k], f->ia[k], f->ib[k]),
			   scratch, scratch + nc, byx);
		i = j;
	}
	free(keys);
	free(scratch);
	free(byx);
}

/* ---- springs */

/* The springs of particles a, b in history h: [*lo, *hi). */
static void springs_of(const struct mrdem_history *h, uint64_t a, uint64_t b, size_t *lo,
		       size_t *hi)
{
	size_t l = 0, r = h->n;
	while (l < r) {
		size_t m = l + (r - l) / 2;
		if (h->s[m].a < a || (h->s[m].a == a && h->s[m].b < b))
			l = m + 1;
		else
			r = m;
	}
	*lo = *hi = l;
	while (*hi < h->n && h->s[*hi].a == a && h->s[*hi].b == b)
		(*hi)++;
}

/* Which spring of the last step each patch continues: per pair, in patch
 * order, the nearest unused one whose anchor (a point of a's body) is
 * within twice the link distance of the patch's point. */
static void match_springs(struct mrdem_forces *f, const struct mrdem_scene *s,
			  const struct mrdem_contacts *c, const double *point,
			  const struct mrdem_spring **old)
{
	const struct mrdem_history *h = &s->frame.history;
	const struct mrdem_particles *p = &s->frame.p;
	if (h->n > f->ucap) {
		f->used = mrdem_xrealloc(f->used, h->n);
		f->ucap = h->n;
	}
	if (h->n)
		memset(f->used, 0, h->n);
	for (size_t k = 0; k < f->npatch; k++) {
		old[k] = NULL;
		size_t first = f->pmember[f->pfirst[k]], ia = f->ia[first], lo, hi;
		const struct mrdem_contact *c0 = &c->c[first];
		springs_of(h, c0->a, c0->b, &lo, &hi);
		if (lo == hi || !isfinite(point[3 * k]))
			continue;
		struct pose q;
		pose_of(&q, s, ia);
		double best = INFINITY;
		size_t pick = hi;
		for (size_t i = lo; i < hi; i++) {
			if (f->used[i])
				continue;
			double xw[3];
			mat3_apply(xw, q.r, h->s[i].anchor);
			vec3_add(xw, xw, &p->pos[3 * ia]);
			double d = vec3_dist(xw, &point[3 * k]);
			if (d < best)
				best = d, pick = i;
		}
		if (pick < hi && best <= 2 * link_distance(f, s, c0, ia, f->ib[first])) {
			f->used[pick] = 1;
			old[k] = &h->s[pick];
		}
	}
}

/* ---- forces */

/* What one patch reduces to: depth, point, normal, and its records'
 * weights (the smooth records in f's scratch). */
struct patch {
	double delta, x[3], n[3];
	size_t deep; /* the deepest record */
};

/* A sphere meets the other side's surface at its closest point there:
 * where it is recorded against several triangles of that side (a ball on
 * a plane mesh, over the edge between two of its triangles), the records
 * but the nearest measure to the edge of a triangle that is not the
 * closest, along a tilted normal that pushed the ball sideways and fed it
 * energy. They are set apart (d = +inf, no weight); ties keep
 * the first. */
static void drop_dominated(struct smooth_record *sm, size_t m)
{
	for (size_t i = 0; i < m; i++) {
		if (sm[i].sphere == UINT64_MAX)
			continue;
		for (size_t j = 0; j < m; j++)
			if (j != i && sm[j].sphere == sm[i].sphere &&
			    (sm[j].d < sm[i].d || (sm[j].d == sm[i].d && j < i))) {
				sm[i].d = INFINITY;
				break;
			}
	}
}

/* Patch k's records on the smooth surfaces (into sm[] by member slot) and
 * their reduction; delta 0 when no record overlaps. */
static void reduce_patch(struct patch *pt, struct smooth_record *sm, const struct mrdem_forces *f,
			 const struct mrdem_scene *s, const struct mrdem_contacts *c, size_t k)
{
	const size_t *mem = &f->pmember[f->pfirst[k]];
	size_t m = f->pfirst[k + 1] - f->pfirst[k];
	memset(pt, 0, sizeof *pt);
	pt->x[0] = NAN;
	pt->deep = mem[0];
	/* every record of a patch is of the same two particles */
	size_t ia = f->ia[mem[0]], ib = f->ib[mem[0]];
	struct pose qa, qb;
	pose_of(&qa, s, ia);
	if (ib != MRDEM_NO_INDEX)
		pose_of(&qb, s, ib);
	double epssum = c->c[mem[0]].depth + c->c[mem[0]].dist, dmax = 0, exact = 0;
	for (size_t i = 0; i < m; i++) {
		smooth_record(&sm[i], f, s, &c->c[mem[i]], ia, ib, &qa, &qb);
		exact = fmax(exact, epssum - c->c[mem[i]].dist);
	}
	drop_dominated(sm, m);
	for (size_t i = 0; i < m; i++)
		if (epssum - sm[i].d > dmax)
			dmax = epssum - sm[i].d, pt->deep = mem[i];
	if (!(dmax > 0))
		return;
	double x[3] = {0, 0, 0}, n[3] = {0, 0, 0}, W = 0;
	for (size_t i = 0; i < m; i++) {
		double d = epssum - sm[i].d;
		double w = d > 0 ? pow(d / dmax, PATCH_SHARPNESS) : 0.0;
		W += w;
		vec3_axpy(x, x, w, sm[i].x);
		vec3_axpy(n, n, w, sm[i].n);
	}
	if (!(vec3_normalize(n) > 0))
		return;
	/* never deeper than the records themselves: the smooth spheres lie
	 * inside the mesh, and a sphere that does not (a fit the tests of
	 * mesh_smooth.c let through) must not add energy */
	pt->delta = fmin(dmax, exact);
	vec3_scale(pt->x, x, 1.0 / W);
	vec3_copy(pt->n, n);
}

/* Curvature of particle i's surface where the contact normal n (world)
 * meets it: a mesh's at triangle tri (mesh_smooth.h); an analytic
 * sphere's 1/r; an ellipsoid's Gaussian curvature sqrt(K) at the point
 * of normal n, h^2 / (a b c) with h^2 = a^2 n1^2 + b^2 n2^2 + c^2 n3^2 in its
 * axes (a sphere's 1/a again). */
static double curvature(const struct mrdem_forces *f, const struct mrdem_scene *s, size_t i,
			uint32_t tri, const double n[3])
{
	const struct mrdem_shape *sh = &s->shapes[s->frame.p.shape[i]];
	if (sh->kind == MRDEM_SHAPE_MESH)
		return mrdem_mesh_smooth_curvature(&f->smooth[s->frame.p.shape[i]], tri);
	double r[9], nb[3], h2 = 0;
	quat_to_matrix(&s->frame.p.quat[4 * i], r);
	mat3_apply_transpose(nb, r, n);
	for (int k = 0; k < 3; k++)
		h2 += sh->axes[k] * sh->axes[k] * nb[k] * nb[k];
	return h2 / (sh->axes[0] * sh->axes[1] * sh->axes[2]);
}

/* The law at patch k, its force and torque on its deepest record, and
 * the springs it leaves in *out. */
static void patch_force(struct mrdem_forces *f, const struct mrdem_scene *s,
			const struct mrdem_bodies *bodies, const struct mrdem_contacts *c, size_t k,
			const struct patch *pt, double dt,
			const struct mrdem_spring *old, struct mrdem_spring *out)
{
	const struct mrdem_particles *p = &s->frame.p;
	const size_t *mem = &f->pmember[f->pfirst[k]];
	size_t m = f->pfirst[k + 1] - f->pfirst[k], ia = f->ia[mem[0]], ib = f->ib[mem[0]];
	memset(out, 0, sizeof *out);
	out->a = c->c[mem[0]].a;
	out->b = c->c[mem[0]].b;
	for (size_t i = 0; i < m; i++) {
		vec3_set(&f->cf[3 * mem[i]], 0, 0, 0);
		vec3_set(&f->ct[3 * mem[i]], 0, 0, 0);
		f->ce[mem[i]] = 0;
	}
	double inv_a = bodies->b[ia].inv_mass;
	double inv_b = ib == MRDEM_NO_INDEX ? 0.0 : bodies->b[ib].inv_mass;
	if (inv_a + inv_b == 0 || !(pt->delta > 0))
		return;

	struct mrdem_patch_contact pc = {.delta = pt->delta, .m_eff = 1.0 / (inv_a + inv_b),
					 .dt = dt};
	vec3_copy(pc.n, pt->n);
	double va[3], vb[3];
	mrdem_point_velocity(va, p, ia, pt->x);
	mrdem_side_velocity(vb, s, ib, out->b, pt->x);
	vec3_sub(pc.v, va, vb);
	vec3_copy(pc.w, &p->angvel[3 * ia]);
	vec3_sub(pc.w, pc.w, ib != MRDEM_NO_INDEX ? &p->angvel[3 * ib] :
		 s->setup.planes[mrdem_plane_index(out->b)].angvel);
	/* R* from the curvatures at the deepest record, capped by the
	 * particles' size where the faces are flat */
	const struct mrdem_contact *cd = &c->c[pt->deep];
	double kappa = curvature(f, s, ia, cd->tri_a, pt->n);
	double cap = f->smooth[p->shape[ia]].cap_radius;
	if (ib != MRDEM_NO_INDEX) {
		kappa += curvature(f, s, ib, cd->tri_b, pt->n);
		cap = fmin(cap, f->smooth[p->shape[ib]].cap_radius);
	}
	pc.r_eff = kappa * cap > 1 ? 1.0 / kappa : cap;
	if (old) {
		vec3_copy(pc.shear, old->shear);
		vec3_copy(pc.roll, old->roll);
		pc.twist = old->twist;
	}
	struct mrdem_pair_law own;
	const struct mrdem_pair_law *law =
		mrdem_pair_law_of(&s->setup, p, ia, ib, mrdem_plane_index(out->b), &own);
	mrdem_patch_law(s->setup.force_model, law, &pc);

	/* The deepest record carries the patch's force; the torque of it at
	 * the patch point instead of the record's point is the difference. */
	const struct mrdem_contact *deep = &c->c[pt->deep];
	double arm[3], t[3];
	vec3_copy(&f->cf[3 * pt->deep], pc.F);
	vec3_sub(arm, pt->x, deep->x);
	vec3_cross(t, arm, pc.F);
	vec3_add(&f->ct[3 * pt->deep], pc.T, t);
	f->ce[pt->deep] = pc.energy;
	/* the springs go on with the patch, anchored on a's body */
	double r[9], rel[3];
	quat_to_matrix(&p->quat[4 * ia], r);
	vec3_sub(rel, pt->x, &p->pos[3 * ia]);
	mat3_apply_transpose(out->anchor, r, rel);
	vec3_copy(out->shear, pc.shear);
	vec3_copy(out->roll, pc.roll);
	out->twist = pc.twist;
}

static void update_smooth(struct mrdem_forces *f, const struct mrdem_scene *s)
{
	if (f->nsmooth < s->nshapes) {
		f->smooth = mrdem_xrealloc(f->smooth, s->nshapes * sizeof *f->smooth);
		for (uint32_t i = f->nsmooth; i < s->nshapes; i++)
			mrdem_mesh_smooth_init(&f->smooth[i]);
		f->nsmooth = s->nshapes;
	}
	/* a shape's spheres are fitted for the thinnest halo it is used with */
	double *eps = mrdem_xmalloc_array(s->nshapes + 1, sizeof *eps);
	for (uint32_t i = 0; i < s->nshapes; i++)
		eps[i] = INFINITY;
	const struct mrdem_particles *p = &s->frame.p;
	for (size_t i = 0; i < p->n; i++)
		eps[p->shape[i]] = fmin(eps[p->shape[i]], p->eps[i]);
	for (uint32_t i = 0; i < s->nshapes; i++)
		if (isfinite(eps[i]))
			mrdem_mesh_smooth_update(&f->smooth[i], &s->shapes[i].mesh, eps[i]);
	free(eps);
}

void mrdem_patch_forces(struct mrdem_forces *f, const struct mrdem_scene *s,
			const struct mrdem_bodies *b, const struct mrdem_contacts *c, double dt)
{
	f->npatch = 0;
	if (!c || !c->n)
		return;
	update_smooth(f, s);
	group_patches(f, s, c);
	size_t np = f->npatch, nc = c->n;
	struct patch *pt = mrdem_xmalloc_array(np + 1, sizeof *pt);
	struct smooth_record *sm = mrdem_xmalloc_array(nc + 1, sizeof *sm);
	double *point = mrdem_xmalloc_array(3 * np + 1, sizeof *point);
	const struct mrdem_spring **old = mrdem_xmalloc_array(np + 1, sizeof *old);
#pragma omp parallel for schedule(static) if (np > MRDEM_PARALLEL_MIN)
	for (size_t k = 0; k < np; k++) {
		reduce_patch(&pt[k], &sm[f->pfirst[k]], f, s, c, k);
		vec3_copy(&point[3 * k], pt[k].x);
	}
	match_springs(f, s, c, point, old);
#pragma omp parallel for schedule(static) if (np > MRDEM_PARALLEL_MIN)
	for (size_t k = 0; k < np; k++)
		patch_force(f, s, b, c, k, &pt[k], dt, old[k], &f->pspring[k]);
	for (size_t k = 0; k < np; k++) {
		const struct mrdem_spring *sp = &f->pspring[k];
		if (vec3_norm2(sp->shear) > 0 || vec3_norm2(sp->roll) > 0 || sp->twist != 0)
			*mrdem_history_push(&f->history) = *sp;
	}
	free(pt);
	free(sm);
	free(point);
	free(old);
}
