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
	"  revolve   surface of revolution of an (r, z) profile: hoppers, drums\n"
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

static const char usage_revolve[] =
	"usage: mrdem-mesh revolve --profile R Z R Z... [--segments N] [--divisions D]\n"
	"                          [--open] [--name NAME] [-o FILE]\n"
	"\n"
	"The surface swept by a profile of (r, z) points turned about the z axis:\n"
	"hopper and silo walls, funnels, drums. Only the first and the last point may\n"
	"lie on the axis (r = 0); a profile that starts and ends there is a closed\n"
	"solid (a drum with its end caps), any other an open surface (a hopper wall\n"
	"with its outlet), usable by fixed particles only.\n"
	"\n"
	"  --profile R Z ...  the profile, at least two points, radius and height\n"
	"                     of each (e.g. a flat-bottomed hopper with an outlet of\n"
	"                     radius 0.02: --profile 0.02 0 0.1 0 0.1 0.3)\n"
	"  --segments N  corners around (default 64, 3 to 1048576)\n"
	"  --divisions D split each profile segment into D (default 1)\n"
	"  --open        accept an open surface (a profile not closed on the axis)\n"
	"  --name NAME   shape name (default revolve)\n"
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
 * Each command has its getopt_long table: its own options numbered from
 * OPT_OWN, --name and --output (-o) shared, taken by next_option with
 * --help. mrdem_getopt_once refuses a value given twice; a few options
 * take several numbers ("--size X Y Z", "--divisions NX [NY]"), which
 * mrdem_getopt_values reads after the first. The values are kept as
 * given and converted once all are read, so that a bad option is
 * reported before a bad value. */

enum { OPT_NAME = 256, OPT_OWN };
enum { OPT_END = -1, OPT_STOP = -2 }; /* next_option: no more options, or exit with c->status */

#define NAME_OPTION { "name", required_argument, NULL, OPT_NAME }
#define OUTPUT_OPTION { "output", required_argument, NULL, 'o' }
#define HELP_OPTION { "help", no_argument, NULL, 'h' }

struct cmdline {
	const char *cmd;
	const char *usage;
	/* the whole command line, for the meta record of the stream written */
	int argc;
	char **argv;
	/* the command's own: its argv[0] (the command word) is lent to
	 * getopt's messages as "mrdem-mesh CMD" while its options are read */
	int nargs;
	char **args;
	char *word;
	char prog[64];
	struct mrdem_opts_seen seen;
	int status;
	const char *name, *output; /* NULL when not given */
	const char *input;         /* the command's one argument, NULL when none */
};

static int usage_error(const struct cmdline *c, const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", mrdem_progname());
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\ntry 'mrdem-mesh %s --help'\n", c->cmd);
	return 2;
}

static void start_options(struct cmdline *c, const char *usage, int argc, char **argv)
{
	c->usage = usage;
	c->nargs = argc;
	c->args = argv;
	c->word = argv[0];
	snprintf(c->prog, sizeof c->prog, "%s %s", mrdem_progname(), c->cmd);
	argv[0] = c->prog;
	optind = 1;
}

/* The command word back in argv[0]; returns status. */
static int stop_options(struct cmdline *c, int status)
{
	c->args[0] = c->word;
	c->status = status;
	return status;
}

/* The next of the command's options (longopts): its code, or OPT_END, or
 * OPT_STOP after --help (c->status 0) or a usage error (2). */
static int next_option(struct cmdline *c, const struct option *longopts)
{
	for (;;) {
		int li, ch = mrdem_getopt_once(c->nargs, c->args, "ho:", longopts, &li, &c->seen);
		switch (ch) {
		case -1: return OPT_END;
		case 'h':
			fputs(c->usage, stdout);
			stop_options(c, 0);
			return OPT_STOP;
		case 'o': c->output = optarg; break;
		case OPT_NAME: c->name = optarg; break;
		default:
			if (ch >= OPT_OWN)
				return ch;
			/* getopt_long or mrdem_getopt_once said what is wrong */
			fprintf(stderr, "try 'mrdem-mesh %s --help'\n", c->cmd);
			stop_options(c, 2);
			return OPT_STOP;
		}
	}
}

/* The values of the option just returned, nmin to nmax of them (3: one
 * for all three, or three), into vals: their count, or -1 after a usage
 * error. */
