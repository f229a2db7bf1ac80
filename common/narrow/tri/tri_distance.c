/* Comparison-based triangle-triangle distance in single precision,
 * branch-free over the lanes of a block (paper Sec. 3): 6 vertex-face
 * tests (only where the vertex projects inside the face: the edges carry
 * the rest), 6 edge-face crossing tests (distance 0 for intersecting
 * triangles) and 9 edge-edge tests; the minimum wins, with its points.
 *
 * Accuracy: each triangle's plane normal is formed in double (a float
 * cross product of a sliver's nearly parallel edges has no direction
 * left), and edge-edge parameters come from cross products, which keep
 * their relative accuracy for near-parallel edges where the dot-product
 * formula cancels. The error is then a few float ulps of the coordinates
 * (docs/narrow-phase.md gives the tested bound). */
/* The lane loop is if-converted into selects; with -ftrapping-math GCC
 * refuses to execute divisions and ordered compares of lanes that will
 * be discarded, and would not vectorise at all. No kernel enables FP
 * traps, so the assumption is harmless here. */
#pragma GCC optimize("no-trapping-math", "fp-contract=fast")

#include "common/narrow/tri/tri_distance.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "common/util/simd.h"
#include "common/narrow/tri/tri_block.h"
#include "common/narrow/tri/v3f.h"

/* The minimum so far and its points. */
struct best {
	float dd;
	v3f p, q;
};

MRDEM_INLINE struct best keep(struct best b, float dd, v3f p, v3f q)
{
	int m = dd < b.dd;
	b.dd = m ? dd : b.dd;
	b.p = v3f_select(m, p, b.p);
	b.q = v3f_select(m, q, b.q);
	return b;
}

/* A triangle's plane: normal n, 1/|n|^2 (0 when degenerate) and the
 * in-plane inward edge normals m_k = n x e_k; point x projects inside iff
 * m_k . (x - t_k) >= 0 for the three edges. */
struct face {
	v3f n, m0, m1, m2;
	float inv_n2;
	int ok;   /* not degenerate */
	float c1; /* m1 . e0, to test against t1 with offsets from t0 */
};

MRDEM_INLINE struct face face_make(v3f t0, v3f t1, v3f t2, v3f e0, v3f e1, v3f e2)
{
	struct face fc, *f = &fc;
	/* Float differences and their products are exact in double, so n is
	 * correct to one double rounding even for a sliver. */
	double ux = (double)t1.x - t0.x, uy = (double)t1.y - t0.y, uz = (double)t1.z - t0.z;
	double vx = (double)t2.x - t0.x, vy = (double)t2.y - t0.y, vz = (double)t2.z - t0.z;
	f->n = v3f_make((float)(uy * vz - uz * vy), (float)(uz * vx - ux * vz),
			(float)(ux * vy - uy * vx));
	float n2 = v3f_dot(f->n, f->n);
	/* Divisions are never guarded by a select: GCC would sink them into
	 * the guarded branch and, as they may trap, not vectorise the loop. */
	f->ok = n2 > 1e-36f;
	f->inv_n2 = 1.0f / maxf_(n2, 1e-36f);
	f->m0 = v3f_cross(f->n, e0);
	f->m1 = v3f_cross(f->n, e1);
	f->m2 = v3f_cross(f->n, e2);
	f->c1 = v3f_dot(f->m1, e0);
	return fc;
}

/* Signed plane value s = n . r and the three edge values of point r
 * (given relative to the face's t0). */
struct vside {
	float s, w0, w1, w2;
};

MRDEM_INLINE struct vside vertex_side(struct face fc, v3f r)
{
	const struct face *f = &fc;
	struct vside v;
	v.s = v3f_dot(f->n, r);
	v.w0 = v3f_dot(f->m0, r);
	v.w1 = v3f_dot(f->m1, r) - f->c1;
	v.w2 = v3f_dot(f->m2, r); /* m2 . (r + e2) with m2 . e2 = 0 */
	return v;
}

/* Vertex x (with side data v, r = x - t0 of face f) against the face's
 * interior. on_a: x belongs to triangle a (so it is the first point). */
MRDEM_INLINE struct best vertex_face(struct best b, struct face fc, v3f x, struct vside v, int on_a)
{
	const struct face *f = &fc;
	int in = (v.w0 >= 0.0f) & (v.w1 >= 0.0f) & (v.w2 >= 0.0f) & f->ok;
	float k = v.s * f->inv_n2;
	v3f q = v3f_axpy(x, -k, f->n);
	float dd = v.s * k;
	dd = in ? dd : INFINITY;
	return on_a ? keep(b, dd, x, q) : keep(b, dd, q, x);
}

