/* YAML scene loader (schema: docs/scene.md).
 *
 * Built on libyaml's event API, so a script-written scene with millions of
 * explicit particles streams through in constant parser memory (the
 * document API would hold a node tree several times the file's size).
 * Particles may appear before the shapes and contact defaults they refer
 * to: the first pass builds shapes and parameters and reads the particles
 * only if nothing they depend on can follow; otherwise a second pass reads
 * them. Every message names the file, line and column of the offending node
 * and a dotted path to it. */

#include "formats/scene_yaml.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <unistd.h>
#include <yaml.h>

#include "common/geom/quat.h"
#include "common/tree/tree.h"
#include "common/util/error.h"
#include "common/util/rng.h"
#include "formats/mesh_files.h"
#include "formats/records.h"
#include "formats/stream.h"

/* Orientations within this of unit norm are normalised (scripts print
 * rounded values such as 0.7071); farther ones are taken for mistakes. */
#define QUAT_NORM_TOL 1e-3

struct loader {
	const char *file;       /* as given, for messages */
	char *dir;              /* prefix for relative mesh paths ("" for none) */
	unsigned char *text;
	size_t len;
	yaml_parser_t parser;
	int parser_live;
	yaml_event_t ev;
	int have_ev;
	int pass;               /* 1: shapes and parameters, 2: particles */
	struct mrdem_scene *s;
	double *diameter;       /* per shape: 2 * bounding radius about the com */
	size_t *shape_line;     /* per shape: line of its definition */
	int particles_done;     /* the first pass could read the particles */
	double mem_avail;       /* bytes this process may allocate */
	double mem_planned;     /* bytes the requests so far will take */
	int eps_default_abs;    /* contact.epsilon_abs given */
	double eps_default;     /* relative (or absolute) default epsilon */
};

/* ---- messages */

static int verr_at(const struct loader *L, yaml_mark_t m, const char *fmt, va_list ap)
{
	char msg[1536];
	vsnprintf(msg, sizeof msg, fmt, ap);
	return mrdem_error("%s:%zu:%zu: %s", L->file, m.line + 1, m.column + 1, msg);
}

static int err_at(const struct loader *L, yaml_mark_t m, const char *fmt, ...) MRDEM_PRINTF(3, 4);
static int err_at(const struct loader *L, yaml_mark_t m, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verr_at(L, m, fmt, ap);
	va_end(ap);
	return -1;
}

/* Error at the current event. */
static int err_here(const struct loader *L, const char *fmt, ...) MRDEM_PRINTF(2, 3);
static int err_here(const struct loader *L, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verr_at(L, L->ev.start_mark, fmt, ap);
	va_end(ap);
	return -1;
}

static const char *scalar(const struct loader *L)
{
	return (const char *)L->ev.data.scalar.value;
}

