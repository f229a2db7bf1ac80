/* Hybrid distance (paper Sec. 3 and Alg. 4): the iterative kernel over the
 * whole block, then the comparison kernel over the pairs it left
 * undecided, gathered into a second block so that the fallbacks stream
 * through the vector units too. */
#include <math.h>

#include "common/narrow/tri/tri_block.h"
#include "common/narrow/tri/tri_distance.h"

static void copy_lane(struct mrdem_tri_block *dst, int i, const struct mrdem_tri_block *src, int j)
{
	for (int c = 0; c < 9; c++) {
		dst->a[c][i] = src->a[c][j];
		dst->b[c][i] = src->b[c][j];
	}
	dst->cut[i] = src->cut[j];
}

int mrdem_tri_block_hybrid(struct mrdem_tri_block *k, struct mrdem_tri_block *spill,
			   int iterations, float threshold, int simd)
{
	int idx[MRDEM_TRI_BLOCK], m = 0;
	mrdem_tri_block_penalty(k, iterations, threshold, simd);
	for (int l = 0; l < k->n; l++)
		if (k->status[l] == MRDEM_TRI_UNDECIDED) {
			copy_lane(spill, m, k, l);
			idx[m++] = l;
		}
	if (!m)
		return 0;
	spill->n = m;
	mrdem_tri_block_compare(spill, simd);
	for (int i = 0; i < m; i++) {
		int l = idx[i];
		k->d2[l] = spill->d2[i];
		for (int c = 0; c < 3; c++) {
			k->pa[c][l] = spill->pa[c][i];
			k->pb[c][l] = spill->pb[c][i];
		}
		k->status[l] = spill->status[i];
	}
	return m;
}

int mrdem_tri_hybrid(const float a[9], const float b[9], float cut, int iterations,
		     float threshold, float pa[3], float pb[3], float *dist, int *fell_back,
		     int simd)
{
	struct mrdem_tri_block k, spill;
	k.n = 1;
	mrdem_tri_block_set(&k, 0, a, b, cut);
	int m = mrdem_tri_block_hybrid(&k, &spill, iterations, threshold, simd);
	if (fell_back)
		*fell_back = m;
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
