/* YAML scene loader (schema: docs/scene.md): the scene's keys and their
 * meaning. Reading typed values, mappings and the messages
 * ("FILE:LINE:COL: path.to.key: what is wrong") is formats/yaml_map's.
 *
 * One pass over libyaml events, so a script-written scene with millions of
 * explicit particles streams through in constant parser memory. Keys come
 * in any order: particles may precede the shapes and contact defaults they
 * depend on, and then wait for them (see "particles" below). */

#include "formats/foreign/scene_yaml.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/broad/broad.h"
#include "common/dynamics/contact_law.h"
#include "common/dynamics/energy.h"
#include "common/dynamics/rigid_body.h"
#include "common/geom/quat.h"
#include "common/mesh/mesh.h"
#include "common/scene/scaled_shape.h"
#include "common/shape/hull.h"
#include "common/tree/tree.h"
#include "common/util/error.h"
#include "common/util/rng.h"
#include "formats/foreign/mesh_files.h"
#include "formats/foreign/scene_materials.h"
#include "formats/foreign/scene_flow.h"
#include "formats/foreign/scene_motion.h"
#include "formats/foreign/yaml_map.h"

#define BIT(i) MRDEM_YAML_BIT(i)

struct pending;

struct loader {
	struct mrdem_yaml y;
	char *dir;              /* prefix for relative mesh paths ("" for none) */
	struct mrdem_scene *s;
	double *diameter;       /* per shape: 2 * bounding radius about the com */
	size_t *shape_line;     /* per shape: line of its definition */
	double mem_avail;       /* bytes this process may allocate */
	double mem_planned;     /* bytes the generated meshes will take */
	int shapes_read;        /* every shape is known */
	int contact_read;       /* the default epsilons are known */
	int eps_default_abs;    /* contact.epsilon_abs given */
	double eps_default;     /* relative (or absolute) default epsilon */
	char **fwd;             /* shape names used before the shapes were read */
	size_t nfwd;
	struct pending *pend;   /* particle items waiting for shapes or defaults */
	size_t npend, cappend;
	yaml_mark_t *plane_mark; /* per analytic plane: where it was given */
	/* materials, resolved after the document; until then particles and
	 * planes hold references to its names */
	struct mrdem_yaml_materials mat;
	struct scene_flow flow; /* insert: and remove: */
};

/* ---- sizes checked before allocating */

/* Physical memory, or the address-space limit (ulimit -v) when lower. */
static double memory_available(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	double avail = pages > 0 && page > 0 ? (double)pages * (double)page : INFINITY;
	struct rlimit rl;
	if (!getrlimit(RLIMIT_AS, &rl) && rl.rlim_cur != RLIM_INFINITY && (double)rl.rlim_cur < avail)
		avail = (double)rl.rlim_cur;
	return avail;
}

static const char *gigabytes(double bytes, char *buf, size_t n)
{
	snprintf(buf, n, "%.3g GB", bytes / 1e9);
	return buf;
}

/* Room for `count` things (particles, triangles) of `each` bytes besides
 * what is planned already, and at most `max` of them: 0, or -1 after a
 * message at mark. */
static int check_size(const struct loader *L, yaml_mark_t mark, const char *what,
		      const char *things, uint64_t count, uint64_t max, const char *max_name,
		      double each)
{
	char need[32], avail[32];
	if (count > max)
		return mrdem_yaml_err_at(
			&L->y, mark, "%s: %" PRIu64 " %s, more than the limit of %" PRIu64 " (%s)",
			what, count, things, max, max_name);
	double bytes = (double)count * each;
	if (L->mem_planned + bytes > L->mem_avail)
		return mrdem_yaml_err_at(
			&L->y, mark,
			"%s: %" PRIu64 " %s need about %s of memory, more than the "
			"%s available (physical memory, or ulimit -v)%s",
			what, count, things, gigabytes(bytes, need, sizeof need),
			gigabytes(L->mem_avail - L->mem_planned, avail, sizeof avail),
			L->mem_planned > 0 ? " beside the shapes" : "");
	return 0;
}

/* A generated mesh of ntris triangles, checked at its size key's value. */
static int plan_triangles(struct loader *L, const char *what, uint64_t ntris)
{
	if (check_size(L, mrdem_yaml_mark(&L->y), what, "triangles", ntris,
		       MRDEM_SCENE_MAX_TRIANGLES, "MRDEM_SCENE_MAX_TRIANGLES",
		       MRDEM_SCENE_TRIANGLE_BYTES))
		return -1;
	L->mem_planned += (double)ntris * MRDEM_SCENE_TRIANGLE_BYTES;
	return 0;
}

/* ---- values */

/* A unit quaternion w, x, y, z; nearly unit ones are normalised. */
static int get_quat(struct loader *L, const char *what, double q[4])
{
	yaml_mark_t start = mrdem_yaml_mark(&L->y);
	if (mrdem_yaml_vec(&L->y, what, q, 4, MRDEM_YAML_ANY))
		return -1;
	double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
	if (n == 0)
		return mrdem_yaml_err_at(&L->y, start, "%s: the zero quaternion is not a rotation",
					 what);
	if (fabs(n - 1) > MRDEM_QUAT_NORM_TOL)
		return mrdem_yaml_err_at(
			&L->y, start,
			"%s: not a unit quaternion (norm %.6g; write w, x, y, z with "
			"w^2 + x^2 + y^2 + z^2 = 1)",
			what, n);
	quat_normalize(q);
	return 0;
}


/* ---- shapes */

static const char *const sphere_keys[] = {"triangles", "radius", "noise", "stretch",
					  "stretch_axis", "seed"};
enum { SP_TRIANGLES, SP_RADIUS, SP_NOISE, SP_STRETCH, SP_AXIS, SP_SEED, SP_N };
static const char *const axis_names[] = {"x", "y", "z"};

static int parse_sphere(struct loader *L, const char *what, struct mrdem_sphere_opts *o)
{
	struct mrdem_yaml_keys k;
	int id, r;
	long long n;
	mrdem_yaml_keys_init(&k, what, sphere_keys, SP_N, MRDEM_YAML_ALL(SP_N));
	if (mrdem_yaml_map_begin(&L->y, &k))
		return -1;
	while ((r = mrdem_yaml_map_next(&L->y, &k, &id)) > 0) {
		switch (id) {
		case SP_TRIANGLES:
			if (mrdem_yaml_int_range(&L->y, k.cur, 1, UINT32_MAX, &n) ||
			    plan_triangles(L, k.cur, n))
				return -1;
			o->triangles = (uint32_t)n;
			break;
		case SP_RADIUS:
			if (mrdem_yaml_number(&L->y, k.cur, &o->radius) ||
			    mrdem_yaml_positive(&L->y, k.cur, o->radius))
				return -1;
			break;
		case SP_NOISE:
			if (mrdem_yaml_number(&L->y, k.cur, &o->noise))
				return -1;
			if (o->noise < 1)
				return mrdem_yaml_err(&L->y,
						      "%s: must be at least 1 (vertex radii lie in "
						      "[radius, noise * radius]), got %s",
						      k.cur, mrdem_yaml_text(&L->y));
			break;
		case SP_STRETCH:
			if (mrdem_yaml_number(&L->y, k.cur, &o->stretch) ||
			    mrdem_yaml_positive(&L->y, k.cur, o->stretch))
				return -1;
			break;
		case SP_AXIS:
			if (mrdem_yaml_enum(&L->y, k.cur, axis_names, 3, &o->stretch_axis))
				return -1;
			break;
		case SP_SEED:
			if (mrdem_yaml_u64(&L->y, k.cur, &o->seed))
				return -1;
			break;
		}
	}
	return r;
}

static const char *const box_keys[] = {"size", "divisions"};
static const char *const analytic_sphere_keys[] = {"radius"};
static const char *const ellipsoid_keys[] = {"axes"};
static const char *const cylinder_keys[] = {"radius", "height", "segments"};
static const char *const plane_keys[] = {"size", "divisions", "tilt"};
static const char *const convex_keys[] = {"mesh", "points"};
static const char *const revolve_keys[] = {"profile", "segments", "divisions"};

struct shape_spec {
	int kind;                     /* SH_SPHERE ... SH_MESH */
	struct mrdem_sphere_opts sphere;
	double size[3];               /* box; plane uses two */
	long long div[2];             /* box uses div[0] */
	double radius, height, tilt;
	long long segments;
	double axes[3];               /* analytic-sphere, ellipsoid: semi-axes */
	char *file;                   /* mesh; convex from a mesh file */
	double *points;               /* convex from points: 3 npoints */
	size_t npoints;
	char *select;                 /* shape name within a mesh stream */
	int open;
};

static int parse_box(struct loader *L, const char *what, struct shape_spec *sp)
{
	struct mrdem_yaml_keys k;
	int id, r;
	mrdem_yaml_keys_init(&k, what, box_keys, 2, MRDEM_YAML_ALL(2));
	if (mrdem_yaml_map_begin(&L->y, &k))
		return -1;
	while ((r = mrdem_yaml_map_next(&L->y, &k, &id)) > 0) {
		if (id == 0 && mrdem_yaml_vec(&L->y, k.cur, sp->size, 3, MRDEM_YAML_POSITIVE))
			return -1;
		if (id == 1 && (mrdem_yaml_int_range(&L->y, k.cur, 1, 1 << 16, &sp->div[0]) ||
				plan_triangles(L, k.cur, 12 * (uint64_t)(sp->div[0] * sp->div[0]))))
			return -1;
	}
	if (r < 0 || mrdem_yaml_require(&L->y, &k, 0))
		return -1;
	return 0;
}

