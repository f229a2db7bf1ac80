/* Plain (non-stream) output files written all-or-nothing: data goes to a
 * temporary next to the destination, renamed into place on commit and
 * removed on abort, so a failure never leaves a partial file. "-" or NULL
 * means standard output; it and existing devices or FIFOs (/dev/null) are
 * written directly. */
#ifndef MRDEM_FORMATS_OUTFILE_H
#define MRDEM_FORMATS_OUTFILE_H

#include <stdio.h>

struct mrdem_outfile {
	FILE *f;
	char *path; /* destination, NULL for standard output */
	char *tmp;  /* temporary renamed to path on commit; NULL when in place */
};

/* The descriptor every all-or-nothing writer starts from: a new temporary
 * beside path (*tmp receives its name, to rename over path on success), or,
 * for a device or FIFO (-o /dev/null), path itself opened in place (*tmp =
 * NULL): renaming over a device would replace it. Returns the descriptor,
 * or -1 with a message. */
int mrdem_output_fd(const char *path, char **tmp);

/* binary: refuse a terminal as standard output. */
int mrdem_outfile_open(struct mrdem_outfile *o, const char *path, int binary);
/* Flush, check for write errors, close and rename into place. */
int mrdem_outfile_commit(struct mrdem_outfile *o);
void mrdem_outfile_abort(struct mrdem_outfile *o);

#endif
