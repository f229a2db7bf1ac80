/* Wavefront OBJ import (v and f statements; polygons fan-triangulated) and
 * export. Texture coordinates, normals, groups, objects, smoothing groups
 * and materials are skipped: they do not change the solid. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"
#include "formats/foreign/mesh_files.h"
#include "formats/stream/outfile.h"

#define MAX_COUNT (UINT32_MAX / 3 - 1)

struct obj_reader {
	const char *name;
	unsigned long line;
	double *v;
	size_t nv, vcap;
	uint32_t *t;
	size_t nt, tcap;
	uint32_t *face; /* vertex indices of the face being read */
	size_t fcap;
};

/* arg is escaped: a stray control byte in a token would print as nothing. */
static int obj_error(const struct obj_reader *r, const char *fmt, const char *arg)
{
	char msg[512], esc[256];
	snprintf(msg, sizeof msg, fmt, mrdem_escape(esc, sizeof esc, arg));
	return mrdem_error("%s:%lu: %s", r->name, r->line, msg);
}

static int parse_vertex(struct obj_reader *r, char **save)
{
	double p[3];
	int n = 0;
	char *tok;
	while ((tok = strtok_r(NULL, " \t\r\n\v\f", save))) {
		char *end;
		errno = 0;
		double x = strtod(tok, &end);
		if (end == tok || *end)
			return obj_error(r, "bad number '%s' in vertex", tok);
		if (!isfinite(x) || errno == ERANGE)
			return obj_error(r, "vertex coordinate '%s' is not a finite number", tok);
		if (n < 3)
			p[n] = x;
		n++;
	}
	/* 4th value: rational weight w; 6th-7th: per-vertex colours; neither
	 * affects the geometry of a polygonal surface */
	if (n < 3)
		return obj_error(r, "vertex needs 3 coordinates%s", "");
	if (n > 7)
		return obj_error(r, "vertex has more than 7 numbers%s", "");
	if (r->nv >= MAX_COUNT)
		return obj_error(r, "too many vertices%s", "");
	if (r->nv == r->vcap) {
		r->vcap = r->vcap ? 2 * r->vcap : 1024;
		r->v = mrdem_xrealloc(r->v, r->vcap * 3 * sizeof *r->v);
	}
	memcpy(&r->v[3 * r->nv++], p, sizeof p);
	return 0;
}

/* One face vertex: "v", "v/vt", "v//vn" or "v/vt/vn"; v may be negative
 * (relative to the last vertex read). */
static int parse_ref(struct obj_reader *r, const char *tok, uint32_t *out)
{
	char *end;
	errno = 0;
	long idx = strtol(tok, &end, 10);
	if (end == tok || (*end && *end != '/'))
		return obj_error(r, "bad vertex reference '%s' in face", tok);
	int slashes = 0;
	for (const char *c = end; *c; c++) {
		if (*c == '/')
			slashes++;
		else if (!(*c >= '0' && *c <= '9') && *c != '-')
			return obj_error(r, "bad vertex reference '%s' in face", tok);
	}
	if (slashes > 2)
		return obj_error(r, "bad vertex reference '%s' in face", tok);
	if (idx == 0)
		return obj_error(r, "vertex reference '%s' is 0 (OBJ indices start at 1)", tok);
	long long v = idx > 0 ? (long long)idx - 1 : (long long)r->nv + idx;
	if (errno == ERANGE || v < 0 || v >= (long long)r->nv) {
		char msg[128];
		snprintf(msg, sizeof msg, "vertex reference '%s' is out of range (%zu vertices so far)",
			 tok, r->nv);
		return obj_error(r, "%s", msg);
	}
	*out = (uint32_t)v;
	return 0;
}

static int parse_face(struct obj_reader *r, char **save)
{
	size_t n = 0;
	char *tok;
	while ((tok = strtok_r(NULL, " \t\r\n\v\f", save))) {
		if (n == r->fcap) {
			r->fcap = r->fcap ? 2 * r->fcap : 16;
			r->face = mrdem_xrealloc(r->face, r->fcap * sizeof *r->face);
		}
		if (parse_ref(r, tok, &r->face[n]) < 0)
			return -1;
		n++;
	}
	if (n < 3) {
		char msg[64];
		snprintf(msg, sizeof msg, "face has %zu vertices, needs at least 3", n);
		return obj_error(r, "%s", msg);
	}
	if (r->nt + (n - 2) > MAX_COUNT)
		return obj_error(r, "too many triangles%s", "");
	if (r->nt + n > r->tcap) {
		while (r->nt + n > r->tcap)
			r->tcap = r->tcap ? 2 * r->tcap : 2048;
		r->t = mrdem_xrealloc(r->t, r->tcap * 3 * sizeof *r->t);
	}
	/* fan from the first vertex */
	for (size_t i = 1; i + 1 < n; i++) {
		uint32_t a = r->face[0], b = r->face[i], c = r->face[i + 1];
		if (a == b || b == c || a == c) {
			char msg[96];
			snprintf(msg, sizeof msg, "face uses vertex %u twice (degenerate)",
				 (a == b || a == c ? a : b) + 1);
			return obj_error(r, "%s", msg);
		}
		uint32_t *t = &r->t[3 * r->nt++];
		t[0] = a, t[1] = b, t[2] = c;
	}
	return 0;
}

