/* The record filter (formats/stream/filter.h): its pass-through and replacement
 * rules, tested once for every tool that runs on it. A toy tool replaces
 * pairs, takes frames (writing a stats record after each) and counts the
 * streams it saw end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util/error.h"
#include "formats/stream/filter.h"
#include "formats/stream/records.h"
#include "tests/lib/tap.h"
#include "tests/unit/stream_fixture.h"

/* The tetrahedron scene with a frame of n particles at the origin. */
static void make_scene(struct mrdem_scene *s, size_t n)
{
	tet_scene(s);
	for (size_t i = 0; i < n; i++)
		mrdem_particles_push(&s->frame.p, 10 + i, 0);
}

static int put_stats(struct mrdem_writer *w, const char *source, uint64_t step)
{
	struct mrdem_stats st;
	mrdem_stats_init(&st, source, step);
	mrdem_stats_add(&st, "x", 1);
	int rc = mrdem_write_stats(w, &st);
	mrdem_stats_release(&st);
	return rc;
}

/* meta(maker), setup, mesh, frame, pairs, stats(toy), stats(other),
 * unknown ancillary 77, frame, end. */
static int write_input(struct mrdem_writer *w)
{
	struct mrdem_scene s;
	struct mrdem_meta m;
	struct mrdem_pairs p;
	make_scene(&s, 2);
	mrdem_meta_init(&m, "maker", 0, NULL);
	mrdem_pairs_init(&p);
	mrdem_pairs_push(&p, 10, 11);
	int rc = mrdem_write_meta(w, &m) || mrdem_scene_write(w, &s) ||
		 mrdem_write_pairs(w, &p) || put_stats(w, "toy", 0) || put_stats(w, "other", 0) ||
		 mrdem_writer_put(w, 77, "later", 5);
	s.frame.step = 1;
	rc = rc || mrdem_write_frame(w, &s.frame);
	mrdem_pairs_release(&p);
	mrdem_meta_release(&m);
	mrdem_scene_release(&s);
	return rc ? -1 : 0;
}

struct toy {
	int frames_taken, ends, fail_at_frame;
	uint64_t last_step;
};

static int toy_frame(struct mrdem_filter *f, const struct mrdem_record *rec)
{
	struct toy *t = f->ctx;
	(void)rec;
	t->frames_taken++;
	t->last_step = f->scene.frame.step;
	if (t->fail_at_frame && t->frames_taken == t->fail_at_frame)
		return mrdem_error("toy: refusing frame %d", t->frames_taken);
	if (mrdem_filter_pass(f, rec))
		return -1;
	return put_stats(&f->w, "toy", f->scene.frame.step) ? -1 : 1;
}

static int toy_end(struct mrdem_filter *f)
{
	((struct toy *)f->ctx)->ends++;
	return 0;
}

static int run_toy(struct toy *t, const char *in, const char *out)
{
	struct mrdem_filter f;
	mrdem_filter_init(&f, "toy");
	f.replaces = MRDEM_TYPE_BIT(MRDEM_REC_PAIRS);
	f.takes = MRDEM_TYPE_BIT(MRDEM_REC_FRAME);
	f.on_record = toy_frame;
	f.on_end = toy_end;
	f.ctx = t;
	int rc = mrdem_filter_run(&f, in, out, 0, NULL);
	mrdem_filter_release(&f);
	return rc;
}

/* The record types of a stream as a string: "meta setup ...". */
static void types_of(const char *file, char *out, size_t cap)
{
	struct mrdem_reader r;
	struct mrdem_record rec;
	out[0] = 0;
	tap_capture_begin(); /* the unknown record's warning */
	if (mrdem_reader_open(&r, file, 0)) {
		tap_capture_end();
		return;
	}
	while (mrdem_reader_next(&r, &rec) == 1) {
		const char *name = mrdem_record_name(rec.type);
		char word[64];
		if (rec.type == MRDEM_REC_STATS) {
			struct mrdem_stats st;
			if (mrdem_decode_stats(&rec, r.name, &st) == 0) {
				snprintf(word, sizeof word, "stats(%s)", st.source);
				mrdem_stats_release(&st);
			}
		} else if (rec.type == MRDEM_REC_META) {
			struct mrdem_meta m;
			if (mrdem_decode_meta(&rec, r.name, &m) == 0) {
				snprintf(word, sizeof word, "meta(%s)", m.tool);
				mrdem_meta_release(&m);
			}
		} else {
			snprintf(word, sizeof word, "%s", name ? name : "unknown");
		}
		snprintf(out + strlen(out), cap - strlen(out), "%s%s", out[0] ? " " : "", word);
	}
	mrdem_reader_close(&r);
	tap_capture_end();
}