static int parse_cylinder(struct loader *L, const char *what, struct shape_spec *sp)
{
	struct mrdem_yaml_keys k;
	int id, r;
	mrdem_yaml_keys_init(&k, what, cylinder_keys, 3, MRDEM_YAML_ALL(3));
	if (mrdem_yaml_map_begin(&L->y, &k))
		return -1;
	while ((r = mrdem_yaml_map_next(&L->y, &k, &id)) > 0) {
		if (id == 0 && (mrdem_yaml_number(&L->y, k.cur, &sp->radius) ||
				mrdem_yaml_positive(&L->y, k.cur, sp->radius)))
			return -1;
		if (id == 1 && (mrdem_yaml_number(&L->y, k.cur, &sp->height) ||
				mrdem_yaml_positive(&L->y, k.cur, sp->height)))
			return -1;
		if (id == 2 && (mrdem_yaml_int_range(&L->y, k.cur, 3, MRDEM_CYLINDER_MAX_SEGMENTS,
								 &sp->segments) ||
				plan_triangles(L, k.cur, 4 * (uint64_t)sp->segments)))
			return -1;
	}
	if (r < 0 || mrdem_yaml_require(&L->y, &k, 0) || mrdem_yaml_require(&L->y, &k, 1))
		return -1;
	return 0;
}

static int parse_plane_shape(struct loader *L, const char *what, struct shape_spec *sp)
{
	struct mrdem_yaml_keys k;
	int id, r;
	mrdem_yaml_keys_init(&k, what, plane_keys, 3, MRDEM_YAML_ALL(3));
	if (mrdem_yaml_map_begin(&L->y, &k))
		return -1;
	while ((r = mrdem_yaml_map_next(&L->y, &k, &id)) > 0) {
		if (id == 0 && mrdem_yaml_vec(&L->y, k.cur, sp->size, 2, MRDEM_YAML_POSITIVE))
			return -1;
		if (id == 1 && (mrdem_yaml_ints(&L->y, k.cur, sp->div, 2, 1, 1 << 16) ||
				plan_triangles(L, k.cur, 2 * (uint64_t)(sp->div[0] * sp->div[1]))))
			return -1;
		if (id == 2 && mrdem_yaml_number(&L->y, k.cur, &sp->tilt))
			return -1;
		if (id == 2 && !(fabs(sp->tilt) <= MRDEM_PLANE_MAX_TILT))
			return mrdem_yaml_err(&L->y, "%s: must be an angle in degrees from %d to %d, got %s",
					      k.cur, -MRDEM_PLANE_MAX_TILT, MRDEM_PLANE_MAX_TILT,
					      mrdem_yaml_text(&L->y));
	}
	if (r < 0 || mrdem_yaml_require(&L->y, &k, 0))
		return -1;
	return 0;
}

/* analytic-sphere: {radius: R} */
static int parse_analytic_sphere(struct loader *L, const char *what, struct shape_spec *sp)
{
	struct mrdem_yaml_keys k;
	int id, r;
	mrdem_yaml_keys_init(&k, what, analytic_sphere_keys, 1, MRDEM_YAML_ALL(1));
	if (mrdem_yaml_map_begin(&L->y, &k))
		return -1;
	while ((r = mrdem_yaml_map_next(&L->y, &k, &id)) > 0)
		if (mrdem_yaml_number(&L->y, k.cur, &sp->axes[0]) ||
		    mrdem_yaml_positive(&L->y, k.cur, sp->axes[0]))
			return -1;
	if (r < 0 || mrdem_yaml_require(&L->y, &k, 0))
		return -1;
	if (sp->axes[0] > MRDEM_ANALYTIC_AXIS_MAX)
		return mrdem_yaml_err_at(&L->y, k.key[0], "%s.radius: %g is larger than %g", what,
					 sp->axes[0], MRDEM_ANALYTIC_AXIS_MAX);
	sp->axes[1] = sp->axes[2] = sp->axes[0];
	return 0;
}

/* ellipsoid: {axes: [a, b, c]} */
static int parse_ellipsoid(struct loader *L, const char *what, struct shape_spec *sp)
{
	struct mrdem_yaml_keys k;
	int id, r;
	mrdem_yaml_keys_init(&k, what, ellipsoid_keys, 1, MRDEM_YAML_ALL(1));
	if (mrdem_yaml_map_begin(&L->y, &k))
		return -1;
	while ((r = mrdem_yaml_map_next(&L->y, &k, &id)) > 0)
		if (mrdem_yaml_vec(&L->y, k.cur, sp->axes, 3, MRDEM_YAML_POSITIVE))
			return -1;
	if (r < 0 || mrdem_yaml_require(&L->y, &k, 0))
		return -1;
	for (int a = 0; a < 3; a++)
		if (sp->axes[a] > MRDEM_ANALYTIC_AXIS_MAX)
			return mrdem_yaml_err_at(&L->y, k.key[0], "%s.axes: %g is larger than %g",
						 what, sp->axes[a], MRDEM_ANALYTIC_AXIS_MAX);
	return 0;
}

/* A list of points of dim coordinates each ([x, y, z] or [r, z]) into
 * *pts (dim * *n values). */
static int parse_points(struct loader *L, const char *what, int dim, double **pts, size_t *n)
{
	if (mrdem_yaml_type(&L->y) != YAML_SEQUENCE_START_EVENT)
		return mrdem_yaml_err_type(&L->y, what, dim == 3 ? "a list of points [x, y, z]" :
								   "a list of points [r, z]");
	size_t cap = 0;
	for (;;) {
		if (mrdem_yaml_next(&L->y))
			return -1;
		if (mrdem_yaml_type(&L->y) == YAML_SEQUENCE_END_EVENT)
			return 0;
		char el[300];
		snprintf(el, sizeof el, "%s[%zu]", what, *n);
		if (*n == cap)
			*pts = mrdem_xrealloc(*pts, dim * (cap = cap ? 2 * cap : 16) * sizeof **pts);
		if (mrdem_yaml_vec(&L->y, el, &(*pts)[dim * *n], dim, MRDEM_YAML_ANY))
			return -1;
		(*n)++;
	}
}

/* revolve: {profile: [[r, z], ...], segments: N, divisions: D} */
static int parse_revolve(struct loader *L, const char *what, struct shape_spec *sp)
{
	struct mrdem_yaml_keys k;
	int id, r;
	sp->segments = 64;
	mrdem_yaml_keys_init(&k, what, revolve_keys, 3, MRDEM_YAML_ALL(3));
	if (mrdem_yaml_map_begin(&L->y, &k))
		return -1;
	while ((r = mrdem_yaml_map_next(&L->y, &k, &id)) > 0) {
		if (id == 0 && parse_points(L, k.cur, 2, &sp->points, &sp->npoints))
			return -1;
		if (id == 1 && mrdem_yaml_int_range(&L->y, k.cur, 3, MRDEM_CYLINDER_MAX_SEGMENTS,
						    &sp->segments))
			return -1;
		if (id == 2 && mrdem_yaml_int_range(&L->y, k.cur, 1, MRDEM_REVOLVE_MAX_DIVISIONS,
						    &sp->div[0]))
			return -1;
	}
	if (r < 0 || mrdem_yaml_require(&L->y, &k, 0))
		return -1;
	if (sp->npoints < 2)
		return mrdem_yaml_err_at(&L->y, k.key[0], "%s.profile: needs at least 2 points [r, z], "
					 "got %zu", what, sp->npoints);
	return plan_triangles(L, what, 2 * (uint64_t)sp->segments * (sp->npoints - 1) *
				       (uint64_t)sp->div[0]);
}

/* convex: {mesh: FILE} or {points: [[x, y, z], ...]} */
static int parse_convex(struct loader *L, const char *what, struct shape_spec *sp)
{
	struct mrdem_yaml_keys k;
	int id, r;
	mrdem_yaml_keys_init(&k, what, convex_keys, 2, MRDEM_YAML_ALL(2));
	if (mrdem_yaml_map_begin(&L->y, &k))
		return -1;
	while ((r = mrdem_yaml_map_next(&L->y, &k, &id)) > 0) {
		if (mrdem_yaml_exclusive(&L->y, &k, 0, 1) || mrdem_yaml_exclusive(&L->y, &k, 1, 0))
			return -1;
		if (id == 0 && mrdem_yaml_string(&L->y, k.cur, &sp->file))
			return -1;
		if (id == 1 && parse_points(L, k.cur, 3, &sp->points, &sp->npoints))
			return -1;
	}
	if (r < 0)
		return -1;
	if (!k.seen)
		return mrdem_yaml_err_at(&L->y, k.map, "%s: give the polyhedron as 'mesh' (a file) "
					 "or as 'points'", what);
	return 0;
}

/* A mesh file relative to the scene's directory unless absolute. */
static char *resolve_path(const struct loader *L, const char *file)
{
	if (file[0] == '/' || !L->dir[0])
		return mrdem_xstrdup(file);
	size_t n = strlen(L->dir) + strlen(file) + 1;
	char *p = mrdem_xmalloc(n);
	snprintf(p, n, "%s%s", L->dir, file);
	return p;
}

/* A mesh file's name for messages: as given, and as resolved when that
 * differs (relative to the scene's directory). */
static const char *file_names(char *buf, size_t n, const char *file, const char *path)
{
	if (strcmp(file, path))
		snprintf(buf, n, "'%s' (resolved against the scene's directory: '%s')", file,
			 path);
	else
		snprintf(buf, n, "'%s'", file);
	return buf;
}

/* A mesh file must exist and be a regular file: open() of a FIFO waits for
 * a writer, maybe forever, and a directory or device holds no mesh. */
