/* Lemma 5.1 as a property test: the multiresolution search (Alg. 5) finds
 * exactly the flat search's contacts, same triangle pairs and same bits,
 * on random poses of random shapes, for every kernel method. Lemma 5.7 for
 * the fronts of multiscale Picard (Alg. 6): once an iteration unfolds
 * nothing, the front's real contacts are the flat search's, also when the
 * front was left by other poses (warm start, narrowing), settled by
 * mrdem_front_settle as the explicit schemes' search that remembers
 * settles it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/quat.h"
#include "common/geom/xform.h"
#include "common/mesh/mesh.h"
#include "common/narrow/search/front_search.h"
#include "common/narrow/search/tree_search.h"
#include "common/tree/tree.h"
#include "common/util/error.h"
#include "common/util/rng.h"
#include "tests/lib/tap.h"

struct shape {
	struct mrdem_mesh m;
	struct mrdem_tree *t;
	float *soup; /* mesh order */
	double radius;
};

/* Tree, mesh-order float soup and bounding radius of a made mesh. */
static void finish_shape(struct shape *s)
{
	struct mrdem_tree_params p;
	mrdem_tree_params_default(&p);
	if (mrdem_tree_build(&s->m, &p, &s->t))
		mrdem_die("cannot build tree");
	s->soup = malloc(9 * sizeof(float) * s->m.ntris);
	for (uint32_t i = 0; i < s->m.ntris; i++)
		for (int v = 0; v < 3; v++)
			for (int k = 0; k < 3; k++)
				s->soup[9 * i + 3 * v + k] = (float)s->m.verts[3 * s->m.tris[3 * i + v] + k];
	s->radius = mrdem_mesh_radius_about(&s->m, s->m.mass.com);
}

static void make_shape(struct shape *s, uint32_t tris, double radius, double noise,
		       double stretch, uint64_t seed)
{
	struct mrdem_sphere_opts o;
	mrdem_sphere_opts_default(&o);
	o.triangles = tris;
	o.radius = radius;
	o.noise = noise;
	o.stretch = stretch;
	o.seed = seed;
	mrdem_mesh_init(&s->m);
	if (mrdem_mesh_sphere(&s->m, &o))
		mrdem_die("cannot make sphere");
	finish_shape(s);
}

static void make_box(struct shape *s, double sx, double sy, double sz)
{
	double size[3] = {sx, sy, sz};
	mrdem_mesh_init(&s->m);
	if (mrdem_mesh_box(&s->m, size, 4))
		mrdem_die("cannot make box");
	finish_shape(s);
}

/* An open, tilted plane mesh: the obstacle of a fixed particle. */
static void make_plane(struct shape *s)
{
	mrdem_mesh_init(&s->m);
	if (mrdem_mesh_plane(&s->m, 3.0, 2.0, 3, 2, 10.0))
		mrdem_die("cannot make plane");
	finish_shape(s);
}

static int same_hits(const struct mrdem_tri_hits *x, const struct mrdem_tri_hits *y)
{
	if (x->n != y->n)
		return 0;
	for (size_t i = 0; i < x->n; i++) {
		const struct mrdem_tri_hit *p = &x->h[i], *q = &y->h[i];
		if (p->ta != q->ta || p->tb != q->tb || memcmp(p->pa, q->pa, sizeof p->pa) ||
		    memcmp(p->pb, q->pb, sizeof p->pb) || memcmp(&p->dist, &q->dist, sizeof p->dist))
			return 0;
	}
	return 1;
}

/* Iterate the front at pose x until an iteration unfolds nothing; the hits
 * of that iteration go to hits (mrdem_front_settle). Returns the
 * iterations, -1 when it did not settle. */
static int settle(struct mrdem_tree_search *ts, struct mrdem_front *fr, const struct shape *a,
		  const struct shape *b, float ea, float eb, const struct mrdem_xform *x,
		  const struct mrdem_narrow_opts *o, struct mrdem_tri_hits *hits,
		  struct mrdem_front_counts *fc)
{
	struct mrdem_search_side A = {a->t, ea}, B = {b->t, eb};
	struct mrdem_tri_hits guesses;
	struct mrdem_search_counts c;
	memset(&c, 0, sizeof c);
	mrdem_tri_hits_init(&guesses);
	hits->n = 0;
	int it = mrdem_front_settle(ts, fr, &A, &B, x, o, hits, &guesses, &c, fc);
	mrdem_tri_hits_release(&guesses);
	return it;
}

