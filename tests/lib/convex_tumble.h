/* Convex test shapes and the tumbling sequence shared by
 * tests/unit/test_convex.c, tests/unit/test_convex_fcl.c and
 * bench/bench_analytic.c: rocks (hulls of noisy points on an ellipsoid),
 * boxes, the exact distance of two hulls by brute force, and b's pose
 * relative to a (a at rest at the origin) at each step
 * of a slow orbit whose radius swings through contact while b turns by
 * small steps. */
#ifndef MRDEM_TESTS_CONVEX_TUMBLE_H
#define MRDEM_TESTS_CONVEX_TUMBLE_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/quat.h"
#include "common/geom/vec3.h"
#include "common/geom/xform.h"
#include "common/mesh/mesh.h"
#include "common/narrow/tri/tri_distance_ref.h"
#include "common/shape/convex.h"
#include "common/shape/hull.h"
#include "common/util/error.h"
#include "common/util/rng.h"

/* A convex test shape: its hull mesh and features. */
struct tumble_shape {
	struct mrdem_mesh m;
	struct mrdem_convex c;
};

static inline void tumble_shape_release(struct tumble_shape *t)
{
	mrdem_convex_release(&t->c);
	mrdem_mesh_release(&t->m);
}

/* The hull of n points on an ellipsoid of semi-axes size (1, 0.8, 0.6),
 * radii scaled by [0.85, 1]. */
static inline void tumble_rock(struct mrdem_rng *rng, size_t n, double size,
			       struct tumble_shape *t)
{
	double *p = mrdem_xmalloc_array(3 * n, sizeof *p);
	double ax[3] = {size, 0.8 * size, 0.6 * size};
	for (size_t i = 0; i < n; i++) {
		double d[3];
		for (int k = 0; k < 3; k++)
			d[k] = mrdem_rng_normal(rng);
		vec3_normalize(d);
		double r = mrdem_rng_range(rng, 0.85, 1);
		for (int k = 0; k < 3; k++)
			p[3 * i + k] = r * ax[k] * d[k] + 0.1;
	}
	if (mrdem_hull(p, n, "rock", &t->m) || mrdem_convex_build(&t->m, "rock", &t->c))
		mrdem_die("cannot make a rock");
	free(p);
}

/* A box of half-sizes sx, sy, sz. */
static inline void tumble_box(double sx, double sy, double sz, struct tumble_shape *t)
{
	double p[24];
	for (int i = 0; i < 8; i++)
		vec3_set(&p[3 * i], i & 1 ? sx : -sx, i & 2 ? sy : -sy, i & 4 ? sz : -sz);
	if (mrdem_hull(p, 8, "box", &t->m) || mrdem_convex_build(&t->m, "box", &t->c))
		mrdem_die("cannot make a box");
}

/* Step s of the tumble (steps in order from 0; q carries b's orientation
 * from one step to the next, start it at 1 0 0 0): b's rotation rb and
 * centre pb, orbit radius between r0 and r1. */
static inline void tumble_pose(int s, double r0, double r1, double q[4], double rb[9],
			       double pb[3])
{
	double axis[3] = {0.3, 0.8, -0.5}, dq[4], t[4];
	vec3_normalize(axis);
	double ang = 0.013 * s, rad = r0 + (r1 - r0) * 0.5 * (1 + cos(0.021 * s));
	vec3_set(pb, rad * cos(ang), rad * sin(ang), 0.3 * rad * sin(0.7 * ang));
	quat_from_axis_angle(dq, axis, 0.02);
	quat_mul(t, dq, q);
	memcpy(q, t, 4 * sizeof(double));
	quat_normalize(q);
	quat_to_matrix(q, rb);
}

/* b's frame into a's when a sits at the origin unturned. */
static inline void tumble_xform(const double rb[9], const double pb[3], struct mrdem_xform *x)
{
	memcpy(x->r, rb, 9 * sizeof(double));
	memcpy(x->t, pb, 3 * sizeof(double));
}

/* The exact distance between two hull meshes (b mapped by x): the
 * minimum over all triangle pairs. */
static inline double tumble_brute(const struct mrdem_mesh *a, const struct mrdem_mesh *b,
				  const struct mrdem_xform *x)
{
	double best = INFINITY, ta[9], tb[9];
	for (uint32_t i = 0; i < a->ntris; i++) {
		for (int k = 0; k < 3; k++)
			memcpy(&ta[3 * k], &a->verts[3 * a->tris[3 * i + k]], 3 * sizeof(double));
		for (uint32_t j = 0; j < b->ntris; j++) {
			for (int k = 0; k < 3; k++)
				xform_apply_d(x, &b->verts[3 * b->tris[3 * j + k]], &tb[3 * k]);
			best = fmin(best, mrdem_tri_distance_ref(ta, tb, NULL, NULL));
		}
	}
	return best;
}

#endif
