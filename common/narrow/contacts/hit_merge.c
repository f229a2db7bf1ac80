#include "common/narrow/contacts/hit_merge.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/quat.h"
#include "common/geom/vec3.h"
#include "common/narrow/search/search_scratch.h"
#include "common/util/error.h"
#include "common/util/simd.h"
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

/* An entry of a chain of merge_hits_scan's grid: a group, its seed's
 * midpoint (so that a hit reads one line per group it looks at), the
 * next entry. */
struct mrdem_merge_chain_entry {
	double mid[3];
	uint32_t group, next;
};

void mrdem_merge_grid_release(struct mrdem_merge_grid *m)
{
	free(m->seed);
	free(m->seed_col);
	free(m->mid);
	free(m->x);
	free(m->dist);
	free(m->keep);
	free(m->slot_group);
	free(m->start);
	free(m->fill);
	free(m->cand);
	free(m->ent);
	free(m->key);
	free(m->left);
	free(m->odd);
	memset(m, 0, sizeof *m);
}

/* Outward unit normal of a float triangle, in double. */
static void face_normal(const float *t, double n[3])
{
	double e1[3], e2[3];
	for (int k = 0; k < 3; k++) {
		e1[k] = (double)t[3 + k] - t[k];
		e2[k] = (double)t[6 + k] - t[k];
	}
	vec3_cross(n, e1, e2);
	vec3_normalize(n);
}

#define MERGE_NONE UINT32_MAX
/* Up to this many groups a scan of them is cheaper than the grid. */
#define MERGE_GRID_GROUPS 24
/* merge_hits_peel for pairs of at most this many hits: a pass per group
 * over the hits left is cheaper than sorting them while the groups are
 * few, and with few hits the passes it can waste before it stops (8 per
 * hit at most) are few too */
#define MERGE_PEEL_HITS 256

/* Cell index along axis a of coordinate v, clamped to the grid. */
static size_t merge_cell(const struct mrdem_merge_grid *m, int a, double v)
{
	double t = (v - m->lo[a]) * m->inv_edge;
	if (!(t > 0))
		return 0;
	/* t is small here: a signed conversion, cheaper than to size_t */
	return t < (double)(m->dims[a] - 1) ? (size_t)(int64_t)t : m->dims[a] - 1;
}

/* The cell of point x. */
static size_t merge_cell_of(const struct mrdem_merge_grid *m, const double x[3])
{
	return (merge_cell(m, 0, x[0]) * m->dims[1] + merge_cell(m, 1, x[1])) * m->dims[2] +
	       merge_cell(m, 2, x[2]);
}

/* Shape m for points within lo..hi (finite): cells of edge `edge` or
 * doubled until at most max(64, 2 n) of them, room for their starts and
 * fills. Returns the number of cells, or 0 where the edge is not a
 * positive finite number. */
static size_t merge_grid_shape(struct mrdem_merge_grid *m, const double lo[3], const double hi[3],
			       double edge, size_t n)
{
	double limit = (double)(2 * n > 64 ? 2 * n : 64), d[3];
	if (!(edge > 0))
		return 0;
	for (;;) {
		for (int a = 0; a < 3; a++)
			d[a] = floor((hi[a] - lo[a]) / edge) + 1;
		if (d[0] * d[1] * d[2] <= limit)
			break;
		edge *= 2;
	}
	if (!isfinite(edge))
		return 0;
	size_t cells = 1;
	for (int a = 0; a < 3; a++) {
		m->lo[a] = lo[a];
		m->dims[a] = (size_t)d[a];
		cells *= m->dims[a];
	}
	m->inv_edge = 1 / edge;
	if (cells + 1 > m->cells_cap) {
		m->start = mrdem_xrealloc(m->start, (cells + 1) * sizeof *m->start);
		m->fill = mrdem_xrealloc(m->fill, (cells + 1) * sizeof *m->fill);
		m->cells_cap = cells + 1;
	}
	return cells;
}

/* A grid over the n points m->x: cells of edge 2 r or more, at most
 * max(64, 2 n) of them. Fails (0) on coordinates that are not finite;
 * the caller scans the groups then. */
static int merge_grid_setup(struct mrdem_merge_grid *m, size_t n, double radius)
{
	double lo[3], hi[3];
	for (int a = 0; a < 3; a++)
		lo[a] = hi[a] = m->x[a];
	for (size_t i = 1; i < n; i++)
		for (int a = 0; a < 3; a++) {
			double v = m->x[3 * i + a];
			lo[a] = v < lo[a] ? v : lo[a];
			hi[a] = v > hi[a] ? v : hi[a];
		}
	for (int a = 0; a < 3; a++)
		if (!isfinite(lo[a]) || !isfinite(hi[a]))
			return 0;
	size_t cells = merge_grid_shape(m, lo, hi, 2 * radius, n);
	if (!cells)
		return 0;
	m->cand_n = SIZE_MAX;
	/* each cell's room: the points in it, counted */
	memset(m->fill, 0, cells * sizeof *m->fill);
	for (size_t i = 0; i < n; i++)
		m->fill[merge_cell_of(m, &m->x[3 * i])]++;
	for (size_t k = 0, at = 0; k < cells; k++) {
		m->start[k] = (uint32_t)at;
		at += m->fill[k];
		m->fill[k] = 0;
	}
	return 1;
}

/* The first group (lowest index) whose seed lies within sqrt(r2) of x: on
 * each axis those seeds lie in the cells that [x - r, x + r] meets (two
 * at most; rounding is monotone, so the computed bounds keep them). Every
 * group of those cells is looked at, in no particular order. */
