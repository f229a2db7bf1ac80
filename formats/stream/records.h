/* Encoding and decoding of each record type's payload
 * (layouts in docs/stream-format.md). Decoders return 0, or -1 with a
 * message naming the input, the record index and its byte offset. */
#ifndef MRDEM_FORMATS_RECORDS_H
#define MRDEM_FORMATS_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "common/scene/contacts.h"
#include "common/scene/pairs.h"
#include "common/scene/scene.h"
#include "common/scene/stats.h"
#include "common/util/error.h"
#include "formats/stream/bytes.h"
#include "formats/stream/stream.h"

/* Report a problem with a record: "SRC: record N (TYPE) at byte OFF: ...". */
int mrdem_record_error(const struct mrdem_record *rec, const char *src, const char *fmt, ...)
	MRDEM_PRINTF(3, 4);

/* The common tail of every decoder: 0 when the payload was read exactly,
 * else -1 with a message (too short, or bytes left over). */
int mrdem_record_done(const struct mrdem_record *rec, const char *src, struct mrdem_cursor *c);

/* ---- setup: parameters and analytic planes */
void mrdem_encode_setup(struct mrdem_buf *b, const struct mrdem_setup *s);

/* ---- mesh: one shape (id, name, mesh, mass properties) */
void mrdem_encode_mesh(struct mrdem_buf *b, uint32_t id, const char *name,
		       const struct mrdem_mesh *m);
int mrdem_decode_mesh(const struct mrdem_record *rec, const char *src, uint32_t *id,
		      char **name, struct mrdem_mesh *m);

/* ---- shape: one analytic shape (id, name, kind, semi-axes) */
void mrdem_encode_shape(struct mrdem_buf *b, uint32_t id, const char *name, int kind,
			const double axes[3]);
int mrdem_decode_shape(const struct mrdem_record *rec, const char *src, uint32_t *id,
		       char **name, int *kind, double axes[3]);

/* ---- inflow, outflow: a scene's insertions and remove regions
 * (record_flow.c); decoding replaces those of f, insertions checked
 * against the shapes of s */
void mrdem_encode_inflow(struct mrdem_buf *b, const struct mrdem_flow *f);
int mrdem_decode_inflow(const struct mrdem_record *rec, const char *src,
			const struct mrdem_scene *s, struct mrdem_flow *f);
void mrdem_encode_outflow(struct mrdem_buf *b, const struct mrdem_flow *f);
int mrdem_decode_outflow(const struct mrdem_record *rec, const char *src, struct mrdem_flow *f);

/* ---- frame: particle state */
void mrdem_encode_frame(struct mrdem_buf *b, const struct mrdem_frame *f);
/* Into f (initialised here), checked alone: the values and ids, not the
 * shapes, materials or motions of a scene (mrdem_scene_absorb checks those;
 * the rank parts of an MPI run hold frames that are not whole). */
int mrdem_decode_frame(const struct mrdem_record *rec, const char *src, struct mrdem_frame *f);

/* ---- stats: named values produced by one tool for one step */
void mrdem_encode_stats(struct mrdem_buf *b, const struct mrdem_stats *s);
int mrdem_decode_stats(const struct mrdem_record *rec, const char *src, struct mrdem_stats *s);

/* ---- pairs: broad-phase candidate pairs of one frame, a < b by index
 * order of the frame (planes last) */
void mrdem_encode_pairs(struct mrdem_buf *b, const struct mrdem_pairs *p);
int mrdem_decode_pairs(const struct mrdem_record *rec, const char *src, struct mrdem_pairs *p);

/* ---- contacts: contact points of one frame */
void mrdem_encode_contacts(struct mrdem_buf *b, const struct mrdem_contacts *c);
int mrdem_decode_contacts(const struct mrdem_record *rec, const char *src,
			  struct mrdem_contacts *c);
/* The number of contacts in a contacts record, its length checked, without
 * decoding (or checking) the contacts themselves. */
int mrdem_count_contacts(const struct mrdem_record *rec, const char *src, uint64_t *n);

/* ---- frame, version 1 (fixed columns; mrdem-info --upgrade) */
int mrdem_decode_frame_v1(const struct mrdem_record *rec, const char *src, struct mrdem_frame *f);

/* ---- index: where the frames of a file start (written by the writer) */
int mrdem_decode_index(const struct mrdem_record *rec, const char *src,
		       struct mrdem_frame_pos **v, size_t *n);

/* ---- whole scenes */

/* Take a setup, mesh, shape, scaled_shape, tree or frame record into the scene (shapes must
 * arrive in id order; a new frame replaces the previous one).
 * Returns 1 when absorbed, 0 when the record is of another type, -1 on a
 * decoding error. */
int mrdem_scene_absorb(struct mrdem_scene *s, const struct mrdem_record *rec, const char *src);
/* Write setup, every shape (mesh, and tree when present; shape record of
 * an analytic one) and the frame. */
int mrdem_scene_write(struct mrdem_writer *w, const struct mrdem_scene *s);
/* Write the shapes only (mesh streams). */
int mrdem_scene_write_shapes(struct mrdem_writer *w, const struct mrdem_scene *s);
/* Encode a payload and write it as one record. */
int mrdem_write_frame(struct mrdem_writer *w, const struct mrdem_frame *f);
int mrdem_write_pairs(struct mrdem_writer *w, const struct mrdem_pairs *p);
int mrdem_write_contacts(struct mrdem_writer *w, const struct mrdem_contacts *c);
/* Guesses (multiscale Picard's surrogate contacts) have the contacts
 * record's layout, under their own type; mrdem_decode_contacts reads both. */
int mrdem_write_guesses(struct mrdem_writer *w, const struct mrdem_contacts *g);
int mrdem_write_stats(struct mrdem_writer *w, const struct mrdem_stats *st);
struct mrdem_meta;
int mrdem_write_meta(struct mrdem_writer *w, const struct mrdem_meta *m);

#endif
