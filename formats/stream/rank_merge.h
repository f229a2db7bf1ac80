/* The one stream of a parallel run from its ranks' streams
 * (docs/parallel.md, "Merging the ranks' streams"): the records a one-rank
 * run writes, frame by frame, from the parts' frames, pairs, contacts,
 * histories and stats; the step's stats record computed afresh from the
 * merged frame and contacts. */
#ifndef MRDEM_FORMATS_RANK_MERGE_H
#define MRDEM_FORMATS_RANK_MERGE_H

#include "formats/stream/rank_parts.h"
#include "formats/stream/stream.h"

/* The parts' header records, then their frames and what follows each,
 * merged, to w (its meta records are the caller's). 0, or -1 with a
 * message naming the directory or the part and the step. */
int mrdem_rank_merge(struct mrdem_rank_parts *rp, struct mrdem_writer *w);

/* Whether path is a directory (a parallel run's parts, for the tools that
 * take one in place of a stream). */
int mrdem_is_rank_dir(const char *path);
/* The merge of directory dir into a new temporary file (under TMPDIR),
 * its path in tmp (size bytes; the caller removes it). 0, or -1 with a
 * message naming dir and the part. */
int mrdem_rank_dir_merge_temp(const char *dir, char *tmp, size_t size);

#endif
