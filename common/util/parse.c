#include "common/util/parse.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "common/util/error.h"

int mrdem_parse_u64(const char *opt, const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	errno = 0;
	if (*s == '-' || *s == '+' || *s == '\0')
		goto bad;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		goto bad;
	*out = v;
	return 0;
bad:
	return mrdem_error("%s: '%s' is not a whole number in 0..%" PRIu64, opt, s, max);
}

int mrdem_parse_u64_range(const char *opt, const char *s, uint64_t lo, uint64_t hi,
			  uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = 0;
	if (*s != '-' && *s != '+' && *s != '\0')
		v = strtoull(s, &end, 10);
	if (*s == '-' || *s == '+' || *s == '\0' || errno || *end || v < lo || v > hi)
		return mrdem_error("%s: '%s' is not a whole number in %" PRIu64 "..%" PRIu64, opt,
				   s, lo, hi);
	*out = v;
	return 0;
}

int mrdem_parse_u32(const char *opt, const char *s, uint32_t *out)
{
	uint64_t v;
	if (mrdem_parse_u64(opt, s, UINT32_MAX, &v))
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int mrdem_parse_int(const char *opt, const char *s, int lo, int hi, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return mrdem_error("%s: '%s' is not a whole number in %d..%d", opt, s, lo, hi);
	*out = (int)v;
	return 0;
}

int mrdem_parse_double(const char *opt, const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end)
		return mrdem_error("%s: '%s' is not a number", opt, s);
	if (errno || !isfinite(v))
		return mrdem_error("%s: '%s' is not a finite number", opt, s);
	*out = v;
	return 0;
}

int mrdem_parse_positive(const char *opt, const char *s, double *out)
{
	if (mrdem_parse_double(opt, s, out))
		return -1;
	if (!(*out > 0))
		return mrdem_error("%s: '%s' must be positive", opt, s);
	return 0;
}

/* Call after each option getopt_long returns, with c its return value and
 * li its longindex, set to -1 before the call (getopt_long leaves it alone
 * for a short option). Returns 0, or -1 after "option '--NAME' given
 * twice" (a usage error). */
static int option_once(struct mrdem_opts_seen *s, const struct option *longopts, int c, int li)
{
	/* A short option counts as its long form when it has one (-o, --output). */
	int k = li;
	for (int i = 0; k < 0 && longopts[i].name; i++)
		if (!longopts[i].flag && longopts[i].val == c)
			k = i;
	if (k >= 128 || (k < 0 && (c < 0 || c > 255)))
		return 0; /* no room to remember it: no tool has so many */
	/* getopt_long gives a short option alone its value in optarg. */
	int has_arg = k >= 0 ? longopts[k].has_arg != no_argument : optarg != NULL;
	if (!has_arg)
		return 0;
	unsigned char *seen = k >= 0 ? &s->seen[k] : &s->seen[128 + c];
	if (*seen)
		return k >= 0 ? mrdem_error("option '--%s' given twice", longopts[k].name)
			      : mrdem_error("option '-%c' given twice", c);
	*seen = 1;
	return 0;
}

int mrdem_getopt_once(int argc, char **argv, const char *shortopts,
		      const struct option *longopts, int *li, struct mrdem_opts_seen *s)
{
	*li = -1; /* getopt_long leaves it alone for a short option */
	int c = getopt_long(argc, argv, shortopts, longopts, li);
	if (c != -1 && c != '?' && option_once(s, longopts, c, *li))
		c = '?';
	return c;
}
