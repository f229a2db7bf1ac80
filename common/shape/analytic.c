#include "common/shape/analytic.h"

#include <math.h>
#include <string.h>

#include "common/util/error.h"
#include "common/util/names.h"

const char *const mrdem_shape_kind_names[MRDEM_SHAPE_NKINDS] = {
	[MRDEM_SHAPE_MESH] = "mesh",
	[MRDEM_SHAPE_SPHERE] = "analytic-sphere",
	[MRDEM_SHAPE_ELLIPSOID] = "ellipsoid",
	[MRDEM_SHAPE_CONVEX] = "convex",
};

const char *mrdem_shape_kind_name(int kind)
{
	return mrdem_name_at(mrdem_shape_kind_names, MRDEM_SHAPE_NKINDS, kind, NULL);
}

int mrdem_analytic_check(int kind, const double axes[3], const char *what)
{
	if (kind != MRDEM_SHAPE_SPHERE && kind != MRDEM_SHAPE_ELLIPSOID)
		return mrdem_error("%s: shape kind %d is not analytic (1 analytic-sphere, "
				   "2 ellipsoid)", what, kind);
	for (int k = 0; k < 3; k++)
		if (!(axes[k] > 0) || !(axes[k] <= MRDEM_ANALYTIC_AXIS_MAX))
			return mrdem_error("%s: semi-axis %g is not a positive number up to %g", what,
					   axes[k], MRDEM_ANALYTIC_AXIS_MAX);
	if (kind == MRDEM_SHAPE_SPHERE && (axes[1] != axes[0] || axes[2] != axes[0]))
		return mrdem_error("%s: a sphere has three equal semi-axes, not %g %g %g", what,
				   axes[0], axes[1], axes[2]);
	return 0;
}

void mrdem_analytic_mass(const double axes[3], struct mrdem_mass *out)
{
	double a2 = axes[0] * axes[0], b2 = axes[1] * axes[1], c2 = axes[2] * axes[2];
	double v = 4.0 / 3.0 * M_PI * axes[0] * axes[1] * axes[2];
	memset(out, 0, sizeof *out);
	out->volume = v;
	out->inertia[0] = v * (b2 + c2) / 5;
	out->inertia[1] = v * (a2 + c2) / 5;
	out->inertia[2] = v * (a2 + b2) / 5;
}

double mrdem_analytic_bound_radius(const double axes[3])
{
	return fmax(axes[0], fmax(axes[1], axes[2]));
}

int mrdem_analytic_tessellate(const double axes[3], uint32_t triangles, struct mrdem_mesh *out)
{
	struct mrdem_sphere_opts o;
	mrdem_sphere_opts_default(&o);
	o.triangles = triangles;
	mrdem_mesh_init(out);
	if (mrdem_mesh_sphere(out, &o))
		return -1;
	for (uint32_t v = 0; v < out->nverts; v++)
		for (int k = 0; k < 3; k++)
			out->verts[3 * v + k] *= axes[k];
	mrdem_analytic_mass(axes, &out->mass);
	return 0;
}
