/* Stream format: round trips of every record type (byte-identical
 * re-encode), pass-through, and every damaged-stream case the reader must
 * reject with a message instead of crashing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "common/util/error.h"
#include "common/util/rng.h"
#include "formats/stream/records.h"
#include "formats/stream/stream.h"
#include "tests/lib/tap.h"
#include "tests/unit/stream_fixture.h"

/* A unit tetrahedron shape, a setup with planes and a random frame. */
static void make_scene(struct mrdem_scene *s, size_t n)
{
	struct mrdem_rng rng;
	tet_scene(s);
	s->setup.nplanes = 2;
	s->setup.planes = calloc(2, sizeof *s->setup.planes);
	s->setup.planes[1].normal[2] = 1;
	s->setup.planes[0].normal[1] = 1;
	s->setup.gravity[2] = -9.81;
	mrdem_rng_seed(&rng, 42);
	s->frame.step = 7;
	s->frame.time = 7e-4;
	for (size_t i = 0; i < n; i++) {
		mrdem_particles_push(&s->frame.p, 1000 + i, 0);
		for (int k = 0; k < 3; k++) {
			s->frame.p.pos[3 * i + k] = mrdem_rng_normal(&rng);
			s->frame.p.vel[3 * i + k] = mrdem_rng_normal(&rng);
			s->frame.p.angvel[3 * i + k] = mrdem_rng_normal(&rng);
		}
		mrdem_rng_quat(&rng, &s->frame.p.quat[4 * i]);
		s->frame.p.eps[i] = 0.01;
		s->frame.p.density[i] = 2.5;
		s->frame.p.flags[i] = i == 0 ? MRDEM_PARTICLE_FIXED : 0;
	}
}

static int write_scene(const char *file, const struct mrdem_scene *s)
{
	struct mrdem_writer w;
	if (mrdem_writer_open(&w, file, 0) || mrdem_scene_write(&w, s))
		return -1;
	struct mrdem_stats st;
	mrdem_stats_init(&st, "test", 7);
	mrdem_stats_add(&st, "comparisons", 1234);
	mrdem_stats_add(&st, "wall_s", 0.5);
	struct mrdem_pairs pr;
	mrdem_pairs_init(&pr);
	mrdem_pairs_push(&pr, 1000, 1001);
	mrdem_pairs_push(&pr, 1001, MRDEM_PLANE_ID(1));
	struct mrdem_contacts c;
	mrdem_contacts_init(&c);
	struct mrdem_contact *k = mrdem_contacts_push(&c);
	k->a = 1000, k->b = 1001, k->tri_a = 3, k->tri_b = 1, k->x[0] = 0.5, k->normal[2] = 1;
	k->dist = 0.001, k->depth = 0.019;
	struct mrdem_buf b;
	mrdem_buf_init(&b);
	mrdem_encode_stats(&b, &st);
	int rc = mrdem_writer_put(&w, MRDEM_REC_STATS, b.p, b.len);
	b.len = 0;
	mrdem_encode_pairs(&b, &pr);
	rc |= mrdem_writer_put(&w, MRDEM_REC_PAIRS, b.p, b.len);
	b.len = 0;
	mrdem_encode_contacts(&b, &c);
	rc |= mrdem_writer_put(&w, MRDEM_REC_CONTACTS, b.p, b.len);
	rc |= mrdem_writer_put(&w, 99, "future", 6); /* a type from a newer version */
	mrdem_buf_release(&b);
	mrdem_stats_release(&st);
	mrdem_pairs_release(&pr);
	mrdem_contacts_release(&c);
	return rc ? -1 : mrdem_writer_commit(&w);
}

