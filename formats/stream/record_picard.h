/* The records of an implicit step in progress between the tools
 * (docs/stream-format.md): picard (MRDEM_REC_PICARD), the state of the
 * Picard loop and the account of the step, written by mrdem-step right
 * after the frame placed at the next iterate; fronts (MRDEM_REC_FRONTS),
 * every particle pair's multiscale front and memory set, written by
 * mrdem-contact --hierarchy multiscale and carried from step to step. */
#ifndef MRDEM_FORMATS_RECORD_PICARD_H
#define MRDEM_FORMATS_RECORD_PICARD_H

#include "common/dynamics/step.h"
#include "common/narrow/contacts/particle_contacts.h"
#include "common/sim/picard.h"
#include "formats/stream/bytes.h"
#include "formats/stream/stream.h"

/* The Picard state of pc and the account of the step in st (its start:
 * step, time, dt, energies, contacts, kinetic energy per particle). */
void mrdem_encode_picard(struct mrdem_buf *b, const struct mrdem_picard *pc,
			 const struct mrdem_stepper *st);
int mrdem_write_picard(struct mrdem_writer *w, const struct mrdem_picard *pc,
		       const struct mrdem_stepper *st);
/* Into pc and st (their allocations reused). Returns 0, or -1 with a
 * message naming the input, the record and what is wrong. */
int mrdem_decode_picard(const struct mrdem_record *rec, const char *src, struct mrdem_picard *pc,
			struct mrdem_stepper *st);

void mrdem_encode_fronts(struct mrdem_buf *b, const struct mrdem_front_store *fr);
int mrdem_write_fronts(struct mrdem_writer *w, const struct mrdem_front_store *fr);
/* A new store of fronts (mrdem_front_store_free). Returns 0, or -1 with a
 * message. */
int mrdem_decode_fronts(const struct mrdem_record *rec, const char *src,
			struct mrdem_front_store **out);

#endif
