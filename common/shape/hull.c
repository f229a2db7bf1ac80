#include "common/shape/hull.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/vec3.h"
#include "common/util/error.h"

#define NONE UINT32_MAX

/* A triangle of the hull under construction; nb[k] is the face across
 * edge (v[k], v[k+1]). outside: first of the points above it (a list
 * through struct hull.next), NONE when empty. */
struct hface {
	uint32_t v[3], nb[3];
	double n[3], d;
	uint32_t outside;
	int alive;
};

struct hull {
	const double *p;
	size_t np;
	double eps;
	struct hface *f;
	size_t nf, cap;
	uint32_t *next;             /* per point: the next of its face's outside list */
	uint32_t *vis, *nvis;       /* per face: stamp when found visible / not visible */
	uint32_t *start, *end;      /* per point: stamp-tagged new face starting / ending there */
	uint32_t *start_stamp, *end_stamp;
	uint32_t stamp;
	uint32_t *stack, *horizon;  /* DFS stack of faces; horizon as (face, edge) pairs */
	size_t stack_cap, hcap;
};

static const double *pt(const struct hull *h, uint32_t i)
{
	return &h->p[3 * (size_t)i];
}

static double above(const struct hull *h, const struct hface *f, uint32_t i)
{
	return vec3_dot(f->n, pt(h, i)) - f->d;
}

static uint32_t add_face(struct hull *h, uint32_t a, uint32_t b, uint32_t c)
{
	if (h->nf == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 64;
		h->f = mrdem_xrealloc(h->f, h->cap * sizeof *h->f);
		h->vis = mrdem_xrealloc(h->vis, h->cap * sizeof *h->vis);
		h->nvis = mrdem_xrealloc(h->nvis, h->cap * sizeof *h->nvis);
	}
	struct hface *f = &h->f[h->nf];
	double e1[3], e2[3];
	f->v[0] = a, f->v[1] = b, f->v[2] = c;
	f->nb[0] = f->nb[1] = f->nb[2] = NONE;
	vec3_sub(e1, pt(h, b), pt(h, a));
	vec3_sub(e2, pt(h, c), pt(h, a));
	vec3_cross(f->n, e1, e2);
	vec3_normalize(f->n);
	f->d = vec3_dot(f->n, pt(h, a));
	f->outside = NONE;
	f->alive = 1;
	h->vis[h->nf] = h->nvis[h->nf] = 0;
	return (uint32_t)h->nf++;
}

/* Point i into the outside list of the first face of faces[0..n) it lies
 * above by more than eps; dropped (inside) otherwise. */
static void assign(struct hull *h, uint32_t i, const uint32_t *faces, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		struct hface *f = &h->f[faces[k]];
		if (above(h, f, i) > h->eps) {
			h->next[i] = f->outside;
			f->outside = i;
			return;
		}
	}
}

