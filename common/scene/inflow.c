/* Placing the particles of an insertion (flow.h): random centres in the
 * region and orientations, redrawn while they would overlap a particle,
 * a fixed mesh or a plane. */
#include <math.h>
#include <stdlib.h>

#include "common/geom/point_triangle.h"
#include "common/geom/quat.h"
#include "common/geom/vec3.h"
#include "common/scene/flow.h"
#include "common/scene/scene.h"
#include "common/util/error.h"
#include "common/util/rng.h"

/* Draws of one particle's place before the region counts as full. */
#define MRDEM_INFLOW_ATTEMPTS 1000

/* The generator of insertion k's draws at frame step `step`: a function of
 * the seed, k and the step only. */
static void seed_draws(struct mrdem_rng *g, uint64_t seed, uint32_t k, uint64_t step)
{
	uint64_t x = seed ^ (0x9E3779B97F4A7C15u * ((uint64_t)k + 1)) ^
		     (0xBF58476D1CE4E5B9u * (step + 1));
	mrdem_rng_seed(g, x);
}

static void sample_region(const struct mrdem_region *r, struct mrdem_rng *g, double x[3])
{
	if (r->kind != MRDEM_REGION_CYLINDER) {
		for (int k = 0; k < 3; k++)
			x[k] = mrdem_rng_range(g, r->a[k], r->b[k]);
		return;
	}
	double ax[3], e1[3], e2[3], t[3] = {1, 0, 0};
	vec3_sub(ax, r->b, r->a);
	double u = vec3_norm(ax);
	/* e1, e2: a basis of the plane across the axis */
	if (fabs(ax[0]) > 0.6 * u)
		vec3_set(t, 0, 1, 0);
	vec3_cross(e1, ax, t);
	vec3_normalize(e1);
	vec3_cross(e2, ax, e1);
	vec3_normalize(e2);
	double rad = r->radius * sqrt(mrdem_rng_uniform(g));
	double th = 2 * M_PI * mrdem_rng_uniform(g), along = mrdem_rng_uniform(g);
	for (int k = 0; k < 3; k++)
		x[k] = r->a[k] + along * ax[k] + rad * (cos(th) * e1[k] + sin(th) * e2[k]);
}

/* The shape entry a uniform number u picks by the fractions. */
static const struct mrdem_insert_shape *pick_shape(const struct mrdem_insertion *in, double u)
{
	double acc = 0;
	for (uint32_t j = 0; j + 1 < in->nshapes; j++) {
		acc += in->shapes[j].fraction;
		if (u < acc)
			return &in->shapes[j];
	}
	return &in->shapes[in->nshapes - 1];
}

/* Distance from world point c to the triangles of fixed particle i. */
static double mesh_distance(const struct mrdem_scene *s, size_t i, const double c[3])
{
	const struct mrdem_particles *p = &s->frame.p;
	const struct mrdem_mesh *m = &s->shapes[p->shape[i]].mesh;
	double R[9], d[3], x[3], best = INFINITY;
	quat_to_matrix(&p->quat[4 * i], R);
	vec3_sub(d, c, &p->pos[3 * i]);
	mat3_apply_transpose(x, R, d);
	vec3_add(x, x, m->mass.com);
	for (uint32_t t = 0; t < m->ntris; t++) {
		const uint32_t *v = &m->tris[3 * t];
		double dt = mrdem_point_triangle(x, &m->verts[3 * v[0]], &m->verts[3 * v[1]],
						 &m->verts[3 * v[2]], NULL);
		if (dt < best)
			best = dt;
	}
	return best;
}

/* The candidate at c of reach rc (bound + halo) is clear of particle i. */
static int clear_of(const struct mrdem_scene *s, size_t i, const double c[3], double rc)
{
	const struct mrdem_particles *p = &s->frame.p;
	const struct mrdem_shape *sh = &s->shapes[p->shape[i]];
	double ri = sh->bound_radius + p->eps[i];
	if (vec3_dist2(c, &p->pos[3 * i]) >= (rc + ri) * (rc + ri))
		return 1;
	/* a fixed mesh (a funnel) holds the region in its bounding sphere:
	 * its triangles decide */
	if ((p->flags[i] & MRDEM_PARTICLE_FIXED) && sh->mesh.ntris)
		return mesh_distance(s, i, c) >= rc + p->eps[i];
	return 0;
}

static int clear_of_planes(const struct mrdem_setup *st, const double c[3], double rc)
{
	for (uint32_t k = 0; k < st->nplanes; k++) {
		double d[3];
		vec3_sub(d, c, st->planes[k].point);
		if (vec3_dot(d, st->planes[k].normal) < rc + st->plane_epsilon)
			return 0;
	}
	return 1;
}

