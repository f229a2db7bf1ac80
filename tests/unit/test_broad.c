/* Broad phase: analytic cases, and the property that every method returns
 * exactly the brute-force list on many random scenes, and on scenes in
 * motion where the incremental methods repair their state step by step. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/broad/broad.h"
#include "common/sim/simulation.h"
#include "common/util/rng.h"
#include "tests/lib/tap.h"

/* Octahedron with vertices at distance r from centre c; its reference
 * point (mass.com) is set to c, so the bound radius is exactly r. */
static void octahedron(struct mrdem_mesh *m, double r, const double c[3])
{
	static const double v[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
	static const uint32_t t[8][3] = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4},
					 {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};
	mrdem_mesh_init(m);
	mrdem_mesh_alloc(m, 6, 8);
	for (int i = 0; i < 6; i++)
		for (int a = 0; a < 3; a++)
			m->verts[3 * i + a] = c[a] + r * v[i][a];
	memcpy(m->tris, t, sizeof t);
	m->open = 0;
	memset(&m->mass, 0, sizeof m->mass);
	m->mass.volume = 4.0 / 3.0 * r * r * r;
	memcpy(m->mass.com, c, sizeof m->mass.com);
}

static void add_octa_shape(struct mrdem_scene *s, double r, const double c[3])
{
	struct mrdem_mesh m;
	octahedron(&m, r, c);
	mrdem_scene_add_shape(s, "octa", &m);
}

static size_t add_particle(struct mrdem_scene *s, uint64_t id, uint32_t shape, double x, double y,
			   double z, double eps)
{
	size_t i = mrdem_particles_push(&s->frame.p, id, shape);
	s->frame.p.pos[3 * i] = x;
	s->frame.p.pos[3 * i + 1] = y;
	s->frame.p.pos[3 * i + 2] = z;
	s->frame.p.eps[i] = eps;
	return i;
}

static void add_plane(struct mrdem_scene *s, const double pt[3], const double n[3])
{
	struct mrdem_setup *su = &s->setup;
	su->planes = realloc(su->planes, (su->nplanes + 1) * sizeof *su->planes);
	memcpy(su->planes[su->nplanes].point, pt, 3 * sizeof(double));
	memcpy(su->planes[su->nplanes].normal, n, 3 * sizeof(double));
	su->nplanes++;
}

static int run(const struct mrdem_scene *s, int method, struct mrdem_pairs *out,
	       struct mrdem_broad_stats *st)
{
	struct mrdem_broad *b = mrdem_broad_new();
	int r = mrdem_broad_phase(b, s, method, out, st);
	mrdem_broad_free(b);
	return r;
}

/* run at the SIMD level simd (enum mrdem_simd). */
static int run_simd(const struct mrdem_scene *s, int method, int simd, struct mrdem_pairs *out,
		    struct mrdem_broad_stats *st)
{
	struct mrdem_broad *b = mrdem_broad_new();
	mrdem_broad_set_simd(b, simd);
	int r = mrdem_broad_phase(b, s, method, out, st);
	mrdem_broad_free(b);
	return r;
}

static int same_pairs(const struct mrdem_pairs *a, const struct mrdem_pairs *b)
{
	if (a->n != b->n)
		return 0;
	for (size_t k = 0; k < a->n; k++)
		if (a->p[k].a != b->p[k].a || a->p[k].b != b->p[k].b)
			return 0;
	return 1;
}

static int has_pair(const struct mrdem_pairs *p, uint64_t a, uint64_t b)
{
	for (size_t k = 0; k < p->n; k++)
		if (p->p[k].a == a && p->p[k].b == b)
			return 1;
	return 0;
}

/* Every method agrees with brute force and returns `want` pairs; returns
 * the grid list. */
static void check_both(const struct mrdem_scene *s, struct mrdem_pairs *grid, size_t want,
		       const char *what)
{
	struct mrdem_pairs brute, other;
	mrdem_pairs_init(&brute);
	mrdem_pairs_init(&other);
	int rb = run(s, MRDEM_BROAD_BRUTE, &brute, NULL);
	int rg = run(s, MRDEM_BROAD_GRID, grid, NULL);
	tap_ok(rb == 0 && rg == 0, "%s: brute and grid succeed", what);
	tap_eq_int(grid->n, want, "%s: pair count", what);
	tap_ok(same_pairs(&brute, grid), "%s: grid == brute", what);
	for (int m = MRDEM_BROAD_SAP; m < MRDEM_BROAD_NMETHODS; m++) {
		int rc = run(s, m, &other, NULL);
		tap_ok(rc == 0 && same_pairs(&brute, &other), "%s: %s == brute", what,
		       mrdem_broad_method_name(m));
	}
	mrdem_pairs_release(&brute);
	mrdem_pairs_release(&other);
}