static uint32_t merge_find(struct mrdem_merge_grid *m, const double x[3], double r, double r2)
{
	size_t k[2][3];
	for (int a = 0; a < 3; a++) {
		k[0][a] = merge_cell(m, a, x[a] - r);
		k[1][a] = merge_cell(m, a, x[a] + r);
	}
	if (m->cand_n == SIZE_MAX || memcmp(k, m->near, sizeof k)) {
		memcpy(m->near, k, sizeof k);
		m->cand_n = 0;
		for (size_t i = k[0][0]; i <= k[1][0]; i++)
			for (size_t j = k[0][1]; j <= k[1][1]; j++)
				for (size_t l = k[0][2]; l <= k[1][2]; l++) {
					size_t cell = (i * m->dims[1] + j) * m->dims[2] + l;
					for (uint32_t q = 0; q < m->fill[cell]; q++)
						m->cand[m->cand_n++] = m->slot_group[m->start[cell] + q];
				}
	}
	uint32_t best = MERGE_NONE;
	for (size_t c = 0; c < m->cand_n; c++) {
		uint32_t g = m->cand[c];
		double d[3];
		vec3_sub(d, x, &m->seed[3 * (size_t)g]);
		best = vec3_norm2(d) < r2 && g < best ? g : best;
	}
	return best;
}

/* Put group g (seed already stored) into its cell, and into the list of
 * the last point's cells if it lies there. */
static void merge_insert(struct mrdem_merge_grid *m, size_t g)
{
	const double *x = &m->seed[3 * g];
	size_t k[3];
	int near = m->cand_n != SIZE_MAX;
	for (int a = 0; a < 3; a++) {
		k[a] = merge_cell(m, a, x[a]);
		near &= m->near[0][a] <= k[a] && k[a] <= m->near[1][a];
	}
	size_t cell = (k[0] * m->dims[1] + k[1]) * m->dims[2] + k[2];
	m->slot_group[m->start[cell] + m->fill[cell]++] = (uint32_t)g;
	if (near)
		m->cand[m->cand_n++] = (uint32_t)g;
}

/* Room for n points in m. */
static void merge_reserve(struct mrdem_merge_grid *m, size_t n)
{
	if (n <= m->cap)
		return;
	m->seed = mrdem_xrealloc_for(m->seed, n, 3 * sizeof *m->seed, "hits to merge");
	m->seed_col = mrdem_xrealloc_for(m->seed_col, n, 3 * sizeof *m->seed_col, "hits to merge");
	m->slot_group = mrdem_xrealloc_for(m->slot_group, n, sizeof *m->slot_group, "hits to merge");
	m->cand = mrdem_xrealloc_for(m->cand, n, sizeof *m->cand, "hits to merge");
	m->x = mrdem_xrealloc_for(m->x, n, 3 * sizeof *m->x, "hits to merge");
	m->mid = mrdem_xrealloc_for(m->mid, n, 3 * sizeof *m->mid, "hits to merge");
	m->dist = mrdem_xrealloc_for(m->dist, n, sizeof *m->dist, "hits to merge");
	m->keep = mrdem_xrealloc_for(m->keep, n, sizeof *m->keep, "hits to merge");
	m->key = mrdem_xrealloc_for(m->key, n, sizeof *m->key, "hits to merge");
	m->left = mrdem_xrealloc_for(m->left, n, sizeof *m->left, "hits to merge");
	m->odd = mrdem_xrealloc_for(m->odd, n / 8 + 1, sizeof *m->odd, "bytes of hit flags");
	m->cap = n;
}

/* Merge points closer than `radius` (remark 1): of the n points m->x
 * (room reserved), in list order, each joins the first group within reach
 * of its seed (the first member's point), and a group keeps its deepest
 * member (smallest m->dist, the first on ties): m->keep. Returns the
 * groups. The lists arrive sorted by triangle ids, so the result does not
 * depend on how they were found. While there are few groups a scan of
 * them is cheapest; past MERGE_GRID_GROUPS they go into a grid of cells
 * of at least twice the radius over the points' bounding box, and a point
 * looks at the (at most 8) cells its reach meets, so the cost grows with
 * the points, not points times groups. Both find the same group. */
static size_t merge_groups(struct mrdem_merge_grid *m, size_t n, double radius)
{
	size_t kept = 0;
	double r2 = radius * radius;
	/* grid: in use; tried: decided, once, when the groups got many */
	int grid = 0, tried = !(radius > 0);
	for (size_t i = 0; i < n; i++) {
		const double *xi = &m->x[3 * i];
		uint32_t g = MERGE_NONE;
		if (!tried && kept >= MERGE_GRID_GROUPS) {
			tried = 1;
			if ((grid = merge_grid_setup(m, n, radius)))
				for (size_t h = 0; h < kept; h++)
					merge_insert(m, h);
		}
		if (grid) {
			g = merge_find(m, xi, radius, r2);
		} else {
			for (size_t h = 0; h < kept && g == MERGE_NONE; h++) {
				double d[3];
				vec3_sub(d, xi, &m->seed[3 * h]);
				if (vec3_norm2(d) < r2)
					g = (uint32_t)h;
			}
		}
		if (g == MERGE_NONE) {
			/* A new group: its first member's point steers grouping. */
			vec3_copy(&m->seed[3 * kept], xi);
			if (grid)
				merge_insert(m, kept);
			m->keep[kept++] = (uint32_t)i;
		} else if (m->dist[i] < m->dist[m->keep[g]]) {
			m->keep[g] = (uint32_t)i;
		}
	}
	return kept;
}

/* merge_groups on the contacts of c from first. A group's kept member
 * comes at or after the group's place, so the list compacts in place. */
