/* Batched narrow phase (common/narrow/tri/tri_batch.h): the flat search, the
 * index-pair batches and the one-pair wrappers give the same bits for the
 * same pair; contacts come sorted and match the double reference outside
 * the float band; per-triangle halos; counters; options. Two
 * 320-triangle spheres in touching poses. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/quat.h"
#include "common/geom/vec3.h"
#include "common/mesh/mesh.h"
#include "common/util/simd.h"
#include "common/narrow/tri/tri_batch.h"
#include "common/narrow/tri/tri_distance.h"
#include "common/narrow/tri/tri_distance_ref.h"
#include "common/narrow/tri/tri_intersect.h"
#include "common/util/error.h"
#include "common/util/rng.h"
#include "tests/lib/tap.h"

static float *soup(const struct mrdem_mesh *m, const double q[4], const double t[3])
{
	float *v = malloc(9 * sizeof(float) * m->ntris);
	double r[9], x[3];
	quat_to_matrix(q, r);
	for (uint32_t i = 0; i < m->ntris; i++)
		for (int c = 0; c < 3; c++) {
			mat3_apply(x, r, &m->verts[3 * m->tris[3 * i + c]]);
			vec3_add(x, x, t);
			for (int k = 0; k < 3; k++)
				v[9 * i + 3 * c + k] = (float)x[k];
		}
	return v;
}

static double ref_dist(const float *a, const float *b)
{
	double x[9], y[9];
	for (int k = 0; k < 9; k++)
		x[k] = a[k], y[k] = b[k];
	return mrdem_tri_distance_ref(x, y, NULL, NULL);
}

static int same_hit(const struct mrdem_tri_hit *h, const struct mrdem_tri_result *r)
{
	return !memcmp(h->pa, r->pa, sizeof h->pa) && !memcmp(h->pb, r->pb, sizeof h->pb) &&
	       h->dist == r->dist;
}

/* The simd level the kernels should pick, from the kernel's CPU flags
 * (independent of __builtin_cpu_supports, which the library asks); -1
 * when they cannot be read. */
static int cpuinfo_simd_level(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return -1;
	char line[8192];
	int level = -1;
	while (level < 0 && fgets(line, sizeof line, f)) {
		if (strncmp(line, "flags", 5))
			continue;
		char *save, *w;
		int avx2 = 0, fma = 0, f512 = 0, vl512 = 0;
		for (w = strtok_r(strchr(line, ':') + 1, " \n", &save); w; w = strtok_r(NULL, " \n", &save)) {
			avx2 |= !strcmp(w, "avx2");
			fma |= !strcmp(w, "fma");
			f512 |= !strcmp(w, "avx512f");
			vl512 |= !strcmp(w, "avx512vl");
		}
		level = !(avx2 && fma) ? MRDEM_SIMD_GENERIC : f512 && vl512 ? MRDEM_SIMD_AVX512
									  : MRDEM_SIMD_AVX2;
	}
	fclose(f);
	return MRDEM_SIMD_X86 ? level : (level < 0 ? -1 : MRDEM_SIMD_GENERIC);
}

