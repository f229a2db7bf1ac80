/* The mrdem stream: a gzip-compressed sequence of typed, length-prefixed,
 * checksummed records, closed by an end record (docs/stream-format.md).
 *
 * Every tool reads one with mrdem_reader and writes one with mrdem_writer;
 * formats/stream/filter.h gives the tools one loop over it. */
#ifndef MRDEM_FORMATS_STREAM_H
#define MRDEM_FORMATS_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#define MRDEM_STREAM_VERSION 2

/* Record types. */
enum mrdem_record_type {
	MRDEM_REC_SETUP = 1,    /* global parameters and analytic planes */
	MRDEM_REC_MESH = 2,     /* one shape: mesh + mass properties */
	MRDEM_REC_TREE = 3,     /* surrogate tree of one shape */
	MRDEM_REC_FRAME = 4,    /* particle state at one time */
	MRDEM_REC_PAIRS = 5,    /* broad-phase candidate pairs */
	MRDEM_REC_CONTACTS = 6, /* narrow-phase contact points */
	MRDEM_REC_STATS = 7,    /* named counters and timings */
	MRDEM_REC_META = 8,     /* how the stream was made: tool, command, scene */
	MRDEM_REC_INDEX = 9,    /* where each frame starts, for random access */
	MRDEM_REC_END = 10,     /* record count: the stream is complete */
	MRDEM_REC_PICARD = 11,  /* an implicit step in progress: its Picard state */
	MRDEM_REC_FRONTS = 12,  /* multiscale Picard: each particle pair's front */
	MRDEM_REC_GUESSES = 13, /* multiscale Picard: surrogate contacts at the iterate */
	MRDEM_REC_CONTACT_MODEL = 14, /* parameters of the hooke and hertz force models */
	MRDEM_REC_HISTORY = 15, /* tangential and rolling springs of a frame's contacts */
	MRDEM_REC_SHAPE = 16,   /* one analytic shape: kind and semi-axes */
	MRDEM_REC_MATERIALS = 17, /* materials, pair overrides, the planes' materials */
	MRDEM_REC_SCALED_SHAPE = 18, /* a shape that is another one scaled */
	MRDEM_REC_MOTION = 19,  /* prescribed motions of walls (fixed particles, planes) */
	MRDEM_REC_INFLOW = 20,  /* a scene's particle insertions */
	MRDEM_REC_OUTFLOW = 21, /* a scene's particle remove regions */
	MRDEM_REC_KNOWN_MAX = 21,
};

/* Record flag bit 0: ancillary. A reader passes an unknown ancillary record
 * through and refuses an unknown critical one (like PNG's chunks). */
#define MRDEM_RECORD_ANCILLARY 1u

/* Name of a record type ("mesh", ...) or NULL when unknown (also for the
 * reserved numbers below MRDEM_REC_KNOWN_MAX). */
const char *mrdem_record_name(uint32_t type);

struct mrdem_record {
	uint32_t type;
	uint32_t flags;      /* MRDEM_RECORD_ANCILLARY or 0 */
	uint64_t index;      /* 0-based position in its stream */
	uint64_t offset;     /* byte offset of the record header, uncompressed */
	unsigned segment;    /* which stream of a concatenation, from 0 */
	size_t len;          /* payload length */
	unsigned char *data; /* payload, owned by the reader until the next call */
};

enum {
	/* An incomplete stream (cut inside a record or before its end record:
	 * a killed run, or one still being written) ends cleanly after its
	 * last complete record, with a warning, instead of failing. */
	MRDEM_READ_RECOVER = 1,
	/* Accept version 1 streams (mrdem-info --upgrade); frames then need
	 * mrdem_decode_frame_v1. */
	MRDEM_READ_V1 = 2,
	/* At the end of the input wait for more (a run still being written,
	 * like tail -f) until the stream's end record arrives, then stop. */
	MRDEM_READ_FOLLOW = 4,
};

struct mrdem_reader {
	int fd;
	unsigned flags;      /* MRDEM_READ_* */
	char *name;          /* for messages: the path or "<stdin>" */
	int gzip;            /* 1 gzip, 0 uncompressed content */
	z_stream z;          /* input cursor (next_in/avail_in) in both modes */
	int z_live, fd_eof;
	int growable;       /* a regular file: MRDEM_READ_FOLLOW waits at its end */
	int z_done;          /* the last gzip member ended properly */
	int raw;             /* inflating raw deflate after mrdem_reader_seek */
	unsigned char *in;   /* compressed input buffer */
	uint64_t zbytes;     /* compressed bytes consumed before in[] */
	unsigned version;    /* of the current stream */
	unsigned segment;    /* streams started so far - 1 */
	int ended;           /* the current stream's end record was read */
	uint64_t index;      /* records of the current stream delivered so far */
	uint64_t records;    /* records delivered in all */
	uint64_t offset;     /* uncompressed bytes consumed */
	int incomplete;      /* MRDEM_READ_RECOVER stopped at damage */
	unsigned char *buf;
	size_t cap;
	uint32_t warned[4];  /* bitmap of unknown types already warned about */
	int failed;
};

