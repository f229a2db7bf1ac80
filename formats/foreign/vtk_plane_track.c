#include "formats/foreign/vtk_plane_track.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/scene/motion.h"
#include "common/util/error.h"
#include "formats/foreign/vtk.h"

void mrdem_plane_track_init(struct mrdem_plane_track *t)
{
	memset(t, 0, sizeof *t);
}

void mrdem_plane_track_release(struct mrdem_plane_track *t)
{
	free(t->first);
	free(t->planes);
	free(t->index);
	mrdem_plane_track_init(t);
}

void mrdem_plane_track_note(struct mrdem_plane_track *t, const struct mrdem_setup *s)
{
	for (uint32_t k = 0; k < s->nmotions; k++)
		t->moving |= mrdem_is_plane_id(s->motions[k].target);
	t->first = mrdem_xrealloc_for(t->first, t->nframes + 2, sizeof *t->first, "frames");
	t->first[t->nframes] = t->n;
	if (t->n + s->nplanes > t->cap) {
		t->cap = 2 * (t->n + s->nplanes);
		t->planes = mrdem_xrealloc_for(t->planes, t->cap, sizeof *t->planes, "planes");
		t->index = mrdem_xrealloc_for(t->index, t->cap, sizeof *t->index, "planes");
	}
	for (uint32_t k = 0; k < s->nplanes; k++) {
		t->planes[t->n] = s->planes[k];
		t->index[t->n++] = k;
	}
	t->first[++t->nframes] = t->n;
}

void mrdem_plane_track_name(char *buf, size_t len, size_t k)
{
	snprintf(buf, len, "planes-%06zu.vtp", k);
}

int mrdem_plane_track_write(const struct mrdem_plane_track *t, size_t k, const char *path,
			    const double lo[3], const double hi[3], int encoding)
{
	size_t a = t->first[k], n = t->first[k + 1] - a;
	return mrdem_vtk_write_planes(path, t->planes + a, t->index + a, n, lo, hi, encoding);
}
