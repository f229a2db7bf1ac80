#include "common/narrow/analytic/analytic_contacts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/point_triangle.h"
#include "common/geom/quat.h"
#include "common/geom/vec3.h"
#include "common/shape/ellipsoid.h"
#include "common/shape/gjk.h"
#include "common/tree/tree.h"
#include "common/util/error.h"

#define NO_TRI UINT32_MAX

void mrdem_analytic_counts_add(struct mrdem_analytic_counts *into,
			       const struct mrdem_analytic_counts *c)
{
	into->pairs += c->pairs;
	into->separation_tests += c->separation_tests;
	into->separated += c->separated;
	into->optimisations += c->optimisations;
	into->newton_steps += c->newton_steps;
	into->unconverged += c->unconverged;
	into->triangle_tests += c->triangle_tests;
	into->nodes += c->nodes;
}

void mrdem_analytic_counts_stats(const struct mrdem_analytic_counts *c, struct mrdem_stats *out)
{
	if (!c->pairs)
		return;
	mrdem_stats_add(out, "analytic_pairs", (double)c->pairs);
	mrdem_stats_add(out, "analytic_separation_tests", (double)c->separation_tests);
	mrdem_stats_add(out, "analytic_separated", (double)c->separated);
	mrdem_stats_add(out, "analytic_optimisations", (double)c->optimisations);
	mrdem_stats_add(out, "analytic_newton_steps", (double)c->newton_steps);
	mrdem_stats_add(out, "analytic_unconverged", (double)c->unconverged);
	mrdem_stats_add(out, "analytic_triangle_tests", (double)c->triangle_tests);
	mrdem_stats_add(out, "analytic_tree_nodes", (double)c->nodes);
}

/* One analytic shape against one triangle: closest points in the mesh's frame. */
struct tri_hit {
	uint32_t tri;
	double pa[3], pb[3]; /* on the analytic shape, on the triangle */
	double n[3];         /* unit, from the triangle towards the analytic shape */
	double dist;         /* signed */
};

struct mrdem_analytic_scratch {
	struct tri_hit *hits;
	size_t n, cap;
	uint32_t *stack;
	size_t stack_cap;
};

struct mrdem_analytic_scratch *mrdem_analytic_scratch_new(void)
{
	return mrdem_xcalloc(1, sizeof(struct mrdem_analytic_scratch));
}

void mrdem_analytic_scratch_free(struct mrdem_analytic_scratch *w)
{
	if (!w)
		return;
	free(w->hits);
	free(w->stack);
	free(w);
}

/* Append a contact between particles ia (a) and ib (b): pa on a, n unit
 * from b to a, d the signed distance; the point is the centre of the
 * halos' overlap along n (the rule of particle_contacts.c). */
static void push_contact(const struct mrdem_particles *p, size_t ia, size_t ib, uint32_t ta,
			 uint32_t tb, const double pa[3], const double n[3], double d, double ea,
			 double eb, struct mrdem_contacts *out)
{
	struct mrdem_contact *c = mrdem_contacts_push(out);
	c->a = p->id[ia];
	c->b = p->id[ib];
	c->tri_a = ta;
	c->tri_b = tb;
	vec3_axpy(c->x, pa, -0.5 * (d + ea - eb), n);
	vec3_copy(c->normal, n);
	c->dist = d;
	c->depth = ea + eb - d;
}

static void ellipsoid_of(const struct mrdem_scene *s, size_t i, struct mrdem_ellipsoid *e)
{
	const struct mrdem_particles *p = &s->frame.p;
	double r[9];
	quat_to_matrix(&p->quat[4 * i], r);
	mrdem_ellipsoid_set(e, &p->pos[3 * i], r, s->shapes[p->shape[i]].axes);
}

/* ---- analytic against analytic */

static void sphere_sphere(const struct mrdem_scene *s, size_t ia, size_t ib,
			  struct mrdem_contacts *out)
{
	const struct mrdem_particles *p = &s->frame.p;
	double ra = s->shapes[p->shape[ia]].axes[0], rb = s->shapes[p->shape[ib]].axes[0];
	double ea = p->eps[ia], eb = p->eps[ib], n[3], pa[3];
	vec3_sub(n, &p->pos[3 * ia], &p->pos[3 * ib]);
	double len = vec3_norm(n), d = len - ra - rb;
	if (d > ea + eb)
		return;
	if (len > 0)
		vec3_scale(n, n, 1 / len);
	else
		vec3_set(n, 0, 0, 1); /* concentric: any direction is as good */
	vec3_axpy(pa, &p->pos[3 * ia], -ra, n);
	push_contact(p, ia, ib, NO_TRI, NO_TRI, pa, n, d, ea, eb, out);
}

