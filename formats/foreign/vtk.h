/* VTK XML PolyData (.vtp) and ParaView collection (.pvd) writers
 * (docs/output.md).
 *
 * Files are written to a temporary name beside the destination and
 * renamed into place when complete, so a reader never sees half a file.
 * Data arrays are ASCII or inline base64 ("binary" in VTK's terms, with a
 * UInt64 byte-count header, uncompressed, little endian). */
#ifndef MRDEM_FORMATS_VTK_H
#define MRDEM_FORMATS_VTK_H

#include <stddef.h>

#include "common/scene/scene.h"
#include "formats/stream/records.h"

enum mrdem_vtk_encoding {
	MRDEM_VTK_ASCII = 0,
	MRDEM_VTK_BASE64 = 1,
};

/* Particle surfaces of the scene's frame in world space: every particle's
 * shape mesh moved by its pose (x = R (v - com) + pos), one polygon per
 * triangle. Cell data per triangle: particle_id, shape, fixed, triangle,
 * velocity, angular_velocity; field data TIME and STEP.
 * Returns 0, or -1 with a message (a non-finite state is refused). */
int mrdem_vtk_write_surfaces(const char *path, const struct mrdem_scene *s, int encoding);

/* Contact points as vertices. Point data: normal, dist, depth,
 * particle_a, particle_b (ids), plane (index of b's analytic plane, or
 * -1), tri_a, tri_b (-1: none); field data TIME and STEP. */
int mrdem_vtk_write_contacts(const char *path, const struct mrdem_contacts *c, double time,
			     int encoding);

struct mrdem_pvd_entry {
	double time;
	unsigned part;    /* 0 surfaces, 1 contacts */
	const char *file; /* relative to the .pvd file */
};

/* Collection of time steps for ParaView. */
int mrdem_vtk_write_pvd(const char *path, const struct mrdem_pvd_entry *e, size_t n);

#endif
