/* YAML scene loading: values, defaults, derived quantities (relative
 * epsilon, mass -> density), lattice layout and its documented random
 * sequence, equivalence of block, flow and JSON spellings, relative mesh
 * paths. Error messages are checked end to end in tests/e2e/init.sh. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/geom/quat.h"
#include "common/mesh/mesh.h"
#include "common/scene/scene.h"
#include "common/tree/tree.h"
#include "common/util/rng.h"
#include "formats/foreign/mesh_files.h"
#include "formats/stream/record_tree.h"
#include "formats/stream/records.h"
#include "formats/foreign/scene_yaml.h"
#include "formats/stream/stream.h"
#include "tests/lib/tap.h"

static char dir[256];

static const char *write_file(const char *name, const char *text)
{
	static char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
	return path;
}

static int load(const char *text, struct mrdem_scene *s)
{
	mrdem_scene_init(s);
	return mrdem_scene_load_yaml(write_file("scene.yaml", text), s);
}

static double diameter(const struct mrdem_scene *s, uint32_t shape)
{
	const struct mrdem_mesh *m = &s->shapes[shape].mesh;
	return 2 * mrdem_mesh_radius_about(m, m->mass.com);
}

/* Same particles, setup and shapes, bit for bit. */
static int same_scene(const struct mrdem_scene *a, const struct mrdem_scene *b)
{
	const struct mrdem_particles *p = &a->frame.p, *q = &b->frame.p;
	if (a->nshapes != b->nshapes || p->n != q->n)
		return 0;
	for (uint32_t i = 0; i < a->nshapes; i++)
		if (strcmp(a->shapes[i].name, b->shapes[i].name) ||
		    a->shapes[i].mesh.ntris != b->shapes[i].mesh.ntris ||
		    memcmp(a->shapes[i].mesh.verts, b->shapes[i].mesh.verts,
			   3 * sizeof(double) * a->shapes[i].mesh.nverts))
			return 0;
	size_t n = p->n;
	return !memcmp(p->id, q->id, n * sizeof *p->id) &&
	       !memcmp(p->shape, q->shape, n * sizeof *p->shape) &&
	       !memcmp(p->flags, q->flags, n * sizeof *p->flags) &&
	       !memcmp(p->pos, q->pos, 3 * n * sizeof *p->pos) &&
	       !memcmp(p->quat, q->quat, 4 * n * sizeof *p->quat) &&
	       !memcmp(p->vel, q->vel, 3 * n * sizeof *p->vel) &&
	       !memcmp(p->angvel, q->angvel, 3 * n * sizeof *p->angvel) &&
	       !memcmp(p->density, q->density, n * sizeof *p->density) &&
	       !memcmp(p->eps, q->eps, n * sizeof *p->eps) &&
	       !memcmp(a->setup.gravity, b->setup.gravity, sizeof a->setup.gravity) &&
	       a->setup.stiffness == b->setup.stiffness && a->setup.dt == b->setup.dt &&
	       a->setup.steps == b->setup.steps && a->setup.scheme == b->setup.scheme &&
	       a->setup.output_every == b->setup.output_every &&
	       a->setup.nplanes == b->setup.nplanes &&
	       (!a->setup.nplanes || !memcmp(a->setup.planes, b->setup.planes,
					     a->setup.nplanes * sizeof *a->setup.planes));
}

static const char flow[] =
	"shapes:\n"
	"  ball: {sphere: {triangles: 80, radius: 0.5}}\n"
	"particles:\n"
	"  - {shape: ball, position: [-1.1, 0, 0], velocity: [1, 0, 0], density: 2.5}\n"
	"  - {shape: ball, position: [1.1, 0, 0], orientation: [1, 0, 0, 0], "
	"angular_velocity: [0, 0, 3]}\n"
	"  - lattice: {shape: ball, origin: [0, 0, 5], count: [2, 2, 2], spacing: [2.1, 2.2, 2.3]}\n"
	"planes:\n"
	"  - {point: [0, 0, -2], normal: [0, 0.26, 0.97]}\n"
	"gravity: [0, 0, -9.81]\n"
	"contact: {model: paper, epsilon: 0.02, stiffness: 500}\n"
	"time: {dt: 1.0e-4, steps: 1e4, scheme: velocity-verlet}\n"
	"output: {every: 10}\n";