static int take_values(struct cmdline *c, const char *name, int nmin, int nmax, const char **vals)
{
	int n = mrdem_getopt_values(c->nargs, c->args, nmax, vals);
	if (n < nmin) {
		char msg[96];
		snprintf(msg, sizeof msg, "option '--%%s' needs %d value%s", nmin,
			 nmin > 1 ? "s" : "");
		usage_error(c, msg, name);
	} else if (nmax == 3 && n == 2) {
		usage_error(c, "option '--%s' takes 1 or 3 values", name);
	} else {
		return n;
	}
	stop_options(c, 2);
	return -1;
}

/* After the options: the arguments (at most maxinput, into c->input),
 * then the command word back in argv[0]. Returns 0, or 2 after a usage
 * error. */
static int end_options(struct cmdline *c, int maxinput)
{
	int n = 0;
	for (; optind < c->nargs; optind++) {
		if (n == maxinput)
			return stop_options(c, usage_error(c, "unexpected argument '%s'",
							   c->args[optind]));
		c->input = c->args[optind];
		n++;
	}
	stop_options(c, 0);
	/* A scene names its shapes, and a stream's are looked up by name: an
	 * empty one could be named by nothing (scene YAML refuses it too). */
	if (c->name && !*c->name)
		return usage_error(c, "--name: expected a name, got '%s'", "");
	return 0;
}

/* Value s of option flag into *v when the option was given (s not NULL):
 * 0, or -1 after the message. */
static int given_double(const char *flag, const char *s, double *v)
{
	return s ? mrdem_parse_double(flag, s, v) : 0;
}

static int given_u64(const char *flag, const char *s, uint64_t max, uint64_t *v)
{
	return s ? mrdem_parse_u64(flag, s, max, v) : 0;
}

static int given_unsigned(const char *flag, const char *s, unsigned *v)
{
	return s ? mrdem_parse_u32(flag, s, v) : 0;
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
	struct shape_out s = { c->name ? c->name : dflt_name, m };
	int rc = write_shapes(c, c->output, &s, 1);
	mrdem_mesh_release(m);
	return rc ? 1 : 0;
}

/* m, made by a command from its options alone (made: the maker's
 * status), written: a refusal is a bad option value. */
static int write_made(const struct cmdline *c, const char *dflt_name, struct mrdem_mesh *m,
		      int made)
{
	if (made) {
		mrdem_mesh_release(m);
		return 2;
	}
	return write_one(c, dflt_name, m);
}

/* ---- commands */

static int cmd_sphere(struct cmdline *c, int argc, char **argv)
{
	enum { TRIANGLES = OPT_OWN, RADIUS, NOISE, SEED, STRETCH, AXIS };
	static const struct option opts[] = {
		{ "triangles", required_argument, NULL, TRIANGLES },
		{ "radius", required_argument, NULL, RADIUS },
		{ "noise", required_argument, NULL, NOISE },
		{ "seed", required_argument, NULL, SEED },
		{ "stretch", required_argument, NULL, STRETCH },
		{ "axis", required_argument, NULL, AXIS },
		NAME_OPTION, OUTPUT_OPTION, HELP_OPTION, { NULL, 0, NULL, 0 },
	};
	const char *triangles = NULL, *radius = NULL, *noise = NULL, *seed = NULL;
	const char *stretch = NULL, *axis = NULL;
	start_options(c, usage_sphere, argc, argv);
	int ch;
	while ((ch = next_option(c, opts)) != OPT_END)
		switch (ch) {
		case TRIANGLES: triangles = optarg; break;
		case RADIUS: radius = optarg; break;
		case NOISE: noise = optarg; break;
		case SEED: seed = optarg; break;
		case STRETCH: stretch = optarg; break;
		case AXIS: axis = optarg; break;
		default: return c->status; /* OPT_STOP */
		}
	if (end_options(c, 0))
		return 2;
	struct mrdem_sphere_opts o;
	mrdem_sphere_opts_default(&o);
	unsigned tris = o.triangles;
	if (given_unsigned("--triangles", triangles, &tris) ||
	    given_double("--radius", radius, &o.radius) ||
	    given_double("--noise", noise, &o.noise) ||
	    given_u64("--seed", seed, UINT64_MAX, &o.seed) ||
	    given_double("--stretch", stretch, &o.stretch))
		return 2;
	o.triangles = tris;
	const char *ax = axis ? axis : "x";
	if (!strcmp(ax, "x") || !strcmp(ax, "y") || !strcmp(ax, "z"))
		o.stretch_axis = ax[0] - 'x';
	else
		return usage_error(c, "--axis must be x, y or z, not '%s'", ax);
	/* each only shapes what the other does: alone it would go unused */
	if (seed && o.noise == 1)
		return usage_error(c, "--seed applies to --noise ETA > 1 only (the seed of the "
				      "noise)%s", "");
	if (axis && o.stretch == 1)
		return usage_error(c, "--axis applies to --stretch ETA != 1 only (the axis of the "
				      "stretch)%s", "");
	struct mrdem_mesh m;
	mrdem_mesh_init(&m);
	return write_made(c, "sphere", &m, mrdem_mesh_sphere(&m, &o));
}