static void test_touching(void)
{
	struct mrdem_scene s;
	mrdem_scene_init(&s);
	double c0[3] = {0, 0, 0}, c5[3] = {5, -2, 1};
	add_octa_shape(&s, 1.0, c0);
	add_octa_shape(&s, 1.0, c5); /* reference point away from the origin */
	/* Bound radius 1 + 0.25 = 1.25 each: exactly touching at 2.5. */
	add_particle(&s, 10, 0, 0, 0, 0, 0.25);
	add_particle(&s, 20, 1, 2.5, 0, 0, 0.25);
	add_particle(&s, 30, 0, 0, 2.5000001, 0, 0.25);
	struct mrdem_pairs p;
	mrdem_pairs_init(&p);
	check_both(&s, &p, 1, "touching spheres");
	tap_ok(has_pair(&p, 10, 20), "touching spheres (distance = r_a + r_b) are a pair");
	tap_ok(!has_pair(&p, 10, 30), "spheres 1e-7 apart are not");
	tap_eq_int(p.step, s.frame.step, "pairs carry the frame's step");
	mrdem_pairs_release(&p);
	mrdem_scene_release(&s);
}

static void test_fixed_and_order(void)
{
	struct mrdem_scene s;
	mrdem_scene_init(&s);
	double c0[3] = {0, 0, 0};
	add_octa_shape(&s, 1.0, c0);
	/* ids deliberately not in index order */
	add_particle(&s, 7, 0, 0, 0, 0, 0);
	add_particle(&s, 3, 0, 1, 0, 0, 0);
	add_particle(&s, 5, 0, 0.5, 1, 0, 0);
	s.frame.p.flags[0] = MRDEM_PARTICLE_FIXED;
	s.frame.p.flags[1] = MRDEM_PARTICLE_FIXED;
	struct mrdem_pairs p;
	mrdem_pairs_init(&p);
	check_both(&s, &p, 2, "fixed particles");
	tap_ok(p.n == 2 && p.p[0].a == 7 && p.p[0].b == 5 && p.p[1].a == 3 && p.p[1].b == 5,
	       "fixed-fixed skipped; pairs in frame index order with a first");
	struct mrdem_broad_stats st;
	run(&s, MRDEM_BROAD_BRUTE, &p, &st);
	tap_eq_int(st.sphere_tests, 2, "brute tests every pair except fixed-fixed");
	mrdem_pairs_release(&p);
	mrdem_scene_release(&s);
}

/* No particles at all, then two touching ones, with one workspace per
 * method: the kept state of an empty frame is a valid start. */
static void test_empty(void)
{
	struct mrdem_scene s;
	mrdem_scene_init(&s);
	double c0[3] = {0, 0, 0};
	add_octa_shape(&s, 1.0, c0);
	struct mrdem_pairs p;
	mrdem_pairs_init(&p);
	for (int m = 0; m < MRDEM_BROAD_NMETHODS; m++) {
		struct mrdem_broad *b = mrdem_broad_new();
		s.frame.p.n = 0;
		int rc = mrdem_broad_phase(b, &s, m, &p, NULL);
		tap_ok(rc == 0 && p.n == 0, "%s: no particles, no pairs", mrdem_broad_method_name(m));
		add_particle(&s, 1, 0, 0, 0, 0, 0);
		add_particle(&s, 2, 0, 2, 0, 0, 0);
		rc = mrdem_broad_phase(b, &s, m, &p, NULL);
		tap_ok(rc == 0 && p.n == 1 && p.p[0].a == 1 && p.p[0].b == 2,
		       "%s: then two touching particles, one pair", mrdem_broad_method_name(m));
		mrdem_broad_free(b);
	}
	mrdem_pairs_release(&p);
	mrdem_scene_release(&s);
}

