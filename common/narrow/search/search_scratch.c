#include "common/narrow/search/search_scratch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "common/util/simd.h"

struct mrdem_tree_search *mrdem_tree_search_new(void)
{
	struct mrdem_tree_search *s = mrdem_xcalloc(1, sizeof *s);
	s->batch = mrdem_tri_batch_new();
	return s;
}

void mrdem_tree_search_free(struct mrdem_tree_search *s)
{
	if (!s)
		return;
	mrdem_tri_batch_free(s->batch);
	void *arrays[] = { s->cur, s->next, s->real, s->leaves, s->chunks, s->chunk_at[0],
			   s->chunk_at[1], s->chunk_stamp[0], s->chunk_stamp[1], s->status, s->res, s->eps_a, s->eps_b,
			   s->node_b, s->soup_b, s->nsph_b, s->tsph_b, s->node_stamp,
			   s->leaf_stamp, s->slot, s->res2, s->exact, s->tally, s->wide_a, s->wide_b, s->items,
			   s->item_pairs, s->keys, s->packed, s->spare };
	for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
		free(arrays[k]);
	free(s);
}

/* Largest coordinate magnitude of a tree's root halo: the scale of the
 * float rounding in a search. */
static float extent(const struct mrdem_tree *t)
{
	float m = 0;
	for (int c = 0; c < 9; c++)
		m = fmaxf(m, fabsf(t->tri[c]));
	return m + t->eps[0];
}

/* Stamps of size n, all forgotten when the array grows. */
static uint32_t *grow_stamps(uint32_t *p, size_t *cap, size_t n)
{
	size_t old = *cap;
	p = mrdem_search_grow(p, cap, n, sizeof *p);
	if (*cap != old)
		memset(p, 0, *cap * sizeof *p);
	return p;
}

float mrdem_search_prepare(struct mrdem_tree_search *s, const struct mrdem_search_side *a,
			   const struct mrdem_search_side *b, int simd)
{
	s->avx512 = MRDEM_SIMD_X86 && mrdem_simd_resolve(simd) == MRDEM_SIMD_AVX512;
	const struct mrdem_tree *ta = a->tree, *tb = b->tree;
	/* Slack on surrogate halos for float rounding of kernels and transform.
	 * The iterative kernel needs none: it only says SEPARATE when a lower
	 * bound of the distance exceeds the cut (common/narrow/tri/tri_penalty.c). */
	float slack = 1e-5f * (extent(ta) + extent(tb));
	s->eps_a = mrdem_search_grow(s->eps_a, &s->eps_a_cap, ta->nnodes, sizeof *s->eps_a);
	s->eps_b = mrdem_search_grow(s->eps_b, &s->eps_b_cap, tb->nnodes, sizeof *s->eps_b);
	for (uint32_t n = 0; n < ta->nnodes; n++)
		s->eps_a[n] = ta->eps[n] + a->eps + 0.5f * slack;
	for (uint32_t n = 0; n < tb->nnodes; n++)
		s->eps_b[n] = tb->eps[n] + b->eps + 0.5f * slack;
	s->node_b = mrdem_search_grow(s->node_b, &s->node_b_cap, 9 * (size_t)tb->nnodes,
				      sizeof *s->node_b);
	s->soup_b = mrdem_search_grow(s->soup_b, &s->soup_b_cap, 9 * (size_t)tb->ntris,
				      sizeof *s->soup_b);
	s->nsph_b = mrdem_search_grow(s->nsph_b, &s->nsph_b_cap, 4 * (size_t)tb->nnodes,
				      sizeof *s->nsph_b);
	s->tsph_b = mrdem_search_grow(s->tsph_b, &s->tsph_b_cap, 4 * (size_t)tb->ntris,
				      sizeof *s->tsph_b);
	s->node_stamp = grow_stamps(s->node_stamp, &s->node_stamp_cap, tb->nnodes);
	s->leaf_stamp = grow_stamps(s->leaf_stamp, &s->leaf_stamp_cap, tb->nnodes);
	const struct mrdem_tree *side[2] = {ta, tb};
	for (int k = 0; k < 2; k++) {
		s->chunk_stamp[k] = grow_stamps(s->chunk_stamp[k], &s->chunk_stamp_cap[k],
						side[k]->nnodes);
		s->chunk_at[k] = mrdem_search_grow(s->chunk_at[k], &s->chunk_at_cap[k],
						   side[k]->nnodes, sizeof *s->chunk_at[k]);
	}
	s->nchunks = 0;
	if (++s->stamp == 0) { /* wrapped: forget every stamp */
		memset(s->node_stamp, 0, s->node_stamp_cap * sizeof *s->node_stamp);
		memset(s->leaf_stamp, 0, s->leaf_stamp_cap * sizeof *s->leaf_stamp);
		for (int k = 0; k < 2; k++)
			memset(s->chunk_stamp[k], 0, s->chunk_stamp_cap[k] * sizeof *s->chunk_stamp[k]);
		s->stamp = 1;
	}
	/* Sphere radii carry the nodes' own eps; the particles' come here. */
	return a->eps + b->eps + slack;
}

