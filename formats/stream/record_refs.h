/* What contacts and history records name must exist in the frame they
 * follow: particles by id, planes of the setup, triangles of each
 * particle's shape; and a contact lies within the two halos. A decoder cannot tell (it sees one record); the scene
 * the record arrives in can, so every reader checks them there: the
 * record filter (formats/stream/filter.h) for the tools, mrdem_scene_absorb
 * for history records, and mrdem-info's describer. Each check returns 0,
 * or -1 with a message naming the input, the record and the value. */
#ifndef MRDEM_FORMATS_RECORD_REFS_H
#define MRDEM_FORMATS_RECORD_REFS_H

#include "common/scene/contacts.h"
#include "common/scene/scene.h"
#include "formats/stream/stream.h"

/* The contacts c of record rec against scene s. frame: 1 when the scene
 * holds the frame the record follows (a stream without frames, or a
 * contacts record of another step than its frame, is checked no further
 * than its decoder does; the step refuses the latter). */
int mrdem_contacts_check_refs(const struct mrdem_scene *s, int frame,
			      const struct mrdem_contacts *c, const struct mrdem_record *rec,
			      const char *src);
/* Decode a contacts record (mrdem_decode_contacts) and check it against
 * the scene as above: what the record filter runs on every contacts
 * record, the ones a tool passes on undecoded too. */
int mrdem_contacts_record_check(const struct mrdem_scene *s, int frame,
				const struct mrdem_record *rec, const char *src);
/* The springs h of history record rec against the frame of scene s. */
int mrdem_history_check_refs(const struct mrdem_scene *s, const struct mrdem_history *h,
			     const struct mrdem_record *rec, const char *src);

#endif
