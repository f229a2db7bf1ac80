/* Hierarchical gradient noise for bumpy spheres (paper Sec. 6.1).
 *
 * Improved Perlin noise (Perlin 2002) on a permutation shuffled from the
 * seed, summed over four octaves (frequency doubling,
 * amplitude halving) so large smooth bumps carry smaller detail. Each
 * octave is shifted by a seeded offset so lattice points, where Perlin
 * noise vanishes, do not line up with the sphere's symmetric vertices. */
#ifndef MRDEM_MESH_MESH_NOISE_H
#define MRDEM_MESH_MESH_NOISE_H

#include <stdint.h>

/* For each of the n unit directions dirs[3i..3i+2], the noise value
 * rescaled over this vertex set to [0, 1]: 0 at the lowest vertex, 1 at the
 * highest. All zeros when the field is constant over the set. */
void mrdem_noise_unit_field(const double *dirs, uint32_t n, uint64_t seed, double *t);

#endif
