#include "formats/stream/stream.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/util/error.h"
#include "formats/stream/bytes.h"
#include "formats/stream/outfile.h"
#include "formats/stream/records.h"

/* Stream header: magic, u32 version, u32 reserved flags. */
static const unsigned char magic[8] = {0x89, 'M', 'R', 'D', 'E', 'M', '\r', '\n'};
#define HEADER_LEN 16
#define RECORD_HEAD_LEN 16 /* u32 type, u32 flags, u64 payload length */
#define RECORD_TAIL_LEN 4  /* u32 crc32 of head + payload */
#define END_LEN 16         /* end record payload: u64 count, u64 index offset */
/* Payloads are read in slices, so a corrupt length cannot make us
 * allocate more than the stream actually holds. */
#define READ_SLICE ((size_t)1 << 26)
/* Compressed input is read, and output written, in 64 KiB pieces: a pipe's
 * capacity. Larger buffers save no system calls worth having, and a tool
 * started per step pays for every page it touches first. */
#define IN_CAP ((size_t)1 << 16)
#define OUT_CAP (1u << 16)

static const struct {
	const char *name;
	uint32_t flags;
} record_types[] = {
	[MRDEM_REC_SETUP] = {"setup", 0},
	[MRDEM_REC_MESH] = {"mesh", 0},
	[MRDEM_REC_TREE] = {"tree", 0},
	[MRDEM_REC_FRAME] = {"frame", 0},
	[MRDEM_REC_PAIRS] = {"pairs", 0},
	[MRDEM_REC_CONTACTS] = {"contacts", 0},
	[MRDEM_REC_STATS] = {"stats", MRDEM_RECORD_ANCILLARY},
	[MRDEM_REC_META] = {"meta", MRDEM_RECORD_ANCILLARY},
	[MRDEM_REC_INDEX] = {"index", MRDEM_RECORD_ANCILLARY},
	[MRDEM_REC_END] = {"end", 0},
	[MRDEM_REC_PICARD] = {"picard", 0},
	[MRDEM_REC_FRONTS] = {"fronts", 0},
	[MRDEM_REC_GUESSES] = {"guesses", 0},
	[MRDEM_REC_CONTACT_MODEL] = {"contact_model", 0},
	[MRDEM_REC_HISTORY] = {"history", 0},
	[MRDEM_REC_SHAPE] = {"shape", 0},
	[MRDEM_REC_MATERIALS] = {"materials", 0},
	[MRDEM_REC_SCALED_SHAPE] = {"scaled_shape", 0},
	[MRDEM_REC_MOTION] = {"motion", 0},
	[MRDEM_REC_INFLOW] = {"inflow", 0},
	[MRDEM_REC_OUTFLOW] = {"outflow", 0},
};

const char *mrdem_record_name(uint32_t type)
{
	if (type == 0 || type > MRDEM_REC_KNOWN_MAX)
		return NULL;
	return record_types[type].name;
}

/* The flags every record of a known type carries (ancillary or not). */
static uint32_t record_class(uint32_t type)
{
	if (!mrdem_record_name(type))
		return MRDEM_RECORD_ANCILLARY;
	return record_types[type].flags;
}

static uint32_t crc_update(uint32_t crc, const unsigned char *p, size_t n)
{
	while (n) {
		unsigned chunk = n > (1u << 30) ? 1u << 30 : (unsigned)n;
		crc = (uint32_t)crc32(crc, p, chunk);
		p += chunk;
		n -= chunk;
	}
	return crc;
}

/* ---- reading */

static uint64_t zoffset(const struct mrdem_reader *r)
{
	return r->zbytes + (uint64_t)(r->z.next_in - r->in);
}

/* Refill the compressed input; 0 at end of input, -1 on a read error. */
static int fill(struct mrdem_reader *r)
{
	if (r->fd_eof)
		return 0;
	r->zbytes += (uint64_t)(r->z.next_in - r->in);
	memmove(r->in, r->z.next_in, r->z.avail_in);
	r->z.next_in = r->in;
	ssize_t k;
	for (;;) {
		k = read(r->fd, r->in + r->z.avail_in, IN_CAP - r->z.avail_in);
		if (k < 0 && errno == EINTR)
			continue;
		if (k != 0 || !(r->flags & MRDEM_READ_FOLLOW) || !r->growable)
			break;
		/* Following a file that is still being written: poll. */
		struct timespec pause = {0, 200 * 1000 * 1000};
		nanosleep(&pause, NULL);
	}
	if (k < 0) {
		r->failed = 1;
		return mrdem_error("%s: read error: %s", r->name, strerror(errno));
	}
	if (k == 0)
		r->fd_eof = 1;
	r->z.avail_in += (uInt)k;
	return k > 0;
}

