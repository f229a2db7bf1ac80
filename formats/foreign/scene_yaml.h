/* Scene files: a YAML description of a simulation (schema in docs/scene.md)
 * turned into a struct mrdem_scene: shapes generated or loaded once,
 * particles expanded from explicit lists and lattices, planes, contact and
 * time-stepping parameters. */
#ifndef MRDEM_FORMATS_SCENE_YAML_H
#define MRDEM_FORMATS_SCENE_YAML_H

#include "common/scene/scene.h"

/* Limits checked before anything is allocated (docs/scene.md), so a typo
 * such as a lattice of 10^9 particles is an error at its line instead of
 * the allocator's death minutes later. Requests must also fit in memory:
 * physical memory, or less under ulimit -v, at the estimated bytes per
 * particle (its state plus its frame record) and per triangle of a
 * generated mesh (mesh, validation and mesh record; measured: 65-90). */
#define MRDEM_SCENE_MAX_PARTICLES 1000000000ULL /* 10^9 in one scene */
#define MRDEM_SCENE_MAX_TRIANGLES 100000000ULL  /* 10^8 per generated mesh */
#define MRDEM_SCENE_PARTICLE_BYTES 272
#define MRDEM_SCENE_TRIANGLE_BYTES 128

/* Load the YAML scene at path ("-": standard input) into s, which must be
 * freshly initialised (mrdem_scene_init). Relative mesh file names are
 * resolved against the directory of path. Returns 0, or -1 after a message
 * "PATH:LINE:COL: what is wrong"; s is then released (empty). */
int mrdem_scene_load_yaml(const char *path, struct mrdem_scene *s);

#endif