#if MRDEM_SIMD_X86
/* xform_apply_f on the point p[0..2] (lane 3 is garbage), the rotation's
 * columns and the translation in c: per lane ((r0 x + r1 y) + r2 z) + t
 * in double, rounded once, as mat3_apply and xform_apply_f do it. */
MRDEM_TARGET_AVX512 static inline __m128 map_point_avx512(const __m256d c[4], __m128 p)
{
	__m256d d = _mm256_cvtps_pd(p);
	__m256d o = _mm256_add_pd(_mm256_mul_pd(c[0], _mm256_permute4x64_pd(d, 0x00)),
				  _mm256_mul_pd(c[1], _mm256_permute4x64_pd(d, 0x55)));
	o = _mm256_add_pd(o, _mm256_mul_pd(c[2], _mm256_permute4x64_pd(d, 0xaa)));
	return _mm256_cvtpd_ps(_mm256_add_pd(o, c[3]));
}

/* mrdem_search_map_node's mapping, a point per vector instead of a
 * coordinate at a time: the same floats. */
MRDEM_TARGET_AVX512 static void map_node_avx512(struct mrdem_tree_search *s,
						const struct mrdem_tree *t,
						const struct mrdem_xform *x, uint32_t n)
{
	const double *r = x->r;
	const __m256d c[4] = {_mm256_setr_pd(r[0], r[3], r[6], 0), _mm256_setr_pd(r[1], r[4], r[7], 0),
			      _mm256_setr_pd(r[2], r[5], r[8], 0),
			      _mm256_setr_pd(x->t[0], x->t[1], x->t[2], 0)};
	const float *in = &t->tri[9 * (size_t)n];
	float *out = &s->node_b[9 * (size_t)n];
	for (int v = 0; v < 3; v++)
		_mm_mask_storeu_ps(out + 3 * v, 0x7,
				   map_point_avx512(c, _mm_maskz_loadu_ps(0x7, in + 3 * v)));
	__m128 sph = _mm_loadu_ps(&t->node_sphere[4 * (size_t)n]);
	/* the centre mapped, the radius as it is */
	_mm_storeu_ps(&s->nsph_b[4 * (size_t)n], _mm_blend_ps(map_point_avx512(c, sph), sph, 0x8));
}
#endif

void mrdem_search_map_node_now(struct mrdem_tree_search *s, const struct mrdem_tree *t,
			       const struct mrdem_xform *x, uint32_t n)
{
	s->node_stamp[n] = s->stamp;
#if MRDEM_SIMD_X86
	if (s->avx512) {
		map_node_avx512(s, t, x, n);
		return;
	}
#endif
	xform_apply_tris(x, &t->tri[9 * (size_t)n], &s->node_b[9 * (size_t)n], 1);
	xform_apply_f(x, &t->node_sphere[4 * (size_t)n], &s->nsph_b[4 * (size_t)n]);
	s->nsph_b[4 * (size_t)n + 3] = t->node_sphere[4 * (size_t)n + 3];
}

void mrdem_search_map_leaf(struct mrdem_tree_search *s, const struct mrdem_tree *t,
			   const struct mrdem_xform *x, uint32_t n)
{
	if (s->leaf_stamp[n] == s->stamp)
		return;
	s->leaf_stamp[n] = s->stamp;
	size_t first = t->tri_first[n];
	xform_apply_tris(x, &t->soup[9 * first], &s->soup_b[9 * first], t->tri_count[n]);
	for (size_t i = first; i < first + t->tri_count[n]; i++) {
		xform_apply_f(x, &t->soup_sphere[4 * i], &s->tsph_b[4 * i]);
		s->tsph_b[4 * i + 3] = t->soup_sphere[4 * i + 3];
	}
}

