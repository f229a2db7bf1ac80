#include "common/util/simd.h"

#include "common/util/names.h"
#include <string.h>

static int supported(int level)
{
	switch (level) {
	case MRDEM_SIMD_GENERIC:
		return 1;
#if MRDEM_SIMD_X86
	case MRDEM_SIMD_AVX2:
		return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
	case MRDEM_SIMD_AVX512:
		return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
		       supported(MRDEM_SIMD_AVX2);
#endif
	default:
		return 0;
	}
}

int mrdem_simd_resolve(int want)
{
	int level = want == MRDEM_SIMD_AUTO || want > MRDEM_SIMD_AVX512 ? MRDEM_SIMD_AVX512 : want;
	while (level > MRDEM_SIMD_GENERIC && !supported(level))
		level--;
	return level < MRDEM_SIMD_GENERIC ? MRDEM_SIMD_GENERIC : level;
}

static const char *const names[] = {"auto", "generic", "avx2", "avx512"};

const char *mrdem_simd_name(int level)
{
	return mrdem_name_at(names, MRDEM_SIMD_AVX512 + 1, level, "unknown");
}

int mrdem_simd_parse(const char *name)
{
	return mrdem_name_index(names, MRDEM_SIMD_AVX512 + 1, name);
}
