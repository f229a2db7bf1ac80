/* The tree record (MRDEM_REC_TREE): one shape's surrogate tree, written
 * right after that shape's mesh record. Layout in docs/surrogate-trees.md. */
#ifndef MRDEM_FORMATS_RECORD_TREE_H
#define MRDEM_FORMATS_RECORD_TREE_H

#include <stdint.h>

#include "common/scene/scene.h"
#include "common/tree/tree.h"
#include "formats/stream/bytes.h"
#include "formats/stream/stream.h"

void mrdem_encode_tree(struct mrdem_buf *b, uint32_t shape_id, const struct mrdem_tree *t);
/* Decode and check the layout (not yet bound to a mesh). Returns 0, or -1
 * with a message naming the input, record and what is wrong. */
int mrdem_decode_tree(const struct mrdem_record *rec, const char *src, uint32_t *shape_id,
		      struct mrdem_tree **t);
/* Shape id of a tree record (0 when the payload is too short to say). */
uint32_t mrdem_tree_record_shape(const struct mrdem_record *rec);

/* Decode a tree record, bind it to its shape's mesh and attach it
 * (mrdem_scene_absorb). The shape must be defined, not scaled, and have no
 * tree yet; shapes scaled from it get the tree scaled. */
int mrdem_scene_absorb_tree(struct mrdem_scene *s, const struct mrdem_record *rec,
			    const char *src);
/* Write one tree record. */
int mrdem_write_tree(struct mrdem_writer *w, uint32_t shape_id, const struct mrdem_tree *t);

#endif
