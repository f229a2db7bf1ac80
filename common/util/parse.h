/* Checked parsing of numbers given on command lines: the whole string must
 * be a number, finite and in range, or the caller gets -1 and a message
 * naming the option. */
#ifndef MRDEM_UTIL_PARSE_H
#define MRDEM_UTIL_PARSE_H

#include <stdint.h>

int mrdem_parse_u64(const char *opt, const char *s, uint64_t max, uint64_t *out);
int mrdem_parse_u32(const char *opt, const char *s, uint32_t *out);
int mrdem_parse_int(const char *opt, const char *s, int lo, int hi, int *out);
int mrdem_parse_double(const char *opt, const char *s, double *out);
/* A finite number > 0. */
int mrdem_parse_positive(const char *opt, const char *s, double *out);

#endif
