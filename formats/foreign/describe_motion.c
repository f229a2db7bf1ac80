/* mrdem-info's account of a motion record: each moving wall, its kind,
 * start, reference pose and parameters. */
#include "formats/foreign/describe_motion.h"

#include <stdio.h>

#include "common/scene/motion.h"

static void text_one(const struct mrdem_motion *m)
{
	if (mrdem_is_plane_id(m->target))
		printf("    plane %u: ", mrdem_plane_index(m->target));
	else
		printf("    particle %llu: ", (unsigned long long)m->target);
	const double *d = m->dir;
	switch (m->kind) {
	case MRDEM_MOTION_VELOCITY:
		printf("velocity [%g %g %g] m/s", d[0], d[1], d[2]);
		break;
	case MRDEM_MOTION_ROTATE:
		printf("rotate %g rad/s about axis [%g %g %g] through [%g %g %g]", m->omega, d[0], d[1],
		       d[2], m->point[0], m->point[1], m->point[2]);
		break;
	default:
		printf("oscillate along [%g %g %g], amplitude %g m, frequency %g Hz", d[0], d[1],
		       d[2], m->amplitude, m->frequency);
		break;
	}
	printf(" from t = %g s; reference %s [%g %g %g]\n", m->start,
	       mrdem_is_plane_id(m->target) ? "point" : "position", m->ref_pos[0], m->ref_pos[1],
	       m->ref_pos[2]);
}

static void json_one(struct mrdem_json *j, const struct mrdem_motion *m)
{
	mrdem_json_begin_object(j);
	if (mrdem_is_plane_id(m->target))
		mrdem_json_kv_uint(j, "plane", mrdem_plane_index(m->target));
	else
		mrdem_json_kv_uint(j, "particle", m->target);
	mrdem_json_kv_str(j, "kind", mrdem_motion_kind_name(m->kind));
	mrdem_json_kv_num(j, "start", m->start);
	mrdem_json_kv_nums(j, "reference_position", m->ref_pos, 3);
	if (mrdem_is_plane_id(m->target))
		mrdem_json_kv_nums(j, "reference_normal", m->ref_normal, 3);
	else
		mrdem_json_kv_nums(j, "reference_orientation", m->ref_quat, 4);
	mrdem_json_kv_nums(j, m->kind == MRDEM_MOTION_VELOCITY ? "velocity" :
			   m->kind == MRDEM_MOTION_ROTATE ? "axis" : "direction", m->dir, 3);
	if (m->kind == MRDEM_MOTION_ROTATE) {
		mrdem_json_kv_nums(j, "point", m->point, 3);
		mrdem_json_kv_num(j, "omega", m->omega);
	} else if (m->kind == MRDEM_MOTION_OSCILLATE) {
		mrdem_json_kv_num(j, "amplitude", m->amplitude);
		mrdem_json_kv_num(j, "frequency", m->frequency);
	}
	mrdem_json_end_object(j);
}

void mrdem_describe_motion(struct mrdem_describe *in, const struct mrdem_setup *s)
{
	if (!in->json) {
		printf("  %u moving wall(s)\n", s->nmotions);
		for (uint32_t k = 0; k < s->nmotions; k++)
			text_one(&s->motions[k]);
		return;
	}
	mrdem_json_key(&in->j, "motions");
	mrdem_json_begin_array(&in->j);
	for (uint32_t k = 0; k < s->nmotions; k++)
		json_one(&in->j, &s->motions[k]);
	mrdem_json_end_array(&in->j);
}
