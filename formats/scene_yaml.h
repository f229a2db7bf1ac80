/* Scene files: a YAML description of a simulation (schema in docs/scene.md)
 * turned into a struct mrdem_scene: shapes generated or loaded once,
 * particles expanded from explicit lists and lattices, planes, contact and
 * time-stepping parameters. */
#ifndef MRDEM_FORMATS_SCENE_YAML_H
#define MRDEM_FORMATS_SCENE_YAML_H

#include "common/scene/scene.h"

/* Load the YAML scene at path ("-": standard input) into s, which must be
 * freshly initialised (mrdem_scene_init). Relative mesh file names are
 * resolved against the directory of path. Returns 0, or -1 after a message
 * "PATH:LINE:COL: what is wrong"; s is then released (empty). */
int mrdem_scene_load_yaml(const char *path, struct mrdem_scene *s);

#endif
