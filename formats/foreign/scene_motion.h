/* The `motion:` key of a scene file (docs/scene.md, "Moving walls"): a
 * fixed particle's, a fixed lattice's or a plane's prescribed motion. */
#ifndef MRDEM_FORMATS_SCENE_MOTION_H
#define MRDEM_FORMATS_SCENE_MOTION_H

#include "common/scene/motion.h"
#include "formats/foreign/yaml_map.h"

/* The mapping at the current event into m: exactly one of velocity,
 * rotate, oscillate, and optionally start; the reference pose and target
 * are the caller's. Returns 0, or -1 with a FILE:LINE:COL message under
 * what (e.g. "particles[2].motion"). */
int mrdem_yaml_motion(struct mrdem_yaml *y, const char *what, struct mrdem_motion *m);

#endif