/* At the end of one gzip member: another member follows (1), the input
 * ends (0), or something else follows (-1, with a message). */
static int next_member(struct mrdem_reader *r)
{
	/* A member ends with its stream's end record: nothing to wait for. */
	unsigned flags = r->flags;
	r->flags &= ~(unsigned)MRDEM_READ_FOLLOW;
	while (r->z.avail_in < 2)
		if (fill(r) <= 0)
			break;
	r->flags = flags;
	if (r->failed)
		return -1;
	if (r->z.avail_in == 0)
		return 0;
	if (r->z.avail_in >= 2 && r->z.next_in[0] == 0x1f && r->z.next_in[1] == 0x8b) {
		inflateReset(&r->z);
		return 1;
	}
	r->failed = 1;
	return mrdem_error("%s: unexpected bytes after the end of the gzip data at compressed "
			   "byte %llu (after uncompressed byte %llu); the file is damaged or has "
			   "something appended",
			   r->name, (unsigned long long)zoffset(r), (unsigned long long)r->offset);
}

/* After raw inflate from a seek point reached the end of the deflate data:
 * step over the gzip trailer and read gzip members again. */
static int end_raw(struct mrdem_reader *r)
{
	while (r->z.avail_in < 8 && fill(r) > 0)
		;
	if (r->z.avail_in < 8) {
		r->failed = 1;
		return mrdem_error("%s: truncated stream: the gzip trailer is incomplete", r->name);
	}
	r->z.next_in += 8;
	r->z.avail_in -= 8;
	r->raw = 0;
	inflateReset2(&r->z, 16 + MAX_WBITS);
	return 0;
}

/* Read up to n bytes of stream content; the count read is short only at
 * the end of input or on an error (then r->failed is set with a message). */
static size_t read_bytes(struct mrdem_reader *r, void *dst, size_t n)
{
	unsigned char *out = dst;
	size_t got = 0;
	while (got < n && !r->failed) {
		if (r->z.avail_in == 0 && fill(r) <= 0)
			break;
		if (!r->gzip) {
			size_t k = r->z.avail_in < n - got ? r->z.avail_in : n - got;
			memcpy(out + got, r->z.next_in, k);
			r->z.next_in += k;
			r->z.avail_in -= (uInt)k;
			got += k;
			continue;
		}
		size_t want = n - got > (1u << 30) ? 1u << 30 : n - got;
		r->z.next_out = out + got;
		r->z.avail_out = (uInt)want;
		int zr = inflate(&r->z, Z_NO_FLUSH);
		got += want - r->z.avail_out;
		if (zr == Z_STREAM_END) {
			if (r->raw && end_raw(r))
				break;
			int more = next_member(r);
			r->z_done = more == 0;
			if (more <= 0)
				break;
		} else if (zr == Z_BUF_ERROR) {
			/* No progress: the input ran dry inside a member. */
			if (r->z.avail_in > 0 || fill(r) <= 0)
				break;
		} else if (zr != Z_OK) {
			r->failed = 1;
			mrdem_error("%s: corrupt compressed data at compressed byte %llu (near "
				    "uncompressed byte %llu, record %llu): %s",
				    r->name, (unsigned long long)zoffset(r),
				    (unsigned long long)(r->offset + got), (unsigned long long)r->index,
				    r->z.msg ? r->z.msg : "inflate failed");
		}
	}
	return got;
}

/* The input ended, or failed, inside `what`. Returns -1 with a message,
 * or 0 (clean end, with a warning) under MRDEM_READ_RECOVER. */
static int damaged(struct mrdem_reader *r, const char *what, size_t want, size_t got)
{
	if (r->failed)
		return -1;
	r->failed = 1;
	if (r->flags & MRDEM_READ_RECOVER) {
		r->incomplete = 1;
		mrdem_warning("%s: incomplete stream: %s of record %llu at byte %llu is cut short; "
			      "using the %llu complete records before it",
			      r->name, what, (unsigned long long)r->index,
			      (unsigned long long)r->offset, (unsigned long long)r->records);
		return 0;
	}
	return mrdem_error("%s: truncated stream: %s of record %llu at byte %llu is incomplete "
			   "(%zu of %zu bytes); the records before it are complete",
			   r->name, what, (unsigned long long)r->index,
			   (unsigned long long)r->offset, got, want);
}

