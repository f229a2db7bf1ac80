/* Single-precision triangle-triangle distance, one pair at a time: thin
 * wrappers that run one pair through the batched kernels of tri_block.h
 * (so they give the very bits a batch gives). For tests and tools; bulk
 * work goes through tri_batch.h. Triangles are 9 floats. */
#ifndef MRDEM_NARROW_TRI_DISTANCE_H
#define MRDEM_NARROW_TRI_DISTANCE_H

/* Comparison-based (paper Sec. 3): distance, closest points into pa, pb
 * (may be NULL). Intersecting triangles give 0. */
float mrdem_tri_distance(const float a[9], const float b[9], float pa[3], float pb[3], int simd);

/* Iterative (eq. 3-4) with the decision of Alg. 4 against cut-off `cut`;
 * returns an enum mrdem_tri_status, the iterate's distance in *dist. */
int mrdem_tri_penalty(const float a[9], const float b[9], float cut, int iterations,
		      float threshold, float pa[3], float pb[3], float *dist, int simd);

/* Hybrid: iterative, comparison-based where it did not converge; returns
 * MRDEM_TRI_CONTACT or MRDEM_TRI_SEPARATE and whether it fell back. */
int mrdem_tri_hybrid(const float a[9], const float b[9], float cut, int iterations,
		     float threshold, float pa[3], float pb[3], float *dist, int *fell_back,
		     int simd);

#endif
