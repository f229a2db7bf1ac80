/* The patch force models' half of mrdem_forces_compute (hooke, hertz):
 * contact records of each particle pair grouped into contact patches,
 * each patch measured on the smooth surfaces the meshes sample and given
 * one contact law (common/dynamics/contact_law.h), its springs carried
 * from the frame's history to the next. docs/dynamics.md, "Patch
 * models". */
#ifndef MRDEM_DYNAMICS_PATCH_FORCES_H
#define MRDEM_DYNAMICS_PATCH_FORCES_H

#include "common/dynamics/forces.h"

/* Per-contact forces f->cf, energies f->ce and extra torques f->ct of the
 * contacts c (resolved into f->ia, f->ib), and the springs they leave
 * after a step of dt appended to f->history (emptied by the caller). */
void mrdem_patch_forces(struct mrdem_forces *f, const struct mrdem_scene *s,
			const struct mrdem_bodies *b, const struct mrdem_contacts *c, double dt);

#endif
