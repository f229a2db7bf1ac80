/* mrdem-mesh: make, import and export particle shapes (mesh streams). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mesh/mesh.h"
#include "common/mesh/mesh_weld.h"
#include "common/util/error.h"
#include "common/util/option_values.h"
#include "common/util/parse.h"
#include "common/util/threads.h"
#include "formats/stream/bytes.h"
#include "formats/foreign/mesh_files.h"
#include "formats/stream/meta.h"
#include "formats/stream/records.h"
#include "formats/stream/stream.h"

#define EXIT_STATUS \
	"\n" \
	"Exit status: 0 success, 1 error (bad input, failed computation), 2 usage\n" \
	"error (unknown option or command, bad option value, an option given twice,\n" \
	"extra arguments).\n"

static const char usage_main[] =
	"usage: mrdem-mesh COMMAND [OPTIONS]\n"
	"\n"
	"Write a mesh stream (one mesh record per shape) or export one.\n"
	"\n"
	"Commands:\n"
	"  sphere    sphere of a given triangle count, optionally bumpy or stretched\n"
	"  box       axis-aligned box\n"
	"  plane     finite open rectangle (for fixed obstacles only)\n"
	"  cylinder  closed cylinder along z\n"
	"  import    read an OBJ or STL file (or a mesh stream) and validate it\n"
	"  export    write a shape of a mesh stream as OBJ or STL\n"
	"\n"
	"Every mesh is validated (closed 2-manifold, outward, no degenerate\n"
	"triangles) and carries its exact volume, centre of mass and inertia.\n"
	"Run 'mrdem-mesh COMMAND --help' for a command's options; docs/mesh.md\n"
	"has the details.\n" EXIT_STATUS;

static const char usage_sphere[] =
	"usage: mrdem-mesh sphere [--triangles N] [--radius R] [--noise ETA [--seed S]]\n"
	"                         [--stretch ETA [--axis x|y|z]] [--name NAME] [-o FILE]\n"
	"\n"
	"  --triangles N  triangle count (default 1280): 20*4^k gives an icosphere,\n"
	"                 another even count 2*m*(s-1) a latitude-longitude sphere\n"
	"                 (e.g. 12, 36, 140, 1224); other counts are refused with a list\n"
	"  --radius R     radius (default 1)\n"
	"  --noise ETA    move vertices along the normal by hierarchical Perlin noise\n"
	"                 so radii span [R, ETA*R] (default 1: none)\n"
	"  --seed S       noise seed, a non-negative integer (default 1)\n"
	"  --stretch ETA  then scale by ETA along --axis (default 1: none)\n"
	"  --axis x|y|z   stretch axis (default x)\n"
	"  --name NAME    shape name (default sphere)\n"
	"  -o, --output FILE  output stream (default standard output)\n"
	"  -h, --help     show this help\n" EXIT_STATUS;

static const char usage_box[] =
	"usage: mrdem-mesh box [--size S | --size X Y Z] [--divisions N] [--name NAME] [-o FILE]\n"
	"\n"
	"  --size         edge length(s), centred at the origin (default 1)\n"
	"  --divisions N  each face split into N x N squares of two triangles (default 1)\n"
	"  --name NAME    shape name (default box)\n"
	"  -o, --output FILE  output stream (default standard output)\n"
	"  -h, --help     show this help\n" EXIT_STATUS;

static const char usage_plane[] =
	"usage: mrdem-mesh plane --open [--size X Y] [--divisions NX [NY]] [--tilt DEG]\n"
	"                        [--name NAME] [-o FILE]\n"
	"\n"
	"A rectangle in the xy plane centred at the origin, normal +z, rotated by\n"
	"DEG degrees about the x axis (normal (0, -sin DEG, cos DEG)). It is an open\n"
	"mesh, usable only by fixed particles: --open is required to confirm that.\n"
	"\n"
	"  --open          accept the open mesh\n"
	"  --size X Y      side lengths (default 10 10)\n"
	"  --divisions NX [NY]  quads along x and y, two triangles each (default 1 1;\n"
	"                  NY defaults to NX)\n"
	"  --tilt DEG      rotation about the x axis in degrees, -180 to 180 (default 0)\n"
	"  --name NAME     shape name (default plane)\n"
	"  -o, --output FILE  output stream (default standard output)\n"
	"  -h, --help      show this help\n" EXIT_STATUS;

static const char usage_cylinder[] =
	"usage: mrdem-mesh cylinder [--radius R] [--height H] [--segments N] [--name NAME]\n"
	"                           [-o FILE]\n"
	"\n"
	"A closed cylinder along z centred at the origin: a regular N-gon prism with\n"
	"fan-triangulated caps (4N triangles).\n"
	"\n"
	"  --radius R    radius of the polygon's corners (default 1)\n"
	"  --height H    length along z (default 2)\n"
	"  --segments N  corners around (default 32, 3 to 1048576)\n"
	"  --name NAME   shape name (default cylinder)\n"
	"  -o, --output FILE  output stream (default standard output)\n"
	"  -h, --help    show this help\n" EXIT_STATUS;

static const char usage_import[] =
	"usage: mrdem-mesh import FILE [--format obj|stl|stream] [--weld TOL] [--open]\n"
	"                         [--shape NAME] [--name NAME] [-o FILE]\n"
	"\n"
	"Read a Wavefront OBJ file (v and f lines; polygons are fan-triangulated),\n"
	"an STL file (ASCII or binary; equal vertices are welded) or an mrdem mesh\n"
	"stream, validate it (orientation is repaired when possible) and write a\n"
	"mesh stream. The format comes from the extension (.obj, .stl), else a\n"
	"gzip-compressed file is taken as a stream; FILE '-' (standard input)\n"
	"needs --format.\n"
	"\n"
	"  --format F   obj, stl or stream, overriding the extension\n"
	"  --weld TOL   first merge vertices closer than TOL (each joins the nearest\n"
	"               earlier vertex kept; triangles that collapse are dropped), for\n"
	"               meshes whose duplicated vertices make them look open\n"
	"  --open       accept an open mesh (for fixed obstacles only)\n"
	"  --shape NAME from a stream: only this shape (default all)\n"
	"  --name NAME  shape name (default: the file name without extension; a\n"
	"               stream's own names; with several shapes --name is refused)\n"
	"  -o, --output FILE  output stream (default standard output)\n"
	"  -h, --help   show this help\n" EXIT_STATUS;

static const char usage_export[] =
	"usage: mrdem-mesh export --format obj|stl|stl-ascii [--shape NAME] [--name NAME]\n"
	"                         [-o FILE] [INPUT]\n"
	"\n"
	"Write one shape of a mesh stream (INPUT, default standard input) as a mesh\n"
	"file. Binary STL stores single-precision coordinates; OBJ and stl-ascii keep\n"
	"every digit (%.17g).\n"
	"\n"
	"  --format F   obj, stl (binary) or stl-ascii\n"
	"  --shape NAME the shape to export (default the first)\n"
	"  --name NAME  object/solid name written in the file (default the shape's)\n"
	"  -o, --output FILE  output file (default standard output)\n"
	"  -h, --help   show this help\n" EXIT_STATUS;

/* ---- option parsing
 *
 * Each command has its table of options (struct optdef), given to
 * mrdem_getopt_once; a few take several numbers ("--size X Y Z",
 * "--divisions NX [NY]"), which mrdem_getopt_values takes after the
 * first. */

