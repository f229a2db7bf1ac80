/* The leaf-pair stream (mrdem_tri_stream_leaves, tri_batch.h) with
 * AVX-512: the same pairs pruned and streamed, in the same order, as
 * tri_batch.c's leaves_generic. */
#include "common/narrow/tri/tri_batch_private.h"

#if MRDEM_SIMD_X86
#include <immintrin.h>

/* Lanes of the 16 whose spheres s meet the spheres t (sphere test of
 * mrdem_spheres_apart(s, t), the same operations in the same order). */
MRDEM_TARGET_STREAM static inline uint32_t near_ps(const __m512 s[4], const __m512 t[4],
						   __m512 reach)
{
	__m512 dx = _mm512_sub_ps(s[0], t[0]), dy = _mm512_sub_ps(s[1], t[1]);
	__m512 dz = _mm512_sub_ps(s[2], t[2]);
	__m512 d2 = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(dx, dx), _mm512_mul_ps(dy, dy)),
				  _mm512_mul_ps(dz, dz));
	__m512 r = _mm512_add_ps(_mm512_add_ps(s[3], t[3]), reach);
	return ~(uint32_t)_mm512_cmp_ps_mask(d2, _mm512_mul_ps(r, r), _CMP_GT_OQ) & 0xffff;
}

/* The lowest r set bits of m. */
static uint32_t low_bits(uint32_t m, int r)
{
	uint32_t out = 0;
	for (; r > 0 && m; r--, m &= m - 1)
		out |= m & -m;
	return out;
}

/* One pass of the stream over a leaf pair: where its pairs go. */
struct leaves_pass {
	struct mrdem_tri_batch *w;
	const struct mrdem_narrow_opts *o;
	struct mrdem_narrow_counts *cnt;
};

/* The n lanes sel of a vector pairing a's triangles pick (a lane each)
 * with b's lanes 0-7 twice into the block at lane l: the kept lanes'
 * slots in a's and b's chunks, in order, by one compress each, then a
 * permute per coordinate. */
MRDEM_TARGET_STREAM static void store_lanes(struct mrdem_tri_batch *w,
					    const struct mrdem_tri_chunk *A,
					    const struct mrdem_tri_chunk *B, __m512i pick,
					    uint32_t sel, int n, int l)
{
	struct mrdem_tri_block *k = &w->blk;
	const __m512 cut = _mm512_set1_ps(w->stream_cut);
	const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7);
	__mmask16 ks = (__mmask16)sel;
	__m512i ia = _mm512_maskz_compress_epi32(ks, pick);
	__m512i ib = _mm512_maskz_compress_epi32(ks, iota);
	__m512i ta = _mm512_add_epi32(_mm512_set1_epi32((int)A->first), ia);
	__m512i tb = _mm512_add_epi32(_mm512_set1_epi32((int)B->first), ib);
	if (MRDEM_TRI_BLOCK - l >= 16) {
		/* whole vectors (lanes past n are written again or never
		 * read): cheaper than masked stores */
		for (int c = 0; c < 9; c++) {
			__m512 x = _mm512_loadu_ps(A->v[c]);
			__m512 y = _mm512_loadu_ps(B->v[c]);
			_mm512_storeu_ps(&k->a[c][l], _mm512_permutexvar_ps(ia, x));
			_mm512_storeu_ps(&k->b[c][l], _mm512_permutexvar_ps(ib, y));
		}
		_mm512_storeu_ps(&k->cut[l], cut);
		_mm512_storeu_si512(&w->ta[l], ta);
		_mm512_storeu_si512(&w->tb[l], tb);
		return;
	}
	__mmask16 st = (__mmask16)((1u << n) - 1);
	for (int c = 0; c < 9; c++) {
		__m512 x = _mm512_loadu_ps(A->v[c]);
		__m512 y = _mm512_loadu_ps(B->v[c]);
		_mm512_mask_storeu_ps(&k->a[c][l], st, _mm512_permutexvar_ps(ia, x));
		_mm512_mask_storeu_ps(&k->b[c][l], st, _mm512_permutexvar_ps(ib, y));
	}
	_mm512_mask_storeu_ps(&k->cut[l], st, cut);
	_mm512_mask_storeu_epi32(&w->ta[l], st, ta);
	_mm512_mask_storeu_epi32(&w->tb[l], st, tb);
}