/* Re-encode a decoded record and compare bytes with the original payload. */
static int reencodes(const struct mrdem_record *rec, struct mrdem_scene *s)
{
	struct mrdem_buf b;
	mrdem_buf_init(&b);
	int ok = 0;
	switch (rec->type) {
	case MRDEM_REC_SETUP:
		mrdem_encode_setup(&b, &s->setup);
		break;
	case MRDEM_REC_MESH: {
		const struct mrdem_shape *sh = &s->shapes[s->nshapes - 1];
		mrdem_encode_mesh(&b, sh->id, sh->name, &sh->mesh);
		break;
	}
	case MRDEM_REC_FRAME:
		mrdem_encode_frame(&b, &s->frame);
		break;
	case MRDEM_REC_STATS: {
		struct mrdem_stats st;
		if (mrdem_decode_stats(rec, "t", &st))
			return 0;
		mrdem_encode_stats(&b, &st);
		mrdem_stats_release(&st);
		break;
	}
	case MRDEM_REC_PAIRS: {
		struct mrdem_pairs p;
		if (mrdem_decode_pairs(rec, "t", &p))
			return 0;
		mrdem_encode_pairs(&b, &p);
		mrdem_pairs_release(&p);
		break;
	}
	case MRDEM_REC_CONTACTS: {
		struct mrdem_contacts c;
		if (mrdem_decode_contacts(rec, "t", &c))
			return 0;
		mrdem_encode_contacts(&b, &c);
		mrdem_contacts_release(&c);
		break;
	}
	default:
		mrdem_buf_bytes(&b, rec->data, rec->len);
	}
	ok = b.len == rec->len && !memcmp(b.p, rec->data, b.len);
	mrdem_buf_release(&b);
	return ok;
}

/* What the last read_all reported on stderr (captured, so that expected
 * errors do not reach the terminal). */
static const char *read_err = "";

static int read_all_(const char *file, int *rc, struct mrdem_scene *s, int *reencode_ok);

/* Read a whole stream; returns records read, and *rc the final status. */
static int read_all(const char *file, int *rc, struct mrdem_scene *s, int *reencode_ok)
{
	tap_capture_begin();
	int n = read_all_(file, rc, s, reencode_ok);
	read_err = tap_capture_end();
	return n;
}

static int read_all_(const char *file, int *rc, struct mrdem_scene *s, int *reencode_ok)
{
	struct mrdem_reader r;
	struct mrdem_record rec;
	int n = 0;
	if (reencode_ok)
		*reencode_ok = 1;
	if (mrdem_reader_open(&r, file, 0)) {
		*rc = -1;
		return 0;
	}
	while ((*rc = mrdem_reader_next(&r, &rec)) == 1) {
		n++;
		if (s && mrdem_scene_absorb(s, &rec, r.name) < 0) {
			*rc = -1;
			break;
		}
		if (s && reencode_ok && !reencodes(&rec, s))
			*reencode_ok = 0;
	}
	mrdem_reader_close(&r);
	return n;
}

static void *slurp(const char *file, size_t *len)
{
	FILE *f = fopen(file, "rb");
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	void *p = malloc(*len);
	*len = fread(p, 1, *len, f);
	fclose(f);
	return p;
}

static void spit(const char *file, const void *p, size_t len)
{
	FILE *f = fopen(file, "wb");
	fwrite(p, 1, len, f);
	fclose(f);
}

/* Uncompressed bytes of a stream, and the way back. */
static unsigned char *inflate_file(const char *file, size_t *len)
{
	gzFile gz = gzopen(file, "rb");
	size_t cap = 1 << 16;
	unsigned char *p = malloc(cap);
	*len = 0;
	int k;
	while ((k = gzread(gz, p + *len, (unsigned)(cap - *len))) > 0) {
		*len += (size_t)k;
		if (*len == cap)
			p = realloc(p, cap *= 2);
	}
	gzclose(gz);
	return p;
}

static void deflate_file(const char *file, const void *p, size_t len)
{
	gzFile gz = gzopen(file, "wb");
	gzwrite(gz, p, (unsigned)len);
	gzclose(gz);
}

