/* The motion record (MRDEM_REC_MOTION, docs/stream-format.md): the
 * prescribed motions of moving walls (common/scene/motion.h), right after
 * the setup and its contact_model record. Written only when a scene has
 * moving walls. */
#ifndef MRDEM_FORMATS_RECORD_MOTION_H
#define MRDEM_FORMATS_RECORD_MOTION_H

#include "common/scene/scene.h"
#include "formats/stream/bytes.h"
#include "formats/stream/stream.h"

void mrdem_encode_motion(struct mrdem_buf *b, const struct mrdem_setup *s);
/* Into s, which holds the setup record it follows (its motions replaced):
 * targets ascending and distinct, planes within the setup's, every
 * motion valid (mrdem_motion_check). 0, or -1 with a message. */
int mrdem_decode_motion(const struct mrdem_record *rec, const char *src, struct mrdem_setup *s);

#endif