static void test_planes(void)
{
	struct mrdem_scene s;
	mrdem_scene_init(&s);
	s.setup.plane_epsilon = 0.5;
	double c0[3] = {0, 0, 0};
	add_octa_shape(&s, 1.0, c0);
	double pt[3] = {0, 0, 0}, nz[3] = {0, 0, 1};
	add_plane(&s, pt, nz);
	double px[3] = {10, 0, 0}, nx[3] = {-1, 0, 0}; /* wall at x = 10 facing -x */
	add_plane(&s, px, nx);
	/* reach = 1 + eps 0.25 + plane_epsilon 0.5 = 1.75 */
	add_particle(&s, 1, 0, 0, 0, 1.75, 0.25);    /* exactly at reach: pair with floor */
	add_particle(&s, 2, 0, 5, 0, 1.76, 0.25);    /* above reach: none */
	add_particle(&s, 3, 0, 8.5, 0, -3, 0.25);    /* below the floor, 1.5 from the wall */
	add_particle(&s, 4, 0, -20, 0, 0, 0.25);     /* fixed on the floor: skipped */
	s.frame.p.flags[3] = MRDEM_PARTICLE_FIXED;
	struct mrdem_pairs p;
	mrdem_pairs_init(&p);
	struct mrdem_broad_stats st;
	check_both(&s, &p, 3, "planes");
	run(&s, MRDEM_BROAD_GRID, &p, &st);
	tap_ok(p.n == 3 && p.p[0].a == 1 && p.p[0].b == MRDEM_PLANE_ID(0) && p.p[1].a == 3 &&
		       p.p[1].b == MRDEM_PLANE_ID(0) && p.p[2].a == 3 && p.p[2].b == MRDEM_PLANE_ID(1),
	       "plane pairs: reach r + eps + plane_epsilon, half-space below counts, planes ordered");
	tap_eq_int(st.plane_pairs, 3, "plane pair statistic");
	tap_eq_int(st.plane_tests, 6, "three movable particles x two planes tested");
	tap_eq_int(st.particle_pairs, 0, "no particle pairs");
	mrdem_pairs_release(&p);
	mrdem_scene_release(&s);
}

static void test_bad_input(void)
{
	struct mrdem_scene s;
	mrdem_scene_init(&s);
	double c0[3] = {0, 0, 0};
	add_octa_shape(&s, 1.0, c0);
	add_particle(&s, 1, 0, 0, 0, 0, 0);
	add_particle(&s, 2, 0, NAN, 0, 0, 0);
	struct mrdem_pairs p;
	mrdem_pairs_init(&p);
	tap_capture_begin();
	int rc = run(&s, MRDEM_BROAD_GRID, &p, NULL);
	const char *err = tap_capture_end();
	tap_ok(rc == -1 && strstr(err, "particle 2 has a non-finite position"),
	       "a NaN position is an error naming the particle: %s", err);
	s.frame.p.pos[3] = 0;
	s.frame.p.eps[1] = -1;
	tap_capture_begin();
	rc = run(&s, MRDEM_BROAD_BRUTE, &p, NULL);
	err = tap_capture_end();
	tap_ok(rc == -1 && strstr(err, "particle 2 has eps -1"),
	       "a negative eps is an error naming the particle: %s", err);
	int names_ok = mrdem_broad_method_parse("octree") == -1 && !mrdem_broad_method_name(-1) &&
		       !mrdem_broad_method_name(MRDEM_BROAD_NMETHODS);
	const char *names[] = {"grid", "brute", "sap", "mr", "mmr"};
	for (int m = 0; m < MRDEM_BROAD_NMETHODS; m++)
		names_ok &= mrdem_broad_method_parse(names[m]) == m &&
			    !strcmp(mrdem_broad_method_name(m), names[m]);
	tap_ok(names_ok, "method names");
	for (int m = 0; m < MRDEM_BROAD_NMETHODS; m++) {
		s.frame.p.eps[1] = 0;
		s.frame.p.pos[3] = INFINITY;
		tap_capture_begin();
		rc = run(&s, m, &p, NULL);
		err = tap_capture_end();
		tap_ok(rc == -1 && strstr(err, "particle 2 has a non-finite position"),
		       "%s: an infinite position is an error", names[m]);
	}
	mrdem_pairs_release(&p);
	mrdem_scene_release(&s);
}