static void pose(struct mrdem_rng *rng, const struct shape *a, const struct shape *b, double lo,
		 double hi, double pa[3], double qa[4], double pb[3], double qb[4], double dir[3])
{
	mrdem_rng_quat(rng, qa);
	mrdem_rng_quat(rng, qb);
	for (int c = 0; c < 3; c++)
		dir[c] = mrdem_rng_normal(rng);
	double n = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
	double d = (a->radius + b->radius) * mrdem_rng_range(rng, lo, hi);
	for (int c = 0; c < 3; c++) {
		dir[c] /= n;
		pa[c] = mrdem_rng_range(rng, -100, 100); /* far from the origin */
		pb[c] = pa[c] + d * dir[c];
	}
}

/* The hits' closest points and distance anew from the comparison kernel,
 * those it finds apart dropped: what the contact finder does with the
 * flat search's hits, and what a front's hits come with. */
static void exact_hits(struct mrdem_tri_batch *tb, const struct mrdem_tri_set *sa,
		       const struct mrdem_tri_set *sb, const struct mrdem_narrow_opts *o,
		       struct mrdem_tri_hits *hits)
{
	if (o->method == MRDEM_NARROW_COMPARISON || !hits->n)
		return;
	size_t n = hits->n, kept = 0;
	uint32_t *pairs = malloc(2 * n * sizeof *pairs);
	struct mrdem_tri_result *r = malloc(n * sizeof *r);
	for (size_t i = 0; i < n; i++) {
		pairs[2 * i] = hits->h[i].ta;
		pairs[2 * i + 1] = hits->h[i].tb;
	}
	struct mrdem_narrow_opts exact = *o;
	exact.method = MRDEM_NARROW_COMPARISON;
	struct mrdem_narrow_counts uncounted = {0};
	mrdem_tri_pairs_test(tb, sa, sb, pairs, n, &exact, r, &uncounted);
	for (size_t i = 0; i < n; i++) {
		if (r[i].status != MRDEM_TRI_CONTACT)
			continue;
		struct mrdem_tri_hit *h = &hits->h[kept++];
		*h = hits->h[i];
		memcpy(h->pa, r[i].pa, sizeof h->pa);
		memcpy(h->pb, r[i].pb, sizeof h->pb);
		h->dist = r[i].dist;
	}
	hits->n = kept;
	free(pairs);
	free(r);
}

static void flat_hits(struct mrdem_tri_batch *tb, const struct shape *a, const struct shape *b,
		      float ea, float eb, const struct mrdem_xform *x,
		      const struct mrdem_narrow_opts *o, float **mapped, size_t *cap,
		      struct mrdem_tri_hits *flat, struct mrdem_narrow_counts *fc)
{
	if (b->m.ntris * 9 > *cap)
		*mapped = realloc(*mapped, (*cap = 9 * b->m.ntris) * sizeof **mapped);
	xform_apply_tris(x, b->soup, *mapped, b->m.ntris);
	struct mrdem_tri_set sa = {a->soup, a->m.ntris, NULL, ea};
	struct mrdem_tri_set sb = {*mapped, b->m.ntris, NULL, eb};
	flat->n = 0;
	mrdem_tri_all_pairs(tb, &sa, &sb, o, flat, fc);
	exact_hits(tb, &sa, &sb, o, flat);
}

/* A front and the scratch to hold it against the flat search. */
struct front_check {
	struct mrdem_tree_search *ts;
	struct mrdem_tri_batch *tb;
	struct mrdem_front *fr;
	struct mrdem_tri_hits flat, front;
	float *mapped;
	size_t cap;
};

static void front_check_init(struct front_check *c)
{
	c->ts = mrdem_tree_search_new();
	c->tb = mrdem_tri_batch_new();
	c->fr = mrdem_front_new();
	mrdem_tri_hits_init(&c->flat);
	mrdem_tri_hits_init(&c->front);
	c->mapped = NULL;
	c->cap = 0;
}

static void front_check_release(struct front_check *c)
{
	free(c->mapped);
	mrdem_tri_hits_release(&c->flat);
	mrdem_tri_hits_release(&c->front);
	mrdem_front_free(c->fr);
	mrdem_tree_search_free(c->ts);
	mrdem_tri_batch_free(c->tb);
}

/* Lemma 5.7 on random poses from the roots, and along paths of poses with
 * one front each: approach, contact, retreat. */
