/* Iterative triangle-triangle distance (paper Sec. 3, eq. 3 and 4) over
 * the blocks of tri_block.h, branch-free with a fixed iteration count.
 *
 * Unknowns: barycentric coordinates (s1, t1) of the point on triangle a,
 * p = A0 + s1 E0 + t1 E1, and (s2, t2) on b, q = B0 + s2 F0 + t2 F1, with
 * s, t >= 0 and s + t <= 1 (the paper's a, b). The quadratic part of
 * eq. 3 is 1/2 |p - q|^2.
 *
 * One iteration sweeps the unknowns one at a time (Gauss-Seidel order):
 * each step is the diagonal Newton step of eq. 4 on the quadratic term,
 * t = -g_k / (H_kk + alpha_reg), followed by the penalty step, which for
 * the penalty of eq. 3 with alpha_iterative -> infinity is the clamp of
 * the coordinate to its admissible interval. Two deliberate choices,
 * explained in docs/narrow-phase.md: the Gauss-Seidel order, because the
 * simultaneous (Jacobi) update of all four unknowns moves p and q towards
 * each other at once and oscillates without converging; and a third
 * direction per triangle along its third edge (s += t, t -= t), without
 * which the coordinates jam on the edge s + t = 1.
 *
 * Decision (Alg. 4, line 11), with d = p - q of the final iterate. As p
 * and q are admissible, |d| bounds the distance from above; the spread
 * of the two triangles' vertices along d bounds it from below (d is a
 * separating axis when the iterate is near the minimum). Then
 *   SEPARATE  if the lower bound exceeds the cut-off;
 *   CONTACT   if |d| <= cut and the two bounds are within
 *             C * MRDEM_PENALTY_TOLERANCE * cut (C the threshold);
 *   UNDECIDED otherwise: the hybrid recomputes these by comparison.
 * This replaces the paper's test on the change of the last iterate, which
 * accepts an iterate that merely stagnates: here neither decision can be
 * wrong beyond float rounding, and a contact's distance is certified to
 * the tolerance (docs/narrow-phase.md). */
/* The lane loops are if-converted into selects, which GCC refuses under
 * -ftrapping-math for operations of lanes that will be discarded (no
 * kernel enables FP traps); fused multiply-adds shorten the step chain
 * (-std=c11 turns contraction off). */
#pragma GCC optimize("no-trapping-math", "fp-contract=fast")
#include <math.h>

#include "common/util/simd.h"
#include "common/narrow/tri/tri_block.h"
#include "common/narrow/tri/tri_distance.h"
#include "common/narrow/tri/v3f.h"

/* alpha_reg of eq. 4: keeps the step finite on a degenerate edge. */
#define PENALTY_REG 1e-30f

/* A lane's state. The sweep works on the gradient g of the quadratic
 * term, g = (d.e0, d.e1, -d.f0, -d.f1), updated through the columns of
 * the Hessian (Gram matrix of the edges) after every step, instead of
 * recomputing dot products with d: fewer operations, and a dependency
 * chain of one multiply-add per step. */
struct lane {
	float s1, t1, s2, t2;     /* barycentric coordinates */
	float u1, u2;             /* 1 - s - t: the third coordinates */
	float g0, g1, g2, g3;     /* gradient w.r.t. s1, t1, s2, t2 */
	float h00, h01, h11;      /* e0.e0, e0.e1, e1.e1 */
	float k00, k01, k11;      /* f0.f0, f0.f1, f1.f1 */
	float m00, m01, m10, m11; /* e0.f0, e0.f1, e1.f0, e1.f1 */
	float i0, i1, i2, i3, i4, i5; /* 1 / (curvature + alpha_reg) per direction */
};

/* One sweep of eq. 4: quadratic step then penalty step (clamp), for the
 * six directions in turn. */