static const char block[] = /* the same scene; particles before shapes */
	"# comment\n"
	"particles:\n"
	"  - shape: ball\n"
	"    position: [-1.1, 0, 0]\n"
	"    velocity:\n"
	"      - 1\n"
	"      - 0\n"
	"      - 0\n"
	"    density: 2.5\n"
	"  - shape: \"ball\"\n"
	"    position: [1.1, 0, 0]\n"
	"    angular_velocity: [0, 0, 3.0]\n"
	"  - lattice:\n"
	"      spacing: [2.1, 2.2, 2.3]\n"
	"      count: [2, 2, 2]\n"
	"      origin: [0, 0, 5]\n"
	"      shape: ball\n"
	"contact:\n"
	"  model: spring\n"
	"  stiffness: 500\n"
	"  epsilon: 2e-2\n"
	"shapes:\n"
	"  ball:\n"
	"    sphere:\n"
	"      radius: 0.5\n"
	"      triangles: 80\n"
	"planes:\n"
	"  - normal: [0, 0.26, 0.97]\n"
	"    point: [0, 0, -2]\n"
	"gravity: [0, 0, -9.81]\n"
	"time:\n"
	"  steps: 10000\n"
	"  dt: 0.0001\n"
	"  scheme: velocity-verlet\n"
	"output:\n"
	"  every: 10\n";

static const char json[] =
	"{\"shapes\": {\"ball\": {\"sphere\": {\"triangles\": 80, \"radius\": 0.5}}},\n"
	" \"particles\": [\n"
	"  {\"shape\": \"ball\", \"position\": [-1.1, 0, 0], \"velocity\": [1, 0, 0], "
	"\"density\": 2.5},\n"
	"  {\"shape\": \"ball\", \"position\": [1.1, 0, 0], \"angular_velocity\": [0, 0, 3]},\n"
	"  {\"lattice\": {\"shape\": \"ball\", \"origin\": [0, 0, 5], \"count\": [2, 2, 2], "
	"\"spacing\": [2.1, 2.2, 2.3]}}],\n"
	" \"planes\": [{\"point\": [0, 0, -2], \"normal\": [0, 0.26, 0.97]}],\n"
	" \"gravity\": [0, 0, -9.81],\n"
	" \"contact\": {\"model\": \"paper\", \"epsilon\": 0.02, \"stiffness\": 500},\n"
	" \"time\": {\"dt\": 1.0e-4, \"steps\": 10000, \"scheme\": \"velocity-verlet\"},\n"
	" \"output\": {\"every\": 10}}\n";

