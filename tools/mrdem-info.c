/* mrdem-info: describe any mrdem stream, for people or (--json) scripts
 * (each record by formats/foreign/describe.c), or upgrade an old one. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"
#include "common/util/parse.h"
#include "common/util/threads.h"
#include "formats/foreign/describe.h"
#include "formats/foreign/json.h"
#include "formats/stream/filter.h"
#include "formats/stream/records.h"
#include "formats/stream/stream.h"

static const char usage[] =
	"usage: mrdem-info [--json [--full]] [FILE]\n"
	"       mrdem-info --upgrade OLD -o NEW\n"
	"\n"
	"Describe the records of an mrdem stream (FILE, or standard input).\n"
	"\n"
	"  --json    print one JSON document instead of text\n"
	"  --full    with --json: dump every record completely (vertices, triangles,\n"
	"            particle states, tree nodes, pairs, contacts)\n"
	"  --follow  follow a stream that is still being written (a running\n"
	"            mrdem-run -o FILE): describe records as they arrive until its\n"
	"            end record, like tail -f\n"
	"  --frame N   describe frame N (from 0) alone: through the frame index of a\n"
	"            file written by an mrdem tool (no decompression of what comes\n"
	"            before it), else by reading up to it; with --json as a document\n"
	"  --upgrade OLD -o NEW\n"
	"            rewrite a stream of format version 1 (or 2) as version 2\n"
	"  -h, --help  show this help\n"
	"\n"
	"Exit status: 0 success (a complete, valid stream), 1 error (the stream is\n"
	"bad or truncated; the records before the damage are still described), 2\n"
	"usage error (unknown option, bad option value, an option given twice, too\n"
	"many arguments).\n";


struct info {
	/* options */
	const char *path, *out; /* the input; --upgrade's output */
	const char *frame;      /* --frame as given, frame_n its value */
	uint64_t frame_n;
	int json, full, upgrade, follow, help;
	struct mrdem_describe d;
};

/* A record of a version 1 stream in the current format: frames get
 * their column table, other types their class (unknown ones ancillary). */
static int upgrade_record(struct mrdem_filter *f, const struct mrdem_record *rec)
{
	if (f->r.version != 1)
		return 0; /* already current: passed through */
	if (rec->type != MRDEM_REC_FRAME)
		return mrdem_writer_put(&f->w, rec->type, rec->data, rec->len) ? -1 : 1;
	struct mrdem_frame fr;
	if (mrdem_decode_frame_v1(rec, f->src, &fr))
		return -1;
	int rc = mrdem_write_frame(&f->w, &fr);
	mrdem_frame_release(&fr);
	return rc ? -1 : 1;
}

/* Rewrite a stream of version 1 (or 2) as version 2, through the record
 * filter: it adds the meta and end records and keeps concatenations. */
static int upgrade(const char *in, const char *out, int argc, char **argv)
{
	struct mrdem_filter f;
	mrdem_filter_init(&f, "mrdem-info");
	f.read_flags = MRDEM_READ_V1;
	f.takes = MRDEM_ALL_TYPES;
	f.no_absorb = MRDEM_ALL_TYPES; /* nothing to compute: records are only rewritten */
	f.on_record = upgrade_record;
	int rc = mrdem_filter_run(&f, in, out, argc, argv);
	mrdem_filter_release(&f);
	return rc;
}

/* Describe frame `want` (from 0) of a file alone: through the frame index
 * when the file has one (after the setup and shapes before the first
 * frame), else by reading up to it. */
