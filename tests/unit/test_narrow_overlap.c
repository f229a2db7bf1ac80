/* Interpenetrating non-convex particles through the whole contact search
 * (mrdem_find_contacts): every method (comparison, iterative, hybrid) with
 * every hierarchy (flat, surrogate), on random deep overlaps of noisy,
 * strongly noisy (concave) and stretched spheres, a box and a notched box
 * (an L prism), with unequal halos. Deep overlaps give crossing triangle
 * pairs, whose contacts take the face-normal branch (distance 0): the
 * surrogate search once crashed there for the iterative method. Checks: no
 * crash, every contact finite with a unit normal and consistent depth, a
 * crossing contact's point at the centre of the halos' overlap (offset
 * (eb - ea) / 2 from b's face along the normal, as for d > 0), and
 * for the certified methods the surrogate search gives the flat search's
 * contacts bit for bit (Lemma 5.1).
 *
 * Merging: each pose's unmerged contacts (merge off), merged here by the
 * definition (in order, each joins the first group whose seed is within
 * the mean halo, a group keeps its deepest member), equal the search's
 * merged contacts bit for bit, past the group count where its merge
 * switches from a scan (of midpoints first) to a grid, and below it.
 *
 * Then single triangle pairs that cross at a known point: the iterative
 * method alone never calls them "no contact" (its unconverged iterate
 * once did), and the exact intersection test agrees with the double
 * reference distance. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/quat.h"
#include "common/geom/vec3.h"
#include "common/mesh/mesh.h"
#include "common/narrow/contacts/particle_contacts.h"
#include "common/narrow/tri/tri_distance_ref.h"
#include "common/narrow/tri/tri_intersect.h"
#include "common/tree/tree.h"
#include "common/util/error.h"
#include "common/util/rng.h"
#include "tests/lib/merge_reference.h"
#include "tests/lib/tap.h"
#include "tests/lib/tree_shapes.h"

/* A box with a square notch cut out of one edge: the L-shaped polygon
 * (0,0) (2,0) (2,1) (1,1) (1,2) (0,2) extruded along z by 1, its top and
 * bottom fanned from the reflex corner (1,1). Concave along that corner. */
static void add_notched_box(struct mrdem_scene *s)
{
	static const double poly[6][2] = {{0, 0}, {2, 0}, {2, 1}, {1, 1}, {1, 2}, {0, 2}};
	struct mrdem_mesh m;
	mrdem_mesh_init(&m);
	mrdem_mesh_alloc(&m, 12, 20);
	for (int i = 0; i < 6; i++)
		for (int z = 0; z < 2; z++) {
			double *v = &m.verts[3 * (2 * i + z)];
			v[0] = poly[i][0] - 1, v[1] = poly[i][1] - 1, v[2] = z - 0.5;
		}
	uint32_t *t = m.tris;
	/* bottom (z = -0.5, seen from below) and top */
	for (int k = 0; k < 4; k++) {
		uint32_t p = (uint32_t)(4 + k) % 6, q = (uint32_t)(5 + k) % 6;
		*t++ = 2 * 3, *t++ = 2 * q, *t++ = 2 * p;
		*t++ = 2 * 3 + 1, *t++ = 2 * p + 1, *t++ = 2 * q + 1;
	}
	/* sides: quad between polygon edge i -> i+1, counter-clockwise polygon */
	for (uint32_t i = 0; i < 6; i++) {
		uint32_t j = (i + 1) % 6;
		*t++ = 2 * i, *t++ = 2 * j, *t++ = 2 * j + 1;
		*t++ = 2 * i, *t++ = 2 * j + 1, *t++ = 2 * i + 1;
	}
	if (mrdem_mesh_validate(&m, 0, "notched box"))
		mrdem_die("notched box is not a valid mesh");
	ts_add_shape(s, "notched-box", &m);
}

static int contact_ok(const struct mrdem_contact *c, double cut)
{
	double n = vec3_norm(c->normal);
	return vec3_isfinite(c->x) && vec3_isfinite(c->normal) && isfinite(c->dist) &&
	       isfinite(c->depth) && fabs(n - 1) <= 1e-9 && c->dist >= 0 && c->dist <= cut &&
	       fabs(c->depth - (cut - c->dist)) <= 1e-12 * (1 + cut);
}

/* Signed height of contact c above the plane of its triangle of b (world
 * frame, along the contact normal). */
