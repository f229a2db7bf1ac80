/* Contacts of every force model against the exact distance between the
 * meshes, on the shapes users bring: noisy spheres (noise 1.1 to 2.0, 80
 * to 5,120 triangles), a stretched sphere, coarse and fine boxes (1 to 8
 * divisions) and a 100:1 plate, a cylinder and a disc, icospheres, and
 * the OBJ rock of examples/. Each trial turns two of them at random and
 * places them along a random direction so that the exact mesh-mesh
 * distance D is just inside the halo sum E = eps_a + eps_b (D = 0.97 E),
 * on it, or just outside (1.03 E). Then, for the paper's spring and the
 * patch models (spring-dashpot, hooke, hertz):
 *  - contact records exist exactly when D < E (none at 1.03 E, some at
 *    0.97 E), and every record's distance is within E;
 *  - no contact stores more elastic energy than the exact overlap
 *    E - D allows: kn (E - D)^2 / 2 for a patch of the spring-dashpot
 *    and hooke, the paper's k (E - D)^2 / 2 per record, and for hertz
 *    (8/15) E* sqrt(R) (E - D)^(5/2) with R the larger bounding radius
 *    (its effective radius is at most that).
 * The exact distance is this file's own: vertex-triangle and edge-edge
 * distances in double precision over every pair of features, written
 * independently of the library's kernels. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/dynamics/forces.h"
#include "common/dynamics/rigid_body.h"
#include "common/geom/quat.h"
#include "common/geom/vec3.h"
#include "common/mesh/mesh.h"
#include "common/narrow/contacts/particle_contacts.h"
#include "common/scene/id_index.h"
#include "common/tree/tree.h"
#include "common/util/error.h"
#include "common/util/rng.h"
#include "formats/foreign/mesh_files.h"
#include "tests/lib/tap.h"
#include "tests/lib/tree_shapes.h"

/* ---- the reference distance */

static double dot3(const double a[3], const double b[3])
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void sub3(double o[3], const double a[3], const double b[3])
{
	o[0] = a[0] - b[0], o[1] = a[1] - b[1], o[2] = a[2] - b[2];
}