static void test_rules(void)
{
	struct mrdem_writer w;
	tap_ok(mrdem_writer_open(&w, path("in.mrd"), 0) == 0 && write_input(&w) == 0 &&
		       mrdem_writer_commit(&w) == 0,
	       "input written");
	struct toy t = {0};
	tap_capture_begin();
	int rc = run_toy(&t, path("in.mrd"), path("out.mrd"));
	const char *err = tap_capture_end();
	tap_ok(rc == 0 && strstr(err, "unknown ancillary record type 77"),
	       "the toy runs; the unknown ancillary record is passed with a warning");
	char got[1024];
	types_of(path("out.mrd"), got, sizeof got);
	if (!tap_ok(!strcmp(got, "meta(maker) meta(toy) setup mesh frame stats(toy) stats(other) "
				 "unknown frame stats(toy) index end"),
		    "own meta after the input's; pairs replaced; own stats replaced, others kept; "
		    "taken frames written by the tool"))
		tap_diag("got: %s", got);
	tap_ok(t.frames_taken == 2 && t.ends == 1 && t.last_step == 1,
	       "each frame taken once, after absorption (last step %llu); one end",
	       (unsigned long long)t.last_step);

	/* Run twice: the earlier toy's stats are replaced, its meta kept. */
	struct toy t2 = {0};
	tap_capture_begin();
	rc = run_toy(&t2, path("out.mrd"), path("again.mrd"));
	tap_capture_end();
	types_of(path("again.mrd"), got, sizeof got);
	tap_ok(rc == 0 && !strcmp(got, "meta(maker) meta(toy) meta(toy) setup mesh frame stats(toy) "
					"stats(other) unknown frame stats(toy) index end"),
	       "a second run replaces the first run's stats and keeps its meta");
}

static void test_concatenation(void)
{
	FILE *a = fopen(path("in.mrd"), "rb"), *o = fopen(path("two.mrd"), "wb");
	char buf[65536];
	size_t k, total = 0;
	while ((k = fread(buf, 1, sizeof buf, a)) > 0)
		total += fwrite(buf, 1, k, o);
	rewind(a);
	while ((k = fread(buf, 1, sizeof buf, a)) > 0)
		total += fwrite(buf, 1, k, o);
	fclose(a);
	fclose(o);
	struct toy t = {0};
	tap_capture_begin();
	int rc = run_toy(&t, path("two.mrd"), path("two-out.mrd"));
	tap_capture_end();
	tap_ok(rc == 0 && t.ends == 2 && t.frames_taken == 4,
	       "two concatenated streams: each ends on its own (%d ends, %d frames)", t.ends,
	       t.frames_taken);
	struct mrdem_reader r;
	struct mrdem_record rec;
	unsigned segments = 0, meshes = 0;
	tap_capture_begin();
	if (mrdem_reader_open(&r, path("two-out.mrd"), 0) == 0) {
		while (mrdem_reader_next(&r, &rec) == 1) {
			segments = rec.segment + 1;
			meshes += rec.type == MRDEM_REC_MESH;
		}
		mrdem_reader_close(&r);
	}
	tap_capture_end();
	tap_ok(segments == 2 && meshes == 2, "two output streams, each with its shape");
}

static void test_failures(void)
{
	/* A callback error: no output file, no temporary. */
	struct toy t = {.fail_at_frame = 2};
	tap_capture_begin();
	int rc = run_toy(&t, path("in.mrd"), path("fail.mrd"));
	const char *err = tap_capture_end();
	tap_ok(rc == -1 && strstr(err, "refusing frame 2") && access(path("fail.mrd"), F_OK) != 0,
	       "a failing tool leaves no output");

	/* An input cut inside its last record: writers fail, readers see the
	 * complete records and their on_end. */
	FILE *a = fopen(path("in.mrd"), "rb"), *o = fopen(path("cut.mrd"), "wb");
	char buf[65536];
	size_t n = fread(buf, 1, sizeof buf, a);
	fwrite(buf, 1, n - 30, o);
	fclose(a);
	fclose(o);
	struct toy w = {0};
	tap_capture_begin();
	rc = run_toy(&w, path("cut.mrd"), path("cut-out.mrd"));
	err = tap_capture_end();
	tap_ok(rc == -1 && w.ends == 0 && access(path("cut-out.mrd"), F_OK) != 0 &&
		       strstr(err, "truncated"),
	       "a writing tool on a cut input: error, no on_end, no output");
	struct mrdem_filter f;
	struct toy rd = {0};
	mrdem_filter_init(&f, "reader");
	f.takes = MRDEM_TYPE_BIT(MRDEM_REC_FRAME);
	f.on_end = toy_end;
	f.ctx = &rd;
	tap_capture_begin();
	rc = mrdem_filter_run(&f, path("cut.mrd"), NULL, 0, NULL);
	tap_capture_end();
	tap_ok(rc == -1 && f.damaged && rd.ends == 1 && f.total_frames == 2,
	       "a reading tool on a cut input: the complete frames, on_end, then the error");
	mrdem_filter_release(&f);
}

int main(void)
{
	mrdem_set_progname("test_filter");
	if (!mkdtemp(dir))
		return 1;
	test_rules();
	test_concatenation();
	test_failures();
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd))
		return 1;
	return tap_done();
}
