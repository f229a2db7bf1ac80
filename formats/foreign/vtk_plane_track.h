/* Moving planes for mrdem-vtk: the planes of every frame written, where
 * they are at its time (a moving plane's pose follows its motion record,
 * common/scene/motion.h), drawn as one planes-NNNNNN.vtp per frame
 * instead of one planes.vtp for the series (docs/output.md, "Planes"). */
#ifndef MRDEM_FORMATS_VTK_PLANE_TRACK_H
#define MRDEM_FORMATS_VTK_PLANE_TRACK_H

#include <stddef.h>
#include <stdint.h>

#include "common/scene/scene.h"

struct mrdem_plane_track {
	int moving;                /* some frame's setup moves a plane */
	size_t nframes;
	size_t *first;             /* frame k's planes: [first[k], first[k + 1]) */
	struct mrdem_plane *planes;
	uint32_t *index;           /* each plane's index in its setup */
	size_t n, cap;
};

void mrdem_plane_track_init(struct mrdem_plane_track *t);
void mrdem_plane_track_release(struct mrdem_plane_track *t);
/* The planes of the next frame written, from its scene's setup. */
void mrdem_plane_track_note(struct mrdem_plane_track *t, const struct mrdem_setup *s);
/* "planes-NNNNNN.vtp" of frame k. */
void mrdem_plane_track_name(char *buf, size_t len, size_t k);
/* Write frame k's planes to path over the box lo, hi. 0, or -1. */
int mrdem_plane_track_write(const struct mrdem_plane_track *t, size_t k, const char *path,
			    const double lo[3], const double hi[3], int encoding);

#endif
