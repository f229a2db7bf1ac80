/* STL import (ASCII and binary, told apart by the binary size rule
 * 84 + 50 * n) and export. STL is a triangle soup: vertices are welded
 * where their coordinates are exactly equal. Facet normals are ignored on
 * input (validation orients the surface) and recomputed on output. */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/vec3.h"
#include "common/mesh/mesh_weld.h"
#include "common/util/error.h"
#include "formats/stream/bytes.h"
#include "formats/foreign/mesh_files.h"
#include "formats/stream/outfile.h"

#define MAX_TRIANGLES (UINT32_MAX / 3 - 1)

static int read_all(const char *path, const char *name, unsigned char **data, size_t *len)
{
	int std = !path || !strcmp(path, "-");
	FILE *f = std ? stdin : fopen(path, "rb");
	if (!f)
		return mrdem_error("%s: cannot open: %s", name, strerror(errno));
	size_t cap = 1 << 16, n = 0;
	unsigned char *buf = mrdem_xmalloc(cap + 1);
	size_t got;
	while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			cap *= 2;
			buf = mrdem_xrealloc(buf, cap + 1);
		}
	}
	int err = ferror(f);
	if (!std)
		fclose(f);
	if (err) {
		free(buf);
		return mrdem_error("%s: read error", name);
	}
	buf[n] = 0;
	*data = buf;
	*len = n;
	return 0;
}

struct soup {
	struct mrdem_weld w;
	uint32_t *t;
	size_t nt, cap;
};

/* Add one facet; 1 when its corners weld into fewer than three vertices. */
static int soup_add(struct soup *s, const double p[3][3])
{
	uint32_t id[3];
	for (int i = 0; i < 3; i++)
		if (mrdem_weld_add(&s->w, p[i], &id[i]) < 0)
			return -1;
	if (id[0] == id[1] || id[1] == id[2] || id[0] == id[2])
		return 1;
	if (s->nt == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->t = mrdem_xrealloc(s->t, s->cap * 3 * sizeof *s->t);
	}
	memcpy(&s->t[3 * s->nt++], id, sizeof id);
	return 0;
}

static float get_f32le(const unsigned char *p)
{
	struct mrdem_cursor c;
	mrdem_cursor_init(&c, p, 4);
	return mrdem_get_f32(&c);
}

static int read_binary(const char *name, const unsigned char *d, uint32_t n, struct soup *s)
{
	for (uint32_t t = 0; t < n; t++) {
		const unsigned char *f = d + 84 + 50 * (size_t)t + 12; /* skip the normal */
		double p[3][3];
		for (int i = 0; i < 3; i++)
			for (int k = 0; k < 3; k++)
				p[i][k] = get_f32le(f + 12 * i + 4 * k);
		/* one message naming file, facet and corner (the weld's own
		 * would name neither) */
		for (int i = 0; i < 3; i++)
			if (!isfinite(p[i][0] + p[i][1] + p[i][2]))
				return mrdem_error("%s: facet %u: vertex %d (%g, %g, %g) is not finite",
						   name, t, i, p[i][0], p[i][1], p[i][2]);
		int rc = soup_add(s, p);
		if (rc < 0)
			return mrdem_error("%s: facet %u: bad vertex", name, t);
		if (rc > 0)
			return mrdem_error("%s: facet %u is degenerate: two of its corners are the "
					   "same point",
					   name, t);
	}
	return 0;
}

/* Tokens of an ASCII STL with line numbers. */
struct lexer {
	const char *name;
	char *p;
	unsigned long line;
	char tok[64];
};

/* Next whitespace-separated token (truncated to 63 chars), or NULL. */
static const char *next(struct lexer *x)
{
	while (*x->p && isspace((unsigned char)*x->p)) {
		if (*x->p == '\n')
			x->line++;
		x->p++;
	}
	if (!*x->p)
		return NULL;
	size_t n = 0;
	while (*x->p && !isspace((unsigned char)*x->p)) {
		if (n < sizeof x->tok - 1)
			x->tok[n++] = *x->p;
		x->p++;
	}
	x->tok[n] = 0;
	return x->tok;
}

static void skip_line(struct lexer *x)
{
	while (*x->p && *x->p != '\n')
		x->p++;
}