static int initial_simplex(struct hull *h, const char *what, uint32_t out[4])
{
	uint32_t ext[6] = {0, 0, 0, 0, 0, 0};
	out[0] = out[1] = out[2] = out[3] = 0;
	for (size_t i = 1; i < h->np; i++)
		for (int k = 0; k < 3; k++) {
			if (pt(h, (uint32_t)i)[k] < pt(h, ext[2 * k])[k])
				ext[2 * k] = (uint32_t)i;
			if (pt(h, (uint32_t)i)[k] > pt(h, ext[2 * k + 1])[k])
				ext[2 * k + 1] = (uint32_t)i;
		}
	double best = -1;
	for (int a = 0; a < 6; a++)
		for (int b = a + 1; b < 6; b++) {
			double d = vec3_dist(pt(h, ext[a]), pt(h, ext[b]));
			if (d > best)
				best = d, out[0] = ext[a], out[1] = ext[b];
		}
	if (!(best > h->eps))
		return mrdem_error("%s: all points coincide (no convex hull)", what);
	double u[3], w[3], c[3];
	vec3_sub(u, pt(h, out[1]), pt(h, out[0]));
	vec3_normalize(u);
	best = -1;
	for (size_t i = 0; i < h->np; i++) {
		vec3_sub(w, pt(h, (uint32_t)i), pt(h, out[0]));
		vec3_cross(c, u, w);
		double d = vec3_norm(c);
		if (d > best)
			best = d, out[2] = (uint32_t)i;
	}
	if (!(best > h->eps))
		return mrdem_error("%s: all points are collinear (no convex hull)", what);
	double n[3];
	vec3_sub(w, pt(h, out[2]), pt(h, out[0]));
	vec3_cross(n, u, w);
	vec3_normalize(n);
	best = -1;
	for (size_t i = 0; i < h->np; i++) {
		vec3_sub(w, pt(h, (uint32_t)i), pt(h, out[0]));
		double d = fabs(vec3_dot(n, w));
		if (d > best)
			best = d, out[3] = (uint32_t)i;
	}
	if (!(best > h->eps))
		return mrdem_error("%s: all points are coplanar (no convex hull)", what);
	return 0;
}

static void push_stack(struct hull *h, size_t *top, uint32_t f)
{
	if (*top == h->stack_cap) {
		h->stack_cap = h->stack_cap ? 2 * h->stack_cap : 64;
		h->stack = mrdem_xrealloc(h->stack, h->stack_cap * sizeof *h->stack);
	}
	h->stack[(*top)++] = f;
}

/* The edge slot of face g that is across from face f. */
static int slot_of(const struct hface *g, uint32_t f)
{
	for (int k = 0; k < 3; k++)
		if (g->nb[k] == f)
			return k;
	return -1;
}

/* Add point eye, furthest above face f0: remove the faces it sees, fan
 * the horizon to it, hand their outside points to the new faces. */
static int add_point(struct hull *h, uint32_t f0, uint32_t eye, const char *what)
{
	uint32_t st = ++h->stamp;
	size_t top = 0, nh = 0;
	h->vis[f0] = st;
	push_stack(h, &top, f0);
	/* visible faces: the DFS stack keeps them all (popped ones are
	 * re-listed from index `seen`) */
	size_t nvisible = 0;
	uint32_t *visible = NULL;
	size_t vcap = 0;
	while (top) {
		uint32_t g = h->stack[--top];
		if (nvisible == vcap)
			visible = mrdem_xrealloc(visible, (vcap = vcap ? 2 * vcap : 16) * sizeof *visible);
		visible[nvisible++] = g;
		for (int k = 0; k < 3; k++) {
			uint32_t nb = h->f[g].nb[k];
			if (h->vis[nb] == st)
				continue;
			if (h->nvis[nb] != st && above(h, &h->f[nb], eye) > h->eps) {
				h->vis[nb] = st;
				push_stack(h, &top, nb);
				continue;
			}
			h->nvis[nb] = st;
			if (nh == h->hcap)
				h->horizon = mrdem_xrealloc(h->horizon,
							    2 * (h->hcap = h->hcap ? 2 * h->hcap : 32) *
								    sizeof *h->horizon);
			h->horizon[2 * nh] = g;
			h->horizon[2 * nh + 1] = (uint32_t)k;
			nh++;
		}
	}
	size_t first = h->nf;
	for (size_t i = 0; i < nh; i++) {
		uint32_t g = h->horizon[2 * i], k = h->horizon[2 * i + 1];
		uint32_t a = h->f[g].v[k], b = h->f[g].v[(k + 1) % 3], across = h->f[g].nb[k];
		if (h->start_stamp[a] == st || h->end_stamp[b] == st) {
			free(visible);
			return mrdem_error("%s: convex hull failed: the horizon of point %u is not a "
					   "simple loop (nearly degenerate input)", what, eye);
		}
		uint32_t nf = add_face(h, a, b, eye);
		h->f[nf].nb[0] = across;
		int s = slot_of(&h->f[across], g);
		h->f[across].nb[s] = nf;
		h->start[a] = nf, h->start_stamp[a] = st;
		h->end[b] = nf, h->end_stamp[b] = st;
	}
	for (size_t i = first; i < h->nf; i++) {
		struct hface *f = &h->f[i];
		if (h->start_stamp[f->v[1]] != st || h->end_stamp[f->v[0]] != st) {
			free(visible);
			return mrdem_error("%s: convex hull failed: the horizon of point %u is not "
					   "closed (nearly degenerate input)", what, eye);
		}
		f->nb[1] = h->start[f->v[1]];
		f->nb[2] = h->end[f->v[0]];
	}
	/* the new faces, as a list for assign() */
	size_t nnew = h->nf - first;
	uint32_t *news = mrdem_xmalloc_array(nnew, sizeof *news);
	for (size_t i = 0; i < nnew; i++)
		news[i] = (uint32_t)(first + i);
	for (size_t i = 0; i < nvisible; i++) {
		struct hface *g = &h->f[visible[i]];
		g->alive = 0;
		for (uint32_t q = g->outside, nx; q != NONE; q = nx) {
			nx = h->next[q];
			if (q != eye)
				assign(h, q, news, nnew);
		}
		g->outside = NONE;
	}
	free(news);
	free(visible);
	return 0;
}

