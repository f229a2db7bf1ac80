/* Minimal TAP producer for C unit tests: each check prints "ok N - name" or
 * "not ok N - name" with a diagnostic; tap_done() prints the plan and
 * returns the exit status. Run by prove (make check). */
#ifndef MRDEM_TESTS_TAP_H
#define MRDEM_TESTS_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/* Standard error of the code under test, captured: expected error
 * messages must not reach the terminal of a passing run, and the checks
 * can assert on them.
 *
 *	tap_capture_begin();
 *	rc = call_that_fails();
 *	const char *err = tap_capture_end();
 *	tap_ok(rc == -1 && strstr(err, "what went wrong"), "...");
 *
 * The text is kept until the next tap_capture_end (its last 8 KiB when
 * longer, with the trailing newline removed). */
static char tap_captured[8192];
static int tap_capture_fd = -1;
static FILE *tap_capture_file;

static inline void tap_capture_begin(void)
{
	fflush(stderr);
	tap_capture_file = tmpfile();
	if (!tap_capture_file)
		return; /* uncaptured: the messages show, the checks still run */
	tap_capture_fd = dup(2);
	dup2(fileno(tap_capture_file), 2);
}

static inline const char *tap_capture_end(void)
{
	tap_captured[0] = 0;
	if (!tap_capture_file)
		return tap_captured;
	fflush(stderr);
	dup2(tap_capture_fd, 2);
	close(tap_capture_fd);
	fseek(tap_capture_file, 0, SEEK_END); /* written through fd 2, not this FILE */
	long size = ftell(tap_capture_file);
	long from = size > (long)sizeof tap_captured - 1 ? size - (long)sizeof tap_captured + 1 : 0;
	fseek(tap_capture_file, from, SEEK_SET);
	size_t n = fread(tap_captured, 1, sizeof tap_captured - 1, tap_capture_file);
	while (n && tap_captured[n - 1] == '\n')
		n--;
	tap_captured[n] = 0;
	fclose(tap_capture_file);
	tap_capture_file = NULL;
	return tap_captured;
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

#endif
