/* The scene file's materials (docs/scene.md, "materials"): the top-level
 * `materials:` and `material_pairs:` sections and the `material: NAME`
 * of particles, lattices and planes, read in any order and resolved once
 * the whole document (and its contact section) is known. */
#ifndef MRDEM_FORMATS_SCENE_MATERIALS_H
#define MRDEM_FORMATS_SCENE_MATERIALS_H

#include <stddef.h>
#include <stdint.h>

#include "common/scene/scene.h"
#include "formats/foreign/yaml_map.h"

struct mrdem_yaml_materials {
	struct mrdem_materials *m;       /* as read: parameters given, the rest later */
	uint32_t *given;                 /* per material: parameters given */
	yaml_mark_t (*key)[MRDEM_MAT_NPARAMS]; /* per material: where each was */
	yaml_mark_t *at;                 /* per material: its name */
	char **pair_name;                /* per pair: the two names as written */
	yaml_mark_t (*pair_key)[MRDEM_MAT_NPARAMS + 1]; /* ... keys; [NPARAMS]: 'materials' */
	yaml_mark_t *pair_at;            /* per pair: its mapping */
	uint32_t npairs;
	char **ref;                      /* names in `material:` keys, each once */
	yaml_mark_t *ref_at;             /* where each was first */
	char **ref_what;                 /* ... and the key's path there */
	uint32_t nref;
	int unnamed;                     /* a particle or plane names no material */
	uint32_t *index;                 /* per ref + 1: the material (after finish) */
};

void mrdem_yaml_materials_init(struct mrdem_yaml_materials *ym);
void mrdem_yaml_materials_release(struct mrdem_yaml_materials *ym);
/* At the value of `materials:` and of `material_pairs:`. */
int mrdem_yaml_materials_parse(struct mrdem_yaml *y, struct mrdem_yaml_materials *ym);
int mrdem_yaml_material_pairs_parse(struct mrdem_yaml *y, struct mrdem_yaml_materials *ym);
/* At the value of a `material:` key: *ref, a reference resolved by
 * finish (ym->index[*ref]); references 0 are "no material" (the
 * material named "default", or an implicit one with the contact
 * section's values). */
int mrdem_yaml_material_ref(struct mrdem_yaml *y, struct mrdem_yaml_materials *ym,
			    const char *what, uint32_t *ref);
/* The density of the material of reference ref, when `materials:` came
 * before and defines it; else NaN (known after finish). */
double mrdem_yaml_material_density(const struct mrdem_yaml_materials *ym, uint32_t ref);
/* After the document: fill what the materials did not give from the
 * contact section, check the keys against the model, resolve the names
 * and the pairs, build the pair table into st->materials (left NULL
 * when the scene has no materials and names none). */
int mrdem_yaml_materials_finish(struct mrdem_yaml *y, struct mrdem_yaml_materials *ym,
				struct mrdem_setup *st);

#endif