static int check_header(struct mrdem_reader *r, const unsigned char *h)
{
	if (memcmp(h, magic, sizeof magic)) {
		r->failed = 1;
		return mrdem_error("%s: not an mrdem stream (bad magic at byte %llu)", r->name,
				   (unsigned long long)r->offset);
	}
	uint32_t version = (uint32_t)mrdem_le_get(h + 8, 4), flags = (uint32_t)mrdem_le_get(h + 12, 4);
	if (version == 1 && !(r->flags & MRDEM_READ_V1)) {
		r->failed = 1;
		return mrdem_error("%s: stream version 1 (written by mrdem before format 2); "
				   "convert it with 'mrdem-info --upgrade %s -o NEW.mrd'",
				   r->name, r->name);
	}
	if (version != MRDEM_STREAM_VERSION && version != 1) {
		r->failed = 1;
		return mrdem_error("%s: unsupported stream version %u (this build reads version %d)",
				   r->name, version, MRDEM_STREAM_VERSION);
	}
	if (flags) {
		r->failed = 1;
		return mrdem_error("%s: reserved header flags 0x%x set (corrupt stream)", r->name,
				   flags);
	}
	r->version = version;
	return 0;
}

int mrdem_reader_open(struct mrdem_reader *r, const char *path, unsigned flags)
{
	memset(r, 0, sizeof *r);
	r->fd = -1;
	r->flags = flags;
	int stdin_ = !path || !strcmp(path, "-");
	r->name = mrdem_xstrdup(stdin_ ? "<stdin>" : path);
	r->fd = stdin_ ? dup(0) : open(path, O_RDONLY);
	if (r->fd < 0) {
		mrdem_error("%s: cannot open: %s", r->name, strerror(errno));
		goto fail;
	}
	/* Only a file can grow after its end is read: the end of a pipe or
	 * terminal is final, and waiting there for more would hang. */
	struct stat st;
	r->growable = fstat(r->fd, &st) == 0 && S_ISREG(st.st_mode);
	r->in = mrdem_xmalloc(IN_CAP);
	r->z.next_in = r->in;
	while (r->z.avail_in < 2 && fill(r) > 0)
		;
	if (r->failed)
		goto fail;
	if (r->z.avail_in == 0) {
		mrdem_error("%s: empty input (not an mrdem stream)", r->name);
		goto fail;
	}
	/* gzip, or the uncompressed content (the output of zcat). */
	r->gzip = r->z.avail_in >= 2 && r->in[0] == 0x1f && r->in[1] == 0x8b;
	if (r->gzip) {
		if (inflateInit2(&r->z, 16 + MAX_WBITS) != Z_OK) {
			mrdem_error("%s: cannot start decompression: out of memory", r->name);
			goto fail;
		}
		r->z_live = 1;
	}
	unsigned char h[HEADER_LEN];
	size_t got = read_bytes(r, h, sizeof h);
	if (r->failed)
		goto fail;
	if (got == 0) {
		if (r->gzip)
			mrdem_error("%s: truncated stream: the compressed data ends before the stream "
				    "header", r->name);
		else
			mrdem_error("%s: empty input (not an mrdem stream)", r->name);
		goto fail;
	}
	if (got < sizeof h) {
		if (memcmp(h, magic, got < sizeof magic ? got : sizeof magic))
			mrdem_error("%s: not an mrdem stream (bad magic at byte 0)", r->name);
		else
			mrdem_error("%s: truncated stream: the stream header is incomplete (%zu of %d "
				    "bytes)", r->name, got, HEADER_LEN);
		goto fail;
	}
	if (check_header(r, h))
		goto fail;
	r->offset = HEADER_LEN;
	return 0;
fail:
	mrdem_reader_close(r);
	r->failed = 1;
	return -1;
}

/* Called at the end of input: clean after an end record (or in a version 1
 * stream, which has none), damage otherwise. */
static int input_ends(struct mrdem_reader *r)
{
	if (r->gzip && !r->z_done) {
		if (r->flags & MRDEM_READ_RECOVER) {
			r->incomplete = 1;
			r->failed = 1;
			mrdem_warning("%s: incomplete stream: the compressed data is cut after record "
				      "%llu; using the %llu complete records", r->name,
				      (unsigned long long)r->records, (unsigned long long)r->records);
			return 0;
		}
		r->failed = 1;
		return mrdem_error("%s: truncated stream: the compressed data ends early (after "
				   "uncompressed byte %llu, record %llu); the records before it are "
				   "complete", r->name, (unsigned long long)r->offset,
				   (unsigned long long)r->index);
	}
	if (r->ended || r->version == 1)
		return 0;
	if (r->flags & MRDEM_READ_RECOVER) {
		r->incomplete = 1;
		r->failed = 1;
		mrdem_warning("%s: incomplete stream: no end record after record %llu (cut, or "
			      "still being written); using the %llu complete records",
			      r->name, (unsigned long long)r->index, (unsigned long long)r->records);
		return 0;
	}
	r->failed = 1;
	return mrdem_error("%s: incomplete stream: it stops after record %llu (byte %llu) without "
			   "an end record (cut at a record boundary, or still being written)",
			   r->name, r->index ? (unsigned long long)r->index - 1 : 0,
			   (unsigned long long)r->offset);
}

