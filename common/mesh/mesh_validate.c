/* Mesh validation and orientation repair (rules in docs/mesh.md).
 *
 * Checks, in order: finite vertices, indices in range, every vertex used,
 * no degenerate triangle, every edge shared by at most two triangles (and
 * exactly two unless open meshes are allowed), every vertex's triangles
 * forming a single fan, orientability. Then each connected component is
 * made consistently oriented by a breadth-first walk that flips triangles,
 * closed components are turned outward (positive volume, or negative for
 * a cavity nested inside another closed component), and mass properties
 * are computed. Vertices are never welded or moved here (the open-mesh
 * message only tries welding a copy, to suggest a tolerance). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/vec3.h"
#include "common/mesh/mesh.h"
#include "common/mesh/mesh_weld.h"
#include "common/util/error.h"

#define NONE UINT32_MAX
/* A triangle whose doubled area is below this fraction of its longest
 * squared edge has collinear vertices up to rounding. */
#define DEGENERATE_REL 1e-12
/* A closed surface enclosing less than this fraction of its bounding
 * box's cube encloses nothing (e.g. two triangles back to back). */
#define EMPTY_VOLUME_REL 1e-12

struct validator {
	struct mrdem_mesh *m;
	const char *what;
	unsigned flags;
	uint32_t *twin;     /* 3 * ntris: half-edge across the same edge, or NONE */
	uint32_t *comp;     /* component of each triangle */
	signed char *flip;  /* orientation decision per triangle */
	uint32_t ncomp;
	int any_boundary;
};

static const uint32_t *tri(const struct mrdem_mesh *m, uint32_t t)
{
	return &m->tris[3 * (size_t)t];
}

static const double *vert(const struct mrdem_mesh *m, uint32_t v)
{
	return &m->verts[3 * (size_t)v];
}

/* Half-edge k = 3t + e runs from corner e of triangle t to corner e+1. */
static uint32_t he_from(const struct mrdem_mesh *m, uint32_t k)
{
	return m->tris[k];
}

static uint32_t he_to(const struct mrdem_mesh *m, uint32_t k)
{
	return m->tris[k - k % 3 + (k % 3 + 1) % 3];
}

static int check_elements(struct validator *V)
{
	struct mrdem_mesh *m = V->m;
	if (!m->ntris)
		return mrdem_error("%s: mesh has no triangles", V->what);
	if (m->ntris > UINT32_MAX / 3 - 1)
		return mrdem_error("%s: too many triangles (%u)", V->what, m->ntris);
	for (uint32_t v = 0; v < m->nverts; v++)
		if (!vec3_isfinite(vert(m, v)))
			return mrdem_error("%s: vertex %u has a non-finite coordinate", V->what, v);
	unsigned char *used = mrdem_xcalloc(m->nverts ? m->nverts : 1, 1);
	int rc = 0;
	for (uint32_t t = 0; t < m->ntris && !rc; t++) {
		const uint32_t *f = tri(m, t);
		for (int i = 0; i < 3; i++) {
			if (f[i] >= m->nverts) {
				rc = mrdem_error("%s: triangle %u refers to vertex %u, but there are "
						 "only %u vertices",
						 V->what, t, f[i], m->nverts);
				break;
			}
			used[f[i]] = 1;
		}
		if (rc)
			break;
		if (f[0] == f[1] || f[1] == f[2] || f[2] == f[0]) {
			rc = mrdem_error("%s: triangle %u is degenerate: it uses vertex %u twice",
					 V->what, t, f[0] == f[1] || f[0] == f[2] ? f[0] : f[1]);
			break;
		}
		double e[3][3], n[3], l2 = 0;
		for (int i = 0; i < 3; i++) {
			vec3_sub(e[i], vert(m, f[(i + 1) % 3]), vert(m, f[i]));
			if (!(vec3_norm2(e[i]) <= l2))
				l2 = vec3_norm2(e[i]);
		}
		vec3_cross(n, e[0], e[1]);
		/* finite coordinates near DBL_MAX still overflow in the products
		 * below (and in the volume and inertia): not a degeneracy */
		if (!isfinite(l2) || !isfinite(vec3_norm(n)))
			rc = mrdem_error("%s: triangle %u (vertices %u, %u, %u): coordinates too "
					 "large: its squared edge lengths or area overflow to a "
					 "non-finite value",
					 V->what, t, f[0], f[1], f[2]);
		else if (vec3_norm(n) <= DEGENERATE_REL * l2)
			rc = mrdem_error("%s: triangle %u is degenerate: vertices %u, %u, %u are "
					 "collinear (zero area)",
					 V->what, t, f[0], f[1], f[2]);
	}
	for (uint32_t v = 0; v < m->nverts && !rc; v++)
		if (!used[v])
			rc = mrdem_error("%s: vertex %u is not used by any triangle", V->what, v);
	free(used);
	return rc;
}