void mrdem_merge_close(struct mrdem_merge_grid *m, struct mrdem_contacts *c, size_t first,
			double radius)
{
	size_t n = c->n - first;
	if (n < 2)
		return;
	merge_reserve(m, n);
	for (size_t i = 0; i < n; i++) {
		vec3_copy(&m->x[3 * i], c->c[first + i].x);
		m->dist[i] = c->c[first + i].dist;
	}
	size_t kept = merge_groups(m, n, radius);
	for (size_t g = 0; g < kept; g++)
		c->c[first + g] = c->c[first + m->keep[g]];
	c->n = first + kept;
}

void mrdem_hit_frame_init(struct mrdem_hit_frame *f, const struct mrdem_scene *s, size_t ia, size_t ib,
			   const struct mrdem_xform *x_b, const float *soup_b,
			   const struct mrdem_tree *node_a, const struct mrdem_tree *node_b)
{
	f->p = &s->frame.p;
	f->ia = ia;
	f->ib = ib;
	f->com_a = s->shapes[f->p->shape[ia]].mesh.mass.com;
	quat_to_matrix(&f->p->quat[4 * ia], f->ra);
	f->x_b = x_b;
	f->soup_b = node_b ? node_b->tri : soup_b;
	f->node_a = node_a;
	f->node_b = node_b;
}

/* Hit h's contact point xw (world frame), normal n (a's frame) and halos. */
static void hit_point(const struct mrdem_hit_frame *f, const struct mrdem_tri_hit *h, double xw[3],
		      double n[3], double *ea, double *eb)
{
	*ea = f->p->eps[f->ia] + (f->node_a ? f->node_a->eps[h->ta] : 0);
	*eb = f->p->eps[f->ib] + (f->node_b ? f->node_b->eps[h->tb] : 0);
	double pa[3] = {h->pa[0], h->pa[1], h->pa[2]}, pb[3] = {h->pb[0], h->pb[1], h->pb[2]};
	double x[3], d, rel[3];
	vec3_sub(n, pa, pb);
	d = vec3_norm(n);
	if (d > 0) {
		vec3_scale(n, n, 1.0 / d);
		/* Centre of the halos' overlap along the shortest segment
		 * (the midpoint when both halos are equal, Sec. 2). */
		vec3_axpy(x, pa, -0.5 * (d + *ea - *eb), n);
	} else {
		/* Touching or crossing triangles: b's outward normal, and the
		 * same overlap centre at d = 0. It was pa, which jumps by
		 * (eb - ea) / 2 as d reaches 0 (a torque jump); the plane rule
		 * uses the same formula at every distance. */
		float tb[9];
		xform_apply_tris(f->x_b, &f->soup_b[9 * (size_t)h->tb], tb, 1);
		face_normal(tb, n);
		vec3_axpy(x, pa, 0.5 * (*eb - *ea), n);
	}
	vec3_sub(rel, x, f->com_a);
	mat3_apply(xw, f->ra, rel);
	vec3_add(xw, xw, &f->p->pos[3 * f->ia]);
}

#if MRDEM_SIMD_X86
_Static_assert(sizeof(struct mrdem_tri_hit) == 9 * sizeof(float), "hits are read as 9 floats");

/* hit_point's world point for the 8 hits h[0..7] into xw (3 each), with
 * AVX-512 in double, the same operations in the same order (the points
 * are bit for bit hit_point's), for the hits whose points differ; the
 * others (returned as a mask) are left to hit_point. The halos are the
 * particles' (no tree nodes). */
MRDEM_TARGET_AVX512 static unsigned merge_points8(const struct mrdem_hit_frame *f,
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

/* The band around the merge radius where midpoints do not settle
 * whether two hits' world points lie within it (merge_hits_scan): the
 * halos' difference plus far more than the rounding of coordinates of
 * the scale of the positions, halos, radius and the largest point
 * coordinate big. */
static double merge_band(const struct mrdem_hit_frame *f, double radius, float big)
{
	const double ea = f->p->eps[f->ia], eb = f->p->eps[f->ib];
	double scale = fabs(ea) + fabs(eb) + radius;
	for (int c = 0; c < 3; c++)
		scale += fabs(f->com_a[c]) + fabs(f->p->pos[3 * f->ia + c]);
	return fabs(ea - eb) + 1e-10 * (scale + big);
}

/* merge_hits_scan's grid over the n midpoints m->mid (points that are
 * not finite left out: they join no group): cells of edge a little
 * above the reach (chain_insert's widened reach meets three cells at most
 * on an axis; against cells of twice the reach a chain holds about half
 * the groups, and a hit reads fewer before it finds its own), at most
 * max(64, 2 n) of them, every chain empty. Fails (0) where no midpoint
 * is finite. */
static int chain_grid_setup(struct mrdem_merge_grid *m, size_t n, double reach)
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
	size_t cells = merge_grid_shape(m, lo, hi, reach * (1 + 1e-6), n);
	if (!cells)
		return 0;
	for (size_t k = 0; k < cells; k++)
		m->start[k] = MERGE_NONE;
	m->ent_n = 0;
	return 1;
}

/* Group g, seed midpoint s, at the end of the chain of every cell its
 * reach meets. The reach is widened by far more than the rounding of a
 * caller's coordinate differences and of s +- reach, and merge_cell is
 * monotone, so a point whose computed distance to s is within reach lies
 * in one of those cells. */