static double height_over_b(const struct mrdem_scene *s, const struct mrdem_contact *c)
{
	const struct mrdem_particles *p = &s->frame.p;
	size_t ib = p->id[0] == c->b ? 0 : 1;
	const struct mrdem_mesh *m = &s->shapes[p->shape[ib]].mesh;
	double r[9], rel[3], v[3], d[3];
	quat_to_matrix(&p->quat[4 * ib], r);
	vec3_sub(rel, &m->verts[3 * m->tris[3 * c->tri_b]], m->mass.com);
	mat3_apply(v, r, rel);
	vec3_add(v, v, &p->pos[3 * ib]);
	vec3_sub(d, c->x, v);
	return vec3_dot(d, c->normal);
}

static void rand_vec(struct mrdem_rng *r, double v[3], double scale)
{
	for (int c = 0; c < 3; c++)
		v[c] = scale * mrdem_rng_range(r, -1, 1);
}

/* Triangles a and b through a common point x (barycentric weights >= 0.05
 * in both), b crossing a's plane at a random angle, some nearly coplanar;
 * scaled by 10^-2..10^2 and moved off the origin. */
static void crossing_pair(struct mrdem_rng *r, float a[9], float b[9])
{
	double s = pow(10, mrdem_rng_range(r, -2, 2)), o[3], x[3], u[3], v[3], w[3], l[3];
	rand_vec(r, o, 10 * s);
	rand_vec(r, x, s);
	for (int t = 0; t < 2; t++) {
		float *out = t ? b : a;
		rand_vec(r, u, s);
		rand_vec(r, v, s);
		if (t && mrdem_rng_range(r, 0, 1) < 0.3) {
			/* nearly in a's plane: b's edges lean 1e-4..1e-1 out of it */
			double e1[3], e2[3], n[3], tilt = pow(10, mrdem_rng_range(r, -4, -1));
			for (int c = 0; c < 3; c++)
				e1[c] = a[3 + c] - (double)a[c], e2[c] = a[6 + c] - (double)a[c];
			vec3_cross(n, e1, e2);
			vec3_normalize(n);
			double du = vec3_dot(u, n), dv = vec3_dot(v, n);
			vec3_axpy(u, u, -du + tilt * s, n);
			vec3_axpy(v, v, -dv - tilt * s, n);
		}
		for (int c = 0; c < 3; c++)
			l[c] = mrdem_rng_range(r, 0.05, 1);
		double sum = l[0] + l[1] + l[2];
		for (int c = 0; c < 3; c++)
			l[c] /= sum;
		/* x = l0 (x + u) + l1 (x + v) + l2 (x + w) */
		for (int c = 0; c < 3; c++) {
			w[c] = -(l[0] * u[c] + l[1] * v[c]) / l[2];
			out[c] = (float)(o[c] + x[c] + u[c]);
			out[3 + c] = (float)(o[c] + x[c] + v[c]);
			out[6 + c] = (float)(o[c] + x[c] + w[c]);
		}
	}
}

static double ref_dist(const float *a, const float *b, double scale)
{
	double x[9], y[9];
	for (int k = 0; k < 9; k++)
		x[k] = a[k], y[k] = b[k];
	return mrdem_tri_distance_ref(x, y, NULL, NULL) / scale;
}

/* Largest coordinate magnitude of the pair. */
static double pair_scale(const float *a, const float *b)
{
	double m = 0;
	for (int k = 0; k < 9; k++)
		m = fmax(m, fmax(fabs(a[k]), fabs(b[k])));
	return m;
}