static int expect(struct lexer *x, const char *word)
{
	const char *t = next(x);
	char esc[256];
	if (!t || strcmp(t, word))
		return mrdem_error("%s:%lu: expected '%s', found %s%s%s", x->name, x->line, word,
				   t ? "'" : "", t ? mrdem_escape(esc, sizeof esc, t) : "end of file",
				   t ? "'" : "");
	return 0;
}

static int number(struct lexer *x, double *v)
{
	const char *t = next(x);
	char *end, esc[256];
	if (!t)
		return mrdem_error("%s:%lu: expected a number, found end of file", x->name, x->line);
	errno = 0;
	*v = strtod(t, &end);
	/* escaped: a stray control byte would print as nothing */
	if (end == t || *end)
		return mrdem_error("%s:%lu: bad number '%s'", x->name, x->line,
				   mrdem_escape(esc, sizeof esc, t));
	if (!isfinite(*v) || errno == ERANGE)
		return mrdem_error("%s:%lu: '%s' is not a finite number", x->name, x->line,
				   mrdem_escape(esc, sizeof esc, t));
	return 0;
}

static int read_ascii(const char *name, char *text, struct soup *s)
{
	struct lexer x = { .name = name, .p = text, .line = 1 };
	const char *t = next(&x);
	if (!t || strcmp(t, "solid"))
		return mrdem_error("%s:%lu: not an STL file: expected 'solid'", name, x.line);
	skip_line(&x); /* the solid's name */
	for (;;) {
		t = next(&x);
		if (!t)
			return mrdem_error("%s:%lu: missing 'endsolid'", name, x.line);
		if (!strcmp(t, "endsolid")) {
			skip_line(&x);
			t = next(&x); /* another solid may follow */
			if (!t)
				return 0;
			if (strcmp(t, "solid"))
				return mrdem_error("%s:%lu: expected 'solid' or end of file, found "
						   "'%s'",
						   name, x.line, t);
			skip_line(&x);
			continue;
		}
		if (strcmp(t, "facet"))
			return mrdem_error("%s:%lu: expected 'facet' or 'endsolid', found '%s'", name,
					   x.line, t);
		unsigned long facet_line = x.line;
		double n[3], p[3][3];
		if (expect(&x, "normal") || number(&x, &n[0]) || number(&x, &n[1]) ||
		    number(&x, &n[2]) || expect(&x, "outer") || expect(&x, "loop"))
			return -1;
		for (int i = 0; i < 3; i++)
			if (expect(&x, "vertex") || number(&x, &p[i][0]) || number(&x, &p[i][1]) ||
			    number(&x, &p[i][2]))
				return -1;
		if (expect(&x, "endloop") || expect(&x, "endfacet"))
			return -1;
		if (s->nt >= MAX_TRIANGLES)
			return mrdem_error("%s:%lu: too many facets", name, facet_line);
		int rc = soup_add(s, p);
		if (rc < 0)
			return -1;
		if (rc > 0)
			return mrdem_error("%s:%lu: facet is degenerate: two of its corners are the "
					   "same point",
					   name, facet_line);
	}
}

int mrdem_mesh_read_stl(const char *path, struct mrdem_mesh *m)
{
	const char *name = !path || !strcmp(path, "-") ? "<stdin>" : path;
	unsigned char *d = NULL;
	size_t len = 0;
	if (read_all(path, name, &d, &len) < 0)
		return -1;
	struct soup s = { .t = NULL };
	int rc;
	uint32_t n = 0;
	if (len >= 84) {
		struct mrdem_cursor c;
		mrdem_cursor_init(&c, d + 80, 4);
		n = mrdem_get_u32(&c);
	}
	if (len >= 84 && len == 84 + 50 * (uint64_t)n) {
		if (n == 0 || n > MAX_TRIANGLES) {
			free(d);
			return mrdem_error("%s: binary STL with %u facets", name, n);
		}
		mrdem_weld_init(&s.w, n / 2 + 16);
		rc = read_binary(name, d, n, &s);
	} else {
		size_t i = 0;
		while (i < len && isspace(d[i]))
			i++;
		if (len - i < 5 || memcmp(d + i, "solid", 5)) {
			if (len >= 84)
				rc = mrdem_error("%s: not an STL file: not ASCII (no 'solid' at the "
						 "start) and not binary (%zu bytes, but the header's "
						 "%u facets need %llu)",
						 name, len, n, 84 + 50 * (unsigned long long)n);
			else
				rc = mrdem_error("%s: not an STL file: not ASCII (no 'solid' at the "
						 "start) and too short for binary STL (%zu bytes)",
						 name, len);
			free(d);
			return rc;
		}
		if (memchr(d, 0, len)) {
			free(d);
			return mrdem_error("%s: not an ASCII STL file (it contains NUL bytes) and its "
					   "size does not fit binary STL",
					   name);
		}
		mrdem_weld_init(&s.w, 0);
		rc = read_ascii(name, (char *)d, &s);
		if (!rc && !s.nt)
			rc = mrdem_error("%s: no facets", name);
	}
	free(d);
	if (rc) {
		mrdem_weld_release(&s.w);
		free(s.t);
		return -1;
	}
	mrdem_mesh_release(m);
	m->verts = mrdem_weld_take(&s.w, &m->nverts);
	m->tris = mrdem_xrealloc(s.t, 3 * s.nt * sizeof *s.t);
	m->ntris = (uint32_t)s.nt;
	return 0;
}

