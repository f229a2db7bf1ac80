/* mrdem-stats: frame and statistics stream -> CSV or Markdown table, one
 * row per step (docs/output.md). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dynamics/energy.h"
#include "common/dynamics/rigid_body.h"
#include "common/util/error.h"
#include "common/util/threads.h"
#include "formats/stream/outfile.h"
#include "formats/stream/records.h"
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
	"error (unknown option, bad option value, too many arguments).\n";

enum {
	COL_TIME,
	COL_ETRANS,
	COL_EROT,
	COL_EKIN,
	COL_EGRAV,
	COL_PX, COL_PY, COL_PZ,
	COL_LX, COL_LY, COL_LZ,
	COL_CONTACTS,
	NFIXED,
};

static const char *const fixed_names[NFIXED] = {
	"time", "kinetic_translational", "kinetic_rotational", "kinetic", "potential_gravity",
	"momentum_x", "momentum_y", "momentum_z",
	"angular_momentum_x", "angular_momentum_y", "angular_momentum_z", "contacts",
};

struct column {
	char *source, *name;
	int qualified; /* the name alone is taken: by a fixed column or another source */
};

struct row {
	uint64_t step;
	size_t ncols;          /* allocated entries of value/have */
	double *value;
	unsigned char *have;
};

struct table {
	size_t ncols;          /* NFIXED + stats columns */
	struct column *cols;   /* stats columns, index c - NFIXED */
	size_t nrows, cap;
	struct row *rows;
	size_t hcap;           /* step -> row index, open addressing */
	size_t *slot;
};

#define NO_ROW SIZE_MAX

static size_t step_hash(uint64_t step, size_t hcap)
{
	uint64_t h = step * 0x9E3779B97F4A7C15u;
	return (size_t)(h ^ (h >> 31)) & (hcap - 1);
}

static void table_rehash(struct table *t)
{
	free(t->slot);
	t->hcap = t->hcap ? 2 * t->hcap : 64;
	t->slot = mrdem_xmalloc_array(t->hcap, sizeof *t->slot);
	for (size_t s = 0; s < t->hcap; s++)
		t->slot[s] = NO_ROW;
	for (size_t r = 0; r < t->nrows; r++) {
		size_t s = step_hash(t->rows[r].step, t->hcap);
		while (t->slot[s] != NO_ROW)
			s = (s + 1) & (t->hcap - 1);
		t->slot[s] = r;
	}
}

static struct row *table_row(struct table *t, uint64_t step)
{
	if (2 * (t->nrows + 1) > t->hcap)
		table_rehash(t);
	size_t s = step_hash(step, t->hcap);
	for (; t->slot[s] != NO_ROW; s = (s + 1) & (t->hcap - 1))
		if (t->rows[t->slot[s]].step == step)
			return &t->rows[t->slot[s]];
	if (t->nrows == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->rows = mrdem_xrealloc(t->rows, t->cap * sizeof *t->rows);
	}
	struct row *r = &t->rows[t->nrows];
	memset(r, 0, sizeof *r);
	r->step = step;
	t->slot[s] = t->nrows++;
	return r;
}

static void row_set(struct row *r, size_t col, double v)
{
	if (col >= r->ncols) {
		size_t n = col + 16;
		r->value = mrdem_xrealloc(r->value, n * sizeof *r->value);
		r->have = mrdem_xrealloc(r->have, n);
		memset(r->have + r->ncols, 0, n - r->ncols);
		r->ncols = n;
	}
	r->value[col] = v;
	r->have[col] = 1;
}

static int row_has(const struct row *r, size_t col)
{
	return col < r->ncols && r->have[col];
}

/* Column index of (source, name), adding it when new. */
static size_t stats_column(struct table *t, const char *source, const char *name)
{
	size_t n = t->ncols - NFIXED;
	for (size_t k = 0; k < n; k++)
		if (!strcmp(t->cols[k].name, name) && !strcmp(t->cols[k].source, source))
			return NFIXED + k;
	int clash = !strcmp(name, "step");
	for (int k = 0; k < NFIXED; k++)
		clash |= !strcmp(name, fixed_names[k]);
	for (size_t k = 0; k < n; k++)
		if (!strcmp(t->cols[k].name, name))
			t->cols[k].qualified = clash = 1;
	t->cols = mrdem_xrealloc(t->cols, (n + 1) * sizeof *t->cols);
	t->cols[n] = (struct column){mrdem_xstrdup(source), mrdem_xstrdup(name), clash};
	return t->ncols++;
}

