/* The decomposition of an MPI run without MPI (common/parallel/): the brick
 * grid's owners and reach against brute force on random points, its
 * factorisation and balance, and a rank's working frame, pair split,
 * contact merge and spring merge on constructed data. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/parallel/rank_frame.h"
#include "common/parallel/rank_grid.h"
#include "common/util/rng.h"
#include "tests/lib/tap.h"

static double box_gap(const double lo[3], const double hi[3], const double x[3])
{
	double d2 = 0;
	for (int a = 0; a < 3; a++) {
		double d = x[a] < lo[a] ? lo[a] - x[a] : x[a] > hi[a] ? x[a] - hi[a] : 0;
		d2 += d * d;
	}
	return sqrt(d2);
}

static void test_dims(void)
{
	int dims[3] = {0, 0, 0}, free3[3] = {0, 0, 0}, rc;
	double cube[3] = {1, 1, 1}, slab[3] = {8, 1, 1};
	rc = mrdem_rank_grid_dims(8, cube, free3, dims);
	tap_ok(!rc && dims[0] == 2 && dims[1] == 2 && dims[2] == 2,
	       "8 ranks on a cube: 2x2x2 (%dx%dx%d)", dims[0], dims[1], dims[2]);
	rc = mrdem_rank_grid_dims(4, slab, free3, dims);
	tap_ok(!rc && dims[0] == 4 && dims[1] == 1,
	       "4 ranks on a long box: cut along its length (%dx%dx%d)", dims[0], dims[1], dims[2]);
	int given[3] = {1, 3, 0};
	rc = mrdem_rank_grid_dims(6, cube, given, dims);
	tap_ok(!rc && dims[0] == 1 && dims[1] == 3 && dims[2] == 2,
	       "given factors kept, the rest chosen (%dx%dx%d)", dims[0], dims[1], dims[2]);
	int wrong[3] = {4, 0, 0};
	tap_ok(mrdem_rank_grid_dims(6, cube, wrong, dims) == -1, "4 does not divide 6: refused");
}

/* owners and reach of random points against every box */
static void test_owner_reach(void)
{
	int dims[3] = {3, 2, 4};
	double lo[3] = {0, 0, 0}, hi[3] = {3, 2, 4};
	struct mrdem_rank_grid g;
	mrdem_rank_grid_init(&g, dims, lo, hi);
	/* uneven cuts */
	g.cuts[0][0] = 0.4, g.cuts[0][1] = 2.9;
	g.cuts[2][1] = 1.05;
	struct mrdem_rng rng;
	mrdem_rng_seed(&rng, 7);
	int *ranks = malloc(sizeof *ranks * (size_t)g.nranks), wrong_owner = 0, wrong_reach = 0;
	for (int t = 0; t < 20000; t++) {
		double x[3] = {mrdem_rng_range(&rng, -1, 4), mrdem_rng_range(&rng, -1, 3), mrdem_rng_range(&rng, -1, 5)};
		if (t % 50 == 0)
			x[0] = g.cuts[0][0]; /* on a cut: the upper box owns it */
		double r = mrdem_rng_range(&rng, 0, 1.5);
		int owner = mrdem_rank_grid_owner(&g, x), inside = 0;
		int n = mrdem_rank_grid_reach(&g, x, r, ranks), k = 0;
		for (int q = 0; q < g.nranks; q++) {
			double blo[3], bhi[3];
			mrdem_rank_grid_box(&g, q, blo, bhi);
			int in = x[0] >= blo[0] && x[0] < bhi[0] && x[1] >= blo[1] && x[1] < bhi[1] &&
				 x[2] >= blo[2] && x[2] < bhi[2];
			inside += in;
			if (in && q != owner)
				wrong_owner++;
			int near = box_gap(blo, bhi, x) <= r;
			if (near != (k < n && ranks[k] == q))
				wrong_reach++;
			if (k < n && ranks[k] == q)
				k++;
		}
		if (inside != 1)
			wrong_owner++;
	}
	tap_ok(!wrong_owner, "every point has one owner, the box that holds it (%d wrong)",
	       wrong_owner);
	tap_ok(!wrong_reach, "reach lists exactly the boxes within r, ascending (%d wrong)",
	       wrong_reach);
	free(ranks);
	mrdem_rank_grid_release(&g);
}

