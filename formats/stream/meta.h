/* The meta record: how a stream was made. Every tool that starts a stream
 * writes one first (tool, version, command line, the scene text); tools
 * that filter a stream add their own, so an output names its whole
 * pipeline (docs/stream-format.md). */
#ifndef MRDEM_FORMATS_META_H
#define MRDEM_FORMATS_META_H

#include <stddef.h>

#include "common/scene/scene.h"
#include "formats/stream/bytes.h"
#include "formats/stream/stream.h"

struct mrdem_meta {
	char *tool;     /* "mrdem-init" */
	char *version;  /* the writer's build: "2.0" and its git revision */
	size_t n, cap;
	char **keys, **values; /* "command", "scene", "scene_file", "tree NAME", ... */
};

/* A meta record of this build for tool, with the command line (argv, shell
 * quoted where needed) under "command". */
void mrdem_meta_init(struct mrdem_meta *m, const char *tool, int argc, char **argv);
void mrdem_meta_release(struct mrdem_meta *m);
void mrdem_meta_add(struct mrdem_meta *m, const char *key, const char *value);
/* The scene a stream was made from: its file name and text, and where each
 * shape's tree came from ("tree NAME"). */
int mrdem_meta_add_scene(struct mrdem_meta *m, const char *path, const struct mrdem_scene *s);

void mrdem_encode_meta(struct mrdem_buf *b, const struct mrdem_meta *m);
int mrdem_decode_meta(const struct mrdem_record *rec, const char *src, struct mrdem_meta *m);
/* mrdem_write_meta() is with the other record writers in formats/stream/records.h. */

#endif