static void table_release(struct table *t)
{
	for (size_t k = 0; k < t->ncols - NFIXED; k++) {
		free(t->cols[k].source);
		free(t->cols[k].name);
	}
	for (size_t r = 0; r < t->nrows; r++) {
		free(t->rows[r].value);
		free(t->rows[r].have);
	}
	free(t->cols);
	free(t->rows);
	free(t->slot);
}

static int absorb_frame(struct table *t, const struct mrdem_scene *s, struct mrdem_bodies *b,
			const char *src, const struct mrdem_record *rec)
{
	if (mrdem_bodies_compute(b, s))
		return mrdem_record_error(rec, src, "cannot compute the mass properties of step %llu",
					  (unsigned long long)s->frame.step);
	struct mrdem_energy e;
	mrdem_energy_compute(&e, s, b);
	struct row *r = table_row(t, s->frame.step);
	if (row_has(r, COL_TIME))
		mrdem_warning("%s: record %llu: a second frame of step %llu; its values replace "
			      "the first's", src, (unsigned long long)rec->index,
			      (unsigned long long)s->frame.step);
	double v[COL_CONTACTS] = {
		[COL_TIME] = s->frame.time,
		[COL_ETRANS] = e.translational,
		[COL_EROT] = e.rotational,
		[COL_EKIN] = e.translational + e.rotational,
		[COL_EGRAV] = e.gravity,
		[COL_PX] = e.momentum[0], [COL_PY] = e.momentum[1], [COL_PZ] = e.momentum[2],
		[COL_LX] = e.angular_momentum[0], [COL_LY] = e.angular_momentum[1],
		[COL_LZ] = e.angular_momentum[2],
	};
	for (int c = 0; c < COL_CONTACTS; c++) {
		if (!isfinite(v[c]))
			return mrdem_record_error(rec, src, "step %llu: %s is not finite",
						  (unsigned long long)s->frame.step, fixed_names[c]);
		row_set(r, (size_t)c, v[c]);
	}
	return 0;
}

static int absorb_contacts(struct table *t, const struct mrdem_record *rec, const char *src)
{
	struct mrdem_contacts c;
	if (mrdem_decode_contacts(rec, src, &c))
		return -1;
	struct row *r = table_row(t, c.step);
	/* Several contacts records of one step (e.g. split by kind) add up. */
	double n = (double)c.n + (row_has(r, COL_CONTACTS) ? r->value[COL_CONTACTS] : 0);
	row_set(r, COL_CONTACTS, n);
	mrdem_contacts_release(&c);
	return 0;
}

static int absorb_stats(struct table *t, const struct mrdem_record *rec, const char *src)
{
	struct mrdem_stats st;
	if (mrdem_decode_stats(rec, src, &st))
		return -1;
	for (size_t k = 0; k < st.n; k++) {
		size_t col = stats_column(t, st.source, st.names[k]);
		row_set(table_row(t, st.step), col, st.values[k]);
	}
	mrdem_stats_release(&st);
	return 0;
}

static int cmp_row(const void *a, const void *b)
{
	uint64_t x = ((const struct row *)a)->step, y = ((const struct row *)b)->step;
	return (x > y) - (x < y);
}

static void print_header_cell(FILE *f, const struct table *t, size_t c)
{
	if (c < NFIXED) {
		fputs(fixed_names[c], f);
		return;
	}
	const struct column *col = &t->cols[c - NFIXED];
	if (col->qualified)
		fprintf(f, "%s:%s", col->source, col->name);
	else
		fputs(col->name, f);
}

static void print_header(FILE *f, const struct table *t, size_t ncols, int markdown)
{
	const char *sep = markdown ? " | " : ",";
	fputs(markdown ? "| step" : "step", f);
	for (size_t c = 0; c < ncols; c++) {
		fputs(sep, f);
		print_header_cell(f, t, c);
	}
	fputs(markdown ? " |\n" : "\n", f);
	if (markdown) {
		fputs("|---:", f);
		for (size_t c = 0; c < ncols; c++)
			fputs("|---:", f);
		fputs("|\n", f);
	}
}

static void print_row(FILE *f, const struct row *r, size_t ncols, int markdown)
{
	const char *sep = markdown ? " | " : ",";
	fprintf(f, markdown ? "| %llu" : "%llu", (unsigned long long)r->step);
	for (size_t c = 0; c < ncols; c++) {
		fputs(sep, f);
		if (row_has(r, c))
			fprintf(f, markdown ? "%.6g" : "%.17g", r->value[c]);
	}
	fputs(markdown ? " |\n" : "\n", f);
}

static void print_table(FILE *f, const struct table *t, int markdown)
{
	print_header(f, t, t->ncols, markdown);
	for (size_t i = 0; i < t->nrows; i++)
		print_row(f, &t->rows[i], t->ncols, markdown);
}

