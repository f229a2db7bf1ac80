/* Which instruction set the vector kernels (narrow phase, cell searches) run with.
 * Each kernel is compiled once per level (GCC target attributes) and the
 * level is picked at run time from what the CPU reports, so one binary
 * runs everywhere and uses AVX2/FMA or AVX-512 where present. */
#ifndef MRDEM_UTIL_SIMD_H
#define MRDEM_UTIL_SIMD_H

enum mrdem_simd {
	MRDEM_SIMD_AUTO = 0,    /* the best level this CPU supports */
	MRDEM_SIMD_GENERIC = 1, /* portable C, vectorised for the build's baseline ISA */
	MRDEM_SIMD_AVX2 = 2,    /* AVX2 + FMA, 8 floats per vector */
	MRDEM_SIMD_AVX512 = 3,  /* AVX-512F, 16 floats per vector */
};

/* The level to run for a request: AUTO gives the best supported one, an
 * unsupported level falls back to the best supported one below it. */
int mrdem_simd_resolve(int want);
/* "generic", "avx2", "avx512". */
const char *mrdem_simd_name(int level);
/* Parse a name (also "auto"); -1 when unknown. */
int mrdem_simd_parse(const char *name);

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define MRDEM_SIMD_X86 1
#define MRDEM_TARGET_AVX2 __attribute__((target("avx2,fma")))
#define MRDEM_TARGET_AVX512 \
	__attribute__((target("avx512f,avx512vl,avx2,fma,prefer-vector-width=512")))
#else
#define MRDEM_SIMD_X86 0
#endif

#endif
