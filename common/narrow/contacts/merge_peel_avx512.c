#include "common/narrow/contacts/merge_peel.h"

#include <math.h>

#include "common/util/error.h"
#include "common/util/simd.h"
#if MRDEM_SIMD_X86
#include <immintrin.h>
#endif

#if MRDEM_SIMD_X86
static void peel_reserve(struct mrdem_merge_peel *m, size_t n)
{
	if (n <= m->cap)
		return;
	m->x = mrdem_xrealloc_for(m->x, n, sizeof *m->x, "hits to merge");
	m->y = mrdem_xrealloc_for(m->y, n, sizeof *m->y, "hits to merge");
	m->z = mrdem_xrealloc_for(m->z, n, sizeof *m->z, "hits to merge");
	m->dist = mrdem_xrealloc_for(m->dist, n, sizeof *m->dist, "hits to merge");
	m->key = mrdem_xrealloc_for(m->key, n, sizeof *m->key, "hits to merge");
	m->place = mrdem_xrealloc_for(m->place, n, sizeof *m->place, "hits to merge");
	m->odd = mrdem_xrealloc_for(m->odd, n / 8 + 1, sizeof *m->odd, "bytes of hit flags");
	m->cap = n;
}

/* A group's seed: its column, midpoint (NaN where its world point is not
 * finite: then every hit is compared by world points) and world point. */
struct peel_seed {
	size_t at;
	double mid[3], x[3];
};

/* The best member so far: least (distance, key), its place. */
struct peel_best {
	double dist;
	uint64_t key;
	uint32_t place;
};

/* Of the block of 8 columns from j (live lanes), those the seed takes:
 * midpoints where they settle it (the scan's differences, in its order),
 * else world points against the seed's. */
MRDEM_TARGET_AVX512 static __mmask8 peel_take(const struct mrdem_hit_frame *f,
					      const struct mrdem_tri_hit *h,
					      const struct mrdem_merge_peel *m, size_t j,
					      __mmask8 live, const struct peel_seed *s,
					      const struct mrdem_merge_radii *r, __m512d X,
					      __m512d Y, __m512d Z)
{
	__m512d dx = _mm512_sub_pd(X, _mm512_set1_pd(s->mid[0]));
	__m512d dy = _mm512_sub_pd(Y, _mm512_set1_pd(s->mid[1]));
	__m512d dz = _mm512_sub_pd(Z, _mm512_set1_pd(s->mid[2]));
	__m512d d2 = _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy)),
				   _mm512_mul_pd(dz, dz));
	__mmask8 take = _mm512_mask_cmp_pd_mask(live, d2, _mm512_set1_pd(r->in2), _CMP_LT_OQ);
	__mmask8 band = _mm512_mask_cmp_pd_mask(live, d2, _mm512_set1_pd(r->out2), _CMP_NGT_UQ) &
			~take;
	for (unsigned q = band; q; q &= q - 1) {
		int l = __builtin_ctz(q);
		double xi[3], dw[3], normal[3], ea, eb;
		mrdem_hit_point(f, &h[m->place[j + (size_t)l]], xi, normal, &ea, &eb);
		vec3_sub(dw, xi, s->x);
		if (vec3_norm2(dw) < r->r2)
			take |= (__mmask8)(1u << l);
	}
	return take;
}

/* The lanes of take deeper than *b: lanes' own bests, reduced in column
 * order. */
static void peel_deeper(const struct mrdem_merge_peel *m, size_t j, unsigned deeper,
			struct peel_best *b)
{
	for (unsigned q = deeper; q; q &= q - 1) {
		int l = __builtin_ctz(q);
		double dl = m->dist[j + (size_t)l];
		uint64_t kl = m->key[j + (size_t)l];
		if (dl < b->dist || (dl == b->dist && kl < b->key))
			b->dist = dl, b->key = kl, b->place = m->place[j + (size_t)l];
	}
}

/* One group over the m->n hits left: the hits the seed takes leave the
 * columns (the rest move up, in order), m->n and m->least are updated to
 * those left, and the place of the member of least (distance, key) is
 * returned. */
