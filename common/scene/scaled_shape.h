/* Scaled shapes: a shape drawn at another size, S times its base shape
 * (docs/scene.md "scale", docs/stream-format.md "18 scaled_shape").
 *
 * A scaled shape is an entry of the shape table of its own, derived from
 * its base once: the mesh's vertices and centre of mass times S, volume
 * S^3, unit-density inertia S^5, bounding radius S, an analytic kind's
 * semi-axes S, a convex shape's features rebuilt from the scaled mesh, and
 * the base's surrogate tree scaled (common/tree/tree.h, mrdem_tree_scaled),
 * never built afresh. Its name is "BASE*S" with S in the fewest %g digits
 * that read back as S. */
#ifndef MRDEM_SCENE_SCALED_SHAPE_H
#define MRDEM_SCENE_SCALED_SHAPE_H

#include <stddef.h>
#include <stdint.h>

#include "common/scene/scene.h"

/* 0 when shape base may be scaled by scale: a finite factor > 0 that
 * keeps the semi-axes, volume and inertia finite and positive; else -1
 * with the reason in why (nothing printed: callers say where). */
int mrdem_shape_scale_check(const struct mrdem_scene *s, uint32_t base, double scale, char *why,
			    size_t len);

/* The index of the shape "base scaled by scale" (checked as above),
 * added the first time a (base, scale) pair is asked for and the same
 * index after; scale 1 gives base itself. A scaled base stands for its
 * own base with the factors multiplied. */
uint32_t mrdem_scene_scaled_shape(struct mrdem_scene *s, uint32_t base, double scale);

/* Add the scaled shape of that name as the next index, whether or not
 * the pair exists (a stream's scaled_shape record). base must be a shape
 * of its own; the pair checked as above. */
uint32_t mrdem_scene_add_scaled(struct mrdem_scene *s, const char *name, uint32_t base,
				double scale);

/* Give scaled shape i, when it lacks a tree and its base has one, the
 * base's tree scaled: 1 done, 0 nothing to do (not scaled, a tree
 * already, or none to scale), -1 with a message. */
int mrdem_shape_scale_tree(struct mrdem_scene *s, uint32_t i);

/* Shape base has just got its tree: give every shape scaled from it that
 * lacks one the tree scaled. Returns 0, or -1 with a message. */
int mrdem_scene_scale_trees(struct mrdem_scene *s, uint32_t base);

/* scale as text in the fewest %g digits that read back as it (the name's
 * suffix, mrdem-info). */
#define MRDEM_SCALE_TEXT 32
void mrdem_scale_text(char buf[MRDEM_SCALE_TEXT], double scale);

/* Whether shape i is scaled from another. */
static inline int mrdem_shape_is_scaled(const struct mrdem_shape *sh)
{
	return sh->base != MRDEM_SHAPE_NO_BASE;
}

#endif