/* Any pair of ellipsoids (a sphere is one): the separation test first,
 * the optimisation only for pairs it cannot call apart (Pazouki et al.). */
static void ellipsoid_ellipsoid(const struct mrdem_scene *s, size_t ia, size_t ib,
				struct mrdem_contacts *out, struct mrdem_analytic_counts *cnt)
{
	const struct mrdem_particles *p = &s->frame.p;
	struct mrdem_ellipsoid A, B;
	double ea = p->eps[ia], eb = p->eps[ib];
	ellipsoid_of(s, ia, &A);
	ellipsoid_of(s, ib, &B);
	cnt->separation_tests++;
	if (mrdem_ellipsoids_apart(&A, &B, ea + eb)) {
		cnt->separated++;
		return;
	}
	struct mrdem_ellipsoid_pair r;
	cnt->optimisations++;
	if (mrdem_ellipsoids_distance(&A, &B, NULL, &r))
		cnt->unconverged++;
	cnt->newton_steps += (uint64_t)r.iterations;
	if (r.dist > ea + eb)
		return;
	double n[3];
	vec3_scale(n, r.n, -1); /* from b to a */
	push_contact(p, ia, ib, NO_TRI, NO_TRI, r.pa, n, r.dist, ea, eb, out);
}

/* ---- analytic against a mesh, in the mesh's frame */

struct analytic_in_mesh {
	int kind;
	double radius;               /* sphere; bounding radius of an ellipsoid */
	struct mrdem_ellipsoid e;    /* centre and axes in the mesh's frame */
	double reach;                /* bounding radius + both halos */
};

static void face_normal(const double *v0, const double *v1, const double *v2, double n[3])
{
	double e1[3], e2[3];
	vec3_sub(e1, v1, v0);
	vec3_sub(e2, v2, v0);
	vec3_cross(n, e1, e2);
	vec3_normalize(n);
}

/* The analytic shape against mesh triangle t: a hit when within the halos. */
static void test_triangle(struct mrdem_analytic_scratch *w, const struct analytic_in_mesh *an,
			  const struct mrdem_mesh *m, uint32_t t, double halos,
			  struct mrdem_analytic_counts *cnt)
{
	const double *v0 = &m->verts[3 * m->tris[3 * t]], *v1 = &m->verts[3 * m->tris[3 * t + 1]],
		     *v2 = &m->verts[3 * m->tris[3 * t + 2]];
	double q[3];
	double dc = mrdem_point_triangle(an->e.c, v0, v1, v2, q);
	if (dc > an->reach)
		return;
	cnt->triangle_tests++;
	struct tri_hit h = {.tri = t};
	if (an->kind == MRDEM_SHAPE_SPHERE) {
		h.dist = dc - an->radius;
		if (h.dist > halos)
			return;
		if (dc > 1e-12 * an->radius)
			vec3_scale(h.n, (double[3]){an->e.c[0] - q[0], an->e.c[1] - q[1],
						    an->e.c[2] - q[2]}, 1 / dc);
		else
			face_normal(v0, v1, v2, h.n);
		vec3_axpy(h.pa, an->e.c, -an->radius, h.n);
		vec3_copy(h.pb, q);
	} else {
		double tri[9];
		memcpy(tri, v0, 3 * sizeof(double));
		memcpy(tri + 3, v1, 3 * sizeof(double));
		memcpy(tri + 6, v2, 3 * sizeof(double));
		struct mrdem_gjk_result g;
		mrdem_gjk_distance(&an->e, mrdem_ellipsoid_support, tri, mrdem_support_triangle,
				   1e-12 * (an->radius + halos), &g);
		if (g.dist > halos)
			return;
		h.dist = g.dist;
		if (!g.intersect && g.dist > 0) {
			vec3_sub(h.n, g.pa, g.pb);
			vec3_scale(h.n, h.n, 1 / g.dist);
		} else {
			/* crossing: the triangle's outward normal and distance 0,
			 * as for crossing mesh triangles */
			face_normal(v0, v1, v2, h.n);
			h.dist = 0;
		}
		vec3_copy(h.pa, g.pa);
		vec3_copy(h.pb, g.pb);
	}
	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 64;
		w->hits = mrdem_xrealloc_for(w->hits, w->cap, sizeof *w->hits, "triangle hits");
	}
	w->hits[w->n++] = h;
}

