/* Internals shared by the broad-phase methods (the files of common/broad). */
#ifndef MRDEM_BROAD_BROAD_METHODS_H
#define MRDEM_BROAD_BROAD_METHODS_H

#include <stddef.h>
#include <stdint.h>

#include "common/scene/scene.h"
#include "common/util/error.h"

/* Below this many particles the methods run on one thread: starting a
 * team costs more than it saves. The result never depends on it. */
#define MRDEM_BROAD_PARALLEL_MIN 2048

/* Spheres with a radius above this many times the mean (a big fixed
 * obstacle, a scaled particle) stay out of the cells of the grid and MR
 * methods and are tested against every particle instead. */
#define MRDEM_BROAD_LARGE_FACTOR 4.0

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

/* Pairs i < j packed as i << 32 | j (the cell methods hold at most
 * 2^31 particles), as the cell searches find them, in any order. */
struct mrdem_pair_keys {
	size_t n, cap;
	uint64_t *key;
};

/* Room for at least more further keys. */
static inline void mrdem_pair_keys_reserve(struct mrdem_pair_keys *p, size_t more)
{
	if (p->n + more > p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 256;
		while (cap < p->n + more)
			cap *= 2;
		p->key = mrdem_xrealloc(p->key, cap * sizeof *p->key);
		p->cap = cap;
	}
}

/* Scratch of mrdem_pair_keys_sort, kept between calls: row starts (n + 1)
 * and the second indices by row (pairs + 4). */
struct mrdem_pair_sort {
	size_t cap, col_cap;
	size_t *start;
	uint32_t *col;
};

void mrdem_pair_sort_release(struct mrdem_pair_sort *s);
size_t mrdem_pair_sort_bytes(const struct mrdem_pair_sort *s);

/* The pairs of part[0..nparts) into out in the canonical order, by i then
 * j; empties the parts (keeping their memory for the next call). n:
 * particle count. */
void mrdem_pair_keys_sort(struct mrdem_ipairs *out, struct mrdem_pair_keys *part, int nparts,
			  size_t n, struct mrdem_pair_sort *scratch);

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

/* flags when a particle is fixed, else NULL (no pair of two fixed
 * particles to skip): a search then reads no flags, which lie in particle
 * order, all over memory from the search's cell order. */
static inline const uint32_t *mrdem_flags_if_fixed(const uint32_t *flags, size_t n)
{
	for (size_t i = 0; flags && i < n; i++)
		if (flags[i] & MRDEM_PARTICLE_FIXED)
			return flags;
	return NULL;
}

/* Particle pairs (i < j) whose spheres touch, sorted by (i, j). tests
 * receives the number of sphere tests evaluated. */
void mrdem_broad_brute_pairs(const double *pos, const double *radius, const uint32_t *flags,
			     size_t n, struct mrdem_ipairs *out, uint64_t *tests);

struct mrdem_grid; /* scratch of the grid method */
struct mrdem_grid *mrdem_grid_new(void);
void mrdem_grid_free(struct mrdem_grid *g);
size_t mrdem_grid_bytes(const struct mrdem_grid *g);
/* The same list as mrdem_broad_brute_pairs by uniform binning. cells and
 * cell_size receive the occupied cell count and the cell edge. */
void mrdem_broad_grid_pairs(struct mrdem_grid *g, const double *pos, const double *radius,
			    const uint32_t *flags, size_t n, struct mrdem_ipairs *out,
			    uint64_t *tests, uint64_t *cells, double *cell_size);

/* The cell edge for spheres up to radius rmax at coordinates up to big in
 * magnitude: slightly above 2 rmax, so that rounding in the cell
 * coordinates and in the overlap test never puts two touching spheres two
 * cells apart; it also bounds the coordinates by about 2^48 cells. */
double mrdem_broad_cell_edge(double rmax, double big);

/* level[i] = 0 for large particles (radius above MRDEM_BROAD_LARGE_FACTOR
 * times the mean), 1 for the others; *rmax and *big receive the largest
 * radius and coordinate magnitude of the others. Returns the large count. */
size_t mrdem_broad_split_large(const double *pos, const double *radius, size_t n, uint8_t *level,
			       double *rmax, double *big);

struct mrdem_mr; /* state of the MR-linear method */
struct mrdem_mr *mrdem_mr_new(void);
void mrdem_mr_free(struct mrdem_mr *m);
/* The same list as mrdem_broad_brute_pairs by MR-linear sort and search
 * (Munjiza & Rougier): the cell list repaired from the last call's order, searched
 * with the 13-cell mask. flags NULL: keep pairs of two fixed particles
 * too. simd: the instruction set of the search (enum mrdem_simd;
 * the same list from every level). cells and cell_size as for the grid. */
void mrdem_broad_mr_pairs(struct mrdem_mr *m, const double *pos, const double *radius,
			  const uint32_t *flags, size_t n, int simd, struct mrdem_ipairs *out,
			  uint64_t *tests, uint64_t *cells, double *cell_size);
/* Bytes the method keeps per particle, and moves of its last repair. */
size_t mrdem_mr_bytes(const struct mrdem_mr *m);
uint64_t mrdem_mr_moves(const struct mrdem_mr *m, int *rebuilt);

struct mrdem_mmr; /* state of the multi-step MR method */
struct mrdem_mmr *mrdem_mmr_new(void);
void mrdem_mmr_free(struct mrdem_mmr *m);
/* The same list by MMR (Munjiza & Rougier): size groups halving in radius, group k
 * searched against all smaller groups in cells sized for group k. simd as
 * for mr. cells: occupied cells summed over the groups; cell_size: the
 * finest edge. */
void mrdem_broad_mmr_pairs(struct mrdem_mmr *m, const double *pos, const double *radius,
			   const uint32_t *flags, size_t n, int simd, struct mrdem_ipairs *out,
			   uint64_t *tests, uint64_t *cells, double *cell_size);
size_t mrdem_mmr_bytes(const struct mrdem_mmr *m);
uint64_t mrdem_mmr_moves(const struct mrdem_mmr *m, int *rebuilt);

struct mrdem_sap; /* state of incremental sort-and-update */
struct mrdem_sap *mrdem_sap_new(void);
void mrdem_sap_free(struct mrdem_sap *s);
/* The same list by incremental sort-and-update on axis-aligned boxes
 * (Schinner): the sorted box ends of the last call repaired by insertion
 * sort on each axis, the overlapping boxes updated from the swaps. */
void mrdem_broad_sap_pairs(struct mrdem_sap *s, const double *pos, const double *radius,
			   const uint32_t *flags, size_t n, struct mrdem_ipairs *out,
			   uint64_t *tests);
size_t mrdem_sap_bytes(const struct mrdem_sap *s);
uint64_t mrdem_sap_moves(const struct mrdem_sap *s, int *rebuilt);

#endif