static int check_mesh_file(const struct loader *L, yaml_mark_t at, const char *what,
			   const char *file, const char *path)
{
	struct stat st;
	char names[2 * PATH_MAX + 64];
	file_names(names, sizeof names, file, path);
	if (stat(path, &st))
		return mrdem_yaml_err_at(&L->y, at, "%s: mesh file %s: %s", what, names,
					 strerror(errno));
	if (S_ISREG(st.st_mode))
		return 0;
	const char *kind = S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISDIR(st.st_mode) ? "a directory" :
			   S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" :
			   S_ISSOCK(st.st_mode) ? "a socket" : "not a file";
	return mrdem_yaml_err_at(&L->y, at, "%s: mesh file %s is %s, not a regular file", what,
				 names, kind);
}

static const char *const shape_keys[] = {"sphere", "box", "cylinder", "plane", "mesh", "open",
					 "shape", "analytic-sphere", "ellipsoid", "convex",
					 "revolve"};
enum {
	SH_SPHERE, SH_BOX, SH_CYLINDER, SH_PLANE, SH_MESH, SH_OPEN, SH_SELECT,
	SH_ANALYTIC_SPHERE, SH_ELLIPSOID, SH_CONVEX, SH_REVOLVE, SH_N
};

/* A convex shape's mesh: the hull of its points, or of the vertices of its
 * mesh file; a closed mesh that is not convex is replaced by its hull,
 * with a warning giving both volumes. */
static int build_convex(const struct loader *L, const struct mrdem_yaml_keys *k,
			const struct shape_spec *sp, struct mrdem_mesh *m)
{
	char what[400];
	int rc;
	if (!sp->file) {
		snprintf(what, sizeof what, "%s.convex.points", k->what);
		rc = mrdem_hull(sp->points, sp->npoints, what, m);
		return rc ? mrdem_yaml_err_at(&L->y, k->val[SH_CONVEX], "%s: no convex polyhedron",
					      what) : 0;
	}
	struct mrdem_mesh in;
	struct mrdem_tree *tree = NULL;
	char *path = resolve_path(L, sp->file), *name = NULL, names[2 * PATH_MAX + 64];
	snprintf(what, sizeof what, "%s.convex.mesh '%s'", k->what, sp->file);
	if (check_mesh_file(L, k->val[SH_CONVEX], k->what, sp->file, path)) {
		free(path);
		return -1;
	}
	rc = mrdem_shape_load(path, NULL, MRDEM_MESH_ALLOW_OPEN, &in, &name, &tree);
	file_names(names, sizeof names, sp->file, path);
	free(name);
	free(path);
	mrdem_tree_free(tree); /* of the mesh, not of its hull */
	if (rc)
		return mrdem_yaml_err_at(&L->y, k->val[SH_CONVEX], "%s: cannot load mesh file %s",
					 k->what, names);
	rc = mrdem_hull(in.verts, in.nverts, what, m);
	if (rc == 0 && !in.open && m->mass.volume > in.mass.volume * (1 + 1e-9))
		mrdem_warning("%s is not convex (volume %.9g, its hull's %.9g): the shape is its "
			      "hull", what, in.mass.volume, m->mass.volume);
	mrdem_mesh_release(&in);
	return rc ? mrdem_yaml_err_at(&L->y, k->val[SH_CONVEX], "%s: no convex polyhedron",
				      what) : 0;
}

/* The shape's mesh, and for a mesh stream the tree stored with it (*tree,
 * else NULL) and where it came from (*origin). */
static int build_mesh(const struct loader *L, const struct mrdem_yaml_keys *k,
		      const struct shape_spec *sp, struct mrdem_mesh *m, struct mrdem_tree **tree,
		      char **origin)
{
	int rc;
	*tree = NULL;
	*origin = NULL;
	switch (sp->kind) {
	case SH_SPHERE:
		rc = mrdem_mesh_sphere(m, &sp->sphere);
		break;
	case SH_BOX:
		rc = mrdem_mesh_box(m, sp->size, (unsigned)sp->div[0]);
		break;
	case SH_CYLINDER:
		rc = mrdem_mesh_cylinder(m, sp->radius, sp->height, (unsigned)sp->segments);
		break;
	case SH_PLANE:
		rc = mrdem_mesh_plane(m, sp->size[0], sp->size[1], (unsigned)sp->div[0],
				      (unsigned)sp->div[1], sp->tilt);
		break;
	case SH_REVOLVE:
		rc = mrdem_mesh_revolve(m, sp->points, sp->npoints, (unsigned)sp->segments,
					(unsigned)sp->div[0]);
		break;
	case SH_CONVEX:
		return build_convex(L, k, sp, m);
	default: {
		/* A file: loaded and validated by formats/mesh_files. */
		char *path = resolve_path(L, sp->file);
		char *name = NULL, names[2 * PATH_MAX + 64];
		if (check_mesh_file(L, k->val[SH_MESH], k->what, sp->file, path)) {
			free(path);
			return -1;
		}
		rc = mrdem_shape_load(path, sp->select, sp->open ? MRDEM_MESH_ALLOW_OPEN : 0, m,
				      &name, tree);
		if (rc == 0 && *tree) {
			size_t n = strlen(path) + strlen(name) + 32;
			*origin = mrdem_xmalloc(n);
			snprintf(*origin, n, "%s (tree record of shape %s)", path, name);
		}
		file_names(names, sizeof names, sp->file, path);
		free(name);
		free(path);
		if (rc)
			return mrdem_yaml_err_at(&L->y, k->val[SH_MESH],
						 "%s: cannot load mesh file %s", k->what, names);
		break;
	}
	}
	if (rc)
		return mrdem_yaml_err_at(&L->y, k->key[sp->kind], "%s: cannot generate the %s",
					 k->what, shape_keys[sp->kind]);
	if (sp->kind != SH_MESH &&
	    mrdem_mesh_validate(m, sp->kind == SH_PLANE || (sp->kind == SH_REVOLVE && m->open) ?
					   MRDEM_MESH_ALLOW_OPEN : 0, k->what))
		return mrdem_yaml_err_at(&L->y, k->key[sp->kind],
					 "%s: the generated %s is not a valid mesh", k->what,
					 shape_keys[sp->kind]);
	if (m->open)
		memset(&m->mass, 0, sizeof m->mass); /* no volume; its origin is the reference point */
	return 0;
}

static void shape_spec_release(struct shape_spec *sp)
{
	free(sp->file);
	free(sp->select);
	free(sp->points);
}

/* Read a shape's mapping into sp (keys into k): exactly one generator or
 * file, 'open' and 'shape' only with a mesh file. On -1 the caller
 * releases sp. */
static int read_shape_spec(struct loader *L, const char *what, struct mrdem_yaml_keys *k,
			   struct shape_spec *sp)
{
	int id, r;
	memset(sp, 0, sizeof *sp);
	sp->kind = -1;
	mrdem_sphere_opts_default(&sp->sphere);
	sp->div[0] = sp->div[1] = 1;
	sp->segments = 32;
	mrdem_yaml_keys_init(k, what, shape_keys, SH_N, MRDEM_YAML_ALL(SH_N));
	if (mrdem_yaml_map_begin(&L->y, k))
		return -1;
	while ((r = mrdem_yaml_map_next(&L->y, k, &id)) > 0) {
		if (id != SH_OPEN && id != SH_SELECT && sp->kind >= 0)
			return mrdem_yaml_err_at(&L->y, k->key[id],
						 "%s: give one of sphere, box, cylinder, plane, "
						 "revolve, mesh, analytic-sphere, ellipsoid or convex, "
						 "not both "
						 "'%s' and '%s'",
						 what, shape_keys[sp->kind], shape_keys[id]);
		if (id != SH_OPEN && id != SH_SELECT)
			sp->kind = id;
		switch (id) {
		case SH_SPHERE:
			r = parse_sphere(L, k->cur, &sp->sphere);
			break;
		case SH_BOX:
			r = parse_box(L, k->cur, sp);
			break;
		case SH_CYLINDER:
			r = parse_cylinder(L, k->cur, sp);
			break;
		case SH_PLANE:
			r = parse_plane_shape(L, k->cur, sp);
			break;
		case SH_MESH:
			r = mrdem_yaml_string(&L->y, k->cur, &sp->file);
			break;
		case SH_OPEN:
			r = mrdem_yaml_bool(&L->y, k->cur, &sp->open);
			break;
		case SH_SELECT:
			r = mrdem_yaml_string(&L->y, k->cur, &sp->select);
			break;
		case SH_ANALYTIC_SPHERE:
			r = parse_analytic_sphere(L, k->cur, sp);
			break;
		case SH_ELLIPSOID:
			r = parse_ellipsoid(L, k->cur, sp);
			break;
		case SH_CONVEX:
			r = parse_convex(L, k->cur, sp);
			break;
		case SH_REVOLVE:
			r = parse_revolve(L, k->cur, sp);
			break;
		}
		if (r < 0)
			return -1;
	}
	if (r == 0 && sp->kind < 0)
		r = mrdem_yaml_err_at(&L->y, k->map,
				      "%s: missing the shape: give one of sphere, box, cylinder, "
				      "plane, revolve, mesh, analytic-sphere, ellipsoid or convex",
				      what);
	if (r == 0 && (k->seen & BIT(SH_OPEN)) && sp->kind != SH_MESH)
		r = mrdem_yaml_err_at(&L->y, k->key[SH_OPEN],
				      "%s: 'open' applies to mesh files only (a plane is "
				      "always open, a revolve open unless its profile "
				      "starts and ends on the axis, the other generators "
				      "always closed)",
				      what);
	if (r == 0 && (k->seen & BIT(SH_SELECT)) && sp->kind != SH_MESH)
		r = mrdem_yaml_err_at(&L->y, k->key[SH_SELECT],
				      "%s: 'shape' picks a shape of a mesh stream "
				      "given by 'mesh'",
				      what);
	return r;
}

