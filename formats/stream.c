#include "formats/stream.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util/error.h"
#include "formats/bytes.h"
#include "formats/outfile.h"

/* Stream header: magic, u32 version, u32 reserved flags. */
static const unsigned char magic[8] = {0x89, 'M', 'R', 'D', 'E', 'M', '\r', '\n'};
#define HEADER_LEN 16
#define RECORD_HEAD_LEN 16 /* u32 type, u32 flags, u64 payload length */
#define RECORD_TAIL_LEN 4  /* u32 crc32 of head + payload */
/* Payloads are read in slices, so a corrupt length cannot make us
 * allocate more than the stream actually holds. */
#define READ_SLICE ((size_t)1 << 26)

static const char *const record_names[] = {
	[MRDEM_REC_SETUP] = "setup", [MRDEM_REC_MESH] = "mesh",
	[MRDEM_REC_TREE] = "tree", [MRDEM_REC_FRAME] = "frame",
	[MRDEM_REC_PAIRS] = "pairs", [MRDEM_REC_CONTACTS] = "contacts",
	[MRDEM_REC_STATS] = "stats",
};

const char *mrdem_record_name(uint32_t type)
{
	if (type == 0 || type > MRDEM_REC_KNOWN_MAX)
		return NULL;
	return record_names[type];
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

/* Read up to n bytes; returns the count read (short only at end or error). */
static size_t read_bytes(struct mrdem_reader *r, void *dst, size_t n)
{
	size_t got = 0;
	while (got < n) {
		unsigned want = n - got > (1u << 30) ? 1u << 30 : (unsigned)(n - got);
		int k = gzread(r->gz, (unsigned char *)dst + got, want);
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	return got;
}

/* Explain why fewer bytes arrived than expected; always returns -1. */
static int short_read(struct mrdem_reader *r, const char *what, size_t want, size_t got)
{
	int errnum = Z_OK;
	const char *msg = gzerror(r->gz, &errnum);
	r->failed = 1;
	/* zlib prefixes its message with the descriptor's pseudo-name. */
	if (!strncmp(msg, "<fd:", 4) && strstr(msg, ": "))
		msg = strstr(msg, ": ") + 2;
	if (errnum == Z_DATA_ERROR || errnum == Z_MEM_ERROR || errnum == Z_STREAM_ERROR)
		return mrdem_error("%s: corrupt compressed data near record %llu (byte %llu): %s",
				   r->name, (unsigned long long)r->index,
				   (unsigned long long)r->offset, msg);
	if (errnum == Z_ERRNO)
		return mrdem_error("%s: read error: %s", r->name, strerror(errno));
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
	if (version != MRDEM_STREAM_VERSION) {
		r->failed = 1;
		return mrdem_error("%s: unsupported stream version %u (this build reads version %d)",
				   r->name, version, MRDEM_STREAM_VERSION);
	}
	if (flags) {
		r->failed = 1;
		return mrdem_error("%s: reserved header flags 0x%x set (corrupt stream)", r->name,
				   flags);
	}
	return 0;
}

int mrdem_reader_open(struct mrdem_reader *r, const char *path)
{
	memset(r, 0, sizeof *r);
	int stdin_ = !path || !strcmp(path, "-");
	r->name = mrdem_xstrdup(stdin_ ? "<stdin>" : path);
	int fd = stdin_ ? dup(0) : open(path, O_RDONLY);
	if (fd < 0) {
		mrdem_error("%s: cannot open: %s", r->name, strerror(errno));
		goto fail;
	}
	r->gz = gzdopen(fd, "rb");
	if (!r->gz) {
		close(fd);
		mrdem_error("%s: cannot open: out of memory", r->name);
		goto fail;
	}
	gzbuffer(r->gz, 1 << 18);
	unsigned char h[HEADER_LEN];
	size_t got = read_bytes(r, h, sizeof h);
	if (got == 0) {
		int errnum = Z_OK;
		gzerror(r->gz, &errnum);
		if (errnum == Z_OK)
			mrdem_error("%s: empty input (not an mrdem stream)", r->name);
		else
			short_read(r, "stream header", sizeof h, 0);
		goto fail;
	}
	if (got < sizeof h) {
		if (memcmp(h, magic, got < sizeof magic ? got : sizeof magic))
			mrdem_error("%s: not an mrdem stream (bad magic at byte 0)", r->name);
		else
			short_read(r, "stream header", sizeof h, got);
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

int mrdem_reader_next(struct mrdem_reader *r, struct mrdem_record *rec)
{
	unsigned char head[RECORD_HEAD_LEN], tail[RECORD_TAIL_LEN];
	if (r->failed || !r->gz)
		return -1;
	for (;;) {
		size_t got = read_bytes(r, head, sizeof head);
		if (got == 0) {
			int errnum = Z_OK;
			gzerror(r->gz, &errnum);
			if (errnum == Z_OK)
				return 0;
			return short_read(r, "header", sizeof head, 0);
		}
		if (got < sizeof head)
			return short_read(r, "header", sizeof head, got);
		/* Concatenated streams (cat a.mrd b.mrd) carry a second header. */
		if (!memcmp(head, magic, sizeof magic)) {
			if (check_header(r, head))
				return -1;
			r->offset += HEADER_LEN;
			continue;
		}
		break;
	}
	rec->type = (uint32_t)mrdem_le_get(head, 4);
	rec->flags = (uint32_t)mrdem_le_get(head + 4, 4);
	uint64_t len = mrdem_le_get(head + 8, 8);
	rec->index = r->index;
	rec->offset = r->offset;
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
			r->buf = mrdem_xrealloc(r->buf, r->cap);
		}
		size_t got = read_bytes(r, r->buf + have, want);
		have += got;
		if (got < want)
			return short_read(r, "payload", (size_t)len, have);
	}
	size_t got = read_bytes(r, tail, sizeof tail);
	if (got < sizeof tail)
		return short_read(r, "checksum", sizeof tail, got);
	uint32_t crc = crc_update((uint32_t)crc32(0, NULL, 0), head, sizeof head);
	crc = crc_update(crc, r->buf, (size_t)len);
	if (crc != (uint32_t)mrdem_le_get(tail, 4)) {
		r->failed = 1;
		return mrdem_error("%s: record %llu at byte %llu: checksum mismatch (corrupt record)",
				   r->name, (unsigned long long)r->index,
				   (unsigned long long)r->offset);
	}
	if (rec->flags) {
		r->failed = 1;
		return mrdem_error("%s: record %llu at byte %llu: reserved flags 0x%x set (corrupt record)",
				   r->name, (unsigned long long)r->index,
				   (unsigned long long)r->offset, rec->flags);
	}
	rec->len = (size_t)len;
	rec->data = r->buf;
	r->index++;
	r->offset += RECORD_HEAD_LEN + len + RECORD_TAIL_LEN;
	if (!mrdem_record_name(rec->type)) {
		uint32_t t = rec->type;
		int seen = t < 128 && (r->warned[t / 32] >> (t % 32) & 1);
		if (!seen)
			mrdem_warning("%s: record %llu: unknown record type %u (from a newer version?), "
				      "passed through unread",
				      r->name, (unsigned long long)rec->index, t);
		if (t < 128)
			r->warned[t / 32] |= 1u << (t % 32);
	}
	return 1;
}

void mrdem_reader_close(struct mrdem_reader *r)
{
	if (r->gz)
		gzclose(r->gz);
	r->gz = NULL;
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

int mrdem_writer_open(struct mrdem_writer *w, const char *path, unsigned flags)
{
	memset(w, 0, sizeof *w);
	int fd;
	if (!path || !strcmp(path, "-")) {
		if (isatty(1))
			return mrdem_error("refusing to write a binary stream to a terminal "
					   "(redirect standard output or use -o FILE)");
		fd = dup(1);
	} else {
		w->path = mrdem_xstrdup(path);
		if (flags & MRDEM_WRITE_INCREMENTAL) {
			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
			if (fd < 0)
				mrdem_error("%s: cannot create: %s", path, strerror(errno));
		} else {
			fd = mrdem_output_fd(path, &w->tmp);
		}
	}
	if (fd < 0)
		goto fail;
	/* Level 1: frames of doubles barely compress better at higher levels
	 * and the stream sits on every pipe of a simulation. */
	w->gz = gzdopen(fd, "wb1");
	if (!w->gz) {
		close(fd);
		mrdem_error("cannot start compression: out of memory");
		goto fail;
	}
	gzbuffer(w->gz, 1 << 18);
	unsigned char h[HEADER_LEN];
	memcpy(h, magic, sizeof magic);
	mrdem_le_put(h + 8, MRDEM_STREAM_VERSION, 4);
	mrdem_le_put(h + 12, 0, 4);
	if (write_bytes(w, h, sizeof h))
		goto fail;
	w->offset = HEADER_LEN;
	return 0;
fail:
	mrdem_writer_abort(w);
	return -1;
}

static int put(struct mrdem_writer *w, uint32_t type, uint32_t flags, const void *data, size_t len)
{
	unsigned char head[RECORD_HEAD_LEN], tail[RECORD_TAIL_LEN];
	if (w->failed || !w->gz)
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
	return put(w, type, 0, data, len);
}

int mrdem_writer_put_record(struct mrdem_writer *w, const struct mrdem_record *rec)
{
	return put(w, rec->type, rec->flags, rec->data, rec->len);
}

int mrdem_writer_flush(struct mrdem_writer *w)
{
	if (w->failed || !w->gz)
		return -1;
	if (gzflush(w->gz, Z_SYNC_FLUSH) != Z_OK) {
		w->failed = 1;
		return mrdem_error("%s: write failed: %s", w->path ? w->path : "<stdout>",
				   strerror(errno));
	}
	return 0;
}

int mrdem_writer_commit(struct mrdem_writer *w)
{
	if (w->failed || !w->gz) {
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
	w->tmp = w->path = NULL;
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
	w->tmp = w->path = NULL;
	w->failed = 1;
}