static void test_fronts(struct shape *shapes, int nshapes, int poses)
{
	struct mrdem_rng rng;
	mrdem_rng_seed(&rng, 57);
	struct front_check chk;
	front_check_init(&chk);
	int mismatches = 0, failed = 0, touching = 0, path_bad = 0, far_big = 0;
	struct mrdem_front_counts fc = {0}, path = {0};
	for (int k = 0; k < poses; k++) {
		const struct shape *a = &shapes[mrdem_rng_u64(&rng) % nshapes];
		const struct shape *b = &shapes[mrdem_rng_u64(&rng) % nshapes];
		double pa[3], qa[4], pb[3], qb[4], dir[3];
		pose(&rng, a, b, 0.55, 1.02, pa, qa, pb, qb, dir);
		struct mrdem_xform x;
		xform_relative(&x, pa, qa, a->m.mass.com, pb, qb, b->m.mass.com);
		float ea = (float)(0.02 * a->radius), eb = (float)(0.02 * b->radius);
		struct mrdem_narrow_opts o;
		mrdem_narrow_opts_default(&o);
		o.method = k % 3;
		flat_hits(chk.tb, a, b, ea, eb, &x, &o, &chk.mapped, &chk.cap, &chk.flat, &(struct mrdem_narrow_counts){0});
		mrdem_front_reset(chk.fr);
		if (settle(chk.ts, chk.fr, a, b, ea, eb, &x, &o, &chk.front, &fc) < 0)
			failed++;
		else if (!same_hits(&chk.flat, &chk.front))
			mismatches++, tap_diag("pose %d: flat %zu hits, front %zu", k, chk.flat.n, chk.front.n);
		touching += chk.flat.n > 0;

		/* A path: b moves along dir from deep contact to well apart, one
		 * front throughout. */
		mrdem_front_reset(chk.fr);
		for (int step = 0; step <= 12; step++) {
			double s = 0.6 + 0.05 * step, pb2[3];
			for (int c = 0; c < 3; c++)
				pb2[c] = pa[c] + s * (a->radius + b->radius) * dir[c];
			xform_relative(&x, pa, qa, a->m.mass.com, pb2, qb, b->m.mass.com);
			flat_hits(chk.tb, a, b, ea, eb, &x, &o, &chk.mapped, &chk.cap, &chk.flat,
				  &(struct mrdem_narrow_counts){0});
			if (settle(chk.ts, chk.fr, a, b, ea, eb, &x, &o, &chk.front, &path) < 0 ||
			    !same_hits(&chk.flat, &chk.front))
				path_bad++;
		}
		/* Apart by 20 % of the radii: one level narrows per iteration,
		 * back to no more pairs than a front settled from the roots. */
		for (int it = 0; it < 2 * MRDEM_SEARCH_ROUNDS; it++)
			if (settle(chk.ts, chk.fr, a, b, ea, eb, &x, &o, &chk.front, &path) < 0)
				path_bad++;
		size_t warm = mrdem_front_size(chk.fr);
		mrdem_front_reset(chk.fr);
		if (settle(chk.ts, chk.fr, a, b, ea, eb, &x, &o, &chk.front, &path) < 0)
			path_bad++;
		far_big += warm > mrdem_front_size(chk.fr);
	}
	tap_ok(touching > poses / 4, "fronts: poses cover contact and no contact (%d of %d touch)",
	       touching, poses);
	tap_eq_int(failed, 0, "fronts settle (an iteration without unfolding, no node pair in contact)");
	tap_eq_int(mismatches, 0, "Lemma 5.7: settled fronts find the flat search's contacts "
		   "(%d poses, three kernels)", poses);
	tap_eq_int(path_bad, 0, "Lemma 5.7 along paths from contact to apart, one front each");
	tap_ok(path.narrows > 0 && far_big == 0, "fronts narrow when the particles part "
	       "as far as a cold start (%llu narrows, %d fronts larger)", (unsigned long long)path.narrows, far_big);
	tap_ok(fc.unfolds > 0 && fc.guesses > 0, "fronts unfold and report guesses (%llu, %llu)",
	       (unsigned long long)fc.unfolds, (unsigned long long)fc.guesses);
	front_check_release(&chk);
}

/* The motion bound: one front follows b along a slow path, a translation
 * through contact and a rotation about a random axis, each step a fraction
 * of the margin, settling at every pose. Pairs found apart with widened
 * halos are not tested again until b has moved by the margin, so a bound
 * that missed the rotation (or the distance from b's origin) would let a
 * pair come into contact untested. At every pose the front's contacts are
 * the flat search's, bit for bit. */
