/* Enum values by name: every option and record field named by a word
 * (schemes, force models, methods, hierarchies, SIMD levels, shape kinds)
 * looks its table up here. */
#ifndef MRDEM_UTIL_NAMES_H
#define MRDEM_UTIL_NAMES_H

#include <string.h>

/* The index of name in names[0..n), or -1 (also for a NULL name). */
static inline int mrdem_name_index(const char *const *names, int n, const char *name)
{
	for (int i = 0; name && i < n; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

/* names[v], or fallback when v is not in 0..n-1. */
static inline const char *mrdem_name_at(const char *const *names, int n, int v,
					const char *fallback)
{
	return v >= 0 && v < n ? names[v] : fallback;
}

#endif
