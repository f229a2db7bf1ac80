/* Surrogate trees on the shapes the mesh tool makes: layout, exact and
 * conservative epsilons (checked by sampling, independently of the vertex
 * argument), random points in leaf halos, determinism across thread
 * counts, the paper's Table 1 bounds, and the verifier catching damage. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/point_triangle.h"
#include "common/geom/vec3.h"
#include "common/mesh/mesh.h"
#include "common/tree/surrogate.h"
#include "common/tree/tree.h"
#include "common/util/rng.h"
#include "formats/stream/bytes.h"
#include "formats/stream/record_tree.h"
#include "tests/lib/tap.h"

static void node_tri(const struct mrdem_tree *t, uint32_t n, double S[9])
{
	for (int k = 0; k < 9; k++)
		S[k] = t->tri[9 * (size_t)n + k];
}

/* Flat layout: levels, children, leaf sizes, every triangle under one leaf. */
static int check_shape_of_tree(const struct mrdem_tree *t, const struct mrdem_tree_params *p)
{
	uint32_t *owner = malloc(t->ntris * sizeof *owner);
	for (uint32_t i = 0; i < t->ntris; i++)
		owner[i] = MRDEM_TREE_NONE;
	int ok = 1;
	for (uint32_t n = 0; n < t->nnodes; n++) {
		if (t->child_count[n]) {
			ok &= t->child_count[n] <= p->fanout;
			ok &= t->tri_count[n] > p->leaf;
			/* roughly equal clusters: none above 125 % of the mean */
			uint64_t k = ((uint64_t)t->tri_count[n] + p->leaf - 1) / p->leaf;
			k = k < p->fanout ? k : p->fanout;
			double cap = ceil(1.25 * t->tri_count[n] / (double)k);
			for (uint32_t c = t->child_first[n]; c < t->child_first[n] + t->child_count[n]; c++)
				ok &= t->tri_count[c] <= cap;
			for (uint32_t c = t->child_first[n]; c < t->child_first[n] + t->child_count[n]; c++)
				ok &= t->parent[c] == n && t->level[c] == t->level[n] + 1;
		} else {
			ok &= t->tri_count[n] <= p->leaf && t->tri_count[n] >= 1;
			for (uint32_t i = t->tri_first[n]; i < t->tri_first[n] + t->tri_count[n]; i++) {
				ok &= owner[t->perm[i]] == MRDEM_TREE_NONE;
				owner[t->perm[i]] = n;
			}
		}
		ok &= n >= t->level_first[t->level[n]] && n < t->level_first[t->level[n] + 1];
	}
	for (uint32_t i = 0; i < t->ntris; i++)
		ok &= owner[i] != MRDEM_TREE_NONE;
	free(owner);
	return ok;
}

/* Independent of tree_eps.c: sample points all over each real triangle
 * beneath a node (not only its vertices) and check they lie in the node's
 * halo; also that eps is tight (some vertex nearly attains it). */
static void check_eps_by_sampling(const struct mrdem_tree *t, const struct mrdem_mesh *m,
				  int *conservative, int *tight, double *worst_slack)
{
	struct mrdem_rng r;
	mrdem_rng_seed(&r, 99);
	*conservative = *tight = 1;
	*worst_slack = 0;
	for (uint32_t n = 0; n < t->nnodes; n++) {
		double S[9], vmax = 0;
		node_tri(t, n, S);
		for (uint32_t i = t->tri_first[n]; i < t->tri_first[n] + t->tri_count[n]; i++) {
			const uint32_t *tv = &m->tris[3 * (size_t)t->perm[i]];
			const double *a = &m->verts[3 * tv[0]], *b = &m->verts[3 * tv[1]],
				     *c = &m->verts[3 * tv[2]];
			for (int s = 0; s < 8; s++) {
				double u = mrdem_rng_uniform(&r), v = mrdem_rng_uniform(&r), y[3];
				if (s < 3)
					u = s == 1, v = s == 2; /* the vertices themselves */
				else if (u + v > 1)
					u = 1 - u, v = 1 - v;
				for (int k = 0; k < 3; k++)
					y[k] = a[k] + u * (b[k] - a[k]) + v * (c[k] - a[k]);
				double d = mrdem_point_triangle(y, &S[0], &S[3], &S[6], NULL);
				*conservative &= d <= t->eps[n];
				if (s < 3)
					vmax = fmax(vmax, d);
			}
		}
		/* float-rounded vertices may sit up to ~1e-7 further */
		double slack = (double)t->eps[n] - vmax;
		*worst_slack = fmax(*worst_slack, slack);
		*tight &= slack <= 1e-6 * (1 + t->eps[n]);
	}
}

