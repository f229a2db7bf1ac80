#include "common/narrow/tri/tri_batch.h"

#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "common/narrow/tri/tri_batch_private.h"
#include "common/narrow/tri/tri_intersect.h"
#include "common/util/error.h"
#include "common/util/simd.h"
#include "common/util/stages.h"



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
	int groups = (k->n + MRDEM_TRI_LANES - 1) / MRDEM_TRI_LANES, end = groups * MRDEM_TRI_LANES;
	/* a row at a time: contiguous stores, which vectorise */
	for (int c = 0; c < 9; c++) {
		float x = k->a[c][0], y = k->b[c][0];
#pragma omp simd
		for (int l = k->n; l < end; l++)
			k->a[c][l] = x;
#pragma omp simd
		for (int l = k->n; l < end; l++)
			k->b[c][l] = y;
	}
	float cut = k->cut[0];
#pragma omp simd
	for (int l = k->n; l < end; l++)
		k->cut[l] = cut;
	return groups;
}

void mrdem_narrow_counts_add(struct mrdem_narrow_counts *dst, const struct mrdem_narrow_counts *src)
{
	dst->comparisons += src->comparisons;
	dst->iterative += src->iterative;
	dst->fallbacks += src->fallbacks;
	dst->unconverged += src->unconverged;
	dst->intersecting += src->intersecting;
	dst->undecided += src->undecided;
	dst->kernel_calls += src->kernel_calls;
	dst->fallback_blocks += src->fallback_blocks;
	dst->kernel_s += src->kernel_s;
	dst->fallback_s += src->fallback_s;
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
	w->keep = NULL;
	w->keep_cap = 0;
	w->blk.n = w->spill.n = w->spill_fallbacks = 0;
	return w;
}

void mrdem_tri_batch_free(struct mrdem_tri_batch *w)
{
	if (!w)
		return;
	free(w->bsoa);
	free(w->keep);
	free(w);
}

struct mrdem_tri_hit *mrdem_tri_hits_push(struct mrdem_tri_hits *hits)
{
	if (hits->n == hits->cap) {
		hits->cap = hits->cap ? 2 * hits->cap : 64;
		hits->h = mrdem_xrealloc_for(hits->h, hits->cap, sizeof *hits->h, "triangle hits");
	}
	return &hits->h[hits->n++];
}

/* Room for n more hits. */
static void hits_reserve(struct mrdem_tri_hits *hits, size_t n)
{
	if (hits->cap - hits->n >= n)
		return;
	while (hits->cap - hits->n < n)
		hits->cap = hits->cap ? 2 * hits->cap : 64;
	hits->h = mrdem_xrealloc_for(hits->h, hits->cap, sizeof *hits->h, "triangle hits");
}

/* Lane l of block k as the hit of triangles ta, tb. */
static inline void write_hit(struct mrdem_tri_hit *h, const struct mrdem_tri_block *k, int l,
			     uint32_t ta, uint32_t tb)
{
	h->ta = ta;
	h->tb = tb;
	for (int c = 0; c < 3; c++) {
		h->pa[c] = k->pa[c][l];
		h->pb[c] = k->pb[c][l];
	}
	h->dist = sqrtf(k->d2[l]);
}

static void push_hit(struct mrdem_tri_hits *hits, const struct mrdem_tri_block *k, int l,
		     uint32_t ta, uint32_t tb)
{
	write_hit(mrdem_tri_hits_push(hits), k, l, ta, tb);
}

static void deliver(const struct sink *s, const struct mrdem_tri_block *k, int l, uint32_t ta,
		    uint32_t tb, size_t idx)
{
	if (s->status) {
		s->status[idx] = k->status[l];
	} else if (s->out) {
		struct mrdem_tri_result *r = &s->out[idx];
		r->status = k->status[l];
		if (r->status == MRDEM_TRI_SEPARATE)
			return; /* only the status is promised */
		for (int c = 0; c < 3; c++) {
			r->pa[c] = k->pa[c][l];
			r->pb[c] = k->pb[c][l];
		}
		r->dist = sqrtf(k->d2[l]);
	} else if (k->status[l] == MRDEM_TRI_CONTACT) {
		push_hit(s->hits, k, l, ta, tb);
	}
}

