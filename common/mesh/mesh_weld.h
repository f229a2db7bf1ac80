/* Exact vertex welding: points with bitwise-equal coordinates (after
 * folding -0 into +0) become one vertex. Used by generators that emit
 * shared points more than once and by the STL importer, whose files are
 * triangle soups. Nothing is merged by distance: near-equal points stay
 * distinct so no geometry is altered. */
#ifndef MRDEM_MESH_MESH_WELD_H
#define MRDEM_MESH_MESH_WELD_H

#include <stddef.h>
#include <stdint.h>

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

#endif