#if MRDEM_SIMD_X86
/* Rows x, y, z (8 lanes, repeated in the upper 8) mapped by x in place:
 * xform_apply_f's operations in the same order, in double, rounded once,
 * so the floats are the scalar path's bit for bit. Lanes outside live
 * are zero, as the chunk's unused slots. */
MRDEM_TARGET_AVX512 static inline void map_rows_avx512(const struct mrdem_xform *x, __m512 *rx,
							__m512 *ry, __m512 *rz, __mmask16 live)
{
	__m512d p[3] = {_mm512_cvtps_pd(_mm512_castps512_ps256(*rx)),
			_mm512_cvtps_pd(_mm512_castps512_ps256(*ry)),
			_mm512_cvtps_pd(_mm512_castps512_ps256(*rz))};
	__m512 *out[3] = {rx, ry, rz};
	for (int i = 0; i < 3; i++) {
		__m512d o = _mm512_add_pd(
			_mm512_add_pd(_mm512_mul_pd(_mm512_set1_pd(x->r[3 * i]), p[0]),
				      _mm512_mul_pd(_mm512_set1_pd(x->r[3 * i + 1]), p[1])),
			_mm512_mul_pd(_mm512_set1_pd(x->r[3 * i + 2]), p[2]));
		__m256 f = _mm512_cvtpd_ps(_mm512_add_pd(o, _mm512_set1_pd(x->t[i])));
		__m512 w = _mm512_castps256_ps512(f);
		*out[i] = _mm512_maskz_shuffle_f32x4(live, w, w, 0x44); /* 128-bit blocks 0 1 0 1 */
	}
}

/* mrdem_tri_chunk_set from n <= 8 triangles v and spheres sph in their
 * usual layout (9 and 4 floats each), mapped by x unless it is NULL: the
 * same chunk bit for bit. The 72 coordinates are 5 vectors; row r takes
 * element 9 k + r into lanes k and k + 8 by two-source permutes (an
 * index's low bits pick the element within two vectors, the position's
 * range picks the pair), instead of a memset and scalar copies. */
MRDEM_TARGET_AVX512 static void chunk_build_avx512(struct mrdem_tri_chunk *c, const float *v,
						   const float *sph, uint32_t first, uint32_t n,
						   const struct mrdem_xform *x)
{
	__m512 z[5];
	for (int i = 0; i < 5; i++) {
		int left = 9 * (int)n - 16 * i;
		__mmask16 m = left >= 16 ? 0xffff : left > 0 ? (__mmask16)((1u << left) - 1) : 0;
		z[i] = _mm512_maskz_loadu_ps(m, v + 16 * i);
	}
	const __m512i k = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7);
	const __m512i k9 = _mm512_mullo_epi32(k, _mm512_set1_epi32(9));
	__m512 row[13];
	for (int r = 0; r < 9; r++) {
		__m512i at = _mm512_add_epi32(k9, _mm512_set1_epi32(r));
		__mmask16 hi = _mm512_cmpge_epi32_mask(at, _mm512_set1_epi32(32));
		__mmask16 top = _mm512_cmpge_epi32_mask(at, _mm512_set1_epi32(64));
		__m512 y = _mm512_permutex2var_ps(z[0], at, z[1]);
		y = _mm512_mask_blend_ps(hi, y, _mm512_permutex2var_ps(z[2], at, z[3]));
		row[r] = _mm512_mask_blend_ps(top, y, _mm512_permutexvar_ps(at, z[4]));
	}
	__mmask16 ms0 = 4 * n >= 16 ? 0xffff : (__mmask16)((1u << (4 * n)) - 1);
	__mmask16 ms1 = 4 * n <= 16 ? 0 : (__mmask16)((1u << (4 * n - 16)) - 1);
	__m512 s0 = _mm512_maskz_loadu_ps(ms0, sph), s1 = _mm512_maskz_loadu_ps(ms1, sph + 16);
	const __m512i k4 = _mm512_slli_epi32(k, 2);
	for (int r = 0; r < 4; r++)
		row[9 + r] = _mm512_permutex2var_ps(s0, _mm512_add_epi32(k4, _mm512_set1_epi32(r)), s1);
	if (x) {
		__mmask16 live = (__mmask16)(((1u << n) - 1) * 0x101u);
		for (int p = 0; p < 4; p++)
			map_rows_avx512(x, &row[3 * p], &row[3 * p + 1], &row[3 * p + 2], live);
	}
	for (int r = 0; r < 9; r++)
		_mm512_storeu_ps(c->v[r], row[r]);
	for (int r = 0; r < 4; r++)
		_mm512_storeu_ps(c->sph[r], row[9 + r]);
	c->first = first;
	c->n = n;
}
#endif

