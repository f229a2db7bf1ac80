/* Triangle meshes: the shape of a particle, in the shape's own frame.
 *
 * A mesh is an indexed triangle list, counter-clockwise seen from outside
 * (outward normals). Shapes are immutable once built and shared by id by
 * every particle that instances them; a particle's position is the world
 * position of its shape's centre of mass (mass.com). */
#ifndef MRDEM_MESH_MESH_H
#define MRDEM_MESH_MESH_H

#include <stddef.h>
#include <stdint.h>

/* Mass properties of the enclosed solid at unit density. */
struct mrdem_mass {
	double volume;
	double com[3];
	/* Inertia tensor about com, shape-frame axes: xx yy zz xy yz xz
	 * (the tensor's entries, so xy = -integral(x*y)). */
	double inertia[6];
};

struct mrdem_mesh {
	uint32_t nverts, ntris;
	double *verts;   /* 3 * nverts */
	uint32_t *tris;  /* 3 * ntris, vertex indices */
	int open;        /* not closed: usable only by fixed particles */
	struct mrdem_mass mass; /* meaningful when !open */
};

void mrdem_mesh_init(struct mrdem_mesh *m);
void mrdem_mesh_release(struct mrdem_mesh *m);
/* Allocate (uninitialised) vertex and triangle arrays. */
void mrdem_mesh_alloc(struct mrdem_mesh *m, uint32_t nverts, uint32_t ntris);
void mrdem_mesh_copy(struct mrdem_mesh *dst, const struct mrdem_mesh *src);
void mrdem_mesh_bbox(const struct mrdem_mesh *m, double lo[3], double hi[3]);
/* Largest distance of a vertex from point c (bounding sphere about c). */
double mrdem_mesh_radius_about(const struct mrdem_mesh *m, const double c[3]);
/* Total surface area. */
double mrdem_mesh_area(const struct mrdem_mesh *m);
/* Half-edge k = 3 t + e runs from corner e of triangle t to corner e + 1.
 * twin[k] (3 ntris): the half-edge of the other triangle on the same edge,
 * whichever way it runs, or MRDEM_NO_TWIN where the edge has one triangle
 * or more than two. */
#define MRDEM_NO_TWIN UINT32_MAX
void mrdem_mesh_twins(const struct mrdem_mesh *m, uint32_t *twin);

/* ---- generators (common/mesh/mesh_*.c); all return 0 or -1 with a message */

struct mrdem_sphere_opts {
	uint32_t triangles;  /* icosphere for 20*4^k, other documented counts otherwise */
	double radius;       /* default 1 */
	double stretch;      /* scale factor along stretch_axis (paper Table 1), 1 = none */
	int stretch_axis;    /* 0 = x, 1 = y, 2 = z */
	double noise;        /* eta_r >= 1: vertex radii in [radius, eta_r*radius]; 1 = none */
	uint64_t seed;       /* noise seed */
};
void mrdem_sphere_opts_default(struct mrdem_sphere_opts *o);
int mrdem_mesh_sphere(struct mrdem_mesh *m, const struct mrdem_sphere_opts *o);
/* Writes into buf a human list of the triangle counts mrdem_mesh_sphere can make. */
void mrdem_mesh_sphere_counts(char *buf, unsigned long len);

/* Axis-aligned box centred at the origin, each face split into n x n quads. */
int mrdem_mesh_box(struct mrdem_mesh *m, const double size[3], unsigned n);
/* Open rectangle in the xy plane centred at the origin, nx x ny quads,
 * normal +z, then tilted by tilt_deg about the x axis. The tilt is in
 * -180..180: those give every orientation (normal (0, -sin, cos)), upside
 * down included; a larger one only repeats them, and most likely is a slip
 * (radians taken for degrees, or a turn too many), and from 1e16 or so
 * its sine has no correct digit left. */
#define MRDEM_PLANE_MAX_TILT 180
int mrdem_mesh_plane(struct mrdem_mesh *m, double sx, double sy, unsigned nx, unsigned ny,
		     double tilt_deg);
/* Closed cylinder along z, centred at the origin, of 3 to
 * MRDEM_CYLINDER_MAX_SEGMENTS segments (4 triangles each; the scene
 * loader takes the same range). */
#define MRDEM_CYLINDER_MAX_SEGMENTS (1u << 20)
int mrdem_mesh_cylinder(struct mrdem_mesh *m, double radius, double height, unsigned segments);
/* Surface of revolution about the z axis of the profile rz (n points
 * (r, z), r >= 0), `segments` around (3 to MRDEM_CYLINDER_MAX_SEGMENTS),
 * each profile segment split into `divisions` (1 to
 * MRDEM_REVOLVE_MAX_DIVISIONS). Only the first and last point may lie on
 * the axis (r = 0): a profile that starts and ends there is a closed
 * solid (a drum with its end caps), any other is an open surface (a
 * hopper wall with its outlet), for fixed particles. */
#define MRDEM_REVOLVE_MAX_DIVISIONS 10000u
#define MRDEM_REVOLVE_MAX_TRIANGLES 100000000ull
int mrdem_mesh_revolve(struct mrdem_mesh *m, const double *rz, size_t n, unsigned segments,
		       unsigned divisions);

/* ---- checks and properties */

enum {
	MRDEM_MESH_ALLOW_OPEN = 1, /* accept an open mesh (marks m->open) */
};
/* Validate and repair orientation: no degenerate triangles, every edge
 * shared by exactly two triangles (closed 2-manifold) unless ALLOW_OPEN,
 * consistent orientation (flipped to outward where possible), and fills
 * m->mass for closed meshes. `what` names the mesh in messages. */
int mrdem_mesh_validate(struct mrdem_mesh *m, unsigned flags, const char *what);
/* Exact polyhedral mass properties of a closed, oriented mesh. */
void mrdem_mesh_mass(const struct mrdem_mesh *m, struct mrdem_mass *out);

#endif