/* Triangles of the mesh within reach, by the surrogate tree: a node whose
 * halo (eps + the particles') cannot reach the shape's bounding sphere
 * holds no triangle that can (Definition 4.3). */
static void tree_candidates(struct mrdem_analytic_scratch *w, const struct analytic_in_mesh *an,
			    const struct mrdem_mesh *m, const struct mrdem_tree *t, double halos,
			    struct mrdem_analytic_counts *cnt)
{
	size_t top = 0;
	if (w->stack_cap < 64) {
		w->stack_cap = 64;
		w->stack = mrdem_xrealloc(w->stack, w->stack_cap * sizeof *w->stack);
	}
	w->stack[top++] = 0;
	double reach = an->radius + halos;
	while (top) {
		uint32_t n = w->stack[--top];
		cnt->nodes++;
		const float *sp = &t->node_sphere[4 * (size_t)n];
		double cs[3] = {sp[0], sp[1], sp[2]};
		if (vec3_dist(cs, an->e.c) > sp[3] + reach)
			continue;
		const float *f = &t->tri[9 * (size_t)n];
		double v[9];
		for (int k = 0; k < 9; k++)
			v[k] = f[k];
		if (mrdem_point_triangle(an->e.c, v, v + 3, v + 6, NULL) > reach + t->eps[n])
			continue;
		if (!t->child_count[n]) {
			for (uint32_t i = 0; i < t->tri_count[n]; i++)
				test_triangle(w, an, m, t->perm[t->tri_first[n] + i], halos, cnt);
			continue;
		}
		if (top + t->child_count[n] > w->stack_cap) {
			w->stack_cap = 2 * (top + t->child_count[n]);
			w->stack = mrdem_xrealloc(w->stack, w->stack_cap * sizeof *w->stack);
		}
		for (uint32_t c = 0; c < t->child_count[n]; c++)
			w->stack[top++] = t->child_first[n] + c;
	}
}

static int hit_order(const void *x, const void *y)
{
	const struct tri_hit *a = x, *b = y;
	return a->tri < b->tri ? -1 : a->tri > b->tri;
}

/* Analytic particle ian against mesh particle im; the contacts keep the
 * pair's order (a = ia of the caller): an_is_a says which one it was. */
static void analytic_mesh(struct mrdem_analytic_scratch *w, const struct mrdem_scene *s,
			  size_t ian, size_t im, int an_is_a, int use_tree,
			  struct mrdem_contacts *out, struct mrdem_analytic_counts *cnt)
{
	const struct mrdem_particles *p = &s->frame.p;
	const struct mrdem_shape *sa = &s->shapes[p->shape[ian]], *sm = &s->shapes[p->shape[im]];
	const struct mrdem_mesh *m = &sm->mesh;
	double rm[9], ran[9], rel[3], c[3], r[9];
	quat_to_matrix(&p->quat[4 * im], rm);
	quat_to_matrix(&p->quat[4 * ian], ran);
	/* mesh frame: x_m = Rm^T (x_w - pos_m) + com_m; rotation Rm^T Ran */
	vec3_sub(rel, &p->pos[3 * ian], &p->pos[3 * im]);
	mat3_apply_transpose(c, rm, rel);
	vec3_add(c, c, m->mass.com);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			r[3 * i + j] = rm[i] * ran[j] + rm[3 + i] * ran[3 + j] + rm[6 + i] * ran[6 + j];
	struct analytic_in_mesh an = {.kind = sa->kind};
	mrdem_ellipsoid_set(&an.e, c, r, sa->axes);
	an.radius = mrdem_analytic_bound_radius(sa->axes);
	double e_an = p->eps[ian], e_m = p->eps[im], halos = e_an + e_m;
	an.reach = an.radius + halos;
	w->n = 0;
	if (use_tree && sm->tree)
		tree_candidates(w, &an, m, sm->tree, halos, cnt);
	else
		for (uint32_t t = 0; t < m->ntris; t++)
			test_triangle(w, &an, m, t, halos, cnt);
	if (w->n > 1) /* hits is NULL until the first */
		qsort(w->hits, w->n, sizeof *w->hits, hit_order);
	for (size_t k = 0; k < w->n; k++) {
		const struct tri_hit *h = &w->hits[k];
		double pa_w[3], pb_w[3], n_w[3], tmp[3];
		vec3_sub(tmp, h->pa, m->mass.com);
		mat3_apply(pa_w, rm, tmp);
		vec3_add(pa_w, pa_w, &p->pos[3 * im]);
		vec3_sub(tmp, h->pb, m->mass.com);
		mat3_apply(pb_w, rm, tmp);
		vec3_add(pb_w, pb_w, &p->pos[3 * im]);
		mat3_apply(n_w, rm, h->n);
		if (an_is_a) {
			push_contact(p, ian, im, NO_TRI, h->tri, pa_w, n_w, h->dist, e_an, e_m, out);
		} else {
			vec3_scale(n_w, n_w, -1);
			push_contact(p, im, ian, h->tri, NO_TRI, pb_w, n_w, h->dist, e_m, e_an, out);
		}
	}
}