static void chain_insert(struct mrdem_merge_grid *m, uint32_t g, const double s[3], double reach)
{
	size_t k[2][3];
	for (int a = 0; a < 3; a++) {
		double r = reach * (1 + 1e-9) + 1e-15 * (fabs(s[a]) + reach);
		k[0][a] = merge_cell(m, a, s[a] - r);
		k[1][a] = merge_cell(m, a, s[a] + r);
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
				size_t cell = (i * m->dims[1] + j) * m->dims[2] + l;
				uint32_t e = (uint32_t)m->ent_n++;
				m->ent[e] = (struct mrdem_merge_chain_entry){{s[0], s[1], s[2]}, g, MERGE_NONE};
				if (m->start[cell] == MERGE_NONE)
					m->start[cell] = e;
				else
					m->ent[m->fill[cell]].next = e;
				m->fill[cell] = e;
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

/* merge_groups' scan on hits (halos the particles', radius > 0), without
 * the world point of every hit: a hit's contact point lies within
 * |ea - eb| / 2 of the midpoint of its two points (hit_point: the
 * overlap centre on the segment between them, or on b's normal through
 * them), and the world frame only moves points rigidly. So two hits'
 * midpoints (a's frame) settle whether their world points lie within the
 * radius, except in a band of |ea - eb| plus 1e-10 of the coordinates'
 * scale (far above rounding) around it; only there, and for the seeds,
 * are world points computed, by hit_point, and compared as merge_groups
 * compares them. The groups and kept hits are merge_groups': a
 * comparison settled by midpoints is one whose computed result is
 * certain. Hits whose two points coincide and seeds whose point is not
 * finite are compared by their world points always (b's normal there may
 * be undefined). Past MERGE_GRID_GROUPS groups the seeds go into a
 * grid over the midpoints (chain_grid_setup) and a hit reads the groups
 * of its own cell only, in order, so the cost grows with the hits, not
 * hits times groups. big0: the largest point coordinate of hits merged
 * before these (merge_hits_peel), so that the band is the one of all the
 * pair's hits. Returns the groups, or SIZE_MAX where that grid cannot be
 * laid (reach or midpoints not finite): the caller then merges with every
 * world point. */
static size_t merge_hits_scan(const struct mrdem_hit_frame *f, const struct mrdem_tri_hits *hits,
			      struct mrdem_merge_grid *m, double radius, int simd, float big0)
{
	size_t n = hits->n;
	float big = 0; /* the largest point coordinate (NaN: ignored, decided below) */
	for (size_t i = 0; i < n; i++)
		for (int c = 0; c < 3; c++) {
			float a = hits->h[i].pa[c], b = hits->h[i].pb[c];
			m->mid[3 * i + c] = 0.5 * ((double)a + (double)b);
			float u = fabsf(a) > fabsf(b) ? fabsf(a) : fabsf(b);
			big = u > big ? u : big;
		}
	big = big0 > big ? big0 : big; /* and of the hits before these */
	double band = merge_band(f, radius, big);
	double rin = radius - band, rout = radius + band, r2 = radius * radius;
	/* NaN anywhere leaves a group near and not inside: world points decide */
	double in2 = rin > 0 ? rin * rin : -1, out2 = rout * rout;
	/* the seeds' midpoints as columns of cap (NaN where the seed's world
	 * point is not finite, so that it is always compared by that point) */
	double *col = m->seed_col;
	int avx512 = MRDEM_SIMD_X86 && mrdem_simd_resolve(simd) == MRDEM_SIMD_AVX512;
	size_t kept = 0;
	int grid = 0;
	for (size_t i = 0; i < n; i++) {
		if (!grid && kept >= MERGE_GRID_GROUPS) {
			/* many groups: the grid's chains from now on */
			if (!(grid = chain_grid_setup(m, n, rout)))
				return SIZE_MAX;
			for (size_t k = 0; k < kept; k++) {
				double sk[3] = {col[k], col[m->cap + k], col[2 * m->cap + k]};
				if (!isnan(sk[0]))
					chain_insert(m, (uint32_t)k, sk, rout);
			}
		}
		const struct mrdem_tri_hit *h = &hits->h[i];
		double xi[3], normal[3], a, b, mi[3];
		vec3_copy(mi, &m->mid[3 * i]);
		int have = 0;
		if (h->pa[0] == h->pb[0] && h->pa[1] == h->pb[1] && h->pa[2] == h->pb[2]) {
			hit_point(f, h, xi, normal, &a, &b);
			have = 1;
			if (!(isfinite(xi[0]) && isfinite(xi[1]) && isfinite(xi[2])))
				mi[0] = NAN;
		}
		uint32_t g = MERGE_NONE;
		/* a midpoint that is not finite joins no group (nor would the
		 * scan's world points let it) */
		int finite_mid = isfinite(mi[0]) && isfinite(mi[1]) && isfinite(mi[2]);
		for (uint32_t e = grid && finite_mid ? m->start[merge_cell_of(m, mi)] : MERGE_NONE;
		     e != MERGE_NONE; e = m->ent[e].next) {
			/* mid_near's test on one group, in the scan's order */
			const struct mrdem_merge_chain_entry *en = &m->ent[e];
			size_t k = en->group;
			double d[3] = {mi[0] - en->mid[0], mi[1] - en->mid[1], mi[2] - en->mid[2]};
			double d2 = vec3_norm2(d);
			if (d2 < in2) {
				g = (uint32_t)k;
				break;
			}
			if (d2 > out2)
				continue;
			if (!have) {
				hit_point(f, h, xi, normal, &a, &b);
				have = 1;
			}
			vec3_sub(d, xi, &m->seed[3 * k]);
			if (vec3_norm2(d) < r2) {
				g = (uint32_t)k;
				break;
			}
		}
		for (size_t k0 = 0; !grid && k0 < kept && g == MERGE_NONE; k0 += 8) {
			unsigned in, near;
#if MRDEM_SIMD_X86
			if (avx512 && kept - k0 > 4) /* a call pays off past a few */
				near = mid_near_avx512(col, m->cap, k0, kept, mi, in2, out2, &in);
			else
#endif
				near = mid_near_generic(col, m->cap, k0, kept, mi, in2, out2, &in);
			for (; near; near &= near - 1) {
				size_t k = k0 + (size_t)__builtin_ctz(near);
				if (in >> (k - k0) & 1) {
					g = (uint32_t)k;
					break;
				}
				if (!have) {
					hit_point(f, h, xi, normal, &a, &b);
					have = 1;
				}
				double d[3];
				vec3_sub(d, xi, &m->seed[3 * k]);
				if (vec3_norm2(d) < r2) {
					g = (uint32_t)k;
					break;
				}
			}
		}
		if (g == MERGE_NONE) {
			if (!have)
				hit_point(f, h, xi, normal, &a, &b);
			vec3_copy(&m->seed[3 * kept], xi);
			int finite = isfinite(xi[0]) && isfinite(xi[1]) && isfinite(xi[2]);
			for (int c = 0; c < 3; c++)
				col[c * m->cap + kept] = finite ? mi[c] : NAN;
			if (grid && finite && finite_mid)
				chain_insert(m, (uint32_t)kept, mi, rout);
			m->dist[kept] = (double)h->dist;
			m->keep[kept++] = (uint32_t)i;
		} else {
			/* the group's least distance is kept beside it (m->dist,
			 * not a load through keep), and a select replaces the
			 * branch: which hit is deeper is as good as random */
			double d = (double)h->dist;
			int deeper = d < m->dist[g];
			m->keep[g] = deeper ? (uint32_t)i : m->keep[g];
			m->dist[g] = deeper ? d : m->dist[g];
		}
	}
	return kept;
}

static void hit_contact(const struct mrdem_hit_frame *f, const struct mrdem_tri_hit *h,
			struct mrdem_contacts *out)
{
	struct mrdem_contact *c = mrdem_contacts_push(out);
	double n[3], ea, eb;
	hit_point(f, h, c->x, n, &ea, &eb);
	c->a = f->p->id[f->ia];
	c->b = f->p->id[f->ib];
	c->tri_a = h->ta;
	c->tri_b = h->tb;
	mat3_apply(c->normal, f->ra, n);
	c->dist = h->dist;
	c->depth = ea + eb - (double)h->dist;
}

#if MRDEM_SIMD_X86
/* One group of merge_hits_peel over the nleft hits left, as columns x, y,
 * z (midpoints), d (distances), key and place, with AVX-512: the seed is
 * the one at seed; the hits its test takes leave the columns (the rest
 * move up, in order), and the member of least (distance, key) is
 * returned. The test is the scan's: midpoints where they settle it
 * (mid_near's differences, in its order), else world points against the
 * seed's, xs. *left: the hits left; *least: the place of the least key
 * among them. */
MRDEM_TARGET_AVX512 static uint32_t peel_group_avx512(
	const struct mrdem_hit_frame *f, const struct mrdem_tri_hit *h, double *x, double *y,
	double *z, double *d, uint64_t *key, uint32_t *place, size_t nleft, size_t seed,
	const double c[3], const double xs[3], double in2, double out2, double r2, size_t *left,
	size_t *least)
{
	const __m512d cx = _mm512_set1_pd(c[0]), cy = _mm512_set1_pd(c[1]),
		      cz = _mm512_set1_pd(c[2]);
	const __m512d vin2 = _mm512_set1_pd(in2), vout2 = _mm512_set1_pd(out2);
	uint32_t best = place[seed];
	double bd = d[seed];
	uint64_t bk = key[seed];
	__m512d vbd = _mm512_set1_pd(bd);
	__m512i vbk = _mm512_set1_epi64((long long)bk);
	__m512i vmin = _mm512_set1_epi64(-1), vat = _mm512_setzero_si512(); /* UINT64_MAX */
	const __m512i iota = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
	size_t w = 0;
	for (size_t j = 0; j < nleft; j += 8) {
		__mmask8 live = nleft - j >= 8 ? 0xff : (__mmask8)((1u << (nleft - j)) - 1);
		if (seed >= j && seed < j + 8)
			live &= (__mmask8)~(1u << (seed - j));
		__m512d X = _mm512_maskz_loadu_pd(live, x + j), Y = _mm512_maskz_loadu_pd(live, y + j);
		__m512d Z = _mm512_maskz_loadu_pd(live, z + j);
		__m512d dx = _mm512_sub_pd(X, cx), dy = _mm512_sub_pd(Y, cy), dz = _mm512_sub_pd(Z, cz);
		__m512d d2 = _mm512_add_pd(
			_mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy)),
			_mm512_mul_pd(dz, dz));
		__mmask8 take = _mm512_mask_cmp_pd_mask(live, d2, vin2, _CMP_LT_OQ);
		__mmask8 band = _mm512_mask_cmp_pd_mask(live, d2, vout2, _CMP_NGT_UQ) & ~take;
		for (unsigned q = band; q; q &= q - 1) {
			int l = __builtin_ctz(q);
			double xi[3], dw[3], normal[3], ea, eb;
			hit_point(f, &h[place[j + (size_t)l]], xi, normal, &ea, &eb);
			vec3_sub(dw, xi, xs);
			if (vec3_norm2(dw) < r2)
				take |= (__mmask8)(1u << l);
		}
		__m512d D = _mm512_maskz_loadu_pd(live, d + j);
		__m512i K = _mm512_maskz_loadu_epi64(live, key + j);
		__mmask8 deeper = _mm512_mask_cmp_pd_mask(take, D, vbd, _CMP_LT_OQ) |
				  (_mm512_mask_cmp_pd_mask(take, D, vbd, _CMP_EQ_OQ) &
				   _mm512_cmplt_epu64_mask(K, vbk));
		if (deeper) {
			/* lanes' own bests, reduced below in the same order */
			for (unsigned q = deeper; q; q &= q - 1) {
				int l = __builtin_ctz(q);
				double dl = d[j + (size_t)l];
				uint64_t kl = key[j + (size_t)l];
				if (dl < bd || (dl == bd && kl < bk))
					bd = dl, bk = kl, best = place[j + (size_t)l];
			}
			vbd = _mm512_set1_pd(bd);
			vbk = _mm512_set1_epi64((long long)bk);
		}
		__mmask8 stay = live & (__mmask8)~take;
		/* compress in registers, then a masked store: a compressing
		 * store to memory is microcoded and far slower on some cores */
		int kept = __builtin_popcount(stay);
		__mmask8 first = (__mmask8)((1u << kept) - 1);
		__m512i Kc = _mm512_maskz_compress_epi64(stay, K);
		_mm512_mask_storeu_pd(x + w, first, _mm512_maskz_compress_pd(stay, X));
		_mm512_mask_storeu_pd(y + w, first, _mm512_maskz_compress_pd(stay, Y));
		_mm512_mask_storeu_pd(z + w, first, _mm512_maskz_compress_pd(stay, Z));
		_mm512_mask_storeu_pd(d + w, first, _mm512_maskz_compress_pd(stay, D));
		_mm512_mask_storeu_epi64(key + w, first, Kc);
		__m256i P = _mm256_maskz_loadu_epi32(live, place + j);
		_mm256_mask_storeu_epi32(place + w, first, _mm256_maskz_compress_epi32(stay, P));
		/* per lane the least key it has seen and where it now sits */
		__mmask8 less = _mm512_mask_cmplt_epu64_mask(first, Kc, vmin);
		vmin = _mm512_mask_mov_epi64(vmin, less, Kc);
		vat = _mm512_mask_mov_epi64(vat, less,
					    _mm512_add_epi64(iota, _mm512_set1_epi64((long long)w)));
		w += (size_t)kept;
	}
	*left = w;
	uint64_t next = _mm512_reduce_min_epu64(vmin);
	__mmask8 lane = _mm512_cmpeq_epu64_mask(vmin, _mm512_set1_epi64((long long)next));
	uint64_t at[8];
	_mm512_storeu_si512(at, vat);
	*least = w ? (size_t)at[__builtin_ctz(lane)] : 0;
	return best;
}