static void test_spellings(void)
{
	struct mrdem_scene a, b, c;
	tap_ok(load(flow, &a) == 0, "flow-style scene loads");
	tap_ok(load(block, &b) == 0, "block-style scene with particles before shapes loads");
	tap_ok(load(json, &c) == 0, "JSON scene loads");
	tap_ok(same_scene(&a, &b), "block style gives the same scene as flow style");
	tap_ok(same_scene(&a, &c), "JSON gives the same scene as flow style");

	const struct mrdem_particles *p = &a.frame.p;
	tap_eq_int(a.nshapes, 1, "one shape");
	tap_eq_int(a.shapes[0].mesh.ntris, 80, "shape has the requested 80 triangles");
	tap_eq_int(p->n, 10, "2 particles + 2x2x2 lattice");
	for (size_t i = 0; i < p->n; i++)
		if (p->id[i] != i || p->shape[i] != 0 || p->flags[i])
			tap_ok(0, "particle %zu: id %llu shape %u flags %u", i,
			       (unsigned long long)p->id[i], p->shape[i], p->flags[i]);
	tap_ok(p->pos[0] == -1.1 && p->pos[1] == 0 && p->vel[0] == 1, "particle 0 position, velocity");
	tap_ok(p->density[0] == 2.5 && p->density[1] == 1.0, "density given, and default 1");
	tap_ok(p->angvel[3 + 2] == 3 && p->quat[4] == 1 && p->quat[5] == 0,
	       "particle 1 angular velocity and orientation");
	double d = diameter(&a, 0);
	tap_near(d, 1.0, 1e-12, "diameter of a radius-0.5 icosphere is 1");
	size_t eps_wrong = 0;
	for (size_t i = 0; i < p->n; i++)
		if (p->eps[i] != 0.02 * d) {
			eps_wrong++;
			tap_diag("particle %zu epsilon %g, want 0.02 * diameter", i, p->eps[i]);
		}
	tap_ok(p->n == 10 && eps_wrong == 0,
	       "contact.epsilon is relative to the diameter for every particle");
	/* lattice: x fastest, then y, then z */
	int lattice_ok = 1;
	for (int k = 0, i = 2; k < 2; k++)
		for (int j = 0; j < 2; j++)
			for (int x = 0; x < 2; x++, i++) {
				const double *q = &p->pos[3 * i];
				lattice_ok &= q[0] == 0 + x * 2.1 && q[1] == 0 + j * 2.2 &&
					      q[2] == 5 + k * 2.3;
			}
	tap_ok(lattice_ok, "lattice positions are origin + (i, j, k) * spacing, x fastest");

	const struct mrdem_setup *st = &a.setup;
	double nn = sqrt(0.26 * 0.26 + 0.97 * 0.97);
	tap_eq_int(st->nplanes, 1, "one plane");
	tap_ok(st->planes[0].point[2] == -2 && st->planes[0].normal[0] == 0 &&
		       st->planes[0].normal[1] == 0.26 / nn && st->planes[0].normal[2] == 0.97 / nn,
	       "plane normal normalised");
	tap_ok(st->gravity[2] == -9.81 && st->stiffness == 500 && st->dt == 1e-4 &&
		       st->steps == 10000 && st->scheme == MRDEM_SCHEME_VELOCITY_VERLET &&
		       st->output_every == 10 && st->force_model == MRDEM_FORCE_SPRING,
	       "setup values (steps written as 1e4)");
	mrdem_scene_release(&a);
	mrdem_scene_release(&b);
	mrdem_scene_release(&c);
}