struct optdef {
	const char *name; /* long name, without the leading dashes */
	int nmin, nmax;   /* values taken */
};

struct parsed {
	const struct optdef *def;
	const char *val[3];
	int nval;
	int seen;
};

#define MAXOPTS 12

struct cmdline {
	const char *cmd;
	const char *usage;
	struct parsed opt[MAXOPTS];
	int nopt;
	const char *pos[1];
	int npos, maxpos;
	/* the whole command line, for the meta record of the stream written */
	int argc;
	char **argv;
};

static int usage_error(const struct cmdline *c, const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", mrdem_progname());
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\ntry 'mrdem-mesh %s --help'\n", c->cmd);
	return 2;
}

/* getopt_long's table for the command's options (defs), --help and -o
 * for --output; opt = parsed nothing yet. */
static void make_longopts(struct cmdline *c, const struct optdef *defs, struct option *longopts)
{
	int n = 0;
	for (c->nopt = 0; defs[c->nopt].name; c->nopt++) {
		const struct optdef *d = &defs[c->nopt];
		c->opt[c->nopt] = (struct parsed){ .def = d };
		longopts[n++] = (struct option){ d->name, d->nmax ? required_argument : no_argument,
						 NULL, strcmp(d->name, "output") ? 256 + c->nopt : 'o' };
	}
	longopts[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };
}