static void test_round_trip(void)
{
	struct mrdem_scene s, t;
	make_scene(&s, 50);
	tap_ok(write_scene(path("good.mrd"), &s) == 0, "write a scene with every record type");
	mrdem_scene_init(&t);
	int rc, same;
	int n = read_all(path("good.mrd"), &rc, &t, &same);
	tap_eq_int(n, 9, "all records read back (setup, mesh, frame, stats, pairs, contacts, unknown, "
		   "index, end)");
	tap_eq_int(rc, 0, "clean end of stream");
	tap_ok(strstr(read_err, "record 6: unknown ancillary record type") && !strstr(read_err, "error"),
	       "the unknown record is passed with a warning, nothing else: %s", read_err);
	tap_ok(same, "every record re-encodes byte-identically");
	tap_ok(t.nshapes == 1 && t.frame.p.n == 50 && t.setup.nplanes == 2 &&
		       t.frame.p.id[49] == 1049 && t.frame.p.pos[7] == s.frame.p.pos[7] &&
		       t.frame.p.quat[13] == s.frame.p.quat[13] && t.frame.step == 7 &&
		       t.setup.gravity[2] == -9.81 && !strcmp(t.shapes[0].name, "tet"),
	       "decoded values equal the written ones exactly");
	mrdem_scene_release(&t);

	/* gzip-compatible: zlib's gz reader (what zcat uses) sees the magic. */
	size_t len;
	unsigned char *raw = inflate_file(path("good.mrd"), &len);
	tap_ok(len > 16 && raw[0] == 0x89 && !memcmp(raw + 1, "MRDEM", 5),
	       "inflated stream starts with the magic");
	/* An uncompressed stream (zcat output) is read as well. */
	spit(path("plain.mrd"), raw, len);
	n = read_all(path("plain.mrd"), &rc, NULL, NULL);
	tap_ok(n == 9 && rc == 0, "an uncompressed (zcat'ed) stream reads the same");
	/* Two streams back to back (cat a b): both are read, one after the other. */
	size_t glen;
	unsigned char *gz = slurp(path("good.mrd"), &glen);
	unsigned char *two = malloc(2 * glen);
	memcpy(two, gz, glen);
	memcpy(two + glen, gz, glen);
	spit(path("two.mrd"), two, 2 * glen);
	n = read_all(path("two.mrd"), &rc, NULL, NULL);
	tap_ok(n == 18 && rc == 0, "concatenated streams read one after the other (%d records)", n);
	free(two);
	free(gz);
	free(raw);
	mrdem_scene_release(&s);
}