/* A random point inside a random leaf triangle's halo (particle halo e) is
 * inside the halo of every ancestor. */
static int check_random_points(const struct mrdem_tree *t, const struct mrdem_mesh *m, double e,
			       int npoints, uint64_t seed)
{
	struct mrdem_rng r;
	mrdem_rng_seed(&r, seed);
	int ok = 1;
	for (int i = 0; i < npoints; i++) {
		uint32_t s = (uint32_t)(mrdem_rng_uniform(&r) * t->ntris) % t->ntris;
		const uint32_t *tv = &m->tris[3 * (size_t)t->perm[s]];
		double u = mrdem_rng_uniform(&r), v = mrdem_rng_uniform(&r), y[3], dir[3];
		if (u + v > 1)
			u = 1 - u, v = 1 - v;
		for (int k = 0; k < 3; k++) {
			const double *a = &m->verts[3 * tv[0]];
			y[k] = a[k] + u * (m->verts[3 * tv[1] + k] - a[k]) +
			       v * (m->verts[3 * tv[2] + k] - a[k]);
			dir[k] = mrdem_rng_normal(&r);
		}
		vec3_normalize(dir);
		vec3_axpy(y, y, e * mrdem_rng_uniform(&r), dir);
		/* find the leaf holding soup triangle s, then walk up */
		uint32_t n = 0;
		while (t->child_count[n]) {
			uint32_t c = t->child_first[n];
			while (s >= t->tri_first[c] + t->tri_count[c])
				c++;
			n = c;
		}
		for (;; n = t->parent[n]) {
			double S[9];
			node_tri(t, n, S);
			ok &= mrdem_point_triangle(y, &S[0], &S[3], &S[6], NULL) <= t->eps[n] + e;
			if (n == 0)
				break;
		}
	}
	return ok;
}

static void encode(struct mrdem_buf *b, const struct mrdem_tree *t)
{
	mrdem_buf_init(b);
	mrdem_encode_tree(b, 0, t);
}

struct shape_case {
	const char *name;
	struct mrdem_mesh m;
};

static void make_cases(struct shape_case *c, int *n)
{
	static const struct {
		uint32_t tris;
		double stretch, noise;
	} s[] = {
		{80, 1.0, 1.0},   {320, 1.0, 1.0}, {1280, 1.0, 1.0}, {320, 2.6, 1.0},
		{1280, 1.8, 1.0}, {80, 1.0, 1.5},  {1280, 1.0, 1.5},
		{1224, 1.0, 1.0}, {12, 1.0, 1.0},
	};
	static char names[16][64];
	*n = 0;
	for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
		struct mrdem_sphere_opts o;
		mrdem_sphere_opts_default(&o);
		o.triangles = s[i].tris;
		o.stretch = s[i].stretch;
		o.noise = s[i].noise;
		o.seed = 17;
		mrdem_mesh_init(&c[*n].m);
		if (mrdem_mesh_sphere(&c[*n].m, &o) || mrdem_mesh_validate(&c[*n].m, 0, "sphere"))
			exit(1);
		snprintf(names[*n], sizeof names[*n], "sphere %u, stretch %.1f, noise %.1f",
			 s[i].tris, s[i].stretch, s[i].noise);
		c[*n].name = names[*n];
		(*n)++;
	}
	double size[3] = {2, 1, 0.5};
	mrdem_mesh_init(&c[*n].m);
	if (mrdem_mesh_box(&c[*n].m, size, 4) || mrdem_mesh_validate(&c[*n].m, 0, "box"))
		exit(1);
	c[(*n)++].name = "box 2 x 1 x 0.5, 4 divisions";
	mrdem_mesh_init(&c[*n].m);
	if (mrdem_mesh_cylinder(&c[*n].m, 0.3, 2, 24) || mrdem_mesh_validate(&c[*n].m, 0, "cyl"))
		exit(1);
	c[(*n)++].name = "cylinder r 0.3 h 2, 24 segments";
	mrdem_mesh_init(&c[*n].m);
	if (mrdem_mesh_plane(&c[*n].m, 4, 3, 6, 5, 20) ||
	    mrdem_mesh_validate(&c[*n].m, MRDEM_MESH_ALLOW_OPEN, "plane"))
		exit(1);
	c[(*n)++].name = "open tilted plane 6 x 5 quads";
}

