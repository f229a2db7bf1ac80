/* A record over an encoded payload, as a reader would deliver it (index
 * 1, at byte 100), for the decoders and mrdem_scene_absorb in unit tests. */
#ifndef MRDEM_TESTS_RECORD_OF_H
#define MRDEM_TESTS_RECORD_OF_H

#include <string.h>

#include "formats/stream/bytes.h"
#include "formats/stream/stream.h"

static inline struct mrdem_record rec_of(const struct mrdem_buf *b, uint32_t type)
{
	struct mrdem_record r;
	memset(&r, 0, sizeof r);
	r.type = type;
	r.index = 1;
	r.offset = 100;
	r.data = b->p;
	r.len = b->len;
	return r;
}

#endif