static uint32_t edge_lo(const struct mrdem_mesh *m, uint32_t k)
{
	uint32_t a = he_from(m, k), b = he_to(m, k);
	return a < b ? a : b;
}

static uint32_t edge_hi(const struct mrdem_mesh *m, uint32_t k)
{
	uint32_t a = he_from(m, k), b = he_to(m, k);
	return a < b ? b : a;
}

/* Sort key within one low-vertex bucket: (high vertex, half-edge). */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Pair the half-edges of each undirected edge: twin[k], or NONE on the
 * boundary; more than two triangles on an edge is an error. */
static int match_edges(struct validator *V)
{
	struct mrdem_mesh *m = V->m;
	uint32_t nh = 3 * m->ntris;
	/* bucket half-edges by their lower vertex (counting sort), then sort
	 * each small bucket by (higher vertex, half-edge index) */
	uint32_t *start = mrdem_xcalloc((size_t)m->nverts + 1, sizeof *start);
	for (uint32_t k = 0; k < nh; k++)
		start[edge_lo(m, k) + 1]++;
	for (uint32_t v = 0; v < m->nverts; v++)
		start[v + 1] += start[v];
	uint64_t *key = mrdem_xmalloc_array(nh, sizeof *key);
	uint32_t *fill = mrdem_xmalloc_array(m->nverts, sizeof *fill);
	memcpy(fill, start, m->nverts * sizeof *fill);
	for (uint32_t k = 0; k < nh; k++)
		key[fill[edge_lo(m, k)]++] = (uint64_t)edge_hi(m, k) << 32 | k;
	free(fill);

	V->twin = mrdem_xmalloc_array(nh, sizeof *V->twin);
	int rc = 0;
	/* boundary edges of a mesh that must be closed: the count and the
	 * first few, so one message shows how open it is */
	enum { SHOW = 3 };
	uint32_t nopen = 0, shown[SHOW][3];
	for (uint32_t v = 0; v < m->nverts && !rc; v++) {
		uint64_t *b = &key[start[v]];
		uint32_t n = start[v + 1] - start[v];
		qsort(b, n, sizeof *b, cmp_u64);
		for (uint32_t i = 0; i < n;) {
			uint32_t j = i + 1;
			while (j < n && b[j] >> 32 == b[i] >> 32)
				j++;
			uint32_t k0 = (uint32_t)b[i], hi = (uint32_t)(b[i] >> 32);
			if (j - i > 2) {
				rc = mrdem_error("%s: edge (%u, %u) is shared by %u triangles (%u, %u, "
						 "%u%s): the surface is not a 2-manifold",
						 V->what, v, hi, j - i, k0 / 3, (uint32_t)b[i + 1] / 3,
						 (uint32_t)b[i + 2] / 3, j - i > 3 ? ", ..." : "");
				break;
			}
			if (j - i == 2) {
				uint32_t k1 = (uint32_t)b[i + 1];
				V->twin[k0] = k1;
				V->twin[k1] = k0;
			} else {
				V->twin[k0] = NONE;
				V->any_boundary = 1;
				if (!(V->flags & MRDEM_MESH_ALLOW_OPEN) && nopen++ < SHOW) {
					shown[nopen - 1][0] = v;
					shown[nopen - 1][1] = hi;
					shown[nopen - 1][2] = k0 / 3;
				}
			}
			i = j;
		}
	}
	if (!rc && nopen) {
		char list[3 * 64] = "";
		size_t len = 0;
		for (uint32_t k = 0; k < nopen && k < SHOW; k++)
			len += (size_t)snprintf(list + len, sizeof list - len, "%s(%u, %u) of triangle %u",
						k ? ", " : "", shown[k][0], shown[k][1], shown[k][2]);
		/* duplicate vertices (a triangle soup) also leave every edge open */
		char hint[160] = "";
		double tol = mrdem_mesh_weld_closes(m);
		if (tol > 0)
			snprintf(hint, sizeof hint, "; welding vertices closer than %g closes it "
				 "(mrdem-mesh import --weld %g)", tol, tol);
		rc = mrdem_error("%s: the mesh is open: %u edge%s belong%s to only one triangle: %s%s%s; "
				 "open meshes are accepted for fixed obstacles only (mrdem-mesh "
				 "import --open, or 'open: true' beside 'mesh' in a scene)",
				 V->what, nopen, nopen == 1 ? "" : "s", nopen == 1 ? "s" : "", list,
				 nopen > SHOW ? ", ..." : "", hint);
	}
	free(key);
	free(start);
	return rc;
}