/* The particles whose reach meets the region grown by reach: the only
 * ones a candidate can touch. */
static size_t *near_region(const struct mrdem_scene *s, const struct mrdem_region *r,
			   double reach, size_t *n)
{
	const struct mrdem_particles *p = &s->frame.p;
	double lo[3], hi[3];
	mrdem_region_bounds(r, lo, hi);
	size_t *v = mrdem_xmalloc_array(p->n ? p->n : 1, sizeof *v);
	*n = 0;
	for (size_t i = 0; i < p->n; i++) {
		double ri = s->shapes[p->shape[i]].bound_radius + p->eps[i] + reach, d2 = 0;
		for (int k = 0; k < 3; k++) {
			double x = p->pos[3 * i + k];
			double e = x < lo[k] ? lo[k] - x : x > hi[k] ? x - hi[k] : 0;
			d2 += e * e;
		}
		if (d2 < ri * ri)
			v[(*n)++] = i;
	}
	return v;
}

/* The largest reach (bound + halo) of the insertion's shapes. */
static double max_reach(const struct mrdem_scene *s, const struct mrdem_insertion *in)
{
	double m = 0;
	for (uint32_t j = 0; j < in->nshapes; j++)
		m = fmax(m, s->shapes[in->shapes[j].shape].bound_radius + in->shapes[j].eps);
	return m;
}

/* Draw a free place for a particle of shape entry e: 1 found, 0 none. */
static int find_place(const struct mrdem_scene *s, const struct mrdem_insertion *in,
		      const struct mrdem_insert_shape *e, struct mrdem_rng *g, const size_t *near,
		      size_t nnear, size_t first_new, double pos[3], double q[4])
{
	double rc = s->shapes[e->shape].bound_radius + e->eps;
	const struct mrdem_particles *p = &s->frame.p;
	for (int a = 0; a < MRDEM_INFLOW_ATTEMPTS; a++) {
		sample_region(&in->region, g, pos);
		if (in->random_orientation)
			mrdem_rng_quat(g, q);
		else
			for (int k = 0; k < 4; k++)
				q[k] = in->quat[k];
		int ok = clear_of_planes(&s->setup, pos, rc);
		for (size_t j = 0; ok && j < nnear; j++)
			ok = clear_of(s, near[j], pos, rc);
		for (size_t i = first_new; ok && i < p->n; i++)
			ok = clear_of(s, i, pos, rc);
		if (ok)
			return 1;
	}
	return 0;
}

int mrdem_inflow_place(struct mrdem_scene *s, uint32_t k, uint64_t placed_before,
		       uint64_t placed_after, uint64_t step)
{
	const struct mrdem_insertion *in = &s->flow.insert[k];
	struct mrdem_frame *f = &s->frame;
	struct mrdem_rng g;
	seed_draws(&g, in->seed, k, step);
	size_t nnear, first_new = f->p.n;
	size_t *near = near_region(s, &in->region, max_reach(s, in), &nnear);
	for (uint64_t j = placed_before; j < placed_after; j++) {
		const struct mrdem_insert_shape *e = pick_shape(in, mrdem_rng_uniform(&g));
		double pos[3], q[4];
		if (!find_place(s, in, e, &g, near, nnear, first_new, pos, q)) {
			free(near);
			return mrdem_error("step %llu (t = %g s): insert[%u] placed %llu of the %llu "
					   "particles due at this step: particle %llu found no free "
					   "place in %d draws; the %s region cannot take them at this "
					   "rate (a larger region, a lower rate or count)",
					   (unsigned long long)step, f->time, k,
					   (unsigned long long)(j - placed_before),
					   (unsigned long long)(placed_after - placed_before),
					   (unsigned long long)(in->first_id + j), MRDEM_INFLOW_ATTEMPTS,
					   mrdem_region_name(in->region.kind));
		}
		size_t i = mrdem_frame_push(f, in->first_id + j, e->shape);
		vec3_copy(&f->p.pos[3 * i], pos);
		for (int c = 0; c < 4; c++)
			f->p.quat[4 * i + c] = q[c];
		vec3_copy(&f->p.vel[3 * i], in->vel);
		vec3_copy(&f->p.angvel[3 * i], in->angvel);
		f->p.density[i] = e->density;
		f->p.eps[i] = e->eps;
		if (f->p.material)
			f->p.material[i] = e->material;
	}
	free(near);
	return 0;
}
