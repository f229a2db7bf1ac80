#include "common/narrow/tri_batch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/narrow/simd.h"
#include "common/util/error.h"

struct mrdem_tri_batch {
	struct mrdem_tri_block blk, spill;
	uint32_t ta[MRDEM_TRI_BLOCK], tb[MRDEM_TRI_BLOCK];
	/* the second set of the flat search transposed to SoA: 9 coordinate
	 * columns and the halos, `bcap` triangles each */
	float *bsoa;
	size_t bcap;
};

void mrdem_tri_block_set(struct mrdem_tri_block *k, int lane, const float a[9], const float b[9],
			 float cut)
{
	for (int c = 0; c < 9; c++) {
		k->a[c][lane] = a[c];
		k->b[c][lane] = b[c];
	}
	k->cut[lane] = cut;
}

int mrdem_tri_block_pad(struct mrdem_tri_block *k)
{
	int groups = (k->n + MRDEM_TRI_LANES - 1) / MRDEM_TRI_LANES;
	for (int l = k->n; l < groups * MRDEM_TRI_LANES; l++) {
		for (int c = 0; c < 9; c++) {
			k->a[c][l] = k->a[c][0];
			k->b[c][l] = k->b[c][0];
		}
		k->cut[l] = k->cut[0];
	}
	return groups;
}

void mrdem_narrow_opts_default(struct mrdem_narrow_opts *o)
{
	o->method = MRDEM_NARROW_HYBRID;
	o->iterations = 4;
	o->threshold = 1.0;
	o->fallback = 1;
	o->simd = MRDEM_SIMD_AUTO;
}

static const char *const method_names[] = {"comparison", "iterative", "hybrid"};

const char *mrdem_narrow_method_name(int method)
{
	return method >= 0 && method <= MRDEM_NARROW_HYBRID ? method_names[method] : "unknown";
}

int mrdem_narrow_method_parse(const char *name)
{
	for (int i = 0; i <= MRDEM_NARROW_HYBRID; i++)
		if (!strcmp(name, method_names[i]))
			return i;
	return -1;
}

int mrdem_narrow_opts_check(const struct mrdem_narrow_opts *o)
{
	if (o->method < 0 || o->method > MRDEM_NARROW_HYBRID)
		return mrdem_error("unknown narrow-phase method %d", o->method);
	if (o->iterations < 1 || o->iterations > MRDEM_NARROW_ITERATIONS_MAX)
		return mrdem_error("iterations must be between 1 and %d, not %d",
				   MRDEM_NARROW_ITERATIONS_MAX, o->iterations);
	if (!(o->threshold > 0) || !isfinite(o->threshold))
		return mrdem_error("threshold must be a positive number, not %g", o->threshold);
	if (o->simd < MRDEM_SIMD_AUTO || o->simd > MRDEM_SIMD_AVX512)
		return mrdem_error("unknown simd level %d", o->simd);
	return 0;
}

void mrdem_narrow_counts_add(struct mrdem_narrow_counts *dst, const struct mrdem_narrow_counts *src)
{
	dst->comparisons += src->comparisons;
	dst->iterative += src->iterative;
	dst->fallbacks += src->fallbacks;
	dst->unconverged += src->unconverged;
}

void mrdem_tri_hits_init(struct mrdem_tri_hits *h)
{
	memset(h, 0, sizeof *h);
}

void mrdem_tri_hits_release(struct mrdem_tri_hits *h)
{
	free(h->h);
	mrdem_tri_hits_init(h);
}

struct mrdem_tri_batch *mrdem_tri_batch_new(void)
{
	size_t size = (sizeof(struct mrdem_tri_batch) + 63) / 64 * 64;
	struct mrdem_tri_batch *w = aligned_alloc(64, size);
	if (!w)
		mrdem_die("out of memory allocating %zu bytes", size);
	w->bsoa = NULL;
	w->bcap = 0;
	w->blk.n = w->spill.n = 0;
	return w;
}

void mrdem_tri_batch_free(struct mrdem_tri_batch *w)
{
	if (!w)
		return;
	free(w->bsoa);
	free(w);
}

/* Run the chosen method over the filled block w->blk; statuses end as
 * CONTACT or SEPARATE (UNDECIDED only for a hybrid without fallback). */
static void run_block(struct mrdem_tri_batch *w, const struct mrdem_narrow_opts *o,
		      struct mrdem_narrow_counts *cnt)
{
	struct mrdem_tri_block *k = &w->blk;
	float c = (float)o->threshold;
	cnt->comparisons += (uint64_t)k->n;
	if (o->method == MRDEM_NARROW_COMPARISON) {
		mrdem_tri_block_compare(k, o->simd);
		return;
	}
	cnt->iterative += (uint64_t)k->n;
	if (o->method == MRDEM_NARROW_HYBRID && o->fallback) {
		cnt->fallbacks += (uint64_t)mrdem_tri_block_hybrid(k, &w->spill, o->iterations, c, o->simd);
		return;
	}
	mrdem_tri_block_penalty(k, o->iterations, c, o->simd);
	for (int l = 0; l < k->n; l++) {
		if (k->status[l] != MRDEM_TRI_UNDECIDED)
			continue;
		cnt->unconverged++;
		if (o->method == MRDEM_NARROW_ITERATIVE)
			k->status[l] = k->d2[l] <= k->cut[l] * k->cut[l] ? MRDEM_TRI_CONTACT
									  : MRDEM_TRI_SEPARATE;
	}
}

