/* Broad phase: time per particle-step of every method on moving spheres
 * of one size, dense and 10^6 times sparser (by volume), at 10^4 and 10^5
 * particles (MRDEM_BENCH_BROAD_N="10000 100000 1000000" for more), one
 * thread, CPU time; bytes kept per particle; where libbullet-dev is
 * installed, Bullet's btDbvtBroadphase on the same boxes in the same run.
 *
 * Dense: uniform random centres, 1.5 d^3 of space per sphere of diameter
 * d (about 2.8 touching neighbours each). Sparse: the same in a box 100
 * times wider. Every step each sphere moves by up to 0.02 d per axis
 * (velocities fixed, reflected at the box), as a DEM step would; the
 * first call (sorting from scratch, Dbvt's tree build) is timed apart
 * from the MRDEM_BENCH_BROAD_STEPS (default 10) steady steps after it.
 * MRDEM_BENCH_BROAD_METHODS picks the methods (default "sap mr mmr grid
 * brute bullet"; brute only runs up to 20,000 particles), e.g. "mr mmr"
 * at 10^6, where Bullet's build takes about 20 s and its steps 15 us per
 * particle. Then Munjiza & Rougier's own case (Sec. 6): 50^3 static
 * spheres on a cubic lattice at the spacings of MRDEM_BENCH_BROAD_LATTICE
 * (default "1 2 10 100", in d; "" for none), every listed method. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/broad/broad.h"
#include "common/mesh/mesh.h"
#include "common/util/error.h"
#include "common/util/rng.h"

extern void *mrdem_bench_dbvt_new(const double *pos, size_t n, double r) __attribute__((weak));
extern size_t mrdem_bench_dbvt_step(void *h, const double *pos, size_t n, double r)
	__attribute__((weak));
extern void mrdem_bench_dbvt_free(void *h) __attribute__((weak));

static double cpu_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

struct motion {
	double side; /* box edge */
	double *vel; /* displacement per step */
};

static void move(struct mrdem_particles *p, struct motion *mo)
{
	for (size_t k = 0; k < 3 * p->n; k++) {
		double x = p->pos[k] + mo->vel[k];
		if (x < 0 || x > mo->side) {
			mo->vel[k] = -mo->vel[k];
			x = p->pos[k] + mo->vel[k];
		}
		p->pos[k] = x;
	}
}

/* n spheres of diameter 1 in a cube of the given edge, seeded. */
static void make_scene(struct mrdem_scene *s, struct motion *mo, size_t n, double side)
{
	mrdem_scene_init(s);
	struct mrdem_sphere_opts so;
	mrdem_sphere_opts_default(&so);
	so.triangles = 20;
	so.radius = 0.5;
	struct mrdem_mesh m;
	mrdem_mesh_init(&m);
	if (mrdem_mesh_sphere(&m, &so))
		exit(1);
	mrdem_scene_add_shape(s, "ball", &m);
	struct mrdem_rng rng;
	mrdem_rng_seed(&rng, 42);
	mo->side = side;
	mo->vel = mrdem_xmalloc_array(3 * n, sizeof *mo->vel);
	for (size_t i = 0; i < n; i++) {
		size_t k = mrdem_particles_push(&s->frame.p, i, 0);
		s->frame.p.eps[k] = 0;
		for (int a = 0; a < 3; a++) {
			s->frame.p.pos[3 * k + a] = mrdem_rng_range(&rng, 0, side);
			mo->vel[3 * k + a] = mrdem_rng_range(&rng, -0.02, 0.02);
		}
	}
}

/* Munjiza & Rougier's own case (Sec. 6, Examples II-IV): m^3 spheres of
 * diameter 1 on a cubic lattice of the given spacing, static (the motion
 * moves nothing). A halo of 1e-6 makes lattice neighbours at spacing 1
 * touch whatever the rounding of the icosphere's bound. */
static void make_lattice(struct mrdem_scene *s, struct motion *mo, size_t m, double spacing)
{
	make_scene(s, mo, m * m * m, spacing * (double)m);
	struct mrdem_particles *p = &s->frame.p;
	for (size_t i = 0; i < p->n; i++) {
		size_t c[3] = {i % m, i / m % m, i / (m * m)};
		p->eps[i] = 1e-6;
		for (int a = 0; a < 3; a++) {
			p->pos[3 * i + a] = spacing * (double)c[a];
			mo->vel[3 * i + a] = 0;
		}
	}
}

