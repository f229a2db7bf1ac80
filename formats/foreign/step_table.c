/* A stream's values per step, as a table (step_table.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/dynamics/energy.h"
#include "common/util/error.h"
#include "formats/foreign/step_table.h"
#include "formats/stream/outfile.h"
#include "formats/stream/records.h"

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

#define NO_ROW SIZE_MAX

static size_t step_hash(uint64_t step, size_t hcap)
{
	uint64_t h = step * 0x9E3779B97F4A7C15u;
	return (size_t)(h ^ (h >> 31)) & (hcap - 1);
}

static void table_rehash(struct mrdem_step_table *t)
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

static struct mrdem_step_row *table_row(struct mrdem_step_table *t, uint64_t step)
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
	struct mrdem_step_row *r = &t->rows[t->nrows];
	memset(r, 0, sizeof *r);
	r->step = step;
	t->slot[s] = t->nrows++;
	return r;
}

static void row_set(struct mrdem_step_row *r, size_t col, double v)
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

static int row_has(const struct mrdem_step_row *r, size_t col)
{
	return col < r->ncols && r->have[col];
}

/* Column index of (source, name), adding it when new. */
static size_t stats_column(struct mrdem_step_table *t, const char *source, const char *name)
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
	t->cols[n] = (struct mrdem_step_column){mrdem_xstrdup(source), mrdem_xstrdup(name), clash};
	return t->ncols++;
}

void mrdem_step_table_release(struct mrdem_step_table *t)
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

int mrdem_step_table_frame(struct mrdem_step_table *t, const struct mrdem_scene *s, struct mrdem_bodies *b,
			const char *src, const struct mrdem_record *rec)
{
	if (mrdem_bodies_compute(b, s))
		return mrdem_record_error(rec, src, "cannot compute the mass properties of step %llu",
					  (unsigned long long)s->frame.step);
	struct mrdem_energy e;
	mrdem_energy_compute(&e, s, b);
	struct mrdem_step_row *r = table_row(t, s->frame.step);
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

int mrdem_step_table_contacts(struct mrdem_step_table *t, const struct mrdem_record *rec, const char *src)
{
	struct mrdem_contacts c;
	if (mrdem_decode_contacts(rec, src, &c))
		return -1;
	struct mrdem_step_row *r = table_row(t, c.step);
	/* Several contacts records of one step (e.g. split by kind) add up. */
	double n = (double)c.n + (row_has(r, COL_CONTACTS) ? r->value[COL_CONTACTS] : 0);
	row_set(r, COL_CONTACTS, n);
	mrdem_contacts_release(&c);
	return 0;
}

int mrdem_step_table_stats(struct mrdem_step_table *t, const struct mrdem_record *rec, const char *src)
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
	uint64_t x = ((const struct mrdem_step_row *)a)->step, y = ((const struct mrdem_step_row *)b)->step;
	return (x > y) - (x < y);
}

static void print_header_cell(FILE *f, const struct mrdem_step_table *t, size_t c)
{
	if (c < NFIXED) {
		fputs(fixed_names[c], f);
		return;
	}
	const struct mrdem_step_column *col = &t->cols[c - NFIXED];
	if (col->qualified)
		fprintf(f, "%s:%s", col->source, col->name);
	else
		fputs(col->name, f);
}

void mrdem_step_table_print_header(FILE *f, const struct mrdem_step_table *t, size_t ncols, int markdown)
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

void mrdem_step_table_print_row(FILE *f, const struct mrdem_step_row *r, size_t ncols, int markdown)
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

static void print_table(FILE *f, const struct mrdem_step_table *t, int markdown)
{
	mrdem_step_table_print_header(f, t, t->ncols, markdown);
	for (size_t i = 0; i < t->nrows; i++)
		mrdem_step_table_print_row(f, &t->rows[i], t->ncols, markdown);
}

/* Print the table all-or-nothing to path ("-": standard output). */
int mrdem_step_table_write(const char *path, const struct mrdem_step_table *t, int markdown)
{
	struct mrdem_outfile of;
	if (mrdem_outfile_open(&of, path, 0))
		return -1;
	print_table(of.f, t, markdown);
	return mrdem_outfile_commit(&of);
}

void mrdem_step_table_init(struct mrdem_step_table *t)
{
	memset(t, 0, sizeof *t);
	t->ncols = NFIXED;
}

void mrdem_step_table_sort(struct mrdem_step_table *t)
{
	qsort(t->rows, t->nrows, sizeof *t->rows, cmp_row);
}