static int check_end(struct mrdem_reader *r, const struct mrdem_record *rec)
{
	if (rec->len != END_LEN) {
		r->failed = 1;
		return mrdem_error("%s: record %llu at byte %llu: end record of %zu bytes (want %d; "
				   "corrupt record)", r->name, (unsigned long long)rec->index,
				   (unsigned long long)rec->offset, rec->len, END_LEN);
	}
	uint64_t count = mrdem_le_get(rec->data, 8);
	if (count != rec->index) {
		r->failed = 1;
		return mrdem_error("%s: record %llu at byte %llu: the end record counts %llu records, "
				   "the stream holds %llu (records lost or added)",
				   r->name, (unsigned long long)rec->index,
				   (unsigned long long)rec->offset, (unsigned long long)count,
				   (unsigned long long)rec->index);
	}
	r->ended = 1;
	return 0;
}

/* Check the flags of a record: known types carry their class, unknown
 * critical ones stop the reader, unknown ancillary ones pass. */
static int check_flags(struct mrdem_reader *r, const struct mrdem_record *rec)
{
	const char *name = mrdem_record_name(rec->type);
	uint32_t t = rec->type;
	if (r->version == 1) {
		if (rec->flags)
			goto reserved;
		return 0;
	}
	if (rec->flags & ~MRDEM_RECORD_ANCILLARY)
		goto reserved;
	if (name && rec->flags != record_class(t)) {
		r->failed = 1;
		return mrdem_error("%s: record %llu at byte %llu: %s record marked %s (corrupt record)",
				   r->name, (unsigned long long)rec->index,
				   (unsigned long long)rec->offset, name,
				   rec->flags ? "ancillary" : "critical");
	}
	if (!name && !(rec->flags & MRDEM_RECORD_ANCILLARY)) {
		r->failed = 1;
		return mrdem_error("%s: record %llu at byte %llu: unknown critical record type %u "
				   "(written by a newer mrdem?); this build cannot use the stream",
				   r->name, (unsigned long long)rec->index,
				   (unsigned long long)rec->offset, t);
	}
	return 0;
reserved:
	r->failed = 1;
	return mrdem_error("%s: record %llu at byte %llu: reserved flags 0x%x set (corrupt record)",
			   r->name, (unsigned long long)rec->index,
			   (unsigned long long)rec->offset, rec->flags);
}

