/* mrdem-merge: the one stream of a parallel run (mrdem-run-mpi) from the
 * streams its ranks wrote (formats/stream/rank_merge.h). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "common/util/error.h"
#include "common/util/parse.h"
#include "common/util/threads.h"
#include "formats/stream/meta.h"
#include "formats/stream/rank_merge.h"
#include "formats/stream/rank_parts.h"
#include "formats/stream/records.h"

static const char usage[] =
	"usage: mrdem-merge [-o FILE] DIR\n"
	"\n"
	"Merge the streams of a parallel run's ranks into one stream.\n"
	"\n"
	"From DIR/rank-0.mrd .. DIR/rank-(N-1).mrd (mpirun -np N mrdem-run-mpi SCENE\n"
	"-o DIR) write the records mrdem-run SCENE writes, the meta records aside.\n"
	"Each frame is the union of the ranks' particles in the order of their\n"
	"'order' column (dropped), with the union of their springs; the pairs and\n"
	"contacts are the ranks' in the one-rank order; the stats of mrdem-pairs,\n"
	"mrdem-contact and mrdem-run are the ranks' summed (sizes and max_* values:\n"
	"the largest); the stats of mrdem-step are computed afresh from the merged\n"
	"frame and its contacts. See docs/parallel.md, \"Merging the ranks' streams\".\n"
	"\n"
	"Refused, naming DIR and the part, with nothing written: a missing or extra\n"
	"part, parts of different runs (run id, ranks or grid in their meta\n"
	"records), header records that differ, frames at different steps or in\n"
	"different numbers, an 'order' column missing or not a permutation, a pair\n"
	"held by two ranks, and an implicit-euler run (its step stats carry Picard\n"
	"counters only the ranks saw).\n"
	"\n"
	"  -o FILE     output (default: standard output)\n"
	"  -h, --help  show this help\n"
	"\n"
	"Exit status: 0 success, 1 error (bad or inconsistent parts), 2 usage error\n"
	"(unknown option, an option given twice, no DIR or more than one).\n";

/* The run's meta record (part 0's, without its rank: it describes the
 * whole run now), then this tool's. */
static int write_metas(struct mrdem_writer *w, const struct mrdem_rank_parts *rp, int argc,
		       char **argv)
{
	struct mrdem_meta run = {.tool = rp->meta.tool, .version = rp->meta.version};
	for (size_t i = 0; i < rp->meta.n; i++)
		if (strcmp(rp->meta.keys[i], "rank"))
			mrdem_meta_add(&run, rp->meta.keys[i], rp->meta.values[i]);
	int rc = mrdem_write_meta(w, &run);
	run.tool = run.version = NULL;
	mrdem_meta_release(&run);
	struct mrdem_meta own;
	mrdem_meta_init(&own, "mrdem-merge", argc, argv);
	char parts[16];
	snprintf(parts, sizeof parts, "%u", rp->n);
	mrdem_meta_add(&own, "parts", parts);
	rc = rc || mrdem_write_meta(w, &own);
	mrdem_meta_release(&own);
	return rc ? -1 : 0;
}

int main(int argc, char **argv)
{
	mrdem_set_progname(argv[0]);
	mrdem_threads_init();
	static const struct option longopts[] = {
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *out = "-";
	struct mrdem_opts_seen seen = {{0}};
	int c, li;
	while ((c = mrdem_getopt_once(argc, argv, "o:h", longopts, &li, &seen)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'h': fputs(usage, stdout); return 0;
		default: fputs("try 'mrdem-merge --help'\n", stderr); return 2;
		}
	}
	if (argc - optind != 1) {
		fputs("mrdem-merge: give one directory of rank streams (try 'mrdem-merge --help')\n",
		      stderr);
		return 2;
	}
	struct mrdem_rank_parts rp;
	struct mrdem_writer w;
	int rc = mrdem_rank_parts_open(&rp, argv[optind]);
	if (!rc && !(rc = mrdem_writer_open(&w, out, 0))) {
		rc = write_metas(&w, &rp, argc, argv) || mrdem_rank_merge(&rp, &w) ||
		     mrdem_writer_commit(&w);
		if (rc)
			mrdem_writer_abort(&w);
	}
	mrdem_rank_parts_close(&rp);
	return rc ? 1 : 0;
}
