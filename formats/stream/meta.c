#include "formats/stream/meta.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"
#include "formats/stream/records.h"

#ifndef MRDEM_REVISION
#define MRDEM_REVISION ""
#endif

/* The version of this build ("2.0" plus the git revision when built from
 * a checkout). */
static const char *build_version(void)
{
	return sizeof MRDEM_REVISION > 1 ? "2.0 (" MRDEM_REVISION ")" : "2.0";
}

/* Append s to the buffer, single-quoted when the shell would split it. */
static void append_word(struct mrdem_buf *b, const char *s)
{
	int plain = *s != 0;
	for (const char *p = s; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%",
			    *p))
			plain = 0;
	if (plain) {
		mrdem_buf_bytes(b, s, strlen(s));
		return;
	}
	mrdem_buf_bytes(b, "'", 1);
	for (const char *p = s; *p; p++)
		if (*p == '\'')
			mrdem_buf_bytes(b, "'\\''", 4);
		else
			mrdem_buf_bytes(b, p, 1);
	mrdem_buf_bytes(b, "'", 1);
}

void mrdem_meta_init(struct mrdem_meta *m, const char *tool, int argc, char **argv)
{
	memset(m, 0, sizeof *m);
	m->tool = mrdem_xstrdup(tool ? tool : "");
	m->version = mrdem_xstrdup(build_version());
	if (argc <= 0)
		return;
	struct mrdem_buf b;
	mrdem_buf_init(&b);
	for (int i = 0; i < argc; i++) {
		if (i)
			mrdem_buf_bytes(&b, " ", 1);
		/* The tool by its name, not the path it was started from. */
		const char *word = argv[i];
		if (i == 0 && strrchr(word, '/'))
			word = strrchr(word, '/') + 1;
		append_word(&b, word);
	}
	mrdem_buf_bytes(&b, "", 1);
	mrdem_meta_add(m, "command", (const char *)b.p);
	mrdem_buf_release(&b);
}

void mrdem_meta_release(struct mrdem_meta *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->keys[i]);
		free(m->values[i]);
	}
	free(m->keys);
	free(m->values);
	free(m->tool);
	free(m->version);
	memset(m, 0, sizeof *m);
}

void mrdem_meta_add(struct mrdem_meta *m, const char *key, const char *value)
{
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 8;
		m->keys = mrdem_xrealloc(m->keys, m->cap * sizeof *m->keys);
		m->values = mrdem_xrealloc(m->values, m->cap * sizeof *m->values);
	}
	m->keys[m->n] = mrdem_xstrdup(key);
	m->values[m->n++] = mrdem_xstrdup(value ? value : "");
}

/* Add the text of a file (a scene) under key; -1 with a message. */
static int meta_add_file(struct mrdem_meta *m, const char *key, const char *path)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return mrdem_error("%s: cannot open: %s", path, strerror(errno));
	struct mrdem_buf b;
	mrdem_buf_init(&b);
	char chunk[65536];
	size_t k;
	while ((k = fread(chunk, 1, sizeof chunk, fp)) > 0)
		mrdem_buf_bytes(&b, chunk, k);
	int bad = ferror(fp);
	fclose(fp);
	mrdem_buf_bytes(&b, "", 1);
	if (!bad)
		mrdem_meta_add(m, key, (const char *)b.p);
	mrdem_buf_release(&b);
	return bad ? mrdem_error("%s: read error", path) : 0;
}

int mrdem_meta_add_scene(struct mrdem_meta *m, const char *path, const struct mrdem_scene *s)
{
	mrdem_meta_add(m, "scene_file", path);
	for (uint32_t i = 0; i < s->nshapes; i++)
		if (s->shapes[i].tree_origin) {
			char key[256];
			snprintf(key, sizeof key, "tree %s", s->shapes[i].name);
			mrdem_meta_add(m, key, s->shapes[i].tree_origin);
		}
	/* Standard input was read already. */
	return strcmp(path, "-") ? meta_add_file(m, "scene", path) : 0;
}

void mrdem_encode_meta(struct mrdem_buf *b, const struct mrdem_meta *m)
{
	mrdem_buf_str(b, m->tool);
	mrdem_buf_str(b, m->version);
	mrdem_buf_u32(b, (uint32_t)m->n);
	for (size_t i = 0; i < m->n; i++) {
		mrdem_buf_str(b, m->keys[i]);
		mrdem_buf_str(b, m->values[i]);
	}
}

int mrdem_decode_meta(const struct mrdem_record *rec, const char *src, struct mrdem_meta *m)
{
	struct mrdem_cursor c;
	mrdem_cursor_init(&c, rec->data, rec->len);
	memset(m, 0, sizeof *m);
	m->tool = mrdem_get_str(&c);
	m->version = mrdem_get_str(&c);
	uint32_t n = mrdem_get_u32(&c);
	for (uint32_t i = 0; i < n && !c.bad; i++) {
		char *k = mrdem_get_str(&c), *v = mrdem_get_str(&c);
		if (k && v)
			mrdem_meta_add(m, k, v);
		free(k);
		free(v);
	}
	if (!m->tool)
		m->tool = mrdem_xstrdup("");
	if (!m->version)
		m->version = mrdem_xstrdup("");
	if (c.bad || c.pos != c.len) {
		mrdem_meta_release(m);
		return mrdem_record_error(rec, src, "meta record of %zu bytes does not match its "
					  "layout (corrupt record)", rec->len);
	}
	return 0;
}