static int is_skipped(const char *kw)
{
	static const char *const skipped[] = { "vt", "vn", "vp", "g", "o", "s", "usemtl", "mtllib" };
	for (size_t i = 0; i < sizeof skipped / sizeof *skipped; i++)
		if (!strcmp(kw, skipped[i]))
			return 1;
	return 0;
}

static int parse_line(struct obj_reader *r, char *line)
{
	char *hash = strchr(line, '#');
	if (hash)
		*hash = 0;
	size_t len = strlen(line);
	while (len && strchr(" \t\r\n\v\f", line[len - 1]))
		line[--len] = 0;
	if (len && line[len - 1] == '\\')
		return obj_error(r, "line continuation ('\\') is not supported%s", "");
	char *save, *kw = strtok_r(line, " \t\r\n\v\f", &save);
	if (!kw)
		return 0;
	if (!strcmp(kw, "v"))
		return parse_vertex(r, &save);
	if (!strcmp(kw, "f"))
		return parse_face(r, &save);
	if (is_skipped(kw))
		return 0;
	if (!strcmp(kw, "l") || !strcmp(kw, "p"))
		return obj_error(r, "'%s' (line and point elements) is not supported: a particle "
				    "shape must be a surface of faces",
				 kw);
	return obj_error(r, "unsupported OBJ statement '%s'", kw);
}

int mrdem_mesh_read_obj(const char *path, struct mrdem_mesh *m)
{
	int std = !path || !strcmp(path, "-");
	struct obj_reader r = { .name = std ? "<stdin>" : path };
	FILE *f = std ? stdin : fopen(path, "rb");
	if (!f)
		return mrdem_error("%s: cannot open: %s", path, strerror(errno));
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;
	while (!rc && getline(&line, &cap, f) >= 0) {
		r.line++;
		rc = parse_line(&r, line);
	}
	if (!rc && ferror(f))
		rc = mrdem_error("%s: read error: %s", r.name, strerror(errno));
	if (!rc && !r.nt)
		rc = mrdem_error("%s: no faces", r.name);
	free(line);
	free(r.face);
	if (!std)
		fclose(f);
	if (rc) {
		free(r.v);
		free(r.t);
		return -1;
	}

	/* keep only vertices some face uses, in their order */
	uint32_t *map = mrdem_xmalloc_array(r.nv, sizeof *map);
	for (size_t i = 0; i < r.nv; i++)
		map[i] = UINT32_MAX;
	uint32_t nused = 0;
	for (size_t i = 0; i < 3 * r.nt; i++)
		if (map[r.t[i]] == UINT32_MAX)
			map[r.t[i]] = 0;
	for (size_t i = 0; i < r.nv; i++)
		if (map[i] != UINT32_MAX) {
			map[i] = nused;
			memmove(&r.v[3 * (size_t)nused], &r.v[3 * i], 3 * sizeof *r.v);
			nused++;
		}
	for (size_t i = 0; i < 3 * r.nt; i++)
		r.t[i] = map[r.t[i]];
	free(map);
	if (nused < r.nv)
		mrdem_warning("%s: %zu vertices used by no face were dropped", r.name,
			      r.nv - nused);

	mrdem_mesh_release(m);
	m->verts = mrdem_xrealloc(r.v, 3 * (size_t)nused * sizeof *r.v);
	m->nverts = nused;
	m->tris = mrdem_xrealloc(r.t, 3 * r.nt * sizeof *r.t);
	m->ntris = (uint32_t)r.nt;
	return 0;
}

int mrdem_mesh_write_obj(const char *path, const char *name, const struct mrdem_mesh *m)
{
	struct mrdem_outfile o;
	if (mrdem_outfile_open(&o, path, 0) < 0)
		return -1;
	fprintf(o.f, "# mrdem mesh: %u vertices, %u triangles, %s\n", m->nverts, m->ntris,
		m->open ? "open" : "closed");
	if (name && *name) {
		/* one line whatever the name holds, as the STL writer's solid */
		fputs("o ", o.f);
		for (const char *c = name; *c; c++)
			fputc(*c == '\n' || *c == '\r' ? ' ' : *c, o.f);
		fputc('\n', o.f);
	}
	for (uint32_t i = 0; i < m->nverts; i++) {
		const double *v = &m->verts[3 * (size_t)i];
		fprintf(o.f, "v %.17g %.17g %.17g\n", v[0], v[1], v[2]);
	}
	for (uint32_t t = 0; t < m->ntris; t++) {
		const uint32_t *f = &m->tris[3 * (size_t)t];
		fprintf(o.f, "f %u %u %u\n", f[0] + 1, f[1] + 1, f[2] + 1);
	}
	return mrdem_outfile_commit(&o);
}