static double clamp01(double x)
{
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

/* Squared distance from p to triangle abc: the point's projection when it
 * falls inside, else the nearest of the three edges. */
static double point_tri2(const double p[3], const double a[3], const double b[3],
			 const double c[3])
{
	double ab[3], ac[3], ap[3], n[3];
	sub3(ab, b, a), sub3(ac, c, a), sub3(ap, p, a);
	n[0] = ab[1] * ac[2] - ab[2] * ac[1];
	n[1] = ab[2] * ac[0] - ab[0] * ac[2];
	n[2] = ab[0] * ac[1] - ab[1] * ac[0];
	double nn = dot3(n, n);
	if (nn > 0) {
		/* barycentric coordinates of the projection */
		double q[3], h = dot3(ap, n) / nn;
		for (int k = 0; k < 3; k++)
			q[k] = ap[k] - h * n[k];
		double d00 = dot3(ab, ab), d01 = dot3(ab, ac), d11 = dot3(ac, ac);
		double d20 = dot3(q, ab), d21 = dot3(q, ac), den = d00 * d11 - d01 * d01;
		double v = (d11 * d20 - d01 * d21) / den, w = (d00 * d21 - d01 * d20) / den;
		if (v >= 0 && w >= 0 && v + w <= 1)
			return h * h * nn;
	}
	const double *e[3][2] = {{a, b}, {b, c}, {c, a}};
	double best = INFINITY;
	for (int k = 0; k < 3; k++) {
		double d[3], r[3];
		sub3(d, e[k][1], e[k][0]);
		sub3(r, p, e[k][0]);
		double dd = dot3(d, d), t = dd > 0 ? clamp01(dot3(r, d) / dd) : 0;
		for (int i = 0; i < 3; i++)
			r[i] -= t * d[i];
		best = fmin(best, dot3(r, r));
	}
	return best;
}

/* Squared distance between segments pq and rs: the minimum over the
 * interior stationary point (when it lies inside both) and the four
 * endpoint-to-segment distances. */
static double point_seg2(const double p[3], const double a[3], const double b[3])
{
	double d[3], r[3];
	sub3(d, b, a), sub3(r, p, a);
	double dd = dot3(d, d), t = dd > 0 ? clamp01(dot3(r, d) / dd) : 0;
	for (int i = 0; i < 3; i++)
		r[i] -= t * d[i];
	return dot3(r, r);
}

static double seg_seg2(const double p[3], const double q[3], const double r[3], const double s[3])
{
	double best = fmin(fmin(point_seg2(p, r, s), point_seg2(q, r, s)),
			   fmin(point_seg2(r, p, q), point_seg2(s, p, q)));
	double u[3], v[3], w[3];
	sub3(u, q, p), sub3(v, s, r), sub3(w, p, r);
	double a = dot3(u, u), b = dot3(u, v), c = dot3(v, v), d = dot3(u, w), e = dot3(v, w);
	double den = a * c - b * b;
	if (den > 1e-14 * a * c) {
		double sc = (b * e - c * d) / den, tc = (a * e - b * d) / den;
		if (sc > 0 && sc < 1 && tc > 0 && tc < 1) {
			double x[3];
			for (int k = 0; k < 3; k++)
				x[k] = w[k] + sc * u[k] - tc * v[k];
			best = fmin(best, dot3(x, x));
		}
	}
	return best;
}

/* A mesh in world coordinates with a box around each triangle. */
struct world {
	uint32_t nv, nt;
	double *v, *lo, *hi;
	const uint32_t *t;
};

static void world_of(struct world *w, const struct mrdem_mesh *m, const double pos[3],
		     const double q[4])
{
	double r[9];
	quat_to_matrix(q, r);
	w->nv = m->nverts, w->nt = m->ntris, w->t = m->tris;
	w->v = realloc(w->v, 3 * (size_t)m->nverts * sizeof *w->v);
	w->lo = realloc(w->lo, 3 * (size_t)m->ntris * sizeof *w->lo);
	w->hi = realloc(w->hi, 3 * (size_t)m->ntris * sizeof *w->hi);
	for (uint32_t i = 0; i < m->nverts; i++) {
		double rel[3];
		sub3(rel, &m->verts[3 * (size_t)i], m->mass.com);
		for (int k = 0; k < 3; k++)
			w->v[3 * i + k] = pos[k] + r[3 * k] * rel[0] + r[3 * k + 1] * rel[1] +
					  r[3 * k + 2] * rel[2];
	}
	for (uint32_t t = 0; t < m->ntris; t++)
		for (int k = 0; k < 3; k++) {
			double lo = INFINITY, hi = -INFINITY;
			for (int c = 0; c < 3; c++) {
				double x = w->v[3 * (size_t)m->tris[3 * t + c] + k];
				lo = fmin(lo, x), hi = fmax(hi, x);
			}
			w->lo[3 * t + k] = lo, w->hi[3 * t + k] = hi;
		}
}

#define V(w, i, c) (&(w)->v[3 * (size_t)(w)->t[3 * (size_t)(i) + (c)]])

/* Distance between two triangles that do not cross: the least of the six
 * vertex-triangle and nine edge-edge distances. */
static double tri_tri2(const struct world *a, uint32_t ta, const struct world *b, uint32_t tb)
{
	double best = INFINITY;
	for (int c = 0; c < 3; c++) {
		best = fmin(best, point_tri2(V(a, ta, c), V(b, tb, 0), V(b, tb, 1), V(b, tb, 2)));
		best = fmin(best, point_tri2(V(b, tb, c), V(a, ta, 0), V(a, ta, 1), V(a, ta, 2)));
		for (int e = 0; e < 3; e++)
			best = fmin(best, seg_seg2(V(a, ta, c), V(a, ta, (c + 1) % 3), V(b, tb, e),
						   V(b, tb, (e + 1) % 3)));
	}
	return best;
}

/* Exact distance between meshes a and b when it is below cut, else a
 * value >= cut (triangle pairs whose boxes are cut apart are skipped). */
static double mesh_distance(const struct world *a, const struct world *b, double cut)
{
	double best2 = cut * cut, blo[3] = {INFINITY, INFINITY, INFINITY};
	double bhi[3] = {-INFINITY, -INFINITY, -INFINITY};
	for (uint32_t j = 0; j < b->nt; j++)
		for (int k = 0; k < 3; k++)
			blo[k] = fmin(blo[k], b->lo[3 * j + k]), bhi[k] = fmax(bhi[k], b->hi[3 * j + k]);
	for (uint32_t i = 0; i < a->nt; i++) {
		/* a triangle as far from all of b's box as the best is skipped */
		double gi2 = 0;
		for (int k = 0; k < 3; k++) {
			double g = fmax(a->lo[3 * i + k] - bhi[k], blo[k] - a->hi[3 * i + k]);
			if (g > 0)
				gi2 += g * g;
		}
		if (gi2 >= best2)
			continue;
		for (uint32_t j = 0; j < b->nt; j++) {
			double g2 = 0;
			for (int k = 0; k < 3; k++) {
				double g = fmax(a->lo[3 * i + k] - b->hi[3 * j + k],
						b->lo[3 * j + k] - a->hi[3 * i + k]);
				if (g > 0)
					g2 += g * g;
			}
			if (g2 < best2)
				best2 = fmin(best2, tri_tri2(a, i, b, j));
		}
	}
	return sqrt(best2);
}

/* ---- the shapes */

static void add_box(struct mrdem_scene *s, const char *name, double x, double y, double z,
		    unsigned div)
{
	struct mrdem_mesh m;
	double size[3] = {x, y, z};
	mrdem_mesh_init(&m);
	if (mrdem_mesh_box(&m, size, div))
		mrdem_die("cannot make %s", name);
	ts_add_shape(s, name, &m);
}

static void add_cylinder(struct mrdem_scene *s, const char *name, double r, double h,
			 unsigned seg)
{
	struct mrdem_mesh m;
	mrdem_mesh_init(&m);
	if (mrdem_mesh_cylinder(&m, r, h, seg))
		mrdem_die("cannot make %s", name);
	ts_add_shape(s, name, &m);
}

static void make_shapes(struct mrdem_scene *s, const char *rock)
{
	/* the pair the trouble was first seen on, then the rest */
	ts_add_sphere(s, "noisy-1224", 1224, 0.45, 1.4, 1, 2);
	ts_add_sphere(s, "noisy-1280", 1280, 0.5, 1.3, 1, 7);
	ts_add_sphere(s, "noisy-80", 80, 0.5, 2.0, 1, 3);
	ts_add_sphere(s, "noisy-320", 320, 0.5, 1.1, 1, 4);
	ts_add_sphere(s, "noisy-5120", 5120, 0.5, 1.2, 1, 5);
	ts_add_sphere(s, "stretched", 1280, 0.3, 1, 2.5, 1);
	ts_add_sphere(s, "ico-320", 320, 0.5, 1, 1, 1);
	ts_add_sphere(s, "ico-1280", 1280, 0.5, 1, 1, 1);
	add_box(s, "box-1", 1, 0.8, 0.6, 1);
	add_box(s, "box-8", 0.6, 0.6, 0.6, 8);
	add_box(s, "wall", 2, 2, 0.2, 1);
	add_box(s, "plate", 1, 1, 0.01, 2);
	add_cylinder(s, "cylinder", 0.3, 0.8, 32);
	add_cylinder(s, "disc", 0.5, 0.05, 64);
	struct mrdem_mesh m;
	mrdem_mesh_init(&m);
	if (mrdem_mesh_read_obj(rock, &m) || mrdem_mesh_validate(&m, 0, rock))
		mrdem_die("cannot read %s", rock);
	mrdem_mesh_mass(&m, &m.mass);
	ts_add_shape(s, "rock", &m);
}

/* ---- one trial */

struct trial {
	struct mrdem_scene *s;
	struct mrdem_contact_finder *finder;
	struct mrdem_forces forces;
	struct mrdem_bodies bodies;
	struct mrdem_id_index index;
	struct world wa, wb;
	double radius[2], dir[3];
};

static const struct mrdem_mesh *mesh_of(const struct trial *t, int i)
{
	return &t->s->shapes[t->s->frame.p.shape[i]].mesh;
}

/* Particle b at distance L from a along dir; the exact distance below cut. */
static double distance_at(struct trial *t, double L, double cut)
{
	struct mrdem_particles *p = &t->s->frame.p;
	vec3_axpy(&p->pos[3], &p->pos[0], L, t->dir);
	world_of(&t->wa, mesh_of(t, 0), &p->pos[0], &p->quat[0]);
	world_of(&t->wb, mesh_of(t, 1), &p->pos[3], &p->quat[4]);
	return mesh_distance(&t->wa, &t->wb, cut);
}

/* Place b so that the exact distance is target: walk in from apart by
 * the distance still to go (the distance changes by at most the step, so
 * the walk never crosses the target), then bisect. Returns the distance
 * reached. */
/* Move b from L to x: moving by dL changes the distance D by at most |dL|,
 * so a cut just above D + |dL| skips far triangle pairs and still gives the
 * exact distance (the margin covers the rounding of the placed vertices). */
static double move_to(struct trial *t, double *L, double D, double x, double margin)
{
	double cut = D + fabs(x - *L) + margin;
	*L = x;
	return distance_at(t, x, cut);
}

static double place(struct trial *t, double target)
{
	double far = t->radius[0] + t->radius[1] + 2 * target, margin = 1e-9 * far;
	double L = far, D = distance_at(t, far, far + 1);
	for (int i = 0; i < 200 && D - target > 1e-4 * target; i++)
		D = move_to(t, &L, D, L - (0.9 * (D - target) + 1e-6 * target), margin);
	double lo = L - 0.2 * target, hi = L;
	for (int i = 0; i < 60 && fabs(D - target) > 1e-9 * target; i++) {
		double mid = 0.5 * (lo + hi);
		D = move_to(t, &L, D, mid, margin);
		if (D > target)
			hi = mid;
		else
			lo = mid;
	}
	return move_to(t, &L, D, 0.5 * (lo + hi), margin);
}

static void set_model(struct mrdem_setup *u, int model)
{
	u->force_model = model;
	u->stiffness = model == MRDEM_FORCE_SPRING ? 1000 : 1e6;
	u->damping = model == MRDEM_FORCE_SPRING_DASHPOT ? 10 : 0;
	u->restitution = 0.5;
	u->young = 1e8;
	u->poisson = 0.3;
	u->tangential = 2.0 / 7;
	u->friction = 0.3;
}

/* The largest elastic energy a contact of model may store at overlap d
 * (the laws of docs/dynamics.md). */
static double energy_bound(const struct trial *t, int model, double d, double E)
{
	const struct mrdem_setup *u = &t->s->setup;
	if (model == MRDEM_FORCE_HERTZ) {
		double es = u->young / (2 * (1 - u->poisson * u->poisson));
		double R = fmax(t->radius[0], t->radius[1]);
		return 8.0 / 15 * es * sqrt(R) * pow(d, 2.5);
	}
	double k = u->stiffness;
	if (model == MRDEM_FORCE_SPRING) {
		double ma = t->bodies.b[0].inv_mass, mb = t->bodies.b[1].inv_mass;
		k *= sqrt(1 / (ma + mb)) / E;
	}
	return 0.5 * k * d * d;
}

static const int models[] = {MRDEM_FORCE_SPRING, MRDEM_FORCE_SPRING_DASHPOT, MRDEM_FORCE_HOOKE,
			     MRDEM_FORCE_HERTZ};

/* Shapes a, b at a random pose, distance D = where * E; the checks. */
static void trial(struct trial *t, struct mrdem_rng *rng, uint32_t a, uint32_t b, double where,
		  int *bad)
{
	struct mrdem_particles *p = &t->s->frame.p;
	p->shape[0] = a, p->shape[1] = b;
	for (int i = 0; i < 2; i++) {
		const struct mrdem_mesh *m = mesh_of(t, i);
		t->radius[i] = mrdem_mesh_radius_about(m, m->mass.com);
		p->eps[i] = mrdem_rng_range(rng, 0.005, 0.04) * t->radius[i];
		mrdem_rng_quat(rng, &p->quat[4 * i]);
	}
	vec3_set(&p->pos[0], 0, 0, 0);
	do {
		for (int k = 0; k < 3; k++)
			t->dir[k] = mrdem_rng_normal(rng);
	} while (!(vec3_normalize(t->dir) > 0.1));
	double E = p->eps[0] + p->eps[1], D = place(t, where * E);
	const char *na = t->s->shapes[a].name, *nb = t->s->shapes[b].name;

	struct mrdem_contact_opts o;
	struct mrdem_contacts c;
	mrdem_contact_opts_default(&o);
	mrdem_contacts_init(&c);
	if (mrdem_find_contacts(t->finder, t->s, NULL, &o, &c, NULL))
		mrdem_die("contact search failed");
	/* records exactly when inside, each within the halos */
	int expect = D < 0.99 * E, none = D > 1.01 * E, within = 1;
	for (size_t k = 0; k < c.n; k++)
		within &= c.c[k].dist <= E * (1 + 1e-5) + 1e-7;
	if ((expect && !c.n) || (none && c.n) || !within) {
		(*bad)++;
		tap_diag("%s / %s at D = %.6g (E = %.6g): %zu records, all within E: %d", na, nb,
			 D, E, c.n, within);
	}
	for (size_t m = 0; m < sizeof models / sizeof *models; m++) {
		set_model(&t->s->setup, models[m]);
		if (mrdem_forces_of_frame(&t->forces, &t->bodies, &t->index, t->s, &c)) {
			(*bad)++;
			tap_diag("%s / %s, %s: forces failed", na, nb,
				 mrdem_force_model_name(models[m]));
			continue;
		}
		double allow = energy_bound(t, models[m], fmax(E - D, 0.0) + 1e-7, E), worst = 0,
		       total = 0;
		for (size_t k = 0; k < c.n; k++) {
			worst = fmax(worst, t->forces.ce[k]);
			total += t->forces.ce[k];
		}
		if (worst > allow * (1 + 1e-6)) {
			(*bad)++;
			tap_diag("%s / %s at D = %.6g (E = %.6g), %s: a contact stores %.6g J, the "
				 "exact overlap allows %.6g J (%zu records, %.6g J in all)",
				 na, nb, D, E, mrdem_force_model_name(models[m]), worst, allow, c.n,
				 total);
		}
	}
	mrdem_contacts_release(&c);
}

int main(int argc, char **argv)
{
	const char *top = argc > 1 ? argv[1] : getenv("MRDEM_TOP");
	char rock[4096];
	snprintf(rock, sizeof rock, "%s/examples/rock.obj", top ? top : ".");
	struct mrdem_scene scene;
	mrdem_scene_init(&scene);
	make_shapes(&scene, rock);
	scene.setup.plane_epsilon = 0.01;
	scene.setup.dt = 1e-5;
	struct mrdem_particles *p = &scene.frame.p;
	mrdem_particles_push(p, 1, 0);
	mrdem_particles_push(p, 2, 0);
	p->density[0] = p->density[1] = 1000;

	struct trial t = {.s = &scene, .finder = mrdem_contact_finder_new()};
	mrdem_forces_init(&t.forces);
	mrdem_bodies_init(&t.bodies);
	mrdem_id_index_init(&t.index);
	struct mrdem_rng rng;
	mrdem_rng_seed(&rng, 20261128);

	/* the first two shapes, as they were reported, then every shape
	 * against a random one, at each of the three distances */
	static const double where[] = {0.97, 1.0, 1.03};
	static const char *wname[] = {"just inside", "on", "just outside"};
	uint32_t ns = scene.nshapes, step = getenv("MRDEM_ASAN") ? 4 : 1;
	for (int w = 0; w < 3; w++) {
		int bad = 0, n = 0;
		for (int rep = 0; rep < 3; rep++, n++)
			trial(&t, &rng, 0, 1, where[w], &bad);
		for (uint32_t a = 0; a < ns; a += step, n++) {
			uint32_t b = (uint32_t)(mrdem_rng_u64(&rng) % ns);
			trial(&t, &rng, a, b, where[w], &bad);
		}
		tap_ok(!bad, "%d random poses %s the halos: records exactly when the meshes are "
		       "within them, each within, no contact above the exact overlap's energy "
		       "(paper, spring-dashpot, hooke, hertz)", n, wname[w]);
	}
	free(t.wa.v), free(t.wa.lo), free(t.wa.hi);
	free(t.wb.v), free(t.wb.lo), free(t.wb.hi);
	mrdem_contact_finder_free(t.finder);
	mrdem_forces_release(&t.forces);
	mrdem_bodies_release(&t.bodies);
	mrdem_id_index_release(&t.index);
	mrdem_scene_release(&scene);
	return tap_done();
}