int mrdem_reader_next(struct mrdem_reader *r, struct mrdem_record *rec)
{
	unsigned char head[RECORD_HEAD_LEN], tail[RECORD_TAIL_LEN];
	if (r->failed || r->fd < 0)
		return r->incomplete ? 0 : -1;
	if (r->ended && (r->flags & MRDEM_READ_FOLLOW))
		return 0; /* the followed stream is complete */
	for (;;) {
		size_t got = read_bytes(r, head, sizeof head);
		if (r->failed)
			return -1;
		if (got == 0)
			return input_ends(r);
		if (got < sizeof head)
			return damaged(r, "header", sizeof head, got);
		/* Concatenated streams (cat a.mrd b.mrd): a new header. */
		if (!memcmp(head, magic, sizeof magic)) {
			if (!r->ended && r->version != 1) {
				r->failed = 1;
				return mrdem_error("%s: a new stream starts at byte %llu before the "
						   "stream before it ended (no end record after "
						   "record %llu): a cut stream was concatenated",
						   r->name, (unsigned long long)r->offset,
						   r->index ? (unsigned long long)r->index - 1 : 0);
			}
			if (check_header(r, head))
				return -1;
			r->offset += HEADER_LEN;
			r->segment++;
			r->index = 0;
			r->ended = 0;
			continue;
		}
		break;
	}
	rec->type = (uint32_t)mrdem_le_get(head, 4);
	rec->flags = (uint32_t)mrdem_le_get(head + 4, 4);
	uint64_t len = mrdem_le_get(head + 8, 8);
	rec->index = r->index;
	rec->offset = r->offset;
	rec->segment = r->segment;
	if (r->ended) {
		r->failed = 1;
		return mrdem_error("%s: record %llu at byte %llu follows the end record of its stream "
				   "(corrupt stream)", r->name, (unsigned long long)r->index,
				   (unsigned long long)r->offset);
	}
	if (len > SIZE_MAX - RECORD_HEAD_LEN) {
		r->failed = 1;
		return mrdem_error("%s: record %llu at byte %llu: impossible length %llu (corrupt record)",
				   r->name, (unsigned long long)r->index,
				   (unsigned long long)r->offset, (unsigned long long)len);
	}
	size_t have = 0;
	while (have < len) {
		size_t want = len - have > READ_SLICE ? READ_SLICE : (size_t)(len - have);
		if (have + want > r->cap) {
			r->cap = have + want;
			r->buf = mrdem_xrealloc_for(r->buf, r->cap, 1, "bytes of a record");
		}
		size_t got = read_bytes(r, r->buf + have, want);
		have += got;
		if (got < want)
			return damaged(r, "payload", (size_t)len, have);
	}
	size_t got = read_bytes(r, tail, sizeof tail);
	if (got < sizeof tail)
		return damaged(r, "checksum", sizeof tail, got);
	uint32_t crc = crc_update((uint32_t)crc32(0, NULL, 0), head, sizeof head);
	crc = crc_update(crc, r->buf, (size_t)len);
	if (crc != (uint32_t)mrdem_le_get(tail, 4)) {
		r->failed = 1;
		return mrdem_error("%s: record %llu at byte %llu: checksum mismatch (corrupt record)",
				   r->name, (unsigned long long)r->index,
				   (unsigned long long)r->offset);
	}
	rec->len = (size_t)len;
	rec->data = r->buf;
	if (check_flags(r, rec))
		return -1;
	if (rec->type == MRDEM_REC_END && r->version != 1 && check_end(r, rec))
		return -1;
	r->index++;
	r->records++;
	r->offset += RECORD_HEAD_LEN + len + RECORD_TAIL_LEN;
	if (!mrdem_record_name(rec->type)) {
		uint32_t t = rec->type;
		int seen = t < 128 && (r->warned[t / 32] >> (t % 32) & 1);
		if (!seen)
			mrdem_warning("%s: record %llu: unknown ancillary record type %u (from a newer "
				      "version?), passed through unread",
				      r->name, (unsigned long long)rec->index, t);
		if (t < 128)
			r->warned[t / 32] |= 1u << (t % 32);
	}
	return 1;
}

/* ---- random access through the frame index */

#define TAIL_LEN (RECORD_HEAD_LEN + END_LEN + RECORD_TAIL_LEN + 8) /* end record, gzip trailer */

/* The end record stored just before the gzip trailer of a file written by
 * mrdem_writer_commit: its index offset, or 0 (none, or not found). */
static uint64_t tail_index_at(struct mrdem_reader *r)
{
	struct stat st;
	unsigned char t[TAIL_LEN];
	if (!r->gzip || fstat(r->fd, &st) || !S_ISREG(st.st_mode) || st.st_size < (off_t)TAIL_LEN ||
	    pread(r->fd, t, TAIL_LEN, st.st_size - (off_t)TAIL_LEN) != (ssize_t)TAIL_LEN)
		return 0;
	if (mrdem_le_get(t, 4) != MRDEM_REC_END || mrdem_le_get(t + 4, 4) != 0 ||
	    mrdem_le_get(t + 8, 8) != END_LEN)
		return 0;
	uint32_t crc = crc_update((uint32_t)crc32(0, NULL, 0), t, RECORD_HEAD_LEN + END_LEN);
	if (crc != (uint32_t)mrdem_le_get(t + RECORD_HEAD_LEN + END_LEN, 4))
		return 0;
	uint64_t at = mrdem_le_get(t + RECORD_HEAD_LEN + 8, 8);
	return at < (uint64_t)st.st_size ? at : 0;
}

