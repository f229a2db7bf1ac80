/* The mrdem stream: a gzip-compressed sequence of typed, length-prefixed,
 * checksummed records (specified in docs/stream-format.md).
 *
 * Every tool reads one with mrdem_reader and writes one with mrdem_writer;
 * records a tool does not consume are passed through unchanged. */
#ifndef MRDEM_FORMATS_STREAM_H
#define MRDEM_FORMATS_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#define MRDEM_STREAM_VERSION 1

/* Record types. Readers pass unknown types through with a warning. */
enum mrdem_record_type {
	MRDEM_REC_SETUP = 1,    /* global parameters and analytic planes */
	MRDEM_REC_MESH = 2,     /* one shape: mesh + mass properties */
	MRDEM_REC_TREE = 3,     /* surrogate tree of one shape */
	MRDEM_REC_FRAME = 4,    /* particle state at one time */
	MRDEM_REC_PAIRS = 5,    /* broad-phase candidate pairs */
	MRDEM_REC_CONTACTS = 6, /* narrow-phase contact points */
	MRDEM_REC_STATS = 7,    /* named counters and timings */
	MRDEM_REC_KNOWN_MAX = 7,
};

/* Name of a record type ("mesh", ...) or NULL when unknown. */
const char *mrdem_record_name(uint32_t type);

struct mrdem_record {
	uint32_t type;
	uint32_t flags;      /* reserved, 0 */
	uint64_t index;      /* 0-based position in the stream */
	uint64_t offset;     /* byte offset of the record header, uncompressed */
	size_t len;          /* payload length */
	unsigned char *data; /* payload, owned by the reader until the next call */
};

struct mrdem_reader {
	gzFile gz;
	char *name;          /* for messages: the path or "<stdin>" */
	uint64_t index;      /* records delivered so far */
	uint64_t offset;     /* uncompressed bytes consumed */
	unsigned char *buf;
	size_t cap;
	uint32_t warned[4];  /* bitmap of unknown types already warned about */
	int failed;
};

/* Open path ("-" or NULL: standard input) and check its header.
 * Returns 0, or -1 with a message. */
int mrdem_reader_open(struct mrdem_reader *r, const char *path);
/* Read the next record: 1 delivered, 0 clean end of stream, -1 error (a
 * message names the input, record index and byte offset). After a
 * truncation every complete record before it has been delivered. */
int mrdem_reader_next(struct mrdem_reader *r, struct mrdem_record *rec);
void mrdem_reader_close(struct mrdem_reader *r);

enum {
	/* Write straight to the destination instead of a temporary file renamed
	 * on commit: for long runs whose flushed frames must survive a kill. */
	MRDEM_WRITE_INCREMENTAL = 1,
};

struct mrdem_writer {
	gzFile gz;
	char *path;          /* destination, NULL for stdout */
	char *tmp;           /* temporary file renamed to path on commit */
	uint64_t index, offset;
	int failed;
};

/* Open path ("-" or NULL: standard output; refused when it is a terminal)
 * and write the stream header. */
int mrdem_writer_open(struct mrdem_writer *w, const char *path, unsigned flags);
int mrdem_writer_put(struct mrdem_writer *w, uint32_t type, const void *data, size_t len);
/* Pass a record read elsewhere through unchanged. */
int mrdem_writer_put_record(struct mrdem_writer *w, const struct mrdem_record *rec);
/* Make everything written so far decodable (call at frame boundaries). */
int mrdem_writer_flush(struct mrdem_writer *w);
/* Finish the stream; for files, rename the temporary into place. */
int mrdem_writer_commit(struct mrdem_writer *w);
/* Give up: close and remove the temporary, leaving no partial output. */
void mrdem_writer_abort(struct mrdem_writer *w);

#endif