MRDEM_TARGET_AVX512 static uint32_t peel_group(const struct mrdem_hit_frame *f,
					       const struct mrdem_tri_hit *h,
					       struct mrdem_merge_peel *m, const struct peel_seed *s,
					       const struct mrdem_merge_radii *r)
{
	size_t nleft = m->n, w = 0;
	struct peel_best b = {m->dist[s->at], m->key[s->at], m->place[s->at]};
	__m512d vbd = _mm512_set1_pd(b.dist);
	__m512i vbk = _mm512_set1_epi64((long long)b.key);
	__m512i vmin = _mm512_set1_epi64(-1), vat = _mm512_setzero_si512(); /* UINT64_MAX */
	const __m512i iota = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
	for (size_t j = 0; j < nleft; j += 8) {
		__mmask8 live = nleft - j >= 8 ? 0xff : (__mmask8)((1u << (nleft - j)) - 1);
		if (s->at >= j && s->at < j + 8)
			live &= (__mmask8)~(1u << (s->at - j));
		__m512d X = _mm512_maskz_loadu_pd(live, m->x + j), Y = _mm512_maskz_loadu_pd(live, m->y + j);
		__m512d Z = _mm512_maskz_loadu_pd(live, m->z + j);
		__mmask8 take = peel_take(f, h, m, j, live, s, r, X, Y, Z);
		__m512d D = _mm512_maskz_loadu_pd(live, m->dist + j);
		__m512i K = _mm512_maskz_loadu_epi64(live, m->key + j);
		__mmask8 deeper = _mm512_mask_cmp_pd_mask(take, D, vbd, _CMP_LT_OQ) |
				  (_mm512_mask_cmp_pd_mask(take, D, vbd, _CMP_EQ_OQ) &
				   _mm512_cmplt_epu64_mask(K, vbk));
		if (deeper) {
			peel_deeper(m, j, deeper, &b);
			vbd = _mm512_set1_pd(b.dist);
			vbk = _mm512_set1_epi64((long long)b.key);
		}
		__mmask8 stay = live & (__mmask8)~take;
		/* compress in registers, then a masked store: a compressing
		 * store to memory is microcoded and far slower on some cores */
		int kept = __builtin_popcount(stay);
		__mmask8 first = (__mmask8)((1u << kept) - 1);
		__m512i Kc = _mm512_maskz_compress_epi64(stay, K);
		_mm512_mask_storeu_pd(m->x + w, first, _mm512_maskz_compress_pd(stay, X));
		_mm512_mask_storeu_pd(m->y + w, first, _mm512_maskz_compress_pd(stay, Y));
		_mm512_mask_storeu_pd(m->z + w, first, _mm512_maskz_compress_pd(stay, Z));
		_mm512_mask_storeu_pd(m->dist + w, first, _mm512_maskz_compress_pd(stay, D));
		_mm512_mask_storeu_epi64(m->key + w, first, Kc);
		__m256i P = _mm256_maskz_loadu_epi32(live, m->place + j);
		_mm256_mask_storeu_epi32(m->place + w, first, _mm256_maskz_compress_epi32(stay, P));
		/* per lane the least key it has seen and where it now sits */
		__mmask8 less = _mm512_mask_cmplt_epu64_mask(first, Kc, vmin);
		vmin = _mm512_mask_mov_epi64(vmin, less, Kc);
		vat = _mm512_mask_mov_epi64(vat, less,
					    _mm512_add_epi64(iota, _mm512_set1_epi64((long long)w)));
		w += (size_t)kept;
	}
	m->n = w;
	uint64_t next = _mm512_reduce_min_epu64(vmin);
	__mmask8 lane = _mm512_cmpeq_epu64_mask(vmin, _mm512_set1_epi64((long long)next));
	uint64_t at[8];
	_mm512_storeu_si512(at, vat);
	m->least = w ? (size_t)at[__builtin_ctz(lane)] : 0;
	return b.place;
}

/* The columns of the n hits h, 8 at a time: midpoints (the scan's,
 * 0.5 (a + b) in double), distances, keys (ta, tb) and places; m->n and
 * m->least (the column of the least key) set; the largest point
 * coordinate (NaN ignored, as the scan does) returned. Keys are below
 * UINT64_MAX (triangle indices below 2^32 - 1). The hits whose two points
 * coincide are marked in m->odd, a byte per block of 8. */
