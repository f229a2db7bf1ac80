/* The world points of merge_points.c with AVX-512, 8 hits a vector. */
#include "common/narrow/contacts/merge_points.h"

#include "common/util/simd.h"

#if MRDEM_SIMD_X86
#include <immintrin.h>

_Static_assert(sizeof(struct mrdem_tri_hit) == 9 * sizeof(float), "hits are read as 9 floats");

/* In double, the same operations in the same order as mrdem_hit_point
 * (the points are bit for bit its). */
MRDEM_TARGET_AVX512 unsigned mrdem_hit_points8_avx512(const struct mrdem_hit_frame *f,
						      const struct mrdem_tri_hit *h, double ea,
						      double eb, double *xw)
{
	const float *base = (const float *)h;
	const __m256i at = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
					      _mm256_set1_epi32(9));
	const size_t oa = offsetof(struct mrdem_tri_hit, pa) / sizeof(float);
	const size_t ob = offsetof(struct mrdem_tri_hit, pb) / sizeof(float);
	__m512d pa[3], n[3];
	for (int c = 0; c < 3; c++) {
		pa[c] = _mm512_cvtps_pd(_mm256_i32gather_ps(base + oa + c, at, 4));
		n[c] = _mm512_sub_pd(pa[c], _mm512_cvtps_pd(_mm256_i32gather_ps(base + ob + c, at, 4)));
	}
	__m512d d = _mm512_sqrt_pd(_mm512_add_pd(
		_mm512_add_pd(_mm512_mul_pd(n[0], n[0]), _mm512_mul_pd(n[1], n[1])),
		_mm512_mul_pd(n[2], n[2])));
	__mmask8 apart = _mm512_cmp_pd_mask(d, _mm512_setzero_pd(), _CMP_GT_OQ);
	__m512d inv = _mm512_div_pd(_mm512_set1_pd(1.0), d);
	__m512d sc = _mm512_mul_pd(_mm512_set1_pd(-0.5),
				   _mm512_sub_pd(_mm512_add_pd(d, _mm512_set1_pd(ea)),
						 _mm512_set1_pd(eb)));
	__m512d rel[3];
	for (int c = 0; c < 3; c++) {
		__m512d x = _mm512_add_pd(pa[c], _mm512_mul_pd(sc, _mm512_mul_pd(n[c], inv)));
		rel[c] = _mm512_sub_pd(x, _mm512_set1_pd(f->com_a[c]));
	}
	double t[3][8];
	for (int r = 0; r < 3; r++) {
		__m512d y = _mm512_add_pd(
			_mm512_add_pd(_mm512_mul_pd(_mm512_set1_pd(f->ra[3 * r]), rel[0]),
				      _mm512_mul_pd(_mm512_set1_pd(f->ra[3 * r + 1]), rel[1])),
			_mm512_mul_pd(_mm512_set1_pd(f->ra[3 * r + 2]), rel[2]));
		_mm512_storeu_pd(t[r], _mm512_add_pd(y, _mm512_set1_pd(f->p->pos[3 * f->ia + r])));
	}
	for (int i = 0; i < 8; i++)
		for (int r = 0; r < 3; r++)
			xw[3 * i + r] = t[r][i];
	return ~(unsigned)apart & 0xff;
}
#endif
