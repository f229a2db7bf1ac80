/* mrdem-init: turn a YAML scene into the initial state stream
 * (setup, one mesh record per shape with the tree it was loaded with, the
 * frame at step 0). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "common/scene/scene.h"
#include "common/sim/overlap.h"
#include "common/util/error.h"
#include "common/util/parse.h"
#include "common/util/threads.h"
#include "formats/stream/meta.h"
#include "formats/stream/records.h"
#include "formats/foreign/scene_yaml.h"
#include "formats/stream/stream.h"

static const char usage[] =
	"usage: mrdem-init [-o FILE] [--allow-overlap] SCENE.yaml\n"
	"\n"
	"Read a YAML scene (schema: docs/scene.md; '-' reads standard input) and\n"
	"write its initial state as an mrdem stream: the setup record, one mesh\n"
	"record per shape (followed by its surrogate tree when the shape came from\n"
	"a stream that holds one, as mrdem-tree writes) and the particle frame at\n"
	"step 0.\n"
	"\n"
	"  -o, --output FILE  write to FILE (default: standard output, which must\n"
	"                     not be a terminal)\n"
	"  --allow-overlap    start even when the particles' initial overlaps hold\n"
	"                     more energy than the scene's kinetic and potential energy\n"
	"                     (as the scene key contact.allow_overlap: true); the\n"
	"                     start is then not searched (mrdem-run reports it)\n"
	"  -h, --help         show this help\n"
	"\n"
	"The start is searched for contacts as the first step will see them. Every\n"
	"overlap deeper than 0.5 of the two halos is reported on standard error (how\n"
	"many, the deepest pair with ids and depth, the contact energy against the\n"
	"kinetic energy and gravity's potential energy above the lowest particle);\n"
	"when the contact energy exceeds that energy the scene is refused, nothing is\n"
	"written and the exit status is 1 (docs/dynamics.md, \"Initial overlaps\").\n"
	"\n"
	"Mesh files named in the scene are found relative to the scene's directory.\n"
	"Every error in the scene is reported as FILE:LINE:COLUMN and nothing is\n"
	"written.\n"
	"\n"
	"Exit status: 0 success, 1 error (bad input, failed computation), 2 usage\n"
	"error (unknown option, bad option value, an option given twice, too many\n"
	"arguments).\n";

/* Report the start's overlaps; refuse (-1) those that would throw the
 * particles apart. Overlaps allowed are not searched for here: a scene
 * set up inside its halos on purpose (a narrow-phase experiment, a
 * packing) may hold millions, and mrdem-run reports them when it starts. */
static int check_overlaps(const char *path, struct mrdem_scene *s, int allowed)
{
	struct mrdem_sim_opts o;
	struct mrdem_overlap ov;
	char what[512];
	if (allowed)
		return 0;
	mrdem_sim_opts_default(&o, s);
	if (mrdem_overlap_measure(s, &o, &ov))
		return -1;
	if (!ov.deep)
		return 0;
	mrdem_overlap_describe(&ov, what, sizeof what);
	if (!mrdem_overlap_excessive(&ov) || allowed) {
		mrdem_warning("%s: %s", path, what);
		return 0;
	}
	return mrdem_error("%s: %s: the first steps would throw the particles apart; move them "
			   "apart, or give --allow-overlap (scene key contact.allow_overlap: true) "
			   "if the overlap is intended", path, what);
}

int main(int argc, char **argv)
{
	enum { OPT_ALLOW_OVERLAP = 256 };
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"allow-overlap", no_argument, NULL, OPT_ALLOW_OVERLAP},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *out = "-";
	int c, li, allow_overlap = 0;
	struct mrdem_opts_seen seen = {{0}};

	mrdem_set_progname(argv[0]);
	mrdem_threads_init();
	while ((c = mrdem_getopt_once(argc, argv, "ho:", opts, &li, &seen)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case OPT_ALLOW_OVERLAP:
			allow_overlap = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs("try 'mrdem-init --help'\n", stderr);
			return 2;
		}
	}
	if (argc - optind != 1) {
		fputs("mrdem-init: give exactly one scene file (try 'mrdem-init --help')\n", stderr);
		return 2;
	}

	struct mrdem_scene s;
	mrdem_scene_init(&s);
	/* Load everything before opening the output: a bad scene leaves no file. */
	if (mrdem_scene_load_yaml(argv[optind], &s) ||
	    check_overlaps(argv[optind], &s, allow_overlap || s.setup.allow_overlap)) {
		mrdem_scene_release(&s);
		return 1;
	}

	struct mrdem_writer w;
	int rc = 1;
	struct mrdem_meta meta;
	mrdem_meta_init(&meta, "mrdem-init", argc, argv);
	int bad = mrdem_meta_add_scene(&meta, argv[optind], &s);
	if (!bad && !mrdem_writer_open(&w, out, 0)) {
		if (mrdem_write_meta(&w, &meta) || mrdem_scene_write(&w, &s))
			mrdem_writer_abort(&w); /* removes the temporary: no partial output */
		else if (!mrdem_writer_commit(&w)) /* aborts by itself on failure */
			rc = 0;
	}
	mrdem_meta_release(&meta);
	mrdem_scene_release(&s);
	return rc;
}