/* The values of option p, just returned by getopt_long. */
static int take_values(struct cmdline *c, struct parsed *p, int argc, char **argv)
{
	p->seen = 1;
	if (!p->def->nmax)
		return 0;
	p->nval = mrdem_getopt_values(argc, argv, p->def->nmax, p->val);
	if (p->nval < p->def->nmin) {
		char msg[96];
		snprintf(msg, sizeof msg, "option '--%%s' needs %d value%s", p->def->nmin,
			 p->def->nmin > 1 ? "s" : "");
		return usage_error(c, msg, p->def->name);
	}
	if (p->def->nmax == 3 && p->nval == 2)
		return usage_error(c, "option '--%s' takes 1 or 3 values", p->def->name);
	return 0;
}

/* argv[0] is the command. Returns 0, 1 after printing help, or 2 on a
 * usage error. */
static int parse_options(struct cmdline *c, const struct optdef *defs, int argc, char **argv)
{
	struct option longopts[MAXOPTS + 3];
	make_longopts(c, defs, longopts);
	/* getopt's own messages start with argv[0]: "mrdem-mesh sphere: ..." */
	char prog[64];
	snprintf(prog, sizeof prog, "%s %s", mrdem_progname(), c->cmd);
	argv[0] = prog;
	optind = 1;
	struct mrdem_opts_seen seen = {{0}};
	int ch, li;
	while ((ch = mrdem_getopt_once(argc, argv, "ho:", longopts, &li, &seen)) != -1) {
		if (ch == 'h') {
			fputs(c->usage, stdout);
			return 1;
		}
		if (ch == 'o') /* -o FILE: the same as --output FILE */
			for (int k = 0; k < c->nopt; k++)
				if (!strcmp(defs[k].name, "output"))
					ch = 256 + k;
		if (ch < 256) { /* getopt_long or mrdem_getopt_once said what is wrong */
			fprintf(stderr, "try 'mrdem-mesh %s --help'\n", c->cmd);
			return 2;
		}
		if (take_values(c, &c->opt[ch - 256], argc, argv))
			return 2;
	}
	for (; optind < argc; optind++) {
		if (c->npos == c->maxpos)
			return usage_error(c, "unexpected argument '%s'", argv[optind]);
		c->pos[c->npos++] = argv[optind];
	}
	return 0;
}

/* parse_options lends argv[0] to getopt's messages; the command word is
 * given back for the meta record. */
static int parse_args(struct cmdline *c, const struct optdef *defs, int argc, char **argv)
{
	char *word = argv[0];
	int rc = parse_options(c, defs, argc, argv);
	argv[0] = word;
	/* A scene names its shapes, and a stream's are looked up by name: an
	 * empty one could be named by nothing (scene YAML refuses it too). */
	for (int k = 0; rc == 0 && k < c->nopt; k++)
		if (c->opt[k].seen && !strcmp(c->opt[k].def->name, "name") && !*c->opt[k].val[0])
			rc = usage_error(c, "--name: expected a name, got '%s'", "");
	return rc;
}

static const struct parsed *get(const struct cmdline *c, const char *name)
{
	for (int k = 0; k < c->nopt; k++)
		if (!strcmp(c->opt[k].def->name, name))
			return c->opt[k].seen ? &c->opt[k] : NULL;
	return NULL;
}

/* The i-th value of option name, or NULL when it is not given; flag gets
 * "--name" for the messages of common/util/parse.c. */
static const char *value_of(const struct cmdline *c, const char *name, int i, char flag[64])
{
	const struct parsed *p = get(c, name);
	if (!p)
		return NULL;
	snprintf(flag, 64, "--%s", name);
	return p->val[i];
}