static void test_defaults_and_derived(void)
{
	struct mrdem_scene s;
	int rc = load("shapes:\n"
		      "  ball: {sphere: {triangles: 320, radius: 2, noise: 1.5, seed: 9}}\n"
		      "  slope: {plane: {size: [10, 8], divisions: [4, 2], tilt: 20}}\n"
		      "  brick: {box: {size: [1, 2, 3], divisions: 2}}\n"
		      "  can: {cylinder: {radius: 0.5, height: 2, segments: 12}}\n"
		      "particles:\n"
		      "  - {shape: ball, position: [0, 0, 0], mass: 3}\n"
		      "  - {shape: ball, position: [9, 0, 0], epsilon: 0.05}\n"
		      "  - {shape: brick, position: [0, 9, 0], epsilon_abs: 0.3}\n"
		      "  - {shape: slope, position: [0, 0, -5], fixed: true}\n"
		      "  - {shape: can, position: [0, 0, 9], fixed: true}\n"
		      "  - {shape: ball, position: [9, 9, 9], orientation: [0.7071, 0.7071, 0, 0]}\n"
		      "contact: {plane_epsilon: 0.004, model: spring-dashpot, damping: 0.3, "
		      "friction: 0.5}\n",
		      &s);
	tap_ok(rc == 0, "scene with every generator loads");
	if (rc)
		return;
	const struct mrdem_particles *p = &s.frame.p;
	tap_eq_int(s.nshapes, 4, "four shapes, ids in order of appearance");
	tap_ok(!strcmp(s.shapes[0].name, "ball") && !strcmp(s.shapes[3].name, "can"),
	       "shape names kept");
	tap_ok(s.shapes[1].mesh.open && !s.shapes[0].mesh.open && !s.shapes[2].mesh.open &&
		       !s.shapes[3].mesh.open, "only the plane is open");
	tap_eq_int(s.shapes[1].mesh.ntris, 2 * 4 * 2, "plane has 2 * nx * ny triangles");
	tap_near(s.shapes[2].mesh.mass.volume, 6.0, 1e-12, "box volume");
	tap_near(s.shapes[3].mesh.mass.volume, 0.5 * 12 * 0.25 * sin(2 * M_PI / 12) * 2, 1e-12,
		 "cylinder volume is the 12-gon prism's");
	tap_ok(p->density[0] == 3 / s.shapes[0].mesh.mass.volume, "mass 3 -> density = 3 / volume");
	tap_near(mrdem_particle_mass(&s, 0), 3.0, 1e-12, "particle mass is the mass written");
	tap_ok(p->eps[0] == 0.01 * diameter(&s, 0), "default epsilon 0.01 relative");
	const struct mrdem_mesh *bm = &s.shapes[0].mesh;
	double rmax = 0;
	for (uint32_t v = 0; v < bm->nverts; v++) {
		const double *x = &bm->verts[3 * v], *c = bm->mass.com;
		rmax = fmax(rmax, sqrt((x[0] - c[0]) * (x[0] - c[0]) + (x[1] - c[1]) * (x[1] - c[1]) +
				       (x[2] - c[2]) * (x[2] - c[2])));
	}
	tap_near(diameter(&s, 0), 2 * rmax, 1e-12,
		 "diameter is twice the largest vertex distance from the centre of mass");
	tap_ok(rmax > 2 && rmax < 3.1, "noisy sphere (radius 2, noise 1.5) reaches beyond 2");
	tap_ok(p->eps[1] == 0.05 * diameter(&s, 0), "epsilon: 0.05 relative to the diameter");
	tap_ok(p->eps[2] == 0.3, "epsilon_abs taken as is");
	tap_ok(p->eps[3] == 0.004 && (p->flags[3] & MRDEM_PARTICLE_FIXED),
	       "fixed open plane takes contact.plane_epsilon");
	tap_ok(p->eps[4] == 0.01 * diameter(&s, 3) && (p->flags[4] & MRDEM_PARTICLE_FIXED),
	       "fixed closed shape keeps the relative default");
	tap_ok(mrdem_particle_mass(&s, 3) == 0, "fixed particles have no finite mass");
	const double *q = &p->quat[4 * 5];
	tap_near(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0, 1e-15,
		 "nearly unit orientation is normalised");
	tap_near(q[0], sqrt(0.5), 1e-15, "normalised orientation keeps its direction");
	tap_ok(s.setup.force_model == MRDEM_FORCE_SPRING_DASHPOT && s.setup.damping == 0.3 &&
		       s.setup.friction == 0.5 && s.setup.plane_epsilon == 0.004,
	       "contact model parameters");
	tap_ok(s.setup.stiffness == 1000 && s.setup.dt == 1e-4 && s.setup.steps == 1000 &&
		       s.setup.scheme == MRDEM_SCHEME_VELOCITY_VERLET && s.setup.output_every == 10 &&
		       s.setup.gravity[2] == 0 && s.setup.nplanes == 0,
	       "setup defaults");
	mrdem_scene_release(&s);

	rc = load("shapes: {ball: {sphere: {triangles: 80}}}\n"
		  "particles: [{shape: ball, position: [0, 0, 0]}, "
		  "{shape: ball, position: [3, 0, 0], epsilon: 0.1}]\n"
		  "contact: {model: paper, epsilon_abs: 0.125}\n", &s);
	tap_ok(rc == 0 && s.frame.p.eps[0] == 0.125 && s.frame.p.eps[1] == 0.1 * diameter(&s, 0),
	       "contact.epsilon_abs is the default; a particle's relative epsilon overrides it");
	mrdem_scene_release(&s);

	/* contact before particles: the particles are read in the first pass */
	rc = load("shapes: {ball: {sphere: {triangles: 80}}}\n"
		  "contact: {model: paper, epsilon: 0.03}\n"
		  "particles: [{shape: ball, position: [0, 0, 0]}, "
		  "{shape: ball, position: [3, 0, 0], epsilon_abs: 0.1}]\n", &s);
	tap_ok(rc == 0 && s.frame.p.n == 2 && s.frame.p.eps[0] == 0.03 * diameter(&s, 0) &&
		       s.frame.p.eps[1] == 0.1,
	       "contact before particles: defaults applied once, two particles");
	mrdem_scene_release(&s);
}

