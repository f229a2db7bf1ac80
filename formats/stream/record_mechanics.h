/* The records of the patch force models (docs/stream-format.md):
 * contact_model (MRDEM_REC_CONTACT_MODEL), the parameters of hooke and
 * hertz that the setup record has no room for, right after the setup;
 * history (MRDEM_REC_HISTORY), the tangential, rolling and twisting springs a frame's
 * contacts carry into the next step, right after the frame. */
#ifndef MRDEM_FORMATS_RECORD_MECHANICS_H
#define MRDEM_FORMATS_RECORD_MECHANICS_H

#include <stdint.h>

#include "common/scene/scene.h"
#include "formats/stream/bytes.h"
#include "formats/stream/stream.h"

void mrdem_encode_contact_model(struct mrdem_buf *b, const struct mrdem_setup *s);
/* Into s, which holds the setup record the contact_model record follows:
 * the model must be the setup's, every name known, every value in range. */
int mrdem_decode_contact_model(const struct mrdem_record *rec, const char *src,
			       struct mrdem_setup *s);

void mrdem_encode_history(struct mrdem_buf *b, uint64_t step, const struct mrdem_history *h);
/* Into h (replaced) and *step. */
int mrdem_decode_history(const struct mrdem_record *rec, const char *src, uint64_t *step,
			 struct mrdem_history *h);

#endif