/* Independent reference: the definition, pair by pair, in canonical order. */
static void reference(const struct mrdem_scene *s, const double *radius, struct mrdem_pairs *out)
{
	const struct mrdem_particles *p = &s->frame.p;
	out->n = 0;
	for (size_t i = 0; i < p->n; i++) {
		for (size_t j = i + 1; j < p->n; j++) {
			if ((p->flags[i] & p->flags[j]) & MRDEM_PARTICLE_FIXED)
				continue;
			double d[3], r = radius[i] + radius[j];
			for (int a = 0; a < 3; a++)
				d[a] = p->pos[3 * i + a] - p->pos[3 * j + a];
			if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] <= r * r)
				mrdem_pairs_push(out, p->id[i], p->id[j]);
		}
		if (p->flags[i] & MRDEM_PARTICLE_FIXED)
			continue;
		for (uint32_t k = 0; k < s->setup.nplanes; k++) {
			const struct mrdem_plane *pl = &s->setup.planes[k];
			double h = 0;
			for (int a = 0; a < 3; a++)
				h += (p->pos[3 * i + a] - pl->point[a]) * pl->normal[a];
			if (h <= radius[i] + s->setup.plane_epsilon)
				mrdem_pairs_push(out, p->id[i], MRDEM_PLANE_ID(k));
		}
	}
}

/* A random scene of the given flavour: 0 uniform, 1 clustered, 2 strongly
 * polydisperse with a huge fixed obstacle, 3 lattice of touching spheres
 * far from the origin. */
static void random_scene(struct mrdem_scene *s, struct mrdem_rng *rng, int flavour)
{
	mrdem_scene_init(s);
	unsigned nshapes = 1 + (unsigned)(mrdem_rng_uniform(rng) * 4);
	for (unsigned k = 0; k < nshapes; k++) {
		double c[3] = {mrdem_rng_range(rng, -1, 1), mrdem_rng_range(rng, -1, 1),
			       mrdem_rng_range(rng, -1, 1)};
		double r = flavour == 2 ? exp(mrdem_rng_range(rng, log(0.1), log(3.0)))
					: mrdem_rng_range(rng, 0.5, 1.5);
		add_octa_shape(s, r, c);
	}
	size_t n = 1 + (size_t)(mrdem_rng_uniform(rng) * 400);
	double box = cbrt((double)n) * mrdem_rng_range(rng, 1.0, 4.0);
	double centres[5][3];
	for (int c = 0; c < 5; c++)
		for (int a = 0; a < 3; a++)
			centres[c][a] = mrdem_rng_range(rng, -box, box);
	double far = flavour == 3 ? 1e6 : 0;
	size_t side = (size_t)ceil(cbrt((double)n));
	for (size_t i = 0; i < n; i++) {
		uint32_t shape = (uint32_t)(mrdem_rng_uniform(rng) * nshapes);
		double x[3];
		if (flavour == 1) {
			int c = (int)(mrdem_rng_uniform(rng) * 5);
			for (int a = 0; a < 3; a++)
				x[a] = centres[c][a] + 0.7 * mrdem_rng_normal(rng);
		} else if (flavour == 3) {
			shape = 0;
			size_t q[3] = {i % side, (i / side) % side, i / (side * side)};
			double spacing = 2 * (1.0 + 0.1); /* touching radius 1, eps 0.1 */
			for (int a = 0; a < 3; a++)
				x[a] = far + spacing * (double)q[a];
		} else {
			for (int a = 0; a < 3; a++)
				x[a] = mrdem_rng_range(rng, -box, box);
		}
		double eps = flavour == 3 ? 0.1 : mrdem_rng_range(rng, 0, 0.2);
		size_t idx = add_particle(s, 1000 + 7 * (uint64_t)(n - i), shape, x[0], x[1], x[2], eps);
		if (mrdem_rng_uniform(rng) < 0.1)
			s->frame.p.flags[idx] = MRDEM_PARTICLE_FIXED;
	}
	if (flavour == 3) {
		/* lattice spheres of radius exactly 1 */
		mrdem_mesh_release(&s->shapes[0].mesh);
		double c0[3] = {0, 0, 0};
		octahedron(&s->shapes[0].mesh, 1.0, c0);
		mrdem_scene_shape_changed(s, 0);
	}
	if (flavour == 2) {
		struct mrdem_mesh m;
		double c0[3] = {0, 0, 0};
		octahedron(&m, 50 * box, c0);
		uint32_t big = mrdem_scene_add_shape(s, "floor", &m);
		size_t idx = add_particle(s, 5, big, 0, -50 * box, 0, 0.01);
		s->frame.p.flags[idx] = MRDEM_PARTICLE_FIXED;
	}
	s->setup.plane_epsilon = mrdem_rng_range(rng, 0, 0.1);
	unsigned nplanes = (unsigned)(mrdem_rng_uniform(rng) * 3);
	for (unsigned k = 0; k < nplanes; k++) {
		double pt[3] = {far + mrdem_rng_range(rng, -box, box), far, far}, nrm[3];
		for (int a = 0; a < 3; a++)
			nrm[a] = mrdem_rng_normal(rng);
		double len = sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
		for (int a = 0; a < 3; a++)
			nrm[a] /= len;
		add_plane(s, pt, nrm);
	}
}