/* Every point on the inner side of every face, every edge shared by two
 * faces in opposite directions, V - E + F = 2. */
static int check(const struct hull *h, const char *what, uint32_t nverts)
{
	size_t nf = 0;
	double tol = 100 * h->eps;
	for (size_t i = 0; i < h->nf; i++) {
		const struct hface *f = &h->f[i];
		if (!f->alive)
			continue;
		nf++;
		for (int k = 0; k < 3; k++) {
			const struct hface *g = &h->f[f->nb[k]];
			int s = slot_of(g, (uint32_t)i);
			if (!g->alive || s < 0 || g->v[s] != f->v[(k + 1) % 3] ||
			    g->v[(s + 1) % 3] != f->v[k])
				return mrdem_error("%s: convex hull failed: not a closed 2-manifold", what);
		}
		for (size_t p = 0; p < h->np; p++)
			if (above(h, f, (uint32_t)p) > tol)
				return mrdem_error("%s: convex hull failed: point %zu lies %g outside a "
						   "face (tolerance %g)", what, p,
						   above(h, f, (uint32_t)p), tol);
	}
	long euler = (long)nverts - (long)(3 * nf / 2) + (long)nf;
	if (euler != 2)
		return mrdem_error("%s: convex hull failed: V - E + F = %ld, not 2", what, euler);
	return 0;
}

static void hull_release(struct hull *h)
{
	free(h->f);
	free(h->next);
	free(h->vis);
	free(h->nvis);
	free(h->start);
	free(h->end);
	free(h->start_stamp);
	free(h->end_stamp);
	free(h->stack);
	free(h->horizon);
}

