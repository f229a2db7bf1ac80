/* The leaf-pair stream of the tree search (mrdem_tri_stream_leaves in
 * common/narrow/tri/tri_batch.h) against an independent reference: the
 * sphere pruning of the tree search written out pair by pair with
 * mrdem_spheres_apart, and the surviving index pairs through
 * mrdem_tri_pairs_hits. Random clusters of small triangles in leaves of 1
 * to 20 triangles (one to three chunks), several leaf pairs per stream so
 * that blocks and the spill fill up across leaf pairs; every method, with
 * and without exact contacts, at the generic and the AVX-512 level where
 * the CPU has it. The hits (sorted) and the counters must agree bit for
 * bit, the pruned pairs exactly. */
#include <stdlib.h>
#include <string.h>

#include "common/narrow/search/search_scratch.h"
#include "common/util/simd.h"
#include "common/narrow/tri/tri_batch.h"
#include "common/util/rng.h"
#include "tests/lib/tap.h"

#define LEAVES 12 /* leaf pairs per stream */
#define MAXTRI 20

struct leaf {
	uint32_t first, n;
	float sph[4]; /* the node's sphere */
};

/* n random triangles around a centre near the origin, their spheres, and
 * the leaf's sphere (sometimes too small, so that it prunes). */
static void make_leaf(struct mrdem_rng *r, float *v, float *sph, struct leaf *l)
{
	double c[3];
	for (int k = 0; k < 3; k++)
		c[k] = mrdem_rng_range(r, -0.4, 0.4);
	double lr = 0;
	for (uint32_t t = 0; t < l->n; t++) {
		float *tv = &v[9 * (size_t)(l->first + t)], *ts = &sph[4 * (size_t)(l->first + t)];
		double m[3];
		for (int k = 0; k < 3; k++)
			m[k] = c[k] + mrdem_rng_range(r, -0.3, 0.3);
		for (int i = 0; i < 9; i++)
			tv[i] = (float)(m[i % 3] + mrdem_rng_range(r, -0.15, 0.15));
		double rad = 0;
		for (int i = 0; i < 3; i++) {
			double d2 = 0;
			for (int k = 0; k < 3; k++)
				d2 += (tv[3 * i + k] - m[k]) * (tv[3 * i + k] - m[k]);
			rad = d2 > rad ? d2 : rad;
		}
		for (int k = 0; k < 3; k++)
			ts[k] = (float)m[k];
		ts[3] = (float)(sqrt(rad) * mrdem_rng_range(r, 0.8, 1.2));
		double dc = 0;
		for (int k = 0; k < 3; k++)
			dc += (m[k] - c[k]) * (m[k] - c[k]);
		lr = sqrt(dc) + ts[3] > lr ? sqrt(dc) + ts[3] : lr;
	}
	for (int k = 0; k < 3; k++)
		l->sph[k] = (float)c[k];
	l->sph[3] = (float)(lr * mrdem_rng_range(r, 0.5, 1.1));
}

/* The tree search's pruning of a leaf pair, pair by pair: the surviving
 * pairs appended to pairs, the pruned ones counted. */
static uint64_t ref_leaf_pairs(const struct leaf *la, const float *spha, const struct leaf *lb,
			       const float *sphb, float reach, uint32_t *pairs, size_t *np)
{
	uint32_t keep[MAXTRI], nq = 0;
	uint64_t pruned = 0;
	for (uint32_t q = lb->first; q < lb->first + lb->n; q++)
		if (!mrdem_spheres_apart(la->sph, &sphb[4 * (size_t)q], reach))
			keep[nq++] = q;
	pruned += (uint64_t)(lb->n - nq) * la->n;
	for (uint32_t p = la->first; p < la->first + la->n; p++) {
		const float *sp = &spha[4 * (size_t)p];
		if (mrdem_spheres_apart(sp, lb->sph, reach)) {
			pruned += nq;
			continue;
		}
		for (uint32_t k = 0; k < nq; k++) {
			if (mrdem_spheres_apart(sp, &sphb[4 * (size_t)keep[k]], reach)) {
				pruned++;
				continue;
			}
			pairs[2 * *np] = p;
			pairs[2 * *np + 1] = keep[k];
			(*np)++;
		}
	}
	return pruned;
}

static int hit_order(const void *x, const void *y)
{
	const struct mrdem_tri_hit *a = x, *b = y;
	if (a->ta != b->ta)
		return a->ta < b->ta ? -1 : 1;
	return (a->tb > b->tb) - (a->tb < b->tb);
}

/* Leaf i's chunks into c; returns how many. */
static uint32_t chunks_of(const struct leaf *l, const float *v, const float *sph,
			  struct mrdem_tri_chunk *c)
{
	uint32_t k = 0;
	for (uint32_t f = 0; f < l->n; f += MRDEM_TRI_CHUNK, k++) {
		uint32_t m = l->n - f < MRDEM_TRI_CHUNK ? l->n - f : MRDEM_TRI_CHUNK;
		mrdem_tri_chunk_set(&c[k], &v[9 * (size_t)(l->first + f)],
				    &sph[4 * (size_t)(l->first + f)], l->first + f, m);
	}
	return k;
}

static int same_counts(const struct mrdem_narrow_counts *a, const struct mrdem_narrow_counts *b)
{
	return a->comparisons == b->comparisons && a->iterative == b->iterative &&
	       a->fallbacks == b->fallbacks && a->unconverged == b->unconverged &&
	       a->intersecting == b->intersecting && a->undecided == b->undecided;
}