static void test_bad_streams(void)
{
	size_t len;
	unsigned char *raw = inflate_file(path("good.mrd"), &len);
	unsigned char *p = malloc(len + 64);
	int rc, n;

	memcpy(p, raw, len);
	p[1] = 'X';
	deflate_file(path("magic.mrd"), p, len);
	n = read_all(path("magic.mrd"), &rc, NULL, NULL);
	tap_ok(rc == -1 && n == 0 && strstr(read_err, "magic.mrd: not an mrdem stream (bad magic"),
	       "bad magic is rejected: %s", read_err);

	memcpy(p, raw, len);
	p[8] = 9;
	deflate_file(path("version.mrd"), p, len);
	n = read_all(path("version.mrd"), &rc, NULL, NULL);
	tap_ok(rc == -1 && n == 0 && strstr(read_err, "unsupported stream version 9"),
	       "unsupported version is rejected: %s", read_err);

	/* Flip one payload byte of the mesh record (record 1): checksum. */
	memcpy(p, raw, len);
	p[16 + 16] ^= 0x40; /* first payload byte of the setup record */
	deflate_file(path("crc.mrd"), p, len);
	n = read_all(path("crc.mrd"), &rc, NULL, NULL);
	tap_ok(rc == -1 && n == 0 && strstr(read_err, "checksum mismatch"),
	       "corrupt record (checksum) is rejected: %s", read_err);

	/* Truncate the uncompressed stream in the middle of every record. */
	int all = 1;
	for (size_t cut = 17; cut < len; cut += 37) {
		deflate_file(path("cut.mrd"), raw, cut);
		read_all(path("cut.mrd"), &rc, NULL, NULL);
		all &= rc == -1 && strstr(read_err, "truncated stream") != NULL;
	}
	tap_ok(all, "every truncation point of the record sequence is reported as truncation");

	/* Truncate the compressed file: complete records before it survive. */
	size_t glen;
	unsigned char *gz = slurp(path("good.mrd"), &glen);
	all = 1;
	for (size_t cut = 1; cut < glen; cut += 7) {
		spit(path("gzcut.mrd"), gz, cut);
		read_all(path("gzcut.mrd"), &rc, NULL, NULL);
		/* one byte of gzip is not even a stream's magic */
		all &= rc == -1 && (strstr(read_err, "truncated stream") ||
				    strstr(read_err, "incomplete stream") ||
				    (cut == 1 && strstr(read_err, "not an mrdem stream")));
		if (!all) {
			tap_diag("cut at %zu of %zu: %s", cut, glen, read_err);
			break;
		}
	}
	tap_ok(all, "every truncation of the compressed file is detected");
	/* Garbage in the compressed data. */
	memcpy(p, gz, glen);
	for (size_t i = glen / 2; i < glen / 2 + 16; i++)
		p[i] ^= 0xa5;
	spit(path("gzbad.mrd"), p, glen);
	read_all(path("gzbad.mrd"), &rc, NULL, NULL);
	/* zlib or, where the garbage still inflates, the record checksum
	 * catches it (which one depends on the bytes) */
	tap_ok(rc == -1 && (strstr(read_err, "corrupt compressed data") ||
			    strstr(read_err, "checksum mismatch (corrupt record)")),
	       "corrupt compressed data is detected: %s", read_err);
	free(gz);

	/* A record whose payload is longer than its type's layout, with a valid
	 * checksum: the decoder reports the length mismatch. */
	struct mrdem_writer w;
	struct mrdem_buf b;
	struct mrdem_pairs pr;
	mrdem_pairs_init(&pr);
	mrdem_pairs_push(&pr, 1, 2);
	mrdem_buf_init(&b);
	mrdem_encode_pairs(&b, &pr);
	mrdem_buf_u32(&b, 0);
	mrdem_writer_open(&w, path("len.mrd"), 0);
	mrdem_writer_put(&w, MRDEM_REC_PAIRS, b.p, b.len);
	mrdem_writer_commit(&w);
	struct mrdem_reader r;
	struct mrdem_record rec;
	mrdem_reader_open(&r, path("len.mrd"), 0);
	rc = mrdem_reader_next(&r, &rec);
	struct mrdem_pairs back;
	tap_capture_begin();
	int drc = rc == 1 ? mrdem_decode_pairs(&rec, r.name, &back) : 0;
	const char *err = tap_capture_end();
	tap_ok(rc == 1 && drc == -1 && strstr(err, "4 unexpected bytes after the payload"),
	       "payload length mismatch is rejected by the decoder: %s", err);
	/* A count claiming more elements than the payload holds. */
	b.len = 8;
	mrdem_buf_u64(&b, UINT64_MAX / 2);
	rec.data = b.p;
	rec.len = b.len;
	tap_capture_begin();
	drc = mrdem_decode_pairs(&rec, r.name, &back);
	err = tap_capture_end();
	tap_ok(drc == -1 && strstr(err, "payload too short"),
	       "absurd element count is rejected without allocating: %s", err);
	mrdem_reader_close(&r);
	mrdem_buf_release(&b);
	mrdem_pairs_release(&pr);
	free(p);
	free(raw);
}

/* A writer killed after flushing frames leaves a readable prefix. */
static void test_killed_writer(void)
{
	struct mrdem_scene s;
	make_scene(&s, 10);
	pid_t pid = fork();
	if (pid == 0) {
		struct mrdem_writer w;
		if (mrdem_writer_open(&w, path("killed.mrd"), MRDEM_WRITE_INCREMENTAL))
			_exit(3);
		mrdem_scene_write(&w, &s);
		mrdem_writer_publish(&w);
		for (int i = 0; i < 3; i++) {
			s.frame.step++;
			mrdem_write_frame(&w, &s.frame);
			mrdem_writer_flush(&w);
		}
		/* Half a frame in the compressor's buffer, then die. */
		s.frame.step++;
		mrdem_write_frame(&w, &s.frame);
		_exit(0);
	}
	int status;
	waitpid(pid, &status, 0);
	struct mrdem_scene t;
	mrdem_scene_init(&t);
	int rc;
	int n = read_all(path("killed.mrd"), &rc, &t, NULL);
	tap_ok(rc == -1 && strstr(read_err, "truncated stream"), "killed writer: truncation reported");
	tap_ok(n >= 6 && t.frame.step >= 10, "killed writer: every flushed frame delivered "
	       "(%d records, last step %llu)", n, (unsigned long long)t.frame.step);
	mrdem_scene_release(&t);
	mrdem_scene_release(&s);
}