/* Open path ("-" or NULL: standard input) and check its header.
 * Returns 0, or -1 with a message. */
int mrdem_reader_open(struct mrdem_reader *r, const char *path, unsigned flags);
/* Read the next record: 1 delivered, 0 clean end of input, -1 error (a
 * message names the input, record index and byte offset). End records are
 * delivered too (after checking their count); a record of a new segment
 * follows a concatenated stream's header. After damage every complete
 * record before it has been delivered. */
int mrdem_reader_next(struct mrdem_reader *r, struct mrdem_record *rec);
void mrdem_reader_close(struct mrdem_reader *r);

enum {
	/* Write to a temporary file that mrdem_writer_publish renames into
	 * place, then straight to the destination: for long runs whose flushed
	 * frames must survive a kill, and that leave no file (and the old one
	 * at the path untouched) when they fail before publishing. */
	MRDEM_WRITE_INCREMENTAL = 1,
	/* Deflate's stored blocks instead of level 1 (the environment's
	 * MRDEM_STREAM_LEVEL, when set, decides either way): for files read
	 * once and thrown away. */
	MRDEM_WRITE_STORED = 2,
};

/* Where one frame record starts (the index record's entries). */
struct mrdem_frame_pos {
	uint64_t step;
	double time;
	uint64_t record;     /* index of the record in its stream */
	uint64_t offset;     /* uncompressed byte offset */
	uint64_t zoffset;    /* compressed byte offset of a full flush point */
};

/* The frame index of a file written by mrdem_writer_commit (found from
 * the file's tail without decompressing it): 0 with *n = 0 when there is
 * none (a pipe, an uncompressed or older stream), -1 when it is damaged.
 * The caller frees *v. */
int mrdem_reader_frame_index(struct mrdem_reader *r, struct mrdem_frame_pos **v, size_t *n);
/* Continue reading at an entry of the index: the next record is that
 * frame, decompressed from its full flush point. */
int mrdem_reader_seek(struct mrdem_reader *r, const struct mrdem_frame_pos *p);

struct mrdem_writer {
	gzFile gz;
	char *path;          /* destination, NULL for stdout */
	char *tmp;           /* temporary file renamed to path on commit */
	uint64_t index, offset;
	int seekable;        /* regular file: frames get index entries */
	size_t nframes, frames_cap;
	struct mrdem_frame_pos *frames;
	int failed;
};

/* Open path ("-" or NULL: standard output; refused when it is a terminal)
 * and write the stream header. */
int mrdem_writer_open(struct mrdem_writer *w, const char *path, unsigned flags);
int mrdem_writer_put(struct mrdem_writer *w, uint32_t type, const void *data, size_t len);
/* Pass a record read elsewhere through unchanged. End records are not
 * copied: they frame their own stream, and the writer closes its own. */
int mrdem_writer_put_record(struct mrdem_writer *w, const struct mrdem_record *rec);
/* Make everything written so far decodable (call at frame boundaries). */
int mrdem_writer_flush(struct mrdem_writer *w);
/* Flush and rename the temporary into place: from now on the destination
 * holds what is written (flushed), also after a failure or a kill, and
 * mrdem_writer_abort leaves it. No-op for standard output, for a path that
 * is not a regular file and when already published. */
int mrdem_writer_publish(struct mrdem_writer *w);
/* Whether the destination holds what is written: published, standard
 * output, or a writer without a temporary. */
static inline int mrdem_writer_published(const struct mrdem_writer *w)
{
	return !w->tmp;
}
/* Close the current stream with its index and end records and start a new
 * one in the same output (concatenated streams in, concatenated out). */
int mrdem_writer_next_stream(struct mrdem_writer *w);
/* Write the index and end records and finish; for files, rename the
 * temporary into place. */
int mrdem_writer_commit(struct mrdem_writer *w);
/* Give up: close and remove the temporary, leaving no partial output (a
 * published file stays as far as it was flushed). */
void mrdem_writer_abort(struct mrdem_writer *w);

#endif