int main(void)
{
	struct mrdem_rng r;
	mrdem_rng_seed(&r, 20261123);
	size_t cap = LEAVES * MAXTRI;
	float *va = malloc(9 * cap * sizeof *va), *vb = malloc(9 * cap * sizeof *vb);
	float *sa = malloc(4 * cap * sizeof *sa), *sb = malloc(4 * cap * sizeof *sb);
	uint32_t *pairs = malloc(2 * LEAVES * MAXTRI * MAXTRI * sizeof *pairs);
	struct mrdem_tri_batch *w = mrdem_tri_batch_new();
	struct mrdem_tri_hits want, got;
	mrdem_tri_hits_init(&want);
	mrdem_tri_hits_init(&got);
	int levels[2] = {MRDEM_SIMD_GENERIC, MRDEM_SIMD_AVX512}, nlevels = 1;
	if (mrdem_simd_resolve(MRDEM_SIMD_AVX512) == MRDEM_SIMD_AVX512)
		nlevels = 2;
	else
		tap_diag("no AVX-512 here: the generic level only");
	const struct {
		int method, exact;
	} modes[] = {{MRDEM_NARROW_HYBRID, 1}, {MRDEM_NARROW_HYBRID, 0},
		     {MRDEM_NARROW_COMPARISON, 1}, {MRDEM_NARROW_ITERATIVE, 1}};
	for (int lv = 0; lv < nlevels; lv++)
		for (size_t md = 0; md < sizeof modes / sizeof modes[0]; md++) {
			struct mrdem_narrow_opts o;
			mrdem_narrow_opts_default(&o);
			o.simd = levels[lv];
			o.method = modes[md].method;
			o.exact_contacts = modes[md].exact;
			uint64_t bad_hits = 0, bad_pruned = 0, bad_counts = 0, hits = 0, compared = 0,
				 pruned_all = 0;
			for (int trial = 0; trial < 150; trial++) {
				struct leaf la[LEAVES], lb[LEAVES];
				uint32_t fa = 0, fb = 0;
				for (int i = 0; i < LEAVES; i++) {
					la[i].first = fa;
					la[i].n = 1 + (uint32_t)(mrdem_rng_u64(&r) % MAXTRI);
					fa += la[i].n;
					lb[i].first = fb;
					lb[i].n = 1 + (uint32_t)(mrdem_rng_u64(&r) % MAXTRI);
					fb += lb[i].n;
					make_leaf(&r, va, sa, &la[i]);
					make_leaf(&r, vb, sb, &lb[i]);
				}
				float reach = (float)mrdem_rng_range(&r, 0, 0.05);
				float ea = (float)mrdem_rng_range(&r, 0.001, 0.03), eb = ea * 0.75f;
				/* reference */
				size_t np = 0;
				uint64_t pruned_ref = 0;
				for (int i = 0; i < LEAVES; i++)
					pruned_ref += ref_leaf_pairs(&la[i], sa, &lb[i], sb, reach, pairs, &np);
				struct mrdem_tri_set A = {va, fa, NULL, ea}, B = {vb, fb, NULL, eb};
				struct mrdem_narrow_counts cw = {0}, cg = {0};
				want.n = 0;
				mrdem_tri_pairs_hits(w, &A, &B, pairs, np, &o, &want, &cw);
				/* the stream */
				got.n = 0;
				uint64_t pruned = 0;
				mrdem_tri_stream_begin(w, ea + eb, &got, &o);
				for (int i = 0; i < LEAVES; i++) {
					struct mrdem_tri_chunk ca[3], cb[3];
					uint32_t na = chunks_of(&la[i], va, sa, ca);
					uint32_t nb = chunks_of(&lb[i], vb, sb, cb);
					struct mrdem_tri_leaf a = {ca, na, la[i].sph};
					struct mrdem_tri_leaf b = {cb, nb, lb[i].sph};
					pruned += mrdem_tri_stream_leaves(w, &a, &b, reach, &o, &cg);
				}
				mrdem_tri_stream_end(w, &o, &cg);
				qsort(want.h, want.n, sizeof *want.h, hit_order);
				qsort(got.h, got.n, sizeof *got.h, hit_order);
				bad_hits += want.n != got.n ||
					    memcmp(want.h, got.h, want.n * sizeof *want.h) != 0;
				bad_pruned += pruned != pruned_ref;
				bad_counts += !same_counts(&cw, &cg);
				hits += want.n;
				compared += np;
				pruned_all += pruned_ref;
			}
			const char *name = mrdem_simd_name(levels[lv]);
			const char *method = mrdem_narrow_method_name(o.method);
			tap_diag("%s %s exact %d: %llu pairs compared, %llu pruned, %llu hits", name,
				 method, o.exact_contacts, (unsigned long long)compared,
				 (unsigned long long)pruned_all, (unsigned long long)hits);
			tap_ok(hits > 100 && pruned_all > 1000 && compared > 10000,
			       "%s %s exact %d: the poses have contacts and pruned pairs", name,
			       method, o.exact_contacts);
			tap_eq_int(bad_hits, 0, "%s %s exact %d: the stream's hits are the index pairs' "
				   "bit for bit", name, method, o.exact_contacts);
			tap_eq_int(bad_pruned, 0, "%s %s exact %d: the same pairs pruned by spheres",
				   name, method, o.exact_contacts);
			tap_eq_int(bad_counts, 0, "%s %s exact %d: the same counters", name, method,
				   o.exact_contacts);
		}
	mrdem_tri_hits_release(&want);
	mrdem_tri_hits_release(&got);
	mrdem_tri_batch_free(w);
	free(va);
	free(vb);
	free(sa);
	free(sb);
	free(pairs);
	return tap_done();
}