static int cmd_box(struct cmdline *c, int argc, char **argv)
{
	enum { SIZE = OPT_OWN, DIVISIONS };
	static const struct option opts[] = {
		{ "size", required_argument, NULL, SIZE },
		{ "divisions", required_argument, NULL, DIVISIONS },
		NAME_OPTION, OUTPUT_OPTION, HELP_OPTION, { NULL, 0, NULL, 0 },
	};
	const char *sizes[3], *divisions = NULL;
	int nsize = 0;
	start_options(c, usage_box, argc, argv);
	int ch;
	while ((ch = next_option(c, opts)) != OPT_END)
		switch (ch) {
		case SIZE:
			if ((nsize = take_values(c, "size", 1, 3, sizes)) < 0)
				return 2;
			break;
		case DIVISIONS: divisions = optarg; break;
		default: return c->status; /* OPT_STOP */
		}
	if (end_options(c, 0))
		return 2;
	double size[3] = { 1, 1, 1 };
	unsigned n = 1;
	for (int k = 0; k < nsize; k++)
		if (mrdem_parse_double("--size", sizes[k], &size[k]))
			return 2;
	if (nsize == 1)
		size[1] = size[2] = size[0];
	if (given_unsigned("--divisions", divisions, &n))
		return 2;
	struct mrdem_mesh m;
	mrdem_mesh_init(&m);
	return write_made(c, "box", &m, mrdem_mesh_box(&m, size, n));
}

static int cmd_plane(struct cmdline *c, int argc, char **argv)
{
	enum { OPEN = OPT_OWN, SIZE, DIVISIONS, TILT };
	static const struct option opts[] = {
		{ "open", no_argument, NULL, OPEN },
		{ "size", required_argument, NULL, SIZE },
		{ "divisions", required_argument, NULL, DIVISIONS },
		{ "tilt", required_argument, NULL, TILT },
		NAME_OPTION, OUTPUT_OPTION, HELP_OPTION, { NULL, 0, NULL, 0 },
	};
	const char *sizes[2] = { NULL, NULL }, *divisions[2] = { NULL, NULL }, *tilt_s = NULL;
	int open = 0;
	start_options(c, usage_plane, argc, argv);
	int ch;
	while ((ch = next_option(c, opts)) != OPT_END)
		switch (ch) {
		case OPEN: open = 1; break;
		case SIZE:
			if (take_values(c, "size", 2, 2, sizes) < 0)
				return 2;
			break;
		case DIVISIONS:
			if (take_values(c, "divisions", 1, 2, divisions) < 0)
				return 2;
			break;
		case TILT: tilt_s = optarg; break;
		default: return c->status; /* OPT_STOP */
		}
	if (end_options(c, 0))
		return 2;
	if (!open)
		return usage_error(c, "a plane is an open mesh, usable only by fixed particles: "
				      "pass --open to accept it%s",
				   "");
	double sx = 10, sy = 10, tilt = 0;
	unsigned nx = 1, ny;
	if (given_double("--size", sizes[0], &sx) || given_double("--size", sizes[1], &sy) ||
	    given_unsigned("--divisions", divisions[0], &nx) ||
	    given_double("--tilt", tilt_s, &tilt))
		return 2;
	if (!(fabs(tilt) <= MRDEM_PLANE_MAX_TILT)) /* mrdem_mesh_plane's range, named as an option */
		return usage_error(c, "--tilt: '%s' must be an angle in degrees from -180 to 180",
				   tilt_s);
	ny = nx;
	if (given_unsigned("--divisions", divisions[1], &ny))
		return 2;
	struct mrdem_mesh m;
	mrdem_mesh_init(&m);
	return write_made(c, "plane", &m, mrdem_mesh_plane(&m, sx, sy, nx, ny, tilt));
}

