/* One frame from the frames of the ranks of a parallel run, and back
 * (docs/parallel.md, "Merging the ranks' streams"): each rank's frame holds
 * the particles it owns with their index in the whole frame in an extra
 * column "order", and the springs of the pairs it owns. */
#ifndef MRDEM_SCENE_FRAME_MERGE_H
#define MRDEM_SCENE_FRAME_MERGE_H

#include <stddef.h>

#include "common/scene/scene.h"

/* The column of a rank's frame that places each particle in the whole:
 * u64 x 1, its index there. */
#define MRDEM_COLUMN_ORDER "order"

/* out (initialised here): particles idx[0..m) of f in that order, with
 * their extra columns; no history. */
void mrdem_frame_select(struct mrdem_frame *out, const struct mrdem_frame *f, const size_t *idx,
			size_t m);

/* out (initialised here): the union of the parts' particles, each at the
 * index its order column gives (the column dropped, the other extra
 * columns kept), and of their springs, sorted by (a, b), each pair's
 * springs as they come. The parts must be of one step and time, every
 * index 0..n-1 must appear once, the parts with particles must have the
 * same extra columns, and a pair's springs must come from one part. 0, or
 * -1 with a message naming the part (name[k]) and the step. */
int mrdem_frames_merge(struct mrdem_frame *out, const struct mrdem_frame *parts, size_t nparts,
		       const char *const *name);

#endif