static void test_balance(void)
{
	int dims[3] = {4, 1, 1};
	double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
	struct mrdem_rank_grid g;
	mrdem_rank_grid_init(&g, dims, lo, hi);
	/* 1000 points crowded at small x: x = u^3 */
	enum { N = 1000 };
	static double x[3 * N];
	struct mrdem_rng rng;
	mrdem_rng_seed(&rng, 3);
	for (int i = 0; i < N; i++) {
		double u = mrdem_rng_range(&rng, 0, 1);
		x[3 * i] = u * u * u, x[3 * i + 1] = x[3 * i + 2] = 0.5;
	}
	mrdem_rank_grid_balance(&g, 0, x, NULL, N);
	int count[4] = {0};
	for (int i = 0; i < N; i++)
		count[mrdem_rank_grid_owner(&g, &x[3 * i])]++;
	int most = 0;
	for (int k = 0; k < 4; k++)
		most = count[k] > most ? count[k] : most;
	tap_ok(most <= N / 4 + 1, "balanced cuts: %d %d %d %d points", count[0], count[1],
	       count[2], count[3]);
	mrdem_rank_grid_release(&g);
}

static struct mrdem_spring spring(uint64_t a, uint64_t b, double tag)
{
	struct mrdem_spring s;
	memset(&s, 0, sizeof s);
	s.a = a, s.b = b, s.twist = tag;
	return s;
}

static void test_springs_merge(void)
{
	struct mrdem_history h;
	mrdem_history_init(&h);
	/* from rank 1: (1,2) two springs, (3,4); from rank 0: (1,2) again, (0,5) */
	struct mrdem_spring in[] = {spring(1, 2, 10), spring(1, 2, 11), spring(3, 4, 12),
				    spring(0, 5, 13), spring(1, 2, 10), spring(1, 2, 11)};
	int src[] = {1, 1, 1, 0, 0, 0};
	for (size_t k = 0; k < 6; k++)
		*mrdem_history_push(&h) = in[k];
	mrdem_rank_springs_merge(&h, src);
	tap_ok(h.n == 4 && h.s[0].a == 0 && h.s[1].a == 1 && h.s[1].twist == 10 &&
	       h.s[2].twist == 11 && h.s[3].a == 3,
	       "springs sent twice are kept once, sorted, each pair's in order (%zu)", h.n);
	mrdem_history_release(&h);
}

/* A working frame of 4 particles: 0 and 2 owned by rank 0, 1 by rank 1,
 * 3 fixed; the pair split, the contact merge and the frame written. */
