/* Checked parsing of numbers given on command lines: the whole string must
 * be a number, finite and in range, or the caller gets -1 and a message
 * naming the option. */
#ifndef MRDEM_UTIL_PARSE_H
#define MRDEM_UTIL_PARSE_H

#include <getopt.h>
#include <stdint.h>

int mrdem_parse_u64(const char *opt, const char *s, uint64_t max, uint64_t *out);
int mrdem_parse_u32(const char *opt, const char *s, uint32_t *out);
int mrdem_parse_int(const char *opt, const char *s, int lo, int hi, int *out);
int mrdem_parse_double(const char *opt, const char *s, double *out);
/* A finite number > 0. */
int mrdem_parse_positive(const char *opt, const char *s, double *out);
/* A whole number in lo..hi (the message names the range, as above). */
int mrdem_parse_u64_range(const char *opt, const char *s, uint64_t lo, uint64_t hi,
			  uint64_t *out);

/* Options that take a value may be given once: with a second, the last
 * value would silently win. Options without a value (flags) may repeat:
 * that changes nothing. */
struct mrdem_opts_seen {
	unsigned char seen[128 + 256]; /* longopts[0..127], then short options */
};
/* getopt_long's next option with that check: an option given twice comes
 * back as '?' (a usage error), after the message. *li: the long option's
 * index, -1 for a short one. */
int mrdem_getopt_once(int argc, char **argv, const char *shortopts,
		      const struct option *longopts, int *li, struct mrdem_opts_seen *s);

#endif