/* a's triangles pm of chunk A against b's kept lanes of chunk B, two
 * rows of a's triangles at a time: a vector's lanes 0-7 pair a's
 * triangle p0 with B, lanes 8-15 p1; the kept lanes are compressed into
 * the block in order, as many at a time as it has room for. Returns the
 * pairs pruned. */
MRDEM_TARGET_STREAM static uint64_t pair_rows(const struct leaves_pass *ps,
					      const struct mrdem_tri_chunk *A,
					      const struct mrdem_tri_chunk *B, uint32_t pm,
					      uint32_t kept, __m512 r)
{
	struct mrdem_tri_block *k = &ps->w->blk;
	uint64_t pruned = 0;
	uint32_t kept2 = kept | kept << 8, pc = (uint32_t)_mm_popcnt_u32(kept);
	for (uint32_t rows = pm; rows;) {
		int p0 = __builtin_ctz(rows), p1 = p0;
		uint32_t half = 0xff;
		rows &= rows - 1;
		if (rows) {
			p1 = __builtin_ctz(rows);
			rows &= rows - 1;
			half = 0xffff;
		}
		/* lanes 0-7 take a's triangle p0, lanes 8-15 p1 */
		const __m512i pick = _mm512_mask_blend_epi32(0xff00, _mm512_set1_epi32(p0),
							     _mm512_set1_epi32(p1));
		__m512 as[4], bs[4];
		for (int c = 0; c < 4; c++) {
			as[c] = _mm512_permutexvar_ps(pick, _mm512_loadu_ps(A->sph[c]));
			bs[c] = _mm512_loadu_ps(B->sph[c]);
		}
		uint32_t m = kept2 & half & near_ps(as, bs, r);
		pruned += (uint64_t)(pc * (half == 0xffff ? 2 : 1) - _mm_popcnt_u32(m));
		while (m) {
			int l = k->n, room = MRDEM_TRI_BLOCK - l;
			int n = (int)_mm_popcnt_u32(m);
			uint32_t sel = m;
			if (n > room) {
				sel = low_bits(m, room);
				n = room;
			}
			store_lanes(ps->w, A, B, pick, sel, n, l);
			k->n = l + n;
			m &= ~sel;
			if (k->n == MRDEM_TRI_BLOCK)
				mrdem_tri_stream_block(ps->w, ps->o, ps->cnt);
		}
	}
	return pruned;
}

MRDEM_TARGET_STREAM uint64_t mrdem_tri_leaves_avx512(struct mrdem_tri_batch *w,
						     const struct mrdem_tri_leaf *la,
						     const struct mrdem_tri_leaf *lb, float reach,
						     const struct mrdem_narrow_opts *o,
						     struct mrdem_narrow_counts *cnt)
{
	const struct mrdem_tri_chunk *a = la->chunk, *b = lb->chunk;
	uint32_t na = la->n, nb = lb->n;
	const __m512 r = _mm512_set1_ps(reach);
	__m512 sv[4], tv[4];
	uint64_t nq = 0, ca = 0, cb = 0;
	for (int c = 0; c < 4; c++)
		sv[c] = _mm512_set1_ps(la->sph[c]);
	for (uint32_t j = 0; j < nb; j++) {
		for (int c = 0; c < 4; c++)
			tv[c] = _mm512_loadu_ps(b[j].sph[c]);
		w->keep[j] = near_ps(sv, tv, r) & ((1u << b[j].n) - 1);
		nq += (uint64_t)_mm_popcnt_u32(w->keep[j]);
		cb += b[j].n;
	}
	for (uint32_t i = 0; i < na; i++)
		ca += a[i].n;
	uint64_t pruned = (cb - nq) * ca;
	if (!nq)
		return pruned;
	const struct leaves_pass ps = {w, o, cnt};
	for (int c = 0; c < 4; c++)
		sv[c] = _mm512_set1_ps(lb->sph[c]);
	for (uint32_t i = 0; i < na; i++) {
		const struct mrdem_tri_chunk *A = &a[i];
		for (int c = 0; c < 4; c++)
			tv[c] = _mm512_loadu_ps(A->sph[c]);
		uint32_t pm = near_ps(sv, tv, r) & ((1u << A->n) - 1);
		pruned += nq * (A->n - (uint64_t)_mm_popcnt_u32(pm));
		if (!pm)
			continue;
		for (uint32_t j = 0; j < nb; j++)
			if (w->keep[j])
				pruned += pair_rows(&ps, A, &b[j], pm, w->keep[j], r);
	}
	return pruned;
}
#endif