int main(void)
{
	mrdem_set_progname("test_narrow_batch");
	struct mrdem_sphere_opts so;
	mrdem_sphere_opts_default(&so);
	so.triangles = 320;
	struct mrdem_mesh m;
	mrdem_mesh_init(&m);
	if (mrdem_mesh_sphere(&m, &so))
		return 1;
	uint32_t n = m.ntris;
	struct mrdem_rng rng;
	mrdem_rng_seed(&rng, 99);
	struct mrdem_tri_batch *w = mrdem_tri_batch_new();
	const float eps = 0.02f, band = 2e-6f * 3;
	long flat_vs_pairs = 0, single_bad = 0, order_bad = 0, wrong = 0, compared = 0;
	long hybrid_vs_comparison = 0, fallback_count_bad = 0, counts_bad = 0, eps_wrong = 0;
	long staged_wrong = 0, contacts_total = 0, iter_rule_bad = 0;
	uint64_t fallbacks_total = 0;

	/* sanitised builds run a quarter of the poses */
	int poses = getenv("MRDEM_ASAN") ? 3 : 12;
	for (int pose = 0; pose < poses; pose++) {
		double qa[4], qb[4], t[3] = {0, 0, 0}, dir[3];
		mrdem_rng_quat(&rng, qa);
		mrdem_rng_quat(&rng, qb);
		do
			for (int k = 0; k < 3; k++)
				dir[k] = mrdem_rng_range(&rng, -1, 1);
		while (vec3_norm2(dir) > 1 || vec3_norm2(dir) < 0.01);
		vec3_normalize(dir);
		/* centres 2 - 0.04 .. 2 + 0.04 apart: contacts near the cut */
		vec3_scale(t, dir, 2 + mrdem_rng_range(&rng, -0.04, 0.04));
		double zero[3] = {0, 0, 0};
		float *a = soup(&m, qa, zero), *b = soup(&m, qb, t);
		struct mrdem_tri_set A = {a, n, NULL, eps}, B = {b, n, NULL, eps};

		/* every pair, in a shuffled order for the index-pair path */
		size_t np = (size_t)n * n;
		uint32_t *pairs = malloc(2 * sizeof(uint32_t) * np);
		size_t *perm = malloc(sizeof(size_t) * np);
		for (size_t p = 0; p < np; p++)
			perm[p] = p;
		for (size_t p = np - 1; p > 0; p--) {
			size_t q = mrdem_rng_u64(&rng) % (p + 1), x = perm[p];
			perm[p] = perm[q], perm[q] = x;
		}
		for (size_t p = 0; p < np; p++)
			pairs[2 * p] = (uint32_t)(perm[p] / n), pairs[2 * p + 1] = (uint32_t)(perm[p] % n);
		struct mrdem_tri_result *res = malloc(sizeof *res * np);
		/* result of pair (i, j) in the shuffled list */
		size_t *where = malloc(sizeof(size_t) * np);
		for (size_t p = 0; p < np; p++)
			where[perm[p]] = p;

		double *dref = malloc(sizeof(double) * np);
		for (size_t p = 0; p < np; p++)
			dref[p] = ref_dist(a + 9 * (p / n), b + 9 * (p % n));
		struct mrdem_tri_hits hc;
		mrdem_tri_hits_init(&hc);
		for (int method = 0; method < 3; method++) {
			struct mrdem_narrow_opts o;
			mrdem_narrow_opts_default(&o);
			o.method = method;
			struct mrdem_tri_hits hits;
			mrdem_tri_hits_init(&hits);
			struct mrdem_narrow_counts c1 = {0}, c2 = {0};
			mrdem_tri_all_pairs(w, &A, &B, &o, &hits, &c1);
			mrdem_tri_pairs_test(w, &A, &B, pairs, np, &o, res, &c2);
			/* the work, not the wall times (--log-view) */
			c1.kernel_s = c2.kernel_s = c1.fallback_s = c2.fallback_s = 0;
			if (memcmp(&c1, &c2, sizeof c1) || c1.comparisons != np ||
			    c1.iterative != (method ? np : 0))
				counts_bad++;
			if (method == MRDEM_NARROW_HYBRID)
				fallbacks_total += c1.fallbacks;
			/* flat hits == index-pair contacts, bit for bit, sorted */
			size_t k = 0;
			for (size_t p = 0; p < np; p++) {
				const struct mrdem_tri_result *r = &res[where[p]];
				if (r->status != MRDEM_TRI_CONTACT)
					continue;
				if (k >= hits.n || hits.h[k].ta != p / n || hits.h[k].tb != p % n ||
				    !same_hit(&hits.h[k], r))
					flat_vs_pairs++;
				k++;
			}
			if (k != hits.n)
				flat_vs_pairs++;
			for (size_t i = 1; i < hits.n; i++)
				if (hits.h[i - 1].ta > hits.h[i].ta ||
				    (hits.h[i - 1].ta == hits.h[i].ta && hits.h[i - 1].tb >= hits.h[i].tb))
					order_bad++;
			/* decisions against the reference (iterative alone may miss) */
			for (size_t p = 0; p < np; p++) {
				const struct mrdem_tri_result *r = &res[where[p]];
				double d = dref[p];
				int truth = d <= 2 * eps, inband = fabs(d - 2 * eps) <= band;
				if (method == MRDEM_NARROW_ITERATIVE) {
					/* a contact is never false; the rule is the iterate's */
					if (r->status == MRDEM_TRI_CONTACT && !truth && !inband)
						wrong++;
					if (r->status == MRDEM_TRI_CONTACT && r->dist > 2 * eps)
						iter_rule_bad++;
					continue;
				}
				compared++;
				if ((r->status == MRDEM_TRI_CONTACT) != truth && !inband)
					wrong++;
			}
			/* a sample of pairs through the one-pair wrappers */
			for (int s = 0; s < 200; s++) {
				size_t p = mrdem_rng_u64(&rng) % np;
				uint32_t i = (uint32_t)(p / n), j = (uint32_t)(p % n);
				const struct mrdem_tri_result *r = &res[where[p]];
				float pa[3], pb[3], d;
				int st, fb;
				if (method == MRDEM_NARROW_COMPARISON) {
					d = mrdem_tri_distance(a + 9 * i, b + 9 * j, pa, pb, MRDEM_SIMD_AUTO);
					st = d <= 2 * eps;
				} else if (method == MRDEM_NARROW_HYBRID) {
					st = mrdem_tri_hybrid(a + 9 * i, b + 9 * j, 2 * eps, 4, 1.0f, pa, pb, &d,
							      &fb, MRDEM_SIMD_AUTO);
				} else {
					st = mrdem_tri_penalty(a + 9 * i, b + 9 * j, 2 * eps, 4, 1.0f, pa, pb, &d,
							       MRDEM_SIMD_AUTO);
					/* the batch resolves unconverged pairs: crossing
					 * ones by the exact test, the rest by the iterate */
					if (st == MRDEM_TRI_UNDECIDED) {
						float x[3];
						if (mrdem_tri_intersect(a + 9 * i, b + 9 * j, x)) {
							st = MRDEM_TRI_CONTACT, d = 0;
							memcpy(pa, x, sizeof pa);
							memcpy(pb, x, sizeof pb);
						} else {
							st = d <= 2 * eps;
						}
					}
				}
				if (st != r->status || (st == MRDEM_TRI_CONTACT &&
							(d != r->dist || memcmp(pa, r->pa, sizeof pa) ||
							 memcmp(pb, r->pb, sizeof pb))))
					single_bad++;
			}
			if (method == MRDEM_NARROW_COMPARISON) {
				hc = hits;
				continue;
			}
			if (method == MRDEM_NARROW_HYBRID) {
				/* same contact pairs as the comparison method, outside
				 * the band */
				size_t x = 0, y = 0;
				contacts_total += hits.n;
				while (x < hc.n || y < hits.n) {
					const struct mrdem_tri_hit *u = x < hc.n ? &hc.h[x] : NULL;
					const struct mrdem_tri_hit *v = y < hits.n ? &hits.h[y] : NULL;
					if (u && v && u->ta == v->ta && u->tb == v->tb) {
						x++, y++;
						continue;
					}
					const struct mrdem_tri_hit *e =
						!v || (u && (u->ta < v->ta || (u->ta == v->ta && u->tb < v->tb))) ? u : v;
					if (e == u)
						x++;
					else
						y++;
					double d = dref[(size_t)e->ta * n + e->tb];
					if (fabs(d - 2 * eps) > band)
						hybrid_vs_comparison++;
				}
				/* fallbacks are exactly the pairs the kernel left open */
				struct mrdem_narrow_opts nf = o;
				nf.fallback = 0;
				struct mrdem_narrow_counts c3 = {0};
				mrdem_tri_pairs_test(w, &A, &B, pairs, np, &nf, res, &c3);
				size_t open = 0;
				for (size_t p = 0; p < np; p++)
					open += res[p].status == MRDEM_TRI_UNDECIDED;
				if (c3.fallbacks || c3.unconverged != open || open != c1.fallbacks)
					fallback_count_bad++;
				/* many sweeps (beyond the fused instantiations) */
				nf = o;
				nf.iterations = 12;
				mrdem_tri_pairs_test(w, &A, &B, pairs, np, &nf, res, &c3);
				for (size_t p = 0; p < np; p++) {
					double d = dref[p];
					if ((res[where[p]].status == MRDEM_TRI_CONTACT) != (d <= 2 * eps) &&
					    fabs(d - 2 * eps) > band)
						staged_wrong++;
				}
			}
			mrdem_tri_hits_release(&hits);
		}
		mrdem_tri_hits_release(&hc);

		/* per-triangle halos */
		float *ea = malloc(sizeof(float) * n), *eb = malloc(sizeof(float) * n);
		for (uint32_t i = 0; i < n; i++)
			ea[i] = (float)mrdem_rng_range(&rng, 0, 0.04), eb[i] = (float)mrdem_rng_range(&rng, 0, 0.04);
		struct mrdem_tri_set A2 = {a, n, ea, 99}, B2 = {b, n, eb, 99};
		struct mrdem_narrow_opts o;
		mrdem_narrow_opts_default(&o);
		struct mrdem_narrow_counts c = {0};
		mrdem_tri_pairs_test(w, &A2, &B2, pairs, np, &o, res, &c);
		for (size_t p = 0; p < np; p++) {
			uint32_t i = pairs[2 * p], j = pairs[2 * p + 1];
			double cut = (double)(ea[i] + eb[j]), d = dref[(size_t)i * n + j];
			if ((res[p].status == MRDEM_TRI_CONTACT) != (d <= cut) && fabs(d - cut) > band)
				eps_wrong++;
		}
		free(ea), free(eb);
		free(a), free(b), free(pairs), free(perm), free(res), free(where), free(dref);
	}
	tap_eq_int(flat_vs_pairs, 0, "flat search and index-pair batches give the same contacts, bit for bit");
	tap_eq_int(order_bad, 0, "flat-search contacts come sorted by triangle pair");
	tap_eq_int(single_bad, 0, "one-pair wrappers give the batch's bits");
	tap_eq_int(counts_bad, 0, "counters: every pair compared, iterative ones counted, both paths agree");
	tap_ok(wrong == 0, "comparison and hybrid decisions match the reference outside the band (%ld pairs)",
	       compared);
	tap_eq_int(iter_rule_bad, 0, "iterative method reports contact iff its iterate is within the cut");
	tap_eq_int(hybrid_vs_comparison, 0, "hybrid and comparison find the same contact pairs");
	tap_ok(contacts_total > 100, "the poses produce contacts (%ld)", contacts_total);
	tap_ok(fallbacks_total > 0, "the poses exercise the fallback (%llu)", (unsigned long long)fallbacks_total);
	tap_eq_int(fallback_count_bad, 0, "fallbacks are the pairs a hybrid without fallback leaves open");
	tap_eq_int(staged_wrong, 0, "12 iterations (staged path) decide right");
	tap_eq_int(eps_wrong, 0, "per-triangle halos: contact iff distance <= eps_a + eps_b");

	/* options */
	struct mrdem_narrow_opts o;
	mrdem_narrow_opts_default(&o);
	tap_eq_int(mrdem_narrow_opts_check(&o), 0, "default options are valid");
	tap_ok(o.method == MRDEM_NARROW_HYBRID && o.iterations == 4 && o.threshold == 1.0,
	       "defaults: hybrid, 4 iterations, C = 1");
	static const struct {
		int iterations;
		double threshold;
		const char *what, *msg;
	} bad[] = {
		{ 0, 1, "0 iterations", "iterations must be between 1 and" },
		{ MRDEM_NARROW_ITERATIONS_MAX + 1, 1, "too many iterations",
		  "iterations must be between 1 and" },
		{ 4, NAN, "NaN threshold", "threshold must be a positive number, not nan" },
		{ 4, -1, "negative threshold", "threshold must be a positive number, not -1" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		o.iterations = bad[i].iterations;
		o.threshold = bad[i].threshold;
		tap_capture_begin();
		int rc = mrdem_narrow_opts_check(&o);
		const char *err = tap_capture_end();
		tap_ok(rc == -1 && strstr(err, bad[i].msg), "%s refused: %s", bad[i].what, err);
	}
	for (int k = 0; k < 3; k++)
		tap_eq_int(mrdem_narrow_method_parse(mrdem_narrow_method_name(k)), k, "method %s round trip",
			   mrdem_narrow_method_name(k));
	tap_eq_int(mrdem_narrow_method_parse("penalty"), -1, "unknown method refused");
	tap_eq_int(mrdem_simd_parse("avx2"), MRDEM_SIMD_AVX2, "simd level names parse");
	int best = cpuinfo_simd_level();
	if (best < 0) {
		tap_ok(1, "# SKIP no /proc/cpuinfo flags to check the simd level against");
	} else {
		tap_eq_int(mrdem_simd_resolve(MRDEM_SIMD_AUTO), best,
			   "auto resolves to the best level /proc/cpuinfo reports (%s)",
			   mrdem_simd_name(best));
		tap_eq_int(mrdem_simd_resolve(MRDEM_SIMD_AVX512), best,
			   "avx512 falls back to the best supported level");
		tap_eq_int(mrdem_simd_resolve(MRDEM_SIMD_AVX2),
			   best < MRDEM_SIMD_AVX2 ? best : MRDEM_SIMD_AVX2,
			   "avx2 falls back only when it is missing");
	}
	tap_eq_int(mrdem_simd_resolve(MRDEM_SIMD_GENERIC), MRDEM_SIMD_GENERIC, "generic is always there");

	mrdem_tri_batch_free(w);
	mrdem_mesh_release(&m);
	return tap_done();
}