/* The documented random sequence: per particle in id order, 3 jitter offsets
 * when jitter > 0, then a rotation when rotate is true. */
static void test_lattice_random(void)
{
	struct mrdem_scene s, t;
	const char *text = "shapes: {ball: {sphere: {triangles: 80}}}\n"
			   "particles:\n"
			   "  - lattice: {shape: ball, origin: [1, 2, 3], count: [3, 4, 5], "
			   "spacing: 2.5, jitter: 0.1, rotate: true, seed: 77}\n"
			   "contact: {model: paper}\n";
	int rc = load(text, &s);
	tap_ok(rc == 0, "jittered, rotated lattice loads");
	if (rc)
		return;
	struct mrdem_rng rng;
	mrdem_rng_seed(&rng, 77);
	int seq_ok = 1, bound_ok = 1, moved = 0;
	for (size_t i = 0; i < 60; i++) {
		size_t x = i % 3, y = i / 3 % 4, z = i / 12;
		double grid[3] = {1 + x * 2.5, 2 + y * 2.5, 3 + z * 2.5}, want[4];
		for (int d = 0; d < 3; d++) {
			double off = mrdem_rng_range(&rng, -0.1, 0.1);
			double got = s.frame.p.pos[3 * i + d];
			seq_ok &= got == grid[d] + off;
			bound_ok &= fabs(got - grid[d]) <= 0.1 + 1e-12;
			moved |= got != grid[d];
		}
		mrdem_rng_quat(&rng, want);
		seq_ok &= !memcmp(want, &s.frame.p.quat[4 * i], sizeof want);
	}
	tap_ok(seq_ok, "lattice jitter and rotations follow the documented sequence");
	tap_ok(bound_ok && moved, "jitter moves particles by at most the jitter per axis");
	tap_ok(load(text, &t) == 0 && same_scene(&s, &t), "same seed, same scene");
	mrdem_scene_release(&t);
	char other[512];
	snprintf(other, sizeof other, "%s", text);
	memcpy(strstr(other, "seed: 77"), "seed: 78", 8);
	tap_ok(load(other, &t) == 0 && memcmp(s.frame.p.pos, t.frame.p.pos, 3 * sizeof(double)),
	       "another seed, another scene");
	mrdem_scene_release(&t);
	mrdem_scene_release(&s);
}

static void test_mesh_file_relative(void)
{
	char sub[300], path[400];
	snprintf(sub, sizeof sub, "%s/sub", dir);
	mkdir(sub, 0700);
	/* a tetrahedron, written with clockwise faces on purpose: the loader
	 * validates and orients it outward */
	snprintf(path, sizeof path, "%s/tet.obj", sub);
	FILE *f = fopen(path, "w");
	fputs("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 4 2\nf 1 3 4\nf 2 4 3\n", f);
	fclose(f);
	snprintf(path, sizeof path, "%s/scene.yaml", sub);
	f = fopen(path, "w");
	fputs("shapes: {tet: {mesh: tet.obj}}\nparticles: [{shape: tet, position: [0, 0, 0]}]\n"
	      "contact: {model: paper}\n", f);
	fclose(f);
	struct mrdem_scene s;
	mrdem_scene_init(&s);
	/* load from another working directory: the mesh is found beside the scene */
	tap_ok(chdir("/") == 0 && mrdem_scene_load_yaml(path, &s) == 0,
	       "mesh file resolved relative to the scene file");
	if (s.nshapes == 1) {
		tap_near(s.shapes[0].mesh.mass.volume, 1.0 / 6, 1e-15, "tetrahedron volume 1/6");
		tap_near(s.shapes[0].mesh.mass.com[0], 0.25, 1e-15, "tetrahedron centre of mass");
	}
	mrdem_scene_release(&s);
}

/* A mesh stream written as mrdem-tree writes it: a sphere of `triangles`
 * triangles and noise, then the tree of `tree_of` (NULL: its own, built
 * here and handed back in *built when built is not NULL). */