int mrdem_hull(const double *pts, size_t n, const char *what, struct mrdem_mesh *out)
{
	mrdem_mesh_init(out);
	if (n < 4)
		return mrdem_error("%s: %zu points, a convex hull needs at least 4", what, n);
	if (n > UINT32_MAX / 2)
		return mrdem_error("%s: %zu points, more than a hull takes", what, n);
	double ext = 0;
	for (size_t i = 0; i < n; i++) {
		if (!vec3_isfinite(&pts[3 * i]))
			return mrdem_error("%s: point %zu (%g %g %g) is not finite", what, i,
					   pts[3 * i], pts[3 * i + 1], pts[3 * i + 2]);
		for (int k = 0; k < 3; k++)
			ext = fmax(ext, fabs(pts[3 * i + k]));
	}
	struct hull h = {.p = pts, .np = n, .eps = MRDEM_HULL_TOL_REL * 3 * ext};
	uint32_t s[4] = {0, 0, 0, 0};
	if (initial_simplex(&h, what, s))
		return -1;
	h.next = mrdem_xmalloc_array(n, sizeof *h.next);
	h.start = mrdem_xmalloc_array(n, sizeof *h.start);
	h.end = mrdem_xmalloc_array(n, sizeof *h.end);
	h.start_stamp = mrdem_xcalloc(n, sizeof *h.start_stamp);
	h.end_stamp = mrdem_xcalloc(n, sizeof *h.end_stamp);
	/* the tetrahedron, outward: (s0 s1 s2) seen from outside when s3 lies below it */
	double e1[3], e2[3], nn[3], w[3];
	vec3_sub(e1, pt(&h, s[1]), pt(&h, s[0]));
	vec3_sub(e2, pt(&h, s[2]), pt(&h, s[0]));
	vec3_cross(nn, e1, e2);
	vec3_sub(w, pt(&h, s[3]), pt(&h, s[0]));
	if (vec3_dot(nn, w) > 0) {
		uint32_t t = s[1];
		s[1] = s[2], s[2] = t;
	}
	uint32_t tet[4][3] = {{s[0], s[1], s[2]}, {s[0], s[3], s[1]}, {s[1], s[3], s[2]},
			      {s[2], s[3], s[0]}};
	for (int i = 0; i < 4; i++)
		add_face(&h, tet[i][0], tet[i][1], tet[i][2]);
	for (uint32_t i = 0; i < 4; i++) /* neighbours by matching reversed edges */
		for (int k = 0; k < 3; k++)
			for (uint32_t j = 0; j < 4; j++)
				for (int l = 0; l < 3; l++)
					if (h.f[j].v[l] == h.f[i].v[(k + 1) % 3] &&
					    h.f[j].v[(l + 1) % 3] == h.f[i].v[k])
						h.f[i].nb[k] = j;
	uint32_t four[4] = {0, 1, 2, 3};
	for (size_t i = 0; i < n; i++)
		if (i != s[0] && i != s[1] && i != s[2] && i != s[3])
			assign(&h, (uint32_t)i, four, 4);
	int rc = 0;
	for (size_t fi = 0; fi < h.nf && !rc; fi++) {
		if (!h.f[fi].alive || h.f[fi].outside == NONE)
			continue;
		uint32_t eye = NONE;
		double best = -1;
		for (uint32_t q = h.f[fi].outside; q != NONE; q = h.next[q]) {
			double d = above(&h, &h.f[fi], q);
			if (d > best)
				best = d, eye = q;
		}
		rc = add_point(&h, (uint32_t)fi, eye, what);
	}
	/* compact the vertices in order of first use */
	uint32_t *map = h.start; /* reused: no longer needed */
	for (size_t i = 0; i < n; i++)
		map[i] = NONE;
	uint32_t nv = 0, nt = 0;
	for (size_t i = 0; i < h.nf && !rc; i++)
		if (h.f[i].alive) {
			nt++;
			for (int k = 0; k < 3; k++)
				if (map[h.f[i].v[k]] == NONE)
					map[h.f[i].v[k]] = nv++;
		}
	if (!rc)
		rc = check(&h, what, nv);
	if (!rc) {
		mrdem_mesh_alloc(out, nv, nt);
		for (size_t i = 0; i < n; i++)
			if (map[i] != NONE)
				memcpy(&out->verts[3 * (size_t)map[i]], &pts[3 * i], 3 * sizeof(double));
		nt = 0;
		for (size_t i = 0; i < h.nf; i++)
			if (h.f[i].alive) {
				for (int k = 0; k < 3; k++)
					out->tris[3 * (size_t)nt + k] = map[h.f[i].v[k]];
				nt++;
			}
		out->open = 0;
		mrdem_mesh_mass(out, &out->mass);
	}
	hull_release(&h);
	return rc;
}