/* Triangle indices of lane l: stored per lane for index-pair batches; a
 * flat search block enumerates pairs in row-major order from pair number
 * w->first, so only the lanes that produce a result need them. */
static void lane_pair(struct mrdem_tri_batch *w, int l)
{
	if (w->nb) {
		uint64_t p = w->first + (uint64_t)l;
		w->ta[l] = (uint32_t)(p / w->nb);
		w->tb[l] = (uint32_t)(p % w->nb);
	}
}

/* Compare the spilled pairs and deliver them. Fallbacks are counted as
 * such and timed by their share of the block; exact contact points are
 * kernel time. */
static void flush_spill(struct mrdem_tri_batch *w, const struct mrdem_narrow_opts *o,
			const struct sink *s, struct mrdem_narrow_counts *cnt)
{
	struct mrdem_tri_block *k = &w->spill;
	if (!k->n)
		return;
	double t0 = mrdem_clock();
	mrdem_tri_block_compare(k, o->simd);
	if (w->spill_fallbacks) {
		cnt->fallbacks += (uint64_t)w->spill_fallbacks;
		cnt->fallback_blocks++;
	}
	if (!s->hits) {
		for (int l = 0; l < k->n; l++)
			deliver(s, k, l, w->spill_ta[l], w->spill_tb[l], w->spill_idx[l]);
	} else {
		/* every lane written at the next free place, which moves on
		 * past contacts only: no branch per lane (a fallback found
		 * apart sits anywhere among the contacts) */
		hits_reserve(s->hits, (size_t)k->n);
		struct mrdem_tri_hit *h = s->hits->h + s->hits->n;
		size_t m = 0;
		for (int l = 0; l < k->n; l++) {
			write_hit(&h[m], k, l, w->spill_ta[l], w->spill_tb[l]);
			m += k->status[l] == MRDEM_TRI_CONTACT;
		}
		s->hits->n += m;
	}
	cnt->fallback_s += (mrdem_clock() - t0) * w->spill_fallbacks / k->n;
	k->n = w->spill_fallbacks = 0;
}

/* Lane l of the block to the spill; fallback: counted as one. */
static void spill_lane(struct mrdem_tri_batch *w, int l, int fallback,
		       const struct mrdem_narrow_opts *o, const struct sink *s,
		       struct mrdem_narrow_counts *cnt)
{
	w->spill_fallbacks += fallback;
	struct mrdem_tri_block *k = &w->spill;
	int i = k->n++;
	for (int c = 0; c < 9; c++) {
		k->a[c][i] = w->blk.a[c][l];
		k->b[c][i] = w->blk.b[c][l];
	}
	k->cut[i] = w->blk.cut[l];
	lane_pair(w, l);
	w->spill_ta[i] = w->ta[l];
	w->spill_tb[i] = w->tb[l];
	w->spill_idx[i] = w->base + (size_t)l;
	if (k->n == MRDEM_TRI_BLOCK)
		flush_spill(w, o, s, cnt);
}

/* The iterative method alone on a pair its kernel left undecided. An
 * unconverged iterate can stop far from crossing triangles' common point
 * (distance 0), so an exact intersection test decides those: contact at
 * distance 0 at a common point. The rest are decided by the iterate
 * (contact iff within the cut-off), which is not certified: a "no
 * contact" there may miss a contact, and a contact's distance is only an
 * upper bound. */
static void resolve_iterative(struct mrdem_tri_block *k, int l, struct mrdem_narrow_counts *cnt)
{
	float a[9], b[9], x[3];
	for (int c = 0; c < 9; c++) {
		a[c] = k->a[c][l];
		b[c] = k->b[c][l];
	}
	if (mrdem_tri_intersect(a, b, x)) {
		cnt->intersecting++;
		k->status[l] = MRDEM_TRI_CONTACT;
		k->d2[l] = 0;
		for (int c = 0; c < 3; c++)
			k->pa[c][l] = k->pb[c][l] = x[c];
		return;
	}
	cnt->undecided++;
	k->status[l] = k->d2[l] <= k->cut[l] * k->cut[l] ? MRDEM_TRI_CONTACT : MRDEM_TRI_SEPARATE;
}