/* Shape i's diameter and the line of its name, for later checks. */
static void note_shape(struct loader *L, uint32_t i, double diameter, yaml_mark_t name_mark)
{
	struct mrdem_scene *s = L->s;
	L->diameter = mrdem_xrealloc(L->diameter, s->nshapes * sizeof *L->diameter);
	L->shape_line = mrdem_xrealloc(L->shape_line, s->nshapes * sizeof *L->shape_line);
	L->diameter[i] = diameter;
	L->shape_line[i] = name_mark.line + 1;
}

/* Build sp's mesh (and tree, when its file has one) and add it as a shape;
 * releases sp. */
static int add_mesh_shape(struct loader *L, const struct mrdem_yaml_keys *k,
			  struct shape_spec *sp, char *name, yaml_mark_t name_mark)
{
	struct mrdem_scene *s = L->s;
	struct mrdem_mesh m;
	struct mrdem_tree *tree = NULL;
	char *origin = NULL;
	mrdem_mesh_init(&m);
	int r = build_mesh(L, k, sp, &m, &tree, &origin);
	shape_spec_release(sp);
	if (r) {
		mrdem_mesh_release(&m);
		mrdem_tree_free(tree);
		free(origin);
		return -1;
	}
	double zero[3] = {0, 0, 0};
	uint32_t i = mrdem_scene_add_shape(s, name, &m);
	if (sp->kind == SH_CONVEX && mrdem_scene_make_convex(s, i, k->what))
		return mrdem_yaml_err_at(&L->y, k->key[SH_CONVEX], "%s: the hull is not a valid "
					 "convex polyhedron", k->what);
	s->shapes[i].tree = tree;
	s->shapes[i].tree_origin = origin;
	const struct mrdem_mesh *sm = &s->shapes[i].mesh;
	note_shape(L, i, 2 * mrdem_mesh_radius_about(sm, sm->open ? zero : sm->mass.com),
		   name_mark);
	return 0;
}

static int parse_shape(struct loader *L, char *name, yaml_mark_t name_mark)
{
	char what[300];
	struct mrdem_yaml_keys k;
	struct shape_spec sp;
	snprintf(what, sizeof what, "shapes.%s", name);
	if (read_shape_spec(L, what, &k, &sp) < 0) {
		shape_spec_release(&sp);
		return -1;
	}
	if (sp.kind == SH_ANALYTIC_SPHERE || sp.kind == SH_ELLIPSOID) {
		uint32_t i = mrdem_scene_add_analytic(L->s, name, sp.kind == SH_ELLIPSOID ?
							    MRDEM_SHAPE_ELLIPSOID :
							    MRDEM_SHAPE_SPHERE, sp.axes);
		note_shape(L, i, 2 * mrdem_analytic_bound_radius(sp.axes), name_mark);
		return 0;
	}
	return add_mesh_shape(L, &k, &sp, name, name_mark);
}

static int parse_shapes(struct loader *L)
{
	if (mrdem_yaml_type(&L->y) != YAML_MAPPING_START_EVENT)
		return mrdem_yaml_err_type(&L->y, "shapes", "a mapping of shape names to shapes");
	for (;;) {
		if (mrdem_yaml_next(&L->y))
			return -1;
		if (mrdem_yaml_type(&L->y) == YAML_MAPPING_END_EVENT)
			return 0;
		char *name;
		yaml_mark_t mark = mrdem_yaml_mark(&L->y);
		if (mrdem_yaml_type(&L->y) != YAML_SCALAR_EVENT)
			return mrdem_yaml_err_type(&L->y, "shapes", "a shape name");
		if (mrdem_yaml_string(&L->y, "shapes", &name))
			return -1;
		long prev = mrdem_scene_find_shape(L->s, name);
		if (prev >= 0) {
			mrdem_yaml_err(&L->y, "shapes: duplicate shape '%s' (first at line %zu)",
				       name, L->shape_line[prev]);
			free(name);
			return -1;
		}
		int rc = mrdem_yaml_next(&L->y) ? -1 : parse_shape(L, name, mark);
		free(name);
		if (rc)
			return -1;
	}
}

/* ---- parameters */

/* Enum names: the one table of each, in common/scene/scene.h. */
static const char *const contact_keys[] = {
	"epsilon", "epsilon_abs", "stiffness", "model", "damping", "friction", "plane_epsilon",
	"broad", "restitution", "young", "poisson", "tangential", "rolling_friction",
	"twisting_friction", "allow_overlap"};
enum {
	C_EPS, C_EPS_ABS, C_STIFFNESS, C_MODEL, C_DAMPING, C_FRICTION, C_PLANE_EPS, C_BROAD,
	C_RESTITUTION, C_YOUNG, C_POISSON, C_TANGENTIAL, C_ROLLING, C_TWISTING, C_ALLOW_OVERLAP, C_N
};

/* Keys that only some models read: giving one to another model is an
 * error, never silently ignored. */
static int check_model_keys(struct loader *L, const struct mrdem_yaml_keys *k)
{
	static const struct {
		int key;
		unsigned models; /* bit per enum mrdem_force_model */
	} only[] = {
		{C_DAMPING, 1u << MRDEM_FORCE_SPRING_DASHPOT},
		{C_RESTITUTION, 1u << MRDEM_FORCE_HOOKE | 1u << MRDEM_FORCE_HERTZ},
		{C_ROLLING, 1u << MRDEM_FORCE_HOOKE | 1u << MRDEM_FORCE_HERTZ},
		{C_TWISTING, 1u << MRDEM_FORCE_HOOKE | 1u << MRDEM_FORCE_HERTZ},
		{C_TANGENTIAL, 1u << MRDEM_FORCE_HOOKE},
		{C_YOUNG, 1u << MRDEM_FORCE_HERTZ},
		{C_POISSON, 1u << MRDEM_FORCE_HERTZ},
		{C_STIFFNESS, 1u << MRDEM_FORCE_SPRING | 1u << MRDEM_FORCE_SPRING_DASHPOT |
				      1u << MRDEM_FORCE_HOOKE},
	};
	const struct mrdem_setup *st = &L->s->setup;
	for (size_t i = 0; i < sizeof only / sizeof only[0]; i++) {
		if (!(k->seen & BIT(only[i].key)) || (only[i].models & 1u << st->force_model))
			continue;
		char list[128] = "";
		size_t len = 0;
		for (int m = 0; m < MRDEM_NFORCE_MODELS; m++)
			if (only[i].models & 1u << m)
				len += snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "",
						mrdem_force_model_name(m));
		return mrdem_yaml_err_at(&L->y, k->key[only[i].key],
					 "contact: %s applies to model: %s, not %s",
					 contact_keys[only[i].key], list,
					 mrdem_force_model_name(st->force_model));
	}
	/* material parameters have no sensible default: say which are missing */
	static const struct {
		int model, key;
		const char *what;
	} need[] = {
		{MRDEM_FORCE_HOOKE, C_STIFFNESS, "stiffness (kn, N/m)"},
		{MRDEM_FORCE_HOOKE, C_RESTITUTION, "restitution (0 < e <= 1)"},
		{MRDEM_FORCE_HERTZ, C_YOUNG, "young (Young's modulus, Pa)"},
		{MRDEM_FORCE_HERTZ, C_RESTITUTION, "restitution (0 < e <= 1)"},
	};
	for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
		if (st->force_model == need[i].model && !(k->seen & BIT(need[i].key)))
			return mrdem_yaml_err(&L->y, "contact: model %s%s needs %s",
					      mrdem_force_model_name(st->force_model),
					      k->seen & BIT(C_MODEL) ? "" : " (the default)",
					      need[i].what);
	if (MRDEM_FORCE_MODEL_HAS_SPRINGS(st->force_model)) {
		const char *bad = mrdem_contact_model_invalid(st);
		if (bad)
			return mrdem_yaml_err(&L->y, "contact: %s", bad);
	}
	return 0;
}

