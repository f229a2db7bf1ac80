/* The merge of a pair's contacts by its definition (implementation remark
 * 1, docs/narrow-phase.md), the tests' reference: in order, each contact
 * joins the first group whose seed (its first contact's point) lies within
 * radius, and a group keeps its member of least distance, the first among
 * equals. A quadratic scan; seed has room for 3 per contact. */
#ifndef MRDEM_TESTS_MERGE_REFERENCE_H
#define MRDEM_TESTS_MERGE_REFERENCE_H

#include "common/geom/vec3.h"
#include "common/scene/contacts.h"

/* Merges c in place; returns the groups. */
static inline size_t merge_reference(struct mrdem_contacts *c, double radius, double *seed)
{
	size_t kept = 0;
	for (size_t i = 0; i < c->n; i++) {
		size_t g = kept;
		for (size_t h = 0; h < kept && g == kept; h++) {
			double d[3];
			vec3_sub(d, c->c[i].x, &seed[3 * h]);
			if (vec3_norm2(d) < radius * radius)
				g = h;
		}
		if (g == kept) {
			vec3_copy(&seed[3 * kept], c->c[i].x);
			c->c[kept++] = c->c[i];
		} else if (c->c[i].dist < c->c[g].dist) {
			c->c[g] = c->c[i];
		}
	}
	c->n = kept;
	return kept;
}

#endif