static int get_double(const struct cmdline *c, const char *name, int i, double *v)
{
	char flag[64];
	const char *s = value_of(c, name, i, flag);
	return s ? mrdem_parse_double(flag, s, v) : 0;
}

static int get_u64(const struct cmdline *c, const char *name, int i, uint64_t max, uint64_t *v)
{
	char flag[64];
	const char *s = value_of(c, name, i, flag);
	return s ? mrdem_parse_u64(flag, s, max, v) : 0;
}

static int get_unsigned(const struct cmdline *c, const char *name, int i, unsigned *v)
{
	char flag[64];
	const char *s = value_of(c, name, i, flag);
	return s ? mrdem_parse_u32(flag, s, v) : 0;
}

static const char *get_str(const struct cmdline *c, const char *name, const char *dflt)
{
	const struct parsed *p = get(c, name);
	return p ? p->val[0] : dflt;
}

/* ---- output */

struct shape_out {
	const char *name;
	struct mrdem_mesh *mesh;
};

static int write_shapes(const struct cmdline *c, const char *path, const struct shape_out *s,
			uint32_t n)
{
	struct mrdem_writer w;
	if (mrdem_writer_open(&w, path, 0))
		return -1;
	struct mrdem_meta meta;
	mrdem_meta_init(&meta, "mrdem-mesh", c->argc, c->argv);
	int bad = mrdem_write_meta(&w, &meta);
	mrdem_meta_release(&meta);
	if (bad) {
		mrdem_writer_abort(&w);
		return -1;
	}
	struct mrdem_buf b;
	mrdem_buf_init(&b);
	for (uint32_t i = 0; i < n; i++) {
		b.len = 0;
		mrdem_encode_mesh(&b, i, s[i].name, s[i].mesh);
		if (mrdem_writer_put(&w, MRDEM_REC_MESH, b.p, b.len)) {
			mrdem_buf_release(&b);
			mrdem_writer_abort(&w);
			return -1;
		}
	}
	mrdem_buf_release(&b);
	return mrdem_writer_commit(&w);
}

static int write_one(const struct cmdline *c, const char *dflt_name, struct mrdem_mesh *m)
{
	struct shape_out s = { get_str(c, "name", dflt_name), m };
	int rc = write_shapes(c, get_str(c, "output", NULL), &s, 1);
	mrdem_mesh_release(m);
	return rc ? 1 : 0;
}

/* ---- commands */

static int cmd_sphere(struct cmdline *c, int argc, char **argv)
{
	static const struct optdef defs[] = {
		{ "triangles", 1, 1 }, { "radius", 1, 1 }, { "noise", 1, 1 }, { "seed", 1, 1 },
		{ "stretch", 1, 1 },   { "axis", 1, 1 },   { "name", 1, 1 },  { "output", 1, 1 },
		{ NULL, 0, 0 },
	};
	c->usage = usage_sphere;
	int rc = parse_args(c, defs, argc, argv);
	if (rc)
		return rc == 1 ? 0 : rc;
	struct mrdem_sphere_opts o;
	mrdem_sphere_opts_default(&o);
	unsigned tris = o.triangles;
	if (get_unsigned(c, "triangles", 0, &tris) || get_double(c, "radius", 0, &o.radius) ||
	    get_double(c, "noise", 0, &o.noise) || get_u64(c, "seed", 0, UINT64_MAX, &o.seed) ||
	    get_double(c, "stretch", 0, &o.stretch))
		return 2;
	o.triangles = tris;
	const char *axis = get_str(c, "axis", "x");
	if (!strcmp(axis, "x") || !strcmp(axis, "y") || !strcmp(axis, "z"))
		o.stretch_axis = axis[0] - 'x';
	else
		return usage_error(c, "--axis must be x, y or z, not '%s'", axis);
	/* each only shapes what the other does: alone it would go unused */
	if (get(c, "seed") && o.noise == 1)
		return usage_error(c, "--seed applies to --noise ETA > 1 only (the seed of the "
				      "noise)%s", "");
	if (get(c, "axis") && o.stretch == 1)
		return usage_error(c, "--axis applies to --stretch ETA != 1 only (the axis of the "
				      "stretch)%s", "");
	struct mrdem_mesh m;
	mrdem_mesh_init(&m);
	/* its only input is the options: a refusal is a bad option value */
	if (mrdem_mesh_sphere(&m, &o)) {
		mrdem_mesh_release(&m);
		return 2;
	}
	return write_one(c, "sphere", &m);
}