static void test_motion_bound(struct shape *shapes, int nshapes, int paths)
{
	struct mrdem_rng rng;
	mrdem_rng_seed(&rng, 58);
	struct front_check chk;
	front_check_init(&chk);
	int bad = 0, touching = 0, poses = 0;
	struct mrdem_front_counts fc = {0};
	for (int k = 0; k < paths; k++) {
		const struct shape *a = &shapes[mrdem_rng_u64(&rng) % nshapes];
		const struct shape *b = &shapes[mrdem_rng_u64(&rng) % nshapes];
		double pa[3], qa[4], pb[3], qb[4], dir[3], axis[3];
		pose(&rng, a, b, 0.8, 0.95, pa, qa, pb, qb, dir);
		double s0 = sqrt((pb[0] - pa[0]) * (pb[0] - pa[0]) + (pb[1] - pa[1]) * (pb[1] - pa[1]) +
				 (pb[2] - pa[2]) * (pb[2] - pa[2])) / (a->radius + b->radius);
		for (int c = 0; c < 3; c++)
			axis[c] = mrdem_rng_normal(&rng);
		double an = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
		for (int c = 0; c < 3; c++)
			axis[c] /= an;
		float ea = (float)(0.02 * a->radius), eb = (float)(0.02 * b->radius);
		double sum = a->radius + b->radius, spin[4];
		/* per step: a translation of 2e-4 of the radii, and a rotation
		 * moving b's surface by as much (the margin is 2e-3 of them) */
		quat_from_axis_angle(spin, axis, 2e-4 * sum / b->radius);
		struct mrdem_narrow_opts o;
		mrdem_narrow_opts_default(&o);
		o.method = k % 3;
		mrdem_front_reset(chk.fr);
		for (int step = 0; step < 160; step++) {
			double s = s0 + 2e-4 * step, pb2[3], q[4];
			for (int c = 0; c < 3; c++)
				pb2[c] = pa[c] + s * sum * dir[c];
			quat_mul(q, spin, qb);
			memcpy(qb, q, sizeof q);
			quat_normalize(qb);
			struct mrdem_xform x;
			xform_relative(&x, pa, qa, a->m.mass.com, pb2, qb, b->m.mass.com);
			flat_hits(chk.tb, a, b, ea, eb, &x, &o, &chk.mapped, &chk.cap, &chk.flat,
				  &(struct mrdem_narrow_counts){0});
			if (settle(chk.ts, chk.fr, a, b, ea, eb, &x, &o, &chk.front, &fc) < 0 ||
			    !same_hits(&chk.flat, &chk.front))
				bad++, tap_diag("path %d step %d: flat %zu hits, front %zu", k, step,
						chk.flat.n, chk.front.n);
			touching += chk.flat.n > 0;
			poses++;
		}
	}
	tap_ok(touching > poses / 10 && touching < poses,
	       "slow paths pass through contact (%d of %d poses touch)", touching, poses);
	tap_eq_int(bad, 0, "Lemma 5.7 along slow rotating paths with the motion bound (%d poses)",
		   poses);
	tap_ok(fc.skipped > fc.size / 2 && fc.certificates * 3 < (uint64_t)poses,
	       "the motion bound skips pairs across poses (%llu of %llu front pairs skipped, %llu "
	       "certificates for %d poses)", (unsigned long long)fc.skipped,
	       (unsigned long long)fc.size, (unsigned long long)fc.certificates, poses);
	front_check_release(&chk);
}