/* merge_hits_peel's columns of the n hits h, 8 at a time: midpoints x, y,
 * z (the scan's, 0.5 (a + b) in double), distances d, keys (ta, tb) and
 * places; the largest point coordinate (NaN ignored, as the scan does)
 * and the place of the least key are returned. Keys are below
 * UINT64_MAX (triangle indices below 2^32 - 1). The hits whose two points
 * coincide are marked in odd, a byte per block of 8, for the caller. */
MRDEM_TARGET_AVX512 static size_t peel_columns_avx512(const struct mrdem_tri_hit *h, size_t n,
						      double *x, double *y, double *z,
						      double *d, uint64_t *key, uint32_t *place,
						      unsigned char *odd, float *big)
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
	double *col[3] = {x, y, z};
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
		odd[j / 8] = same;
		__m256 dist = _mm256_mmask_i32gather_ps(_mm256_setzero_ps(), live, at, hb + od, 4);
		_mm512_mask_storeu_pd(d + j, live, _mm512_cvtps_pd(dist));
		__m256i ta = _mm256_mmask_i32gather_epi32(_mm256_setzero_si256(), live, at,
							  (const int *)hb, 4);
		__m256i tb = _mm256_mmask_i32gather_epi32(_mm256_setzero_si256(), live, at,
							  (const int *)hb + 1, 4);
		__m512i k = _mm512_or_si512(_mm512_slli_epi64(_mm512_cvtepu32_epi64(ta), 32),
					    _mm512_cvtepu32_epi64(tb));
		_mm512_mask_storeu_epi64(key + j, live, k);
		__m256i p = _mm256_add_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
					     _mm256_set1_epi32((int)j));
		_mm256_mask_storeu_epi32(place + j, live, p);
		__mmask8 less = _mm512_mask_cmplt_epu64_mask(live, k, vmin);
		vmin = _mm512_mask_mov_epi64(vmin, less, k);
		vat = _mm512_mask_mov_epi64(vat, less,
					    _mm512_add_epi64(iota, _mm512_set1_epi64((long long)j)));
	}
	float lanes[8];
	_mm256_storeu_ps(lanes, vbig);
	float b = 0;
	for (int l = 0; l < 8; l++)
		b = lanes[l] > b ? lanes[l] : b;
	*big = b;
	uint64_t least = _mm512_reduce_min_epu64(vmin), where[8];
	_mm512_storeu_si512(where, vat);
	return (size_t)where[__builtin_ctz(_mm512_cmpeq_epu64_mask(vmin,
								    _mm512_set1_epi64((long long)least)))];
}

