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
