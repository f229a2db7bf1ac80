/* The inflow and outflow records described (describe.h): insertions and
 * remove regions, as text or JSON. */
#include <inttypes.h>
#include <stdio.h>

#include "formats/foreign/describe.h"

static void region_text(const struct mrdem_region *r)
{
	if (r->kind == MRDEM_REGION_CYLINDER)
		printf("cylinder from [%g %g %g] to [%g %g %g], radius %g", r->a[0], r->a[1], r->a[2],
		       r->b[0], r->b[1], r->b[2], r->radius);
	else
		printf("%s [%g %g %g] .. [%g %g %g]", r->kind == MRDEM_REGION_BOX ? "box" : "outside box",
		       r->a[0], r->a[1], r->a[2], r->b[0], r->b[1], r->b[2]);
}

static void region_json(struct mrdem_json *j, const char *key, const struct mrdem_region *r)
{
	mrdem_json_key(j, key);
	mrdem_json_begin_object(j);
	mrdem_json_kv_str(j, "kind", mrdem_region_name(r->kind));
	int cyl = r->kind == MRDEM_REGION_CYLINDER;
	mrdem_json_kv_nums(j, cyl ? "point" : "min", r->a, 3);
	mrdem_json_kv_nums(j, cyl ? "end" : "max", r->b, 3);
	if (cyl)
		mrdem_json_kv_num(j, "radius", r->radius);
	mrdem_json_end_object(j);
}

void mrdem_describe_outflow(struct mrdem_describe *in, const struct mrdem_flow *f)
{
	if (in->json) {
		mrdem_json_key(&in->j, "remove");
		mrdem_json_begin_array(&in->j);
		for (uint32_t k = 0; k < f->nremove; k++) {
			mrdem_json_begin_object(&in->j);
			region_json(&in->j, "region", &f->remove[k]);
			mrdem_json_end_object(&in->j);
		}
		mrdem_json_end_array(&in->j);
		return;
	}
	for (uint32_t k = 0; k < f->nremove; k++) {
		printf("  remove[%" PRIu32 "]: free particles whose centre is in the ", k);
		region_text(&f->remove[k]);
		printf("\n");
	}
}

static void insertion_text(const struct mrdem_scene *s, uint32_t k, const struct mrdem_insertion *in)
{
	printf("  insert[%" PRIu32 "]: %" PRIu64 " particle(s), ids %" PRIu64 "..%" PRIu64 ", ", k,
	       in->total, in->first_id, in->first_id + in->total - 1);
	if (in->per_step == 0)
		printf("all at step %" PRIu64, in->start);
	else
		printf("%g per step of %g s from step %" PRIu64, in->per_step, in->dt, in->start);
	printf(", seed %" PRIu64 ", in the ", in->seed);
	region_text(&in->region);
	printf("\n    velocity [%g %g %g], angular velocity [%g %g %g], orientation ", in->vel[0],
	       in->vel[1], in->vel[2], in->angvel[0], in->angvel[1], in->angvel[2]);
	if (in->random_orientation)
		printf("random\n");
	else
		printf("[%g %g %g %g]\n", in->quat[0], in->quat[1], in->quat[2], in->quat[3]);
	for (uint32_t j = 0; j < in->nshapes; j++) {
		const struct mrdem_insert_shape *e = &in->shapes[j];
		const struct mrdem_materials *m = s->setup.materials;
		printf("    shape %" PRIu32 " '%s': fraction %g, density %g, epsilon %g", e->shape,
		       e->shape < s->nshapes ? s->shapes[e->shape].name : "?", e->fraction, e->density,
		       e->eps);
		if (m)
			printf(", material %" PRIu32 " '%s'", e->material,
			       e->material < m->n ? m->m[e->material].name : "?");
		printf("\n");
	}
}

static void insertion_json(struct mrdem_json *j, const struct mrdem_insertion *in)
{
	mrdem_json_begin_object(j);
	region_json(j, "region", &in->region);
	mrdem_json_key(j, "shapes");
	mrdem_json_begin_array(j);
	for (uint32_t s = 0; s < in->nshapes; s++) {
		mrdem_json_begin_object(j);
		mrdem_json_kv_uint(j, "shape", in->shapes[s].shape);
		mrdem_json_kv_uint(j, "material", in->shapes[s].material);
		mrdem_json_kv_num(j, "fraction", in->shapes[s].fraction);
		mrdem_json_kv_num(j, "density", in->shapes[s].density);
		mrdem_json_kv_num(j, "epsilon", in->shapes[s].eps);
		mrdem_json_end_object(j);
	}
	mrdem_json_end_array(j);
	mrdem_json_kv_nums(j, "velocity", in->vel, 3);
	mrdem_json_kv_nums(j, "angular_velocity", in->angvel, 3);
	if (in->random_orientation)
		mrdem_json_kv_str(j, "orientation", "random");
	else
		mrdem_json_kv_nums(j, "orientation", in->quat, 4);
	mrdem_json_kv_uint(j, "seed", in->seed);
	mrdem_json_kv_uint(j, "first_id", in->first_id);
	mrdem_json_kv_uint(j, "total", in->total);
	mrdem_json_kv_uint(j, "start_step", in->start);
	mrdem_json_kv_num(j, "per_step", in->per_step);
	mrdem_json_kv_num(j, "dt", in->dt);
	mrdem_json_end_object(j);
}

void mrdem_describe_inflow(struct mrdem_describe *in, const struct mrdem_flow *f)
{
	if (!in->json) {
		for (uint32_t k = 0; k < f->ninsert; k++)
			insertion_text(&in->scene, k, &f->insert[k]);
		return;
	}
	mrdem_json_key(&in->j, "insert");
	mrdem_json_begin_array(&in->j);
	for (uint32_t k = 0; k < f->ninsert; k++)
		insertion_json(&in->j, &f->insert[k]);
	mrdem_json_end_array(&in->j);
}