MRDEM_INLINE struct lane penalty_sweep(struct lane L)
{
	float t;
	/* s1: along e0 */
	t = clampf_(-L.g0 * L.i0, -L.s1, L.u1);
	L.s1 += t, L.u1 -= t;
	L.g0 += t * L.h00, L.g1 += t * L.h01, L.g2 -= t * L.m00, L.g3 -= t * L.m01;
	/* t1: along e1 */
	t = clampf_(-L.g1 * L.i1, -L.t1, L.u1);
	L.t1 += t, L.u1 -= t;
	L.g0 += t * L.h01, L.g1 += t * L.h11, L.g2 -= t * L.m10, L.g3 -= t * L.m11;
	/* s1 up, t1 down: along e0 - e1, a's third edge */
	t = clampf_(-(L.g0 - L.g1) * L.i2, -L.s1, L.t1);
	L.s1 += t, L.t1 -= t;
	L.g0 += t * (L.h00 - L.h01), L.g1 += t * (L.h01 - L.h11);
	L.g2 -= t * (L.m00 - L.m10), L.g3 -= t * (L.m01 - L.m11);
	/* s2: along f0 (d moves by -t f0) */
	t = clampf_(-L.g2 * L.i3, -L.s2, L.u2);
	L.s2 += t, L.u2 -= t;
	L.g0 -= t * L.m00, L.g1 -= t * L.m10, L.g2 += t * L.k00, L.g3 += t * L.k01;
	/* t2: along f1 */
	t = clampf_(-L.g3 * L.i4, -L.t2, L.u2);
	L.t2 += t, L.u2 -= t;
	L.g0 -= t * L.m01, L.g1 -= t * L.m11, L.g2 += t * L.k01, L.g3 += t * L.k11;
	/* s2 up, t2 down: along f0 - f1 */
	t = clampf_(-(L.g2 - L.g3) * L.i5, -L.s2, L.t2);
	L.s2 += t, L.t2 -= t;
	L.g0 -= t * (L.m00 - L.m01), L.g1 -= t * (L.m10 - L.m11);
	L.g2 += t * (L.k00 - L.k01), L.g3 += t * (L.k01 - L.k11);
	return L;
}

MRDEM_INLINE v3f load_a(const struct mrdem_tri_block *k, int v, int l)
{
	return v3f_make(k->a[3 * v][l], k->a[3 * v + 1][l], k->a[3 * v + 2][l]);
}

MRDEM_INLINE v3f load_b(const struct mrdem_tri_block *k, int v, int l)
{
	return v3f_make(k->b[3 * v][l], k->b[3 * v + 1][l], k->b[3 * v + 2][l]);
}

/* Hessian, step sizes and the start at the centroids. */
MRDEM_INLINE struct lane lane_setup(const struct mrdem_tri_block *k, int l)
{
	const float third = 1.0f / 3.0f;
	v3f a0 = load_a(k, 0, l), b0 = load_b(k, 0, l);
	/* everything relative to b0, which keeps float accurate */
	v3f r = v3f_sub(a0, b0);
	v3f e0 = v3f_sub(load_a(k, 1, l), a0), e1 = v3f_sub(load_a(k, 2, l), a0);
	v3f f0 = v3f_sub(load_b(k, 1, l), b0), f1 = v3f_sub(load_b(k, 2, l), b0);
	v3f e2 = v3f_sub(e0, e1), f2 = v3f_sub(f0, f1);
	struct lane L;
	L.h00 = v3f_dot(e0, e0), L.h01 = v3f_dot(e0, e1), L.h11 = v3f_dot(e1, e1);
	L.k00 = v3f_dot(f0, f0), L.k01 = v3f_dot(f0, f1), L.k11 = v3f_dot(f1, f1);
	L.m00 = v3f_dot(e0, f0), L.m01 = v3f_dot(e0, f1);
	L.m10 = v3f_dot(e1, f0), L.m11 = v3f_dot(e1, f1);
	L.i0 = 1.0f / (L.h00 + PENALTY_REG);
	L.i1 = 1.0f / (L.h11 + PENALTY_REG);
	L.i2 = 1.0f / (v3f_dot(e2, e2) + PENALTY_REG);
	L.i3 = 1.0f / (L.k00 + PENALTY_REG);
	L.i4 = 1.0f / (L.k11 + PENALTY_REG);
	L.i5 = 1.0f / (v3f_dot(f2, f2) + PENALTY_REG);
	L.s1 = L.t1 = L.s2 = L.t2 = L.u1 = L.u2 = third;
	v3f d = v3f_sub(v3f_axpy(r, third, v3f_add(e0, e1)), v3f_scale(v3f_add(f0, f1), third));
	L.g0 = v3f_dot(d, e0), L.g1 = v3f_dot(d, e1);
	L.g2 = -v3f_dot(d, f0), L.g3 = -v3f_dot(d, f1);
	return L;
}