/* Is name in the list of words (separated by spaces or commas)? */
static int listed(const char *list, const char *name)
{
	size_t len = strlen(name);
	for (const char *p = list + strspn(list, " ,"); *p; p += strspn(p, " ,")) {
		size_t w = strcspn(p, " ,");
		if (w == len && !strncmp(p, name, len))
			return 1;
		p += w;
	}
	return 0;
}

static void bench_method(struct mrdem_scene *s, struct motion *mo, int method, int steps,
			 const char *packing)
{
	size_t n = s->frame.p.n;
	double *saved = mrdem_xmalloc_array(3 * n, sizeof *saved), *vsaved = mrdem_xmalloc_array(3 * n, sizeof *vsaved);
	memcpy(saved, s->frame.p.pos, 3 * n * sizeof *saved);
	memcpy(vsaved, mo->vel, 3 * n * sizeof *vsaved);
	struct mrdem_broad *b = mrdem_broad_new();
	struct mrdem_pairs pairs;
	mrdem_pairs_init(&pairs);
	struct mrdem_broad_stats st;
	double t0 = cpu_now();
	if (mrdem_broad_phase(b, s, method, &pairs, &st))
		exit(1);
	double build = cpu_now() - t0, t = 0;
	uint64_t tests = 0, moves = 0;
	int rebuilds = 0;
	for (int k = 0; k < steps; k++) {
		move(&s->frame.p, mo);
		t0 = cpu_now();
		if (mrdem_broad_phase(b, s, method, &pairs, &st))
			exit(1);
		t += cpu_now() - t0;
		tests += st.sphere_tests;
		moves += st.moves;
		rebuilds += st.rebuilt;
	}
	size_t pair_bytes = 2 * sizeof(size_t) * st.particle_pairs;
	printf("| %zu | %s | %s | %.1f | %.0f | %.1f | %.2f | %d | %.1f | %.0f |\n", n, packing,
	       mrdem_broad_method_name(method), 1e3 * build, 1e9 * t / ((double)n * steps),
	       (double)tests / ((double)n * steps), (double)moves / ((double)n * steps), rebuilds,
	       (double)st.particle_pairs / (double)n,
	       (double)(st.state_bytes > pair_bytes ? st.state_bytes - pair_bytes : 0) / (double)n);
	fflush(stdout);
	mrdem_pairs_release(&pairs);
	mrdem_broad_free(b);
	memcpy(s->frame.p.pos, saved, 3 * n * sizeof *saved);
	memcpy(mo->vel, vsaved, 3 * n * sizeof *vsaved);
	free(saved);
	free(vsaved);
}

static void bench_dbvt(struct mrdem_scene *s, struct motion *mo, int steps, const char *packing)
{
	size_t n = s->frame.p.n;
	double r = 0.5;
	double t0 = cpu_now();
	void *h = mrdem_bench_dbvt_new(s->frame.p.pos, n, r);
	double build = cpu_now() - t0, t = 0;
	size_t np = 0;
	for (int k = 0; k < steps; k++) {
		move(&s->frame.p, mo);
		t0 = cpu_now();
		np = mrdem_bench_dbvt_step(h, s->frame.p.pos, n, r);
		t += cpu_now() - t0;
	}
	mrdem_bench_dbvt_free(h);
	printf("| %zu | %s | Bullet Dbvt | %.1f | %.0f | – | – | – | %.1f (boxes) | – |\n", n,
	       packing, 1e3 * build, 1e9 * t / ((double)n * steps), (double)np / (double)n);
	fflush(stdout);
}