/* Walk around vertex v: leave triangle t through its edge e (incident to
 * v) and keep crossing the edges incident to v. Returns the number of
 * triangles met: including t when the walk comes back to t (*cycle = 1),
 * excluding t when it stops at the boundary (*cycle = 0). */
static uint32_t walk_fan(const struct validator *V, uint32_t v, uint32_t t, int e, uint32_t limit,
			 int *cycle)
{
	const struct mrdem_mesh *m = V->m;
	uint32_t count = 0, cur = t;
	*cycle = 0;
	while (count <= limit) {
		uint32_t k = V->twin[3 * cur + (uint32_t)e];
		if (k == NONE)
			break;
		cur = k / 3;
		if (cur == t) {
			*cycle = 1;
			return count + 1;
		}
		count++;
		/* edge k%3 of cur joins v to a neighbour; leave by cur's other
		 * edge at v: the outgoing edge c or the incoming edge c+2 */
		int ein = (int)(k % 3), c = tri(m, cur)[ein] == v ? ein : (ein + 1) % 3;
		e = c == ein ? (c + 2) % 3 : c;
	}
	return count;
}

/* The triangles around each vertex must form one fan: two closed
 * surfaces touching at a single vertex are not a 2-manifold. */
static int check_vertex_fans(const struct validator *V)
{
	const struct mrdem_mesh *m = V->m;
	uint32_t *count = mrdem_xcalloc(m->nverts, sizeof *count);
	uint32_t *first = mrdem_xmalloc_array(m->nverts, sizeof *first);
	for (uint32_t k = 3 * m->ntris; k-- > 0;) {
		count[m->tris[k]]++;
		first[m->tris[k]] = k;
	}
	int rc = 0;
	for (uint32_t v = 0; v < m->nverts; v++) {
		uint32_t t = first[v] / 3;
		int c = (int)(first[v] % 3), cycle;
		uint32_t n = walk_fan(V, v, t, c, count[v], &cycle);
		if (!cycle)
			n += 1 + walk_fan(V, v, t, (c + 2) % 3, count[v], &cycle);
		if (n != count[v]) {
			rc = mrdem_error("%s: vertex %u is not a 2-manifold point: its %u triangles "
					 "form more than one fan (surfaces touch at this vertex)",
					 V->what, v, count[v]);
			break;
		}
	}
	free(count);
	free(first);
	return rc;
}

/* Decide per triangle whether to flip it so that neighbours agree:
 * across a shared edge the two triangles must run in opposite directions. */
