/* Minimal TAP producer for C unit tests: each check prints "ok N - name" or
 * "not ok N - name" with a diagnostic; tap_done() prints the plan and
 * returns the exit status. Run by prove (make check). */
#ifndef MRDEM_TESTS_TAP_H
#define MRDEM_TESTS_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

static int tap_count, tap_failed;

static inline int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;
	tap_count++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return cond;
}

/* Diagnostic line, shown by prove -v and on failure. */
static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;
	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* |got - want| <= tol, with both values in the diagnostic on failure. */
#define tap_near(got, want, tol, ...)                                                       \
	do {                                                                                \
		double tap_g_ = (got), tap_w_ = (want), tap_t_ = (tol);                     \
		if (!tap_ok(fabs(tap_g_ - tap_w_) <= tap_t_, __VA_ARGS__))                  \
			tap_diag("got %.17g, want %.17g, tolerance %.3g", tap_g_, tap_w_, tap_t_); \
	} while (0)

#define tap_eq_int(got, want, ...)                                                          \
	do {                                                                                \
		long long tap_g_ = (long long)(got), tap_w_ = (long long)(want);            \
		if (!tap_ok(tap_g_ == tap_w_, __VA_ARGS__))                                 \
			tap_diag("got %lld, want %lld", tap_g_, tap_w_);                    \
	} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

#endif