/* Inflate one record at a full flush point (raw deflate) into *buf. */
static int record_at(struct mrdem_reader *r, uint64_t zoffset, struct mrdem_buf *buf)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	if (inflateInit2(&z, -MAX_WBITS) != Z_OK)
		return mrdem_error("%s: cannot start decompression: out of memory", r->name);
	unsigned char in[1 << 16];
	struct stat st;
	uint64_t pos = zoffset, limit = fstat(r->fd, &st) ? 0 : (uint64_t)st.st_size;
	size_t want = RECORD_HEAD_LEN;
	int rc = -1;
	buf->len = 0;
	for (;;) {
		if (buf->len >= RECORD_HEAD_LEN) {
			/* The index is stored uncompressed: never longer than the file. */
			uint64_t len = mrdem_le_get(buf->p + 8, 8);
			if (len > limit)
				break;
			want = RECORD_HEAD_LEN + (size_t)len + RECORD_TAIL_LEN;
		}
		if (buf->len >= want) {
			rc = 0;
			break;
		}
		if (z.avail_in == 0) {
			ssize_t k = pread(r->fd, in, sizeof in, (off_t)pos);
			if (k <= 0)
				break;
			pos += (uint64_t)k;
			z.next_in = in;
			z.avail_in = (uInt)k;
		}
		mrdem_buf_reserve(buf, want - buf->len);
		z.next_out = buf->p + buf->len;
		z.avail_out = (uInt)(want - buf->len);
		int zr = inflate(&z, Z_NO_FLUSH);
		buf->len = want - z.avail_out;
		if (zr != Z_OK && zr != Z_STREAM_END)
			break;
		if (zr == Z_STREAM_END && buf->len < want)
			break;
	}
	inflateEnd(&z);
	if (rc)
		return mrdem_error("%s: the frame index points at compressed byte %llu, where no "
				   "record can be read (damaged file)", r->name,
				   (unsigned long long)zoffset);
	return 0;
}

int mrdem_reader_frame_index(struct mrdem_reader *r, struct mrdem_frame_pos **v, size_t *n)
{
	*v = NULL;
	*n = 0;
	uint64_t at = tail_index_at(r);
	if (!at)
		return 0;
	struct mrdem_buf b;
	mrdem_buf_init(&b);
	int rc = record_at(r, at, &b);
	if (rc == 0) {
		size_t len = b.len - RECORD_HEAD_LEN - RECORD_TAIL_LEN;
		uint32_t crc = crc_update((uint32_t)crc32(0, NULL, 0), b.p, RECORD_HEAD_LEN + len);
		struct mrdem_record rec = {.type = (uint32_t)mrdem_le_get(b.p, 4), .len = len,
					   .data = b.p + RECORD_HEAD_LEN, .offset = 0};
		if (rec.type != MRDEM_REC_INDEX ||
		    crc != (uint32_t)mrdem_le_get(b.p + RECORD_HEAD_LEN + len, 4))
			rc = mrdem_error("%s: the frame index at compressed byte %llu is damaged",
					 r->name, (unsigned long long)at);
		else
			rc = mrdem_decode_index(&rec, r->name, v, n);
	}
	mrdem_buf_release(&b);
	return rc;
}

int mrdem_reader_seek(struct mrdem_reader *r, const struct mrdem_frame_pos *p)
{
	if (!r->gzip || lseek(r->fd, (off_t)p->zoffset, SEEK_SET) < 0)
		return mrdem_error("%s: cannot seek to compressed byte %llu", r->name,
				   (unsigned long long)p->zoffset);
	r->z.next_in = r->in;
	r->z.avail_in = 0;
	r->zbytes = p->zoffset;
	r->fd_eof = 0;
	if (inflateReset2(&r->z, -MAX_WBITS) != Z_OK)
		return mrdem_error("%s: cannot restart decompression", r->name);
	r->raw = 1;
	r->z_done = 0;
	r->failed = 0;
	r->ended = 0;
	r->offset = p->offset;
	r->index = p->record;
	return 0;
}

void mrdem_reader_close(struct mrdem_reader *r)
{
	if (r->z_live)
		inflateEnd(&r->z);
	r->z_live = 0;
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	free(r->in);
	r->in = NULL;
	free(r->buf);
	r->buf = NULL;
	r->cap = 0;
	free(r->name);
	r->name = NULL;
}

/* ---- writing */

static int write_bytes(struct mrdem_writer *w, const void *p, size_t n)
{
	const unsigned char *q = p;
	while (n) {
		unsigned chunk = n > (1u << 30) ? 1u << 30 : (unsigned)n;
		if (gzwrite(w->gz, q, chunk) != (int)chunk) {
			int errnum;
			const char *msg = gzerror(w->gz, &errnum);
			w->failed = 1;
			return mrdem_error("%s: write failed: %s",
					   w->path ? w->path : "<stdout>",
					   errnum == Z_ERRNO ? strerror(errno) : msg);
		}
		q += chunk;
		n -= chunk;
	}
	return 0;
}

