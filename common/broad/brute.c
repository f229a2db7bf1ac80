/* Brute-force broad phase (sphere DEM course notes, method 1): every particle against
 * every particle of higher index. O(n^2); the reference the grid method is
 * tested against. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "common/broad/broad_methods.h"
#include "common/util/error.h"

/* First row of thread t's block when rows i hold n - 1 - i tests each:
 * blocks of equal work, so the triangle is split evenly. */
static size_t block_start(size_t n, int t, int nthreads)
{
	if (t <= 0)
		return 0;
	if (t >= nthreads)
		return n;
	double f = 1.0 - sqrt(1.0 - (double)t / nthreads);
	size_t i = (size_t)(f * (double)n);
	return i > n ? n : i;
}

void mrdem_broad_brute_pairs(const double *pos, const double *radius, const uint32_t *flags,
			     size_t n, struct mrdem_ipairs *out, uint64_t *tests)
{
	int nparts = omp_get_max_threads();
	struct mrdem_ipairs *part = mrdem_xcalloc((size_t)nparts, sizeof *part);
	uint64_t ntests = 0;

#pragma omp parallel num_threads(nparts) if (n >= MRDEM_BROAD_PARALLEL_MIN) \
	reduction(+ : ntests)
	{
		int t = omp_get_thread_num(), nt = omp_get_num_threads();
		size_t lo = block_start(n, t, nt), hi = block_start(n, t + 1, nt);
		for (size_t i = lo; i < hi; i++) {
			for (size_t j = i + 1; j < n; j++) {
				if (mrdem_both_fixed(flags, i, j))
					continue;
				ntests++;
				if (mrdem_spheres_touch(&pos[3 * i], radius[i], &pos[3 * j], radius[j]))
					mrdem_ipairs_push(&part[t], i, j);
			}
		}
	}
	/* Blocks are contiguous and in thread order, so concatenation keeps
	 * the (i, j) order whatever the thread count. */
	mrdem_ipairs_concat(out, part, nparts);
	free(part);
	*tests = ntests;
}
