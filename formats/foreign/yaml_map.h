/* Typed reading of YAML documents through libyaml's event API: numbers,
 * integers with ranges, booleans, enums by name table, vectors, strings,
 * and mappings with a fixed set of keys (unknown, duplicate, missing and
 * mutually exclusive keys). Every message is "FILE:LINE:COL: what: ...",
 * where `what` is the caller's dotted path to the value.
 *
 * Events stream through in constant parser memory, so a script-written
 * file with millions of list items costs its text and what the caller
 * keeps, not a node tree several times the file's size. The reader holds
 * one current event: each get function reads the value starting there and
 * leaves the last event of that value current. Aliases and explicit tags
 * are refused (a schema-checked file has no use for them). */
#ifndef MRDEM_FORMATS_YAML_MAP_H
#define MRDEM_FORMATS_YAML_MAP_H

#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "common/util/error.h"

struct mrdem_yaml {
	const char *file;       /* for messages */
	unsigned char *text;
	size_t len;
	yaml_parser_t parser;
	int parser_live;
	yaml_event_t ev;        /* the current event */
	int have_ev;
};

/* Read path ("-": standard input, named `file` in messages) whole, refusing
 * more than max_bytes, and position on the top-level node of its first
 * document, or on the stream end when it has none. Returns 0, or -1 with a
 * message; call mrdem_yaml_close either way. */
int mrdem_yaml_open(struct mrdem_yaml *y, const char *path, const char *file, double max_bytes);
/* After the top-level node: the document must be the only one ("a KIND
 * file holds one yaml document"). */
int mrdem_yaml_finish(struct mrdem_yaml *y, const char *kind);
void mrdem_yaml_close(struct mrdem_yaml *y);

/* Advance to the next event; -1 with a message on a syntax error, alias or tag. */
int mrdem_yaml_next(struct mrdem_yaml *y);

/* ---- messages: all return -1 */
int mrdem_yaml_err_at(const struct mrdem_yaml *y, yaml_mark_t m, const char *fmt, ...)
	MRDEM_PRINTF(3, 4);
/* at the current event */
int mrdem_yaml_err(const struct mrdem_yaml *y, const char *fmt, ...) MRDEM_PRINTF(2, 3);
/* "what: expected EXPECTED, got <the current node>" */
int mrdem_yaml_err_type(const struct mrdem_yaml *y, const char *what, const char *expected);

/* ---- the current event */
static inline yaml_event_type_t mrdem_yaml_type(const struct mrdem_yaml *y)
{
	return y->ev.type;
}
static inline yaml_mark_t mrdem_yaml_mark(const struct mrdem_yaml *y)
{
	return y->ev.start_mark;
}
/* Its text (scalars only). */
static inline const char *mrdem_yaml_text(const struct mrdem_yaml *y)
{
	return (const char *)y->ev.data.scalar.value;
}
/* A scalar equal to word. */
int mrdem_yaml_is(const struct mrdem_yaml *y, const char *word);

/* ---- mappings with a fixed set of keys (at most 32) */
struct mrdem_yaml_keys {
	const char *what;          /* path of the mapping, for messages */
	const char *const *names;  /* indexed by key id */
	int n;
	uint32_t allowed;          /* bit i: names[i] is accepted here */
	uint32_t seen;
	yaml_mark_t map;           /* the mapping itself */
	yaml_mark_t key[32];       /* each key seen */
	yaml_mark_t val[32];       /* its value */
	char cur[256];             /* "what.key" of the current key */
};

#define MRDEM_YAML_BIT(i) ((uint32_t)1 << (i))
#define MRDEM_YAML_ALL(n) ((uint32_t)((n) >= 32 ? 0xffffffffu : MRDEM_YAML_BIT(n) - 1))

void mrdem_yaml_keys_init(struct mrdem_yaml_keys *k, const char *what, const char *const *names,
			  int n, uint32_t allowed);
/* The current event must start a mapping. */
int mrdem_yaml_map_begin(struct mrdem_yaml *y, struct mrdem_yaml_keys *k);
/* Advance to the next key: 1 with *id set and the current event on its
 * value, 0 at the end of the mapping, -1 on an unknown or duplicate key. */
int mrdem_yaml_map_next(struct mrdem_yaml *y, struct mrdem_yaml_keys *k, int *id);
static inline int mrdem_yaml_has(const struct mrdem_yaml_keys *k, int id)
{
	return (k->seen & MRDEM_YAML_BIT(id)) != 0;
}
/* Key id must have been given (message at the mapping). */
int mrdem_yaml_require(const struct mrdem_yaml *y, const struct mrdem_yaml_keys *k, int id);
/* Keys a and b exclude each other (message at b). */
int mrdem_yaml_exclusive(const struct mrdem_yaml *y, const struct mrdem_yaml_keys *k, int a,
			 int b);

/* ---- values at the current event; `what` names them in messages */

int mrdem_yaml_number(struct mrdem_yaml *y, const char *what, double *out);
int mrdem_yaml_int_range(struct mrdem_yaml *y, const char *what, long long lo, long long hi,
			 long long *out);
/* A non-negative integer of up to 64 bits. */
int mrdem_yaml_u64(struct mrdem_yaml *y, const char *what, uint64_t *out);
/* true/True/TRUE or false/False/FALSE. */
int mrdem_yaml_bool(struct mrdem_yaml *y, const char *what, int *out);
/* A non-empty string, plain or quoted, malloc'd. */
int mrdem_yaml_string(struct mrdem_yaml *y, const char *what, char **out);
/* One of n words; *out is its index. */
int mrdem_yaml_enum(struct mrdem_yaml *y, const char *what, const char *const *names, int n,
		    int *out);
/* The checks on a number just read. */
int mrdem_yaml_positive(const struct mrdem_yaml *y, const char *what, double x);
int mrdem_yaml_nonnegative(const struct mrdem_yaml *y, const char *what, double x);

enum { MRDEM_YAML_ANY = 0, MRDEM_YAML_POSITIVE = 1, MRDEM_YAML_NONNEGATIVE = 2 };
/* A list of exactly n numbers with the given sign constraint. */
int mrdem_yaml_vec(struct mrdem_yaml *y, const char *what, double *out, int n, int sign);
/* A list of exactly n integers in [lo, hi]. */
int mrdem_yaml_ints(struct mrdem_yaml *y, const char *what, long long *out, int n, long long lo,
		    long long hi);

#endif