/* Run the chosen method over the filled block w->blk and deliver its
 * results. A hybrid's undecided pairs wait in w->spill until a whole block
 * of them goes through the comparison kernel (the caller flushes the
 * rest): a few fallbacks per block would otherwise cost a vector group
 * each. */
#if MRDEM_SIMD_X86
/* run_block's common case in a tree search's last stage: a hybrid with
 * exact contacts into hits, where every lane that is not SEPARATE goes to
 * the spill (undecided: a fallback; contact: its exact points). The lanes
 * are compressed 16 at a time; a group that would overflow the spill
 * goes lane by lane. */
MRDEM_TARGET_STREAM static void spill_block_avx512(struct mrdem_tri_batch *w,
						   const struct mrdem_narrow_opts *o,
						   const struct sink *s,
						   struct mrdem_narrow_counts *cnt)
{
	struct mrdem_tri_block *k = &w->blk, *sp = &w->spill;
	const __m512i undecided = _mm512_set1_epi32(MRDEM_TRI_UNDECIDED);
	for (int g = 0; g < k->n; g += 16) {
		__mmask16 live = k->n - g >= 16 ? 0xffff : (__mmask16)((1u << (k->n - g)) - 1);
		__m512i st = _mm512_maskz_loadu_epi32(live, &k->status[g]);
		__mmask16 m = _mm512_mask_cmpneq_epi32_mask(live, st, _mm512_setzero_si512());
		if (!m)
			continue;
		int n = (int)_mm_popcnt_u32(m), at = sp->n;
		if (at + n > MRDEM_TRI_BLOCK) {
			for (uint32_t b = m; b; b &= b - 1) {
				int l = g + __builtin_ctz(b);
				spill_lane(w, l, k->status[l] == MRDEM_TRI_UNDECIDED, o, s, cnt);
			}
			continue;
		}
		w->spill_fallbacks +=
			(int)_mm_popcnt_u32(_mm512_mask_cmpeq_epi32_mask(m, st, undecided));
		__mmask16 to = at + 16 <= MRDEM_TRI_BLOCK ? 0xffff : (__mmask16)((1u << n) - 1);
		for (int c = 0; c < 9; c++) {
			_mm512_mask_storeu_ps(&sp->a[c][at], to,
					      _mm512_maskz_compress_ps(m, _mm512_loadu_ps(&k->a[c][g])));
			_mm512_mask_storeu_ps(&sp->b[c][at], to,
					      _mm512_maskz_compress_ps(m, _mm512_loadu_ps(&k->b[c][g])));
		}
		_mm512_mask_storeu_ps(&sp->cut[at], to,
				      _mm512_maskz_compress_ps(m, _mm512_loadu_ps(&k->cut[g])));
		_mm512_mask_storeu_epi32(&w->spill_ta[at], to,
					 _mm512_maskz_compress_epi32(m, _mm512_loadu_si512(&w->ta[g])));
		_mm512_mask_storeu_epi32(&w->spill_tb[at], to,
					 _mm512_maskz_compress_epi32(m, _mm512_loadu_si512(&w->tb[g])));
		sp->n = at + n; /* spill_idx: a hits sink has no use for it */
		if (sp->n == MRDEM_TRI_BLOCK)
			flush_spill(w, o, s, cnt);
	}
}
#endif

/* Run the chosen method over the filled block w->blk and deliver its
 * results. A hybrid's undecided pairs wait in w->spill until a whole block
 * of them goes through the comparison kernel (the caller flushes the
 * rest): a few fallbacks per block would otherwise cost a vector group
 * each. */