static void test_random_scenes(void)
{
	struct mrdem_rng rng;
	mrdem_rng_seed(&rng, 20240501);
	const int per_flavour = 60;
	int agree = 0, ref_ok = 0, total = 0, nonempty = 0, others_bad = 0, simd_bad = 0;
	size_t max_pairs = 0;
	uint64_t brute_tests = 0, grid_tests = 0;
	for (int flavour = 0; flavour < 4; flavour++) {
		for (int k = 0; k < per_flavour; k++) {
			struct mrdem_scene s;
			random_scene(&s, &rng, flavour);
			struct mrdem_pairs b, g, ref;
			mrdem_pairs_init(&b);
			mrdem_pairs_init(&g);
			mrdem_pairs_init(&ref);
			struct mrdem_broad_stats sb, sg;
			int rc = run(&s, MRDEM_BROAD_BRUTE, &b, &sb);
			for (int m = MRDEM_BROAD_SAP; m < MRDEM_BROAD_NMETHODS; m++) {
				struct mrdem_broad_stats so, sgen;
				int ro = run(&s, m, &g, &so);
				if (ro || !same_pairs(&b, &g)) {
					tap_diag("flavour %d scene %d: brute %zu pairs, %s %zu", flavour,
						 k, b.n, mrdem_broad_method_name(m), g.n);
					others_bad++;
				}
				if (m != MRDEM_BROAD_MR && m != MRDEM_BROAD_MMR)
					continue;
				/* the portable search: the same pairs and tests */
				ro = run_simd(&s, m, MRDEM_SIMD_GENERIC, &g, &sgen);
				if (ro || !same_pairs(&b, &g) || sgen.sphere_tests != so.sphere_tests) {
					tap_diag("flavour %d scene %d: %s generic %zu pairs, %llu tests",
						 flavour, k, mrdem_broad_method_name(m), g.n,
						 (unsigned long long)sgen.sphere_tests);
					simd_bad++;
				}
			}
			rc |= run(&s, MRDEM_BROAD_GRID, &g, &sg);
			double *radius = malloc(s.frame.p.n * sizeof *radius);
			rc |= mrdem_broad_bounds(&s, radius);
			reference(&s, radius, &ref);
			total++;
			agree += rc == 0 && same_pairs(&b, &g);
			ref_ok += rc == 0 && same_pairs(&ref, &b);
			nonempty += b.n > 0;
			if (b.n > max_pairs)
				max_pairs = b.n;
			brute_tests += sb.sphere_tests;
			grid_tests += sg.sphere_tests;
			if (!same_pairs(&b, &g))
				tap_diag("flavour %d scene %d: brute %zu pairs, grid %zu", flavour, k,
					 b.n, g.n);
			free(radius);
			mrdem_pairs_release(&b);
			mrdem_pairs_release(&g);
			mrdem_pairs_release(&ref);
			mrdem_scene_release(&s);
		}
	}
	tap_eq_int(agree, total, "random scenes: grid == brute exactly (%d scenes)", total);
	tap_eq_int(others_bad, 0, "random scenes: sap, mr and mmr == brute exactly");
	tap_eq_int(simd_bad, 0, "random scenes: mr and mmr with the portable search: the same pairs "
		   "and tests as with the CPU's widest");
	tap_eq_int(ref_ok, total, "random scenes: brute == pair-by-pair definition");
	tap_ok(nonempty > total * 3 / 4 && max_pairs > 500,
	       "random scenes are not trivial (%d with pairs, up to %zu pairs)", nonempty, max_pairs);
	tap_ok(grid_tests * 3 < brute_tests,
	       "grid evaluates far fewer sphere tests (%llu vs %llu)",
	       (unsigned long long)grid_tests, (unsigned long long)brute_tests);
}