static int cmd_box(struct cmdline *c, int argc, char **argv)
{
	static const struct optdef defs[] = {
		{ "size", 1, 3 }, { "divisions", 1, 1 }, { "name", 1, 1 }, { "output", 1, 1 }, { NULL, 0, 0 },
	};
	c->usage = usage_box;
	int rc = parse_args(c, defs, argc, argv);
	if (rc)
		return rc == 1 ? 0 : rc;
	double size[3] = { 1, 1, 1 };
	unsigned n = 1;
	const struct parsed *p = get(c, "size");
	for (int k = 0; p && k < p->nval; k++)
		if (get_double(c, "size", k, &size[k]))
			return 2;
	if (p && p->nval == 1)
		size[1] = size[2] = size[0];
	if (get_unsigned(c, "divisions", 0, &n))
		return 2;
	struct mrdem_mesh m;
	mrdem_mesh_init(&m);
	/* its only input is the options: a refusal is a bad option value */
	if (mrdem_mesh_box(&m, size, n)) {
		mrdem_mesh_release(&m);
		return 2;
	}
	return write_one(c, "box", &m);
}

static int cmd_plane(struct cmdline *c, int argc, char **argv)
{
	static const struct optdef defs[] = {
		{ "open", 0, 0 }, { "size", 2, 2 }, { "divisions", 1, 2 }, { "tilt", 1, 1 },
		{ "name", 1, 1 }, { "output", 1, 1 },    { NULL, 0, 0 },
	};
	c->usage = usage_plane;
	int rc = parse_args(c, defs, argc, argv);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (!get(c, "open"))
		return usage_error(c, "a plane is an open mesh, usable only by fixed particles: "
				      "pass --open to accept it%s",
				   "");
	double sx = 10, sy = 10, tilt = 0;
	unsigned nx = 1, ny;
	if (get_double(c, "size", 0, &sx) || get_double(c, "size", 1, &sy) ||
	    get_unsigned(c, "divisions", 0, &nx) || get_double(c, "tilt", 0, &tilt))
		return 2;
	if (!(fabs(tilt) <= MRDEM_PLANE_MAX_TILT)) /* mrdem_mesh_plane's range, named as an option */
		return usage_error(c, "--tilt: '%s' must be an angle in degrees from -180 to 180",
				   get_str(c, "tilt", ""));
	ny = nx;
	const struct parsed *d = get(c, "divisions");
	if (d && d->nval == 2 && get_unsigned(c, "divisions", 1, &ny))
		return 2;
	struct mrdem_mesh m;
	mrdem_mesh_init(&m);
	/* its only input is the options: a refusal is a bad option value */
	if (mrdem_mesh_plane(&m, sx, sy, nx, ny, tilt)) {
		mrdem_mesh_release(&m);
		return 2;
	}
	return write_one(c, "plane", &m);
}

static int cmd_cylinder(struct cmdline *c, int argc, char **argv)
{
	static const struct optdef defs[] = {
		{ "radius", 1, 1 }, { "height", 1, 1 }, { "segments", 1, 1 },
		{ "name", 1, 1 },   { "output", 1, 1 },      { NULL, 0, 0 },
	};
	c->usage = usage_cylinder;
	int rc = parse_args(c, defs, argc, argv);
	if (rc)
		return rc == 1 ? 0 : rc;
	double r = 1, h = 2;
	unsigned s = 32;
	if (get_double(c, "radius", 0, &r) || get_double(c, "height", 0, &h) ||
	    get_unsigned(c, "segments", 0, &s))
		return 2;
	struct mrdem_mesh m;
	mrdem_mesh_init(&m);
	/* its only input is the options: a refusal is a bad option value */
	if (mrdem_mesh_cylinder(&m, r, h, s)) {
		mrdem_mesh_release(&m);
		return 2;
	}
	return write_one(c, "cylinder", &m);
}