static int write_header(struct mrdem_writer *w)
{
	unsigned char h[HEADER_LEN];
	memcpy(h, magic, sizeof magic);
	mrdem_le_put(h + 8, MRDEM_STREAM_VERSION, 4);
	mrdem_le_put(h + 12, 0, 4);
	if (write_bytes(w, h, sizeof h))
		return -1;
	w->offset += HEADER_LEN;
	w->index = 0;
	w->nframes = 0;
	return 0;
}

/* Level 1: frames of doubles barely compress better at higher levels and
 * the stream sits on every pipe of a simulation. Stored (level 0) for the
 * short-lived files of mrdem-run --via-pipes, read once. */
static int stream_level(unsigned flags)
{
	const char *env = getenv("MRDEM_STREAM_LEVEL");
	if (!env || !*env)
		return flags & MRDEM_WRITE_STORED ? 0 : 1;
	if (env[0] < '0' || env[0] > '9' || env[1])
		return mrdem_error("MRDEM_STREAM_LEVEL is '%s': give a zlib level from 0 "
				   "(stored) to 9", env);
	return env[0] - '0';
}

int mrdem_writer_open(struct mrdem_writer *w, const char *path, unsigned flags)
{
	memset(w, 0, sizeof *w);
	int level = stream_level(flags);
	if (level < 0)
		return -1;
	int fd;
	if (!path || !strcmp(path, "-")) {
		if (isatty(1))
			return mrdem_error("refusing to write a binary stream to a terminal "
					   "(redirect standard output or use -o FILE)");
		fd = dup(1);
	} else {
		w->path = mrdem_xstrdup(path);
		fd = mrdem_output_fd(path, &w->tmp);
	}
	if (fd < 0)
		goto fail;
	struct stat st;
	w->seekable = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && lseek(fd, 0, SEEK_CUR) == 0;
	char mode[4] = { 'w', 'b', (char)('0' + level), 0 };
	w->gz = gzdopen(fd, mode);
	if (!w->gz) {
		close(fd);
		mrdem_error("cannot start compression: out of memory");
		goto fail;
	}
	gzbuffer(w->gz, OUT_CAP);
	if (write_header(w))
		goto fail;
	return 0;
fail:
	mrdem_writer_abort(w);
	return -1;
}

static int flush_mode(struct mrdem_writer *w, int mode)
{
	if (w->failed || !w->gz)
		return -1;
	if (gzflush(w->gz, mode) != Z_OK) {
		w->failed = 1;
		return mrdem_error("%s: write failed: %s", w->path ? w->path : "<stdout>",
				   strerror(errno));
	}
	return 0;
}

/* Note where a frame record starts. A full flush first, so decompression
 * can start there (raw inflate from zoffset) without what came before. */
static int index_frame(struct mrdem_writer *w, const void *data, size_t len)
{
	if (flush_mode(w, Z_FULL_FLUSH))
		return -1;
	if (w->nframes == w->frames_cap) {
		w->frames_cap = w->frames_cap ? 2 * w->frames_cap : 64;
		w->frames = mrdem_xrealloc_for(w->frames, w->frames_cap, sizeof *w->frames,
					       "frame index entries");
	}
	struct mrdem_frame_pos *f = &w->frames[w->nframes++];
	const unsigned char *p = data;
	f->step = len >= 16 ? mrdem_le_get(p, 8) : 0;
	uint64_t bits = len >= 16 ? mrdem_le_get(p + 8, 8) : 0;
	memcpy(&f->time, &bits, sizeof f->time);
	f->record = w->index;
	f->offset = w->offset;
	f->zoffset = (uint64_t)gzoffset(w->gz);
	return 0;
}

static int put(struct mrdem_writer *w, uint32_t type, uint32_t flags, const void *data, size_t len)
{
	unsigned char head[RECORD_HEAD_LEN], tail[RECORD_TAIL_LEN];
	if (w->failed || !w->gz)
		return -1;
	if (type == MRDEM_REC_FRAME && w->seekable && index_frame(w, data, len))
		return -1;
	mrdem_le_put(head, type, 4);
	mrdem_le_put(head + 4, flags, 4);
	mrdem_le_put(head + 8, len, 8);
	uint32_t crc = crc_update((uint32_t)crc32(0, NULL, 0), head, sizeof head);
	crc = crc_update(crc, data, len);
	mrdem_le_put(tail, crc, 4);
	if (write_bytes(w, head, sizeof head) || write_bytes(w, data, len) ||
	    write_bytes(w, tail, sizeof tail))
		return -1;
	w->index++;
	w->offset += RECORD_HEAD_LEN + len + RECORD_TAIL_LEN;
	return 0;
}