/* What the current event is, for "expected X, got Y". */
static const char *node_desc(const struct loader *L, char *buf, size_t n)
{
	switch (L->ev.type) {
	case YAML_MAPPING_START_EVENT:
		return "a mapping";
	case YAML_SEQUENCE_START_EVENT:
		return "a list";
	case YAML_SCALAR_EVENT:
		if (L->ev.data.scalar.length == 0 &&
		    L->ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
			return "an empty value";
		snprintf(buf, n, "%s'%.60s%s'",
			 L->ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE ? "" : "the quoted string ",
			 scalar(L), L->ev.data.scalar.length > 60 ? "..." : "");
		return buf;
	default:
		return "nothing";
	}
}

static int err_type(const struct loader *L, const char *what, const char *expected)
{
	char buf[128];
	return err_here(L, "%s: expected %s, got %s", what, expected, node_desc(L, buf, sizeof buf));
}

/* ---- sizes checked before allocating */

/* Physical memory, or the address-space limit (ulimit -v) when lower. */
static double memory_available(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	double avail = pages > 0 && page > 0 ? (double)pages * (double)page : INFINITY;
	struct rlimit rl;
	if (!getrlimit(RLIMIT_AS, &rl) && rl.rlim_cur != RLIM_INFINITY && (double)rl.rlim_cur < avail)
		avail = (double)rl.rlim_cur;
	return avail;
}

static const char *gigabytes(double bytes, char *buf, size_t n)
{
	snprintf(buf, n, "%.3g GB", bytes / 1e9);
	return buf;
}

/* Room for `count` things (particles, triangles) of `each` bytes besides
 * what is planned already, and at most `max` of them: 0, or -1 after a
 * message at mark. */
static int check_size(const struct loader *L, yaml_mark_t mark, const char *what,
		      const char *things, uint64_t count, uint64_t max, const char *max_name,
		      double each)
{
	char need[32], avail[32];
	if (count > max)
		return err_at(L, mark, "%s: %" PRIu64 " %s, more than the limit of %" PRIu64 " (%s)",
			      what, count, things, max, max_name);
	double bytes = (double)count * each;
	if (L->mem_planned + bytes > L->mem_avail)
		return err_at(L, mark, "%s: %" PRIu64 " %s need about %s of memory, more than the "
			      "%s available (physical memory, or ulimit -v)%s", what, count, things,
			      gigabytes(bytes, need, sizeof need),
			      gigabytes(L->mem_avail - L->mem_planned, avail, sizeof avail),
			      L->mem_planned > 0 ? " beside the shapes" : "");
	return 0;
}

/* A generated mesh of ntris triangles, checked at its size key's value. */
static int plan_triangles(struct loader *L, const char *what, uint64_t ntris)
{
	if (check_size(L, L->ev.start_mark, what, "triangles", ntris, MRDEM_SCENE_MAX_TRIANGLES,
		       "MRDEM_SCENE_MAX_TRIANGLES", MRDEM_SCENE_TRIANGLE_BYTES))
		return -1;
	L->mem_planned += (double)ntris * MRDEM_SCENE_TRIANGLE_BYTES;
	return 0;
}

/* ---- events */

static int syntax_error(struct loader *L)
{
	const yaml_parser_t *p = &L->parser;
	yaml_mark_t m = p->problem_mark;
	if (p->error == YAML_MEMORY_ERROR)
		return mrdem_error("%s: out of memory while parsing yaml", L->file);
	if (p->error == YAML_READER_ERROR) {
		/* The reader reports a byte offset only. */
		m.line = m.column = 0;
		for (size_t i = 0; i < p->problem_offset && i < L->len; i++) {
			if (L->text[i] == '\n')
				m.line++, m.column = 0;
			else
				m.column++;
		}
	}
	const char *problem = p->problem ? p->problem : "malformed input";
	if (p->context)
		return err_at(L, m, "invalid yaml: %s (%s at line %zu)", problem, p->context,
			      p->context_mark.line + 1);
	return err_at(L, m, "invalid yaml: %s", problem);
}

/* Advance to the next event, refusing the YAML features the schema has no
 * use for (aliases, explicit tags) with a clear message. */
static int next(struct loader *L)
{
	if (L->have_ev)
		yaml_event_delete(&L->ev);
	L->have_ev = 0;
	if (!yaml_parser_parse(&L->parser, &L->ev))
		return syntax_error(L);
	L->have_ev = 1;
	const yaml_event_t *e = &L->ev;
	const yaml_char_t *tag = NULL;
	switch (e->type) {
	case YAML_ALIAS_EVENT:
		return err_here(L, "yaml aliases (*%s) are not supported: write the value out",
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
		return err_here(L, "yaml tags (%s) are not supported", (const char *)tag);
	return 0;
}

/* Consume the node starting at the current event. */
static int skip_node(struct loader *L)
{
	int depth = 0;
	for (;;) {
		switch (L->ev.type) {
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			depth++;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		default:
			break;
		}
		if (depth == 0)
			return 0;
		if (next(L))
			return -1;
	}
}

/* ---- mappings with a fixed set of keys */

struct keyset {
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

#define BIT(i) ((uint32_t)1 << (i))
#define ALL_KEYS(n) ((uint32_t)((n) >= 32 ? 0xffffffffu : BIT(n) - 1))

static void keyset_init(struct keyset *k, const char *what, const char *const *names, int n,
			uint32_t allowed)
{
	k->what = what;
	k->names = names;
	k->n = n;
	k->allowed = allowed;
	k->seen = 0;
	k->cur[0] = 0;
}

static int map_begin(struct loader *L, struct keyset *k)
{
	if (L->ev.type != YAML_MAPPING_START_EVENT)
		return err_type(L, k->what, "a mapping");
	k->map = L->ev.start_mark;
	k->seen = 0;
	return 0;
}

static int key_is(const struct loader *L, const char *name)
{
	size_t n = strlen(name);
	return L->ev.data.scalar.length == n && !memcmp(scalar(L), name, n);
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

/* Advance to the next key of the mapping: 1 with *id set and the current
 * event on its value, 0 at the end of the mapping, -1 on error. */
static int map_next(struct loader *L, struct keyset *k, int *id)
{
	if (next(L))
		return -1;
	if (L->ev.type == YAML_MAPPING_END_EVENT)
		return 0;
	if (L->ev.type != YAML_SCALAR_EVENT)
		return err_type(L, k->what, "a key name");
	int i;
	for (i = 0; i < k->n; i++)
		if ((k->allowed & BIT(i)) && key_is(L, k->names[i]))
			break;
	if (i == k->n) {
		char list[512] = "", buf[128];
		size_t len = 0;
		for (int j = 0; j < k->n; j++)
			if (k->allowed & BIT(j))
				len += snprintf(list + len, len < sizeof list ? sizeof list - len : 0,
						"%s%s", len ? ", " : "", k->names[j]);
		return err_here(L, "%s: unknown key %s (expected one of: %s)", k->what,
				node_desc(L, buf, sizeof buf), list);
	}
	if (k->seen & BIT(i))
		return err_here(L, "%s: duplicate key '%s' (first at line %zu)", k->what,
				k->names[i], k->key[i].line + 1);
	k->seen |= BIT(i);
	k->key[i] = L->ev.start_mark;
	join_path(k->cur, sizeof k->cur, k->what, k->names[i]);
	if (next(L))
		return -1;
	k->val[i] = L->ev.start_mark;
	*id = i;
	return 1;
}

static int map_require(const struct loader *L, const struct keyset *k, int id)
{
	if (k->seen & BIT(id))
		return 0;
	return err_at(L, k->map, "%s: missing key '%s'", k->what, k->names[id]);
}

/* Two keys that exclude each other. */
static int map_exclusive(const struct loader *L, const struct keyset *k, int a, int b)
{
	if ((k->seen & BIT(a)) && (k->seen & BIT(b)))
		return err_at(L, k->key[b], "%s: give '%s' or '%s', not both", k->what, k->names[a],
			      k->names[b]);
	return 0;
}

/* ---- scalar values (the current event is the value) */

/* The current event as a finite plain number, silently: 0, or -1 when it
 * is not one (get_number then says why). */
static int number_value(const struct loader *L, double *out)
{
	if (L->ev.type != YAML_SCALAR_EVENT || L->ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return -1;
	const char *v = scalar(L);
	char *end;
	double x = strtod(v, &end);
	if (end == v || *end || strlen(v) != L->ev.data.scalar.length || !isfinite(x))
		return -1;
	*out = x;
	return 0;
}

static int get_number(struct loader *L, const char *what, double *out)
{
	char buf[128];
	if (!number_value(L, out))
		return 0;
	if (L->ev.type != YAML_SCALAR_EVENT)
		return err_type(L, what, "a number");
	if (L->ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return err_type(L, what, "a number");
	const char *v = scalar(L);
	const char *u = (*v == '+' || *v == '-') ? v + 1 : v;
	if (!strcasecmp(u, ".nan") || !strcasecmp(u, ".inf"))
		return err_here(L, "%s: not a finite number: '%s'", what, v);
	char *end;
	errno = 0;
	double x = strtod(v, &end);
	if (end == v || *end || strlen(v) != L->ev.data.scalar.length)
		return err_here(L, "%s: expected a number, got %s", what, node_desc(L, buf, sizeof buf));
	if (!isfinite(x))
		return err_here(L, "%s: not a finite number: '%s'", what, v);
	*out = x;
	return 0;
}

/* An integer; written as digits, or as a number with an integral value
 * (scripts may print 1e4 or 100.0). */
static int get_int(struct loader *L, const char *what, long long *out)
{
	char buf[128];
	if (L->ev.type != YAML_SCALAR_EVENT || L->ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return err_type(L, what, "an integer");
	const char *v = scalar(L);
	char *end;
	errno = 0;
	long long n = strtoll(v, &end, 10);
	if (end != v && !*end && errno == 0) {
		*out = n;
		return 0;
	}
	double x;
	if (get_number(L, what, &x))
		return -1;
	if (x != floor(x) || fabs(x) > 9.0e18)
		return err_here(L, "%s: expected an integer, got %s", what, node_desc(L, buf, sizeof buf));
	*out = (long long)x;
	return 0;
}

/* A non-negative integer of up to 64 bits (seeds, step counts). */
static int get_u64(struct loader *L, const char *what, uint64_t *out)
{
	if (L->ev.type != YAML_SCALAR_EVENT || L->ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return err_type(L, what, "a non-negative integer");
	const char *v = scalar(L);
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
	if (get_int(L, what, &n))
		return -1;
	if (n < 0)
		return err_here(L, "%s: must not be negative, got %s", what, scalar(L));
	*out = (uint64_t)n;
	return 0;
}

/* An integer in [lo, hi]. */
static int get_int_range(struct loader *L, const char *what, long long lo, long long hi,
			 long long *out)
{
	if (get_int(L, what, out))
		return -1;
	if (*out < lo && lo == 1)
		return err_here(L, "%s: must be positive, got %s", what, scalar(L));
	if (*out < lo)
		return err_here(L, "%s: must be at least %lld, got %s", what, lo, scalar(L));
	if (*out > hi)
		return err_here(L, "%s: must be at most %lld, got %s", what, hi, scalar(L));
	return 0;
}

static int get_bool(struct loader *L, const char *what, int *out)
{
	if (L->ev.type == YAML_SCALAR_EVENT && L->ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
		const char *v = scalar(L);
		if (!strcmp(v, "true") || !strcmp(v, "True") || !strcmp(v, "TRUE")) {
			*out = 1;
			return 0;
		}
		if (!strcmp(v, "false") || !strcmp(v, "False") || !strcmp(v, "FALSE")) {
			*out = 0;
			return 0;
		}
	}
	return err_type(L, what, "true or false");
}

/* A non-empty string (plain or quoted); the caller frees it. */
static int get_string(struct loader *L, const char *what, char **out)
{
	if (L->ev.type != YAML_SCALAR_EVENT || L->ev.data.scalar.length == 0)
		return err_type(L, what, "a name");
	if (strlen(scalar(L)) != L->ev.data.scalar.length)
		return err_here(L, "%s: contains a NUL character", what);
	*out = mrdem_xstrdup(scalar(L));
	return 0;
}

/* One of a fixed list of words. */
static int get_enum(struct loader *L, const char *what, const char *const *names, int n,
		    int *out)
{
	if (L->ev.type == YAML_SCALAR_EVENT)
		for (int i = 0; i < n; i++)
			if (key_is(L, names[i])) {
				*out = i;
				return 0;
			}
	char list[256] = "", buf[128];
	size_t len = 0;
	for (int i = 0; i < n; i++)
		len += snprintf(list + len, len < sizeof list ? sizeof list - len : 0, "%s%s",
				i ? ", " : "", names[i]);
	if (L->ev.type != YAML_SCALAR_EVENT)
		return err_here(L, "%s: expected one of %s, got %s", what, list,
				node_desc(L, buf, sizeof buf));
	return err_here(L, "%s: unknown value %s (expected one of: %s)", what,
			node_desc(L, buf, sizeof buf), list);
}

static int check_positive(const struct loader *L, const char *what, double x)
{
	if (x > 0)
		return 0;
	return err_here(L, "%s: must be positive, got %s", what, scalar(L));
}

static int check_nonnegative(const struct loader *L, const char *what, double x)
{
	if (x >= 0)
		return 0;
	return err_here(L, "%s: must not be negative, got %s", what, scalar(L));
}

/* ---- lists of numbers */

enum { ANY = 0, POSITIVE = 1, NONNEGATIVE = 2 };

/* A list of exactly n numbers; sign: ANY, POSITIVE or NONNEGATIVE. */
static int get_vec(struct loader *L, const char *what, double *out, int n, int sign)
{
	char el[300];
	if (L->ev.type != YAML_SEQUENCE_START_EVENT) {
		snprintf(el, sizeof el, "a list of %d numbers", n);
		return err_type(L, what, el);
	}
	yaml_mark_t start = L->ev.start_mark;
	for (int i = 0; i < n; i++) {
		if (next(L))
			return -1;
		if (L->ev.type == YAML_SEQUENCE_END_EVENT)
			return err_at(L, start, "%s: expected %d numbers, got %d", what, n, i);
		int ok = !number_value(L, &out[i]) &&
			 (sign == ANY || out[i] > 0 || (sign == NONNEGATIVE && out[i] == 0));
		if (ok)
			continue;
		/* name the element only when something is wrong with it */
		snprintf(el, sizeof el, "%s[%d]", what, i);
		if (get_number(L, el, &out[i]))
			return -1;
		if (sign == POSITIVE && check_positive(L, el, out[i]))
			return -1;
		if (sign == NONNEGATIVE && check_nonnegative(L, el, out[i]))
			return -1;
	}
	if (next(L))
		return -1;
	if (L->ev.type != YAML_SEQUENCE_END_EVENT)
		return err_here(L, "%s: expected %d numbers, got more", what, n);
	return 0;
}

/* A list of exactly n integers in [lo, hi]. */
static int get_ints(struct loader *L, const char *what, long long *out, int n, long long lo,
		    long long hi)
{
	char expected[64], el[300];
	snprintf(expected, sizeof expected, "a list of %d integers", n);
	if (L->ev.type != YAML_SEQUENCE_START_EVENT)
		return err_type(L, what, expected);
	yaml_mark_t start = L->ev.start_mark;
	for (int i = 0; i < n; i++) {
		if (next(L))
			return -1;
		if (L->ev.type == YAML_SEQUENCE_END_EVENT)
			return err_at(L, start, "%s: expected %d integers, got %d", what, n, i);
		snprintf(el, sizeof el, "%s[%d]", what, i);
		if (get_int_range(L, el, lo, hi, &out[i]))
			return -1;
	}
	if (next(L))
		return -1;
	if (L->ev.type != YAML_SEQUENCE_END_EVENT)
		return err_here(L, "%s: expected %d integers, got more", what, n);
	return 0;
}

/* A unit quaternion w, x, y, z; nearly unit ones are normalised. */
static int get_quat(struct loader *L, const char *what, double q[4])
{
	yaml_mark_t start = L->ev.start_mark;
	if (get_vec(L, what, q, 4, ANY))
		return -1;
	double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
	if (n == 0)
		return err_at(L, start, "%s: the zero quaternion is not a rotation", what);
	if (fabs(n - 1) > QUAT_NORM_TOL)
		return err_at(L, start,
			      "%s: not a unit quaternion (norm %.6g; write w, x, y, z with "
			      "w^2 + x^2 + y^2 + z^2 = 1)", what, n);
	quat_normalize(q);
	return 0;
}

/* ---- shapes */

static const char *const sphere_keys[] = {"triangles", "radius", "noise", "stretch",
					  "stretch_axis", "seed"};
enum { SP_TRIANGLES, SP_RADIUS, SP_NOISE, SP_STRETCH, SP_AXIS, SP_SEED, SP_N };
static const char *const axis_names[] = {"x", "y", "z"};

static int parse_sphere(struct loader *L, const char *what, struct mrdem_sphere_opts *o)
{
	struct keyset k;
	int id, r;
	long long n;
	keyset_init(&k, what, sphere_keys, SP_N, ALL_KEYS(SP_N));
	if (map_begin(L, &k))
		return -1;
	while ((r = map_next(L, &k, &id)) > 0) {
		switch (id) {
		case SP_TRIANGLES:
			if (get_int_range(L, k.cur, 1, UINT32_MAX, &n) || plan_triangles(L, k.cur, n))
				return -1;
			o->triangles = (uint32_t)n;
			break;
		case SP_RADIUS:
			if (get_number(L, k.cur, &o->radius) || check_positive(L, k.cur, o->radius))
				return -1;
			break;
		case SP_NOISE:
			if (get_number(L, k.cur, &o->noise))
				return -1;
			if (o->noise < 1)
				return err_here(L, "%s: must be at least 1 (vertex radii lie in "
					       "[radius, noise * radius]), got %s", k.cur, scalar(L));
			break;
		case SP_STRETCH:
			if (get_number(L, k.cur, &o->stretch) || check_positive(L, k.cur, o->stretch))
				return -1;
			break;
		case SP_AXIS:
			if (get_enum(L, k.cur, axis_names, 3, &o->stretch_axis))
				return -1;
			break;
		case SP_SEED:
			if (get_u64(L, k.cur, &o->seed))
				return -1;
			break;
		}
	}
	return r;
}

static const char *const box_keys[] = {"size", "divisions"};
static const char *const cylinder_keys[] = {"radius", "height", "segments"};
static const char *const plane_keys[] = {"size", "divisions", "tilt"};

struct shape_spec {
	int kind;                     /* SH_SPHERE ... SH_MESH */
	struct mrdem_sphere_opts sphere;
	double size[3];               /* box; plane uses two */
	long long div[2];             /* box uses div[0] */
	double radius, height, tilt;
	long long segments;
	char *file;                   /* mesh */
	char *select;                 /* shape name within a mesh stream */
	int open;
};

static int parse_box(struct loader *L, const char *what, struct shape_spec *sp)
{
	struct keyset k;
	int id, r;
	keyset_init(&k, what, box_keys, 2, ALL_KEYS(2));
	if (map_begin(L, &k))
		return -1;
	while ((r = map_next(L, &k, &id)) > 0) {
		if (id == 0 && get_vec(L, k.cur, sp->size, 3, POSITIVE))
			return -1;
		if (id == 1 && (get_int_range(L, k.cur, 1, 1 << 16, &sp->div[0]) ||
				plan_triangles(L, k.cur, 12 * (uint64_t)(sp->div[0] * sp->div[0]))))
			return -1;
	}
	if (r < 0 || map_require(L, &k, 0))
		return -1;
	return 0;
}

static int parse_cylinder(struct loader *L, const char *what, struct shape_spec *sp)
{
	struct keyset k;
	int id, r;
	keyset_init(&k, what, cylinder_keys, 3, ALL_KEYS(3));
	if (map_begin(L, &k))
		return -1;
	while ((r = map_next(L, &k, &id)) > 0) {
		if (id == 0 && (get_number(L, k.cur, &sp->radius) ||
				check_positive(L, k.cur, sp->radius)))
			return -1;
		if (id == 1 && (get_number(L, k.cur, &sp->height) ||
				check_positive(L, k.cur, sp->height)))
			return -1;
		if (id == 2 && (get_int_range(L, k.cur, 3, 1 << 20, &sp->segments) ||
				plan_triangles(L, k.cur, 4 * (uint64_t)sp->segments)))
			return -1;
	}
	if (r < 0 || map_require(L, &k, 0) || map_require(L, &k, 1))
		return -1;
	return 0;
}

static int parse_plane_shape(struct loader *L, const char *what, struct shape_spec *sp)
{
	struct keyset k;
	int id, r;
	keyset_init(&k, what, plane_keys, 3, ALL_KEYS(3));
	if (map_begin(L, &k))
		return -1;
	while ((r = map_next(L, &k, &id)) > 0) {
		if (id == 0 && get_vec(L, k.cur, sp->size, 2, POSITIVE))
			return -1;
		if (id == 1 && (get_ints(L, k.cur, sp->div, 2, 1, 1 << 16) ||
				plan_triangles(L, k.cur, 2 * (uint64_t)(sp->div[0] * sp->div[1]))))
			return -1;
		if (id == 2 && get_number(L, k.cur, &sp->tilt))
			return -1;
	}
	if (r < 0 || map_require(L, &k, 0))
		return -1;
	return 0;
}

/* A mesh file relative to the scene's directory unless absolute. */
static char *resolve_path(const struct loader *L, const char *file)
{
	if (file[0] == '/' || !L->dir[0])
		return mrdem_xstrdup(file);
	size_t n = strlen(L->dir) + strlen(file) + 1;
	char *p = mrdem_xmalloc(n);
	snprintf(p, n, "%s%s", L->dir, file);
	return p;
}

static const char *const shape_keys[] = {"sphere", "box", "cylinder", "plane", "mesh", "open",
					 "shape"};
enum { SH_SPHERE, SH_BOX, SH_CYLINDER, SH_PLANE, SH_MESH, SH_OPEN, SH_SELECT, SH_N };

/* The shape's mesh, and for a mesh stream the tree stored with it (*tree,
 * else NULL) and where it came from (*origin). */
static int build_mesh(const struct loader *L, const struct keyset *k, const struct shape_spec *sp,
		      struct mrdem_mesh *m, struct mrdem_tree **tree, char **origin)
{
	int rc;
	*tree = NULL;
	*origin = NULL;
	switch (sp->kind) {
	case SH_SPHERE:
		rc = mrdem_mesh_sphere(m, &sp->sphere);
		break;
	case SH_BOX:
		rc = mrdem_mesh_box(m, sp->size, (unsigned)sp->div[0]);
		break;
	case SH_CYLINDER:
		rc = mrdem_mesh_cylinder(m, sp->radius, sp->height, (unsigned)sp->segments);
		break;
	case SH_PLANE:
		rc = mrdem_mesh_plane(m, sp->size[0], sp->size[1], (unsigned)sp->div[0],
				      (unsigned)sp->div[1], sp->tilt);
		break;
	default: {
		/* A file: loaded and validated by formats/mesh_files. */
		char *path = resolve_path(L, sp->file);
		char *name = NULL;
		rc = mrdem_shape_load(path, sp->select, sp->open ? MRDEM_MESH_ALLOW_OPEN : 0, m,
				      &name, tree);
		if (rc == 0 && *tree) {
			size_t n = strlen(path) + strlen(name) + 32;
			*origin = mrdem_xmalloc(n);
			snprintf(*origin, n, "%s (tree record of shape %s)", path, name);
		}
		free(name);
		free(path);
		if (rc)
			return err_at(L, k->val[SH_MESH], "%s: cannot load mesh file '%s'", k->what,
				      sp->file);
		break;
	}
	}
	if (rc)
		return err_at(L, k->key[sp->kind], "%s: cannot generate the %s", k->what,
			      shape_keys[sp->kind]);
	if (sp->kind != SH_MESH &&
	    mrdem_mesh_validate(m, sp->kind == SH_PLANE ? MRDEM_MESH_ALLOW_OPEN : 0, k->what))
		return err_at(L, k->key[sp->kind], "%s: the generated %s is not a valid mesh",
			      k->what, shape_keys[sp->kind]);
	if (m->open)
		memset(&m->mass, 0, sizeof m->mass); /* no volume; its origin is the reference point */
	return 0;
}

static int parse_shape(struct loader *L, char *name, yaml_mark_t name_mark)
{
	char what[300];
	struct keyset k;
	struct shape_spec sp;
	struct mrdem_mesh m;
	int id, r;

	snprintf(what, sizeof what, "shapes.%s", name);
	memset(&sp, 0, sizeof sp);
	sp.kind = -1;
	mrdem_sphere_opts_default(&sp.sphere);
	sp.div[0] = sp.div[1] = 1;
	sp.segments = 32;
	keyset_init(&k, what, shape_keys, SH_N, ALL_KEYS(SH_N));
	if (map_begin(L, &k))
		return -1;
	while ((r = map_next(L, &k, &id)) > 0) {
		if (id != SH_OPEN && id != SH_SELECT && sp.kind >= 0) {
			free(sp.file);
			free(sp.select);
			return err_at(L, k.key[id], "%s: give one of sphere, box, cylinder, plane "
				      "or mesh, not both '%s' and '%s'", what, shape_keys[sp.kind],
				      shape_keys[id]);
		}
		if (id != SH_OPEN && id != SH_SELECT)
			sp.kind = id;
		switch (id) {
		case SH_SPHERE:
			r = parse_sphere(L, k.cur, &sp.sphere);
			break;
		case SH_BOX:
			r = parse_box(L, k.cur, &sp);
			break;
		case SH_CYLINDER:
			r = parse_cylinder(L, k.cur, &sp);
			break;
		case SH_PLANE:
			r = parse_plane_shape(L, k.cur, &sp);
			break;
		case SH_MESH:
			r = get_string(L, k.cur, &sp.file);
			break;
		case SH_OPEN:
			r = get_bool(L, k.cur, &sp.open);
			break;
		case SH_SELECT:
			r = get_string(L, k.cur, &sp.select);
			break;
		}
		if (r < 0)
			break;
	}
	if (r == 0 && sp.kind < 0)
		r = err_at(L, k.map, "%s: missing the mesh: give one of sphere, box, cylinder, "
			   "plane or mesh", what);
	if (r == 0 && (k.seen & BIT(SH_OPEN)) && sp.kind != SH_MESH)
		r = err_at(L, k.key[SH_OPEN], "%s: 'open' applies to mesh files only (a plane is "
			   "always open, the other generators always closed)", what);
	if (r == 0 && (k.seen & BIT(SH_SELECT)) && sp.kind != SH_MESH)
		r = err_at(L, k.key[SH_SELECT], "%s: 'shape' picks a shape of a mesh stream "
			   "given by 'mesh'", what);
	struct mrdem_tree *tree = NULL;
	char *origin = NULL;
	mrdem_mesh_init(&m);
	if (r == 0 && build_mesh(L, &k, &sp, &m, &tree, &origin))
		r = -1;
	free(sp.file);
	free(sp.select);
	if (r < 0) {
		mrdem_mesh_release(&m);
		mrdem_tree_free(tree);
		free(origin);
		return -1;
	}

	struct mrdem_scene *s = L->s;
	double zero[3] = {0, 0, 0};
	uint32_t i = mrdem_scene_add_shape(s, name, &m);
	s->shapes[i].tree = tree;
	s->shapes[i].tree_origin = origin;
	L->diameter = mrdem_xrealloc(L->diameter, s->nshapes * sizeof *L->diameter);
	L->shape_line = mrdem_xrealloc(L->shape_line, s->nshapes * sizeof *L->shape_line);
	const struct mrdem_mesh *sm = &s->shapes[i].mesh;
	L->diameter[i] = 2 * mrdem_mesh_radius_about(sm, sm->open ? zero : sm->mass.com);
	L->shape_line[i] = name_mark.line + 1;
	return 0;
}

static int parse_shapes(struct loader *L)
{
	if (L->ev.type != YAML_MAPPING_START_EVENT)
		return err_type(L, "shapes", "a mapping of shape names to shapes");
	for (;;) {
		if (next(L))
			return -1;
		if (L->ev.type == YAML_MAPPING_END_EVENT)
			return 0;
		char *name;
		yaml_mark_t mark = L->ev.start_mark;
		if (L->ev.type != YAML_SCALAR_EVENT)
			return err_type(L, "shapes", "a shape name");
		if (get_string(L, "shapes", &name))
			return -1;
		long prev = mrdem_scene_find_shape(L->s, name);
		if (prev >= 0) {
			err_here(L, "shapes: duplicate shape '%s' (first at line %zu)", name,
				 L->shape_line[prev]);
			free(name);
			return -1;
		}
		int rc = next(L) ? -1 : parse_shape(L, name, mark);
		free(name);
		if (rc)
			return -1;
	}
}

/* ---- parameters */

static const char *const model_names[] = {"spring", "spring-dashpot"};
static const char *const scheme_names[] = {"explicit-euler", "symplectic-euler",
					   "velocity-verlet", "implicit-euler"};
static const char *const contact_keys[] = {"epsilon", "epsilon_abs", "stiffness", "model",
					   "damping", "friction", "plane_epsilon"};
enum { C_EPS, C_EPS_ABS, C_STIFFNESS, C_MODEL, C_DAMPING, C_FRICTION, C_PLANE_EPS, C_N };

static int parse_contact(struct loader *L)
{
	struct mrdem_setup *st = &L->s->setup;
	struct keyset k;
	int id, r;
	double x;
	keyset_init(&k, "contact", contact_keys, C_N, ALL_KEYS(C_N));
	if (map_begin(L, &k))
		return -1;
	while ((r = map_next(L, &k, &id)) > 0) {
		if (id == C_MODEL) {
			if (get_enum(L, k.cur, model_names, 2, &st->force_model))
				return -1;
			continue;
		}
		if (get_number(L, k.cur, &x))
			return -1;
		if ((id == C_DAMPING || id == C_FRICTION) ? check_nonnegative(L, k.cur, x)
							  : check_positive(L, k.cur, x))
			return -1;
		switch (id) {
		case C_EPS:
		case C_EPS_ABS:
			L->eps_default = x;
			L->eps_default_abs = id == C_EPS_ABS;
			break;
		case C_STIFFNESS:
			st->stiffness = x;
			break;
		case C_DAMPING:
			st->damping = x;
			break;
		case C_FRICTION:
			st->friction = x;
			break;
		case C_PLANE_EPS:
			st->plane_epsilon = x;
			break;
		}
	}
	if (r < 0 || map_exclusive(L, &k, C_EPS, C_EPS_ABS))
		return -1;
	if ((k.seen & BIT(C_DAMPING)) && st->force_model != MRDEM_FORCE_SPRING_DASHPOT)
		return err_at(L, k.key[C_DAMPING], "contact: damping applies to model: "
			      "spring-dashpot only (the paper's spring has no damping)");
	return 0;
}

static const char *const time_keys[] = {"dt", "steps", "scheme"};

static int parse_time(struct loader *L)
{
	struct mrdem_setup *st = &L->s->setup;
	struct keyset k;
	int id, r;
	keyset_init(&k, "time", time_keys, 3, ALL_KEYS(3));
	if (map_begin(L, &k))
		return -1;
	while ((r = map_next(L, &k, &id)) > 0) {
		if (id == 0 && (get_number(L, k.cur, &st->dt) || check_positive(L, k.cur, st->dt)))
			return -1;
		if (id == 1 && get_u64(L, k.cur, &st->steps))
			return -1;
		if (id == 2 && get_enum(L, k.cur, scheme_names, 4, &st->scheme))
			return -1;
	}
	return r;
}

static const char *const output_keys[] = {"every"};

static int parse_output(struct loader *L)
{
	struct keyset k;
	int id, r;
	keyset_init(&k, "output", output_keys, 1, ALL_KEYS(1));
	if (map_begin(L, &k))
		return -1;
	while ((r = map_next(L, &k, &id)) > 0) {
		if (get_u64(L, k.cur, &L->s->setup.output_every))
			return -1;
		if (L->s->setup.output_every == 0)
			return err_here(L, "%s: must be positive, got 0", k.cur);
	}
	return r;
}

static const char *const plane_keys_analytic[] = {"point", "normal"};

static int parse_planes(struct loader *L)
{
	struct mrdem_setup *st = &L->s->setup;
	char what[64];
	if (L->ev.type != YAML_SEQUENCE_START_EVENT)
		return err_type(L, "planes", "a list of planes");
	for (;;) {
		struct keyset k;
		struct mrdem_plane pl = {{0, 0, 0}, {0, 0, 0}};
		int id, r;
		if (next(L))
			return -1;
		if (L->ev.type == YAML_SEQUENCE_END_EVENT)
			return 0;
		snprintf(what, sizeof what, "planes[%" PRIu32 "]", st->nplanes);
		keyset_init(&k, what, plane_keys_analytic, 2, ALL_KEYS(2));
		if (map_begin(L, &k))
			return -1;
		while ((r = map_next(L, &k, &id)) > 0) {
			if (id == 0 && get_vec(L, k.cur, pl.point, 3, ANY))
				return -1;
			if (id == 1 && get_vec(L, k.cur, pl.normal, 3, ANY))
				return -1;
		}
		if (r < 0 || map_require(L, &k, 0) || map_require(L, &k, 1))
			return -1;
		double *n = pl.normal;
		double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
		if (!(len > 0))
			return err_at(L, k.val[1], "%s.normal: the zero vector has no direction", what);
		for (int i = 0; i < 3; i++)
			n[i] /= len;
		if (st->nplanes >= UINT32_MAX / 2)
			return err_here(L, "planes: too many planes");
		st->planes = mrdem_xrealloc(st->planes, (st->nplanes + 1) * sizeof *st->planes);
		st->planes[st->nplanes++] = pl;
	}
}

/* ---- particles */

static const char *const pkey_names[] = {
	"shape", "position", "velocity", "orientation", "angular_velocity", "density", "mass",
	"epsilon", "epsilon_abs", "fixed", "lattice", "origin", "count", "spacing", "jitter",
	"rotate", "seed",
};
enum {
	P_SHAPE, P_POSITION, P_VELOCITY, P_ORIENTATION, P_ANGVEL, P_DENSITY, P_MASS, P_EPS,
	P_EPS_ABS, P_FIXED, P_LATTICE, P_ORIGIN, P_COUNT, P_SPACING, P_JITTER, P_ROTATE, P_SEED,
	P_N
};
#define P_COMMON (BIT(P_SHAPE) | BIT(P_VELOCITY) | BIT(P_ORIENTATION) | BIT(P_ANGVEL) | \
		  BIT(P_DENSITY) | BIT(P_MASS) | BIT(P_EPS) | BIT(P_EPS_ABS) | BIT(P_FIXED))
#define P_PARTICLE (P_COMMON | BIT(P_POSITION))
#define P_LATTICE_KEYS (P_COMMON | BIT(P_ORIGIN) | BIT(P_COUNT) | BIT(P_SPACING) | \
			BIT(P_JITTER) | BIT(P_ROTATE) | BIT(P_SEED))

/* One particle or one lattice of identical particles, as written. */
struct pspec {
	struct keyset k;
	uint32_t shape;
	double pos[3], vel[3], quat[4], angvel[3];
	double density, mass, eps;
	int fixed, rotate;
	double spacing[3], jitter;
	long long count[3];
	uint64_t seed;
};

static int parse_shape_ref(struct loader *L, const char *what, uint32_t *out)
{
	const struct mrdem_scene *s = L->s;
	if (L->ev.type != YAML_SCALAR_EVENT || L->ev.data.scalar.length == 0)
		return err_type(L, what, "a shape name");
	long i = mrdem_scene_find_shape(s, scalar(L));
	if (i >= 0) {
		*out = (uint32_t)i;
		return 0;
	}
	char list[512] = "";
	size_t len = 0;
	for (uint32_t j = 0; j < s->nshapes; j++)
		len += snprintf(list + len, len < sizeof list ? sizeof list - len : 0, "%s%s",
				j ? ", " : "", s->shapes[j].name);
	if (!s->nshapes)
		return err_here(L, "%s: unknown shape '%s' (the scene defines no shapes)", what,
				scalar(L));
	return err_here(L, "%s: unknown shape '%s' (defined: %s)", what, scalar(L), list);
}

static int parse_pfield(struct loader *L, struct pspec *p, int id)
{
	const char *w = p->k.cur;
	switch (id) {
	case P_SHAPE:
		return parse_shape_ref(L, w, &p->shape);
	case P_POSITION:
		return get_vec(L, w, p->pos, 3, ANY);
	case P_ORIGIN:
		return get_vec(L, w, p->pos, 3, ANY);
	case P_VELOCITY:
		return get_vec(L, w, p->vel, 3, ANY);
	case P_ANGVEL:
		return get_vec(L, w, p->angvel, 3, ANY);
	case P_ORIENTATION:
		return get_quat(L, w, p->quat);
	case P_DENSITY:
		return get_number(L, w, &p->density) || check_positive(L, w, p->density) ? -1 : 0;
	case P_MASS:
		return get_number(L, w, &p->mass) || check_positive(L, w, p->mass) ? -1 : 0;
	case P_EPS:
	case P_EPS_ABS:
		return get_number(L, w, &p->eps) || check_positive(L, w, p->eps) ? -1 : 0;
	case P_FIXED:
		return get_bool(L, w, &p->fixed);
	case P_ROTATE:
		return get_bool(L, w, &p->rotate);
	case P_SEED:
		return get_u64(L, w, &p->seed);
	case P_JITTER:
		return get_number(L, w, &p->jitter) || check_nonnegative(L, w, p->jitter) ? -1 : 0;
	case P_COUNT:
		return get_ints(L, w, p->count, 3, 1, INT32_MAX);
	case P_SPACING:
		if (L->ev.type == YAML_SCALAR_EVENT) {
			if (get_number(L, w, &p->spacing[0]) || check_positive(L, w, p->spacing[0]))
				return -1;
			p->spacing[1] = p->spacing[2] = p->spacing[0];
			return 0;
		}
		return get_vec(L, w, p->spacing, 3, POSITIVE);
	}
	return err_here(L, "%s: internal error: key without parser", w);
}

/* Room for n more particles, the scene's total checked against the limits
 * first. A list grows by doubling, but never past what memory allows. */
static int reserve_particles(struct loader *L, const struct keyset *k, int lattice, uint64_t n)
{
	struct mrdem_particles *pa = &L->s->frame.p;
	uint64_t total = pa->n + n;
	char what[300];
	snprintf(what, sizeof what, "%s%s", k->what, lattice ? ".count" : "");
	if (check_size(L, k->val[lattice ? P_COUNT : P_SHAPE], what, "particles in the scene", total,
		       MRDEM_SCENE_MAX_PARTICLES, "MRDEM_SCENE_MAX_PARTICLES",
		       MRDEM_SCENE_PARTICLE_BYTES))
		return -1;
	uint64_t cap = total;
	if (!lattice && cap < 2 * (uint64_t)pa->cap) {
		double room = (L->mem_avail - L->mem_planned) / MRDEM_SCENE_PARTICLE_BYTES;
		cap = 2 * (uint64_t)pa->cap;
		if (cap > MRDEM_SCENE_MAX_PARTICLES)
			cap = MRDEM_SCENE_MAX_PARTICLES;
		if ((double)cap > room)
			cap = total > (uint64_t)room ? total : (uint64_t)room;
	}
	mrdem_particles_reserve(pa, (size_t)cap);
	return 0;
}

/* Check what was written against the shape and append the particle(s). */
static int add_particles(struct loader *L, struct pspec *p, int lattice)
{
	const struct keyset *k = &p->k;
	struct mrdem_scene *s = L->s;
	struct mrdem_particles *pa = &s->frame.p;

	if (map_require(L, k, P_SHAPE))
		return -1;
	if (lattice ? map_require(L, k, P_COUNT) || map_require(L, k, P_SPACING)
		    : map_require(L, k, P_POSITION))
		return -1;
	if (map_exclusive(L, k, P_DENSITY, P_MASS) || map_exclusive(L, k, P_EPS, P_EPS_ABS))
		return -1;
	const struct mrdem_shape *sh = &s->shapes[p->shape];
	if (p->fixed) {
		static const int moving[] = {P_DENSITY, P_MASS, P_VELOCITY, P_ANGVEL};
		for (int i = 0; i < 4; i++)
			if (k->seen & BIT(moving[i]))
				return err_at(L, k->key[moving[i]], "%s: a fixed particle is immovable: "
					      "'%s' does not apply", k->what, pkey_names[moving[i]]);
	} else if (sh->mesh.open) {
		return err_at(L, k->val[P_SHAPE], "%s: shape '%s' is an open mesh: only fixed "
			      "particles (fixed: true) may use it", k->what, sh->name);
	}
	if (sh->mesh.open && (k->seen & BIT(P_EPS)))
		return err_at(L, k->key[P_EPS], "%s: shape '%s' is an open mesh without a "
			      "diameter: give epsilon_abs instead of a relative epsilon", k->what,
			      sh->name);
	if (lattice && p->rotate && (k->seen & BIT(P_ORIENTATION)))
		return err_at(L, k->key[P_ORIENTATION], "%s: give 'orientation' or 'rotate: true', "
			      "not both", k->what);

	double density = 1.0, eps;
	if (k->seen & BIT(P_MASS)) {
		density = p->mass / sh->mesh.mass.volume;
		if (!isfinite(density) || !(density > 0))
			return err_at(L, k->val[P_MASS], "%s: mass %g gives no finite density for "
				      "shape '%s' of volume %g", k->what, p->mass, sh->name,
				      sh->mesh.mass.volume);
	} else if (k->seen & BIT(P_DENSITY)) {
		density = p->density;
	}
	if (k->seen & BIT(P_EPS_ABS))
		eps = p->eps;
	else if (k->seen & BIT(P_EPS))
		eps = p->eps * L->diameter[p->shape];
	else if (sh->mesh.open)
		eps = s->setup.plane_epsilon;
	else if (L->eps_default_abs)
		eps = L->eps_default;
	else
		eps = L->eps_default * L->diameter[p->shape];
	if (!(eps > 0) || !isfinite(eps))
		return err_at(L, k->map, "%s: epsilon %g of shape '%s' is not a positive length",
			      k->what, eps, sh->name);

	uint64_t n = 1;
	for (int d = 0; lattice && d < 3 && n <= MRDEM_SCENE_MAX_PARTICLES; d++)
		n *= (uint64_t)p->count[d]; /* each count < 2^31: no overflow before the check */
	if (pa->n + n > pa->cap && reserve_particles(L, k, lattice, n))
		return -1;

	struct mrdem_rng rng;
	mrdem_rng_seed(&rng, p->seed);
	long long nx = lattice ? p->count[0] : 1, ny = lattice ? p->count[1] : 1;
	long long nz = lattice ? p->count[2] : 1;
	for (long long z = 0; z < nz; z++)
		for (long long y = 0; y < ny; y++)
			for (long long x = 0; x < nx; x++) {
				size_t i = mrdem_particles_push(pa, pa->n, p->shape);
				double *pos = &pa->pos[3 * i], *q = &pa->quat[4 * i];
				pos[0] = p->pos[0] + (double)x * p->spacing[0];
				pos[1] = p->pos[1] + (double)y * p->spacing[1];
				pos[2] = p->pos[2] + (double)z * p->spacing[2];
				if (lattice && p->jitter > 0)
					for (int d = 0; d < 3; d++)
						pos[d] += mrdem_rng_range(&rng, -p->jitter, p->jitter);
				if (lattice && p->rotate)
					mrdem_rng_quat(&rng, q);
				else
					memcpy(q, p->quat, sizeof p->quat);
				memcpy(&pa->vel[3 * i], p->vel, sizeof p->vel);
				memcpy(&pa->angvel[3 * i], p->angvel, sizeof p->angvel);
				pa->density[i] = density;
				pa->eps[i] = eps;
				pa->flags[i] = p->fixed ? MRDEM_PARTICLE_FIXED : 0;
			}
	return 0;
}

static void pspec_init(struct pspec *p)
{
	memset(p, 0, sizeof *p);
	quat_identity(p->quat);
}

static int parse_particle_item(struct loader *L, const char *what)
{
	struct pspec p;
	struct keyset item;
	char lwhat[300];
	int id, r;

	pspec_init(&p);
	keyset_init(&item, what, pkey_names, P_N, P_PARTICLE | BIT(P_LATTICE));
	if (map_begin(L, &item))
		return -1;
	r = map_next(L, &item, &id);
	if (r > 0 && id == P_LATTICE) {
		snprintf(lwhat, sizeof lwhat, "%s.lattice", what);
		keyset_init(&p.k, lwhat, pkey_names, P_N, P_LATTICE_KEYS);
		if (map_begin(L, &p.k))
			return -1;
		while ((r = map_next(L, &p.k, &id)) > 0)
			if (parse_pfield(L, &p, id))
				return -1;
		if (r < 0 || add_particles(L, &p, 1))
			return -1;
		r = map_next(L, &item, &id);
		if (r > 0)
			return err_at(L, item.key[id], "%s: a lattice is a list item of its own "
				      "(- lattice: {...}); '%s' does not belong beside it", what,
				      pkey_names[id]);
		return r;
	}
	p.k = item;
	for (; r > 0; r = map_next(L, &p.k, &id)) {
		if (id == P_LATTICE)
			return err_at(L, p.k.key[id], "%s: a lattice is a list item of its own "
				      "(- lattice: {...}), not a key of a particle", what);
		if (parse_pfield(L, &p, id))
			return -1;
	}
	if (r < 0)
		return -1;
	return add_particles(L, &p, 0);
}

static int parse_particles(struct loader *L)
{
	char what[64];
	size_t item = 0;
	if (L->ev.type != YAML_SEQUENCE_START_EVENT)
		return err_type(L, "particles", "a list of particles and lattices");
	yaml_mark_t start = L->ev.start_mark;
	for (;; item++) {
		if (next(L))
			return -1;
		if (L->ev.type == YAML_SEQUENCE_END_EVENT)
			break;
		snprintf(what, sizeof what, "particles[%zu]", item);
		if (parse_particle_item(L, what))
			return -1;
	}
	if (!item)
		return err_at(L, start, "particles: the list is empty");
	return 0;
}

/* ---- the document */

static const char *const top_keys[] = {"shapes", "particles", "planes", "gravity", "contact",
				       "time", "output"};
enum { T_SHAPES, T_PARTICLES, T_PLANES, T_GRAVITY, T_CONTACT, T_TIME, T_OUTPUT, T_N };

static int parse_pass(struct loader *L, int pass)
{
	struct keyset k;
	int id, r;

	L->pass = pass;
	if (L->parser_live)
		yaml_parser_delete(&L->parser);
	if (!yaml_parser_initialize(&L->parser))
		return mrdem_error("%s: cannot initialise the yaml parser", L->file);
	L->parser_live = 1;
	yaml_parser_set_input_string(&L->parser, L->text, L->len);

	if (next(L) || next(L)) /* stream start, then the first document */
		return -1;
	if (L->ev.type == YAML_STREAM_END_EVENT)
		return err_here(L, "empty scene: expected a mapping with at least 'shapes' and "
				"'particles'");
	if (next(L))
		return -1;
	keyset_init(&k, "scene", top_keys, T_N, ALL_KEYS(T_N));
	if (map_begin(L, &k))
		return -1;
	while ((r = map_next(L, &k, &id)) > 0) {
		if (pass == 2) {
			r = id == T_PARTICLES ? parse_particles(L) : skip_node(L);
		} else {
			switch (id) {
			case T_SHAPES:
				r = parse_shapes(L);
				break;
			case T_PARTICLES:
				/* Shapes can no longer change (a second 'shapes' key is an
				 * error), so read the particles now unless a later
				 * 'contact' changes their default epsilon. */
				if (k.seen & BIT(T_SHAPES)) {
					r = parse_particles(L);
					L->particles_done = 1;
				} else {
					r = skip_node(L);
				}
				break;
			case T_PLANES:
				r = parse_planes(L);
				break;
			case T_GRAVITY:
				r = get_vec(L, k.cur, L->s->setup.gravity, 3, ANY);
				break;
			case T_CONTACT:
				r = parse_contact(L);
				if (L->particles_done) {
					L->s->frame.p.n = 0;
					L->particles_done = 0;
				}
				break;
			case T_TIME:
				r = parse_time(L);
				break;
			case T_OUTPUT:
				r = parse_output(L);
				break;
			}
		}
		if (r < 0)
			return -1;
	}
	if (r < 0 || map_require(L, &k, T_PARTICLES))
		return -1;
	if (next(L) || next(L)) /* document end, then the stream end */
		return -1;
	if (L->ev.type != YAML_STREAM_END_EVENT)
		return err_here(L, "a scene file holds one yaml document, found another");
	return 0;
}

static int read_all(struct loader *L, const char *path)
{
	int is_stdin = !strcmp(path, "-");
	FILE *f = is_stdin ? stdin : fopen(path, "rb");
	if (!f)
		return mrdem_error("%s: cannot open: %s", path, strerror(errno));
	size_t cap = 1 << 16, len = 0;
	unsigned char *buf = mrdem_xmalloc(cap);
	for (;;) {
		if (len == cap && 2.0 * (double)cap > L->mem_avail) {
			if (!is_stdin)
				fclose(f);
			free(buf);
			return mrdem_error("%s: too large to read into the %.3g GB of memory available",
					   path, L->mem_avail / 1e9);
		}
		if (len == cap)
			buf = mrdem_xrealloc(buf, cap *= 2);
		size_t got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	int bad = ferror(f);
	if (!is_stdin)
		fclose(f);
	if (bad) {
		free(buf);
		return mrdem_error("%s: read error", path);
	}
	L->text = buf;
	L->len = len;
	return 0;
}

int mrdem_scene_load_yaml(const char *path, struct mrdem_scene *s)
{
	struct loader L;
	int rc = -1;

	memset(&L, 0, sizeof L);
	L.s = s;
	L.file = !strcmp(path, "-") ? "<stdin>" : path;
	L.eps_default = 0.01; /* paper Sec. 6.1: 1 % of the particle diameter */
	L.mem_avail = memory_available();
	const char *slash = strrchr(path, '/');
	size_t dlen = slash && strcmp(path, "-") ? (size_t)(slash - path) + 1 : 0;
	L.dir = mrdem_xmalloc(dlen + 1);
	memcpy(L.dir, path, dlen);
	L.dir[dlen] = 0;

	if (!read_all(&L, path) && !parse_pass(&L, 1) && (L.particles_done || !parse_pass(&L, 2)))
		rc = 0;

	if (L.have_ev)
		yaml_event_delete(&L.ev);
	if (L.parser_live)
		yaml_parser_delete(&L.parser);
	free(L.text);
	free(L.dir);
	free(L.diameter);
	free(L.shape_line);
	if (rc)
		mrdem_scene_release(s);
	return rc;
}