static int parse_contact(struct loader *L)
{
	struct mrdem_setup *st = &L->s->setup;
	struct mrdem_yaml_keys k;
	int id, r;
	double x;
	mrdem_yaml_keys_init(&k, "contact", contact_keys, C_N, MRDEM_YAML_ALL(C_N));
	if (mrdem_yaml_map_begin(&L->y, &k))
		return -1;
	while ((r = mrdem_yaml_map_next(&L->y, &k, &id)) > 0) {
		if (id == C_MODEL) {
			/* "spring", the paper model's old name, stays valid */
			if (mrdem_yaml_is(&L->y, "spring")) {
				st->force_model = MRDEM_FORCE_SPRING;
				continue;
			}
			if (mrdem_yaml_enum(&L->y, k.cur, mrdem_force_model_names, MRDEM_NFORCE_MODELS, &st->force_model))
				return -1;
			continue;
		}
		if (id == C_BROAD) {
			if (mrdem_yaml_enum(&L->y, k.cur, mrdem_broad_method_names,
					    MRDEM_BROAD_NMETHODS, &st->broad))
				return -1;
			continue;
		}
		if (id == C_ALLOW_OVERLAP) {
			if (mrdem_yaml_bool(&L->y, k.cur, &st->allow_overlap))
				return -1;
			continue;
		}
		if (mrdem_yaml_number(&L->y, k.cur, &x))
			return -1;
		int nonneg = id == C_DAMPING || id == C_FRICTION || id == C_TANGENTIAL ||
			     id == C_ROLLING || id == C_TWISTING;
		if (id == C_POISSON) {
			if (!(x > -1 && x < 0.5))
				return mrdem_yaml_err(&L->y, "%s: must be in (-1, 0.5), got %s", k.cur,
						      mrdem_yaml_text(&L->y));
		} else if (id == C_RESTITUTION) {
			if (!(x > 0 && x <= 1))
				return mrdem_yaml_err(&L->y, "%s: must be in (0, 1], got %s", k.cur,
						      mrdem_yaml_text(&L->y));
		} else if (nonneg ? mrdem_yaml_nonnegative(&L->y, k.cur, x)
				  : mrdem_yaml_positive(&L->y, k.cur, x)) {
			return -1;
		}
		switch (id) {
		case C_EPS:
		case C_EPS_ABS:
			L->eps_default = x;
			L->eps_default_abs = id == C_EPS_ABS;
			break;
		case C_STIFFNESS: st->stiffness = x; break;
		case C_DAMPING: st->damping = x; break;
		case C_FRICTION: st->friction = x; break;
		case C_PLANE_EPS: st->plane_epsilon = x; break;
		case C_RESTITUTION: st->restitution = x; break;
		case C_YOUNG: st->young = x; break;
		case C_POISSON: st->poisson = x; break;
		case C_TANGENTIAL: st->tangential = x; break;
		case C_ROLLING: st->rolling_friction = x; break;
		case C_TWISTING: st->twisting_friction = x; break;
		}
	}
	if (r < 0 || mrdem_yaml_exclusive(&L->y, &k, C_EPS, C_EPS_ABS))
		return -1;
	return check_model_keys(L, &k);
}

static const char *const time_keys[] = {"dt", "steps", "scheme"};

static int parse_time(struct loader *L)
{
	struct mrdem_setup *st = &L->s->setup;
	struct mrdem_yaml_keys k;
	int id, r;
	mrdem_yaml_keys_init(&k, "time", time_keys, 3, MRDEM_YAML_ALL(3));
	if (mrdem_yaml_map_begin(&L->y, &k))
		return -1;
	while ((r = mrdem_yaml_map_next(&L->y, &k, &id)) > 0) {
		if (id == 0 && (mrdem_yaml_number(&L->y, k.cur, &st->dt) ||
				mrdem_yaml_positive(&L->y, k.cur, st->dt)))
			return -1;
		if (id == 1 && mrdem_yaml_u64(&L->y, k.cur, &st->steps))
			return -1;
		if (id == 2 && mrdem_yaml_enum(&L->y, k.cur, mrdem_scheme_names, MRDEM_NSCHEMES, &st->scheme))
			return -1;
	}
	return r;
}

static const char *const output_keys[] = {"every"};

static int parse_output(struct loader *L)
{
	struct mrdem_yaml_keys k;
	int id, r;
	mrdem_yaml_keys_init(&k, "output", output_keys, 1, MRDEM_YAML_ALL(1));
	if (mrdem_yaml_map_begin(&L->y, &k))
		return -1;
	while ((r = mrdem_yaml_map_next(&L->y, &k, &id)) > 0) {
		if (mrdem_yaml_u64(&L->y, k.cur, &L->s->setup.output_every))
			return -1;
		if (L->s->setup.output_every == 0)
			return mrdem_yaml_err(&L->y, "%s: must be positive, got 0", k.cur);
	}
	return r;
}

static const char *const plane_keys_analytic[] = {"point", "normal", "material", "motion"};

static int parse_planes(struct loader *L)
{
	struct mrdem_setup *st = &L->s->setup;
	char what[64];
	if (mrdem_yaml_type(&L->y) != YAML_SEQUENCE_START_EVENT)
		return mrdem_yaml_err_type(&L->y, "planes", "a list of planes");
	for (;;) {
		struct mrdem_yaml_keys k;
		struct mrdem_plane pl = {{0, 0, 0}, {0, 0, 0}, 0, {0, 0, 0}, {0, 0, 0}};
		struct mrdem_motion m = {0};
		int id, r;
		if (mrdem_yaml_next(&L->y))
			return -1;
		if (mrdem_yaml_type(&L->y) == YAML_SEQUENCE_END_EVENT)
			return 0;
		snprintf(what, sizeof what, "planes[%" PRIu32 "]", st->nplanes);
		mrdem_yaml_keys_init(&k, what, plane_keys_analytic, 4, MRDEM_YAML_ALL(4));
		if (mrdem_yaml_map_begin(&L->y, &k))
			return -1;
		while ((r = mrdem_yaml_map_next(&L->y, &k, &id)) > 0) {
			if (id == 0 && mrdem_yaml_vec(&L->y, k.cur, pl.point, 3, MRDEM_YAML_ANY))
				return -1;
			if (id == 1 && mrdem_yaml_vec(&L->y, k.cur, pl.normal, 3, MRDEM_YAML_ANY))
				return -1;
			if (id == 2 && mrdem_yaml_material_ref(&L->y, &L->mat, k.cur, &pl.material))
				return -1;
			if (id == 3 && mrdem_yaml_motion(&L->y, k.cur, &m))
				return -1;
		}
		L->mat.unnamed |= !pl.material;
		if (r < 0 || mrdem_yaml_require(&L->y, &k, 0) || mrdem_yaml_require(&L->y, &k, 1))
			return -1;
		double *n = pl.normal;
		double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
		/* Components near the ends of the double range over- or underflow
		 * the length: scale by the largest first (only then, so ordinary
		 * normals keep their bits). */
		double big = fmax(fabs(n[0]), fmax(fabs(n[1]), fabs(n[2])));
		if (big > 0 && !(len > 0 && isfinite(len))) {
			for (int i = 0; i < 3; i++)
				n[i] /= big;
			len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
		}
		if (!(len > 0))
			return mrdem_yaml_err_at(&L->y, k.val[1],
						 "%s.normal: the zero vector has no direction",
						 what);
		for (int i = 0; i < 3; i++)
			n[i] /= len;
		if (st->nplanes >= UINT32_MAX / 2)
			return mrdem_yaml_err(&L->y, "planes: too many planes");
		st->planes = mrdem_xrealloc(st->planes, (st->nplanes + 1) * sizeof *st->planes);
		L->plane_mark = mrdem_xrealloc(L->plane_mark,
					       (st->nplanes + 1) * sizeof *L->plane_mark);
		L->plane_mark[st->nplanes] = k.map;
		if (mrdem_yaml_has(&k, 3)) {
			m.target = MRDEM_PLANE_ID(st->nplanes);
			memcpy(m.ref_pos, pl.point, sizeof pl.point);
			memcpy(m.ref_normal, pl.normal, sizeof pl.normal);
			quat_identity(m.ref_quat);
			mrdem_motion_add(st, &m);
		}
		st->planes[st->nplanes++] = pl;
	}
}

/* ---- particles
 *
 * An item (a particle or a lattice) is checked and stored as it is read.
 * What depends on its shape or on the contact defaults is resolved by
 * finish_item as soon as those are known: at once when they came earlier
 * in the file, else after the document from a compact record (struct
 * pending) kept for the item. */

static const char *const pkey_names[] = {
	"shape", "position", "velocity", "orientation", "angular_velocity", "density", "mass",
	"epsilon", "epsilon_abs", "fixed", "lattice", "origin", "count", "spacing", "jitter",
	"rotate", "seed", "material", "scale", "motion",
};
enum {
	P_SHAPE, P_POSITION, P_VELOCITY, P_ORIENTATION, P_ANGVEL, P_DENSITY, P_MASS, P_EPS,
	P_EPS_ABS, P_FIXED, P_LATTICE, P_ORIGIN, P_COUNT, P_SPACING, P_JITTER, P_ROTATE, P_SEED,
	P_MATERIAL, P_SCALE, P_MOTION, P_N
};
#define P_COMMON (BIT(P_SHAPE) | BIT(P_VELOCITY) | BIT(P_ORIENTATION) | BIT(P_ANGVEL) | \
		  BIT(P_DENSITY) | BIT(P_MASS) | BIT(P_EPS) | BIT(P_EPS_ABS) | BIT(P_FIXED) | \
		  BIT(P_MATERIAL) | BIT(P_SCALE) | BIT(P_MOTION))
#define P_PARTICLE (P_COMMON | BIT(P_POSITION))
#define P_LATTICE_KEYS (P_COMMON | BIT(P_ORIGIN) | BIT(P_COUNT) | BIT(P_SPACING) | \
			BIT(P_JITTER) | BIT(P_ROTATE) | BIT(P_SEED))

/* One particle or one lattice of identical particles, as written. */
struct pspec {
	struct mrdem_yaml_keys k;
	uint32_t shape;         /* shape index, or forward name index when late */
	int late;               /* the shape is defined further down (or not at all) */
	double pos[3], vel[3], quat[4], angvel[3];
	double density, mass, eps;
	double scale;           /* of the shape (common/scene/scaled_shape.h), 1 = as defined */
	int fixed, rotate;
	double spacing[3], jitter;
	long long count[3];
	uint64_t seed;
	uint32_t material;      /* reference (struct mrdem_yaml_materials), 0: none */
	struct mrdem_motion motion; /* when P_MOTION was given */
};

/* The shape of this name defined in the file, or -1: the scaled shapes
 * that items make ("rock*2") are no names to use. */
static long find_own_shape(const struct mrdem_scene *s, const char *name)
{
	long i = mrdem_scene_find_shape(s, name);
	return i >= 0 && mrdem_shape_is_scaled(&s->shapes[i]) ? -1 : i;
}