/* Scenes in motion: each method keeps one workspace over many steps
 * (so sap, mr and mmr repair their sorted state from the last step),
 * particles drift, some jump far, one step shuffles all positions (too
 * much to repair: a rebuild), a particle is added half way (a new count
 * rebuilds), and every step the list must be brute force's, and the
 * reported statistics those of a fresh workspace (no dependence on the
 * history). */
static void test_moving_scenes(void)
{
	struct mrdem_rng rng;
	mrdem_rng_seed(&rng, 777);
	const int steps = 50;
	int bad = 0, stats_bad = 0, checked = 0, jumps = 0;
	uint64_t moves[MRDEM_BROAD_NMETHODS] = {0}, rebuilds[MRDEM_BROAD_NMETHODS] = {0};
	for (int flavour = 0; flavour < 4; flavour++) {
		for (int k = 0; k < 5; k++) {
			struct mrdem_scene s;
			random_scene(&s, &rng, flavour);
			struct mrdem_particles *p = &s.frame.p;
			size_t n0 = p->n;
			double *vel = malloc(3 * (n0 + 1) * sizeof *vel);
			double span = cbrt((double)n0) * 2;
			for (size_t i = 0; i < 3 * (n0 + 1); i++)
				vel[i] = 0.05 * mrdem_rng_normal(&rng);
			struct mrdem_broad *keep[MRDEM_BROAD_NMETHODS];
			for (int m = 0; m < MRDEM_BROAD_NMETHODS; m++)
				keep[m] = mrdem_broad_new();
			struct mrdem_pairs ref, got, fresh;
			mrdem_pairs_init(&ref);
			mrdem_pairs_init(&got);
			mrdem_pairs_init(&fresh);
			for (int step = 0; step < steps; step++) {
				if (step == steps / 2)
					add_particle(&s, 999999, 0, p->pos[0] + 0.5, p->pos[1], p->pos[2],
						     0.1);
				if (step == steps / 3)
					/* an unrelated frame: positions shuffled */
					for (size_t i = 0; i < p->n; i++) {
						size_t j = (size_t)(mrdem_rng_uniform(&rng) * (double)p->n);
						for (int a = 0; a < 3; a++) {
							double t = p->pos[3 * i + a];
							p->pos[3 * i + a] = p->pos[3 * j + a];
							p->pos[3 * j + a] = t;
						}
					}
				for (size_t i = 0; i < p->n; i++) {
					if (p->flags[i] & MRDEM_PARTICLE_FIXED)
						continue;
					for (int a = 0; a < 3; a++)
						p->pos[3 * i + a] += vel[3 * i + a];
					if (mrdem_rng_uniform(&rng) < 0.02) {
						/* a jump across the scene, or far out of it */
						double far = mrdem_rng_uniform(&rng) < 0.2 ? 100 : 1;
						for (int a = 0; a < 3; a++)
							p->pos[3 * i + a] += far * mrdem_rng_range(&rng, -span, span);
						jumps++;
					}
				}
				s.frame.step = (uint64_t)step;
				struct mrdem_broad_stats sr;
				if (run(&s, MRDEM_BROAD_BRUTE, &ref, &sr)) {
					bad++;
					continue;
				}
				for (int m = 0; m < MRDEM_BROAD_NMETHODS; m++) {
					struct mrdem_broad_stats sk, sf;
					int rc = mrdem_broad_phase(keep[m], &s, m, &got, &sk);
					rc |= run(&s, m, &fresh, &sf);
					checked++;
					if (rc || !same_pairs(&ref, &got)) {
						tap_diag("flavour %d scene %d step %d: %s kept %zu pairs, brute %zu",
							 flavour, k, step, mrdem_broad_method_name(m), got.n,
							 ref.n);
						bad++;
					}
					if (sk.sphere_tests != sf.sphere_tests || sk.cells != sf.cells ||
					    sk.cell_size != sf.cell_size || sk.particle_pairs != sf.particle_pairs)
						stats_bad++;
					moves[m] += sk.moves;
					rebuilds[m] += (uint64_t)sk.rebuilt;
				}
			}
			for (int m = 0; m < MRDEM_BROAD_NMETHODS; m++)
				mrdem_broad_free(keep[m]);
			free(vel);
			mrdem_pairs_release(&ref);
			mrdem_pairs_release(&got);
			mrdem_pairs_release(&fresh);
			mrdem_scene_release(&s);
		}
	}
	tap_eq_int(bad, 0, "moving scenes: every method == brute at every step (%d lists, %d jumps)",
		   checked, jumps);
	tap_eq_int(stats_bad, 0, "moving scenes: statistics as with a fresh workspace");
	int repaired = 1;
	for (int m = MRDEM_BROAD_SAP; m < MRDEM_BROAD_NMETHODS; m++) {
		tap_diag("%s: %llu entries moved or relocated, %llu rebuilds in %d steps",
			 mrdem_broad_method_name(m), (unsigned long long)moves[m],
			 (unsigned long long)rebuilds[m], 20 * steps);
		/* the first step and the added particle rebuild, and the shuffle
		 * (in all but the smallest scenes); most steps repair */
		repaired &= moves[m] > 0 && rebuilds[m] >= 50 && rebuilds[m] < 20 * (uint64_t)steps / 2;
	}
	tap_ok(repaired, "sap, mr and mmr mostly repair their lists instead of rebuilding");
}