int main(void)
{
	mrdem_set_progname("test_tree_search");
	int quick = getenv("MRDEM_ASAN") != NULL;
	struct shape shapes[7];
	make_shape(&shapes[0], 320, 1.0, 1.0, 1.0, 1);
	make_shape(&shapes[1], 1280, 1.0, 1.3, 1.0, 2);
	make_shape(&shapes[2], 320, 0.5, 1.0, 2.6, 3);
	make_shape(&shapes[3], 140, 2.0, 1.2, 1.0, 4);
	make_shape(&shapes[4], 80, 0.3, 1.0, 1.4, 5);
	make_box(&shapes[5], 1.0, 2.0, 0.5);
	make_plane(&shapes[6]);
	const int nshapes = 7;

	struct mrdem_rng rng;
	mrdem_rng_seed(&rng, 2026);
	struct mrdem_tree_search *ts = mrdem_tree_search_new();
	struct mrdem_tri_batch *tb = mrdem_tri_batch_new();
	int poses = quick ? 60 : 300, mismatches[3] = {0}, with_contacts = 0;
	uint64_t flat_cmp = 0, tree_cmp = 0;
	float *mapped = NULL;
	size_t mapped_cap = 0;
	for (int k = 0; k < poses; k++) {
		struct shape *a = &shapes[mrdem_rng_u64(&rng) % nshapes];
		struct shape *b = &shapes[mrdem_rng_u64(&rng) % nshapes];
		double qa[4], qb[4], pa[3] = {0}, pb[3], dir[3];
		mrdem_rng_quat(&rng, qa);
		mrdem_rng_quat(&rng, qb);
		for (int c = 0; c < 3; c++)
			dir[c] = mrdem_rng_normal(&rng);
		double n = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
		double d = (a->radius + b->radius) * mrdem_rng_range(&rng, 0.55, 1.02);
		for (int c = 0; c < 3; c++) {
			pa[c] = mrdem_rng_range(&rng, -100, 100); /* far from the origin */
			pb[c] = pa[c] + d * dir[c] / n;
		}
		struct mrdem_xform x;
		xform_relative(&x, pa, qa, a->m.mass.com, pb, qb, b->m.mass.com);
		float ea = (float)(0.02 * a->radius), eb = (float)(0.02 * b->radius);
		if (b->m.ntris * 9 > mapped_cap)
			mapped = realloc(mapped, (mapped_cap = 9 * b->m.ntris) * sizeof *mapped);
		xform_apply_tris(&x, b->soup, mapped, b->m.ntris);
		for (int method = 0; method < 3; method++) {
			struct mrdem_narrow_opts o;
			mrdem_narrow_opts_default(&o);
			o.method = method;
			struct mrdem_tri_set sa = {a->soup, a->m.ntris, NULL, ea};
			struct mrdem_tri_set sb = {mapped, b->m.ntris, NULL, eb};
			struct mrdem_tri_hits flat, tree;
			mrdem_tri_hits_init(&flat);
			mrdem_tri_hits_init(&tree);
			struct mrdem_narrow_counts fc = {0};
			struct mrdem_search_counts tc;
			memset(&tc, 0, sizeof tc);
			mrdem_tri_all_pairs(tb, &sa, &sb, &o, &flat, &fc);
			struct mrdem_search_side A = {a->t, ea}, B = {b->t, eb};
			mrdem_tree_search(ts, &A, &B, &x, &o, &tree, &tc);
			if (!same_hits(&flat, &tree)) {
				mismatches[method]++;
				tap_diag("pose %d method %d: flat %zu hits, tree %zu", k, method,
					 flat.n, tree.n);
			}
			if (method == 0) {
				with_contacts += flat.n > 0;
				flat_cmp += fc.comparisons;
				tree_cmp += tc.real.comparisons;
				for (int r = 0; r < MRDEM_SEARCH_ROUNDS; r++)
					tree_cmp += tc.round[r].comparisons;
			}
			mrdem_tri_hits_release(&flat);
			mrdem_tri_hits_release(&tree);
		}
	}
	tap_ok(with_contacts > poses / 4, "poses cover contact and no contact (%d of %d touch)",
	       with_contacts, poses);
	tap_eq_int(mismatches[0], 0, "comparison kernel: surrogate == flat on %d poses", poses);
	tap_eq_int(mismatches[1], 0, "iterative kernel: surrogate == flat on %d poses", poses);
	tap_eq_int(mismatches[2], 0, "hybrid kernel: surrogate == flat on %d poses", poses);
	tap_ok(tree_cmp * 5 < flat_cmp, "surrogate search compares far fewer pairs (%llu vs %llu)",
	       (unsigned long long)tree_cmp, (unsigned long long)flat_cmp);
	free(mapped);
	mrdem_tree_search_free(ts);
	mrdem_tri_batch_free(tb);
	test_fronts(shapes, nshapes, quick ? 20 : 80);
	test_motion_bound(shapes, nshapes, quick ? 3 : 8);
	for (int i = 0; i < nshapes; i++) {
		mrdem_tree_free(shapes[i].t);
		mrdem_mesh_release(&shapes[i].m);
		free(shapes[i].soup);
	}
	return tap_done();
}