/* "unknown shape", listing the shapes defined. */
static int unknown_shape(const struct loader *L, yaml_mark_t m, const char *what, const char *name)
{
	const struct mrdem_scene *s = L->s;
	char list[512] = "";
	size_t len = 0;
	for (uint32_t j = 0; j < s->nshapes; j++)
		if (!mrdem_shape_is_scaled(&s->shapes[j]))
			len += snprintf(list + len, len < sizeof list ? sizeof list - len : 0,
					"%s%s", j ? ", " : "", s->shapes[j].name);
	if (!s->nshapes)
		return mrdem_yaml_err_at(&L->y, m,
					 "%s: unknown shape '%s' (the scene defines no "
					 "shapes)",
					 what, name);
	return mrdem_yaml_err_at(&L->y, m, "%s: unknown shape '%s' (defined: %s)", what, name,
				 list);
}

/* A shape name, resolved now or, before the shapes are read, remembered as
 * a forward reference. */
static int parse_shape_ref(struct loader *L, const char *what, struct pspec *p)
{
	const struct mrdem_scene *s = L->s;
	const char *name = mrdem_yaml_text(&L->y);
	if (mrdem_yaml_type(&L->y) != YAML_SCALAR_EVENT || !*name)
		return mrdem_yaml_err_type(&L->y, what, "a shape name");
	long i = find_own_shape(s, name);
	p->late = i < 0 && !L->shapes_read;
	if (i >= 0) {
		p->shape = (uint32_t)i;
		return 0;
	}
	if (L->shapes_read)
		return unknown_shape(L, mrdem_yaml_mark(&L->y), what, name);
	for (i = 0; (size_t)i < L->nfwd && strcmp(L->fwd[i], name); i++)
		;
	if ((size_t)i == L->nfwd) {
		L->fwd = mrdem_xrealloc(L->fwd, (L->nfwd + 1) * sizeof *L->fwd);
		L->fwd[L->nfwd++] = mrdem_xstrdup(name);
	}
	p->shape = (uint32_t)i;
	return 0;
}

static int parse_pfield(struct loader *L, struct pspec *p, int id)
{
	struct mrdem_yaml *y = &L->y;
	const char *w = p->k.cur;
	switch (id) {
	case P_SHAPE:
		return parse_shape_ref(L, w, p);
	case P_POSITION:
	case P_ORIGIN:
		return mrdem_yaml_vec(y, w, p->pos, 3, MRDEM_YAML_ANY);
	case P_VELOCITY:
		return mrdem_yaml_vec(y, w, p->vel, 3, MRDEM_YAML_ANY);
	case P_ANGVEL:
		return mrdem_yaml_vec(y, w, p->angvel, 3, MRDEM_YAML_ANY);
	case P_ORIENTATION:
		return get_quat(L, w, p->quat);
	case P_DENSITY:
		return mrdem_yaml_number(y, w, &p->density) ||
		       mrdem_yaml_positive(y, w, p->density);
	case P_MASS:
		return mrdem_yaml_number(y, w, &p->mass) || mrdem_yaml_positive(y, w, p->mass);
	case P_EPS:
	case P_EPS_ABS:
		return mrdem_yaml_number(y, w, &p->eps) || mrdem_yaml_positive(y, w, p->eps);
	case P_SCALE:
		return mrdem_yaml_number(y, w, &p->scale) || mrdem_yaml_positive(y, w, p->scale);
	case P_FIXED:
		return mrdem_yaml_bool(y, w, &p->fixed);
	case P_ROTATE:
		return mrdem_yaml_bool(y, w, &p->rotate);
	case P_SEED:
		return mrdem_yaml_u64(y, w, &p->seed);
	case P_MATERIAL:
		return mrdem_yaml_material_ref(y, &L->mat, w, &p->material);
	case P_MOTION:
		return mrdem_yaml_motion(y, w, &p->motion);
	case P_JITTER:
		return mrdem_yaml_number(y, w, &p->jitter) ||
		       mrdem_yaml_nonnegative(y, w, p->jitter);
	case P_COUNT:
		return mrdem_yaml_ints(y, w, p->count, 3, 1, INT32_MAX);
	case P_SPACING:
		if (mrdem_yaml_type(y) == YAML_SCALAR_EVENT) {
			if (mrdem_yaml_number(y, w, &p->spacing[0]) ||
			    mrdem_yaml_positive(y, w, p->spacing[0]))
				return -1;
			p->spacing[1] = p->spacing[2] = p->spacing[0];
			return 0;
		}
		return mrdem_yaml_vec(y, w, p->spacing, 3, MRDEM_YAML_POSITIVE);
	}
	return mrdem_yaml_err(y, "%s: internal error: key without parser", w);
}

/* Room for n more particles, the scene's total checked against the limits
 * first. A list grows by doubling, but never past what memory allows. */
static int reserve_particles(struct loader *L, const struct mrdem_yaml_keys *k, int lattice,
			     uint64_t n)
{
	struct mrdem_particles *pa = &L->s->frame.p;
	uint64_t total = pa->n + n;
	char what[300];
	snprintf(what, sizeof what, "%s%s", k->what, lattice ? ".count" : "");
	if (check_size(L, k->val[lattice ? P_COUNT : P_SHAPE], what, "particles in the scene",
		       total, MRDEM_SCENE_MAX_PARTICLES, "MRDEM_SCENE_MAX_PARTICLES",
		       MRDEM_SCENE_PARTICLE_BYTES))
		return -1;
	uint64_t cap = total;
	if (!lattice && cap < 2 * (uint64_t)pa->cap) {
		double room = (L->mem_avail - L->mem_planned) / MRDEM_SCENE_PARTICLE_BYTES;
		cap = 2 * (uint64_t)pa->cap;
		if (cap > MRDEM_SCENE_MAX_PARTICLES)
			cap = MRDEM_SCENE_MAX_PARTICLES;
		if ((double)cap > room)
			cap = total > (uint64_t)room ? total : (uint64_t)room;
	}
	mrdem_particles_reserve(pa, (size_t)cap);
	return 0;
}

/* What finish_item needs of an item: its particles, the keys given and
 * where they were (the values themselves wait in the particles' density
 * and eps slots). */
struct pending {
	size_t first, count;    /* particles [first, first + count) */
	size_t item;            /* particles[item] */
	uint32_t shape;         /* as in struct pspec */
	uint32_t seen;          /* keys given */
	unsigned char lattice, fixed, late;
	double scale;           /* as in struct pspec */
	uint32_t map[2], shape_val[2], eps_key[2], mass_val[2], scale_val[2]; /* line, column */
};

static void pack_mark(uint32_t out[2], yaml_mark_t m)
{
	out[0] = m.line > UINT32_MAX ? UINT32_MAX : (uint32_t)m.line;
	out[1] = m.column > UINT32_MAX ? UINT32_MAX : (uint32_t)m.column;
}

static yaml_mark_t unpack_mark(const uint32_t m[2])
{
	yaml_mark_t out = {0, m[0], m[1]};
	return out;
}

/* The density of an item's material m: by index once the materials are
 * resolved, by reference before (NaN while its material is unknown). */
static double material_density(const struct loader *L, uint32_t m)
{
	const struct mrdem_materials *mats = L->s->setup.materials;
	return mats ? mats->m[m].density : mrdem_yaml_material_density(&L->mat, m);
}

/* The item's shape, named further down or scaled, given to its particles;
 * -1 after a message. *diameter: that of the shape as scaled (a relative
 * epsilon is of it). */
static long item_shape(struct loader *L, const struct pending *pd, const char *what,
		       double *diameter)
{
	struct mrdem_scene *s = L->s;
	uint32_t si = pd->shape;
	if (pd->late) {
		long i = find_own_shape(s, L->fwd[si]);
		if (i < 0) {
			char field[80];
			snprintf(field, sizeof field, "%s.shape", what);
			return unknown_shape(L, unpack_mark(pd->shape_val), field, L->fwd[si]);
		}
		si = (uint32_t)i;
	}
	*diameter = L->diameter[si] * pd->scale;
	if (pd->scale != 1) {
		char why[400];
		if (mrdem_shape_scale_check(s, si, pd->scale, why, sizeof why))
			return mrdem_yaml_err_at(&L->y, unpack_mark(pd->scale_val), "%s.scale: %s",
						 what, why);
		si = mrdem_scene_scaled_shape(s, si, pd->scale);
	}
	if (pd->late || pd->scale != 1)
		for (size_t j = pd->first; j < pd->first + pd->count; j++)
			s->frame.p.shape[j] = si;
	return si;
}

/* The shape-dependent part: the shape itself, rules for open meshes, mass
 * to density, and the halo width (relative ones scale with the shape's
 * diameter; the default comes from contact). */