static void crossing_pairs(int quick)
{
	struct mrdem_rng rng;
	mrdem_rng_seed(&rng, 77);
	struct mrdem_tri_batch *w = mrdem_tri_batch_new();
	int n = quick ? 20000 : 100000;
	float *a = malloc(9 * sizeof(float) * n), *b = malloc(9 * sizeof(float) * n);
	float *eps = malloc(sizeof(float) * n);
	uint32_t *pairs = malloc(2 * sizeof(uint32_t) * n);
	struct mrdem_tri_result *res = malloc(sizeof *res * n);
	long not_crossing = 0, isect_miss = 0, point_off = 0;
	for (int i = 0; i < n; i++) {
		crossing_pair(&rng, a + 9 * i, b + 9 * i);
		double s = pair_scale(a + 9 * i, b + 9 * i), x[3];
		/* the halo: 1e-5..1e-1 of the triangles' size */
		eps[i] = (float)(s * pow(10, mrdem_rng_range(&rng, -5, -1)));
		pairs[2 * i] = pairs[2 * i + 1] = (uint32_t)i;
		if (ref_dist(a + 9 * i, b + 9 * i, s) > 1e-6)
			not_crossing++;
		float xf[3];
		if (!mrdem_tri_intersect(a + 9 * i, b + 9 * i, xf)) {
			isect_miss++;
			continue;
		}
		/* the point lies on both triangles */
		for (int c = 0; c < 3; c++)
			x[c] = xf[c];
		double ta[9], tb[9];
		for (int k = 0; k < 9; k++)
			ta[k] = a[9 * i + k], tb[k] = b[9 * i + k];
		double xa[9] = {x[0], x[1], x[2], x[0], x[1], x[2], x[0], x[1], x[2]};
		if (mrdem_tri_distance_ref(xa, ta, NULL, NULL) > 1e-6 * s ||
		    mrdem_tri_distance_ref(xa, tb, NULL, NULL) > 1e-6 * s)
			point_off++;
	}
	tap_eq_int(not_crossing, 0, "generated pairs cross (reference distance 0)");
	tap_eq_int(isect_miss, 0, "exact test finds every crossing of %d pairs", n);
	tap_eq_int(point_off, 0, "its point lies on both triangles (1e-6 S)");

	long missed = 0;
	struct mrdem_narrow_counts total = {0};
	for (int it = 1; it <= 4; it++) {
		struct mrdem_narrow_opts o;
		mrdem_narrow_opts_default(&o);
		o.method = MRDEM_NARROW_ITERATIVE;
		o.iterations = it;
		struct mrdem_tri_set A = {a, (uint32_t)n, eps, 0}, B = {b, (uint32_t)n, eps, 0};
		struct mrdem_narrow_counts c = {0};
		mrdem_tri_pairs_test(w, &A, &B, pairs, (size_t)n, &o, res, &c);
		for (int i = 0; i < n; i++)
			missed += res[i].status != MRDEM_TRI_CONTACT;
		mrdem_narrow_counts_add(&total, &c);
	}
	tap_eq_int(missed, 0, "iterative method: no crossing pair is 'no contact' (1..4 sweeps, %d pairs)",
		   4 * n);
	tap_ok(total.intersecting > 0 && total.intersecting + total.undecided == total.unconverged,
	       "unconverged pairs: %llu, of them intersecting %llu, undecided %llu",
	       (unsigned long long)total.unconverged, (unsigned long long)total.intersecting,
	       (unsigned long long)total.undecided);

	/* near misses: b shifted off a by a small gap is not intersecting */
	long false_isect = 0, near = 0;
	for (int i = 0; i < n; i++) {
		float *p = a + 9 * i, *q = b + 9 * i;
		double s = pair_scale(p, q), sh[3];
		rand_vec(&rng, sh, s * pow(10, mrdem_rng_range(&rng, -4, -1)));
		for (int v = 0; v < 3; v++)
			for (int c = 0; c < 3; c++)
				q[3 * v + c] = (float)(q[3 * v + c] + sh[c]);
		double d = ref_dist(p, q, s);
		if (d > 1e-6) {
			near++;
			false_isect += mrdem_tri_intersect(p, q, NULL);
		}
	}
	tap_ok(near > n / 10 && false_isect == 0, "separated pairs are not intersecting (%ld of %ld)",
	       false_isect, near);
	free(a), free(b), free(eps), free(pairs), free(res);
	mrdem_tri_batch_free(w);
}

/* Particles 0 and 1 as random shapes in random orientations with random
 * halos, their centres apart by lo..hi times the sum of their radii. */
static void random_pose(struct mrdem_rng *rng, struct mrdem_scene *s, const double *radius,
			double lo, double hi)
{
	struct mrdem_particles *p = &s->frame.p;
	for (int i = 0; i < 2; i++) {
		p->shape[i] = (uint32_t)(mrdem_rng_u64(rng) % s->nshapes);
		mrdem_rng_quat(rng, &p->quat[4 * i]);
		p->eps[i] = mrdem_rng_range(rng, 0.005, 0.04) * radius[p->shape[i]];
	}
	double dir[3], r = radius[p->shape[0]] + radius[p->shape[1]];
	for (int c = 0; c < 3; c++)
		dir[c] = mrdem_rng_normal(rng);
	vec3_normalize(dir);
	double d = r * mrdem_rng_range(rng, lo, hi);
	for (int c = 0; c < 3; c++) {
		p->pos[c] = mrdem_rng_range(rng, -20, 20);
		p->pos[3 + c] = p->pos[c] + d * dir[c];
	}
}