static int cmd_cylinder(struct cmdline *c, int argc, char **argv)
{
	enum { RADIUS = OPT_OWN, HEIGHT, SEGMENTS };
	static const struct option opts[] = {
		{ "radius", required_argument, NULL, RADIUS },
		{ "height", required_argument, NULL, HEIGHT },
		{ "segments", required_argument, NULL, SEGMENTS },
		NAME_OPTION, OUTPUT_OPTION, HELP_OPTION, { NULL, 0, NULL, 0 },
	};
	const char *radius = NULL, *height = NULL, *segments = NULL;
	start_options(c, usage_cylinder, argc, argv);
	int ch;
	while ((ch = next_option(c, opts)) != OPT_END)
		switch (ch) {
		case RADIUS: radius = optarg; break;
		case HEIGHT: height = optarg; break;
		case SEGMENTS: segments = optarg; break;
		default: return c->status; /* OPT_STOP */
		}
	if (end_options(c, 0))
		return 2;
	double r = 1, h = 2;
	unsigned s = 32;
	if (given_double("--radius", radius, &r) || given_double("--height", height, &h) ||
	    given_unsigned("--segments", segments, &s))
		return 2;
	struct mrdem_mesh m;
	mrdem_mesh_init(&m);
	return write_made(c, "cylinder", &m, mrdem_mesh_cylinder(&m, r, h, s));
}

/* The profile's 2 n numbers, the most a command line may hold. */
#define PROFILE_MAX_VALUES 4096

