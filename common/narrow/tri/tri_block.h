/* Blocks of triangle pairs in structure-of-arrays layout: the unit the
 * batched narrow-phase kernels stream through the vector units (paper
 * Sec. 5.4 and Alg. 4). A caller gathers up to MRDEM_TRI_BLOCK pairs,
 * each with its contact cut-off (the sum of the two halos), runs a kernel
 * and reads one result per pair.
 *
 * Kernels process whole groups of MRDEM_TRI_LANES lanes and pad the last
 * group themselves, so every pair runs through the same vector code
 * whatever its position: a pair's result never depends on which block or
 * lane it landed in (the flat search and a tree traversal agree bit for
 * bit). Coordinates should be local to the particles (paper Sec. 2), so
 * that single precision resolves the halo. */
#ifndef MRDEM_NARROW_TRI_BLOCK_H
#define MRDEM_NARROW_TRI_BLOCK_H

#include <stdint.h>

#define MRDEM_TRI_LANES 32  /* pairs per vector group */
#define MRDEM_TRI_BLOCK 128 /* pairs per block, a multiple of MRDEM_TRI_LANES */

/* Three-valued result of Alg. 4. */
enum mrdem_tri_status {
	MRDEM_TRI_SEPARATE = 0,  /* distance > cut */
	MRDEM_TRI_CONTACT = 1,   /* distance <= cut */
	MRDEM_TRI_UNDECIDED = 2, /* iterative kernel only: not converged (fall back) */
};

struct mrdem_tri_block {
	int n; /* pairs in use */
	/* input: vertex k, component c of triangle a at a[3k + c][lane] */
	_Alignas(64) float a[9][MRDEM_TRI_BLOCK];
	_Alignas(64) float b[9][MRDEM_TRI_BLOCK];
	_Alignas(64) float cut[MRDEM_TRI_BLOCK];
	/* output */
	_Alignas(64) float d2[MRDEM_TRI_BLOCK];    /* squared distance of pa, pb */
	_Alignas(64) float pa[3][MRDEM_TRI_BLOCK]; /* closest point on a */
	_Alignas(64) float pb[3][MRDEM_TRI_BLOCK]; /* closest point on b */
	_Alignas(64) int32_t status[MRDEM_TRI_BLOCK];
};

/* Store pair `lane`: triangles a and b (9 floats each) and the cut-off. */
void mrdem_tri_block_set(struct mrdem_tri_block *k, int lane, const float a[9], const float b[9],
			 float cut);

/* Comparison-based kernel (common/narrow/tri/tri_distance.c): exact up to
 * float rounding; status is CONTACT or SEPARATE. */
void mrdem_tri_block_compare(struct mrdem_tri_block *k, int simd);

/* Iterative kernel (common/narrow/tri/tri_penalty.c): `iterations` sweeps of
 * the modified Newton of eq. 4, then the three-valued decision of Alg. 4:
 * CONTACT when the iterate is within the cut-off and its distance is
 * certified to within threshold * MRDEM_PENALTY_TOLERANCE * cut of the
 * true one, SEPARATE when a separating axis proves the distance exceeds
 * the cut-off, UNDECIDED otherwise. d2, pa and pb are the final iterate
 * (always a feasible point pair, so sqrt(d2) bounds the distance from
 * above). */
#define MRDEM_PENALTY_TOLERANCE 0.005f /* 1% of the mean halo at C = 1 */
void mrdem_tri_block_penalty(struct mrdem_tri_block *k, int iterations, float threshold, int simd);

/* Hybrid (common/narrow/tri/tri_hybrid.c): the iterative kernel, then the
 * comparison kernel on the pairs it left undecided (Alg. 4, bottom), using
 * `spill` as scratch. Statuses end CONTACT or SEPARATE; returns the number
 * of fallbacks. */
int mrdem_tri_block_hybrid(struct mrdem_tri_block *k, struct mrdem_tri_block *spill,
			   int iterations, float threshold, int simd);

/* Fill lanes n .. end of the last group with copies of lane 0 (kernels
 * call it; n > 0). Returns the number of groups to run. */
int mrdem_tri_block_pad(struct mrdem_tri_block *k);

#endif