static void unit_normal(const struct mrdem_mesh *m, uint32_t t, double n[3])
{
	const uint32_t *f = &m->tris[3 * (size_t)t];
	double e1[3], e2[3];
	vec3_sub(e1, &m->verts[3 * (size_t)f[1]], &m->verts[3 * (size_t)f[0]]);
	vec3_sub(e2, &m->verts[3 * (size_t)f[2]], &m->verts[3 * (size_t)f[0]]);
	vec3_cross(n, e1, e2);
	vec3_normalize(n);
}

int mrdem_mesh_write_stl(const char *path, const char *name, const struct mrdem_mesh *m,
			 int ascii)
{
	if (!ascii)
		for (size_t i = 0; i < 3 * (size_t)m->nverts; i++)
			if (!(fabs(m->verts[i]) <= FLT_MAX))
				return mrdem_error("%s: vertex %zu does not fit the single precision "
						   "of binary STL (coordinate %g); use stl-ascii",
						   path && strcmp(path, "-") ? path : "<stdout>",
						   i / 3, m->verts[i]);
	struct mrdem_outfile o;
	if (mrdem_outfile_open(&o, path, !ascii) < 0)
		return -1;
	char solid[80];
	snprintf(solid, sizeof solid, "%s", name && *name ? name : "mrdem");
	for (char *c = solid; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	if (ascii) {
		fprintf(o.f, "solid %s\n", solid);
		for (uint32_t t = 0; t < m->ntris; t++) {
			double n[3];
			unit_normal(m, t, n);
			fprintf(o.f, "  facet normal %.9g %.9g %.9g\n    outer loop\n", n[0], n[1], n[2]);
			for (int i = 0; i < 3; i++) {
				const double *v = &m->verts[3 * (size_t)m->tris[3 * (size_t)t + i]];
				fprintf(o.f, "      vertex %.17g %.17g %.17g\n", v[0], v[1], v[2]);
			}
			fprintf(o.f, "    endloop\n  endfacet\n");
		}
		fprintf(o.f, "endsolid %s\n", solid);
		return mrdem_outfile_commit(&o);
	}
	/* binary: the header must not start with "solid", or readers take it
	 * for ASCII */
	struct mrdem_buf b;
	mrdem_buf_init(&b);
	char header[80];
	memset(header, ' ', sizeof header);
	int hn = snprintf(header, sizeof header, "mrdem binary STL: %s", solid);
	if (hn >= 0 && hn < (int)sizeof header)
		header[hn] = ' ';
	mrdem_buf_bytes(&b, header, sizeof header);
	mrdem_buf_u32(&b, m->ntris);
	for (uint32_t t = 0; t < m->ntris; t++) {
		double n[3];
		unit_normal(m, t, n);
		for (int k = 0; k < 3; k++)
			mrdem_buf_f32(&b, (float)n[k]);
		for (int i = 0; i < 3; i++)
			for (int k = 0; k < 3; k++)
				mrdem_buf_f32(&b, (float)m->verts[3 * (size_t)m->tris[3 * (size_t)t + i] + k]);
		mrdem_buf_bytes(&b, "\0\0", 2);
	}
	int rc = 0;
	if (fwrite(b.p, 1, b.len, o.f) != b.len) {
		mrdem_outfile_abort(&o);
		rc = mrdem_error("%s: write error: %s", path && strcmp(path, "-") ? path : "standard output",
				 strerror(errno));
	} else {
		rc = mrdem_outfile_commit(&o);
	}
	mrdem_buf_release(&b);
	return rc;
}
