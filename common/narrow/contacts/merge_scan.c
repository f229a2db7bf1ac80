#include "common/narrow/contacts/merge_scan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"
#include "common/util/simd.h"
#if MRDEM_SIMD_X86
#include <immintrin.h>
#endif

void mrdem_merge_scan_release(struct mrdem_merge_scan *m)
{
	free(m->mid);
	free(m->seed);
	free(m->seed_mid);
	free(m->dist);
	free(m->keep);
	free(m->head);
	free(m->tail);
	free(m->ent);
	memset(m, 0, sizeof *m);
}

static void scan_reserve(struct mrdem_merge_scan *m, size_t n)
{
	if (n <= m->cap)
		return;
	m->mid = mrdem_xrealloc_for(m->mid, n, 3 * sizeof *m->mid, "hits to merge");
	m->seed = mrdem_xrealloc_for(m->seed, n, 3 * sizeof *m->seed, "hits to merge");
	m->seed_mid = mrdem_xrealloc_for(m->seed_mid, n, 3 * sizeof *m->seed_mid, "hits to merge");
	m->dist = mrdem_xrealloc_for(m->dist, n, sizeof *m->dist, "hits to merge");
	m->keep = mrdem_xrealloc_for(m->keep, n, sizeof *m->keep, "hits to merge");
	m->cap = n;
}

/* The grid over the n midpoints m->mid (points that are not finite left
 * out: they join no group): cells of edge a little above the reach
 * (chain_insert's widened reach meets three cells at most on an axis;
 * against cells of twice the reach a chain holds about half the groups,
 * and a hit reads fewer before it finds its own), at most max(64, 2 n)
 * of them, every chain empty. Fails (0) where no midpoint is finite. */
static int chain_grid_setup(struct mrdem_merge_scan *m, size_t n, double reach)
{
	/* the bounds in scalars, not arrays: kept in registers, not a
	 * store and load per point */
	double lo0 = INFINITY, lo1 = INFINITY, lo2 = INFINITY;
	double hi0 = -INFINITY, hi1 = -INFINITY, hi2 = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		const double *x = &m->mid[3 * i];
		if (!(isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2])))
			continue;
		lo0 = x[0] < lo0 ? x[0] : lo0, hi0 = x[0] > hi0 ? x[0] : hi0;
		lo1 = x[1] < lo1 ? x[1] : lo1, hi1 = x[1] > hi1 ? x[1] : hi1;
		lo2 = x[2] < lo2 ? x[2] : lo2, hi2 = x[2] > hi2 ? x[2] : hi2;
	}
	double lo[3] = {lo0, lo1, lo2}, hi[3] = {hi0, hi1, hi2};
	if (!(lo[0] <= hi[0]) || !(reach > 0 && reach < INFINITY))
		return 0;
	size_t cells = mrdem_merge_cells_shape(&m->cells, lo, hi, reach * (1 + 1e-6), n);
	if (!cells)
		return 0;
	mrdem_merge_cells_reserve(&m->head, &m->tail, &m->cells_cap, cells);
	for (size_t k = 0; k < cells; k++)
		m->head[k] = MRDEM_MERGE_NONE;
	m->ent_n = 0;
	return 1;
}

/* Group g, seed midpoint s, at the end of the chain of every cell its
 * reach meets. The reach is widened by far more than the rounding of a
 * caller's coordinate differences and of s +- reach, and the cells are
 * monotone in a coordinate, so a point whose computed distance to s is
 * within reach lies in one of those cells. */
static void chain_insert(struct mrdem_merge_scan *m, uint32_t g, const double s[3], double reach)
{
	size_t k[2][3];
	for (int a = 0; a < 3; a++) {
		double r = reach * (1 + 1e-9) + 1e-15 * (fabs(s[a]) + reach);
		k[0][a] = mrdem_merge_cell(&m->cells, a, s[a] - r);
		k[1][a] = mrdem_merge_cell(&m->cells, a, s[a] + r);
	}
	size_t need = m->ent_n + (k[1][0] - k[0][0] + 1) * (k[1][1] - k[0][1] + 1) *
					 (k[1][2] - k[0][2] + 1);
	if (need > m->ent_cap) {
		m->ent_cap = need > 2 * m->ent_cap ? need : 2 * m->ent_cap;
		m->ent = mrdem_xrealloc(m->ent, m->ent_cap * sizeof *m->ent);
	}
	for (size_t i = k[0][0]; i <= k[1][0]; i++)
		for (size_t j = k[0][1]; j <= k[1][1]; j++)
			for (size_t l = k[0][2]; l <= k[1][2]; l++) {
				size_t cell = mrdem_merge_cell_at(&m->cells, i, j, l);
				uint32_t e = (uint32_t)m->ent_n++;
				m->ent[e] = (struct mrdem_merge_chain_entry){
					{s[0], s[1], s[2]}, g, MRDEM_MERGE_NONE};
				if (m->head[cell] == MRDEM_MERGE_NONE)
					m->head[cell] = e;
				else
					m->ent[m->tail[cell]].next = e;
				m->tail[cell] = e;
			}
}