/* The decision of Alg. 4 and the iterate's points. The edges are loaded
 * again rather than kept live through the sweeps (registers are short). */
MRDEM_INLINE void lane_finish(struct mrdem_tri_block *k, int l, struct lane L, float threshold)
{
	v3f a0 = load_a(k, 0, l), b0 = load_b(k, 0, l);
	v3f r = v3f_sub(a0, b0);
	v3f e0 = v3f_sub(load_a(k, 1, l), a0), e1 = v3f_sub(load_a(k, 2, l), a0);
	v3f f0 = v3f_sub(load_b(k, 1, l), b0), f1 = v3f_sub(load_b(k, 2, l), b0);
	float cut = k->cut[l];
	v3f pa = v3f_axpy(v3f_axpy(r, L.s1, e0), L.t1, e1); /* p - b0 */
	v3f pb = v3f_axpy(v3f_scale(f0, L.s2), L.t2, f1);   /* q - b0 */
	v3f d = v3f_sub(pa, pb);
	float dd = v3f_dot(d, d);
	/* separating axis d: a's vertices project at least minA, b's at most
	 * maxB (offsets from b0); gap / |d| bounds the distance from below,
	 * |d| from above */
	float minA = minf_(v3f_dot(d, r), minf_(v3f_dot(d, v3f_add(r, e0)), v3f_dot(d, v3f_add(r, e1))));
	float maxB = maxf_(0.0f, maxf_(v3f_dot(d, f0), v3f_dot(d, f1)));
	float gap = minA - maxB;
	int separate = (gap > 0.0f) & (gap * gap > cut * cut * dd);
	/* converged: |d| - max(gap, 0) / |d| <= tol, squared */
	float tol = threshold * MRDEM_PENALTY_TOLERANCE * cut;
	float slack = dd - maxf_(gap, 0.0f);
	int converged = slack * slack <= tol * tol * dd;
	int contact = (dd <= cut * cut) & converged;
	/* SEPARATE 0, CONTACT 1, UNDECIDED 2 */
	k->status[l] = (1 - separate) * (2 - contact);
	k->d2[l] = dd;
	k->pa[0][l] = pa.x + b0.x, k->pa[1][l] = pa.y + b0.y, k->pa[2][l] = pa.z + b0.z;
	k->pb[0][l] = pb.x + b0.x, k->pb[1][l] = pb.y + b0.y, k->pb[2][l] = pb.z + b0.z;
}

/* Lanes of a group run two at a time, lane l with lane l + HALF, their
 * sweeps interleaved: each sweep is a chain of dependent steps, and two
 * independent chains keep the vector units busy. `iterations` is a
 * compile-time constant in every instantiation (penalty_fused): a run-time
 * loop count inside the lane loop would keep GCC from vectorising it. */
#define HALF (MRDEM_TRI_LANES / 2)

