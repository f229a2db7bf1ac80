/* Seeded multi-octave improved Perlin noise. */
#include "common/mesh/mesh_noise.h"

#include <math.h>
#include <stddef.h>

#include "common/util/rng.h"

#define NOISE_OCTAVES 4
#define NOISE_GAIN 0.5           /* amplitude ratio of successive octaves */
/* Lattice cells per unit length of the direction vector: the unit sphere
 * spans about one cell, so the first octave makes a few broad bumps. */
#define NOISE_BASE_FREQUENCY 0.5

struct noise {
	uint8_t perm[512];
	double offset[NOISE_OCTAVES][3];
};

static void noise_init(struct noise *n, uint64_t seed)
{
	struct mrdem_rng rng;
	mrdem_rng_seed(&rng, seed);
	for (int i = 0; i < 256; i++)
		n->perm[i] = (uint8_t)i;
	for (int i = 255; i > 0; i--) { /* Fisher-Yates */
		int j = (int)(mrdem_rng_u64(&rng) % (uint64_t)(i + 1));
		uint8_t t = n->perm[i];
		n->perm[i] = n->perm[j];
		n->perm[j] = t;
	}
	for (int i = 0; i < 256; i++)
		n->perm[256 + i] = n->perm[i];
	for (int o = 0; o < NOISE_OCTAVES; o++)
		for (int k = 0; k < 3; k++)
			n->offset[o][k] = mrdem_rng_range(&rng, 0.0, 256.0);
}

static double fade(double t)
{
	return t * t * t * (t * (t * 6 - 15) + 10);
}

static double lerp(double t, double a, double b)
{
	return a + t * (b - a);
}

/* Dot product with one of the 12 cube-edge gradients (Perlin 2002). */
static double grad(int hash, double x, double y, double z)
{
	int h = hash & 15;
	double u = h < 8 ? x : y;
	double v = h < 4 ? y : (h == 12 || h == 14) ? x : z;
	return ((h & 1) ? -u : u) + ((h & 2) ? -v : v);
}

static double perlin(const uint8_t *p, double x, double y, double z)
{
	double fx = floor(x), fy = floor(y), fz = floor(z);
	int X = (int)fx & 255, Y = (int)fy & 255, Z = (int)fz & 255;
	x -= fx, y -= fy, z -= fz;
	double u = fade(x), v = fade(y), w = fade(z);
	int A = p[X] + Y, AA = p[A] + Z, AB = p[A + 1] + Z;
	int B = p[X + 1] + Y, BA = p[B] + Z, BB = p[B + 1] + Z;
	return lerp(w,
		    lerp(v, lerp(u, grad(p[AA], x, y, z), grad(p[BA], x - 1, y, z)),
			 lerp(u, grad(p[AB], x, y - 1, z), grad(p[BB], x - 1, y - 1, z))),
		    lerp(v, lerp(u, grad(p[AA + 1], x, y, z - 1), grad(p[BA + 1], x - 1, y, z - 1)),
			 lerp(u, grad(p[AB + 1], x, y - 1, z - 1),
			      grad(p[BB + 1], x - 1, y - 1, z - 1))));
}

/* Sum of the octaves at point p, roughly in [-1.5, 1.5]. */
static double noise_eval(const struct noise *n, const double p[3])
{
	double sum = 0, amp = 1, freq = NOISE_BASE_FREQUENCY;
	for (int o = 0; o < NOISE_OCTAVES; o++) {
		sum += amp * perlin(n->perm, freq * p[0] + n->offset[o][0],
				    freq * p[1] + n->offset[o][1], freq * p[2] + n->offset[o][2]);
		freq *= 2;
		amp *= NOISE_GAIN;
	}
	return sum;
}

void mrdem_noise_unit_field(const double *dirs, uint32_t n, uint64_t seed, double *t)
{
	struct noise noise;
	noise_init(&noise, seed);
	double lo = INFINITY, hi = -INFINITY;
	for (uint32_t i = 0; i < n; i++) {
		t[i] = noise_eval(&noise, &dirs[3 * (size_t)i]);
		if (t[i] < lo)
			lo = t[i];
		if (t[i] > hi)
			hi = t[i];
	}
	double range = hi - lo;
	for (uint32_t i = 0; i < n; i++)
		t[i] = range > 0 ? (t[i] - lo) / range : 0.0;
}