/* A lattice squeezed step by step from 1.5 diameters apart to 0.82: the
 * overlaps grow from none to the face neighbours' by repairs alone, so
 * sap's partner lists grow (and move in memory) while a pair is inserted
 * in the middle of a list. Every step, every kept workspace == brute. */
static void test_squeeze(void)
{
	struct mrdem_scene s;
	mrdem_scene_init(&s);
	const double c0[3] = {0, 0, 0};
	add_octa_shape(&s, 1.0, c0);
	const int side = 12, steps = 60;
	for (int z = 0; z < side; z++)
		for (int y = 0; y < side; y++)
			for (int x = 0; x < side; x++)
				add_particle(&s, (uint64_t)(1000 + s.frame.p.n), 0, 3.0 * x, 3.0 * y,
					     3.0 * z, 0);
	struct mrdem_particles *p = &s.frame.p;
	struct mrdem_broad *keep[MRDEM_BROAD_NMETHODS];
	for (int m = 0; m < MRDEM_BROAD_NMETHODS; m++)
		keep[m] = mrdem_broad_new();
	struct mrdem_pairs ref, got;
	mrdem_pairs_init(&ref);
	mrdem_pairs_init(&got);
	int bad = 0;
	for (int step = 0; step < steps; step++) {
		for (size_t i = 0; i < 3 * p->n; i++)
			p->pos[i] *= 0.99;
		s.frame.step = (uint64_t)step;
		bad += run(&s, MRDEM_BROAD_BRUTE, &ref, NULL) != 0;
		for (int m = 0; m < MRDEM_BROAD_NMETHODS; m++)
			if (mrdem_broad_phase(keep[m], &s, m, &got, NULL) || !same_pairs(&ref, &got)) {
				tap_diag("squeeze step %d: %s %zu pairs, brute %zu", step,
					 mrdem_broad_method_name(m), got.n, ref.n);
				bad++;
			}
	}
	tap_ok(ref.n == 3 * (size_t)(side - 1) * side * side,
	       "squeeze: the face neighbours touch at the end (%zu pairs)", ref.n);
	tap_eq_int(bad, 0, "squeeze: every kept workspace == brute at every step");
	for (int m = 0; m < MRDEM_BROAD_NMETHODS; m++)
		mrdem_broad_free(keep[m]);
	mrdem_pairs_release(&ref);
	mrdem_pairs_release(&got);
	mrdem_scene_release(&s);
}

/* The default method: sap up to MRDEM_BROAD_SAP_MAX particles without
 * insertion, mr above or with it; a scene's own choice wins. */
