/* mrdem-stats: frame and statistics stream -> CSV or Markdown table, one
 * row per step (docs/output.md; the table is formats/foreign/step_table.c). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dynamics/rigid_body.h"
#include "common/util/error.h"
#include "common/util/parse.h"
#include "common/util/threads.h"
#include "formats/foreign/step_table.h"
#include "formats/stream/filter.h"

static const char usage[] =
	"usage: mrdem-stats [--markdown] [-o FILE] [INPUT]\n"
	"       mrdem-stats --follow [--markdown] FILE\n"
	"\n"
	"Tabulate a frame/statistics stream (INPUT, or standard input), one row per\n"
	"step in ascending order. From frames: time, kinetic energy (translational,\n"
	"rotational, total), gravitational potential energy, linear momentum and\n"
	"angular momentum about the origin (free particles only); from contacts\n"
	"records: the number of contacts; from stats records: every named value, one\n"
	"column per name in order of first appearance (SOURCE:NAME when a fixed\n"
	"column or another tool has the same name). Cells without a value are empty.\n"
	"\n"
	"  -m, --markdown    Markdown table (6 significant digits) instead of CSV\n"
	"                    (round-trip precision)\n"
	"  -o, --output F    output file (default: standard output)\n"
	"      --follow      follow a run that is still being written (mrdem-run -o\n"
	"                    FILE), like tail -f: print each row once it is complete\n"
	"                    (when the frame after its step's frame arrives), to\n"
	"                    standard output, until the stream's end record; columns\n"
	"                    are those known when the header is printed\n"
	"  -h, --help        show this help\n"
	"\n"
	"Exit status: 0 success, 1 error (bad input, failed computation), 2 usage\n"
	"error (unknown option, bad option value, an option given twice, too many\n"
	"arguments).\n";

/* The table of the steps' statistics as it is printed. */
struct stats_table {
	struct mrdem_bodies bodies;
	struct mrdem_step_table t;
	/* --follow: rows are printed once complete, under the columns known
	 * when the header was printed */
	int follow, markdown, header_done;
	size_t ncols_printed;
	uint64_t frames, prev_step, done_below; /* rows below done_below printed */
};

/* --follow: print the rows with steps in [tab->done_below, below), in order. */
static void print_rows_below(struct stats_table *tab, uint64_t below)
{
	struct mrdem_step_table *t = &tab->t;
	size_t n = 0;
	struct mrdem_step_row **todo = mrdem_xmalloc_array(t->nrows ? t->nrows : 1, sizeof *todo);
	for (size_t i = 0; i < t->nrows; i++)
		if (t->rows[i].step >= tab->done_below && t->rows[i].step < below)
			todo[n++] = &t->rows[i];
	for (size_t a = 1; a < n; a++) /* insertion sort: few rows at a time */
		for (size_t b = a; b > 0 && todo[b - 1]->step > todo[b]->step; b--) {
			struct mrdem_step_row *x = todo[b];
			todo[b] = todo[b - 1];
			todo[b - 1] = x;
		}
	if (n && !tab->header_done) {
		tab->header_done = 1;
		tab->ncols_printed = t->ncols;
		mrdem_step_table_print_header(stdout, t, t->ncols, tab->markdown);
	}
	for (size_t i = 0; i < n; i++)
		mrdem_step_table_print_row(stdout, todo[i], tab->ncols_printed, tab->markdown);
	free(todo);
	if (below > tab->done_below)
		tab->done_below = below;
	fflush(stdout);
}

static int take(struct mrdem_filter *f, const struct mrdem_record *rec)
{
	struct stats_table *tab = f->ctx;
	switch (rec->type) {
	case MRDEM_REC_FRAME:
		/* A row is complete when the frame after its step's frame has
		 * arrived: the step's own stats come after the next frame. */
		if (tab->follow && tab->frames++ > 0 && f->scene.frame.step > tab->prev_step)
			print_rows_below(tab, tab->prev_step);
		tab->prev_step = f->scene.frame.step;
		return mrdem_step_table_frame(&tab->t, &f->scene, &tab->bodies, f->src, rec);
	case MRDEM_REC_CONTACTS: return mrdem_step_table_contacts(&tab->t, rec, f->src);
	default: return mrdem_step_table_stats(&tab->t, rec, f->src);
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"markdown", no_argument, NULL, 'm'},
		{"follow", no_argument, NULL, 'w'},
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	mrdem_set_progname(argv[0]);
	mrdem_threads_init();
	int markdown = 0, follow = 0, c, li;
	const char *out = "-";
	struct mrdem_opts_seen seen = {{0}};
	while ((c = mrdem_getopt_once(argc, argv, "mo:h", opts, &li, &seen)) != -1) {
		switch (c) {
		case 'm': markdown = 1; break;
		case 'w': follow = 1; break;
		case 'o': out = optarg; break;
		case 'h': fputs(usage, stdout); return 0;
		default: fputs("try 'mrdem-stats --help'\n", stderr); return 2;
		}
	}
	if (argc - optind > 1) {
		fputs("mrdem-stats: give at most one input (try 'mrdem-stats --help')\n", stderr);
		return 2;
	}
	const char *in = optind < argc ? argv[optind] : "-";
	if (follow && strcmp(out, "-")) {
		fputs("mrdem-stats: --follow writes to standard output (try 'mrdem-stats --help')\n",
		      stderr);
		return 2;
	}

	struct stats_table tab = {.follow = follow, .markdown = markdown};
	mrdem_step_table_init(&tab.t);
	mrdem_bodies_init(&tab.bodies);
	struct mrdem_filter f;
	mrdem_filter_init(&f, "mrdem-stats");
	f.takes = MRDEM_TYPE_BIT(MRDEM_REC_FRAME) | MRDEM_TYPE_BIT(MRDEM_REC_CONTACTS) |
		  MRDEM_TYPE_BIT(MRDEM_REC_STATS);
	f.on_record = take;
	f.ctx = &tab;
	if (follow)
		f.read_flags = MRDEM_READ_FOLLOW;
	int rc = mrdem_filter_run(&f, in, NULL, argc, argv);
	if (follow) {
		print_rows_below(&tab, UINT64_MAX);
		if (tab.t.ncols > tab.ncols_printed && tab.header_done)
			mrdem_warning("%s: %zu column(s) appeared after the header and were left out",
				      in, tab.t.ncols - tab.ncols_printed);
		mrdem_bodies_release(&tab.bodies);
		mrdem_filter_release(&f);
		mrdem_step_table_release(&tab.t);
		return rc == 0 ? 0 : 1;
	}
	/* Damaged input (a run still being written): tabulate what is complete. */
	if ((rc == 0 || f.damaged) && tab.t.nrows == 0) {
		mrdem_error("%s: no frame, contacts or stats record (nothing to tabulate)", in);
		rc = -1;
	} else if (rc == 0 || f.damaged) {
		mrdem_step_table_sort(&tab.t);
		if (mrdem_step_table_write(out, &tab.t, markdown))
			rc = -1;
	}
	mrdem_bodies_release(&tab.bodies);
	mrdem_filter_release(&f);
	mrdem_step_table_release(&tab.t);
	return rc == 0 ? 0 : 1;
}