static void run_block(struct mrdem_tri_batch *w, const struct mrdem_narrow_opts *o,
		      const struct sink *s, struct mrdem_narrow_counts *cnt)
{
	struct mrdem_tri_block *k = &w->blk;
	cnt->comparisons += (uint64_t)k->n;
	if (o->method == MRDEM_NARROW_COMPARISON) {
		mrdem_tri_block_compare(k, o->simd);
	} else {
		cnt->iterative += (uint64_t)k->n;
		mrdem_tri_block_penalty(k, o->iterations, (float)o->threshold, o->simd);
	}
	int hybrid = o->method == MRDEM_NARROW_HYBRID && o->fallback;
	int exact = o->exact_contacts && o->method != MRDEM_NARROW_COMPARISON;
	if (s->status && !hybrid && !exact && o->method != MRDEM_NARROW_ITERATIVE) {
		/* surrogate levels: the statuses as they are; no lane is
		 * spilled or resolved, the undecided are unconverged */
		int32_t undecided = 0;
#pragma omp simd reduction(+ : undecided)
		for (int l = 0; l < k->n; l++)
			undecided += k->status[l] == MRDEM_TRI_UNDECIDED;
		cnt->unconverged += (uint64_t)undecided;
		memcpy(s->status + w->base, k->status, (size_t)k->n * sizeof *k->status);
		return;
	}
	if (s->hits) {
#if MRDEM_SIMD_X86
		if (w->avx512 && hybrid && exact && !w->nb) {
			spill_block_avx512(w, o, s, cnt);
			return;
		}
#endif
		/* the flat search's common case: a block without any contact */
		int32_t any = 0;
#pragma omp simd reduction(| : any)
		for (int l = 0; l < k->n; l++)
			any |= k->status[l];
		if (!any)
			return;
	}
	for (int l = 0; l < k->n; l++) {
		if (k->status[l] == MRDEM_TRI_SEPARATE && s->hits)
			continue;
		if (k->status[l] == MRDEM_TRI_UNDECIDED) {
			if (hybrid) {
				spill_lane(w, l, 1, o, s, cnt);
				continue;
			}
			cnt->unconverged++;
			if (o->method == MRDEM_NARROW_ITERATIVE)
				resolve_iterative(k, l, cnt);
		}
		if (exact && k->status[l] == MRDEM_TRI_CONTACT) {
			spill_lane(w, l, 0, o, s, cnt);
			continue;
		}
		lane_pair(w, l);
		deliver(s, k, l, w->ta[l], w->tb[l], w->base + (size_t)l);
	}
}

static float halo(const struct mrdem_tri_set *s, uint32_t i)
{
	return s->eps ? s->eps[i] : s->eps_all;
}

/* Lanes 0..m-1 of k: a's triangles ta[l] and b's tb[l], a transposing
 * copy, a coordinate at a time (scattered loads, whole rows of stores). */
static void fill_generic(struct mrdem_tri_block *k, const float *av, const float *bv,
			 const uint32_t *ta, const uint32_t *tb, int m)
{
	for (int c = 0; c < 9; c++)
		for (int l = 0; l < m; l++) {
			k->a[c][l] = av[9 * (size_t)ta[l] + c];
			k->b[c][l] = bv[9 * (size_t)tb[l] + c];
		}
}

#if MRDEM_SIMD_X86
/* The same with AVX-512 gathers, 16 lanes at a time (indices below
 * 2^31 / 9). */
MRDEM_TARGET_AVX512 static void fill_avx512(struct mrdem_tri_block *k, const float *av,
					    const float *bv, const uint32_t *ta,
					    const uint32_t *tb, int m)
{
	const __m512i nine = _mm512_set1_epi32(9);
	for (int l = 0; l < m; l += 16) {
		__mmask16 live = m - l >= 16 ? 0xffff : (__mmask16)((1u << (m - l)) - 1);
		__m512i ia = _mm512_mullo_epi32(_mm512_maskz_loadu_epi32(live, ta + l), nine);
		__m512i ib = _mm512_mullo_epi32(_mm512_maskz_loadu_epi32(live, tb + l), nine);
		for (int c = 0; c < 9; c++) {
			__m512 x = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), live, ia, av + c, 4);
			__m512 y = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), live, ib, bv + c, 4);
			_mm512_mask_storeu_ps(&k->a[c][l], live, x);
			_mm512_mask_storeu_ps(&k->b[c][l], live, y);
		}
	}
}
#endif