/* merge_hits_scan's groups without sorting the hits first, for pairs of
 * few groups: the scan makes a hit the seed of a new group when no earlier
 * seed takes it, so its first seed is the hit of least (ta, tb), every hit
 * that seed takes is in group 0 (the lowest), and of the rest the least
 * is the next seed, which no earlier seed takes and which precedes every
 * hit still left. So group after group, in the scan's order: the least
 * key left seeds it, one pass over the hits left takes its members by the
 * scan's own test against that seed (peel_group_avx512), and the member of
 * least (distance, key) becomes its contact, as the scan keeps it. A pass
 * costs a few cycles per hit left, the sort and the scan some tens per
 * hit; so the passes stop before they have looked at 8 times as many hits
 * as there are (the groups are many), and the hits left, moved to the
 * front of hits (hits->n: how many), go to the sort and the scan, whose
 * groups follow these (every hit left comes after every seed here, and
 * no seed here takes it). *big: the largest
 * point coordinate of all the hits, for the scan's band. Halos the
 * particles', radius > 0 and finite, as merge_hits_scan; room for the
 * hits reserved in m. */
static void merge_hits_peel(const struct mrdem_hit_frame *f, struct mrdem_tri_hits *hits,
			    struct mrdem_merge_grid *m, double radius, float *big,
			    struct mrdem_contacts *out)
{
	size_t n = hits->n, cap = m->cap;
	const struct mrdem_tri_hit *h = hits->h;
	double *mx = m->mid, *my = m->mid + cap, *mz = m->mid + 2 * cap, *md = m->dist;
	float b;
	size_t least = peel_columns_avx512(h, n, mx, my, mz, md, m->key, m->left, m->odd, &b);
	for (size_t j = 0; j < n; j += 8)
		for (unsigned q = m->odd[j / 8]; q; q &= q - 1) {
			/* coincident points: the scan takes their world point,
			 * and where that is not finite no group (a NaN midpoint) */
			size_t i = j + (size_t)__builtin_ctz(q);
			double xi[3], normal[3], ea, eb;
			hit_point(f, &h[i], xi, normal, &ea, &eb);
			if (!(isfinite(xi[0]) && isfinite(xi[1]) && isfinite(xi[2])))
				mx[i] = NAN;
		}
	*big = b;
	double band = merge_band(f, radius, b);
	double rin = radius - band, rout = radius + band, r2 = radius * radius;
	double in2 = rin > 0 ? rin * rin : -1, out2 = rout * rout;
	size_t nleft = n, lanes = 0;
	while (nleft) {
		lanes += nleft;
		uint32_t s = m->left[least];
		double xs[3], normal[3], ea, eb;
		hit_point(f, &h[s], xs, normal, &ea, &eb);
		/* the seed's midpoint, NaN where its world point is not finite
		 * (then every hit is compared by world points) */
		int finite = isfinite(xs[0]) && isfinite(xs[1]) && isfinite(xs[2]);
		double c[3] = {finite ? mx[least] : NAN, my[least], mz[least]};
		size_t left;
		uint32_t best = peel_group_avx512(f, h, mx, my, mz, md, m->key, m->left, nleft, least,
						  c, xs, in2, out2, r2, &left, &least);
		hit_contact(f, &h[best], out);
		nleft = left;
		if (lanes + nleft > 8 * n)
			break;
	}
	/* the hits left to the front, for the sort and the scan: left is in
	 * ascending places, so no hit is overwritten before it is moved */
	for (size_t j = 0; j < nleft; j++)
		hits->h[j] = hits->h[m->left[j]];
	hits->n = nleft;
}
#endif