static int orient_components(struct validator *V)
{
	const struct mrdem_mesh *m = V->m;
	V->flip = mrdem_xmalloc_array(m->ntris, sizeof *V->flip);
	V->comp = mrdem_xmalloc_array(m->ntris, sizeof *V->comp);
	memset(V->flip, -1, m->ntris);
	uint32_t *queue = mrdem_xmalloc_array(m->ntris, sizeof *queue);
	int rc = 0;
	for (uint32_t s = 0; s < m->ntris && !rc; s++) {
		if (V->flip[s] >= 0)
			continue;
		uint32_t head = 0, tail = 0, c = V->ncomp++;
		V->flip[s] = 0;
		V->comp[s] = c;
		queue[tail++] = s;
		while (head < tail && !rc) {
			uint32_t t = queue[head++];
			for (uint32_t e = 0; e < 3; e++) {
				uint32_t k = V->twin[3 * t + e];
				if (k == NONE)
					continue;
				uint32_t u = k / 3;
				int same = he_from(m, 3 * t + e) == he_from(m, k);
				signed char need = (signed char)(V->flip[t] ^ same);
				if (V->flip[u] < 0) {
					V->flip[u] = need;
					V->comp[u] = c;
					queue[tail++] = u;
				} else if (V->flip[u] != need) {
					rc = mrdem_error("%s: the surface is not orientable: triangle %u "
							 "cannot be oriented consistently with its "
							 "neighbour %u",
							 V->what, u, t);
					break;
				}
			}
		}
	}
	free(queue);
	return rc;
}

static void flip_triangle(struct mrdem_mesh *m, uint32_t t)
{
	uint32_t *f = &m->tris[3 * (size_t)t];
	uint32_t x = f[1];
	f[1] = f[2];
	f[2] = x;
}

/* Ray p + s*d, s > 0, crosses triangle abc (Moller-Trumbore). */
static int ray_crosses(const double p[3], const double d[3], const double a[3], const double b[3],
		       const double c[3])
{
	double e1[3], e2[3], h[3], s[3], q[3];
	vec3_sub(e1, b, a);
	vec3_sub(e2, c, a);
	vec3_cross(h, d, e2);
	double det = vec3_dot(e1, h);
	if (det == 0)
		return 0;
	double inv = 1 / det;
	vec3_sub(s, p, a);
	double u = inv * vec3_dot(s, h);
	if (u < 0 || u > 1)
		return 0;
	vec3_cross(q, s, e1);
	double v = inv * vec3_dot(d, q);
	if (v < 0 || u + v > 1)
		return 0;
	return inv * vec3_dot(e2, q) > 0;
}

/* Is p inside the closed component whose triangles are list[0..n)?
 * Parity of ray crossings, majority over three skew directions so a ray
 * grazing an edge cannot decide alone. */
static int inside_component(const struct mrdem_mesh *m, const double p[3], const uint32_t *list,
			    uint32_t n)
{
	static const double dirs[3][3] = {
		{ 0.5435606951, 0.6139243712, 0.5724286411 },
		{ -0.7071067812, 0.3184582619, 0.6314587217 },
		{ 0.1378218131, -0.8867539021, 0.4412108703 },
	};
	int votes = 0;
	for (int r = 0; r < 3; r++) {
		unsigned crossings = 0;
		for (uint32_t i = 0; i < n; i++) {
			const uint32_t *f = tri(m, list[i]);
			crossings += (unsigned)ray_crosses(p, dirs[r], vert(m, f[0]), vert(m, f[1]),
							   vert(m, f[2]));
		}
		votes += crossings & 1;
	}
	return votes >= 2;
}

/* What orienting a mesh's components needs to know of each: open or
 * closed, signed volume about the mesh's box centre, bounding box, first
 * triangle, and (closed ones) how deep it nests in other closed ones. */