/* File name without directory and extension. */
static char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *b = mrdem_xstrdup(slash ? slash + 1 : path);
	char *dot = strrchr(b, '.');
	if (dot && dot != b)
		*dot = 0;
	return b;
}

/* Every mesh record of a stream (or the one named), each re-validated. */
static int import_stream(struct cmdline *c, const char *path, unsigned flags, double weld)
{
	const char *only = get_str(c, "shape", NULL), *rename = get_str(c, "name", NULL);
	struct mrdem_reader r;
	if (mrdem_reader_open(&r, path, 0))
		return 1;
	struct shape_out *s = NULL;
	char **names = NULL;
	uint32_t n = 0;
	struct mrdem_record rec;
	int rc;
	while ((rc = mrdem_reader_next(&r, &rec)) == 1) {
		if (rec.type != MRDEM_REC_MESH)
			continue;
		uint32_t id;
		char *name;
		struct mrdem_mesh m;
		if (mrdem_decode_mesh(&rec, r.name, &id, &name, &m)) {
			rc = -1;
			break;
		}
		if (only && strcmp(name, only)) {
			free(name);
			mrdem_mesh_release(&m);
			continue;
		}
		char what[512];
		snprintf(what, sizeof what, "%s: shape '%s'", r.name, name);
		if ((weld > 0 && mrdem_mesh_weld(&m, weld, NULL, NULL)) ||
		    mrdem_mesh_validate(&m, flags | (m.open ? MRDEM_MESH_ALLOW_OPEN : 0), what)) {
			free(name);
			mrdem_mesh_release(&m);
			rc = -1;
			break;
		}
		s = mrdem_xrealloc(s, (n + 1) * sizeof *s);
		names = mrdem_xrealloc(names, (n + 1) * sizeof *names);
		names[n] = name;
		s[n].name = name;
		s[n].mesh = mrdem_xmalloc(sizeof(struct mrdem_mesh));
		*s[n].mesh = m;
		n++;
	}
	if (rc == 0 && !n)
		rc = only ? mrdem_error("%s: no shape named '%s'", r.name, only)
			  : mrdem_error("%s: no mesh record in the stream", r.name);
	if (rc == 0 && rename && n > 1)
		rc = mrdem_error("--name: the stream has %u shapes; pick one with --shape", n);
	if (rc == 0 && rename)
		s[0].name = rename;
	if (rc == 0)
		rc = write_shapes(c, get_str(c, "output", NULL), s, n);
	mrdem_reader_close(&r);
	for (uint32_t i = 0; i < n; i++) {
		free(names[i]);
		mrdem_mesh_release(s[i].mesh);
		free(s[i].mesh);
	}
	free(names);
	free(s);
	return rc ? 1 : 0;
}

