#include "formats/foreign/scene_motion.h"

#include <math.h>
#include <string.h>

#include "common/geom/vec3.h"

static const char *const motion_keys[] = {"velocity", "rotate", "oscillate", "start"};
enum { M_VELOCITY, M_ROTATE, M_OSCILLATE, M_START };
static const char *const rotate_keys[] = {"axis", "point", "omega"};
static const char *const oscillate_keys[] = {"direction", "amplitude", "frequency"};

/* A vector read at the current event made a unit one; the zero vector
 * (or one whose length overflows) has no direction. */
static int unit_vec(struct mrdem_yaml *y, const char *what, double v[3])
{
	if (mrdem_yaml_vec(y, what, v, 3, MRDEM_YAML_ANY))
		return -1;
	double big = fmax(fabs(v[0]), fmax(fabs(v[1]), fabs(v[2])));
	if (!(big > 0))
		return mrdem_yaml_err(y, "%s: the zero vector has no direction", what);
	vec3_scale(v, v, 1 / big);
	vec3_normalize(v);
	return 0;
}

static int parse_rotate(struct mrdem_yaml *y, const char *what, struct mrdem_motion *m)
{
	struct mrdem_yaml_keys k;
	int id, r;
	mrdem_yaml_keys_init(&k, what, rotate_keys, 3, MRDEM_YAML_ALL(3));
	if (mrdem_yaml_map_begin(y, &k))
		return -1;
	while ((r = mrdem_yaml_map_next(y, &k, &id)) > 0) {
		if (id == 0 ? unit_vec(y, k.cur, m->dir) :
		    id == 1 ? mrdem_yaml_vec(y, k.cur, m->point, 3, MRDEM_YAML_ANY) :
			      mrdem_yaml_number(y, k.cur, &m->omega))
			return -1;
	}
	return r < 0 || mrdem_yaml_require(y, &k, 0) || mrdem_yaml_require(y, &k, 2) ? -1 : 0;
}

static int parse_oscillate(struct mrdem_yaml *y, const char *what, struct mrdem_motion *m)
{
	struct mrdem_yaml_keys k;
	int id, r;
	mrdem_yaml_keys_init(&k, what, oscillate_keys, 3, MRDEM_YAML_ALL(3));
	if (mrdem_yaml_map_begin(y, &k))
		return -1;
	while ((r = mrdem_yaml_map_next(y, &k, &id)) > 0) {
		double *x = id == 1 ? &m->amplitude : &m->frequency;
		if (id == 0 ? unit_vec(y, k.cur, m->dir) :
			      mrdem_yaml_number(y, k.cur, x) || mrdem_yaml_nonnegative(y, k.cur, *x))
			return -1;
	}
	if (r < 0)
		return -1;
	for (int i = 0; i < 3; i++)
		if (mrdem_yaml_require(y, &k, i))
			return -1;
	return 0;
}

int mrdem_yaml_motion(struct mrdem_yaml *y, const char *what, struct mrdem_motion *m)
{
	struct mrdem_yaml_keys k;
	int id, r;
	mrdem_yaml_keys_init(&k, what, motion_keys, 4, MRDEM_YAML_ALL(4));
	if (mrdem_yaml_map_begin(y, &k))
		return -1;
	while ((r = mrdem_yaml_map_next(y, &k, &id)) > 0) {
		switch (id) {
		case M_VELOCITY:
			m->kind = MRDEM_MOTION_VELOCITY;
			r = mrdem_yaml_vec(y, k.cur, m->dir, 3, MRDEM_YAML_ANY);
			break;
		case M_ROTATE:
			m->kind = MRDEM_MOTION_ROTATE;
			r = parse_rotate(y, k.cur, m);
			break;
		case M_OSCILLATE:
			m->kind = MRDEM_MOTION_OSCILLATE;
			r = parse_oscillate(y, k.cur, m);
			break;
		case M_START:
			r = mrdem_yaml_number(y, k.cur, &m->start);
			break;
		}
		if (r)
			return -1;
	}
	if (r < 0 || mrdem_yaml_exclusive(y, &k, M_VELOCITY, M_ROTATE) ||
	    mrdem_yaml_exclusive(y, &k, M_VELOCITY, M_OSCILLATE) ||
	    mrdem_yaml_exclusive(y, &k, M_ROTATE, M_OSCILLATE))
		return -1;
	if (!m->kind)
		return mrdem_yaml_err_at(y, k.map, "%s: give one of velocity, rotate or oscillate",
					 what);
	return 0;
}