/* Print the table all-or-nothing to path ("-": standard output). */
static int write_table(const char *path, const struct table *t, int markdown)
{
	struct mrdem_outfile of;
	if (mrdem_outfile_open(&of, path, 0))
		return -1;
	print_table(of.f, t, markdown);
	return mrdem_outfile_commit(&of);
}

struct job {
	struct mrdem_bodies bodies;
	struct table t;
	/* --follow: rows are printed once complete, under the columns known
	 * when the header was printed */
	int follow, markdown, header_done;
	size_t ncols_printed;
	uint64_t frames, prev_step, done_below; /* rows below done_below printed */
};

/* --follow: print the rows with steps in [j->done_below, below), in order. */
static void print_rows_below(struct job *j, uint64_t below)
{
	struct table *t = &j->t;
	size_t n = 0;
	struct row **todo = mrdem_xmalloc_array(t->nrows ? t->nrows : 1, sizeof *todo);
	for (size_t i = 0; i < t->nrows; i++)
		if (t->rows[i].step >= j->done_below && t->rows[i].step < below)
			todo[n++] = &t->rows[i];
	for (size_t a = 1; a < n; a++) /* insertion sort: few rows at a time */
		for (size_t b = a; b > 0 && todo[b - 1]->step > todo[b]->step; b--) {
			struct row *x = todo[b];
			todo[b] = todo[b - 1];
			todo[b - 1] = x;
		}
	if (n && !j->header_done) {
		j->header_done = 1;
		j->ncols_printed = t->ncols;
		print_header(stdout, t, t->ncols, j->markdown);
	}
	for (size_t i = 0; i < n; i++)
		print_row(stdout, todo[i], j->ncols_printed, j->markdown);
	free(todo);
	if (below > j->done_below)
		j->done_below = below;
	fflush(stdout);
}

static int take(struct mrdem_filter *f, const struct mrdem_record *rec)
{
	struct job *j = f->ctx;
	switch (rec->type) {
	case MRDEM_REC_FRAME:
		/* A row is complete when the frame after its step's frame has
		 * arrived: the step's own stats come after the next frame. */
		if (j->follow && j->frames++ > 0 && f->scene.frame.step > j->prev_step)
			print_rows_below(j, j->prev_step);
		j->prev_step = f->scene.frame.step;
		return absorb_frame(&j->t, &f->scene, &j->bodies, f->src, rec);
	case MRDEM_REC_CONTACTS: return absorb_contacts(&j->t, rec, f->src);
	default: return absorb_stats(&j->t, rec, f->src);
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
	int markdown = 0, follow = 0, c;
	const char *out = "-";
	while ((c = getopt_long(argc, argv, "mo:h", opts, NULL)) != -1) {
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

	struct job j = {.t = {.ncols = NFIXED}, .follow = follow, .markdown = markdown};
	mrdem_bodies_init(&j.bodies);
	struct mrdem_filter f;
	mrdem_filter_init(&f, "mrdem-stats");
	f.takes = MRDEM_TYPE_BIT(MRDEM_REC_FRAME) | MRDEM_TYPE_BIT(MRDEM_REC_CONTACTS) |
		  MRDEM_TYPE_BIT(MRDEM_REC_STATS);
	f.on_record = take;
	f.ctx = &j;
	if (follow)
		f.read_flags = MRDEM_READ_FOLLOW;
	int rc = mrdem_filter_run(&f, in, NULL, argc, argv);
	if (follow) {
		print_rows_below(&j, UINT64_MAX);
		if (j.t.ncols > j.ncols_printed && j.header_done)
			mrdem_warning("%s: %zu column(s) appeared after the header and were left out",
				      in, j.t.ncols - j.ncols_printed);
		mrdem_bodies_release(&j.bodies);
		mrdem_filter_release(&f);
		table_release(&j.t);
		return rc == 0 ? 0 : 1;
	}
	/* Damaged input (a run still being written): tabulate what is complete. */
	if ((rc == 0 || f.damaged) && j.t.nrows == 0) {
		mrdem_error("%s: no frame, contacts or stats record (nothing to tabulate)", in);
		rc = -1;
	} else if (rc == 0 || f.damaged) {
		qsort(j.t.rows, j.t.nrows, sizeof *j.t.rows, cmp_row);
		if (write_table(out, &j.t, markdown))
			rc = -1;
	}
	mrdem_bodies_release(&j.bodies);
	mrdem_filter_release(&f);
	table_release(&j.t);
	return rc == 0 ? 0 : 1;
}