/* Of the groups h .. h + 7 (below kept), whose seed midpoints (columns
 * of cap) are not certainly apart from midpoint x (squared distance not
 * above out2, NaN included): the returned bits; *in: those certainly
 * within (below in2). */
static inline unsigned mid_near_generic(const double *col, size_t cap, size_t h, size_t kept,
					const double x[3], double in2, double out2, unsigned *in)
{
	unsigned near = 0, inside = 0;
	for (size_t k = h; k < kept && k < h + 8; k++) {
		double d[3] = {x[0] - col[k], x[1] - col[cap + k], x[2] - col[2 * cap + k]};
		double d2 = vec3_norm2(d);
		near |= (unsigned)!(d2 > out2) << (k - h);
		inside |= (unsigned)(d2 < in2) << (k - h);
	}
	*in = inside;
	return near;
}

#if MRDEM_SIMD_X86
/* The same with AVX-512, 8 groups a vector. */
MRDEM_TARGET_AVX512 static unsigned mid_near_avx512(const double *col, size_t cap, size_t h,
						    size_t kept, const double x[3], double in2,
						    double out2, unsigned *in)
{
	__mmask8 live = kept - h >= 8 ? 0xff : (__mmask8)((1u << (kept - h)) - 1);
	__m512d d[3];
	for (int c = 0; c < 3; c++)
		d[c] = _mm512_sub_pd(_mm512_set1_pd(x[c]),
				     _mm512_maskz_loadu_pd(live, col + c * cap + h));
	__m512d d2 = _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(d[0], d[0]), _mm512_mul_pd(d[1], d[1])),
				   _mm512_mul_pd(d[2], d[2]));
	*in = _mm512_mask_cmp_pd_mask(live, d2, _mm512_set1_pd(in2), _CMP_LT_OQ);
	return _mm512_mask_cmp_pd_mask(live, d2, _mm512_set1_pd(out2), _CMP_NGT_UQ);
}
#endif

/* The hit being placed: its midpoint mi (NaN where its points coincide
 * and its world point is not finite) and, once computed, its world point
 * xi (have). */
struct scan_hit {
	const struct mrdem_tri_hit *h;
	double mi[3], xi[3];
	int have;
};

/* Whether the hit's world point lies within the merge radius of group
 * k's seed (computed the first time it is needed). */
static int world_within(const struct mrdem_hit_frame *f, const struct mrdem_merge_scan *m,
			struct scan_hit *s, size_t k, double r2)
{
	if (!s->have) {
		double normal[3], a, b;
		mrdem_hit_point(f, s->h, s->xi, normal, &a, &b);
		s->have = 1;
	}
	double d[3];
	vec3_sub(d, s->xi, &m->seed[3 * k]);
	return vec3_norm2(d) < r2;
}

/* The hit's group by the chain of its midpoint's cell, in group order:
 * the test of mid_near on one group, then world points in the band. */
static uint32_t find_in_chain(const struct mrdem_hit_frame *f, const struct mrdem_merge_scan *m,
			      struct scan_hit *s, const struct mrdem_merge_radii *r)
{
	const double *mi = s->mi;
	for (uint32_t e = m->head[mrdem_merge_cell_of(&m->cells, mi)]; e != MRDEM_MERGE_NONE;
	     e = m->ent[e].next) {
		const struct mrdem_merge_chain_entry *en = &m->ent[e];
		double d[3] = {mi[0] - en->mid[0], mi[1] - en->mid[1], mi[2] - en->mid[2]};
		double d2 = vec3_norm2(d);
		if (d2 < r->in2)
			return en->group;
		if (d2 > r->out2)
			continue;
		if (world_within(f, m, s, en->group, r->r2))
			return en->group;
	}
	return MRDEM_MERGE_NONE;
}

/* The hit's group by a scan of the kept groups' seed midpoints, 8 at a
 * time. */
static uint32_t find_in_columns(const struct mrdem_hit_frame *f, const struct mrdem_merge_scan *m,
				struct scan_hit *s, size_t kept, const struct mrdem_merge_radii *r,
				int avx512)
{
	for (size_t k0 = 0; k0 < kept; k0 += 8) {
		unsigned in, near;
#if MRDEM_SIMD_X86
		if (avx512 && kept - k0 > 4) /* a call pays off past a few */
			near = mid_near_avx512(m->seed_mid, m->cap, k0, kept, s->mi, r->in2, r->out2,
					       &in);
		else
#else
		(void)avx512;
#endif
			near = mid_near_generic(m->seed_mid, m->cap, k0, kept, s->mi, r->in2, r->out2,
						&in);
		for (; near; near &= near - 1) {
			size_t k = k0 + (size_t)__builtin_ctz(near);
			if (in >> (k - k0) & 1 || world_within(f, m, s, k, r->r2))
				return (uint32_t)k;
		}
	}
	return MRDEM_MERGE_NONE;
}

