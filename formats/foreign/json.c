#include "formats/foreign/json.h"

#include <math.h>

void mrdem_json_init(struct mrdem_json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->count[0] = 0;
	j->after_key = 0;
}

/* Separator before a value or key at the current level. */
static void sep(struct mrdem_json *j)
{
	if (j->after_key) {
		j->after_key = 0;
		return;
	}
	if (j->count[j->depth]++)
		fputc(',', j->f);
	if (j->depth)
		fputc('\n', j->f);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

static void open_(struct mrdem_json *j, int c)
{
	sep(j);
	fputc(c, j->f);
	if (j->depth + 1 < MRDEM_JSON_MAX_DEPTH)
		j->depth++;
	j->count[j->depth] = 0;
}

static void close_(struct mrdem_json *j, int c)
{
	int had = j->count[j->depth];
	if (j->depth)
		j->depth--;
	if (had) {
		fputc('\n', j->f);
		for (int i = 0; i < j->depth; i++)
			fputs("  ", j->f);
	}
	fputc(c, j->f);
	if (!j->depth)
		fputc('\n', j->f);
}

void mrdem_json_begin_object(struct mrdem_json *j) { open_(j, '{'); }
void mrdem_json_end_object(struct mrdem_json *j) { close_(j, '}'); }
void mrdem_json_begin_array(struct mrdem_json *j) { open_(j, '['); }
void mrdem_json_end_array(struct mrdem_json *j) { close_(j, ']'); }

static void quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

void mrdem_json_key(struct mrdem_json *j, const char *key)
{
	sep(j);
	quoted(j->f, key);
	fputs(": ", j->f);
	j->after_key = 1;
}

static void json_str(struct mrdem_json *j, const char *s)
{
	sep(j);
	quoted(j->f, s ? s : "");
}

static void num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.17g", v);
	else
		fputs("null", f);
}

/* Numbers round-trip (%.17g); non-finite values are written as null. */
static void json_num(struct mrdem_json *j, double v)
{
	sep(j);
	num(j->f, v);
}

void mrdem_json_int(struct mrdem_json *j, int64_t v)
{
	sep(j);
	fprintf(j->f, "%lld", (long long)v);
}

void mrdem_json_uint(struct mrdem_json *j, uint64_t v)
{
	sep(j);
	fprintf(j->f, "%llu", (unsigned long long)v);
}

void mrdem_json_bool(struct mrdem_json *j, int v)
{
	sep(j);
	fputs(v ? "true" : "false", j->f);
}

/* Number arrays stay on one line: vertices and states are long. */
void mrdem_json_nums(struct mrdem_json *j, const double *v, size_t n)
{
	sep(j);
	fputc('[', j->f);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputs(", ", j->f);
		num(j->f, v[i]);
	}
	fputc(']', j->f);
}

void mrdem_json_floats(struct mrdem_json *j, const float *v, size_t n)
{
	sep(j);
	fputc('[', j->f);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputs(", ", j->f);
		if (isfinite(v[i]))
			fprintf(j->f, "%.9g", v[i]);
		else
			fputs("null", j->f);
	}
	fputc(']', j->f);
}

void mrdem_json_uints(struct mrdem_json *j, const uint32_t *v, size_t n)
{
	sep(j);
	fputc('[', j->f);
	for (size_t i = 0; i < n; i++)
		fprintf(j->f, i ? ", %u" : "%u", v[i]);
	fputc(']', j->f);
}

void mrdem_json_kv_num(struct mrdem_json *j, const char *key, double v)
{
	mrdem_json_key(j, key);
	json_num(j, v);
}

void mrdem_json_kv_uint(struct mrdem_json *j, const char *key, uint64_t v)
{
	mrdem_json_key(j, key);
	mrdem_json_uint(j, v);
}

void mrdem_json_kv_str(struct mrdem_json *j, const char *key, const char *s)
{
	mrdem_json_key(j, key);
	json_str(j, s);
}

void mrdem_json_kv_nums(struct mrdem_json *j, const char *key, const double *v, size_t n)
{
	mrdem_json_key(j, key);
	mrdem_json_nums(j, v, n);
}
