#include "common/util/rng.h"

#include <math.h>

#include "common/util/hash.h"

static uint64_t splitmix64(uint64_t *x)
{
	return mrdem_mix64(*x += 0x9e3779b97f4a7c15ULL);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void mrdem_rng_seed(struct mrdem_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

uint64_t mrdem_rng_u64(struct mrdem_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double mrdem_rng_uniform(struct mrdem_rng *r)
{
	return (double)(mrdem_rng_u64(r) >> 11) * 0x1.0p-53;
}

double mrdem_rng_range(struct mrdem_rng *r, double lo, double hi)
{
	return lo + (hi - lo) * mrdem_rng_uniform(r);
}

double mrdem_rng_normal(struct mrdem_rng *r)
{
	double u = 1.0 - mrdem_rng_uniform(r); /* (0, 1] keeps log finite */
	double v = mrdem_rng_uniform(r);
	return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

void mrdem_rng_quat(struct mrdem_rng *r, double q[4])
{
	/* Shoemake's method: uniform on the unit 3-sphere. */
	double u1 = mrdem_rng_uniform(r), u2 = mrdem_rng_uniform(r), u3 = mrdem_rng_uniform(r);
	double a = sqrt(1.0 - u1), b = sqrt(u1);
	q[0] = a * sin(2.0 * M_PI * u2);
	q[1] = a * cos(2.0 * M_PI * u2);
	q[2] = b * sin(2.0 * M_PI * u3);
	q[3] = b * cos(2.0 * M_PI * u3);
}
