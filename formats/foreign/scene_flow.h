/* The scene file's insert: and remove: sections (docs/scene.md), read
 * into the scene's flow (common/scene/flow.h). Insertions name shapes
 * and take epsilons relative to shape sizes, which may come later in the
 * file: they are read first and finished once the document is. */
#ifndef MRDEM_FORMATS_SCENE_FLOW_H
#define MRDEM_FORMATS_SCENE_FLOW_H

#include "common/scene/scene.h"
#include "formats/foreign/scene_materials.h"
#include "formats/foreign/yaml_map.h"

struct scene_flow_item;

/* The insertions read so far, waiting for the document's end. */
struct scene_flow {
	struct scene_flow_item *items;
	size_t n;
	yaml_mark_t insert_mark, remove_mark;
};

/* What the rest of the scene file decides for insertions. */
struct scene_flow_defaults {
	const double *diameter;   /* per shape: 2 * bounding radius */
	double eps_default;       /* contact.epsilon (relative) or epsilon_abs */
	int eps_default_abs;
	const uint32_t *mat_index; /* per material reference: its index (NULL: no materials) */
};

void scene_flow_init(struct scene_flow *f);
void scene_flow_release(struct scene_flow *f);
/* At the value of the scene's insert: or remove: key. 0 or -1 with a
 * message at the line. Material names go to ym as references (an
 * insertion that names none marks ym->unnamed). */
int scene_flow_parse_insert(struct mrdem_yaml *y, struct scene_flow *f,
			    struct mrdem_yaml_materials *ym);
int scene_flow_parse_remove(struct mrdem_yaml *y, struct scene_flow *f, struct mrdem_scene *s);
/* The document is read (its materials resolved): resolve shapes, sizes
 * (scaled shapes made here), materials and epsilons, fix the schedule in
 * steps of the setup's dt and the ids after the scene's, check the
 * regions against planes and outside regions, and place what is due at
 * step 0. 0 or -1 with a message at the insertion's line. */
int scene_flow_finish(struct mrdem_yaml *y, struct scene_flow *f, struct mrdem_scene *s,
		      const struct scene_flow_defaults *d);

#endif