/* Edge x0 -> x0 + e crossing face f (v0, v1: side data of its ends). */
MRDEM_INLINE struct best edge_face(struct best b, struct face fc, v3f x0, v3f e, struct vside v0,
				   struct vside v1)
{
	const struct face *f = &fc;
	int cross = ((v0.s <= 0.0f) & (v1.s >= 0.0f)) | ((v0.s >= 0.0f) & (v1.s <= 0.0f));
	cross &= v0.s != v1.s;
	float lam = v0.s / (cross ? v0.s - v1.s : 1.0f); /* garbage unless cross */
	float w0 = v0.w0 + lam * (v1.w0 - v0.w0);
	float w1 = v0.w1 + lam * (v1.w1 - v0.w1);
	float w2 = v0.w2 + lam * (v1.w2 - v0.w2);
	int in = cross & (w0 >= 0.0f) & (w1 >= 0.0f) & (w2 >= 0.0f) & f->ok;
	v3f x = v3f_axpy(x0, lam, e);
	return keep(b, in ? 0.0f : INFINITY, x, x);
}

/* Segments p0 + s d1 and q0 + t d2, s, t in [0, 1] (Ericson 5.1.9, with
 * s from cross products and no branches). inva = 1/|d1|^2 or 0. */
MRDEM_INLINE struct best edge_edge(struct best bst, v3f p0, v3f d1, float inva, v3f q0, v3f d2,
				   float inve)
{
	v3f r = v3f_sub(p0, q0);
	float b = v3f_dot(d1, d2), c = v3f_dot(d1, r), f = v3f_dot(d2, r);
	v3f n = v3f_cross(d1, d2), m = v3f_cross(d2, r);
	float den = v3f_dot(n, n);
	int skew = den > 0.0f;
	/* parallel: n = 0 makes the numerator 0 as well, so s = 0 */
	float s = clampf_(v3f_dot(n, m) / maxf_(den, FLT_MIN), 0.0f, 1.0f);
	float t = (b * s + f) * inve;
	float tc = clampf_(t, 0.0f, 1.0f);
	float s2 = clampf_((b * tc - c) * inva, 0.0f, 1.0f);
	s = (skew & (t == tc)) ? s : s2;
	v3f p = v3f_axpy(p0, s, d1), q = v3f_axpy(q0, tc, d2);
	v3f d = v3f_sub(p, q);
	return keep(bst, v3f_dot(d, d), p, q);
}

/* 1/x, finite for x = 0: a zero-length edge has b = c = f = 0, so the
 * parameters it scales stay 0. */
MRDEM_INLINE float inv_edge(float x)
{
	return 1.0f / maxf_(x, FLT_MIN);
}