static int finish_item(struct loader *L, const struct pending *pd)
{
	struct mrdem_scene *s = L->s;
	struct mrdem_particles *pa = &s->frame.p;
	char what[64];
	snprintf(what, sizeof what, "particles[%zu]%s", pd->item, pd->lattice ? ".lattice" : "");
	double diameter = 0;
	long si = item_shape(L, pd, what, &diameter);
	if (si < 0)
		return -1;
	const struct mrdem_shape *sh = &s->shapes[si];
	if (!pd->fixed && sh->mesh.open)
		return mrdem_yaml_err_at(&L->y, unpack_mark(pd->shape_val),
					 "%s: shape '%s' is an "
					 "open mesh: only fixed particles (fixed: true) may use it",
					 what, sh->name);
	if (sh->mesh.open && (pd->seen & BIT(P_EPS)))
		return mrdem_yaml_err_at(&L->y, unpack_mark(pd->eps_key),
					 "%s: shape '%s' is an open "
					 "mesh without a diameter: give epsilon_abs instead of a "
					 "relative epsilon",
					 what, sh->name);

	double density = 1.0, eps, raw_eps = pa->eps[pd->first];
	if (pd->seen & BIT(P_MASS)) {
		double mass = pa->density[pd->first];
		density = mass / sh->mesh.mass.volume;
		if (!isfinite(density) || !(density > 0))
			return mrdem_yaml_err_at(&L->y, unpack_mark(pd->mass_val),
						 "%s: mass %g gives no "
						 "finite density for shape '%s' of volume %g",
						 what, mass, sh->name, sh->mesh.mass.volume);
	} else if (pd->seen & BIT(P_DENSITY)) {
		density = pa->density[pd->first];
	} else if (pd->seen & BIT(P_MATERIAL)) {
		density = material_density(L, pa->material[pd->first]);
	}
	if (pd->seen & BIT(P_EPS_ABS))
		eps = raw_eps;
	else if (pd->seen & BIT(P_EPS))
		eps = raw_eps * diameter;
	else if (sh->mesh.open)
		eps = s->setup.plane_epsilon;
	else if (L->eps_default_abs)
		eps = L->eps_default;
	else
		eps = L->eps_default * diameter;
	if (!(eps > 0) || !isfinite(eps))
		return mrdem_yaml_err_at(&L->y, unpack_mark(pd->map),
					 "%s: epsilon %g of shape '%s' "
					 "is not a positive length",
					 what, eps, sh->name);
	/* The step inverts mass and inertia: a density (or a shape's size) far
	 * off in the exponent overflows them or their inverses, and the run
	 * would fail at step 0, blaming the time step or the shape. */
	double I[9], inv[9];
	mrdem_inertia_matrix(I, sh->mesh.mass.inertia);
	if (!pd->fixed && !sh->mesh.open) {
		double mass = density * sh->mesh.mass.volume;
		int ok = !mrdem_spd3_inverse(inv, I) && mass > 0 && isfinite(mass) &&
			 isfinite(1 / mass);
		for (int r = 0; ok && r < 9; r++)
			ok = isfinite(density * I[r]) && isfinite(inv[r] / density);
		if (!ok)
			return mrdem_yaml_err_at(&L->y, unpack_mark((pd->seen & BIT(P_MASS)) ?
								   pd->mass_val : pd->map),
						 "%s: density %g gives shape '%s' (volume %g) a "
						 "mass of %g kg, or an inertia, that the dynamics "
						 "cannot invert in double precision",
						 what, density, sh->name, sh->mesh.mass.volume, mass);
	}
	for (size_t i = pd->first; i < pd->first + pd->count; i++) {
		pa->density[i] = density;
		pa->eps[i] = eps;
	}
	/* A finite velocity can still carry an infinite energy (1e308 m/s):
	 * the run would write frames that no reader takes. */
	char why[400];
	long bad = mrdem_energy_unbounded(s, pd->first, pd->first + pd->count, why, sizeof why);
	if (bad >= 0)
		return mrdem_yaml_err_at(&L->y, unpack_mark(pd->map), "%s: particle %ld: %s", what,
					 bad, why);
	return 0;
}

/* The motion of item p for its particle i, from the pose it was given. */
static void add_motion(struct loader *L, const struct pspec *p, size_t i)
{
	const struct mrdem_particles *pa = &L->s->frame.p;
	struct mrdem_motion m = p->motion;
	m.target = pa->id[i];
	memcpy(m.ref_pos, &pa->pos[3 * i], sizeof m.ref_pos);
	memcpy(m.ref_quat, &pa->quat[4 * i], sizeof m.ref_quat);
	mrdem_motion_add(&L->s->setup, &m);
}

/* Check what was written, append the particle(s) and finish them now or
 * once their shape and defaults are known. */
static int add_particles(struct loader *L, struct pspec *p, int lattice, size_t item)
{
	const struct mrdem_yaml_keys *k = &p->k;
	struct mrdem_yaml *y = &L->y;
	struct mrdem_particles *pa = &L->s->frame.p;

	if (mrdem_yaml_require(y, k, P_SHAPE))
		return -1;
	if (lattice ? mrdem_yaml_require(y, k, P_COUNT) || mrdem_yaml_require(y, k, P_SPACING)
		    : mrdem_yaml_require(y, k, P_POSITION))
		return -1;
	if (mrdem_yaml_exclusive(y, k, P_DENSITY, P_MASS) ||
	    mrdem_yaml_exclusive(y, k, P_EPS, P_EPS_ABS))
		return -1;
	if (p->fixed) {
		static const int moving[] = {P_DENSITY, P_MASS, P_VELOCITY, P_ANGVEL};
		for (int i = 0; i < 4; i++)
			if (k->seen & BIT(moving[i]))
				return mrdem_yaml_err_at(y, k->key[moving[i]],
							 "%s: a fixed particle is "
							 "immovable: '%s' does not apply",
							 k->what, pkey_names[moving[i]]);
	}
	if ((k->seen & BIT(P_MOTION)) && !p->fixed)
		return mrdem_yaml_err_at(y, k->key[P_MOTION], "%s.motion: only a fixed particle "
					 "(fixed: true) has a prescribed motion; a free one moves "
					 "by the forces on it", k->what);
	if (lattice && p->rotate && (k->seen & BIT(P_ORIENTATION)))
		return mrdem_yaml_err_at(y, k->key[P_ORIENTATION], "%s: give 'orientation' or "
					 "'rotate: true', not both", k->what);

	uint64_t n = 1;
	for (int d = 0; lattice && d < 3 && n <= MRDEM_SCENE_MAX_PARTICLES; d++)
		n *= (uint64_t)p->count[d]; /* each count < 2^31: no overflow before the check */
	if (pa->n + n > pa->cap && reserve_particles(L, k, lattice, n))
		return -1;

	struct pending pd = {
		.first = pa->n, .count = (size_t)n, .item = item, .shape = p->shape,
		.seen = k->seen, .lattice = (unsigned char)lattice, .fixed = p->fixed != 0,
		.late = (unsigned char)p->late, .scale = p->scale,
	};
	pack_mark(pd.scale_val, k->val[P_SCALE]);
	pack_mark(pd.map, k->map);
	pack_mark(pd.shape_val, k->val[P_SHAPE]);
	pack_mark(pd.eps_key, k->key[P_EPS]);
	pack_mark(pd.mass_val, k->val[P_MASS]);
	/* the values finish_item turns into density and halo width */
	double raw_density = (k->seen & BIT(P_MASS)) ? p->mass : p->density;

	struct mrdem_rng rng;
	mrdem_rng_seed(&rng, p->seed);
	long long nx = lattice ? p->count[0] : 1, ny = lattice ? p->count[1] : 1;
	long long nz = lattice ? p->count[2] : 1;
	for (long long z = 0; z < nz; z++)
		for (long long y = 0; y < ny; y++)
			for (long long x = 0; x < nx; x++) {
				size_t i = mrdem_particles_push(pa, pa->n, p->late ? 0 : p->shape);
				double *pos = &pa->pos[3 * i], *q = &pa->quat[4 * i];
				pos[0] = p->pos[0] + (double)x * p->spacing[0];
				pos[1] = p->pos[1] + (double)y * p->spacing[1];
				pos[2] = p->pos[2] + (double)z * p->spacing[2];
				if (lattice && p->jitter > 0)
					for (int d = 0; d < 3; d++)
						pos[d] += mrdem_rng_range(&rng, -p->jitter, p->jitter);
				/* finite origin, spacing and jitter can still overflow */
				if (lattice && !(isfinite(pos[0]) && isfinite(pos[1]) &&
						 isfinite(pos[2])))
					return mrdem_yaml_err_at(
						&L->y, k->map, "%s: particle (%lld, %lld, %lld) lies at "
						"[%g, %g, %g]: origin + index * spacing%s is beyond the "
						"range of numbers", k->what, x, y, z, pos[0], pos[1],
						pos[2], p->jitter > 0 ? " + jitter" : "");
				if (lattice && p->rotate)
					mrdem_rng_quat(&rng, q);
				else
					memcpy(q, p->quat, sizeof p->quat);
				memcpy(&pa->vel[3 * i], p->vel, sizeof p->vel);
				memcpy(&pa->angvel[3 * i], p->angvel, sizeof p->angvel);
				pa->density[i] = raw_density;
				pa->eps[i] = p->eps;
				pa->flags[i] = p->fixed ? MRDEM_PARTICLE_FIXED : 0;
				pa->material[i] = p->material;
				if (k->seen & BIT(P_MOTION))
					add_motion(L, p, i);
			}
	L->mat.unnamed |= !p->material;

	int has_eps = (k->seen & (BIT(P_EPS) | BIT(P_EPS_ABS))) != 0;
	int density_known = !p->material || (k->seen & (BIT(P_DENSITY) | BIT(P_MASS))) ||
			    !isnan(material_density(L, p->material));
	if (!p->late && (has_eps || L->contact_read) && density_known)
		return finish_item(L, &pd);
	if (L->npend == L->cappend) {
		L->cappend = L->cappend ? 2 * L->cappend : 64;
		L->pend = mrdem_xrealloc(L->pend, L->cappend * sizeof *L->pend);
	}
	L->pend[L->npend++] = pd;
	return 0;
}

static void pspec_init(struct pspec *p)
{
	memset(p, 0, sizeof *p);
	p->scale = 1;
	quat_identity(p->quat);
}