MRDEM_TARGET_AVX512 static float peel_columns(const struct mrdem_tri_hit *h, size_t n,
					      struct mrdem_merge_peel *m)
{
	const float *base = (const float *)h;
	const __m256i at = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
					      _mm256_set1_epi32(9));
	const size_t oa = offsetof(struct mrdem_tri_hit, pa) / sizeof(float);
	const size_t ob = offsetof(struct mrdem_tri_hit, pb) / sizeof(float);
	const size_t od = offsetof(struct mrdem_tri_hit, dist) / sizeof(float);
	const __m256 sign = _mm256_set1_ps(-0.0f);
	__m256 vbig = _mm256_setzero_ps();
	__m512i vmin = _mm512_set1_epi64(-1), vat = _mm512_setzero_si512();
	const __m512i iota = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
	double *col[3] = {m->x, m->y, m->z};
	for (size_t j = 0; j < n; j += 8) {
		__mmask8 live = n - j >= 8 ? 0xff : (__mmask8)((1u << (n - j)) - 1);
		const float *hb = base + 9 * j;
		__mmask8 same = live;
		for (int c = 0; c < 3; c++) {
			__m256 a = _mm256_mmask_i32gather_ps(_mm256_setzero_ps(), live, at, hb + oa + c, 4);
			__m256 b = _mm256_mmask_i32gather_ps(_mm256_setzero_ps(), live, at, hb + ob + c, 4);
			__m512d mid = _mm512_mul_pd(_mm512_set1_pd(0.5),
						    _mm512_add_pd(_mm512_cvtps_pd(a), _mm512_cvtps_pd(b)));
			_mm512_mask_storeu_pd(col[c] + j, live, mid);
			same &= _mm256_cmp_ps_mask(a, b, _CMP_EQ_OQ);
			/* the scan's max: u = |a| > |b| ? |a| : |b|, big = u > big ? u : big */
			__m256 ua = _mm256_andnot_ps(sign, a), ub = _mm256_andnot_ps(sign, b);
			__m256 u = _mm256_mask_blend_ps(_mm256_cmp_ps_mask(ua, ub, _CMP_GT_OQ), ub, ua);
			vbig = _mm256_mask_blend_ps(_mm256_cmp_ps_mask(u, vbig, _CMP_GT_OQ), vbig, u);
		}
		m->odd[j / 8] = same;
		__m256 dist = _mm256_mmask_i32gather_ps(_mm256_setzero_ps(), live, at, hb + od, 4);
		_mm512_mask_storeu_pd(m->dist + j, live, _mm512_cvtps_pd(dist));
		__m256i ta = _mm256_mmask_i32gather_epi32(_mm256_setzero_si256(), live, at,
							  (const int *)hb, 4);
		__m256i tb = _mm256_mmask_i32gather_epi32(_mm256_setzero_si256(), live, at,
							  (const int *)hb + 1, 4);
		__m512i k = _mm512_or_si512(_mm512_slli_epi64(_mm512_cvtepu32_epi64(ta), 32),
					    _mm512_cvtepu32_epi64(tb));
		_mm512_mask_storeu_epi64(m->key + j, live, k);
		__m256i p = _mm256_add_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
					     _mm256_set1_epi32((int)j));
		_mm256_mask_storeu_epi32(m->place + j, live, p);
		__mmask8 less = _mm512_mask_cmplt_epu64_mask(live, k, vmin);
		vmin = _mm512_mask_mov_epi64(vmin, less, k);
		vat = _mm512_mask_mov_epi64(vat, less,
					    _mm512_add_epi64(iota, _mm512_set1_epi64((long long)j)));
	}
	float lanes[8];
	_mm256_storeu_ps(lanes, vbig);
	float big = 0;
	for (int l = 0; l < 8; l++)
		big = lanes[l] > big ? lanes[l] : big;
	uint64_t least = _mm512_reduce_min_epu64(vmin), where[8];
	_mm512_storeu_si512(where, vat);
	m->n = n;
	m->least = (size_t)where[__builtin_ctz(_mm512_cmpeq_epu64_mask(
		vmin, _mm512_set1_epi64((long long)least)))];
	return big;
}

float mrdem_merge_peel_avx512(const struct mrdem_hit_frame *f, struct mrdem_tri_hits *hits,
			      struct mrdem_merge_peel *m, double radius, struct mrdem_contacts *out)
{
	size_t n = hits->n;
	const struct mrdem_tri_hit *h = hits->h;
	peel_reserve(m, n);
	float big = peel_columns(h, n, m);
	for (size_t j = 0; j < n; j += 8)
		for (unsigned q = m->odd[j / 8]; q; q &= q - 1) {
			/* coincident points: the scan takes their world point,
			 * and where that is not finite no group (a NaN midpoint) */
			size_t i = j + (size_t)__builtin_ctz(q);
			double xi[3], normal[3], ea, eb;
			mrdem_hit_point(f, &h[i], xi, normal, &ea, &eb);
			if (!mrdem_point_finite(xi))
				m->x[i] = NAN;
		}
	struct mrdem_merge_radii r = mrdem_merge_radii(f, radius, big);
	size_t lanes = 0;
	while (m->n) {
		lanes += m->n;
		struct peel_seed s = {.at = m->least};
		double normal[3], ea, eb;
		mrdem_hit_point(f, &h[m->place[s.at]], s.x, normal, &ea, &eb);
		s.mid[0] = mrdem_point_finite(s.x) ? m->x[s.at] : NAN;
		s.mid[1] = m->y[s.at];
		s.mid[2] = m->z[s.at];
		mrdem_hit_contact(f, &h[peel_group(f, h, m, &s, &r)], out);
		if (lanes + m->n > 8 * n)
			break;
	}
	/* the hits left to the front, for the sort and the scan: their
	 * places ascend, so no hit is overwritten before it is moved */
	for (size_t j = 0; j < m->n; j++)
		hits->h[j] = hits->h[m->place[j]];
	hits->n = m->n;
	return big;
}
#endif
