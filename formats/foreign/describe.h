/* Describing the records of a stream, for people (text) or scripts (JSON),
 * on standard output: what mrdem-info prints. Frames and trees are
 * described with the shapes read before them, so the records go through
 * mrdem_describe_record in stream order. */
#ifndef MRDEM_FORMATS_FOREIGN_DESCRIBE_H
#define MRDEM_FORMATS_FOREIGN_DESCRIBE_H

#include <stdint.h>

#include "common/scene/scene.h"
#include "formats/foreign/json.h"
#include "formats/stream/records.h"
#include "formats/stream/stream.h"

struct mrdem_describe {
	int json, full;           /* JSON instead of text; JSON with every value */
	struct mrdem_json j;
	const char *src;          /* the stream's name, for errors */
	struct mrdem_scene scene; /* setup and shapes so far */
	uint64_t counts[MRDEM_REC_KNOWN_MAX + 2]; /* records by type; last: unknown */
	unsigned segment;         /* stream of a concatenation being described */
	int framed;               /* the scene holds a frame of this stream */
};

void mrdem_describe_init(struct mrdem_describe *d, int json, int full);
void mrdem_describe_release(struct mrdem_describe *d);
/* Describe one record (one JSON object of the caller's array), count it and
 * keep what later records need; -1 when it does not decode. */
int mrdem_describe_record(struct mrdem_describe *d, const struct mrdem_record *rec);
/* A frame's particles (and contact history), inside the caller's object. */
void mrdem_describe_frame(struct mrdem_describe *d, const struct mrdem_frame *f);
/* A scene's insertions and remove regions (describe_flow.c). */
void mrdem_describe_inflow(struct mrdem_describe *d, const struct mrdem_flow *f);
void mrdem_describe_outflow(struct mrdem_describe *d, const struct mrdem_flow *f);

#endif
