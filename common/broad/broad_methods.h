/* Internals shared by the broad-phase methods (the files of common/broad). */
#ifndef MRDEM_BROAD_BROAD_METHODS_H
#define MRDEM_BROAD_BROAD_METHODS_H

#include <stddef.h>
#include <stdint.h>

#include "common/scene/scene.h"

/* Below this many particles the methods run on one thread: starting a
 * team costs more than it saves. The result never depends on it. */
#define MRDEM_BROAD_PARALLEL_MIN 2048

/* Particle index pairs i < j, two entries per pair. */
struct mrdem_ipairs {
	size_t n, cap;
	size_t *ij;
};

void mrdem_ipairs_push(struct mrdem_ipairs *p, size_t i, size_t j);
void mrdem_ipairs_release(struct mrdem_ipairs *p);
/* Append per-thread lists part[0..nparts) in order into out (cleared
 * first), releasing the parts. */
void mrdem_ipairs_concat(struct mrdem_ipairs *out, struct mrdem_ipairs *part, int nparts);

/* The one overlap predicate every method uses, so that all of them agree
 * to the last bit: the spheres touch or overlap. */
static inline int mrdem_spheres_touch(const double *ca, double ra, const double *cb, double rb)
{
	double dx = ca[0] - cb[0], dy = ca[1] - cb[1], dz = ca[2] - cb[2];
	double r = ra + rb;
	return dx * dx + dy * dy + dz * dz <= r * r;
}

/* Neither particle can move: the pair is never a candidate. */
static inline int mrdem_both_fixed(const uint32_t *flags, size_t i, size_t j)
{
	return (flags[i] & flags[j] & MRDEM_PARTICLE_FIXED) != 0;
}

/* Particle pairs (i < j) whose spheres touch, sorted by (i, j). tests
 * receives the number of sphere tests evaluated. */
void mrdem_broad_brute_pairs(const double *pos, const double *radius, const uint32_t *flags,
			     size_t n, struct mrdem_ipairs *out, uint64_t *tests);

struct mrdem_grid; /* scratch of the grid method */
struct mrdem_grid *mrdem_grid_new(void);
void mrdem_grid_free(struct mrdem_grid *g);
/* The same list as mrdem_broad_brute_pairs by uniform binning. cells and
 * cell_size receive the occupied cell count and the cell edge. */
void mrdem_broad_grid_pairs(struct mrdem_grid *g, const double *pos, const double *radius,
			    const uint32_t *flags, size_t n, struct mrdem_ipairs *out,
			    uint64_t *tests, uint64_t *cells, double *cell_size);

#endif
