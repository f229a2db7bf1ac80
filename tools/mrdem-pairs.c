/* mrdem-pairs: broad phase. Appends the candidate pair list of every frame
 * (docs/broad-phase.md). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/broad/broad.h"
#include "common/util/error.h"
#include "common/util/parse.h"
#include "common/util/threads.h"
#include "formats/stream/filter.h"
#include "formats/stream/records.h"

static const char usage[] =
	"usage: mrdem-pairs [--broad sap|mr|mmr|grid|brute] [-o FILE] [INPUT]\n"
	"\n"
	"Broad phase: read a scene or frame stream (INPUT, or standard input) and\n"
	"write it on (FILE, or standard output) with, after every frame, a pairs\n"
	"record of the candidate particle-particle and particle-plane pairs whose\n"
	"bounding spheres (shape radius about the centre of mass + eps) touch, and a\n"
	"stats record of counters (source mrdem-pairs). Pairs records and\n"
	"mrdem-pairs stats already in the input are replaced.\n"
	"\n"
	"  -b, --broad M    the method, all giving the same list: sap (incremental\n"
	"                   sort-and-update of boxes), mr (MR-linear sort and search\n"
	"                   of cells), mmr (MR in size groups, for polydisperse\n"
	"                   scenes), grid (hashed uniform cells) or brute (all\n"
	"                   pairs, quadratic). Default: sap for a stream whose first\n"
	"                   frame has at most 256 particles and that inserts none,\n"
	"                   else mr (the fastest for each). The sorted lists of sap,\n"
	"                   mr and mmr are kept from one frame of the stream to the next\n"
	"  -m, --method M   the same as --broad\n"
	"  -o, --output F   output file (default: standard output)\n"
	"  -h, --help       show this help\n"
	"\n"
	"Exit status: 0 success, 1 error (bad input, failed computation), 2 usage\n"
	"error (unknown option, bad option value, an option given twice, too many\n"
	"arguments).\n";

/* mrdem-pairs as a filter: the broad phase, and the frame that waits for
 * its pairs. */
struct pairs_filter {
	int method;             /* -1: mrdem_broad_default's for the first frame */
	struct mrdem_broad *broad;
	struct mrdem_pairs pairs;
	int pending;            /* a frame awaits its pairs */
	uint64_t frame_index;   /* its record */
};

/* The pairs of the frame in f->scene and the broad phase's counters. */
static int write_pairs(struct mrdem_filter *f)
{
	struct pairs_filter *pf = f->ctx;
	struct mrdem_broad_stats st;
	pf->pending = 0;
	/* one method for the whole stream, so every stats record has the same names */
	if (pf->method < 0)
		pf->method = mrdem_broad_default(&f->scene);
	if (mrdem_broad_phase(pf->broad, &f->scene, pf->method, &pf->pairs, &st))
		return mrdem_error("%s: record %llu: broad phase of step %llu failed", f->src,
				   (unsigned long long)pf->frame_index,
				   (unsigned long long)f->scene.frame.step);
	struct mrdem_stats stats;
	mrdem_stats_init(&stats, f->tool, f->scene.frame.step);
	mrdem_broad_stats_add(&stats, pf->method, &st);
	int rc = mrdem_write_pairs(&f->w, &pf->pairs) || mrdem_write_stats(&f->w, &stats) ||
		 mrdem_writer_flush(&f->w);
	mrdem_stats_release(&stats);
	return rc ? -1 : 0;
}

/* A frame's pairs follow the frame and its history record, if it has one
 * (docs/stream-format.md, "Ordering"). */
static int pair_frame(struct mrdem_filter *f, const struct mrdem_record *rec)
{
	struct pairs_filter *pf = f->ctx;
	if (mrdem_filter_pass(f, rec))
		return -1;
	if (rec->type == MRDEM_REC_FRAME) {
		pf->pending = 1;
		pf->frame_index = rec->index;
		/* The next tool decodes the frame during our broad phase. */
		return mrdem_writer_flush(&f->w) ? -1 : 1;
	}
	return pf->pending && write_pairs(f) ? -1 : 1;
}

static int before(struct mrdem_filter *f, const struct mrdem_record *rec)
{
	struct pairs_filter *pf = f->ctx;
	return pf->pending && rec->type != MRDEM_REC_HISTORY ? write_pairs(f) : 0;
}

static int check_end(struct mrdem_filter *f)
{
	struct pairs_filter *pf = f->ctx;
	if (pf->pending && write_pairs(f))
		return -1;
	if (f->frames == 0)
		return mrdem_error("%s: no frame record in the stream (nothing to pair)", f->src);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"broad", required_argument, NULL, 'b'},
		{"method", required_argument, NULL, 'm'},
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	mrdem_set_progname(argv[0]);
	mrdem_threads_init();
	int method = -1, c, li, method_given = 0;
	const char *out = "-";
	struct mrdem_opts_seen seen = {{0}};
	while ((c = mrdem_getopt_once(argc, argv, "b:m:o:h", opts, &li, &seen)) != -1) {
		/* --broad and --method are one option under two names */
		if ((c == 'b' || c == 'm') && method_given++) {
			mrdem_error("--broad and --method name the same option: give one");
			c = '?';
		}
		switch (c) {
		case 'b':
		case 'm':
			method = mrdem_broad_method_option(c == 'b' ? "--broad" : "--method", optarg);
			if (method < 0)
				return 2;
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
	struct pairs_filter pf = {.method = method, .broad = mrdem_broad_new()};
	mrdem_pairs_init(&pf.pairs);
	struct mrdem_filter f;
	mrdem_filter_init(&f, "mrdem-pairs");
	f.replaces = MRDEM_TYPE_BIT(MRDEM_REC_PAIRS);
	f.takes = MRDEM_TYPE_BIT(MRDEM_REC_FRAME) | MRDEM_TYPE_BIT(MRDEM_REC_HISTORY);
	f.before = before;
	f.on_record = pair_frame;
	f.on_end = check_end;
	f.ctx = &pf;
	int rc = mrdem_filter_run(&f, optind < argc ? argv[optind] : "-", out, argc, argv);
	mrdem_filter_release(&f);
	mrdem_pairs_release(&pf.pairs);
	mrdem_broad_free(pf.broad);
	return rc == 0 ? 0 : 1;
}
