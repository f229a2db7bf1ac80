/* The streams of the ranks of a parallel run, DIR/rank-K.mrd for K = 0 ..
 * N-1 (docs/parallel.md, "Merging the ranks' streams"): opened together,
 * their meta records and scene header checked against each other, then
 * read one frame at a time, each with the records that follow it. */
#ifndef MRDEM_FORMATS_RANK_PARTS_H
#define MRDEM_FORMATS_RANK_PARTS_H

#include <stddef.h>

#include "common/scene/scene.h"
#include "formats/stream/meta.h"
#include "formats/stream/stream.h"

/* The tool that writes the parts, and its meta keys. */
#define MRDEM_RANK_TOOL "mrdem-run-mpi"

/* Records kept past the reader's next call (their data owned). */
struct mrdem_kept_records {
	size_t n, cap;
	struct mrdem_record *v;
};
void mrdem_kept_records_release(struct mrdem_kept_records *k);

struct mrdem_rank_part {
	char *path;                   /* DIR/rank-K.mrd, for messages */
	struct mrdem_reader r;
	struct mrdem_record next;      /* the frame record read ahead (data owned) */
	int have_next;
};

/* One frame of a part and the records after it up to the next frame (or
 * the end): its history, when it has one, is in frame. */
struct mrdem_part_frame {
	struct mrdem_frame frame;
	struct mrdem_kept_records after;
	uint64_t index;               /* record index of the frame, for messages */
};

struct mrdem_rank_parts {
	char *dir;
	unsigned n;
	struct mrdem_rank_part *part; /* never moved once open: zlib keeps their address */
	unsigned nalloc;              /* parts allocated (n once all are open) */
	const char **names;           /* part[k].path */
	struct mrdem_meta meta;       /* part 0's meta record, the run's */
	/* part 0's records between its meta and its first frame, the same in
	 * every part: the scene's header (setup, shapes, ...) */
	struct mrdem_kept_records header;
};

/* Open every part of dir and check them: all of rank-0.mrd .. rank-(N-1).mrd
 * present and no other rank-*.mrd, N from the parts' meta records, which
 * must name MRDEM_RANK_TOOL, the part's rank, one N, one run id and one
 * grid; the header records equal. 0, or -1 with a message naming dir and
 * the part (close after either). */
int mrdem_rank_parts_open(struct mrdem_rank_parts *rp, const char *dir);
void mrdem_rank_parts_close(struct mrdem_rank_parts *rp);

/* The next frame of every part, into pf[0..n): 1, 0 when all parts have
 * ended, -1 with a message (a part that ends before another, damage). */
int mrdem_rank_parts_next(struct mrdem_rank_parts *rp, struct mrdem_part_frame *pf);
void mrdem_part_frame_release(struct mrdem_part_frame *pf);

#endif