static void test_default(void)
{
	struct mrdem_scene s;
	mrdem_scene_init(&s);
	const double c0[3] = {0, 0, 0};
	add_octa_shape(&s, 1.0, c0);
	for (int i = 0; i < MRDEM_BROAD_SAP_MAX; i++)
		add_particle(&s, (uint64_t)i, 0, 3.0 * i, 0, 0, 0);
	struct mrdem_sim_opts o;
	tap_eq_int(s.setup.broad, -1, "default: a scene names no method");
	mrdem_sim_opts_default(&o, &s);
	tap_eq_int(o.broad, MRDEM_BROAD_SAP, "default: sap for %d particles", MRDEM_BROAD_SAP_MAX);
	s.flow.ninsert = 1; /* counted only, never read here */
	tap_eq_int(mrdem_broad_default(&s), MRDEM_BROAD_MR, "default: mr when the scene inserts");
	s.flow.ninsert = 0;
	add_particle(&s, 9999, 0, -3.0, 0, 0, 0);
	mrdem_sim_opts_default(&o, &s);
	tap_eq_int(o.broad, MRDEM_BROAD_MR, "default: mr for %d particles", MRDEM_BROAD_SAP_MAX + 1);
	s.setup.broad = MRDEM_BROAD_GRID;
	mrdem_sim_opts_default(&o, &s);
	tap_eq_int(o.broad, MRDEM_BROAD_GRID, "default: the scene's contact.broad wins");
	mrdem_scene_release(&s);
}

/* A 10x10x10 lattice of spheres spaced by their diameter: every particle
 * touches its 6 face neighbours only (diagonals are sqrt(2) apart). */
static void test_lattice_counts(void)
{
	struct mrdem_scene s;
	mrdem_scene_init(&s);
	double c0[3] = {0, 0, 0};
	add_octa_shape(&s, 0.5, c0);
	for (int z = 0; z < 10; z++)
		for (int y = 0; y < 10; y++)
			for (int x = 0; x < 10; x++)
				add_particle(&s, (uint64_t)(100 * z + 10 * y + x), 0, x, y, z, 0);
	struct mrdem_pairs p;
	mrdem_pairs_init(&p);
	check_both(&s, &p, 3 * 9 * 100, "lattice of touching spheres");
	struct mrdem_broad_stats st;
	run(&s, MRDEM_BROAD_GRID, &p, &st);
	tap_ok(st.sphere_tests <= 13 * 1000, "grid tests at most 13 neighbours per particle (%llu)",
	       (unsigned long long)st.sphere_tests);
	mrdem_pairs_release(&p);
	mrdem_scene_release(&s);
}

/* Large enough for the threaded path: every thread count gives the list
 * of the definition. */
static void test_threads(void)
{
	struct mrdem_rng rng;
	mrdem_rng_seed(&rng, 99);
	struct mrdem_scene s;
	mrdem_scene_init(&s);
	double c0[3] = {0, 0, 0};
	add_octa_shape(&s, 0.5, c0);
	add_octa_shape(&s, 1.2, c0);
	for (uint64_t i = 0; i < 6000; i++) {
		size_t k = add_particle(&s, i, (uint32_t)(i % 2), mrdem_rng_range(&rng, 0, 20),
					mrdem_rng_range(&rng, 0, 20), mrdem_rng_range(&rng, 0, 20), 0.05);
		if (i % 17 == 0)
			s.frame.p.flags[k] = MRDEM_PARTICLE_FIXED;
	}
	double pt[3] = {0, 0, 1}, nz[3] = {0, 0, 1};
	add_plane(&s, pt, nz);
	double *radius = malloc(s.frame.p.n * sizeof *radius);
	struct mrdem_pairs ref, got;
	mrdem_pairs_init(&ref);
	mrdem_pairs_init(&got);
	mrdem_broad_bounds(&s, radius);
	reference(&s, radius, &ref);
	int saved = omp_get_max_threads(), ok = 1;
	for (int threads = 1; threads <= 4; threads++) {
		omp_set_num_threads(threads);
		for (int method = 0; method < MRDEM_BROAD_NMETHODS; method++) {
			int rc = run(&s, method, &got, NULL);
			if (rc || !same_pairs(&ref, &got)) {
				tap_diag("%s with %d threads: %zu pairs, want %zu",
					 mrdem_broad_method_name(method), threads, got.n, ref.n);
				ok = 0;
			}
		}
	}
	omp_set_num_threads(saved);
	tap_ok(ok && ref.n > 5000, "6000 particles, 1-4 threads, every method: the definition's %zu pairs",
	       ref.n);
	free(radius);
	mrdem_pairs_release(&ref);
	mrdem_pairs_release(&got);
	mrdem_scene_release(&s);
}

int main(void)
{
	test_touching();
	test_fixed_and_order();
	test_empty();
	test_planes();
	test_bad_input();
	test_lattice_counts();
	test_random_scenes();
	test_moving_scenes();
	test_squeeze();
	test_default();
	test_threads();
	return tap_done();
}