/* mrdem_hits_to_contacts' merge where its result does not depend on the
 * order of the hits: when every hit's midpoint lies certainly within the
 * merge radius of every other's (their bounding box against
 * merge_hits_scan's inner radius, with room to spare for rounding), the
 * scan puts them all in the group of its first hit, whichever that is,
 * and keeps the hit of least distance, the first in (ta, tb) order among
 * equals. That hit, found in one pass over hits in any order, is then
 * the one contact, written to out (returns 1): the sort that the scan
 * needs is not needed. On the paper's lattice every pair's hits are one
 * contact; a pole pair's 1,296 all tie on distance up to rounding. Where
 * that is not certain (hits that coincide or are not finite, tree nodes,
 * a merge radius that is not positive), nothing is written and 0
 * returned: the caller sorts and merges. */
int mrdem_hits_one_contact(const struct mrdem_hit_frame *f, const struct mrdem_tri_hits *hits,
			    double radius, struct mrdem_contacts *out)
{
	size_t n = hits->n;
	if (n < 2 || f->node_a || f->node_b || !(radius > 0 && radius < INFINITY))
		return 0;
	const struct mrdem_tri_hit *h = hits->h;
	double r2 = radius * radius;
	/* the midpoints' box in scalars (registers, not a store and load per
	 * hit) */
	double lo0 = INFINITY, lo1 = INFINITY, lo2 = INFINITY;
	double hi0 = -INFINITY, hi1 = -INFINITY, hi2 = -INFINITY;
	size_t first = 0, least = 0;
	uint64_t key_first = (uint64_t)h[0].ta << 32 | h[0].tb, key_least = key_first;
	float big = 0, dist_least = h[0].dist;
	for (size_t i0 = 0; i0 < n; i0 += 32) {
		/* blocks without an exit: the checks after each */
		int odd = 0;
		for (size_t i = i0; i < n && i < i0 + 32; i++) {
			const struct mrdem_tri_hit *q = &h[i];
			/* coincident points: the scan takes their world point
			 * (b's normal), which may not be finite; NaN: no
			 * certain group (an infinite midpoint fails the box) */
			odd |= (q->pa[0] == q->pb[0]) & (q->pa[1] == q->pb[1]) &
			       (q->pa[2] == q->pb[2]);
			odd |= isnan(q->dist);
			double x0 = 0.5 * ((double)q->pa[0] + (double)q->pb[0]);
			double x1 = 0.5 * ((double)q->pa[1] + (double)q->pb[1]);
			double x2 = 0.5 * ((double)q->pa[2] + (double)q->pb[2]);
			odd |= isnan(x0) | isnan(x1) | isnan(x2);
			lo0 = x0 < lo0 ? x0 : lo0, hi0 = x0 > hi0 ? x0 : hi0;
			lo1 = x1 < lo1 ? x1 : lo1, hi1 = x1 > hi1 ? x1 : hi1;
			lo2 = x2 < lo2 ? x2 : lo2, hi2 = x2 > hi2 ? x2 : hi2;
			for (int c = 0; c < 3; c++) {
				float u = fabsf(q->pa[c]) > fabsf(q->pb[c]) ? fabsf(q->pa[c])
									    : fabsf(q->pb[c]);
				big = u > big ? u : big;
			}
			uint64_t key = (uint64_t)q->ta << 32 | q->tb;
			if (key < key_first)
				first = i, key_first = key;
			if (q->dist < dist_least || (q->dist == dist_least && key < key_least))
				least = i, key_least = key, dist_least = q->dist;
		}
		/* every midpoint within the radius of one: a box of 2 radii */
		double e2 = (hi0 - lo0) * (hi0 - lo0) + (hi1 - lo1) * (hi1 - lo1) +
			    (hi2 - lo2) * (hi2 - lo2);
		if (odd || !(e2 < 12 * r2))
			return 0;
	}
	double lo[3] = {lo0, lo1, lo2}, hi[3] = {hi0, hi1, hi2};
	/* every midpoint within the inner radius of the first hit's, which
	 * seeds the scan's group: the farthest corner of the box, widened by
	 * far more than the rounding of the scan's differences and squares;
	 * else each midpoint, by the scan's own test (mid_near_generic) */
	double rin = radius - merge_band(f, radius, big), in2 = rin * rin, s[3], d2 = 0;
	if (!(rin > 0))
		return 0;
	for (int c = 0; c < 3; c++) {
		s[c] = 0.5 * ((double)h[first].pa[c] + (double)h[first].pb[c]);
		double far = hi[c] - s[c] > s[c] - lo[c] ? hi[c] - s[c] : s[c] - lo[c];
		d2 += far * far;
	}
	if (!(d2 * (1 + 1e-9) < in2))
		for (size_t i = 0; i < n; i++) {
			double d[3];
			for (int c = 0; c < 3; c++)
				d[c] = 0.5 * ((double)h[i].pa[c] + (double)h[i].pb[c]) - s[c];
			if (!(vec3_norm2(d) < in2))
				return 0;
		}
	/* the seed's world point must be finite, or the scan compares others
	 * by world points */
	double xi[3], normal[3], a, b;
	hit_point(f, &h[first], xi, normal, &a, &b);
	if (!(isfinite(xi[0]) && isfinite(xi[1]) && isfinite(xi[2])))
		return 0;
	hit_contact(f, &h[least], out);
	return 1;
}

