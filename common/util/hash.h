/* 64-bit mixing (the splitmix64 finalizer, as in common/util/rng.c), for
 * hash tables and fingerprints. */
#ifndef MRDEM_UTIL_HASH_H
#define MRDEM_UTIL_HASH_H

#include <stdint.h>

static inline uint64_t mrdem_mix64(uint64_t h)
{
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	return h ^ (h >> 31);
}

#endif