static int parse_particle_item(struct loader *L, const char *what, size_t index)
{
	struct mrdem_yaml *y = &L->y;
	struct pspec p;
	struct mrdem_yaml_keys item;
	char lwhat[300];
	int id, r;

	pspec_init(&p);
	mrdem_yaml_keys_init(&item, what, pkey_names, P_N, P_PARTICLE | BIT(P_LATTICE));
	if (mrdem_yaml_map_begin(y, &item))
		return -1;
	r = mrdem_yaml_map_next(y, &item, &id);
	if (r > 0 && id == P_LATTICE) {
		snprintf(lwhat, sizeof lwhat, "%s.lattice", what);
		mrdem_yaml_keys_init(&p.k, lwhat, pkey_names, P_N, P_LATTICE_KEYS);
		if (mrdem_yaml_map_begin(y, &p.k))
			return -1;
		while ((r = mrdem_yaml_map_next(y, &p.k, &id)) > 0)
			if (parse_pfield(L, &p, id))
				return -1;
		if (r < 0 || add_particles(L, &p, 1, index))
			return -1;
		r = mrdem_yaml_map_next(y, &item, &id);
		if (r > 0)
			return mrdem_yaml_err_at(
				y, item.key[id],
				"%s: a lattice is a list item of its "
				"own (- lattice: {...}); '%s' does not belong beside "
				"it",
				what, pkey_names[id]);
		return r;
	}
	p.k = item;
	for (; r > 0; r = mrdem_yaml_map_next(y, &p.k, &id)) {
		if (id == P_LATTICE)
			return mrdem_yaml_err_at(y, p.k.key[id],
						 "%s: a lattice is a list item of its "
						 "own (- lattice: {...}), not a key of a particle",
						 what);
		if (parse_pfield(L, &p, id))
			return -1;
	}
	if (r < 0)
		return -1;
	return add_particles(L, &p, 0, index);
}

static int parse_particles(struct loader *L)
{
	struct mrdem_yaml *y = &L->y;
	char what[64];
	size_t item = 0;
	if (mrdem_yaml_type(y) != YAML_SEQUENCE_START_EVENT)
		return mrdem_yaml_err_type(y, "particles", "a list of particles and lattices");
	yaml_mark_t start = mrdem_yaml_mark(y);
	for (;; item++) {
		if (mrdem_yaml_next(y))
			return -1;
		if (mrdem_yaml_type(y) == YAML_SEQUENCE_END_EVENT)
			break;
		snprintf(what, sizeof what, "particles[%zu]", item);
		if (parse_particle_item(L, what, item))
			return -1;
	}
	if (!item)
		return mrdem_yaml_err_at(y, start, "particles: the list is empty");
	return 0;
}

/* A free particle whose centre of mass is behind a plane starts deep in
 * the solid half-space (a flipped normal, a misplaced origin): the contact
 * force would throw it out with energy from nowhere. Checked once both
 * lists are known, at the plane's line. */
static int check_planes(struct loader *L)
{
	const struct mrdem_setup *st = &L->s->setup;
	const struct mrdem_particles *p = &L->s->frame.p;
	for (uint32_t k = 0; k < st->nplanes; k++) {
		const double *o = st->planes[k].point, *n = st->planes[k].normal;
		for (size_t i = 0; i < p->n; i++) {
			const double *x = &p->pos[3 * i];
			double d = (x[0] - o[0]) * n[0] + (x[1] - o[1]) * n[1] + (x[2] - o[2]) * n[2];
			if (d < 0 && !(p->flags[i] & MRDEM_PARTICLE_FIXED))
				return mrdem_yaml_err_at(
					&L->y, L->plane_mark[k],
					"planes[%" PRIu32 "]: the centre of mass of particle %zu, "
					"[%g, %g, %g], lies %g m behind the plane, whose normal "
					"[%g, %g, %g] points into the free half-space; a free "
					"particle starts on the free side",
					k, i, x[0], x[1], x[2], -d, n[0], n[1], n[2]);
		}
	}
	return 0;
}

/* ---- the document */

static int no_contact(const struct mrdem_yaml *y)
{
	return mrdem_yaml_err(y, "scene: no 'contact' section: the default model, hooke, "
			      "needs contact.stiffness (kn, N/m) and contact.restitution "
			      "(docs/scene.md); contact: {model: paper} gives the paper's "
			      "spring");
}

/* The materials known, each particle's and plane's reference becomes its
 * material; a scene without materials keeps no material column. */
static int resolve_materials(struct loader *L)
{
	struct mrdem_setup *st = &L->s->setup;
	struct mrdem_particles *pa = &L->s->frame.p;
	if (L->mat.m && !L->contact_read)
		return no_contact(&L->y);
	if (mrdem_yaml_materials_finish(&L->y, &L->mat, st))
		return -1;
	if (!st->materials) {
		free(pa->material);
		pa->material = NULL;
		return 0;
	}
	for (size_t i = 0; i < pa->n; i++)
		pa->material[i] = L->mat.index[pa->material[i]];
	for (uint32_t k = 0; k < st->nplanes; k++)
		st->planes[k].material = L->mat.index[st->planes[k].material];
	return 0;
}

static const char *const top_keys[] = {"shapes", "particles", "planes", "gravity", "contact",
				       "time", "output", "materials", "material_pairs", "insert",
				       "remove"};
enum {
	T_SHAPES, T_PARTICLES, T_PLANES, T_GRAVITY, T_CONTACT, T_TIME, T_OUTPUT, T_MATERIALS,
	T_PAIRS, T_INSERT, T_REMOVE, T_N
};

static int parse_document(struct loader *L)
{
	struct mrdem_yaml *y = &L->y;
	struct mrdem_yaml_keys k;
	int id, r;

	if (mrdem_yaml_type(y) == YAML_STREAM_END_EVENT)
		return mrdem_yaml_err(y,
				      "empty scene: expected a mapping with at least 'shapes' and "
				      "'particles'");
	mrdem_yaml_keys_init(&k, "scene", top_keys, T_N, MRDEM_YAML_ALL(T_N));
	if (mrdem_yaml_map_begin(y, &k))
		return -1;
	while ((r = mrdem_yaml_map_next(y, &k, &id)) > 0) {
		switch (id) {
		case T_SHAPES:
			r = parse_shapes(L);
			L->shapes_read = 1; /* a second 'shapes' is a duplicate key */
			break;
		case T_PARTICLES:
			r = parse_particles(L);
			break;
		case T_PLANES:
			r = parse_planes(L);
			break;
		case T_GRAVITY:
			r = mrdem_yaml_vec(y, k.cur, L->s->setup.gravity, 3, MRDEM_YAML_ANY);
			break;
		case T_CONTACT:
			r = parse_contact(L);
			L->contact_read = 1;
			break;
		case T_TIME:
			r = parse_time(L);
			break;
		case T_OUTPUT:
			r = parse_output(L);
			break;
		case T_MATERIALS:
			r = mrdem_yaml_materials_parse(y, &L->mat);
			break;
		case T_PAIRS:
			r = mrdem_yaml_material_pairs_parse(y, &L->mat);
			break;
		case T_INSERT:
			r = scene_flow_parse_insert(y, &L->flow, &L->mat);
			break;
		case T_REMOVE:
			r = scene_flow_parse_remove(y, &L->flow, L->s);
			break;
		}
		if (r < 0)
			return -1;
	}
	/* particles may all come from insertions */
	if (r < 0 || (!mrdem_yaml_has(&k, T_INSERT) && mrdem_yaml_require(y, &k, T_PARTICLES)) ||
	    mrdem_yaml_finish(y, "scene"))
		return -1;
	if (resolve_materials(L))
		return -1;
	/* everything is known now: the items that waited for it, in order */
	for (size_t i = 0; i < L->npend; i++)
		if (finish_item(L, &L->pend[i]))
			return -1;
	if (check_planes(L))
		return -1;
	if (!L->contact_read)
		return no_contact(y);
	struct scene_flow_defaults d = {L->diameter, L->eps_default, L->eps_default_abs,
					L->s->setup.materials ? L->mat.index : NULL};
	return scene_flow_finish(y, &L->flow, L->s, &d);
}

int mrdem_scene_load_yaml(const char *path, struct mrdem_scene *s)
{
	struct loader L;
	int rc = -1;

	memset(&L, 0, sizeof L);
	L.s = s;
	L.eps_default = 0.01; /* paper Sec. 6.1: 1 % of the particle diameter */
	/* new scenes get the mesh-convergent model; the paper's is model: paper */
	s->setup.force_model = MRDEM_FORCE_HOOKE;
	L.mem_avail = memory_available();
	mrdem_particles_use_material(&s->frame.p); /* references until resolved */
	const char *slash = strrchr(path, '/');
	size_t dlen = slash && strcmp(path, "-") ? (size_t)(slash - path) + 1 : 0;
	L.dir = mrdem_xmalloc(dlen + 1);
	memcpy(L.dir, path, dlen);
	L.dir[dlen] = 0;

	if (!mrdem_yaml_open(&L.y, path, !strcmp(path, "-") ? "<stdin>" : path, L.mem_avail) &&
	    !parse_document(&L))
		/* moving walls where they are at the frame's time */
		rc = mrdem_motion_place(s);

	mrdem_yaml_close(&L.y);
	free(L.dir);
	free(L.diameter);
	free(L.shape_line);
	free(L.pend);
	free(L.plane_mark);
	mrdem_yaml_materials_release(&L.mat);
	scene_flow_release(&L.flow);
	for (size_t i = 0; i < L.nfwd; i++)
		free(L.fwd[i]);
	free(L.fwd);
	if (rc)
		mrdem_scene_release(s);
	return rc;
}