static void test_shapes(void)
{
	struct shape_case cases[16];
	int ncases;
	make_cases(cases, &ncases);
	struct mrdem_tree_params p;
	mrdem_tree_params_default(&p);
	for (int i = 0; i < ncases; i++) {
		const struct mrdem_mesh *m = &cases[i].m;
		struct mrdem_tree *t;
		if (!tap_ok(mrdem_tree_build(m, &p, &t) == 0, "%s: tree built", cases[i].name))
			continue;
		tap_ok(check_shape_of_tree(t, &p), "  layout: levels, children <= fanout, clusters "
		       "<= 125 %% of the mean, leaves <= leaf size, every triangle under exactly "
		       "one leaf");
		int cons, tight;
		double slack;
		check_eps_by_sampling(t, m, &cons, &tight, &slack);
		tap_ok(cons, "  every sampled point of every real triangle lies in every ancestor's "
		       "halo");
		tap_ok(tight, "  eps is the exact maximum (largest excess over the farthest vertex "
		       "%.2g)", slack);
		tap_ok(mrdem_tree_verify(t, m, NULL) == 0, "  verifier finds no violation");
		tap_ok(check_random_points(t, m, 0.0, 2000, 1 + i), "  random points on leaf "
		       "triangles lie in every ancestor's halo");
		tap_ok(check_random_points(t, m, 0.05, 2000, 100 + i), "  random points in leaf "
		       "halos (e = 0.05) lie in every ancestor's halo");
		double qmin = 1;
		for (uint32_t n = 0; n < t->nnodes; n++) {
			double S[9];
			node_tri(t, n, S);
			qmin = fmin(qmin, mrdem_triangle_quality(S));
		}
		tap_ok(qmin >= 0.5 * MRDEM_SURROGATE_MIN_QUALITY, "  no degenerate surrogate "
		       "(lowest quality %.3g)", qmin);
		mrdem_tree_free(t);
	}
	for (int i = 0; i < ncases; i++)
		mrdem_mesh_release(&cases[i].m);
}

/* Paper Table 1: root halo <= 135 % of the bounding sphere at stretch 1,
 * <= 37 % at stretch 2.6. */
static void test_table1_bounds(void)
{
	uint32_t counts[] = {80, 320, 1280};
	double stretch[] = {1.0, 2.6}, bound[] = {1.35, 0.37};
	struct mrdem_tree_params p;
	mrdem_tree_params_default(&p);
	for (int s = 0; s < 2; s++)
		for (int c = 0; c < 3; c++) {
			struct mrdem_sphere_opts o;
			mrdem_sphere_opts_default(&o);
			o.triangles = counts[c];
			o.radius = 0.5;
			o.stretch = stretch[s];
			struct mrdem_mesh m;
			mrdem_mesh_init(&m);
			if (mrdem_mesh_sphere(&m, &o) || mrdem_mesh_validate(&m, 0, "sphere"))
				exit(1);
			struct mrdem_tree *t;
			if (mrdem_tree_build(&m, &p, &t))
				exit(1);
			struct mrdem_tree_root_stats r;
			mrdem_tree_root_stats(t, &m, &r);
			tap_ok(r.ratio <= bound[s] && r.ratio > 0, "Table 1, |T| = %u, stretch %.1f: "
			       "root halo %.1f %% of the bounding sphere (paper bound %.0f %%)",
			       counts[c], stretch[s], 100 * r.ratio, 100 * bound[s]);
			tap_near(r.radius, 0.5 * stretch[s], 1e-12, "  bounding sphere radius = "
				 "stretch / 2 as in the paper");
			/* the Steiner volume agrees with a direct computation */
			double S[9];
			node_tri(t, 0, S);
			tap_near(r.halo_volume, mrdem_halo_volume(S, t->eps[0]), 1e-15, "  halo volume");
			mrdem_tree_free(t);
			mrdem_mesh_release(&m);
		}
}

static void test_determinism(void)
{
	struct mrdem_sphere_opts o;
	mrdem_sphere_opts_default(&o);
	o.triangles = 320;
	o.noise = 1.4;
	o.seed = 9;
	struct mrdem_mesh m;
	mrdem_mesh_init(&m);
	if (mrdem_mesh_sphere(&m, &o) || mrdem_mesh_validate(&m, 0, "sphere"))
		exit(1);
	struct mrdem_tree_params p;
	mrdem_tree_params_default(&p);
	struct mrdem_buf b[4];
	for (int i = 0; i < 4; i++) {
		struct mrdem_tree *t;
		omp_set_num_threads(i == 0 ? 1 : 2);
		p.seed = i == 3 ? 2 : 1;
		if (mrdem_tree_build(&m, &p, &t))
			exit(1);
		encode(&b[i], t);
		mrdem_tree_free(t);
	}
	omp_set_num_threads(2);
	tap_ok(b[0].len == b[1].len && !memcmp(b[0].p, b[1].p, b[0].len),
	       "1 and 2 threads give byte-identical trees");
	tap_ok(b[1].len == b[2].len && !memcmp(b[1].p, b[2].p, b[1].len),
	       "the same seed twice gives byte-identical trees");
	tap_ok(b[1].len != b[3].len || memcmp(b[1].p, b[3].p, b[1].len),
	       "another k-means seed gives another tree");
	for (int i = 0; i < 4; i++)
		mrdem_buf_release(&b[i]);
	mrdem_mesh_release(&m);
}

