/* Deterministic random numbers (xoshiro256**, seeded by splitmix64).
 * Every consumer owns its state, so results never depend on threads. */
#ifndef MRDEM_UTIL_RNG_H
#define MRDEM_UTIL_RNG_H

#include <stdint.h>

struct mrdem_rng {
	uint64_t s[4];
};

void mrdem_rng_seed(struct mrdem_rng *r, uint64_t seed);
uint64_t mrdem_rng_u64(struct mrdem_rng *r);
/* Uniform in [0, 1). */
double mrdem_rng_uniform(struct mrdem_rng *r);
/* Uniform in [lo, hi). */
double mrdem_rng_range(struct mrdem_rng *r, double lo, double hi);
/* Standard normal (Box-Muller). */
double mrdem_rng_normal(struct mrdem_rng *r);
/* Uniformly distributed unit quaternion (w, x, y, z). */
void mrdem_rng_quat(struct mrdem_rng *r, double q[4]);

#endif
