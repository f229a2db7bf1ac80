/* mrdem-init: turn a YAML scene into the initial state stream
 * (setup, one mesh record per shape with the tree it was loaded with, the
 * frame at step 0). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "common/scene/scene.h"
#include "common/util/error.h"
#include "common/util/parse.h"
#include "common/util/threads.h"
#include "formats/stream/meta.h"
#include "formats/stream/records.h"
#include "formats/foreign/scene_yaml.h"
#include "formats/stream/stream.h"

static const char usage[] =
	"usage: mrdem-init [-o FILE] SCENE.yaml\n"
	"\n"
	"Read a YAML scene (schema: docs/scene.md; '-' reads standard input) and\n"
	"write its initial state as an mrdem stream: the setup record, one mesh\n"
	"record per shape (followed by its surrogate tree when the shape came from\n"
	"a stream that holds one, as mrdem-tree writes) and the particle frame at\n"
	"step 0.\n"
	"\n"
	"  -o, --output FILE  write to FILE (default: standard output, which must\n"
	"                     not be a terminal)\n"
	"  -h, --help         show this help\n"
	"\n"
	"Mesh files named in the scene are found relative to the scene's directory.\n"
	"Every error in the scene is reported as FILE:LINE:COLUMN and nothing is\n"
	"written.\n"
	"\n"
	"Exit status: 0 success, 1 error (bad input, failed computation), 2 usage\n"
	"error (unknown option, bad option value, an option given twice, too many\n"
	"arguments).\n";

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *out = "-";
	int c, li;
	struct mrdem_opts_seen seen = {{0}};

	mrdem_set_progname(argv[0]);
	mrdem_threads_init();
	while ((c = mrdem_getopt_once(argc, argv, "ho:", opts, &li, &seen)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
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
	if (mrdem_scene_load_yaml(argv[optind], &s))
		return 1;

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