static float halo(const struct mrdem_tri_set *s, uint32_t i)
{
	return s->eps ? s->eps[i] : s->eps_all;
}

void mrdem_tri_pairs_test(struct mrdem_tri_batch *w, const struct mrdem_tri_set *a,
			  const struct mrdem_tri_set *b, const uint32_t *pairs, size_t n,
			  const struct mrdem_narrow_opts *o, struct mrdem_tri_result *out,
			  struct mrdem_narrow_counts *cnt)
{
	struct mrdem_tri_block *k = &w->blk;
	for (size_t base = 0; base < n; base += MRDEM_TRI_BLOCK) {
		int m = n - base < MRDEM_TRI_BLOCK ? (int)(n - base) : MRDEM_TRI_BLOCK;
		for (int l = 0; l < m; l++) {
			uint32_t i = pairs[2 * (base + l)], j = pairs[2 * (base + l) + 1];
			const float *va = a->v + 9 * (size_t)i, *vb = b->v + 9 * (size_t)j;
			for (int c = 0; c < 9; c++) {
				k->a[c][l] = va[c];
				k->b[c][l] = vb[c];
			}
			k->cut[l] = halo(a, i) + halo(b, j);
		}
		k->n = m;
		run_block(w, o, cnt);
		for (int l = 0; l < m; l++) {
			struct mrdem_tri_result *r = &out[base + l];
			for (int c = 0; c < 3; c++) {
				r->pa[c] = k->pa[c][l];
				r->pb[c] = k->pb[c][l];
			}
			r->dist = sqrtf(k->d2[l]);
			r->status = k->status[l];
		}
	}
}

static void collect_hits(struct mrdem_tri_batch *w, struct mrdem_tri_hits *hits)
{
	const struct mrdem_tri_block *k = &w->blk;
	for (int l = 0; l < k->n; l++) {
		if (k->status[l] != MRDEM_TRI_CONTACT)
			continue;
		if (hits->n == hits->cap) {
			hits->cap = hits->cap ? 2 * hits->cap : 64;
			hits->h = mrdem_xrealloc(hits->h, hits->cap * sizeof *hits->h);
		}
		struct mrdem_tri_hit *h = &hits->h[hits->n++];
		h->ta = w->ta[l];
		h->tb = w->tb[l];
		for (int c = 0; c < 3; c++) {
			h->pa[c] = k->pa[c][l];
			h->pb[c] = k->pb[c][l];
		}
		h->dist = sqrtf(k->d2[l]);
	}
}

void mrdem_tri_all_pairs(struct mrdem_tri_batch *w, const struct mrdem_tri_set *a,
			 const struct mrdem_tri_set *b, const struct mrdem_narrow_opts *o,
			 struct mrdem_tri_hits *hits, struct mrdem_narrow_counts *cnt)
{
	size_t nb = b->n;
	if (!a->n || !nb)
		return;
	/* b transposed once, so that filling a block is a few memcpy */
	if (w->bcap < nb) {
		free(w->bsoa);
		w->bsoa = mrdem_xmalloc_array(10 * nb, sizeof(float));
		w->bcap = nb;
	}
	for (size_t j = 0; j < nb; j++) {
		for (int c = 0; c < 9; c++)
			w->bsoa[c * nb + j] = b->v[9 * j + c];
		w->bsoa[9 * nb + j] = halo(b, (uint32_t)j);
	}
	struct mrdem_tri_block *k = &w->blk;
	uint32_t i = 0, j = 0;
	while (i < a->n) {
		int l = 0;
		while (l < MRDEM_TRI_BLOCK && i < a->n) {
			int run = nb - j < (size_t)(MRDEM_TRI_BLOCK - l) ? (int)(nb - j)
									: MRDEM_TRI_BLOCK - l;
			const float *va = a->v + 9 * (size_t)i;
			float ha = halo(a, i);
			for (int c = 0; c < 9; c++) {
				float x = va[c];
				for (int q = 0; q < run; q++)
					k->a[c][l + q] = x;
				memcpy(&k->b[c][l], &w->bsoa[c * nb + j], run * sizeof(float));
			}
			for (int q = 0; q < run; q++) {
				k->cut[l + q] = ha + w->bsoa[9 * nb + j + q];
				w->ta[l + q] = i;
				w->tb[l + q] = j + q;
			}
			l += run;
			j += run;
			if (j == nb)
				j = 0, i++;
		}
		k->n = l;
		run_block(w, o, cnt);
		collect_hits(w, hits);
	}
}