static void test_working_frame(void)
{
	struct mrdem_wire_particle w[4];
	memset(w, 0, sizeof w);
	uint64_t ids[4] = {10, 11, 12, 13};
	int owners[4] = {0, 1, 0, MRDEM_RANK_GLOBAL};
	for (int i = 0; i < 4; i++) {
		w[i].id = ids[i], w[i].order = (uint64_t)(3 - i), w[i].owner = owners[i];
		w[i].quat[0] = 1, w[i].density = 1;
		w[i].flags = owners[i] == MRDEM_RANK_GLOBAL ? MRDEM_PARTICLE_FIXED : 0;
	}
	struct mrdem_rank_frame rf;
	struct mrdem_frame f;
	mrdem_rank_frame_init(&rf);
	mrdem_frame_init(&f);
	int rc = mrdem_rank_frame_build(&rf, &f, w, 4, 0);
	tap_ok(!rc && f.p.n == 4 && f.p.id[0] == 13 && f.p.id[3] == 10 &&
	       (f.p.flags[2] & MRDEM_PARTICLE_GHOST) && !(f.p.flags[1] & MRDEM_PARTICLE_GHOST),
	       "the working frame is in order, the other rank's particle a ghost");
	tap_ok(mrdem_rank_pair_owner(&rf, 13, 11) == 1 && mrdem_rank_pair_owner(&rf, 12, 11) == 0 &&
	       mrdem_rank_pair_owner(&rf, 11, MRDEM_PLANE_ID(0)) == 1,
	       "a pair belongs to the owner of its first free particle");
	struct mrdem_pairs all, mine, theirs;
	mrdem_pairs_init(&all), mrdem_pairs_init(&mine), mrdem_pairs_init(&theirs);
	mrdem_pairs_push(&all, 13, 12);             /* fixed, own: mine */
	mrdem_pairs_push(&all, 13, 11);             /* fixed, ghost: not this rank's */
	mrdem_pairs_push(&all, 12, 11);             /* own first: mine */
	mrdem_pairs_push(&all, 11, 10);             /* ghost first: theirs */
	mrdem_pairs_push(&all, 11, MRDEM_PLANE_ID(0)); /* ghost and plane: not this rank's */
	unsigned char *kind = NULL;
	size_t kcap = 0;
	mrdem_rank_pairs_split(&rf, 0, &all, &mine, &theirs, &kind, &kcap);
	tap_ok(mine.n == 2 && theirs.n == 1 && kind[0] == 1 && kind[1] == 1 && kind[2] == 0 &&
	       theirs.p[0].a == 11, "pairs split into the rank's own and those it needs");
	struct mrdem_contacts cm, ct, out;
	mrdem_contacts_init(&cm), mrdem_contacts_init(&ct), mrdem_contacts_init(&out);
	mrdem_contacts_push(&cm)->a = 13, cm.c[0].b = 12;
	mrdem_contacts_push(&cm)->a = 12, cm.c[1].b = 11;
	mrdem_contacts_push(&cm)->a = 12, cm.c[2].b = 11;
	mrdem_contacts_push(&ct)->a = 11, ct.c[0].b = 10;
	rc = mrdem_rank_contacts_merge(&mine, &theirs, kind, &cm, &ct, &out);
	tap_ok(!rc && out.n == 4 && out.c[0].a == 13 && out.c[3].a == 11 && out.c[3].b == 10,
	       "contacts merged in pair order");
	ct.c[0].a = 12;
	tap_capture_begin();
	rc = mrdem_rank_contacts_merge(&mine, &theirs, kind, &cm, &ct, &out);
	tap_capture_end();
	tap_ok(rc == -1, "contacts that do not follow their pairs refused");
	*mrdem_history_push(&f.history) = spring(12, 11, 1); /* this rank's */
	*mrdem_history_push(&f.history) = spring(11, 10, 2); /* rank 1's */
	struct mrdem_frame out_frame;
	mrdem_frame_init(&out_frame);
	mrdem_rank_frame_output(&rf, &f, 0, &out_frame);
	const struct mrdem_column *c = &out_frame.extra[0];
	tap_ok(out_frame.p.n == 3 && out_frame.p.id[0] == 13 && out_frame.p.id[2] == 10 &&
	       out_frame.nextra == 1 && !strcmp(c->name, MRDEM_COLUMN_ORDER) &&
	       c->data[0] == 0 && c->data[8] == 1 && c->data[16] == 3 &&
	       out_frame.history.n == 1 && out_frame.history.s[0].twist == 1,
	       "rank 0 writes its particles and the fixed one, in order, with their order and "
	       "its pairs' springs");
	mrdem_frame_release(&out_frame);
	mrdem_contacts_release(&cm), mrdem_contacts_release(&ct), mrdem_contacts_release(&out);
	mrdem_pairs_release(&all), mrdem_pairs_release(&mine), mrdem_pairs_release(&theirs);
	free(kind);
	mrdem_frame_release(&f);
	mrdem_rank_frame_release(&rf);
}

int main(void)
{
	test_dims();
	test_owner_reach();
	test_balance();
	test_springs_merge();
	test_working_frame();
	return tap_done();
}