struct components {
	uint32_t n;
	unsigned char *open;
	double *vol, *lo, *hi; /* lo, hi: 3 each */
	uint32_t *first, *depth;
};

/* Apply the flips; open components keep the orientation most of their
 * triangles were given. Marks the open components. */
static void apply_flips(struct validator *V, struct components *C)
{
	struct mrdem_mesh *m = V->m;
	uint32_t *ntri = mrdem_xcalloc(C->n, sizeof *ntri);
	uint32_t *nflip = mrdem_xcalloc(C->n, sizeof *nflip);
	for (uint32_t t = 0; t < m->ntris; t++) {
		uint32_t c = V->comp[t];
		ntri[c]++;
		nflip[c] += (uint32_t)V->flip[t];
		for (uint32_t e = 0; e < 3; e++)
			if (V->twin[3 * t + e] == NONE)
				C->open[c] = 1;
	}
	for (uint32_t t = 0; t < m->ntris; t++) {
		uint32_t c = V->comp[t];
		int f = V->flip[t] ^ (C->open[c] && 2 * nflip[c] > ntri[c]);
		if (f)
			flip_triangle(m, t);
	}
	free(nflip);
	free(ntri);
}

/* Each component's signed volume about ref, bounding box and first
 * triangle. */
static void measure_components(const struct mrdem_mesh *m, const uint32_t *comp,
			       const double ref[3], struct components *C)
{
	for (uint32_t c = 0; c < C->n; c++) {
		vec3_set(&C->lo[3 * c], INFINITY, INFINITY, INFINITY);
		vec3_set(&C->hi[3 * c], -INFINITY, -INFINITY, -INFINITY);
		C->first[c] = NONE;
	}
	for (uint32_t t = 0; t < m->ntris; t++) {
		uint32_t c = comp[t];
		const uint32_t *f = tri(m, t);
		double a[3], b[3], d[3], n[3];
		vec3_sub(a, vert(m, f[0]), ref);
		vec3_sub(b, vert(m, f[1]), ref);
		vec3_sub(d, vert(m, f[2]), ref);
		vec3_cross(n, b, d);
		C->vol[c] += vec3_dot(a, n) / 6;
		if (C->first[c] == NONE)
			C->first[c] = t;
		for (int i = 0; i < 3; i++)
			for (int k = 0; k < 3; k++) {
				double x = vert(m, f[i])[k];
				C->lo[3 * c + k] = fmin(C->lo[3 * c + k], x);
				C->hi[3 * c + k] = fmax(C->hi[3 * c + k], x);
			}
	}
}

/* The nesting depth of each closed component among the closed ones: how
 * many contain its first vertex. */
static void nesting_depths(const struct mrdem_mesh *m, const uint32_t *comp,
			   struct components *C)
{
	uint32_t nc = C->n, nclosed = 0;
	for (uint32_t c = 0; c < nc; c++)
		nclosed += !C->open[c];
	if (nclosed <= 1)
		return;
	uint32_t *start = mrdem_xcalloc((size_t)nc + 1, sizeof *start);
	uint32_t *list = mrdem_xmalloc_array(m->ntris, sizeof *list);
	for (uint32_t t = 0; t < m->ntris; t++)
		start[comp[t] + 1]++;
	for (uint32_t c = 0; c < nc; c++)
		start[c + 1] += start[c];
	uint32_t *fill = mrdem_xmalloc_array(nc, sizeof *fill);
	memcpy(fill, start, nc * sizeof *fill);
	for (uint32_t t = 0; t < m->ntris; t++)
		list[fill[comp[t]]++] = t;
	free(fill);
	for (uint32_t c = 0; c < nc; c++) {
		if (C->open[c])
			continue;
		const double *p = vert(m, tri(m, C->first[c])[0]);
		for (uint32_t d = 0; d < nc; d++) {
			if (d == c || C->open[d])
				continue;
			int in_box = 1;
			for (int k = 0; k < 3; k++)
				in_box &= p[k] >= C->lo[3 * d + k] && p[k] <= C->hi[3 * d + k];
			if (in_box && inside_component(m, p, &list[start[d]], start[d + 1] - start[d]))
				C->depth[c]++;
		}
	}
	free(list);
	free(start);
}

