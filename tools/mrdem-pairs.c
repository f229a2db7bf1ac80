/* mrdem-pairs: broad phase. Appends the candidate pair list of every frame
 * (docs/broad-phase.md). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/broad/broad.h"
#include "common/util/error.h"
#include "formats/bytes.h"
#include "formats/records.h"
#include "formats/stream.h"

static const char usage[] =
	"usage: mrdem-pairs [--method grid|brute] [-o FILE] [INPUT]\n"
	"\n"
	"Broad phase: read a scene or frame stream (INPUT, or standard input) and\n"
	"write it on (FILE, or standard output) with, after every frame, a pairs\n"
	"record of the candidate particle-particle and particle-plane pairs whose\n"
	"bounding spheres (shape radius about the centre of mass + eps) touch, and a\n"
	"stats record of counters (source mrdem-pairs). Pairs records and\n"
	"mrdem-pairs stats already in the input are replaced.\n"
	"\n"
	"  -m, --method M   grid (uniform cells, linear time; default) or brute\n"
	"                   (all pairs, quadratic); both give the same list\n"
	"  -o, --output F   output file (default: standard output)\n"
	"  -h, --help       show this help\n"
	"\n"
	"Exit status: 0 success, 1 error (bad input, failed computation), 2 usage\n"
	"error (unknown option, bad option value, too many arguments).\n";

static const char source[] = "mrdem-pairs";

/* A stats record written by an earlier mrdem-pairs run: 1, else 0; -1 bad. */
static int is_own_stats(const struct mrdem_record *rec, const char *src)
{
	struct mrdem_stats st;
	if (mrdem_decode_stats(rec, src, &st))
		return -1;
	int own = !strcmp(st.source, source);
	mrdem_stats_release(&st);
	return own;
}

static int write_pairs(struct mrdem_writer *w, struct mrdem_buf *buf, struct mrdem_broad *broad,
		       const struct mrdem_scene *scene, int method, struct mrdem_pairs *pairs)
{
	struct mrdem_broad_stats st;
	if (mrdem_broad_phase(broad, scene, method, pairs, &st))
		return -1;
	buf->len = 0;
	mrdem_encode_pairs(buf, pairs);
	if (mrdem_writer_put(w, MRDEM_REC_PAIRS, buf->p, buf->len))
		return -1;
	struct mrdem_stats stats;
	mrdem_stats_init(&stats, source, scene->frame.step);
	mrdem_broad_stats_add(&stats, method, &st);
	buf->len = 0;
	mrdem_encode_stats(buf, &stats);
	mrdem_stats_release(&stats);
	if (mrdem_writer_put(w, MRDEM_REC_STATS, buf->p, buf->len))
		return -1;
	return mrdem_writer_flush(w);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"method", required_argument, NULL, 'm'},
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	mrdem_set_progname(argv[0]);
	int method = MRDEM_BROAD_GRID, c;
	const char *out = "-";
	while ((c = getopt_long(argc, argv, "m:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			method = mrdem_broad_method_parse(optarg);
			if (method < 0) {
				fprintf(stderr, "mrdem-pairs: unknown method '%s' (use grid or brute)\n",
					optarg);
				return 2;
			}
			break;
		case 'o': out = optarg; break;
		case 'h': fputs(usage, stdout); return 0;
		default: fputs("try 'mrdem-pairs --help'\n", stderr); return 2;
		}
	}
	if (argc - optind > 1) {
		fputs("mrdem-pairs: give at most one input (try 'mrdem-pairs --help')\n", stderr);
		return 2;
	}
	const char *in = optind < argc ? argv[optind] : "-";

	struct mrdem_reader r;
	if (mrdem_reader_open(&r, in))
		return 1;
	struct mrdem_writer w;
	if (mrdem_writer_open(&w, out, 0)) {
		mrdem_reader_close(&r);
		return 1;
	}
	struct mrdem_scene scene;
	mrdem_scene_init(&scene);
	struct mrdem_broad *broad = mrdem_broad_new();
	struct mrdem_pairs pairs;
	mrdem_pairs_init(&pairs);
	struct mrdem_buf buf;
	mrdem_buf_init(&buf);
	uint64_t frames = 0;

	struct mrdem_record rec;
	int rc;
	while ((rc = mrdem_reader_next(&r, &rec)) == 1) {
		if (rec.type == MRDEM_REC_PAIRS)
			continue; /* stale: replaced by ours */
		if (rec.type == MRDEM_REC_STATS) {
			int own = is_own_stats(&rec, r.name);
			if (own < 0) {
				rc = -1;
				break;
			}
			if (own)
				continue;
		}
		if (mrdem_scene_absorb(&scene, &rec, r.name) < 0 ||
		    mrdem_writer_put_record(&w, &rec)) {
			rc = -1;
			break;
		}
		if (rec.type == MRDEM_REC_FRAME) {
			frames++;
			if (write_pairs(&w, &buf, broad, &scene, method, &pairs)) {
				mrdem_error("%s: record %llu: broad phase of step %llu failed", r.name,
					    (unsigned long long)rec.index,
					    (unsigned long long)scene.frame.step);
				rc = -1;
				break;
			}
		}
	}
	if (rc == 0 && frames == 0)
		rc = mrdem_error("%s: no frame record in the stream (nothing to pair)", r.name);
	if (rc == 0)
		rc = mrdem_writer_commit(&w);
	else
		mrdem_writer_abort(&w);
	mrdem_reader_close(&r);
	mrdem_buf_release(&buf);
	mrdem_pairs_release(&pairs);
	mrdem_broad_free(broad);
	mrdem_scene_release(&scene);
	return rc == 0 ? 0 : 1;
}
