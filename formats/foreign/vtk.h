/* VTK XML PolyData (.vtp) and ParaView collection (.pvd) writers
 * (docs/output.md).
 *
 * Files are written to a temporary name beside the destination and
 * renamed into place when complete, so a reader never sees half a file.
 * Data arrays are zlib-compressed appended raw data (vtkZLibDataCompressor,
 * what ParaView writes itself), ASCII for debugging, or inline base64
 * ("binary" in VTK's terms: a UInt64 byte count, uncompressed); all little
 * endian with UInt64 headers. */
#ifndef MRDEM_FORMATS_VTK_H
#define MRDEM_FORMATS_VTK_H

#include <stddef.h>

#include "common/dynamics/forces.h"
#include "common/scene/scene.h"
#include "formats/stream/records.h"

enum mrdem_vtk_encoding {
	MRDEM_VTK_ASCII = 0,
	MRDEM_VTK_BASE64 = 1,
	MRDEM_VTK_ZLIB = 2,
};

/* flags of mrdem_vtk_write_instances */
#define MRDEM_VTK_DOUBLE 1u /* Float64 real arrays (default Float32, for display) */

/* One shape's surface in its own frame, vertices relative to the centre of
 * mass (Float64; com is the mesh origin for open meshes), one polygon per
 * triangle; field data SHAPE (the index). The glyph source for instances. */
int mrdem_vtk_write_shape(const char *path, const struct mrdem_shape *sh, int encoding);

/* The scene's frame as one point per particle at its centre of mass, with
 * one vertex cell each. Point data: particle_id, shape, fixed,
 * orientation (quaternion w x y z, body -> world, as in the stream),
 * velocity, angular_velocity, contacts (contact points naming the
 * particle) when c is not NULL, and force and torque (per particle, of f:
 * mrdem_forces_of_frame) when f is not NULL; field data TIME and STEP. A
 * shape vertex v is at R(orientation) v + position. Returns 0, or -1 with
 * a message. */
int mrdem_vtk_write_instances(const char *path, const struct mrdem_scene *s,
			      const struct mrdem_contacts *c, const struct mrdem_forces *f,
			      int encoding, unsigned flags);

/* Particle surfaces of the scene's frame in world space: every particle's
 * shape mesh moved by its pose (x = R (v - com) + pos), one polygon per
 * triangle. Cell data per triangle: particle_id, shape, fixed, triangle,
 * velocity, angular_velocity; field data TIME and STEP.
 * Returns 0, or -1 with a message (a non-finite state is refused). */
int mrdem_vtk_write_surfaces(const char *path, const struct mrdem_scene *s, int encoding);

/* Contact points as vertices. Point data: normal, overlap (depth *
 * normal: the penetration vector pushing a, m), dist, depth,
 * particle_a, particle_b (ids), plane (index of b's analytic plane, or
 * -1), tri_a, tri_b (-1: none), and force (3 per contact: the force on a,
 * N) when force is not NULL; field data TIME and STEP. */
int mrdem_vtk_write_contacts(const char *path, const struct mrdem_contacts *c,
			     const double *force, double time, int encoding);

/* Analytic planes for display (an infinite plane cannot be drawn): plane
 * k as the rectangle in it that covers the box lo..hi projected onto it,
 * the box first grown to the foot of its centre on every plane, less what
 * lies behind any other plane (no particle is there), so that the walls of
 * a box of planes end at its floor and the floor at its walls. One polygon
 * per plane (none for a plane wholly behind the others), corners
 * counter-clockwise seen from the free side; cell data plane (index[k],
 * the plane's index in its setup) and normal. Returns 0, or -1 with a
 * message. */
int mrdem_vtk_write_planes(const char *path, const struct mrdem_plane *planes,
			   const uint32_t *index, size_t n, const double lo[3], const double hi[3],
			   int encoding);

struct mrdem_pvd_entry {
	double time;
	unsigned part;    /* 0 particles (surfaces or instances), 1 contacts, 2 planes */
	const char *file; /* relative to the .pvd file */
};

/* Collection of time steps for ParaView. */
int mrdem_vtk_write_pvd(const char *path, const struct mrdem_pvd_entry *e, size_t n);

#endif