static int cmd_revolve(struct cmdline *c, int argc, char **argv)
{
	enum { PROFILE = OPT_OWN, SEGMENTS, DIVISIONS, OPEN };
	static const struct option opts[] = {
		{ "profile", required_argument, NULL, PROFILE },
		{ "segments", required_argument, NULL, SEGMENTS },
		{ "divisions", required_argument, NULL, DIVISIONS },
		{ "open", no_argument, NULL, OPEN },
		NAME_OPTION, OUTPUT_OPTION, HELP_OPTION, { NULL, 0, NULL, 0 },
	};
	static const char *vals[PROFILE_MAX_VALUES];
	const char *segments = NULL, *divisions = NULL;
	int nvals = 0, open = 0;
	start_options(c, usage_revolve, argc, argv);
	int ch;
	while ((ch = next_option(c, opts)) != OPT_END)
		switch (ch) {
		case PROFILE:
			if ((nvals = take_values(c, "profile", 4, PROFILE_MAX_VALUES, vals)) < 0)
				return 2;
			break;
		case SEGMENTS: segments = optarg; break;
		case DIVISIONS: divisions = optarg; break;
		case OPEN: open = 1; break;
		default: return c->status; /* OPT_STOP */
		}
	if (end_options(c, 0))
		return 2;
	if (!nvals)
		return usage_error(c, "option '--%s' is required", "profile");
	if (nvals % 2)
		return usage_error(c, "option '--profile' takes pairs R Z, got an odd count "
				      "ending in %s", vals[nvals - 1]);
	unsigned s = 64, d = 1;
	double *rz = mrdem_xmalloc((size_t)nvals * sizeof *rz);
	int bad = given_unsigned("--segments", segments, &s) ||
		  given_unsigned("--divisions", divisions, &d);
	for (int k = 0; k < nvals && !bad; k++)
		bad = mrdem_parse_double("--profile", vals[k], &rz[k]) != 0;
	if (bad) {
		free(rz);
		return 2;
	}
	if (!open && nvals >= 4 && !(rz[0] == 0 && rz[nvals - 2] == 0)) {
		free(rz);
		return usage_error(c, "this profile does not start and end on the axis, so its "
				      "surface is open, usable only by fixed particles: pass "
				      "--open to accept it%s", "");
	}
	struct mrdem_mesh m;
	mrdem_mesh_init(&m);
	int rc = mrdem_mesh_revolve(&m, rz, (size_t)nvals / 2, s, d);
	free(rz);
	return write_made(c, "revolve", &m, rc);
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

/* Every mesh record of a stream (or the one named only), each
 * re-validated. */
static int import_stream(struct cmdline *c, const char *path, const char *only, unsigned flags,
			 double weld)
{
	const char *rename = c->name;
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
		rc = write_shapes(c, c->output, s, n);
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
	enum { FORMAT = OPT_OWN, OPEN, SHAPE, WELD };
	static const struct option opts[] = {
		{ "format", required_argument, NULL, FORMAT },
		{ "open", no_argument, NULL, OPEN },
		{ "shape", required_argument, NULL, SHAPE },
		NAME_OPTION, OUTPUT_OPTION,
		{ "weld", required_argument, NULL, WELD },
		HELP_OPTION, { NULL, 0, NULL, 0 },
	};
	const char *fs = NULL, *shape = NULL, *weld_s = NULL;
	unsigned flags = 0;
	start_options(c, usage_import, argc, argv);
	int ch;
	while ((ch = next_option(c, opts)) != OPT_END)
		switch (ch) {
		case FORMAT: fs = optarg; break;
		case OPEN: flags = MRDEM_MESH_ALLOW_OPEN; break;
		case SHAPE: shape = optarg; break;
		case WELD: weld_s = optarg; break;
		default: return c->status; /* OPT_STOP */
		}
	if (end_options(c, 1))
		return 2;
	if (!c->input)
		return usage_error(c, "import needs one input FILE%s", "");
	const char *path = c->input;
	int std = !strcmp(path, "-");
	enum mrdem_mesh_format f = MRDEM_MESH_FORMAT_UNKNOWN;
	if (fs) {
		f = mrdem_mesh_format_by_name(fs);
		if (f == MRDEM_MESH_FORMAT_UNKNOWN || f == MRDEM_MESH_FORMAT_STL_ASCII)
			return usage_error(c, "--format must be obj, stl or stream, not '%s'", fs);
	} else if (std) {
		return usage_error(c, "reading standard input needs --format obj, stl or stream%s",
				   "");
	}
	double weld = 0;
	if (given_double("--weld", weld_s, &weld))
		return 2;
	if (weld_s && !(weld > 0))
		return usage_error(c, "--weld: the tolerance must be positive, not '%s'", weld_s);
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
		return import_stream(c, path, shape, flags, weld);
	if (shape)
		return usage_error(c, "--shape applies to mesh streams only%s", "");

	struct mrdem_mesh m;
	mrdem_mesh_init(&m);
	if (mrdem_mesh_load(path, f, flags, weld, &m))
		return 1;
	char *name = base_name(std ? "stdin" : path);
	int rc = write_one(c, name, &m);
	free(name);
	return rc;
}

static int cmd_export(struct cmdline *c, int argc, char **argv)
{
	enum { FORMAT = OPT_OWN, SHAPE };
	static const struct option opts[] = {
		{ "format", required_argument, NULL, FORMAT },
		{ "shape", required_argument, NULL, SHAPE },
		NAME_OPTION, OUTPUT_OPTION, HELP_OPTION, { NULL, 0, NULL, 0 },
	};
	const char *fs = NULL, *only = NULL;
	start_options(c, usage_export, argc, argv);
	int ch;
	while ((ch = next_option(c, opts)) != OPT_END)
		switch (ch) {
		case FORMAT: fs = optarg; break;
		case SHAPE: only = optarg; break;
		default: return c->status; /* OPT_STOP */
		}
	if (end_options(c, 1))
		return 2;
	if (!fs)
		return usage_error(c, "export needs --format obj, stl or stl-ascii%s", "");
	enum mrdem_mesh_format f = mrdem_mesh_format_by_name(fs);
	if (f != MRDEM_MESH_FORMAT_OBJ && f != MRDEM_MESH_FORMAT_STL &&
	    f != MRDEM_MESH_FORMAT_STL_ASCII)
		return usage_error(c, "--format must be obj, stl or stl-ascii, not '%s'", fs);
	struct mrdem_mesh m;
	char *shape = NULL;
	mrdem_mesh_init(&m);
	if (mrdem_mesh_read_stream(c->input ? c->input : "-", only, &m, &shape))
		return 1;
	const char *name = c->name ? c->name : shape;
	int rc;
	if (f == MRDEM_MESH_FORMAT_OBJ)
		rc = mrdem_mesh_write_obj(c->output, name, &m);
	else
		rc = mrdem_mesh_write_stl(c->output, name, &m, f == MRDEM_MESH_FORMAT_STL_ASCII);
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
		{ "cylinder", cmd_cylinder }, { "revolve", cmd_revolve },
		{ "import", cmd_import }, { "export", cmd_export },
	};
	for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++)
		if (!strcmp(cmd, cmds[i].name)) {
			struct cmdline c = { .cmd = cmd, .argc = argc, .argv = argv };
			return cmds[i].run(&c, argc - 1, argv + 1);
		}
	fprintf(stderr, "%s: unknown command '%s'\ntry 'mrdem-mesh --help'\n", mrdem_progname(), cmd);
	return 2;
}
