/* Regions of inflow and outflow (flow.h): boxes, cylinders and the
 * outside of a box. */
#include <math.h>

#include "common/geom/vec3.h"
#include "common/scene/flow.h"

const char *mrdem_region_name(uint32_t kind)
{
	static const char *const names[] = {NULL, "box", "cylinder", "outside"};
	return kind >= 1 && kind <= MRDEM_REGION_KINDS ? names[kind] : NULL;
}

const char *mrdem_region_check(const struct mrdem_region *r)
{
	if (!mrdem_region_name(r->kind))
		return "unknown region kind";
	if (!vec3_isfinite(r->a) || !vec3_isfinite(r->b) || !isfinite(r->radius))
		return "a coordinate is not finite";
	if (r->kind != MRDEM_REGION_CYLINDER) {
		for (int k = 0; k < 3; k++)
			if (!(r->a[k] <= r->b[k]))
				return "min is above max in a coordinate";
		return 0;
	}
	if (!(r->radius > 0))
		return "the radius is not positive";
	if (!(vec3_dist(r->a, r->b) > 0))
		return "the length is not positive";
	return 0;
}

static int in_box(const double a[3], const double b[3], const double x[3])
{
	return x[0] >= a[0] && x[0] <= b[0] && x[1] >= a[1] && x[1] <= b[1] && x[2] >= a[2] &&
	       x[2] <= b[2];
}

int mrdem_region_contains(const struct mrdem_region *r, const double x[3])
{
	switch (r->kind) {
	case MRDEM_REGION_BOX:
		return in_box(r->a, r->b, x);
	case MRDEM_REGION_OUTSIDE:
		return !in_box(r->a, r->b, x);
	case MRDEM_REGION_CYLINDER: {
		double ax[3], d[3];
		vec3_sub(ax, r->b, r->a);
		vec3_sub(d, x, r->a);
		double len2 = vec3_norm2(ax), t = vec3_dot(d, ax);
		if (t < 0 || t > len2)
			return 0;
		/* |d|^2 - t^2 / len2: the squared distance from the axis */
		return vec3_norm2(d) - t * t / len2 <= r->radius * r->radius;
	}
	}
	return 0;
}

void mrdem_region_bounds(const struct mrdem_region *r, double lo[3], double hi[3])
{
	if (r->kind != MRDEM_REGION_CYLINDER) {
		vec3_copy(lo, r->a);
		vec3_copy(hi, r->b);
		return;
	}
	double ax[3];
	vec3_sub(ax, r->b, r->a);
	double len = vec3_norm(ax);
	for (int k = 0; k < 3; k++) {
		/* the end discs reach radius sqrt(1 - (ax_k / len)^2) along k */
		double c = ax[k] / len, e = r->radius * sqrt(fmax(0.0, 1 - c * c));
		lo[k] = fmin(r->a[k], r->b[k]) - e;
		hi[k] = fmax(r->a[k], r->b[k]) + e;
	}
}