/* Turn closed components outward (inward for nested cavities); -1 when one
 * encloses no volume (relative to the mesh's extent ext). */
static int orient_closed(struct validator *V, const struct components *C, double ext)
{
	struct mrdem_mesh *m = V->m;
	int rc = 0;
	unsigned char *reverse = mrdem_xcalloc(C->n, 1);
	for (uint32_t c = 0; c < C->n && !rc; c++) {
		if (C->open[c])
			continue;
		if (!(fabs(C->vol[c]) > EMPTY_VOLUME_REL * ext * ext * ext)) {
			rc = mrdem_error("%s: the closed surface containing triangle %u encloses no "
					 "volume",
					 V->what, C->first[c]);
			break;
		}
		int want_positive = C->depth[c] % 2 == 0;
		reverse[c] = (C->vol[c] > 0) != want_positive;
	}
	for (uint32_t t = 0; t < m->ntris && !rc; t++)
		if (reverse[V->comp[t]])
			flip_triangle(m, t);
	free(reverse);
	return rc;
}

/* Apply the flips; then turn open components to their majority
 * orientation and closed ones outward (inward for nested cavities). */
static int orient_outward(struct validator *V)
{
	struct mrdem_mesh *m = V->m;
	uint32_t nc = V->ncomp;
	struct components C = {
		.n = nc,
		.open = mrdem_xcalloc(nc, 1),
		.vol = mrdem_xcalloc(nc, sizeof *C.vol),
		.lo = mrdem_xmalloc_array(3 * (size_t)nc, sizeof *C.lo),
		.hi = mrdem_xmalloc_array(3 * (size_t)nc, sizeof *C.hi),
		.first = mrdem_xmalloc_array(nc, sizeof *C.first),
		.depth = mrdem_xcalloc(nc, sizeof *C.depth),
	};
	apply_flips(V, &C);
	double lo[3], hi[3], ref[3], ext = 0;
	mrdem_mesh_bbox(m, lo, hi);
	for (int k = 0; k < 3; k++) {
		ref[k] = 0.5 * (lo[k] + hi[k]);
		if (hi[k] - lo[k] > ext)
			ext = hi[k] - lo[k];
	}
	measure_components(m, V->comp, ref, &C);
	nesting_depths(m, V->comp, &C);
	int rc = orient_closed(V, &C, ext);
	free(C.depth);
	free(C.first);
	free(C.hi);
	free(C.lo);
	free(C.vol);
	free(C.open);
	return rc;
}

int mrdem_mesh_validate(struct mrdem_mesh *m, unsigned flags, const char *what)
{
	struct validator V = { .m = m, .what = what ? what : "mesh", .flags = flags };
	int rc = check_elements(&V);
	if (!rc)
		rc = match_edges(&V);
	if (!rc)
		rc = check_vertex_fans(&V);
	if (!rc)
		rc = orient_components(&V);
	if (!rc)
		rc = orient_outward(&V);
	if (!rc) {
		m->open = V.any_boundary;
		memset(&m->mass, 0, sizeof m->mass);
		if (!m->open) {
			mrdem_mesh_mass(m, &m->mass);
			int finite = isfinite(m->mass.volume);
			for (int k = 0; k < 6; k++)
				finite &= isfinite(m->mass.inertia[k]) && (k >= 3 || isfinite(m->mass.com[k]));
			if (!finite)
				rc = mrdem_error("%s: coordinates too large: the volume, centre of mass "
						 "or inertia overflows to a non-finite value",
						 V.what);
			else if (!(m->mass.volume > 0))
				rc = mrdem_error("%s: the mesh encloses no positive volume (%g)",
						 V.what, m->mass.volume);
		}
	}
	free(V.twin);
	free(V.comp);
	free(V.flip);
	return rc;
}
