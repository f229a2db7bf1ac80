#include "common/narrow/contacts/hit_frame.h"

#include "common/geom/quat.h"

void mrdem_hit_frame_init(struct mrdem_hit_frame *f, const struct mrdem_scene *s, size_t ia,
			  size_t ib, const struct mrdem_xform *x_b, const float *soup_b,
			  const struct mrdem_tree *node_a, const struct mrdem_tree *node_b)
{
	f->p = &s->frame.p;
	f->ia = ia;
	f->ib = ib;
	f->com_a = s->shapes[f->p->shape[ia]].mesh.mass.com;
	quat_to_matrix(&f->p->quat[4 * ia], f->ra);
	f->x_b = x_b;
	f->soup_b = node_b ? node_b->tri : soup_b;
	f->node_a = node_a;
	f->node_b = node_b;
}
