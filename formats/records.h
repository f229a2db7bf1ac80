/* Encoding and decoding of each record type's payload
 * (layouts in docs/stream-format.md). Decoders return 0, or -1 with a
 * message naming the input, the record index and its byte offset. */
#ifndef MRDEM_FORMATS_RECORDS_H
#define MRDEM_FORMATS_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "common/scene/scene.h"
#include "common/util/error.h"
#include "formats/bytes.h"
#include "formats/stream.h"

/* Report a problem with a record: "SRC: record N (TYPE) at byte OFF: ...". */
int mrdem_record_error(const struct mrdem_record *rec, const char *src, const char *fmt, ...)
	MRDEM_PRINTF(3, 4);

/* ---- setup: parameters and analytic planes */
void mrdem_encode_setup(struct mrdem_buf *b, const struct mrdem_setup *s);
int mrdem_decode_setup(const struct mrdem_record *rec, const char *src, struct mrdem_setup *s);

/* ---- mesh: one shape (id, name, mesh, mass properties) */
void mrdem_encode_mesh(struct mrdem_buf *b, uint32_t id, const char *name,
		       const struct mrdem_mesh *m);
int mrdem_decode_mesh(const struct mrdem_record *rec, const char *src, uint32_t *id,
		      char **name, struct mrdem_mesh *m);

/* ---- frame: particle state */
void mrdem_encode_frame(struct mrdem_buf *b, const struct mrdem_frame *f);
int mrdem_decode_frame(const struct mrdem_record *rec, const char *src, struct mrdem_frame *f);

/* ---- stats: named values produced by one tool for one step */
struct mrdem_stats {
	char *source;   /* producing tool */
	uint64_t step;
	size_t n, cap;
	char **names;
	double *values;
};
void mrdem_stats_init(struct mrdem_stats *s, const char *source, uint64_t step);
void mrdem_stats_release(struct mrdem_stats *s);
void mrdem_stats_add(struct mrdem_stats *s, const char *name, double value);
void mrdem_encode_stats(struct mrdem_buf *b, const struct mrdem_stats *s);
int mrdem_decode_stats(const struct mrdem_record *rec, const char *src, struct mrdem_stats *s);

/* Analytic plane k appears in pair and contact lists as particle id
 * MRDEM_PLANE_ID(k); real particle ids must stay below MRDEM_PLANE_ID_MIN. */
#define MRDEM_PLANE_ID(k) (UINT64_MAX - (uint64_t)(k))
#define MRDEM_PLANE_ID_MIN (UINT64_MAX - UINT32_MAX)

/* ---- pairs: broad-phase candidate pairs of one frame, a < b by index
 * order of the frame (planes last) */
struct mrdem_pair {
	uint64_t a, b; /* particle ids (b may be a plane id) */
};
struct mrdem_pairs {
	uint64_t step;
	size_t n, cap;
	struct mrdem_pair *p;
};
void mrdem_pairs_init(struct mrdem_pairs *p);
void mrdem_pairs_release(struct mrdem_pairs *p);
void mrdem_pairs_push(struct mrdem_pairs *p, uint64_t a, uint64_t b);
void mrdem_encode_pairs(struct mrdem_buf *b, const struct mrdem_pairs *p);
int mrdem_decode_pairs(const struct mrdem_record *rec, const char *src, struct mrdem_pairs *p);

/* ---- contacts: contact points of one frame */
struct mrdem_contact {
	uint64_t a, b;        /* particle ids; b may be MRDEM_PLANE_ID(k) */
	uint32_t tri_a, tri_b;/* triangle indices in each shape's mesh (UINT32_MAX: none) */
	double x[3];          /* contact point, world frame */
	double normal[3];     /* unit normal, pointing from b towards a */
	double dist;          /* distance between the two triangles */
	double depth;         /* eps_a + eps_b - dist (> 0 inside the halos) */
};
struct mrdem_contacts {
	uint64_t step;
	size_t n, cap;
	struct mrdem_contact *c;
};
void mrdem_contacts_init(struct mrdem_contacts *c);
void mrdem_contacts_release(struct mrdem_contacts *c);
struct mrdem_contact *mrdem_contacts_push(struct mrdem_contacts *c);
void mrdem_encode_contacts(struct mrdem_buf *b, const struct mrdem_contacts *c);
int mrdem_decode_contacts(const struct mrdem_record *rec, const char *src,
			  struct mrdem_contacts *c);

/* ---- whole scenes */

/* Take a setup, mesh, tree or frame record into the scene (shapes must
 * arrive in id order; a new frame replaces the previous one).
 * Returns 1 when absorbed, 0 when the record is of another type, -1 on a
 * decoding error. */
int mrdem_scene_absorb(struct mrdem_scene *s, const struct mrdem_record *rec, const char *src);
/* Write setup, every shape (mesh, and tree when present) and the frame. */
int mrdem_scene_write(struct mrdem_writer *w, const struct mrdem_scene *s);
/* Write the shapes only (mesh streams). */
int mrdem_scene_write_shapes(struct mrdem_writer *w, const struct mrdem_scene *s);
/* Encode a payload into scratch and write it as one record. */
int mrdem_write_frame(struct mrdem_writer *w, const struct mrdem_frame *f);

#endif