static void test_no_partial_output(void)
{
	struct mrdem_writer w;
	mrdem_writer_open(&w, path("aborted.mrd"), 0);
	mrdem_writer_put(&w, MRDEM_REC_STATS, "x", 1);
	mrdem_writer_abort(&w);
	tap_ok(access(path("aborted.mrd"), F_OK) != 0, "aborted writer leaves no output file");
	char cmd[512];
	snprintf(cmd, sizeof cmd, "ls %s | grep -c tmp >/dev/null", dir);
	tap_ok(system(cmd) != 0, "and no temporary file");
}

/* An incremental writer (mrdem-run's) that fails before it publishes leaves
 * an older file at its path as it was; once published, what it flushed. */
static void test_incremental_publish(void)
{
	FILE *f = fopen(path("older.mrd"), "w");
	fputs("older\n", f);
	fclose(f);
	struct mrdem_writer w;
	int rc = mrdem_writer_open(&w, path("older.mrd"), MRDEM_WRITE_INCREMENTAL);
	rc = rc || mrdem_writer_put(&w, MRDEM_REC_STATS, "x", 1) || mrdem_writer_flush(&w);
	mrdem_writer_abort(&w);
	char line[16] = "";
	f = fopen(path("older.mrd"), "r");
	tap_ok(rc == 0 && f && fgets(line, sizeof line, f) && !strcmp(line, "older\n"),
	       "incremental writer aborted before publishing: the older file is untouched");
	if (f)
		fclose(f);
	rc = mrdem_writer_open(&w, path("older.mrd"), MRDEM_WRITE_INCREMENTAL);
	rc = rc || mrdem_writer_put(&w, MRDEM_REC_STATS, "x", 1) || mrdem_writer_publish(&w) ||
	     mrdem_writer_publish(&w);
	struct stat st;
	int there = stat(path("older.mrd"), &st) == 0 && st.st_size > 16;
	mrdem_writer_abort(&w);
	tap_ok(rc == 0 && there && access(path("older.mrd"), F_OK) == 0,
	       "published: the file is in place and an abort keeps it");
	char cmd[512];
	snprintf(cmd, sizeof cmd, "ls %s | grep -c tmp >/dev/null", dir);
	tap_ok(system(cmd) != 0, "and no temporary file");
}

/* The driver's count of a contacts record: the decoder's count, and a
 * length that does not hold whole contacts refused. */
static void test_count_contacts(void)
{
	struct mrdem_contacts c;
	mrdem_contacts_init(&c);
	c.step = 5;
	for (int i = 0; i < 3; i++) {
		struct mrdem_contact *k = mrdem_contacts_push(&c);
		k->a = 1000, k->b = 1001 + (uint64_t)i, k->normal[2] = 1;
	}
	struct mrdem_buf b;
	mrdem_buf_init(&b);
	mrdem_encode_contacts(&b, &c);
	struct mrdem_record rec = {.type = MRDEM_REC_CONTACTS, .data = b.p, .len = b.len};
	uint64_t n = 0;
	int rc = mrdem_count_contacts(&rec, "t", &n);
	tap_ok(rc == 0 && n == 3, "contacts counted: %llu", (unsigned long long)n);
	rec.len--;
	tap_capture_begin();
	rc = mrdem_count_contacts(&rec, "t", &n);
	const char *err = tap_capture_end();
	tap_ok(rc == -1 && strstr(err, "corrupt record"), "a cut contacts record is refused: %s",
	       err);
	mrdem_buf_release(&b);
	mrdem_contacts_release(&c);
}

int main(void)
{
	mrdem_set_progname("test_stream");
	if (!mkdtemp(dir))
		return 1;
	test_round_trip();
	test_bad_streams();
	test_killed_writer();
	test_no_partial_output();
	test_incremental_publish();
	test_count_contacts();
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd))
		return 1;
	return tap_done();
}