MRDEM_INLINE void compare_body(struct mrdem_tri_block *restrict k, int groups)
{
	for (int g = 0; g < groups; g++) {
#pragma omp simd
		for (int l = g * MRDEM_TRI_LANES; l < (g + 1) * MRDEM_TRI_LANES; l++) {
			v3f a0 = v3f_make(k->a[0][l], k->a[1][l], k->a[2][l]);
			v3f a1 = v3f_make(k->a[3][l], k->a[4][l], k->a[5][l]);
			v3f a2 = v3f_make(k->a[6][l], k->a[7][l], k->a[8][l]);
			v3f b0 = v3f_make(k->b[0][l], k->b[1][l], k->b[2][l]);
			v3f b1 = v3f_make(k->b[3][l], k->b[4][l], k->b[5][l]);
			v3f b2 = v3f_make(k->b[6][l], k->b[7][l], k->b[8][l]);
			/* edges e_k = t_{k+1} - t_k */
			v3f ea0 = v3f_sub(a1, a0), ea1 = v3f_sub(a2, a1), ea2 = v3f_sub(a0, a2);
			v3f eb0 = v3f_sub(b1, b0), eb1 = v3f_sub(b2, b1), eb2 = v3f_sub(b0, b2);
			struct face fa = face_make(a0, a1, a2, ea0, ea1, ea2);
			struct face fb = face_make(b0, b1, b2, eb0, eb1, eb2);
			struct best bst = {INFINITY, a0, b0};

			/* vertices of a against face b, then b's edges through a */
			struct vside sa0 = vertex_side(fb, v3f_sub(a0, b0));
			struct vside sa1 = vertex_side(fb, v3f_sub(a1, b0));
			struct vside sa2 = vertex_side(fb, v3f_sub(a2, b0));
			struct vside sb0 = vertex_side(fa, v3f_sub(b0, a0));
			struct vside sb1 = vertex_side(fa, v3f_sub(b1, a0));
			struct vside sb2 = vertex_side(fa, v3f_sub(b2, a0));
			bst = vertex_face(bst, fb, a0, sa0, 1);
			bst = vertex_face(bst, fb, a1, sa1, 1);
			bst = vertex_face(bst, fb, a2, sa2, 1);
			bst = vertex_face(bst, fa, b0, sb0, 0);
			bst = vertex_face(bst, fa, b1, sb1, 0);
			bst = vertex_face(bst, fa, b2, sb2, 0);

			/* crossings: distance 0 (the side data dies here, before the
			 * edge-edge tests need the registers) */
			bst = edge_face(bst, fb, a0, ea0, sa0, sa1);
			bst = edge_face(bst, fb, a1, ea1, sa1, sa2);
			bst = edge_face(bst, fb, a2, ea2, sa2, sa0);
			bst = edge_face(bst, fa, b0, eb0, sb0, sb1);
			bst = edge_face(bst, fa, b1, eb1, sb1, sb2);
			bst = edge_face(bst, fa, b2, eb2, sb2, sb0);


			float ia0 = inv_edge(v3f_dot(ea0, ea0));
			float ia1 = inv_edge(v3f_dot(ea1, ea1));
			float ia2 = inv_edge(v3f_dot(ea2, ea2));
			float ib0 = inv_edge(v3f_dot(eb0, eb0));
			float ib1 = inv_edge(v3f_dot(eb1, eb1));
			float ib2 = inv_edge(v3f_dot(eb2, eb2));
			bst = edge_edge(bst, a0, ea0, ia0, b0, eb0, ib0);
			bst = edge_edge(bst, a0, ea0, ia0, b1, eb1, ib1);
			bst = edge_edge(bst, a0, ea0, ia0, b2, eb2, ib2);
			bst = edge_edge(bst, a1, ea1, ia1, b0, eb0, ib0);
			bst = edge_edge(bst, a1, ea1, ia1, b1, eb1, ib1);
			bst = edge_edge(bst, a1, ea1, ia1, b2, eb2, ib2);
			bst = edge_edge(bst, a2, ea2, ia2, b0, eb0, ib0);
			bst = edge_edge(bst, a2, ea2, ia2, b1, eb1, ib1);
			bst = edge_edge(bst, a2, ea2, ia2, b2, eb2, ib2);

			float cut = k->cut[l];
			k->d2[l] = bst.dd;
			k->pa[0][l] = bst.p.x, k->pa[1][l] = bst.p.y, k->pa[2][l] = bst.p.z;
			k->pb[0][l] = bst.q.x, k->pb[1][l] = bst.q.y, k->pb[2][l] = bst.q.z;
			k->status[l] = bst.dd <= cut * cut; /* CONTACT 1, SEPARATE 0 */
		}
	}
}

static void compare_generic(struct mrdem_tri_block *k, int groups)
{
	compare_body(k, groups);
}

#if MRDEM_SIMD_X86
MRDEM_TARGET_AVX2 static void compare_avx2(struct mrdem_tri_block *k, int groups)
{
	compare_body(k, groups);
}

MRDEM_TARGET_AVX512 static void compare_avx512(struct mrdem_tri_block *k, int groups)
{
	compare_body(k, groups);
}
#endif

void mrdem_tri_block_compare(struct mrdem_tri_block *k, int simd)
{
	if (k->n <= 0)
		return;
	int groups = mrdem_tri_block_pad(k);
	switch (mrdem_simd_resolve(simd)) {
#if MRDEM_SIMD_X86
	case MRDEM_SIMD_AVX512:
		compare_avx512(k, groups);
		break;
	case MRDEM_SIMD_AVX2:
		compare_avx2(k, groups);
		break;
#endif
	default:
		compare_generic(k, groups);
		break;
	}
}

float mrdem_tri_distance(const float a[9], const float b[9], float pa[3], float pb[3], int simd)
{
	struct mrdem_tri_block k;
	k.n = 1;
	mrdem_tri_block_set(&k, 0, a, b, 0.0f);
	mrdem_tri_block_compare(&k, simd);
	for (int c = 0; c < 3; c++) {
		if (pa)
			pa[c] = k.pa[c][0];
		if (pb)
			pb[c] = k.pb[c][0];
	}
	return sqrtf(k.d2[0]);
}
