/* How often the iterative method alone (--method iterative, no fallback)
 * misses contacts that the exact comparison kernel finds, and by how much
 * its contact distances exceed the exact ones (docs/narrow-phase.md):
 *   (a) random nearby triangle pairs, cut-off 0.1 of the triangle size;
 *   (b) two touching or slightly overlapping noisy icospheres (1,280
 *       triangles, noise 1.3, halos 0.02 of the radius), flat search:
 *       triangle pairs and whole particle pairs missed.
 * "before" is the iterate-only rule for unconverged pairs (emulated with
 * the hybrid without fallback), "now" adds the exact intersection test.
 * Printed, never asserted.
 *
 *   bench_iterative_miss [--quick] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/quat.h"
#include "common/geom/vec3.h"
#include "common/mesh/mesh.h"
#include "common/narrow/tri/tri_batch.h"
#include "common/util/error.h"
#include "common/util/rng.h"

struct tally {
	long contacts;               /* exact contacts */
	long miss_before, miss_now;  /* of them reported "no contact" */
	double over_max, over_sum;   /* iterate distance - exact, / cut, on contacts found */
	long over_n;
};

/* Score pair results of the iterative method (now), the hybrid without
 * fallback (before: undecided pairs by the iterate) against comparison. */
static void score(struct tally *t, const struct mrdem_tri_result *cmp,
		  const struct mrdem_tri_result *now, const struct mrdem_tri_result *raw,
		  const float *cut, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (cmp[i].status != MRDEM_TRI_CONTACT)
			continue;
		t->contacts++;
		int before = raw[i].status == MRDEM_TRI_CONTACT ||
			     (raw[i].status == MRDEM_TRI_UNDECIDED && raw[i].dist <= cut[i]);
		t->miss_before += !before;
		t->miss_now += now[i].status != MRDEM_TRI_CONTACT;
		if (now[i].status == MRDEM_TRI_CONTACT) {
			double o = (now[i].dist - cmp[i].dist) / cut[i];
			t->over_max = fmax(t->over_max, o);
			t->over_sum += o;
			t->over_n++;
		}
	}
}

static void print_tally(const char *what, const struct tally *t)
{
	printf("%-34s %9ld exact contacts, missed: before %6ld (%.3f %%), now %6ld (%.3f %%); "
	       "distance over exact: mean %.4f, max %.3f of the cut-off\n",
	       what, t->contacts, t->miss_before, 100.0 * t->miss_before / (t->contacts ? t->contacts : 1),
	       t->miss_now, 100.0 * t->miss_now / (t->contacts ? t->contacts : 1),
	       t->over_sum / (t->over_n ? t->over_n : 1), t->over_max);
}

static void run3(struct mrdem_tri_batch *w, const struct mrdem_tri_set *A,
		 const struct mrdem_tri_set *B, const uint32_t *pairs, size_t n,
		 struct mrdem_tri_result *r[3], struct mrdem_narrow_counts *c)
{
	struct mrdem_narrow_opts o;
	mrdem_narrow_opts_default(&o);
	o.method = MRDEM_NARROW_COMPARISON;
	mrdem_tri_pairs_test(w, A, B, pairs, n, &o, r[0], &c[0]);
	o.method = MRDEM_NARROW_ITERATIVE;
	mrdem_tri_pairs_test(w, A, B, pairs, n, &o, r[1], &c[1]);
	o.method = MRDEM_NARROW_HYBRID;
	o.fallback = 0;
	mrdem_tri_pairs_test(w, A, B, pairs, n, &o, r[2], &c[2]);
}

