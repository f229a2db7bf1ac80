/* Shared by the stream tests (test_stream, test_filter): a scratch folder
 * for their files and a scene with one unit tetrahedron shape. */
#ifndef MRDEM_TESTS_STREAM_FIXTURE_H
#define MRDEM_TESTS_STREAM_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mesh/mesh.h"
#include "common/scene/scene.h"

/* mkdtemp(dir) in main; path("x.mrd") names a file in it. */
static char dir[] = "/tmp/mrdem-stream-XXXXXX";

static const char *path(const char *name)
{
	static char buf[4][256];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
	return buf[k];
}

/* An empty scene with shape 0 "tet": the unit right tetrahedron, its exact
 * volume and centre of mass, inertia about the centre at unit density. */
static void tet_scene(struct mrdem_scene *s)
{
	static const double v[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
	static const uint32_t t[] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
	struct mrdem_mesh m;
	mrdem_scene_init(s);
	mrdem_mesh_init(&m);
	mrdem_mesh_alloc(&m, 4, 4);
	memcpy(m.verts, v, sizeof v);
	memcpy(m.tris, t, sizeof t);
	m.mass.volume = 1.0 / 6;
	for (int k = 0; k < 3; k++)
		m.mass.com[k] = 0.25;
	for (int k = 0; k < 6; k++)
		m.mass.inertia[k] = k < 3 ? 0.0125 : 0.00208;
	mrdem_scene_add_shape(s, "tet", &m);
}

#endif
