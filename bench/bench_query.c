/* Time per query between two icospheres of radius 1 of 1,280, 5,120 and
 * 20,480 triangles: all contacts within the halo (eps = 0.01 of the
 * diameter) with the surrogate hierarchy and the flat search (trees built
 * beforehand, as FCL builds its BVH; the flat search at 1,280 triangles
 * only, it compares every pair), at (a) a gap of 0.005 and (b) an overlap
 * of 0.01 along x; where libfcl-dev is installed, FCL's OBBRSS collide
 * (all contacts) and distance on the same meshes and poses, in the same
 * run, batch for batch in turn (time_queries). One thread, the best of 7
 * batches; the SIMD path is the one --simd auto takes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/narrow/contacts/particle_contacts.h"
#include "common/util/simd.h"
#include "common/tree/tree.h"
#include "common/util/error.h"
#include "common/util/parse.h"

extern void *mrdem_bench_fcl_model(const double *verts, uint32_t nv, const uint32_t *tris,
				   uint32_t nt) __attribute__((weak));
extern size_t mrdem_bench_fcl_collide(void *a, const double ra[9], const double ta[3], void *b,
				      const double rb[9], const double tb[3]) __attribute__((weak));
extern double mrdem_bench_fcl_distance(void *a, const double ra[9], const double ta[3], void *b,
				       const double rb[9], const double tb[3]) __attribute__((weak));
extern void mrdem_bench_fcl_free(void *m) __attribute__((weak));

#define QUERY_GROUP 16
#define QUERY_ROUNDS 7

/* CPU seconds of the process (one thread: the query's), which a loaded
 * machine disturbs less than wall time. */
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The queries timed side by side: each a call and what it leaves. */
struct query {
	void (*run)(void *arg);
	void *arg;
	double best;      /* CPU seconds per call, the best batch */
	double batch[QUERY_ROUNDS];
};

/* CPU seconds per call of each of the n queries: QUERY_ROUNDS rounds,
 * each a batch of 0.05 s of every query in turn, so that all of them
 * meet the same load (the machine is shared: a sequence of one query's
 * batches and then the other's can fall into different loads and skew
 * their ratio); the best batch of each is the least disturbed. The
 * clock is read every QUERY_GROUP calls, not after each: reading the
 * process's CPU time is a system call (about 1 us on a virtual machine,
 * 3 % of a 1,280-triangle query), which is part of neither side's
 * query. */
static void time_queries(struct query *q, int n)
{
	for (int k = 0; k < n; k++)
		q[k].best = 1e30;
	for (int r = 0; r < QUERY_ROUNDS; r++)
		for (int k = 0; k < n; k++) {
			long reps = 0;
			double t0 = now(), t;
			do {
				for (int g = 0; g < QUERY_GROUP; g++)
					q[k].run(q[k].arg);
				reps += QUERY_GROUP;
			} while ((t = now() - t0) < 0.05);
			q[k].batch[r] = t / (double)reps;
			if (q[k].batch[r] < q[k].best)
				q[k].best = q[k].batch[r];
		}
}

/* The least and largest ratio of a's batch to b's within one round: how
 * far the load moved the ratio of the bests. */
static void round_ratios(const struct query *a, const struct query *b, double *lo, double *hi)
{
	*lo = 1e30, *hi = 0;
	for (int r = 0; r < QUERY_ROUNDS; r++) {
		double x = a->batch[r] / b->batch[r];
		*lo = x < *lo ? x : *lo;
		*hi = x > *hi ? x : *hi;
	}
}

struct mrdem_query_arg {
	struct mrdem_contact_finder *f;
	const struct mrdem_scene *s;
	const struct mrdem_pairs *pairs;
	const struct mrdem_contact_opts *o;
	struct mrdem_contacts *c;
};

static void run_mrdem(void *arg)
{
	struct mrdem_query_arg *a = arg;
	mrdem_find_contacts(a->f, a->s, a->pairs, a->o, a->c, NULL);
}

struct fcl_query_arg {
	void *a, *b;
	const double *ta, *tb;
	size_t contacts;
	double dist;
};

static const double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

static void run_fcl_collide(void *arg)
{
	struct fcl_query_arg *q = arg;
	q->contacts = mrdem_bench_fcl_collide(q->a, eye, q->ta, q->b, eye, q->tb);
}

static void run_fcl_distance(void *arg)
{
	struct fcl_query_arg *q = arg;
	q->dist = mrdem_bench_fcl_distance(q->a, eye, q->ta, q->b, eye, q->tb);
}

/* The two poses of one icosphere size: mrdem's times, and FCL's on the
 * same meshes where it is linked in. */
