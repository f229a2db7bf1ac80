/* Typed YAML reading over libyaml events (formats/foreign/yaml_map.h). */
#include "formats/foreign/yaml_map.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- messages */

static int verr_at(const struct mrdem_yaml *y, yaml_mark_t m, const char *fmt, va_list ap)
{
	char msg[1536];
	vsnprintf(msg, sizeof msg, fmt, ap);
	return mrdem_error("%s:%zu:%zu: %s", y->file, m.line + 1, m.column + 1, msg);
}

int mrdem_yaml_err_at(const struct mrdem_yaml *y, yaml_mark_t m, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verr_at(y, m, fmt, ap);
	va_end(ap);
	return -1;
}

int mrdem_yaml_err(const struct mrdem_yaml *y, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verr_at(y, y->ev.start_mark, fmt, ap);
	va_end(ap);
	return -1;
}

/* What the current event is, for "expected X, got Y". */
static const char *node_desc(const struct mrdem_yaml *y, char *buf, size_t n)
{
	switch (y->ev.type) {
	case YAML_MAPPING_START_EVENT:
		return "a mapping";
	case YAML_SEQUENCE_START_EVENT:
		return "a list";
	case YAML_SCALAR_EVENT:
		if (y->ev.data.scalar.length == 0 &&
		    y->ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
			return "an empty value";
		snprintf(buf, n, "%s'%.60s%s'",
			 y->ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE ? "" : "the quoted string ",
			 mrdem_yaml_text(y), y->ev.data.scalar.length > 60 ? "..." : "");
		return buf;
	default:
		return "nothing";
	}
}

int mrdem_yaml_err_type(const struct mrdem_yaml *y, const char *what, const char *expected)
{
	char buf[128];
	return mrdem_yaml_err(y, "%s: expected %s, got %s", what, expected,
			      node_desc(y, buf, sizeof buf));
}

/* ---- events */

static int syntax_error(const struct mrdem_yaml *y)
{
	const yaml_parser_t *p = &y->parser;
	yaml_mark_t m = p->problem_mark;
	if (p->error == YAML_MEMORY_ERROR)
		return mrdem_error("%s: out of memory while parsing yaml", y->file);
	if (p->error == YAML_READER_ERROR) {
		/* The reader reports a byte offset only. */
		m.line = m.column = 0;
		for (size_t i = 0; i < p->problem_offset && i < y->len; i++) {
			if (y->text[i] == '\n')
				m.line++, m.column = 0;
			else
				m.column++;
		}
	}
	const char *problem = p->problem ? p->problem : "malformed input";
	if (p->context)
		return mrdem_yaml_err_at(y, m, "invalid yaml: %s (%s at line %zu)", problem,
					 p->context, p->context_mark.line + 1);
	return mrdem_yaml_err_at(y, m, "invalid yaml: %s", problem);
}

int mrdem_yaml_next(struct mrdem_yaml *y)
{
	if (y->have_ev)
		yaml_event_delete(&y->ev);
	y->have_ev = 0;
	if (!yaml_parser_parse(&y->parser, &y->ev))
		return syntax_error(y);
	y->have_ev = 1;
	const yaml_event_t *e = &y->ev;
	const yaml_char_t *tag = NULL;
	switch (e->type) {
	case YAML_ALIAS_EVENT:
		return mrdem_yaml_err(y, "yaml aliases (*%s) are not supported: write the value out",
				      (const char *)e->data.alias.anchor);
	case YAML_SCALAR_EVENT:
		if (!e->data.scalar.plain_implicit && !e->data.scalar.quoted_implicit)
			tag = e->data.scalar.tag;
		break;
	case YAML_SEQUENCE_START_EVENT:
		if (!e->data.sequence_start.implicit)
			tag = e->data.sequence_start.tag;
		break;
	case YAML_MAPPING_START_EVENT:
		if (!e->data.mapping_start.implicit)
			tag = e->data.mapping_start.tag;
		break;
	default:
		break;
	}
	if (tag)
		return mrdem_yaml_err(y, "yaml tags (%s) are not supported", (const char *)tag);
	return 0;
}

/* ---- the file */

static int read_all(struct mrdem_yaml *y, const char *path, double max_bytes)
{
	int is_stdin = !strcmp(path, "-");
	FILE *f = is_stdin ? stdin : fopen(path, "rb");
	if (!f)
		return mrdem_error("%s: cannot open: %s", path, strerror(errno));
	size_t cap = 1 << 16, len = 0;
	unsigned char *buf = mrdem_xmalloc(cap);
	int bad = 0;
	for (;;) {
		if (len == cap && 2.0 * (double)cap > max_bytes) {
			bad = mrdem_error("%s: too large to read into the %.3g GB of memory available",
					  path, max_bytes / 1e9);
			break;
		}
		if (len == cap)
			buf = mrdem_xrealloc(buf, cap *= 2);
		size_t got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	if (!bad && ferror(f))
		bad = mrdem_error("%s: read error", path);
	if (!is_stdin)
		fclose(f);
	if (bad) {
		free(buf);
		return -1;
	}
	y->text = buf;
	y->len = len;
	return 0;
}

int mrdem_yaml_open(struct mrdem_yaml *y, const char *path, const char *file, double max_bytes)
{
	memset(y, 0, sizeof *y);
	y->file = file;
	if (read_all(y, path, max_bytes))
		return -1;
	if (!yaml_parser_initialize(&y->parser))
		return mrdem_error("%s: cannot initialise the yaml parser", y->file);
	y->parser_live = 1;
	yaml_parser_set_input_string(&y->parser, y->text, y->len);
	if (mrdem_yaml_next(y) || mrdem_yaml_next(y)) /* stream start, then the first document */
		return -1;
	if (y->ev.type == YAML_STREAM_END_EVENT)
		return 0;
	return mrdem_yaml_next(y);
}

int mrdem_yaml_finish(struct mrdem_yaml *y, const char *kind)
{
	if (mrdem_yaml_next(y) || mrdem_yaml_next(y)) /* document end, then the stream end */
		return -1;
	if (y->ev.type != YAML_STREAM_END_EVENT)
		return mrdem_yaml_err(y, "a %s file holds one yaml document, found another", kind);
	return 0;
}

void mrdem_yaml_close(struct mrdem_yaml *y)
{
	if (y->have_ev)
		yaml_event_delete(&y->ev);
	if (y->parser_live)
		yaml_parser_delete(&y->parser);
	free(y->text);
	memset(y, 0, sizeof *y);
}

int mrdem_yaml_is(const struct mrdem_yaml *y, const char *word)
{
	size_t n = strlen(word);
	return y->ev.type == YAML_SCALAR_EVENT && y->ev.data.scalar.length == n &&
	       !memcmp(mrdem_yaml_text(y), word, n);
}

/* ---- mappings with a fixed set of keys */

void mrdem_yaml_keys_init(struct mrdem_yaml_keys *k, const char *what, const char *const *names,
			  int n, uint32_t allowed)
{
	k->what = what;
	k->names = names;
	k->n = n;
	k->allowed = allowed;
	k->seen = 0;
	k->cur[0] = 0;
}

int mrdem_yaml_map_begin(struct mrdem_yaml *y, struct mrdem_yaml_keys *k)
{
	if (y->ev.type != YAML_MAPPING_START_EVENT)
		return mrdem_yaml_err_type(y, k->what, "a mapping");
	k->map = y->ev.start_mark;
	k->seen = 0;
	return 0;
}

/* dst = "a.b" (runs for every key read: no printf) */
static void join_path(char *dst, size_t n, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la + lb + 2 > n) {
		snprintf(dst, n, "%s.%s", a, b);
		return;
	}
	memcpy(dst, a, la);
	dst[la] = '.';
	memcpy(dst + la + 1, b, lb + 1);
}

int mrdem_yaml_map_next(struct mrdem_yaml *y, struct mrdem_yaml_keys *k, int *id)
{
	if (mrdem_yaml_next(y))
		return -1;
	if (y->ev.type == YAML_MAPPING_END_EVENT)
		return 0;
	if (y->ev.type != YAML_SCALAR_EVENT)
		return mrdem_yaml_err_type(y, k->what, "a key name");
	int i;
	for (i = 0; i < k->n; i++)
		if ((k->allowed & MRDEM_YAML_BIT(i)) && mrdem_yaml_is(y, k->names[i]))
			break;
	if (i == k->n) {
		char list[512] = "", buf[128];
		size_t len = 0;
		for (int j = 0; j < k->n; j++)
			if (k->allowed & MRDEM_YAML_BIT(j))
				len += snprintf(list + len, len < sizeof list ? sizeof list - len : 0,
						"%s%s", len ? ", " : "", k->names[j]);
		return mrdem_yaml_err(y, "%s: unknown key %s (expected one of: %s)", k->what,
				      node_desc(y, buf, sizeof buf), list);
	}
	if (k->seen & MRDEM_YAML_BIT(i))
		return mrdem_yaml_err(y, "%s: duplicate key '%s' (first at line %zu)", k->what,
				      k->names[i], k->key[i].line + 1);
	k->seen |= MRDEM_YAML_BIT(i);
	k->key[i] = y->ev.start_mark;
	join_path(k->cur, sizeof k->cur, k->what, k->names[i]);
	if (mrdem_yaml_next(y))
		return -1;
	k->val[i] = y->ev.start_mark;
	*id = i;
	return 1;
}

int mrdem_yaml_require(const struct mrdem_yaml *y, const struct mrdem_yaml_keys *k, int id)
{
	if (mrdem_yaml_has(k, id))
		return 0;
	return mrdem_yaml_err_at(y, k->map, "%s: missing key '%s'", k->what, k->names[id]);
}

int mrdem_yaml_exclusive(const struct mrdem_yaml *y, const struct mrdem_yaml_keys *k, int a,
			 int b)
{
	if (mrdem_yaml_has(k, a) && mrdem_yaml_has(k, b))
		return mrdem_yaml_err_at(y, k->key[b], "%s: give '%s' or '%s', not both", k->what,
					 k->names[a], k->names[b]);
	return 0;
}

/* ---- scalar values */

static int is_plain(const struct mrdem_yaml *y)
{
	return y->ev.type == YAML_SCALAR_EVENT && y->ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

/* A finite plain number, silently: 0, or -1 when it is not one. */
static int yaml_try_number(const struct mrdem_yaml *y, double *out)
{
	if (!is_plain(y))
		return -1;
	const char *v = mrdem_yaml_text(y);
	char *end;
	double x = strtod(v, &end);
	if (end == v || *end || strlen(v) != y->ev.data.scalar.length || !isfinite(x))
		return -1;
	*out = x;
	return 0;
}

int mrdem_yaml_number(struct mrdem_yaml *y, const char *what, double *out)
{
	char buf[128];
	if (!yaml_try_number(y, out))
		return 0;
	if (!is_plain(y))
		return mrdem_yaml_err_type(y, what, "a number");
	const char *v = mrdem_yaml_text(y);
	const char *u = (*v == '+' || *v == '-') ? v + 1 : v;
	if (!strcasecmp(u, ".nan") || !strcasecmp(u, ".inf"))
		return mrdem_yaml_err(y, "%s: not a finite number: '%s'", what, v);
	char *end;
	errno = 0;
	double x = strtod(v, &end);
	if (end == v || *end || strlen(v) != y->ev.data.scalar.length)
		return mrdem_yaml_err(y, "%s: expected a number, got %s", what,
				      node_desc(y, buf, sizeof buf));
	if (!isfinite(x))
		return mrdem_yaml_err(y, "%s: not a finite number: '%s'", what, v);
	*out = x;
	return 0;
}

/* An integer: digits, or a number of integral value (1e4, 100.0). */
static int yaml_int(struct mrdem_yaml *y, const char *what, long long *out)
{
	char buf[128];
	if (!is_plain(y))
		return mrdem_yaml_err_type(y, what, "an integer");
	const char *v = mrdem_yaml_text(y);
	char *end;
	errno = 0;
	long long n = strtoll(v, &end, 10);
	if (end != v && !*end && errno == 0) {
		*out = n;
		return 0;
	}
	double x;
	if (mrdem_yaml_number(y, what, &x))
		return -1;
	if (x != floor(x) || fabs(x) > 9.0e18)
		return mrdem_yaml_err(y, "%s: expected an integer, got %s", what,
				      node_desc(y, buf, sizeof buf));
	*out = (long long)x;
	return 0;
}

int mrdem_yaml_u64(struct mrdem_yaml *y, const char *what, uint64_t *out)
{
	if (!is_plain(y))
		return mrdem_yaml_err_type(y, what, "a non-negative integer");
	const char *v = mrdem_yaml_text(y);
	char *end;
	errno = 0;
	if (*v >= '0' && *v <= '9') {
		unsigned long long n = strtoull(v, &end, 10);
		if (!*end && errno == 0) {
			*out = n;
			return 0;
		}
	}
	long long n;
	if (yaml_int(y, what, &n))
		return -1;
	if (n < 0)
		return mrdem_yaml_err(y, "%s: must not be negative, got %s", what, v);
	*out = (uint64_t)n;
	return 0;
}

int mrdem_yaml_int_range(struct mrdem_yaml *y, const char *what, long long lo, long long hi,
			 long long *out)
{
	if (yaml_int(y, what, out))
		return -1;
	if (*out < lo && lo == 1)
		return mrdem_yaml_err(y, "%s: must be positive, got %s", what, mrdem_yaml_text(y));
	if (*out < lo)
		return mrdem_yaml_err(y, "%s: must be at least %lld, got %s", what, lo,
				      mrdem_yaml_text(y));
	if (*out > hi)
		return mrdem_yaml_err(y, "%s: must be at most %lld, got %s", what, hi,
				      mrdem_yaml_text(y));
	return 0;
}

int mrdem_yaml_bool(struct mrdem_yaml *y, const char *what, int *out)
{
	if (is_plain(y)) {
		const char *v = mrdem_yaml_text(y);
		if (!strcmp(v, "true") || !strcmp(v, "True") || !strcmp(v, "TRUE")) {
			*out = 1;
			return 0;
		}
		if (!strcmp(v, "false") || !strcmp(v, "False") || !strcmp(v, "FALSE")) {
			*out = 0;
			return 0;
		}
	}
	return mrdem_yaml_err_type(y, what, "true or false");
}

int mrdem_yaml_string(struct mrdem_yaml *y, const char *what, char **out)
{
	if (y->ev.type != YAML_SCALAR_EVENT || y->ev.data.scalar.length == 0)
		return mrdem_yaml_err_type(y, what, "a name");
	if (strlen(mrdem_yaml_text(y)) != y->ev.data.scalar.length)
		return mrdem_yaml_err(y, "%s: contains a NUL character", what);
	*out = mrdem_xstrdup(mrdem_yaml_text(y));
	return 0;
}

int mrdem_yaml_enum(struct mrdem_yaml *y, const char *what, const char *const *names, int n,
		    int *out)
{
	for (int i = 0; i < n; i++)
		if (mrdem_yaml_is(y, names[i])) {
			*out = i;
			return 0;
		}
	char list[256] = "", buf[128];
	size_t len = 0;
	for (int i = 0; i < n; i++)
		len += snprintf(list + len, len < sizeof list ? sizeof list - len : 0, "%s%s",
				i ? ", " : "", names[i]);
	if (y->ev.type != YAML_SCALAR_EVENT)
		return mrdem_yaml_err(y, "%s: expected one of %s, got %s", what, list,
				      node_desc(y, buf, sizeof buf));
	/* A name, quoted or not: the value itself (quotes would only confuse
	 * an empty string). */
	if (y->ev.data.scalar.length == 0)
		return mrdem_yaml_err(y, "%s: empty value (expected one of: %s)", what, list);
	return mrdem_yaml_err(y, "%s: unknown value '%s' (expected one of: %s)", what,
			      mrdem_escape(buf, sizeof buf, mrdem_yaml_text(y)), list);
}

int mrdem_yaml_positive(const struct mrdem_yaml *y, const char *what, double x)
{
	if (x > 0)
		return 0;
	return mrdem_yaml_err(y, "%s: must be positive, got %s", what, mrdem_yaml_text(y));
}

int mrdem_yaml_nonnegative(const struct mrdem_yaml *y, const char *what, double x)
{
	if (x >= 0)
		return 0;
	return mrdem_yaml_err(y, "%s: must not be negative, got %s", what, mrdem_yaml_text(y));
}

/* ---- lists */

int mrdem_yaml_vec(struct mrdem_yaml *y, const char *what, double *out, int n, int sign)
{
	char el[300];
	if (y->ev.type != YAML_SEQUENCE_START_EVENT) {
		snprintf(el, sizeof el, "a list of %d numbers", n);
		return mrdem_yaml_err_type(y, what, el);
	}
	yaml_mark_t start = y->ev.start_mark;
	for (int i = 0; i < n; i++) {
		if (mrdem_yaml_next(y))
			return -1;
		if (y->ev.type == YAML_SEQUENCE_END_EVENT)
			return mrdem_yaml_err_at(y, start, "%s: expected %d numbers, got %d", what, n, i);
		int ok = !yaml_try_number(y, &out[i]) &&
			 (sign == MRDEM_YAML_ANY || out[i] > 0 ||
			  (sign == MRDEM_YAML_NONNEGATIVE && out[i] == 0));
		if (ok)
			continue;
		/* name the element only when something is wrong with it */
		snprintf(el, sizeof el, "%s[%d]", what, i);
		if (mrdem_yaml_number(y, el, &out[i]))
			return -1;
		if (sign == MRDEM_YAML_POSITIVE && mrdem_yaml_positive(y, el, out[i]))
			return -1;
		if (sign == MRDEM_YAML_NONNEGATIVE && mrdem_yaml_nonnegative(y, el, out[i]))
			return -1;
	}
	if (mrdem_yaml_next(y))
		return -1;
	if (y->ev.type != YAML_SEQUENCE_END_EVENT)
		return mrdem_yaml_err(y, "%s: expected %d numbers, got more", what, n);
	return 0;
}

int mrdem_yaml_ints(struct mrdem_yaml *y, const char *what, long long *out, int n, long long lo,
		    long long hi)
{
	char expected[64], el[300];
	snprintf(expected, sizeof expected, "a list of %d integers", n);
	if (y->ev.type != YAML_SEQUENCE_START_EVENT)
		return mrdem_yaml_err_type(y, what, expected);
	yaml_mark_t start = y->ev.start_mark;
	for (int i = 0; i < n; i++) {
		if (mrdem_yaml_next(y))
			return -1;
		if (y->ev.type == YAML_SEQUENCE_END_EVENT)
			return mrdem_yaml_err_at(y, start, "%s: expected %d integers, got %d", what, n,
						 i);
		snprintf(el, sizeof el, "%s[%d]", what, i);
		if (mrdem_yaml_int_range(y, el, lo, hi, &out[i]))
			return -1;
	}
	if (mrdem_yaml_next(y))
		return -1;
	if (y->ev.type != YAML_SEQUENCE_END_EVENT)
		return mrdem_yaml_err(y, "%s: expected %d integers, got more", what, n);
	return 0;
}