/* Per hit its midpoint into m->mid; returns the largest point coordinate
 * (NaN: ignored) of these hits and of those before them (big0). */
static float scan_midpoints(const struct mrdem_tri_hits *hits, struct mrdem_merge_scan *m,
			    float big0)
{
	float big = 0;
	for (size_t i = 0; i < hits->n; i++)
		for (int c = 0; c < 3; c++) {
			float a = hits->h[i].pa[c], b = hits->h[i].pb[c];
			m->mid[3 * i + c] = 0.5 * ((double)a + (double)b);
			float u = fabsf(a) > fabsf(b) ? fabsf(a) : fabsf(b);
			big = u > big ? u : big;
		}
	return big0 > big ? big0 : big;
}

/* The grid's chains from now on: the kept groups' seeds into them.
 * Fails (0) where the grid cannot be laid. */
static int scan_grid_start(struct mrdem_merge_scan *m, size_t n, size_t kept, double rout)
{
	if (!chain_grid_setup(m, n, rout))
		return 0;
	const double *col = m->seed_mid;
	for (size_t k = 0; k < kept; k++) {
		double sk[3] = {col[k], col[m->cap + k], col[2 * m->cap + k]};
		if (!isnan(sk[0]))
			chain_insert(m, (uint32_t)k, sk, rout);
	}
	return 1;
}

/* Hit s (index i) seeds group kept. */
static void scan_new_group(const struct mrdem_hit_frame *f, struct mrdem_merge_scan *m,
			   struct scan_hit *s, size_t i, size_t kept, int chain, double rout)
{
	if (!s->have) {
		double normal[3], a, b;
		mrdem_hit_point(f, s->h, s->xi, normal, &a, &b);
	}
	vec3_copy(&m->seed[3 * kept], s->xi);
	int finite = mrdem_point_finite(s->xi);
	for (int c = 0; c < 3; c++)
		m->seed_mid[c * m->cap + kept] = finite ? s->mi[c] : NAN;
	if (chain && finite)
		chain_insert(m, (uint32_t)kept, s->mi, rout);
	m->dist[kept] = (double)s->h->dist;
	m->keep[kept] = (uint32_t)i;
}

/* Hits in (ta, tb) order, each into the first group whose seed is within
 * the radius, else a new one; hits whose two points coincide are
 * compared by their world points always (b's normal there may be
 * undefined). Past MRDEM_MERGE_GRID_GROUPS groups a hit reads the groups
 * of its own cell's chain only, in order, so the cost grows with the hits, not
 * hits times groups. */
size_t mrdem_merge_scan(const struct mrdem_hit_frame *f, const struct mrdem_tri_hits *hits,
			struct mrdem_merge_scan *m, double radius, int simd, float big0)
{
	size_t n = hits->n, kept = 0;
	scan_reserve(m, n);
	struct mrdem_merge_radii r = mrdem_merge_radii(f, radius, scan_midpoints(hits, m, big0));
	int avx512 = MRDEM_SIMD_X86 && mrdem_simd_resolve(simd) == MRDEM_SIMD_AVX512;
	int grid = 0;
	for (size_t i = 0; i < n; i++) {
		if (!grid && kept >= MRDEM_MERGE_GRID_GROUPS &&
		    !(grid = scan_grid_start(m, n, kept, r.rout)))
			return SIZE_MAX;
		struct scan_hit s = {.h = &hits->h[i], .have = 0};
		vec3_copy(s.mi, &m->mid[3 * i]);
		if (s.h->pa[0] == s.h->pb[0] && s.h->pa[1] == s.h->pb[1] && s.h->pa[2] == s.h->pb[2]) {
			double normal[3], a, b;
			mrdem_hit_point(f, s.h, s.xi, normal, &a, &b);
			s.have = 1;
			if (!mrdem_point_finite(s.xi))
				s.mi[0] = NAN;
		}
		/* a midpoint that is not finite joins no group (nor would the
		 * scan's world points let it) */
		int finite_mid = mrdem_point_finite(s.mi);
		uint32_t g = !grid ? find_in_columns(f, m, &s, kept, &r, avx512)
			     : finite_mid ? find_in_chain(f, m, &s, &r)
					  : MRDEM_MERGE_NONE;
		if (g == MRDEM_MERGE_NONE) {
			scan_new_group(f, m, &s, i, kept++, grid && finite_mid, r.rout);
		} else {
			/* the group's least distance is kept beside it (m->dist,
			 * not a load through keep), and a select replaces the
			 * branch: which hit is deeper is as good as random */
			double d = (double)s.h->dist;
			int deeper = d < m->dist[g];
			m->keep[g] = deeper ? (uint32_t)i : m->keep[g];
			m->dist[g] = deeper ? d : m->dist[g];
		}
	}
	return kept;
}
