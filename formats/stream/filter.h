/* The record filter: the one loop of every tool that reads a stream
 * (pairs, contact, step, tree, vtk, stats, info, run's resume). A tool
 * declares which record types it replaces and which it takes, and gets a
 * callback per taken record; the filter owns reading, the scene, pass-
 * through, the tool's meta record, stats replacement, concatenated input,
 * end records and all-or-nothing output (docs/stream-format.md, "Record
 * framing" and "Failure behaviour").
 *
 * Rules, per record, in stream order:
 *  - a meta record passes through; the tool's own meta record follows the
 *    input's (before the first other record of each stream);
 *  - `before` sees every other record first, while f->scene still holds
 *    what came before it (to finish work that the record ends);
 *  - a stats record whose source is the tool's name is dropped (replaced);
 *  - setup, contact_model, mesh, shape, scaled_shape, tree, frame and
 *    history records are
 *    absorbed into f->scene unless their type is in `no_absorb`;
 *  - contacts and guesses records that the tool takes or passes on are
 *    decoded, and contacts checked against the frame they follow
 *    (formats/stream/record_refs.h); one it drops (replaces, or reads past
 *    without output) is not;
 *  - a type in `takes` goes to on_record, which returns 1 when it has
 *    written what it wants in its place (mrdem_filter_pass writes the
 *    record itself), 0 to let the filter go on, -1 on error;
 *  - it then passes through unless its type is in `replaces`;
 *  - the end of each input stream calls on_end; concatenated input streams
 *    give concatenated output streams, each with its own scene.
 * Tools without a stream output (out NULL) read the same way; when the
 * input is damaged they still get on_end for the complete records before
 * the damage, then the run fails. */
#ifndef MRDEM_FORMATS_FILTER_H
#define MRDEM_FORMATS_FILTER_H

#include <stdint.h>

#include "common/scene/scene.h"
#include "formats/stream/meta.h"
#include "formats/stream/stream.h"

#define MRDEM_TYPE_BIT(t) ((uint32_t)1 << (t))
#define MRDEM_ALL_TYPES UINT32_MAX

struct mrdem_filter {
	/* set by the tool before mrdem_filter_run */
	const char *tool;       /* "mrdem-pairs": stats source and meta tool */
	uint32_t replaces, takes, no_absorb; /* MRDEM_TYPE_BIT masks */
	unsigned read_flags;    /* MRDEM_READ_* */
	int (*before)(struct mrdem_filter *f, const struct mrdem_record *rec);
	int (*on_record)(struct mrdem_filter *f, const struct mrdem_record *rec);
	int (*on_end)(struct mrdem_filter *f);
	void *ctx;              /* the tool's state */

	/* kept by the filter */
	struct mrdem_reader r;
	struct mrdem_writer w;
	int writing;            /* a stream output is open */
	struct mrdem_meta meta; /* the tool's meta record; tools may add keys */
	struct mrdem_scene scene;
	const char *src;        /* input name for messages */
	uint64_t frames;        /* frame records of the current input stream */
	uint64_t total_frames;  /* of all input streams */
	int damaged;            /* the input ended in damage (on_end still runs) */
	int meta_written, in_stream;
	unsigned streams;       /* input streams started */
};

/* Zero f and set the defaults (no callbacks, nothing replaced). */
void mrdem_filter_init(struct mrdem_filter *f, const char *tool);
/* Read `in` ("-": standard input) to its end, writing the stream to `out`
 * ("-": standard output; NULL: no stream output). argc/argv go into the
 * tool's meta record. Returns 0, or -1 after a message; output is written
 * all or nothing. */
int mrdem_filter_run(struct mrdem_filter *f, const char *in, const char *out, int argc,
		     char **argv);
/* Write a record of the input unchanged (from on_record). */
int mrdem_filter_pass(struct mrdem_filter *f, const struct mrdem_record *rec);
void mrdem_filter_release(struct mrdem_filter *f);

#endif