/* ---- the dispatch of analytic pairs, by the two kinds */

enum { ANALYTIC_SPHERE_SPHERE = 1, ANALYTIC_ELLIPSOIDS, ANALYTIC_MESH, MESH_ANALYTIC };
static const unsigned char pair_kernel[MRDEM_SHAPE_NKINDS][MRDEM_SHAPE_NKINDS] = {
	[MRDEM_SHAPE_MESH][MRDEM_SHAPE_SPHERE] = MESH_ANALYTIC,
	[MRDEM_SHAPE_MESH][MRDEM_SHAPE_ELLIPSOID] = MESH_ANALYTIC,
	[MRDEM_SHAPE_SPHERE][MRDEM_SHAPE_MESH] = ANALYTIC_MESH,
	[MRDEM_SHAPE_SPHERE][MRDEM_SHAPE_SPHERE] = ANALYTIC_SPHERE_SPHERE,
	[MRDEM_SHAPE_SPHERE][MRDEM_SHAPE_ELLIPSOID] = ANALYTIC_ELLIPSOIDS,
	[MRDEM_SHAPE_ELLIPSOID][MRDEM_SHAPE_MESH] = ANALYTIC_MESH,
	[MRDEM_SHAPE_ELLIPSOID][MRDEM_SHAPE_SPHERE] = ANALYTIC_ELLIPSOIDS,
	[MRDEM_SHAPE_ELLIPSOID][MRDEM_SHAPE_ELLIPSOID] = ANALYTIC_ELLIPSOIDS,
};

void mrdem_analytic_pair(struct mrdem_analytic_scratch *w, const struct mrdem_scene *s, size_t ia,
			 size_t ib, int use_tree, struct mrdem_contacts *out,
			 struct mrdem_analytic_counts *cnt)
{
	const struct mrdem_particles *p = &s->frame.p;
	int ka = s->shapes[p->shape[ia]].kind, kb = s->shapes[p->shape[ib]].kind;
	cnt->pairs++;
	switch (pair_kernel[ka][kb]) {
	case ANALYTIC_SPHERE_SPHERE:
		sphere_sphere(s, ia, ib, out);
		break;
	case ANALYTIC_ELLIPSOIDS:
		ellipsoid_ellipsoid(s, ia, ib, out, cnt);
		break;
	case ANALYTIC_MESH:
		analytic_mesh(w, s, ia, ib, 1, use_tree, out, cnt);
		break;
	case MESH_ANALYTIC:
		analytic_mesh(w, s, ib, ia, 0, use_tree, out, cnt);
		break;
	}
}

void mrdem_analytic_plane(const struct mrdem_scene *s, size_t ia, uint32_t k,
			  struct mrdem_contacts *out)
{
	const struct mrdem_particles *p = &s->frame.p;
	const struct mrdem_plane *pl = &s->setup.planes[k];
	struct mrdem_ellipsoid e;
	double x[3], ea = p->eps[ia], ep = s->setup.plane_epsilon;
	ellipsoid_of(s, ia, &e);
	double d = mrdem_ellipsoid_plane(&e, pl->point, pl->normal, x);
	if (d > ea + ep)
		return;
	struct mrdem_contact *c = mrdem_contacts_push(out);
	c->a = p->id[ia];
	c->b = MRDEM_PLANE_ID(k);
	c->tri_a = c->tri_b = NO_TRI;
	vec3_axpy(c->x, x, -0.5 * (d + ea - ep), pl->normal);
	vec3_copy(c->normal, pl->normal);
	c->dist = d;
	c->depth = ea + ep - d;
}