size_t mrdem_search_make_leaf_chunks(struct mrdem_tree_search *s, int side,
				     const struct mrdem_tree *t, const struct mrdem_xform *x,
				     uint32_t n)
{
	uint32_t first = t->tri_first[n], count = t->tri_count[n];
	const float *v = t->soup, *sph = t->soup_sphere;
	/* The vector path maps b's rows as it builds them. */
	if (side && !s->avx512) {
		mrdem_search_map_leaf(s, t, x, n);
		v = s->soup_b;
		sph = s->tsph_b;
	}
	size_t at = s->nchunks, k = (count + MRDEM_TRI_CHUNK - 1) / MRDEM_TRI_CHUNK;
	s->chunks = mrdem_search_grow(s->chunks, &s->chunks_cap, at + k, sizeof *s->chunks);
	for (size_t c = 0; c < k; c++) {
		uint32_t from = first + (uint32_t)c * MRDEM_TRI_CHUNK;
		uint32_t m = first + count - from < MRDEM_TRI_CHUNK ? first + count - from
								    : MRDEM_TRI_CHUNK;
#if MRDEM_SIMD_X86
		if (s->avx512) {
			chunk_build_avx512(&s->chunks[at + c], &v[9 * (size_t)from],
					   &sph[4 * (size_t)from], from, m, side ? x : NULL);
			continue;
		}
#endif
		mrdem_tri_chunk_set(&s->chunks[at + c], &v[9 * (size_t)from], &sph[4 * (size_t)from],
				    from, m);
	}
	s->nchunks = at + k;
	s->chunk_stamp[side][n] = s->stamp;
	s->chunk_at[side][n] = (uint32_t)at;
	return at;
}

struct mrdem_tri_hit *mrdem_search_add_hit(struct mrdem_tri_hits *hits, uint32_t ta, uint32_t tb,
					   const struct mrdem_tri_result *r)
{
	struct mrdem_tri_hit *h = mrdem_tri_hits_push(hits);
	h->ta = ta;
	h->tb = tb;
	memcpy(h->pa, r->pa, sizeof h->pa);
	memcpy(h->pb, r->pb, sizeof h->pb);
	h->dist = r->dist;
	return h;
}

/* The m keys of s->keys sorted by bytes (least significant first,
 * counting; bytes every key shares are skipped) between the two halves of
 * s->keys (room for 2 m); returns the half that holds them sorted. Moving
 * 16-byte keys without compares is cheaper than a comparison sort (an
 * implicit step sorts the hits of every Picard iteration), and no
 * allocation per call (glibc's qsort allocates a buffer for arrays this
 * size). The keys are unique, so the order is the one any sort gives. */
struct mrdem_hit_key *mrdem_search_sort_keys(struct mrdem_tree_search *s, size_t m)
{
	struct mrdem_hit_key *src = s->keys, *dst = s->keys + m;
	int sorted = 1;
	uint64_t all_or = 0, all_and = ~(uint64_t)0;
	for (size_t i = 0; i < m; i++) {
		sorted &= i == 0 || src[i - 1].key < src[i].key;
		all_or |= src[i].key;
		all_and &= src[i].key;
	}
	if (sorted)
		return src;
	for (int shift = 0; shift < 64; shift += 8) {
		if (!(((all_or ^ all_and) >> shift) & 0xff))
			continue; /* every key has this byte */
		size_t count[256] = {0};
		for (size_t i = 0; i < m; i++)
			count[(src[i].key >> shift) & 0xff]++;
		for (size_t d = 0, at = 0; d < 256; d++) {
			size_t c = count[d];
			count[d] = at;
			at += c;
		}
		for (size_t i = 0; i < m; i++)
			dst[count[(src[i].key >> shift) & 0xff]++] = src[i];
		struct mrdem_hit_key *t = src;
		src = dst, dst = t;
	}
	return src;
}