/* Every listed method on scene s (released after). */
static void bench_scene(struct mrdem_scene *s, struct motion *mo, const char *methods, int steps,
			const char *packing)
{
	size_t n = s->frame.p.n;
	int order[] = {MRDEM_BROAD_SAP, MRDEM_BROAD_MR, MRDEM_BROAD_MMR, MRDEM_BROAD_GRID,
			 MRDEM_BROAD_BRUTE};
	for (int k = 0; k < 5; k++) {
		if (!listed(methods, mrdem_broad_method_name(order[k])))
			continue;
		if (order[k] == MRDEM_BROAD_BRUTE && n > 20000)
			continue; /* quadratic */
		bench_method(s, mo, order[k], order[k] == MRDEM_BROAD_BRUTE ? 1 : steps, packing);
	}
	if (mrdem_bench_dbvt_new && listed(methods, "bullet"))
		bench_dbvt(s, mo, steps, packing);
	free(mo->vel);
	mrdem_scene_release(s);
}

int main(void)
{
	mrdem_set_progname("bench_broad");
	omp_set_num_threads(1);
	const char *sizes = getenv("MRDEM_BENCH_BROAD_N");
	if (!sizes)
		sizes = "10000 100000";
	const char *st = getenv("MRDEM_BENCH_BROAD_STEPS");
	int steps = st ? atoi(st) : 10;
	if (steps < 1) {
		fprintf(stderr, "bench_broad: MRDEM_BENCH_BROAD_STEPS must be a positive integer\n");
		return 2;
	}
	const char *lattice = getenv("MRDEM_BENCH_BROAD_LATTICE");
	if (!lattice)
		lattice = "1 2 10 100";
	const char *methods = getenv("MRDEM_BENCH_BROAD_METHODS");
	if (!methods)
		methods = "sap mr mmr grid brute bullet";
	for (const char *p = methods + strspn(methods, " ,"); *p; p += strspn(p, " ,")) {
		size_t w = strcspn(p, " ,");
		char name[16] = "";
		if (w < sizeof name)
			memcpy(name, p, w);
		if (strcmp(name, "bullet") && mrdem_broad_method_parse(name) < 0) {
			fprintf(stderr, "bench_broad: MRDEM_BENCH_BROAD_METHODS: '%.*s' is not one of "
				"%s or bullet\n", (int)w, p, MRDEM_BROAD_METHOD_LIST);
			return 2;
		}
		p += w;
	}
	printf("broad phase, one thread, CPU time per particle-step over %d steps after the "
	       "first call (build); %s\n\n",
	       steps, mrdem_bench_dbvt_new ? "Bullet btDbvtBroadphase linked in"
					   : "Bullet not linked in (install libbullet-dev)");
	printf("| N | packing | method | build ms | ns/particle-step | sphere tests/particle "
	       "| sort moves/particle | rebuilds | pairs/particle | bytes/particle |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|\n");
	for (const char *p = sizes; *p;) {
		char *end;
		unsigned long long n = strtoull(p, &end, 10);
		if (end == p || n == 0) {
			fprintf(stderr, "bench_broad: MRDEM_BENCH_BROAD_N: '%s' is not a list of counts\n",
				sizes);
			return 2;
		}
		p = end + strspn(end, " ,");
		for (int sparse = 0; sparse < 2; sparse++) {
			struct mrdem_scene s;
			struct motion mo;
			double side = cbrt(1.5 * (double)n) * (sparse ? 100 : 1);
			const char *packing = sparse ? "sparse" : "dense";
			make_scene(&s, &mo, (size_t)n, side);
			bench_scene(&s, &mo, methods, steps, packing);
		}
	}
	for (const char *p = lattice; *p;) {
		char *end;
		double spacing = strtod(p, &end);
		if (end == p || !(spacing >= 1 && spacing <= 1e4)) {
			fprintf(stderr, "bench_broad: MRDEM_BENCH_BROAD_LATTICE: '%s' is not a list of "
				"spacings from 1 to 10^4\n", lattice);
			return 2;
		}
		p = end + strspn(end, " ,");
		struct mrdem_scene s;
		struct motion mo;
		char packing[64];
		snprintf(packing, sizeof packing, "lattice, spacing %g d", spacing);
		make_lattice(&s, &mo, 50, spacing);
		bench_scene(&s, &mo, methods, steps, packing);
	}
	printf("\nbytes/particle: memory the method keeps between calls with the radii, "
	       "without the pair list (16 bytes per pair).\n");
	return 0;
}