static int show_frame(struct info *in, const char *path, uint64_t want)
{
	struct mrdem_reader r;
	if (mrdem_reader_open(&r, path, 0))
		return -1;
	in->d.src = r.name;
	struct mrdem_frame_pos *v = NULL;
	size_t n = 0;
	int rc = mrdem_reader_frame_index(&r, &v, &n);
	struct mrdem_record rec;
	uint64_t frames = 0;
	int got = 0, via_index = 0;
	while (rc == 0 && !got) {
		int k = mrdem_reader_next(&r, &rec);
		if (k <= 0) {
			rc = k < 0 ? -1 : mrdem_error("%s: the stream has %llu frame(s), no frame %llu",
						      r.name, (unsigned long long)frames,
						      (unsigned long long)want);
			break;
		}
		if (rec.segment > 0) {
			rc = mrdem_error("%s: --frame reads single streams, this is a concatenation",
					 r.name);
			break;
		}
		if (rec.type == MRDEM_REC_FRAME) {
			/* The index must describe this stream: its first frame is here. */
			if (frames == 0 && want > 0 && want < n && v[0].offset == rec.offset) {
				if (mrdem_reader_seek(&r, &v[want])) {
					rc = -1;
					break;
				}
				via_index = 1;
				frames = want;
				continue;
			}
			got = frames++ == want;
			if (!got)
				continue;
		}
		if ((got || rec.type == MRDEM_REC_SETUP || rec.type == MRDEM_REC_MESH ||
		     rec.type == MRDEM_REC_SHAPE || rec.type == MRDEM_REC_TREE ||
		     rec.type == MRDEM_REC_SCALED_SHAPE || rec.type == MRDEM_REC_CONTACT_MODEL ||
		     rec.type == MRDEM_REC_MATERIALS || rec.type == MRDEM_REC_MOTION) &&
		    mrdem_scene_absorb(&in->d.scene, &rec, r.name) < 0)
			rc = -1;
	}
	if (rc == 0) {
		if (in->d.json) {
			mrdem_json_begin_object(&in->d.j);
			mrdem_json_kv_str(&in->d.j, "input", r.name);
			mrdem_json_kv_uint(&in->d.j, "frame", want);
			mrdem_json_key(&in->d.j, "via_index");
			mrdem_json_bool(&in->d.j, via_index);
			mrdem_json_key(&in->d.j, "record");
			mrdem_json_begin_object(&in->d.j);
			mrdem_describe_frame(&in->d, &in->d.scene.frame);
			mrdem_json_end_object(&in->d.j);
			mrdem_json_end_object(&in->d.j);
			fputc('\n', stdout);
		} else {
			printf("frame %llu (record %llu at byte %llu, %s)\n", (unsigned long long)want,
			       (unsigned long long)rec.index, (unsigned long long)rec.offset,
			       via_index ? "read through the frame index" : "read in sequence");
			mrdem_describe_frame(&in->d, &in->d.scene.frame);
		}
	}
	free(v);
	mrdem_reader_close(&r);
	return rc;
}

/* Describe every record of the stream at path, then count them by type;
 * -1 when the stream is bad or truncated (or standard output fails). */
static int describe_stream(struct info *in, const char *path)
{
	struct mrdem_reader r;
	if (mrdem_reader_open(&r, path, in->follow ? MRDEM_READ_FOLLOW : 0))
		return -1;
	in->d.src = r.name;
	if (in->d.json) {
		mrdem_json_begin_object(&in->d.j);
		mrdem_json_kv_str(&in->d.j, "input", r.name);
		mrdem_json_kv_uint(&in->d.j, "version", MRDEM_STREAM_VERSION);
		mrdem_json_key(&in->d.j, "records");
		mrdem_json_begin_array(&in->d.j);
	}
	struct mrdem_record rec;
	int rc;
	while ((rc = mrdem_reader_next(&r, &rec)) == 1) {
		if (mrdem_describe_record(&in->d, &rec)) {
			rc = -1;
			break;
		}
		if (in->follow)
			fflush(stdout); /* each record as it arrives */
	}
	if (in->d.json) {
		mrdem_json_end_array(&in->d.j);
		mrdem_json_key(&in->d.j, "counts");
		mrdem_json_begin_object(&in->d.j);
		for (uint32_t t = 1; t <= MRDEM_REC_KNOWN_MAX; t++)
			if (mrdem_record_name(t))
				mrdem_json_kv_uint(&in->d.j, mrdem_record_name(t), in->d.counts[t]);
		mrdem_json_kv_uint(&in->d.j, "unknown", in->d.counts[MRDEM_REC_KNOWN_MAX + 1]);
		mrdem_json_end_object(&in->d.j);
		mrdem_json_key(&in->d.j, "complete");
		mrdem_json_bool(&in->d.j, rc == 0);
		mrdem_json_end_object(&in->d.j);
	} else {
		printf("%llu records:", (unsigned long long)r.records);
		for (uint32_t t = 1; t <= MRDEM_REC_KNOWN_MAX; t++)
			if (in->d.counts[t])
				printf(" %llu %s", (unsigned long long)in->d.counts[t],
				       mrdem_record_name(t));
		if (in->d.counts[MRDEM_REC_KNOWN_MAX + 1])
			printf(" %llu unknown", (unsigned long long)in->d.counts[MRDEM_REC_KNOWN_MAX + 1]);
		printf("%s\n", rc == 0 ? "" : " (stream incomplete or damaged)");
	}
	mrdem_reader_close(&r);
	if (fflush(stdout) || ferror(stdout))
		return mrdem_error("write error on standard output");
	return rc;
}