int mrdem_writer_put(struct mrdem_writer *w, uint32_t type, const void *data, size_t len)
{
	return put(w, type, record_class(type), data, len);
}

int mrdem_writer_put_record(struct mrdem_writer *w, const struct mrdem_record *rec)
{
	if (rec->type == MRDEM_REC_END || rec->type == MRDEM_REC_INDEX)
		return 0; /* framing of the input stream; the writer makes its own */
	return put(w, rec->type, rec->flags, rec->data, rec->len);
}

int mrdem_writer_flush(struct mrdem_writer *w)
{
	return flush_mode(w, Z_SYNC_FLUSH);
}

/* Close the current stream: the frame index (files only), then the end
 * record with the count of records before it. The last stream of a file
 * ends in stored (level 0) deflate blocks, the end record alone in the
 * final one: its 36 bytes sit just before the gzip trailer, where a reader
 * finds the index without decompressing the file (mrdem_reader_frame_index). */
static int write_end(struct mrdem_writer *w, int last)
{
	uint64_t index_at = 0;
	int stored_tail = last && w->seekable;
	if (stored_tail && (flush_mode(w, Z_FULL_FLUSH) ||
			    gzsetparams(w->gz, 0, Z_DEFAULT_STRATEGY) != Z_OK)) {
		w->failed = 1;
		return mrdem_error("%s: write failed: cannot finish the compressed stream",
				   w->path ? w->path : "<stdout>");
	}
	if (w->nframes) {
		struct mrdem_buf b;
		mrdem_buf_init(&b);
		mrdem_buf_u64(&b, w->nframes);
		for (size_t i = 0; i < w->nframes; i++) {
			const struct mrdem_frame_pos *f = &w->frames[i];
			mrdem_buf_u64(&b, f->step);
			mrdem_buf_f64(&b, f->time);
			mrdem_buf_u64(&b, f->record);
			mrdem_buf_u64(&b, f->offset);
			mrdem_buf_u64(&b, f->zoffset);
		}
		int rc = flush_mode(w, Z_FULL_FLUSH);
		index_at = w->gz ? (uint64_t)gzoffset(w->gz) : 0;
		rc = rc || mrdem_writer_put(w, MRDEM_REC_INDEX, b.p, b.len);
		mrdem_buf_release(&b);
		if (rc)
			return -1;
	}
	if (stored_tail && flush_mode(w, Z_FULL_FLUSH))
		return -1;
	unsigned char end[END_LEN];
	mrdem_le_put(end, w->index, 8);
	mrdem_le_put(end + 8, index_at, 8);
	return mrdem_writer_put(w, MRDEM_REC_END, end, sizeof end);
}

int mrdem_writer_publish(struct mrdem_writer *w)
{
	if (!w->tmp)
		return 0;
	if (mrdem_writer_flush(w))
		return -1;
	if (rename(w->tmp, w->path)) {
		w->failed = 1;
		return mrdem_error("%s: cannot rename %s into place: %s", w->path, w->tmp,
				   strerror(errno));
	}
	free(w->tmp);
	w->tmp = NULL;
	return 0;
}

int mrdem_writer_next_stream(struct mrdem_writer *w)
{
	if (write_end(w, 0) || write_header(w))
		return -1;
	return 0;
}

int mrdem_writer_commit(struct mrdem_writer *w)
{
	if (w->failed || !w->gz || write_end(w, 1)) {
		mrdem_writer_abort(w);
		return -1;
	}
	int rc = gzclose(w->gz);
	w->gz = NULL;
	if (rc != Z_OK) {
		mrdem_error("%s: write failed: %s", w->path ? w->path : "<stdout>",
			    rc == Z_ERRNO ? strerror(errno) : "compression error");
		mrdem_writer_abort(w);
		return -1;
	}
	if (w->tmp && rename(w->tmp, w->path)) {
		mrdem_error("%s: cannot rename %s into place: %s", w->path, w->tmp, strerror(errno));
		mrdem_writer_abort(w);
		return -1;
	}
	free(w->tmp);
	free(w->path);
	free(w->frames);
	w->tmp = w->path = NULL;
	w->frames = NULL;
	return 0;
}

void mrdem_writer_abort(struct mrdem_writer *w)
{
	if (w->gz)
		gzclose(w->gz);
	w->gz = NULL;
	if (w->tmp)
		unlink(w->tmp);
	free(w->tmp);
	free(w->path);
	free(w->frames);
	w->frames = NULL;
	w->tmp = w->path = NULL;
	w->failed = 1;
}