static void fill_block(struct mrdem_tri_block *k, const struct mrdem_tri_set *a,
		       const struct mrdem_tri_set *b, const uint32_t *ta, const uint32_t *tb, int m,
		       int gather)
{
#if MRDEM_SIMD_X86
	if (gather) {
		fill_avx512(k, a->v, b->v, ta, tb, m);
		return;
	}
#endif
	(void)gather;
	fill_generic(k, a->v, b->v, ta, tb, m);
}

/* The n index pairs through the kernels, results to the sink. */
static void pairs_run(struct mrdem_tri_batch *w, const struct mrdem_tri_set *a,
		      const struct mrdem_tri_set *b, const uint32_t *pairs, size_t n,
		      const struct mrdem_narrow_opts *o, struct sink s,
		      struct mrdem_narrow_counts *cnt)
{
	struct mrdem_tri_block *k = &w->blk;
	double t0 = mrdem_clock();
	int gather = MRDEM_SIMD_X86 && mrdem_simd_resolve(o->simd) == MRDEM_SIMD_AVX512 &&
		     a->n <= INT32_MAX / 9 && b->n <= INT32_MAX / 9;
	w->spill.n = w->spill_fallbacks = 0;
	w->nb = 0;
	w->avx512 = gather;
	for (size_t base = 0; base < n; base += MRDEM_TRI_BLOCK) {
		int m = n - base < MRDEM_TRI_BLOCK ? (int)(n - base) : MRDEM_TRI_BLOCK;
		for (int l = 0; l < m; l++) {
			w->ta[l] = pairs[2 * (base + l)];
			w->tb[l] = pairs[2 * (base + l) + 1];
		}
		fill_block(k, a, b, w->ta, w->tb, m, gather);
		if (a->eps || b->eps)
			for (int l = 0; l < m; l++)
				k->cut[l] = halo(a, w->ta[l]) + halo(b, w->tb[l]);
		else
			for (int l = 0; l < m; l++)
				k->cut[l] = a->eps_all + b->eps_all;
		w->base = base;
		k->n = m;
		run_block(w, o, &s, cnt);
	}
	flush_spill(w, o, &s, cnt);
	cnt->kernel_calls++;
	cnt->kernel_s += mrdem_clock() - t0;
}

void mrdem_tri_pairs_test(struct mrdem_tri_batch *w, const struct mrdem_tri_set *a,
			  const struct mrdem_tri_set *b, const uint32_t *pairs, size_t n,
			  const struct mrdem_narrow_opts *o, struct mrdem_tri_result *out,
			  struct mrdem_narrow_counts *cnt)
{
	pairs_run(w, a, b, pairs, n, o, (struct sink){out, NULL, NULL}, cnt);
}

void mrdem_tri_pairs_status(struct mrdem_tri_batch *w, const struct mrdem_tri_set *a,
			    const struct mrdem_tri_set *b, const uint32_t *pairs, size_t n,
			    const struct mrdem_narrow_opts *o, int32_t *status,
			    struct mrdem_narrow_counts *cnt)
{
	pairs_run(w, a, b, pairs, n, o, (struct sink){NULL, NULL, status}, cnt);
}

void mrdem_tri_pairs_hits(struct mrdem_tri_batch *w, const struct mrdem_tri_set *a,
			  const struct mrdem_tri_set *b, const uint32_t *pairs, size_t n,
			  const struct mrdem_narrow_opts *o, struct mrdem_tri_hits *hits,
			  struct mrdem_narrow_counts *cnt)
{
	pairs_run(w, a, b, pairs, n, o, (struct sink){NULL, hits, NULL}, cnt);
}

static int hit_order(const void *p, const void *q)
{
	const struct mrdem_tri_hit *a = p, *b = q;
	if (a->ta != b->ta)
		return a->ta < b->ta ? -1 : 1;
	return (a->tb > b->tb) - (a->tb < b->tb);
}