/* With m, only the kept hits become contacts, the same as
 * mrdem_merge_close on all of them (merge_groups on the hits' points). */
void mrdem_hits_to_contacts(const struct mrdem_hit_frame *f, struct mrdem_tri_hits *hits,
			    struct mrdem_merge_grid *m, double radius, int simd,
			    struct mrdem_tree_search *sorter, struct mrdem_contacts *out)
{
	if (m && mrdem_hits_one_contact(f, hits, radius, out))
		return;
	/* few hits: their groups one by one without a sort, as far as that
	 * pays (merge_hits_peel); the scan merges the rest */
	float big = 0;
#if MRDEM_SIMD_X86
	if (m && hits->n >= 2 && hits->n <= MERGE_PEEL_HITS && !f->node_a && !f->node_b &&
	    radius > 0 && isfinite(radius) && mrdem_simd_resolve(simd) == MRDEM_SIMD_AVX512) {
		merge_reserve(m, hits->n);
		merge_hits_peel(f, hits, m, radius, &big, out);
	}
#endif
	if (sorter)
		mrdem_search_sort_hits(sorter, hits, 0);
	size_t n = hits->n;
	if (!m || n < 2) {
		for (size_t k = 0; k < n; k++)
			hit_contact(f, &hits->h[k], out);
		return;
	}
	merge_reserve(m, n);
	if (!f->node_a && !f->node_b && radius > 0 && isfinite(radius)) {
		size_t kept = merge_hits_scan(f, hits, m, radius, simd, big);
		if (kept != SIZE_MAX) {
			for (size_t g = 0; g < kept; g++)
				hit_contact(f, &hits->h[m->keep[g]], out);
			return;
		}
	}
	size_t k = 0;
#if MRDEM_SIMD_X86
	if (!f->node_a && !f->node_b && mrdem_simd_resolve(simd) == MRDEM_SIMD_AVX512) {
		/* hit_point's halos without tree nodes */
		double ea = f->p->eps[f->ia] + 0, eb = f->p->eps[f->ib] + 0;
		for (; k + 8 <= n; k += 8) {
			unsigned rest = merge_points8(f, &hits->h[k], ea, eb, &m->x[3 * k]);
			for (; rest; rest &= rest - 1) {
				size_t i = k + (size_t)__builtin_ctz(rest);
				double normal[3], a, b;
				hit_point(f, &hits->h[i], &m->x[3 * i], normal, &a, &b);
			}
		}
	}
#endif
	for (; k < n; k++) {
		double normal[3], ea, eb;
		hit_point(f, &hits->h[k], &m->x[3 * k], normal, &ea, &eb);
	}
	for (k = 0; k < n; k++)
		m->dist[k] = hits->h[k].dist;
	size_t kept = merge_groups(m, n, radius);
	for (size_t g = 0; g < kept; g++)
		hit_contact(f, &hits->h[m->keep[g]], out);
}
