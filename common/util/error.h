/* Error reporting and checked allocation shared by every tool.
 *
 * Library code reports a problem with mrdem_error() and returns -1 so the
 * caller can unwind and clean up (git's error()); only tools' mains die.
 * Messages are lowercase, name the input and say what is wrong. */
#ifndef MRDEM_UTIL_ERROR_H
#define MRDEM_UTIL_ERROR_H

#include <stddef.h>

#if defined(__GNUC__)
#define MRDEM_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define MRDEM_PRINTF(a, b)
#endif

/* Set once at the start of main; prefixes every message. */
void mrdem_set_progname(const char *argv0);
const char *mrdem_progname(void);

/* Warnings on (the default) or off: the processes of an MPI run but the
 * first read the same input, and one of them says what all would. */
void mrdem_set_warnings(int on);
/* Errors and warnings off: an MPI rank that stops because another failed
 * leaves the saying why to that one. */
void mrdem_set_silent(void);
/* Errors on or off (mrdem_error still returns -1): what every rank of an
 * MPI run finds alike, one of them says. */
void mrdem_set_errors(int on);

/* Print "prog: error: ..." to stderr; always returns -1. */
int mrdem_error(const char *fmt, ...) MRDEM_PRINTF(1, 2);
void mrdem_warning(const char *fmt, ...) MRDEM_PRINTF(1, 2);
/* s quoted for a message: bytes outside printable ASCII (control bytes
 * that would be invisible, or corrupt the terminal) become \xNN and a
 * backslash \\; cut with "..." to fit buf. Returns buf. */
const char *mrdem_escape(char *buf, size_t size, const char *s);
/* The same for a name shown in line-oriented output: only control bytes
 * (a line break would forge a line) and the backslash are escaped, so
 * UTF-8 text stays readable. */
const char *mrdem_escape_controls(char *buf, size_t size, const char *s);
_Noreturn void mrdem_die(const char *fmt, ...) MRDEM_PRINTF(1, 2);

/* Allocation that dies with a message on exhaustion or size overflow. */
void *mrdem_xmalloc(size_t size);
void *mrdem_xcalloc(size_t n, size_t size);
void *mrdem_xrealloc(void *p, size_t size);
void *mrdem_xmalloc_array(size_t n, size_t size);
char *mrdem_xstrdup(const char *s);
/* The same for the arrays that grow with the problem (contacts, pairs,
 * hits, particles, frames): n elements of size bytes, for what, so that a
 * failure says which structure asked and for how many ("out of memory
 * allocating 8589934592 bytes for 97612346 contacts of 88 bytes"). */
void *mrdem_xrealloc_for(void *p, size_t n, size_t size, const char *what);
static inline void *mrdem_xmalloc_for(size_t n, size_t size, const char *what)
{
	return mrdem_xrealloc_for(NULL, n, size, what);
}

#endif