static int bench_size(uint32_t triangles)
{
	struct mrdem_scene s;
	mrdem_scene_init(&s);
	struct mrdem_sphere_opts so;
	mrdem_sphere_opts_default(&so);
	so.triangles = triangles;
	struct mrdem_mesh m;
	mrdem_mesh_init(&m);
	if (mrdem_mesh_sphere(&m, &so))
		return -1;
	mrdem_scene_add_shape(&s, "ball", &m);
	struct mrdem_tree_params tp;
	mrdem_tree_params_default(&tp);
	if (mrdem_tree_build(&s.shapes[0].mesh, &tp, &s.shapes[0].tree))
		return -1;
	for (int i = 0; i < 2; i++) {
		size_t k = mrdem_particles_push(&s.frame.p, (uint64_t)i, 0);
		s.frame.p.eps[k] = 0.02; /* 1 % of the diameter */
	}
	struct mrdem_pairs pairs;
	mrdem_pairs_init(&pairs);
	mrdem_pairs_push(&pairs, 0, 1);
	struct mrdem_contact_finder *f = mrdem_contact_finder_new();
	struct mrdem_contacts c;
	mrdem_contacts_init(&c);
	const struct mrdem_mesh *mesh = &s.shapes[0].mesh;
	void *fa = NULL, *fb = NULL;
	if (mrdem_bench_fcl_model) {
		fa = mrdem_bench_fcl_model(mesh->verts, mesh->nverts, mesh->tris, mesh->ntris);
		fb = mrdem_bench_fcl_model(mesh->verts, mesh->nverts, mesh->tris, mesh->ntris);
	}
	const struct {
		const char *name;
		double centre_distance;
	} poses[] = {{"(a) gap 0.005", 2.005}, {"(b) overlap 0.01", 1.99}};
	printf("%u triangles per icosphere\n", mesh->ntris);
	for (int k = 0; k < 2; k++) {
		double d = poses[k].centre_distance;
		s.frame.p.pos[0] = -d / 2;
		s.frame.p.pos[3] = d / 2;
		struct mrdem_contact_opts o;
		mrdem_contact_opts_default(&o);
		o.hierarchy = MRDEM_HIERARCHY_SURROGATE;
		struct mrdem_query_arg mq = {f, &s, &pairs, &o, &c};
		double ta[3] = {-d / 2, 0, 0}, tb[3] = {d / 2, 0, 0};
		struct fcl_query_arg fq = {fa, fb, ta, tb, 0, 0};
		/* mrdem's surrogate query, FCL's collide and distance, in turn */
		struct query q[3] = {{run_mrdem, &mq, 0, {0}},
				     {run_fcl_collide, &fq, 0, {0}},
				     {run_fcl_distance, &fq, 0, {0}}};
		time_queries(q, fa ? 3 : 1);
		size_t n_sur = c.n;
		if (triangles <= 1280) {
			o.hierarchy = MRDEM_HIERARCHY_FLAT;
			struct query flat = {run_mrdem, &mq, 0, {0}};
			time_queries(&flat, 1);
			printf("  %s: mrdem surrogate %.4f ms (%zu contacts), flat %.3f ms "
			       "(%zu contacts)\n", poses[k].name, 1e3 * q[0].best, n_sur,
			       1e3 * flat.best, c.n);
		} else {
			printf("  %s: mrdem surrogate %.4f ms (%zu contacts)\n", poses[k].name,
			       1e3 * q[0].best, n_sur);
		}
		if (fa) {
			double clo, chi, dlo, dhi;
			round_ratios(&q[0], &q[1], &clo, &chi);
			round_ratios(&q[0], &q[2], &dlo, &dhi);
			printf("    FCL OBBRSS collide %.4f ms (%zu contacts), distance %.4f ms (%.4g); "
			       "mrdem surrogate / FCL collide %.2f (rounds %.2f-%.2f), / FCL distance "
			       "%.2f (rounds %.2f-%.2f)\n",
			       1e3 * q[1].best, fq.contacts, 1e3 * q[2].best, fq.dist,
			       q[0].best / q[1].best, clo, chi, q[0].best / q[2].best, dlo, dhi);
		}
	}
	if (fa && mrdem_bench_fcl_free) {
		mrdem_bench_fcl_free(fa);
		mrdem_bench_fcl_free(fb);
	}
	mrdem_contacts_release(&c);
	mrdem_pairs_release(&pairs);
	mrdem_contact_finder_free(f);
	mrdem_scene_release(&s);
	return 0;
}

/* bench_query [TRIANGLES...]: the sizes given (e.g. one, to profile it),
 * by default 1,280, 5,120 and 20,480. */
int main(int argc, char **argv)
{
	mrdem_set_progname("bench_query");
	printf("query time, two icospheres (radius 1, eps 0.02), one thread, SIMD %s\n",
	       mrdem_simd_name(mrdem_simd_resolve(MRDEM_SIMD_AUTO)));
	static const char *const sizes[] = {"1280", "5120", "20480"};
	const char *const *size = argc > 1 ? (const char *const *)argv + 1 : sizes;
	int nsizes = argc > 1 ? argc - 1 : 3;
	for (int i = 0; i < nsizes; i++) {
		int triangles;
		if (mrdem_parse_int("triangles", size[i], 20, 1 << 24, &triangles) ||
		    bench_size((uint32_t)triangles))
			return 1;
	}
	if (!mrdem_bench_fcl_model)
		printf("FCL not linked in (install libfcl-dev, e.g. make deps, and rebuild)\n");
	return 0;
}