void mrdem_tri_all_pairs(struct mrdem_tri_batch *w, const struct mrdem_tri_set *a,
			 const struct mrdem_tri_set *b, const struct mrdem_narrow_opts *o,
			 struct mrdem_tri_hits *hits, struct mrdem_narrow_counts *cnt)
{
	size_t nb = b->n;
	if (!a->n || !nb)
		return;
	double t0 = mrdem_clock();
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
	struct sink s = {NULL, hits, NULL};
	size_t first = hits->n;
	uint64_t fallbacks = cnt->fallbacks;
	uint32_t i = 0, j = 0;
	int64_t uniform = -1; /* the triangle every lane's a columns hold, or -1 */
	w->spill.n = w->spill_fallbacks = 0;
	w->nb = (uint32_t)nb;
	w->avx512 = MRDEM_SIMD_X86 && mrdem_simd_resolve(o->simd) == MRDEM_SIMD_AVX512;
	w->base = 0;
	while (i < a->n) {
		int l = 0;
		w->first = (uint64_t)i * nb + j;
		while (l < MRDEM_TRI_BLOCK && i < a->n) {
			int run = nb - j < (size_t)(MRDEM_TRI_BLOCK - l) ? (int)(nb - j)
									: MRDEM_TRI_BLOCK - l;
			const float *va = a->v + 9 * (size_t)i;
			const float *hb = &w->bsoa[9 * nb + j];
			float ha = halo(a, i);
			/* a whole block of one row: its a columns often hold that
			 * triangle already (rows longer than a block) */
			int whole = l == 0 && run == MRDEM_TRI_BLOCK;
			if (!(whole && uniform == (int64_t)i))
				for (int c = 0; c < 9; c++) {
					float x = va[c], *dst = &k->a[c][l];
#pragma omp simd
					for (int q = 0; q < run; q++)
						dst[q] = x;
				}
			uniform = whole ? (int64_t)i : -1;
			for (int c = 0; c < 9; c++)
				memcpy(&k->b[c][l], &w->bsoa[c * nb + j], run * sizeof(float));
			float *cut = &k->cut[l];
#pragma omp simd
			for (int q = 0; q < run; q++)
				cut[q] = ha + hb[q];
			l += run;
			j += run;
			if (j == nb)
				j = 0, i++;
		}
		k->n = l;
		run_block(w, o, &s, cnt);
	}
	flush_spill(w, o, &s, cnt);
	/* fallbacks arrive late: restore the order of (ta, tb) */
	if (cnt->fallbacks != fallbacks && hits->n - first > 1)
		qsort(hits->h + first, hits->n - first, sizeof *hits->h, hit_order);
	cnt->kernel_calls++;
	cnt->kernel_s += mrdem_clock() - t0;
}

void mrdem_tri_chunk_set(struct mrdem_tri_chunk *c, const float *v, const float *sph,
			 uint32_t first, uint32_t n)
{
	memset(c, 0, sizeof *c);
	for (uint32_t k = 0; k < n; k++) {
		for (int i = 0; i < 9; i++)
			c->v[i][k] = c->v[i][k + MRDEM_TRI_CHUNK] = v[9 * (size_t)k + i];
		for (int i = 0; i < 4; i++)
			c->sph[i][k] = c->sph[i][k + MRDEM_TRI_CHUNK] = sph[4 * (size_t)k + i];
	}
	c->first = first;
	c->n = n;
}

/* Lanes of chunk c whose spheres meet sphere s: mrdem_spheres_apart(s,
 * lane) false. The order of the arguments does not matter bit for bit:
 * the differences only change sign and the radii add commutatively. */
static uint32_t near_generic(const struct mrdem_tri_chunk *c, const float s[4], float reach)
{
	uint32_t m = 0;
	for (uint32_t k = 0; k < c->n; k++) {
		const float q[4] = {c->sph[0][k], c->sph[1][k], c->sph[2][k], c->sph[3][k]};
		m |= (uint32_t)!mrdem_spheres_apart(s, q, reach) << k;
	}
	return m;
}

void mrdem_tri_stream_block(struct mrdem_tri_batch *w, const struct mrdem_narrow_opts *o,
			 struct mrdem_narrow_counts *cnt)
{
	w->base = 0;
	run_block(w, o, &w->stream, cnt);
	w->blk.n = 0;
}

