/* Vertex welding. mrdem_weld_*: exact, points with bitwise-equal
 * coordinates (after folding -0 into +0) become one vertex; used by
 * generators that emit shared points more than once and by the STL
 * importer, whose files are triangle soups. mrdem_mesh_weld: by distance,
 * only on request (mrdem-mesh import --weld), as it moves vertices. */
#ifndef MRDEM_MESH_MESH_WELD_H
#define MRDEM_MESH_MESH_WELD_H

#include <stddef.h>
#include <stdint.h>

#include "common/mesh/mesh.h"

struct mrdem_weld {
	size_t n, cap;   /* distinct vertices so far */
	double *verts;   /* 3 * cap */
	size_t hcap;     /* hash slots, a power of two */
	uint32_t *slot;  /* vertex index + 1, 0 when empty */
};

/* expect: a guess of the number of distinct vertices (0 is fine). */
void mrdem_weld_init(struct mrdem_weld *w, size_t expect);
void mrdem_weld_release(struct mrdem_weld *w);
/* Index of the vertex equal to p, adding it when new. Returns 0, or -1
 * with a message when the 32-bit vertex index space is exhausted or p is
 * not finite. */
int mrdem_weld_add(struct mrdem_weld *w, const double p[3], uint32_t *index);
/* Hand the vertex array over (3 * w->n doubles; caller frees) and reset. */
double *mrdem_weld_take(struct mrdem_weld *w, uint32_t *nverts);

/* Merge the vertices of m closer than tol (> 0): in index order, each
 * vertex joins the nearest vertex kept so far within tol (keeping that
 * one's coordinates) or is kept itself. Triangles are renumbered; those
 * left with a repeated vertex are dropped, and vertices no triangle uses
 * removed. *merged and *dropped (either may be NULL) count the vertices
 * merged away and the triangles dropped. Returns 0, or -1 with a message
 * (m unchanged). */
int mrdem_mesh_weld(struct mrdem_mesh *m, double tol, uint32_t *merged, uint32_t *dropped);
/* The smallest power of ten, at most 1e-6 of the bounding box diagonal,
 * at which welding leaves m a closed mesh with every edge shared by two
 * triangles; 0 when there is none. For the hint of the open-mesh error. */
double mrdem_mesh_weld_closes(const struct mrdem_mesh *m);

#endif
