/* A stream's values per step, as a table (what mrdem-stats prints,
 * docs/output.md): from frames the time, energies and momenta (free
 * particles), from contacts records their count, from stats records every
 * named value, a column per (source, name) in order of first appearance.
 * Rows are looked up by step (a hash), printed as CSV (round-trip
 * precision) or Markdown. */
#ifndef MRDEM_FORMATS_FOREIGN_STEP_TABLE_H
#define MRDEM_FORMATS_FOREIGN_STEP_TABLE_H

#include <stdint.h>
#include <stdio.h>

#include "common/dynamics/rigid_body.h"
#include "common/scene/scene.h"
#include "formats/stream/stream.h"

struct mrdem_step_column {
	char *source, *name;
	int qualified; /* the name alone is taken: by a fixed column or another source */
};

struct mrdem_step_row {
	uint64_t step;
	size_t ncols;          /* allocated entries of value/have */
	double *value;
	unsigned char *have;
};

struct mrdem_step_table {
	size_t ncols;                   /* the fixed columns, then the stats columns */
	struct mrdem_step_column *cols; /* stats columns, index c - the fixed count */
	size_t nrows, cap;
	struct mrdem_step_row *rows;
	size_t hcap;           /* step -> row index, open addressing */
	size_t *slot;
};

void mrdem_step_table_init(struct mrdem_step_table *t);
void mrdem_step_table_release(struct mrdem_step_table *t);
/* A record into its step's row: a frame (the scene holds it decoded; b
 * keeps the shapes' mass properties between frames), a contacts record
 * (counts of one step add up) or a stats record. -1 on a bad record. */
int mrdem_step_table_frame(struct mrdem_step_table *t, const struct mrdem_scene *s,
			   struct mrdem_bodies *b, const char *src, const struct mrdem_record *rec);
int mrdem_step_table_contacts(struct mrdem_step_table *t, const struct mrdem_record *rec,
			      const char *src);
int mrdem_step_table_stats(struct mrdem_step_table *t, const struct mrdem_record *rec,
			   const char *src);
/* Rows in ascending step order. */
void mrdem_step_table_sort(struct mrdem_step_table *t);
/* The header and a row, of the first ncols columns. */
void mrdem_step_table_print_header(FILE *f, const struct mrdem_step_table *t, size_t ncols,
				   int markdown);
void mrdem_step_table_print_row(FILE *f, const struct mrdem_step_row *r, size_t ncols,
				int markdown);
/* The whole table, all or nothing, to path ("-": standard output). */
int mrdem_step_table_write(const char *path, const struct mrdem_step_table *t, int markdown);

#endif