static int write_treed_stream(const char *name, uint32_t triangles, double noise,
			      const struct mrdem_tree *tree_of, struct mrdem_tree **built)
{
	struct mrdem_sphere_opts o;
	struct mrdem_mesh m;
	struct mrdem_scene s;
	struct mrdem_tree_params tp;
	char file[512];
	mrdem_sphere_opts_default(&o);
	o.triangles = triangles;
	o.noise = noise;
	mrdem_mesh_init(&m);
	mrdem_scene_init(&s);
	mrdem_tree_params_default(&tp);
	tp.leaf = 4; /* not the default: a rebuilt tree would differ */
	if (mrdem_mesh_sphere(&m, &o) || mrdem_mesh_validate(&m, 0, "sphere"))
		return -1;
	mrdem_scene_add_shape(&s, "ball", &m);
	if (tree_of) {
		/* a copy of another mesh's tree, through its record */
		struct mrdem_buf b;
		struct mrdem_record rec = {0};
		uint32_t id;
		mrdem_buf_init(&b);
		mrdem_encode_tree(&b, 0, tree_of);
		rec.type = MRDEM_REC_TREE;
		rec.data = b.p;
		rec.len = b.len;
		int rc = mrdem_decode_tree(&rec, "copy", &id, &s.shapes[0].tree);
		mrdem_buf_release(&b);
		if (rc)
			return -1;
	} else if (mrdem_tree_build(&s.shapes[0].mesh, &tp, &s.shapes[0].tree)) {
		return -1;
	}
	snprintf(file, sizeof file, "%s/%s", dir, name);
	struct mrdem_writer w;
	int rc = mrdem_writer_open(&w, file, 0) || mrdem_scene_write_shapes(&w, &s) ||
		 mrdem_writer_commit(&w) ? -1 : 0;
	if (built) {
		*built = s.shapes[0].tree;
		s.shapes[0].tree = NULL;
	}
	mrdem_scene_release(&s);
	return rc;
}

static void test_stored_tree(void)
{
	struct mrdem_tree *t = NULL;
	struct mrdem_scene s;
	char want[600];
	tap_ok(write_treed_stream("ball80.mrd", 80, 1, NULL, &t) == 0 && t, "mesh stream with a tree written");
	if (!t)
		return;
	int rc = load("shapes: {rock: {mesh: ball80.mrd}, gen: {sphere: {triangles: 80}}}\n"
		      "particles: [{shape: rock, position: [0, 0, 0]}]\ncontact: {model: paper}\n", &s);
	tap_ok(rc == 0, "scene with a mesh from a tree-carrying stream loads");
	if (rc == 0) {
		const struct mrdem_tree *got = s.shapes[0].tree;
		tap_ok(got && got->soup && got->nnodes == t->nnodes && got->params.leaf == 4 &&
			       !memcmp(got->eps, t->eps, t->nnodes * sizeof *t->eps) &&
			       !memcmp(got->perm, t->perm, t->ntris * sizeof *t->perm),
		       "the stored tree is taken as is and bound to the mesh");
		snprintf(want, sizeof want, "%s/ball80.mrd (tree record of shape ball)", dir);
		tap_ok(s.shapes[0].tree_origin && !strcmp(s.shapes[0].tree_origin, want),
		       "tree_origin names the file and the shape in it: %s",
		       s.shapes[0].tree_origin ? s.shapes[0].tree_origin : "(null)");
		tap_ok(!s.shapes[1].tree && !s.shapes[1].tree_origin,
		       "a generated shape has no tree and no origin");
		mrdem_scene_release(&s);
	}
	/* the same triangle count passes a count check: the fingerprint must catch it */
	tap_ok(write_treed_stream("noisy80.mrd", 80, 1.2, t, NULL) == 0, "stream with a foreign tree written");
	tap_capture_begin();
	rc = load("shapes: {rock: {mesh: noisy80.mrd}}\n"
		  "particles: [{shape: rock, position: [0, 0, 0]}]\n", &s);
	const char *err = tap_capture_end();
	tap_ok(rc == -1 && s.nshapes == 0 && strstr(err, "built for another mesh") &&
		       strstr(err, "scene.yaml:1:23: shapes.rock"),
	       "a tree of another mesh with as many triangles is an error, with file:line:col");
	tap_ok(write_treed_stream("ball320.mrd", 320, 1, t, NULL) == 0, "stream with a foreign tree written");
	tap_capture_begin();
	rc = load("shapes: {rock: {mesh: ball320.mrd}}\n"
		  "particles: [{shape: rock, position: [0, 0, 0]}]\n", &s);
	err = tap_capture_end();
	tap_ok(rc == -1 && s.nshapes == 0 && strstr(err, "covers 80 triangles but the mesh has 320"),
	       "a tree of a mesh with other triangle counts is an error");
	mrdem_tree_free(t);
}

