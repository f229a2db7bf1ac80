/* Shapes with their surrogate trees, added to a scene held in memory, for
 * the unit tests that run the contact search on generated meshes. */
#ifndef MRDEM_TESTS_TREE_SHAPES_H
#define MRDEM_TESTS_TREE_SHAPES_H

#include "common/mesh/mesh.h"
#include "common/scene/scene.h"
#include "common/tree/tree.h"
#include "common/util/error.h"

/* Mesh m (taken over) as shape name of s, with its tree. */
static inline void ts_add_shape(struct mrdem_scene *s, const char *name, struct mrdem_mesh *m)
{
	struct mrdem_tree_params p;
	struct mrdem_tree *t;
	mrdem_tree_params_default(&p);
	if (mrdem_tree_build(m, &p, &t))
		mrdem_die("cannot build the tree of %s", name);
	uint32_t i = mrdem_scene_add_shape(s, name, m);
	s->shapes[i].tree = t;
}

/* A sphere mesh as mrdem-mesh sphere makes it. */
static inline void ts_add_sphere(struct mrdem_scene *s, const char *name, uint32_t tris,
				 double radius, double noise, double stretch, uint64_t seed)
{
	struct mrdem_sphere_opts o;
	struct mrdem_mesh m;
	mrdem_sphere_opts_default(&o);
	o.triangles = tris, o.radius = radius, o.noise = noise, o.stretch = stretch, o.seed = seed;
	mrdem_mesh_init(&m);
	if (mrdem_mesh_sphere(&m, &o))
		mrdem_die("cannot make %s", name);
	ts_add_shape(s, name, &m);
}

#endif