/* Poses whose hits all merge into one contact, where the search merges
 * without sorting its hits first: lat-long spheres pole to pole and side
 * by side as on the paper's lattice (a pole pair's hits, every sliver of
 * one pole against every one of the other, tie on distance up to
 * rounding), and shallow touches of both spheres at random orientations.
 * The certified methods, flat and surrogate, give the merge's definition
 * on the sorted unmerged hits, bit for bit (the iterative method alone may
 * miss a hit). */
static void one_group_poses(int quick)
{
	struct mrdem_scene s;
	mrdem_scene_init(&s);
	ts_add_sphere(&s, "latlong", 1224, 1.0, 1.0, 1.0, 1);
	ts_add_sphere(&s, "ico", 1280, 1.0, 1.0, 1.0, 1);
	struct mrdem_particles *p = &s.frame.p;
	mrdem_particles_push(p, 1, 0);
	mrdem_particles_push(p, 2, 0);
	struct mrdem_contact_finder *f = mrdem_contact_finder_new();
	struct mrdem_contacts got, all;
	mrdem_contacts_init(&got);
	mrdem_contacts_init(&all);
	double *seeds = NULL;
	struct mrdem_rng rng;
	mrdem_rng_seed(&rng, 99);
	long bad = 0, single = 0, several = 0, ties = 0, poses = quick ? 20 : 100, failed = 0;
	for (long k = 0; k < poses; k++) {
		double d[3] = {0, 0, 0};
		for (int i = 0; i < 2; i++) {
			p->shape[i] = k < 4 ? 0 : (uint32_t)(mrdem_rng_u64(&rng) % 2);
			/* unequal halos: world points decide near the radius */
			p->eps[i] = k < 4 ? 0.02 : mrdem_rng_range(&rng, 0.005, 0.035);
			double id[4] = {1, 0, 0, 0};
			if (k < 4)
				memcpy(&p->quat[4 * i], id, sizeof id);
			else
				mrdem_rng_quat(&rng, &p->quat[4 * i]);
		}
		if (k < 4) { /* the lattice's neighbours along z, then x */
			d[k < 2 ? 2 : 0] = 2.03;
		} else {
			for (int c = 0; c < 3; c++)
				d[c] = mrdem_rng_normal(&rng);
			vec3_normalize(d);
			vec3_scale(d, d, 2 + mrdem_rng_range(&rng, 0.6, 1.0) * (p->eps[0] + p->eps[1]));
		}
		double at = k % 2 ? 2.03 * 7 : 0; /* also off the origin */
		for (int c = 0; c < 3; c++) {
			p->pos[c] = at;
			p->pos[3 + c] = at + d[c];
		}
		struct mrdem_contact_opts o;
		mrdem_contact_opts_default(&o);
		o.merge = 0;
		if (mrdem_find_contacts(f, &s, NULL, &o, &all, NULL)) {
			failed++;
			continue;
		}
		for (size_t i = 1; i < all.n; i++)
			for (size_t j = 0; j < i; j++)
				ties += all.c[i].dist == all.c[j].dist;
		seeds = realloc(seeds, 3 * (all.n + 1) * sizeof *seeds);
		size_t n = all.n;
		size_t groups = merge_reference(&all, 0.5 * (p->eps[0] + p->eps[1]), seeds);
		single += groups == 1 && n > 1 && k >= 4;
		several += groups > 1;
		for (int m = 0; m < 3; m++)
			for (int h = 0; h < 2 && m != MRDEM_NARROW_ITERATIVE; h++) {
				mrdem_contact_opts_default(&o);
				o.narrow.method = m;
				o.hierarchy = h ? MRDEM_HIERARCHY_SURROGATE : MRDEM_HIERARCHY_FLAT;
				if (mrdem_find_contacts(f, &s, NULL, &o, &got, NULL)) {
					failed++;
					continue;
				}
				if (got.n != all.n || (all.n && memcmp(got.c, all.c, all.n * sizeof *all.c))) {
					bad++;
					tap_diag("pose %ld (%s, %s) %s: %zu merged contacts, the definition %zu",
						 k, s.shapes[p->shape[0]].name, s.shapes[p->shape[1]].name,
						 mrdem_narrow_method_name(m), got.n, all.n);
				}
			}
	}
	tap_eq_int(failed, 0, "one group: every search succeeds");
	tap_eq_int(bad, 0, "one group: merged contacts == the definition, comparison and hybrid, flat and surrogate, bit for bit");
	tap_ok(single > 0 && several > 0,
	       "random poses merge into one contact from several hits (%ld) and into several (%ld)",
	       single, several);
	tap_ok(ties > 0, "some hits tie on distance, so the first in (ta, tb) order decides (%ld)", ties);
	mrdem_contacts_release(&got);
	mrdem_contacts_release(&all);
	free(seeds);
	mrdem_contact_finder_free(f);
	mrdem_scene_release(&s);
}