/* Particles read before their shapes and contact defaults wait for them:
 * every order of the top-level keys gives the same scene, bit for bit. */
static void test_key_order(void)
{
	static const char *const parts[] = {
		"shapes:\n"
		"  ball: {sphere: {triangles: 80, radius: 0.5}}\n"
		"  slope: {plane: {size: [10, 10]}}\n",
		"particles:\n"
		"  - {shape: slope, position: [0, 0, -1], fixed: true}\n"
		"  - {shape: ball, position: [0, 0, 1], mass: 2}\n"
		"  - {shape: ball, position: [2, 0, 1], epsilon: 0.05}\n"
		"  - lattice: {shape: ball, origin: [0, 3, 1], count: [3, 2, 1], spacing: 1.1, "
		"density: 3}\n"
		"  - {shape: slope, position: [0, 0, 9], fixed: true, epsilon_abs: 0.2}\n",
		"contact: {model: paper, epsilon: 0.03, plane_epsilon: 0.004}\n",
	};
	static const int orders[][3] = {{0, 1, 2}, {1, 0, 2}, {1, 2, 0}, {2, 1, 0}, {0, 2, 1}};
	struct mrdem_scene ref, s;
	char text[2048];
	int same = 1;
	for (int o = 0; o < 5; o++) {
		snprintf(text, sizeof text, "%s%s%s", parts[orders[o][0]], parts[orders[o][1]],
			 parts[orders[o][2]]);
		int rc = load(text, o ? &s : &ref);
		if (rc) {
			tap_ok(0, "key order %d loads", o);
			same = 0;
			continue;
		}
		if (o) {
			same &= same_scene(&ref, &s);
			mrdem_scene_release(&s);
		}
	}
	const struct mrdem_particles *p = &ref.frame.p;
	tap_ok(same, "shapes, particles and contact in any order give the same scene");
	tap_ok(p->n == 10 && p->eps[0] == 0.004 && p->eps[1] == 0.03 * diameter(&ref, 0) &&
		       p->eps[2] == 0.05 * diameter(&ref, 0) && p->eps[9] == 0.2 &&
		       p->density[1] == 2 / ref.shapes[0].mesh.mass.volume && p->density[5] == 3 &&
		       p->shape[9] == 1 && p->shape[8] == 0,
	       "halo widths, densities and shapes resolved");
	mrdem_scene_release(&ref);
}

static void test_failure_leaves_scene_empty(void)
{
	struct mrdem_scene s;
	/* the error comes after shapes were built */
	tap_capture_begin();
	int rc = load("shapes: {ball: {sphere: {triangles: 80}}}\n"
		      "particles: [{shape: ball, position: [0, 0, 0]}, {shape: ball, mass: -1, "
		      "position: [3, 0, 0]}]\n", &s);
	const char *err = tap_capture_end();
	tap_ok(rc == -1 && strstr(err, ":2:69: particles[1].mass: must be positive, got -1"),
	       "negative mass is rejected, with line and column: %s", err);
	tap_ok(s.nshapes == 0 && s.shapes == NULL && s.frame.p.n == 0 && s.setup.nplanes == 0,
	       "a failed load leaves the scene released");
	tap_ok(load(flow, &s) == 0 && s.frame.p.n == 10, "the scene can be loaded again");
	mrdem_scene_release(&s);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/mrdem-yaml.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_spellings();
	test_defaults_and_derived();
	test_lattice_random();
	test_key_order();
	test_failure_leaves_scene_empty();
	test_stored_tree();
	test_mesh_file_relative();
	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		tap_diag("could not remove %s", dir);
	return tap_done();
}