static uint64_t leaves_generic(struct mrdem_tri_batch *w, const struct mrdem_tri_leaf *la,
			       const struct mrdem_tri_leaf *lb, float reach,
			       const struct mrdem_narrow_opts *o, struct mrdem_narrow_counts *cnt)
{
	const struct mrdem_tri_chunk *a = la->chunk, *b = lb->chunk;
	uint32_t na = la->n, nb = lb->n;
	const float *sa = la->sph, *sb = lb->sph;
	uint64_t nq = 0, ca = 0, cb = 0;
	for (uint32_t j = 0; j < nb; j++) {
		w->keep[j] = near_generic(&b[j], sa, reach);
		nq += (uint64_t)__builtin_popcount(w->keep[j]);
		cb += b[j].n;
	}
	for (uint32_t i = 0; i < na; i++)
		ca += a[i].n;
	uint64_t pruned = (cb - nq) * ca;
	if (!nq)
		return pruned;
	struct mrdem_tri_block *k = &w->blk;
	for (uint32_t i = 0; i < na; i++) {
		uint32_t pm = near_generic(&a[i], sb, reach);
		pruned += nq * (a[i].n - (uint64_t)__builtin_popcount(pm));
		for (; pm; pm &= pm - 1) {
			int p = __builtin_ctz(pm);
			const float sp[4] = {a[i].sph[0][p], a[i].sph[1][p], a[i].sph[2][p],
					     a[i].sph[3][p]};
			for (uint32_t j = 0; j < nb; j++) {
				uint32_t kept = w->keep[j], qm = kept ? kept & near_generic(&b[j], sp, reach) : 0;
				pruned += (uint64_t)(__builtin_popcount(kept) - __builtin_popcount(qm));
				for (; qm; qm &= qm - 1) {
					int q = __builtin_ctz(qm), l = k->n;
					for (int c = 0; c < 9; c++) {
						k->a[c][l] = a[i].v[c][p];
						k->b[c][l] = b[j].v[c][q];
					}
					k->cut[l] = w->stream_cut;
					w->ta[l] = a[i].first + (uint32_t)p;
					w->tb[l] = b[j].first + (uint32_t)q;
					if (++k->n == MRDEM_TRI_BLOCK)
						mrdem_tri_stream_block(w, o, cnt);
				}
			}
		}
	}
	return pruned;
}


void mrdem_tri_stream_begin(struct mrdem_tri_batch *w, float cut, struct mrdem_tri_hits *hits,
			    const struct mrdem_narrow_opts *o)
{
	w->stream = (struct sink){NULL, hits, NULL};
	w->stream_cut = cut;
	w->avx512 = MRDEM_SIMD_X86 && mrdem_simd_resolve(o->simd) == MRDEM_SIMD_AVX512;
	w->stream_t0 = mrdem_clock();
	w->blk.n = w->spill.n = w->spill_fallbacks = 0;
	w->nb = 0;
	w->base = 0;
}

uint64_t mrdem_tri_stream_leaves(struct mrdem_tri_batch *w, const struct mrdem_tri_leaf *a,
				 const struct mrdem_tri_leaf *b, float reach,
				 const struct mrdem_narrow_opts *o, struct mrdem_narrow_counts *cnt)
{
	if (w->keep_cap < b->n) {
		w->keep = mrdem_xrealloc(w->keep, b->n * sizeof *w->keep);
		w->keep_cap = b->n;
	}
#if MRDEM_SIMD_X86
	if (w->avx512)
		return mrdem_tri_leaves_avx512(w, a, b, reach, o, cnt);
#endif
	return leaves_generic(w, a, b, reach, o, cnt);
}

void mrdem_tri_stream_end(struct mrdem_tri_batch *w, const struct mrdem_narrow_opts *o,
			  struct mrdem_narrow_counts *cnt)
{
	if (w->blk.n)
		mrdem_tri_stream_block(w, o, cnt);
	flush_spill(w, o, &w->stream, cnt);
	cnt->kernel_calls++;
	cnt->kernel_s += mrdem_clock() - w->stream_t0;
}