static void test_verifier_catches_damage(void)
{
	struct mrdem_mesh m;
	struct mrdem_sphere_opts o;
	mrdem_sphere_opts_default(&o);
	o.triangles = 320;
	mrdem_mesh_init(&m);
	if (mrdem_mesh_sphere(&m, &o) || mrdem_mesh_validate(&m, 0, "sphere"))
		exit(1);
	struct mrdem_tree_params p;
	mrdem_tree_params_default(&p);
	struct mrdem_tree *t;
	if (mrdem_tree_build(&m, &p, &t))
		exit(1);
	uint32_t n = t->level_first[1] + 3;
	float keep = t->eps[n];
	t->eps[n] = nextafterf(keep, 0);
	struct mrdem_tree_violation v;
	size_t bad = mrdem_tree_verify(t, &m, &v);
	tap_ok(bad >= 1 && v.node == n && v.dist > v.eps,
	       "eps of node %u lowered by one ulp: %zu violation(s), worst at node %u", n, bad,
	       v.node);
	t->eps[n] = keep;
	t->tri[9 * 0 + 4] += 0.05f; /* move a root vertex */
	bad = mrdem_tree_verify(t, &m, &v);
	tap_ok(bad >= 1 && v.node == 0, "moved root vertex: violation at the root (%zu)", bad);
	mrdem_tree_free(t);
	mrdem_mesh_release(&m);
}

/* Triangles whose centroids coincide cannot be separated by k-means; the
 * build must still end, and stay conservative. */
static void test_coincident_centroids(void)
{
	struct mrdem_mesh m;
	mrdem_mesh_init(&m);
	uint32_t nt = 40;
	mrdem_mesh_alloc(&m, 3 * nt, nt);
	for (uint32_t i = 0; i < nt; i++) {
		double a = 2 * M_PI * i / nt;
		for (int v = 0; v < 3; v++) {
			double b = a + 2 * M_PI * v / 3;
			double *q = &m.verts[3 * (3 * i + v)];
			vec3_set(q, cos(b), sin(b), 0.1 * (v - 1) * sin(a));
			m.tris[3 * i + v] = 3 * i + v;
		}
	}
	m.open = 1;
	struct mrdem_tree_params p;
	mrdem_tree_params_default(&p);
	p.leaf = 4;
	struct mrdem_tree *t;
	tap_ok(mrdem_tree_build(&m, &p, &t) == 0, "40 triangles with one common centroid: built");
	tap_ok(check_shape_of_tree(t, &p) && mrdem_tree_verify(t, &m, NULL) == 0,
	       "  split down to leaves of <= 4 and conservative");
	mrdem_tree_free(t);
	mrdem_mesh_release(&m);
}

static void test_params(void)
{
	struct mrdem_tree_params p;
	mrdem_tree_params_default(&p);
	tap_ok(mrdem_tree_params_check(&p) == 0, "default parameters are valid");
	p.fanout = 1;
	tap_capture_begin();
	int rc = mrdem_tree_params_check(&p);
	const char *err = tap_capture_end();
	tap_ok(rc < 0 && strstr(err, "fanout 1 out of range"), "fanout 1 is refused");
	mrdem_tree_params_default(&p);
	p.beta_size = 1;
	tap_capture_begin();
	rc = mrdem_tree_params_check(&p);
	err = tap_capture_end();
	tap_ok(rc < 0 && strstr(err, "beta_size 1 out of range"), "beta_size 1 is refused");
	mrdem_tree_params_default(&p);
	p.alpha_area = 0;
	tap_capture_begin();
	rc = mrdem_tree_params_check(&p);
	err = tap_capture_end();
	tap_ok(rc < 0 && strstr(err, "alpha_area must be positive"), "alpha_area 0 is refused");
	mrdem_tree_params_default(&p);
	p.alpha_inside = NAN;
	tap_capture_begin();
	rc = mrdem_tree_params_check(&p);
	err = tap_capture_end();
	tap_ok(rc < 0 && strstr(err, "alpha_inside must be >= 0"), "alpha_inside NaN is refused");
}

int main(void)
{
	test_params();
	test_shapes();
	test_table1_bounds();
	test_determinism();
	test_verifier_catches_damage();
	test_coincident_centroids();
	return tap_done();
}
