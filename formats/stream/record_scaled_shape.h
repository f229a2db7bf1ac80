/* The scaled_shape record (MRDEM_REC_SCALED_SHAPE): a shape that is
 * another, smaller id, scaled (common/scene/scaled_shape.h). It stands in
 * the id sequence where a mesh or shape record would; readers derive the
 * shape from its base, and its tree from the base's, so no mesh or tree
 * record is ever written for it. Layout in docs/stream-format.md. */
#ifndef MRDEM_FORMATS_RECORD_SCALED_SHAPE_H
#define MRDEM_FORMATS_RECORD_SCALED_SHAPE_H

#include <stdint.h>

#include "common/scene/scene.h"
#include "formats/stream/bytes.h"
#include "formats/stream/stream.h"

void mrdem_encode_scaled_shape(struct mrdem_buf *b, uint32_t id, const char *name, uint32_t base,
			       double scale);
/* Decode the payload; base below id and scale finite and > 0 checked.
 * Returns 0 (the caller frees *name), or -1 with a message. */
int mrdem_decode_scaled_shape(const struct mrdem_record *rec, const char *src, uint32_t *id,
			      char **name, uint32_t *base, double *scale);
/* Decode and add the shape as the scene's next id (mrdem_scene_absorb):
 * its base must be a shape of its own already defined. */
int mrdem_scene_absorb_scaled_shape(struct mrdem_scene *s, const struct mrdem_record *rec,
				    const char *src);

#endif