MRDEM_INLINE void penalty_fused(struct mrdem_tri_block *restrict k, int groups,
				const int iterations, float threshold)
{
	for (int g = 0; g < groups; g++) {
#pragma omp simd
		for (int l = g * MRDEM_TRI_LANES; l < g * MRDEM_TRI_LANES + HALF; l++) {
			struct lane L0 = lane_setup(k, l), L1 = lane_setup(k, l + HALF);
#pragma GCC unroll 8
			for (int it = 0; it < iterations; it++) {
				L0 = penalty_sweep(L0);
				L1 = penalty_sweep(L1);
			}
			lane_finish(k, l, L0, threshold);
			lane_finish(k, l + HALF, L1, threshold);
		}
	}
}

/* More sweeps than penalty_fused has instantiations: the lane states go
 * through memory between single sweeps. Slower, for unusual settings. */
MRDEM_INLINE void penalty_staged(struct mrdem_tri_block *restrict k, int groups, int iterations,
				 float threshold, struct lane *restrict st)
{
	for (int g = 0; g < groups; g++) {
		int base = g * MRDEM_TRI_LANES;
#pragma omp simd
		for (int l = 0; l < MRDEM_TRI_LANES; l++)
			st[l] = lane_setup(k, base + l);
		for (int it = 0; it < iterations; it++) {
#pragma omp simd
			for (int l = 0; l < MRDEM_TRI_LANES; l++)
				st[l] = penalty_sweep(st[l]);
		}
#pragma omp simd
		for (int l = 0; l < MRDEM_TRI_LANES; l++)
			lane_finish(k, base + l, st[l], threshold);
	}
}

#define PENALTY_FUSED_MAX 8

#define PENALTY_LEVEL(level, attr)                                                           \
	attr static void penalty_##level(struct mrdem_tri_block *k, int groups, int iterations,  \
					 float c)                                            \
	{                                                                                    \
		struct lane st[MRDEM_TRI_LANES];                                             \
		switch (iterations) {                                                        \
		case 1: penalty_fused(k, groups, 1, c); break;                               \
		case 2: penalty_fused(k, groups, 2, c); break;                               \
		case 3: penalty_fused(k, groups, 3, c); break;                               \
		case 4: penalty_fused(k, groups, 4, c); break;                               \
		case 5: penalty_fused(k, groups, 5, c); break;                               \
		case 6: penalty_fused(k, groups, 6, c); break;                               \
		case 7: penalty_fused(k, groups, 7, c); break;                               \
		case 8: penalty_fused(k, groups, 8, c); break;                               \
		default: penalty_staged(k, groups, iterations, c, st); break;                \
		}                                                                            \
	}

PENALTY_LEVEL(generic, )
#if MRDEM_SIMD_X86
PENALTY_LEVEL(avx2, MRDEM_TARGET_AVX2)
PENALTY_LEVEL(avx512, MRDEM_TARGET_AVX512)
#endif

void mrdem_tri_block_penalty(struct mrdem_tri_block *k, int iterations, float threshold, int simd)
{
	if (k->n <= 0)
		return;
	int groups = mrdem_tri_block_pad(k);
	switch (mrdem_simd_resolve(simd)) {
#if MRDEM_SIMD_X86
	case MRDEM_SIMD_AVX512:
		penalty_avx512(k, groups, iterations, threshold);
		break;
	case MRDEM_SIMD_AVX2:
		penalty_avx2(k, groups, iterations, threshold);
		break;
#endif
	default:
		penalty_generic(k, groups, iterations, threshold);
		break;
	}
}

int mrdem_tri_penalty(const float a[9], const float b[9], float cut, int iterations,
		      float threshold, float pa[3], float pb[3], float *dist, int simd)
{
	struct mrdem_tri_block k;
	k.n = 1;
	mrdem_tri_block_set(&k, 0, a, b, cut);
	mrdem_tri_block_penalty(&k, iterations, threshold, simd);
	for (int c = 0; c < 3; c++) {
		if (pa)
			pa[c] = k.pa[c][0];
		if (pb)
			pb[c] = k.pb[c][0];
	}
	if (dist)
		*dist = sqrtf(k.d2[0]);
	return k.status[0];
}