int main(void)
{
	mrdem_set_progname("test_narrow_overlap");
	int quick = getenv("MRDEM_ASAN") != NULL;
	struct mrdem_scene s;
	mrdem_scene_init(&s);
	ts_add_sphere(&s, "noisy", 320, 1.0, 1.3, 1.0, 11);
	ts_add_sphere(&s, "spiky", 320, 1.0, 2.2, 1.0, 12); /* strong noise: concave */
	ts_add_sphere(&s, "stretched", 80, 1.0, 1.1, 2.6, 13);
	double size[3] = {1.0, 2.0, 0.5};
	struct mrdem_mesh box;
	mrdem_mesh_init(&box);
	if (mrdem_mesh_box(&box, size, 4))
		mrdem_die("cannot make box");
	ts_add_shape(&s, "box", &box);
	add_notched_box(&s);
	double radius[8];
	for (uint32_t i = 0; i < s.nshapes; i++)
		radius[i] = mrdem_mesh_radius_about(&s.shapes[i].mesh, s.shapes[i].mesh.mass.com);
	struct mrdem_particles *p = &s.frame.p;
	mrdem_particles_push(p, 1, 0);
	mrdem_particles_push(p, 2, 0);

	struct mrdem_rng rng;
	mrdem_rng_seed(&rng, 4242);
	struct mrdem_contact_finder *f = mrdem_contact_finder_new();
	struct mrdem_contacts res[3][2];
	for (int m = 0; m < 3; m++)
		for (int h = 0; h < 2; h++)
			mrdem_contacts_init(&res[m][h]);
	int poses = quick ? 40 : 150, failed_calls = 0, poses_with_contacts = 0;
	long bad[3][2] = {{0}}, mismatch[3] = {0}, crossing[3][2] = {{0}}, total[3][2] = {{0}};
	long offset_bad = 0, offset_checked = 0, merge_bad = 0, many_groups = 0, few_groups = 0;
	struct mrdem_contacts all;
	mrdem_contacts_init(&all);
	double *seeds = NULL;
	for (int k = 0; k < poses; k++) {
		random_pose(&rng, &s, radius, 0.15, 0.8); /* deep overlaps */
		double cut = p->eps[0] + p->eps[1];
		for (int m = 0; m < 3; m++)
			for (int h = 0; h < 2; h++) {
				struct mrdem_contact_opts o;
				mrdem_contact_opts_default(&o);
				o.narrow.method = m;
				o.hierarchy = h ? MRDEM_HIERARCHY_SURROGATE : MRDEM_HIERARCHY_FLAT;
				struct mrdem_contacts *c = &res[m][h];
				if (mrdem_find_contacts(f, &s, NULL, &o, c, NULL)) {
					failed_calls++;
					continue;
				}
				total[m][h] += (long)c->n;
				for (size_t i = 0; i < c->n; i++) {
					if (!contact_ok(&c->c[i], cut))
						bad[m][h]++;
					if (c->c[i].dist != 0)
						continue;
					crossing[m][h]++;
					/* a is particle 1: the offset is (eps_b - eps_a) / 2 */
					double want = 0.5 * (p->eps[1] - p->eps[0]);
					if (fabs(want) < 1e-3 * cut)
						continue;
					offset_checked++;
					if (fabs(height_over_b(&s, &c->c[i]) - want) > 1e-5)
						offset_bad++;
				}
			}
		poses_with_contacts += res[0][0].n > 0;
		/* the merge against its definition, on the unmerged contacts */
		struct mrdem_contact_opts o;
		mrdem_contact_opts_default(&o);
		o.hierarchy = MRDEM_HIERARCHY_SURROGATE;
		o.merge = 0;
		if (mrdem_find_contacts(f, &s, NULL, &o, &all, NULL)) {
			failed_calls++;
		} else {
			seeds = realloc(seeds, 3 * (all.n + 1) * sizeof *seeds);
			size_t groups = merge_reference(&all, 0.5 * cut, seeds);
			many_groups += groups > 24;
			few_groups += groups > 1 && groups <= 24 && all.n > groups;
			struct mrdem_contacts *m = &res[MRDEM_NARROW_HYBRID][1];
			if (all.n != m->n || (all.n && memcmp(all.c, m->c, all.n * sizeof *all.c)))
				merge_bad++;
		}
		for (int m = 0; m < 3; m++)
			if (res[m][0].n != res[m][1].n ||
			    (res[m][0].n && memcmp(res[m][0].c, res[m][1].c, res[m][0].n * sizeof *res[m][0].c))) {
				mismatch[m]++;
				tap_diag("pose %d (%s, %s) %s: flat %zu contacts, surrogate %zu", k,
					 s.shapes[p->shape[0]].name, s.shapes[p->shape[1]].name,
					 mrdem_narrow_method_name(m), res[m][0].n, res[m][1].n);
			}
	}
	/* shallow touches merge into few groups: the scan of midpoints, with
	 * hits in the band where world points decide (unequal halos) */
	long shallow_bad = 0;
	for (int k = 0; k < poses; k++) {
		random_pose(&rng, &s, radius, 0.7, 1.0);
		struct mrdem_contact_opts o;
		mrdem_contact_opts_default(&o);
		o.hierarchy = MRDEM_HIERARCHY_SURROGATE;
		struct mrdem_contacts *m = &res[MRDEM_NARROW_HYBRID][1];
		if (mrdem_find_contacts(f, &s, NULL, &o, m, NULL)) {
			failed_calls++;
			continue;
		}
		o.merge = 0;
		if (mrdem_find_contacts(f, &s, NULL, &o, &all, NULL)) {
			failed_calls++;
			continue;
		}
		seeds = realloc(seeds, 3 * (all.n + 1) * sizeof *seeds);
		size_t n = all.n, groups = merge_reference(&all, 0.5 * (p->eps[0] + p->eps[1]), seeds);
		few_groups += groups > 1 && groups <= 24 && n > groups;
		if (all.n != m->n || (all.n && memcmp(all.c, m->c, all.n * sizeof *all.c)))
			shallow_bad++;
	}
	tap_eq_int(shallow_bad, 0, "shallow touches: merged contacts == the definition, bit for bit");
	tap_eq_int(failed_calls, 0, "every search succeeds");
	tap_ok(offset_checked > 100 && offset_bad == 0,
	       "crossing contacts lie (eps_b - eps_a) / 2 above b's face (%ld of %ld off)", offset_bad,
	       offset_checked);
	tap_ok(poses_with_contacts * 4 > poses * 3, "most poses touch (%d of %d; the rest nest inside)", poses_with_contacts,
	       poses);
	for (int m = 0; m < 3; m++)
		for (int h = 0; h < 2; h++) {
			tap_eq_int(bad[m][h], 0, "%s, %s: %ld contacts finite, unit normal, 0 <= dist <= cut",
				   mrdem_narrow_method_name(m), h ? "surrogate" : "flat", total[m][h]);
			tap_ok(crossing[m][h] > 0, "%s, %s: crossing triangles give contacts at distance 0 (%ld)",
			       mrdem_narrow_method_name(m), h ? "surrogate" : "flat", crossing[m][h]);
		}
	tap_eq_int(mismatch[MRDEM_NARROW_COMPARISON], 0, "comparison: surrogate == flat, bit for bit");
	tap_eq_int(mismatch[MRDEM_NARROW_HYBRID], 0, "hybrid: surrogate == flat, bit for bit");
	tap_eq_int(mismatch[MRDEM_NARROW_ITERATIVE], 0, "iterative: surrogate == flat, bit for bit");
	tap_eq_int(merge_bad, 0, "merged contacts == the merge's definition on the unmerged ones, "
		   "bit for bit (%ld poses past 24 groups)", many_groups);
	tap_ok(many_groups > 0, "some poses merge into more than 24 groups (%ld)", many_groups);
	tap_ok(few_groups > 0, "some poses merge into 2 to 24 groups, by the scan (%ld)", few_groups);
	mrdem_contacts_release(&all);
	free(seeds);

	for (int m = 0; m < 3; m++)
		for (int h = 0; h < 2; h++)
			mrdem_contacts_release(&res[m][h]);
	mrdem_contact_finder_free(f);
	mrdem_scene_release(&s);
	crossing_pairs(quick);
	one_group_poses(quick);
	return tap_done();
}
