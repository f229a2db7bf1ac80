/* The materials record (MRDEM_REC_MATERIALS, docs/stream-format.md): the
 * scene's materials, the overrides of material pairs and each analytic
 * plane's material, right after the setup (and its contact_model record).
 * Frames of a stream with it carry a "material" column. */
#ifndef MRDEM_FORMATS_RECORD_MATERIALS_H
#define MRDEM_FORMATS_RECORD_MATERIALS_H

#include "common/scene/scene.h"
#include "formats/stream/bytes.h"
#include "formats/stream/stream.h"

/* s->materials must be set. */
void mrdem_encode_materials(struct mrdem_buf *b, const struct mrdem_setup *s);
/* Into s (its materials replaced, its planes' materials set), which holds
 * the setup the record follows: every name known and read by the model,
 * every value in range, the pair table built. */
int mrdem_decode_materials(const struct mrdem_record *rec, const char *src,
			   struct mrdem_setup *s);
/* Every particle of p has a material of s (and p a material column
 * exactly when s has materials); -1 with a message otherwise. */
int mrdem_materials_check_frame(const struct mrdem_setup *s, const struct mrdem_particles *p,
				const struct mrdem_record *rec, const char *src);

#endif