/* Bits needed to write x (0 for 0). */
static int bit_width(uint64_t x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

/* The m words v sorted (v and v + m: room for 2 m), least significant
 * digit first, counting, over the bits from lo up that differ between
 * words (the others sort nothing), digits of at most 11 bits (8 for
 * few words, whose counts would cost more than their moves). The
 * histograms of every digit are counted in one pass. Returns the half
 * that holds them sorted. */
static uint64_t *sort_words(uint64_t *v, size_t m, int lo)
{
	uint64_t all_or = 0, all_and = ~(uint64_t)0;
	for (size_t i = 0; i < m; i++) {
		all_or |= v[i];
		all_and &= v[i];
	}
	uint64_t vary = (all_or ^ all_and) >> lo << lo;
	if (!vary)
		return v;
	int from = __builtin_ctzll(vary), bits = bit_width(vary) - from;
	/* 8-bit digits only where 6 passes hold them: count[] has room for 6 */
	int widest = m < 2048 && bits <= 48 ? 8 : 11, passes = (bits + widest - 1) / widest;
	int width = (bits + passes - 1) / passes;
	size_t buckets = (size_t)1 << width;
	uint64_t mask = buckets - 1;
	uint32_t count[6][2048]; /* passes <= 6: bits <= 48 at 8, <= 64 at 11 */
	for (int q = 0; q < passes; q++)
		memset(count[q], 0, buckets * sizeof count[q][0]);
	for (size_t i = 0; i < m; i++)
		for (int q = 0; q < passes; q++)
			count[q][(v[i] >> (from + q * width)) & mask]++;
	uint64_t *src = v, *dst = v + m;
	for (int q = 0; q < passes; q++) {
		uint32_t *c = count[q];
		for (size_t d = 0, at = 0; d < buckets; d++) {
			uint32_t k = c[d];
			c[d] = (uint32_t)at;
			at += k;
		}
		int shift = from + q * width;
		for (size_t i = 0; i < m; i++)
			dst[c[(src[i] >> shift) & mask]++] = src[i];
		uint64_t *t = src;
		src = dst, dst = t;
	}
	return src;
}

/* The hits sorted by (ta, tb): where key and place fit in a word each
 * (ta, tb and the place in as many bits as their largest values need),
 * those words are sorted (half the bytes of mrdem_hit_key, and often a
 * pass fewer), else the keys by mrdem_search_sort_keys; then the hits
 * are gathered in order into spare room, which becomes the hits' array
 * where they start at 0 (no copy back). */
void mrdem_search_sort_hits(struct mrdem_tree_search *s, struct mrdem_tri_hits *hits,
			    size_t first)
{
	size_t m = hits->n - first;
	if (m < 2)
		return;
	struct mrdem_tri_hit *h = hits->h + first;
	uint32_t any_a = 0, any_b = 0;
	for (size_t i = 0; i < m; i++) {
		any_a |= h[i].ta;
		any_b |= h[i].tb;
	}
	int wi = bit_width(m - 1), wb = bit_width(any_b);
	s->spare = mrdem_search_grow(s->spare, &s->spare_cap, m, sizeof *s->spare);
	struct mrdem_tri_hit *to = s->spare;
	if (wi + wb + bit_width(any_a) <= 64) {
		s->packed = mrdem_search_grow(s->packed, &s->packed_cap, 2 * m, sizeof *s->packed);
		uint64_t *v = s->packed, mask = ((uint64_t)1 << wi) - 1;
		int sorted = 1;
		for (size_t i = 0; i < m; i++) {
			v[i] = ((uint64_t)h[i].ta << wb | h[i].tb) << wi | i;
			sorted &= i == 0 || v[i - 1] < v[i];
		}
		if (sorted)
			return; /* the keys are unique: in order already */
		const uint64_t *src = sort_words(v, m, wi);
		for (size_t k = 0; k < m; k++)
			to[k] = h[src[k] & mask];
	} else {
		s->keys = mrdem_search_grow(s->keys, &s->keys_cap, 2 * m, sizeof *s->keys);
		for (size_t i = 0; i < m; i++)
			s->keys[i] = (struct mrdem_hit_key){(uint64_t)h[i].ta << 32 | h[i].tb,
							    (uint32_t)i};
		const struct mrdem_hit_key *src = mrdem_search_sort_keys(s, m);
		for (size_t k = 0; k < m; k++)
			to[k] = h[src[k].i];
	}
	if (first) {
		memcpy(h, to, m * sizeof *h);
		return;
	}
	struct mrdem_tri_hit *t = hits->h;
	size_t tc = hits->cap;
	hits->h = s->spare, hits->cap = s->spare_cap;
	s->spare = t, s->spare_cap = tc;
}