int main(int argc, char **argv)
{
	mrdem_set_progname("bench_iterative_miss");
	int quick = argc > 1 && !strcmp(argv[1], "--quick");
	struct mrdem_rng rng;
	mrdem_rng_seed(&rng, 31);
	struct mrdem_tri_batch *w = mrdem_tri_batch_new();

	/* (a) random nearby pairs: unit-size triangles, centres 0..1.2 apart */
	size_t n = quick ? 100000 : 1000000;
	float *a = mrdem_xmalloc_array(9 * n, sizeof(float)), *b = mrdem_xmalloc_array(9 * n, sizeof(float));
	float *cut = mrdem_xmalloc_array(n, sizeof(float));
	uint32_t *pairs = mrdem_xmalloc_array(2 * n, sizeof(uint32_t));
	struct mrdem_tri_result *r[3];
	for (int k = 0; k < 3; k++)
		r[k] = mrdem_xmalloc_array(n, sizeof **r);
	for (size_t i = 0; i < n; i++) {
		double off[3];
		for (int c = 0; c < 3; c++)
			off[c] = mrdem_rng_range(&rng, -0.7, 0.7);
		for (int v = 0; v < 3; v++)
			for (int c = 0; c < 3; c++) {
				a[9 * i + 3 * v + c] = (float)mrdem_rng_range(&rng, -0.5, 0.5);
				b[9 * i + 3 * v + c] = (float)(off[c] + mrdem_rng_range(&rng, -0.5, 0.5));
			}
		cut[i] = 0.1f;
		pairs[2 * i] = pairs[2 * i + 1] = (uint32_t)i;
	}
	struct mrdem_tri_set A = {a, (uint32_t)n, NULL, 0.05f}, B = {b, (uint32_t)n, NULL, 0.05f};
	struct mrdem_narrow_counts c[3];
	memset(c, 0, sizeof c);
	run3(w, &A, &B, pairs, n, r, c);
	struct tally ta = {0}, tx = {0}, ts = {0};
	score(&ta, r[0], r[1], r[2], cut, n);
	/* the crossing ones (exact distance 0) and the separated ones apart */
	for (size_t i = 0; i < n; i++) {
		struct tally *t = r[0][i].dist == 0 ? &tx : &ts;
		if (r[0][i].status == MRDEM_TRI_CONTACT)
			score(t, &r[0][i], &r[1][i], &r[2][i], &cut[i], 1);
	}
	printf("(a) %zu random nearby pairs, cut-off 0.1, 4 sweeps: %llu unconverged, "
	       "%llu intersecting, %llu undecided\n", n, (unsigned long long)c[1].unconverged,
	       (unsigned long long)c[1].intersecting, (unsigned long long)c[1].undecided);
	print_tally("    all contacts", &ta);
	print_tally("    crossing pairs (distance 0)", &tx);
	print_tally("    separated pairs (0 < d <= cut)", &ts);

	/* (b) two noisy icospheres, touching to slightly overlapping */
	struct mrdem_sphere_opts so;
	mrdem_sphere_opts_default(&so);
	so.triangles = 1280;
	so.noise = 1.3;
	struct mrdem_mesh ma, mb;
	mrdem_mesh_init(&ma);
	mrdem_mesh_init(&mb);
	so.seed = 1;
	if (mrdem_mesh_sphere(&ma, &so))
		return 1;
	so.seed = 2;
	if (mrdem_mesh_sphere(&mb, &so))
		return 1;
	uint32_t na = ma.ntris, nb = mb.ntris;
	size_t np = (size_t)na * nb;
	uint32_t *all = mrdem_xmalloc_array(2 * np, sizeof(uint32_t));
	float *cut2 = mrdem_xmalloc_array(np, sizeof(float));
	for (int k = 0; k < 3; k++)
		r[k] = mrdem_xrealloc(r[k], np * sizeof **r);
	for (size_t p = 0; p < np; p++) {
		all[2 * p] = (uint32_t)(p / nb), all[2 * p + 1] = (uint32_t)(p % nb);
		cut2[p] = 0.04f;
	}
	float *sa = mrdem_xmalloc_array(9 * (size_t)na, sizeof(float));
	float *sb = mrdem_xmalloc_array(9 * (size_t)nb, sizeof(float));
	struct tally tb = {0};
	int poses = quick ? 10 : 40, touching = 0, lost = 0, lost_before = 0;
	double lost_min = 1, lost_max = 0;
	long isect = 0, undec = 0, unconv = 0;
	for (int k = 0; k < poses; k++) {
		double q[2][4], dir[3], t[3];
		mrdem_rng_quat(&rng, q[0]);
		mrdem_rng_quat(&rng, q[1]);
		for (int cc = 0; cc < 3; cc++)
			dir[cc] = mrdem_rng_normal(&rng);
		vec3_normalize(dir);
		/* noisy radii lie in [1, 1.3]: centres 1.9 .. 2.6 apart */
		vec3_scale(t, dir, mrdem_rng_range(&rng, 1.9, 2.6));
		for (int s = 0; s < 2; s++) {
			const struct mrdem_mesh *m = s ? &mb : &ma;
			float *out = s ? sb : sa;
			double rm[9], x[3];
			quat_to_matrix(q[s], rm);
			for (uint32_t i = 0; i < m->ntris; i++)
				for (int v = 0; v < 3; v++) {
					mat3_apply(x, rm, &m->verts[3 * m->tris[3 * i + v]]);
					if (s)
						vec3_add(x, x, t);
					for (int cc = 0; cc < 3; cc++)
						out[9 * i + 3 * v + cc] = (float)x[cc];
				}
		}
		struct mrdem_tri_set SA = {sa, na, NULL, 0.02f}, SB = {sb, nb, NULL, 0.02f};
		memset(c, 0, sizeof c);
		run3(w, &SA, &SB, all, np, r, c);
		score(&tb, r[0], r[1], r[2], cut2, np);
		isect += (long)c[1].intersecting, undec += (long)c[1].undecided;
		unconv += (long)c[1].unconverged;
		long exact = 0, now = 0, before = 0;
		double dmin = 1;
		for (size_t p = 0; p < np; p++) {
			if (r[0][p].status == MRDEM_TRI_CONTACT) {
				exact++;
				dmin = fmin(dmin, r[0][p].dist);
			}
			now += r[1][p].status == MRDEM_TRI_CONTACT;
			before += r[2][p].status == MRDEM_TRI_CONTACT ||
				  (r[2][p].status == MRDEM_TRI_UNDECIDED && r[2][p].dist <= cut2[p]);
		}
		if (!exact)
			continue;
		touching++;
		lost_before += !before;
		if (!now) {
			lost++;
			lost_min = fmin(lost_min, dmin / 0.04), lost_max = fmax(lost_max, dmin / 0.04);
		}
	}
	printf("(b) %d poses of two noisy icospheres (1,280 triangles, noise 1.3), halos 0.02: "
	       "%ld unconverged, %ld intersecting, %ld undecided\n", poses, unconv, isect, undec);
	print_tally("    triangle pairs", &tb);
	printf("    particle pairs in contact %d, lost entirely: before %d, now %d", touching,
	       lost_before, lost);
	if (lost)
		printf(" (their closest triangles at %.2f .. %.3f of the cut-off)", lost_min, lost_max);
	printf("\n");
	return 0;
}