static int cmd_import(struct cmdline *c, int argc, char **argv)
{
	static const struct optdef defs[] = {
		{ "format", 1, 1 }, { "open", 0, 0 },   { "shape", 1, 1 }, { "name", 1, 1 },
		{ "output", 1, 1 }, { "weld", 1, 1 },   { NULL, 0, 0 },
	};
	c->usage = usage_import;
	c->maxpos = 1;
	int rc = parse_args(c, defs, argc, argv);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (c->npos != 1)
		return usage_error(c, "import needs one input FILE%s", "");
	const char *path = c->pos[0];
	int std = !strcmp(path, "-");
	enum mrdem_mesh_format f = MRDEM_MESH_FORMAT_UNKNOWN;
	const char *fs = get_str(c, "format", NULL);
	if (fs) {
		f = mrdem_mesh_format_by_name(fs);
		if (f == MRDEM_MESH_FORMAT_UNKNOWN || f == MRDEM_MESH_FORMAT_STL_ASCII)
			return usage_error(c, "--format must be obj, stl or stream, not '%s'", fs);
	} else if (std) {
		return usage_error(c, "reading standard input needs --format obj, stl or stream%s",
				   "");
	}
	unsigned flags = get(c, "open") ? MRDEM_MESH_ALLOW_OPEN : 0;
	double weld = 0;
	if (get_double(c, "weld", 0, &weld))
		return 2;
	if (get(c, "weld") && !(weld > 0))
		return usage_error(c, "--weld: the tolerance must be positive, not '%s'",
				   get_str(c, "weld", ""));
	if (f == MRDEM_MESH_FORMAT_UNKNOWN)
		f = mrdem_mesh_format_by_extension(path);
	if (f == MRDEM_MESH_FORMAT_UNKNOWN) {
		FILE *in = fopen(path, "rb");
		if (!in)
			return mrdem_error("%s: cannot open: %s", path, strerror(errno)), 1;
		int b0 = fgetc(in), b1 = fgetc(in);
		fclose(in);
		if (b0 != 0x1f || b1 != 0x8b)
			return mrdem_error("%s: unknown mesh format: name it .obj or .stl, give "
					   "--format, or pass an mrdem mesh stream",
					   path),
			       1;
		f = MRDEM_MESH_FORMAT_STREAM;
	}
	if (f == MRDEM_MESH_FORMAT_STREAM)
		return import_stream(c, path, flags, weld);
	if (get(c, "shape"))
		return usage_error(c, "--shape applies to mesh streams only%s", "");

	struct mrdem_mesh m;
	mrdem_mesh_init(&m);
	if (mrdem_mesh_load(path, f, flags, weld, &m))
		return 1;
	char *name = base_name(std ? "stdin" : path);
	rc = write_one(c, name, &m);
	free(name);
	return rc;
}

static int cmd_export(struct cmdline *c, int argc, char **argv)
{
	static const struct optdef defs[] = {
		{ "format", 1, 1 }, { "shape", 1, 1 }, { "name", 1, 1 }, { "output", 1, 1 }, { NULL, 0, 0 },
	};
	c->usage = usage_export;
	c->maxpos = 1;
	int rc = parse_args(c, defs, argc, argv);
	if (rc)
		return rc == 1 ? 0 : rc;
	const char *fs = get_str(c, "format", NULL);
	if (!fs)
		return usage_error(c, "export needs --format obj, stl or stl-ascii%s", "");
	enum mrdem_mesh_format f = mrdem_mesh_format_by_name(fs);
	if (f != MRDEM_MESH_FORMAT_OBJ && f != MRDEM_MESH_FORMAT_STL &&
	    f != MRDEM_MESH_FORMAT_STL_ASCII)
		return usage_error(c, "--format must be obj, stl or stl-ascii, not '%s'", fs);
	struct mrdem_mesh m;
	char *shape = NULL;
	mrdem_mesh_init(&m);
	if (mrdem_mesh_read_stream(c->npos ? c->pos[0] : "-", get_str(c, "shape", NULL), &m,
				   &shape))
		return 1;
	const char *name = get_str(c, "name", shape), *out = get_str(c, "output", NULL);
	if (f == MRDEM_MESH_FORMAT_OBJ)
		rc = mrdem_mesh_write_obj(out, name, &m);
	else
		rc = mrdem_mesh_write_stl(out, name, &m, f == MRDEM_MESH_FORMAT_STL_ASCII);
	free(shape);
	mrdem_mesh_release(&m);
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	mrdem_set_progname(argv[0]);
	mrdem_threads_init();
	if (argc < 2) {
		fputs(usage_main, stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		fputs(usage_main, stdout);
		return 0;
	}
	static const struct {
		const char *name;
		int (*run)(struct cmdline *, int, char **);
	} cmds[] = {
		{ "sphere", cmd_sphere }, { "box", cmd_box },       { "plane", cmd_plane },
		{ "cylinder", cmd_cylinder }, { "import", cmd_import }, { "export", cmd_export },
	};
	for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++)
		if (!strcmp(cmd, cmds[i].name)) {
			struct cmdline c = { .cmd = cmd, .argc = argc, .argv = argv };
			return cmds[i].run(&c, argc - 1, argv + 1);
		}
	fprintf(stderr, "%s: unknown command '%s'\ntry 'mrdem-mesh --help'\n", mrdem_progname(), cmd);
	return 2;
}
