#include "common/util/error.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Written once by main before any thread starts; read-only afterwards. */
static const char *progname = "mrdem";
static int warnings_on = 1, errors_on = 1;

void mrdem_set_progname(const char *argv0)
{
	const char *slash = argv0 ? strrchr(argv0, '/') : NULL;
	if (argv0)
		progname = slash ? slash + 1 : argv0;
}

const char *mrdem_progname(void)
{
	return progname;
}

static void report(const char *kind, const char *fmt, va_list ap)
{
	char msg[2048];
	vsnprintf(msg, sizeof msg, fmt, ap);
	fprintf(stderr, "%s: %s%s\n", progname, kind, msg);
}

int mrdem_error(const char *fmt, ...)
{
	if (!errors_on)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	report("error: ", fmt, ap);
	va_end(ap);
	return -1;
}


void mrdem_set_warnings(int on)
{
	warnings_on = on;
}

void mrdem_set_silent(void)
{
	warnings_on = errors_on = 0;
}

void mrdem_set_errors(int on)
{
	errors_on = on;
}

void mrdem_warning(const char *fmt, ...)
{
	if (!warnings_on)
		return;
	va_list ap;
	va_start(ap, fmt);
	report("warning: ", fmt, ap);
	va_end(ap);
}

static const char *escape(char *buf, size_t size, const char *s, int keep_high)
{
	size_t n = 0;
	if (!size)
		return buf;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char piece[5];
		if (c == '\\')
			snprintf(piece, sizeof piece, "\\\\");
		else if (c >= 0x20 && (c < 0x7f || (keep_high && c > 0x7f)))
			snprintf(piece, sizeof piece, "%c", c);
		else
			snprintf(piece, sizeof piece, "\\x%02x", c);
		size_t k = strlen(piece);
		if (n + k + 4 > size) { /* room for "..." and the NUL */
			if (n + 4 <= size)
				memcpy(buf + n, "...", 3), n += 3;
			break;
		}
		memcpy(buf + n, piece, k);
		n += k;
	}
	buf[n < size ? n : size - 1] = 0;
	return buf;
}

const char *mrdem_escape(char *buf, size_t size, const char *s)
{
	return escape(buf, size, s, 0);
}

const char *mrdem_escape_controls(char *buf, size_t size, const char *s)
{
	return escape(buf, size, s, 1);
}

void mrdem_die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report("error: ", fmt, ap);
	va_end(ap);
	exit(1);
}

void *mrdem_xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		mrdem_die("out of memory allocating %zu bytes", size);
	return p;
}

void *mrdem_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		mrdem_die("out of memory allocating %zu x %zu bytes", n, size);
	return p;
}

void *mrdem_xrealloc(void *p, size_t size)
{
	void *q = realloc(p, size ? size : 1);
	if (!q)
		mrdem_die("out of memory allocating %zu bytes", size);
	return q;
}

void *mrdem_xmalloc_array(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		mrdem_die("allocation of %zu x %zu bytes overflows", n, size);
	return mrdem_xmalloc(n * size);
}

void *mrdem_xrealloc_for(void *p, size_t n, size_t size, const char *what)
{
	if (size && n > SIZE_MAX / size)
		mrdem_die("%zu %s of %zu bytes overflow the address space", n, what, size);
	void *q = realloc(p, n && size ? n * size : 1);
	if (!q)
		mrdem_die("out of memory allocating %zu bytes for %zu %s of %zu bytes", n * size, n,
			  what, size);
	return q;
}

char *mrdem_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(mrdem_xmalloc(n), s, n);
}