/* Options into in (zeroed first). Returns 0, or the exit status 2 for a
 * usage error; after --help, 0 with in->help set. */
static int parse_options(struct info *in, int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"full", no_argument, NULL, 'f'},
		{"upgrade", no_argument, NULL, 'u'},
		{"follow", no_argument, NULL, 'w'},
		{"frame", required_argument, NULL, 'F'},
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	memset(in, 0, sizeof *in);
	struct mrdem_opts_seen seen = {{0}};
	int c, li;
	while ((c = mrdem_getopt_once(argc, argv, "o:h", opts, &li, &seen)) != -1) {
		switch (c) {
		case 'u': in->upgrade = 1; break;
		case 'w': in->follow = 1; break;
		case 'F': in->frame = optarg; break;
		case 'o': in->out = optarg; break;
		case 'j': in->json = 1; break;
		case 'f': in->full = 1; break;
		case 'h': fputs(usage, stdout); in->help = 1; return 0;
		default: fputs("try 'mrdem-info --help'\n", stderr); return 2;
		}
	}
	if (in->full && !in->json) {
		fputs("mrdem-info: --full needs --json\n", stderr);
		return 2;
	}
	if (argc - optind > 1) {
		fputs("mrdem-info: give at most one input (try 'mrdem-info --help')\n", stderr);
		return 2;
	}
	in->path = optind < argc ? argv[optind] : "-";
	if (in->upgrade != (in->out != NULL)) {
		fputs("mrdem-info: --upgrade and -o go together (try 'mrdem-info --help')\n", stderr);
		return 2;
	}
	if (in->follow && (in->upgrade || in->frame)) {
		fputs("mrdem-info: --follow takes no --upgrade or --frame (try 'mrdem-info --help')\n",
		      stderr);
		return 2;
	}
	if (in->upgrade && (in->frame || in->json)) {
		fputs("mrdem-info: --upgrade takes no --frame or --json (try 'mrdem-info --help')\n",
		      stderr);
		return 2;
	}
	if (in->frame &&
	    mrdem_parse_u64("--frame", in->frame, UINT64_MAX, &in->frame_n))
		return 2;
	return 0;
}

int main(int argc, char **argv)
{
	mrdem_set_progname(argv[0]);
	mrdem_threads_init();
	struct info in;
	int rc = parse_options(&in, argc, argv);
	if (rc || in.help)
		return rc;
	if (in.upgrade)
		return upgrade(in.path, in.out, argc, argv) ? 1 : 0;
	mrdem_describe_init(&in.d, in.json, in.full);
	if (in.frame)
		rc = show_frame(&in, in.path, in.frame_n);
	else
		rc = describe_stream(&in, in.path);
	mrdem_describe_release(&in.d);
	return rc ? 1 : 0;
}
