/* mrdem-vtk: frame stream -> ParaView files (docs/output.md). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util/error.h"
#include "formats/records.h"
#include "formats/stream.h"
#include "formats/vtk.h"

static const char usage[] =
	"usage: mrdem-vtk [-o DIR] [--binary] [INPUT]\n"
	"\n"
	"Convert a frame stream (INPUT, or standard input) into VTK XML PolyData for\n"
	"ParaView: DIR/frame-NNNNNN.vtp holds the particle surfaces of the N-th frame in\n"
	"world space (cell data particle_id, shape, fixed, triangle, velocity,\n"
	"angular_velocity), DIR/contacts-NNNNNN.vtp its contact points when the stream\n"
	"has contacts records for that frame's step (point data normal, dist, depth,\n"
	"particle_a, particle_b, plane, tri_a, tri_b), and DIR/series.pvd the time\n"
	"series (open it in ParaView; contacts are part 1). Every file is written under\n"
	"a temporary name and renamed when complete; on an error the files and\n"
	"directories this run created are removed.\n"
	"\n"
	"  -o, --output DIR  output directory, created if missing (default: vtk)\n"
	"  -b, --binary      inline base64 data arrays (smaller, faster) instead of ASCII\n"
	"  -h, --help        show this help\n"
	"\n"
	"Exit status: 0 success, 1 error (bad input, failed computation), 2 usage\n"
	"error (unknown option, bad option value, too many arguments).\n";

struct run {
	const char *dir;
	int enc;
	char **created;        /* files written so far, removed on failure */
	size_t ncreated;
	char **dirs;           /* directories made by this run, outermost first */
	size_t ndirs;
	struct mrdem_pvd_entry *pvd;
	size_t npvd;
	char *pvd_path;
};

static char *path_in(const char *dir, const char *name)
{
	size_t len = strlen(dir) + strlen(name) + 2;
	char *p = mrdem_xmalloc(len);
	snprintf(p, len, "%s/%s", dir, name);
	return p;
}

/* Record a new file and its place in the series. */
static void add_file(struct run *r, const char *name, double time, unsigned part)
{
	r->created = mrdem_xrealloc(r->created, (r->ncreated + 1) * sizeof *r->created);
	r->created[r->ncreated++] = path_in(r->dir, name);
	r->pvd = mrdem_xrealloc(r->pvd, (r->npvd + 1) * sizeof *r->pvd);
	r->pvd[r->npvd++] = (struct mrdem_pvd_entry){.time = time, .part = part,
						     .file = mrdem_xstrdup(name)};
}

/* On failure nothing this run made may remain: its files, then the
 * directories it made, innermost first. */
static void remove_created(struct run *r)
{
	for (size_t k = 0; k < r->ncreated; k++)
		unlink(r->created[k]);
	for (size_t k = r->ndirs; k-- > 0;)
		rmdir(r->dirs[k]);
}

static void run_release(struct run *r)
{
	for (size_t k = 0; k < r->ncreated; k++)
		free(r->created[k]);
	for (size_t k = 0; k < r->ndirs; k++)
		free(r->dirs[k]);
	free(r->dirs);
	for (size_t k = 0; k < r->npvd; k++)
		free((char *)r->pvd[k].file);
	free(r->created);
	free(r->pvd);
	free(r->pvd_path);
}

/* mkdir -p, remembering what it made */
static int make_dir(struct run *r, const char *dir)
{
	char *p = mrdem_xstrdup(dir);
	int ret = 0;
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		struct stat st;
		if (mkdir(p, 0777) == 0) {
			r->dirs = mrdem_xrealloc(r->dirs, (r->ndirs + 1) * sizeof *r->dirs);
			r->dirs[r->ndirs++] = mrdem_xstrdup(p);
		} else if (errno != EEXIST) {
			ret = mrdem_error("%s: cannot create directory: %s", p, strerror(errno));
		}
		if (!ret && (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)))
			ret = mrdem_error("%s: not a directory", p);
		*s = c;
		if (ret || c == '\0')
			break;
	}
	free(p);
	return ret;
}

static int write_frame(struct run *r, const struct mrdem_scene *s, size_t index)
{
	char name[64];
	snprintf(name, sizeof name, "frame-%06zu.vtp", index);
	char *path = path_in(r->dir, name);
	int ret = mrdem_vtk_write_surfaces(path, s, r->enc);
	free(path);
	if (!ret)
		add_file(r, name, s->frame.time, 0);
	return ret;
}

static int write_contacts(struct run *r, const struct mrdem_contacts *c, double time, size_t index)
{
	char name[64];
	snprintf(name, sizeof name, "contacts-%06zu.vtp", index);
	char *path = path_in(r->dir, name);
	int ret = mrdem_vtk_write_contacts(path, c, time, r->enc);
	free(path);
	if (!ret)
		add_file(r, name, time, 1);
	return ret;
}

/* Append the contacts of src to dst. */
static void merge_contacts(struct mrdem_contacts *dst, const struct mrdem_contacts *src)
{
	for (size_t k = 0; k < src->n; k++)
		*mrdem_contacts_push(dst) = src->c[k];
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"binary", no_argument, NULL, 'b'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	mrdem_set_progname(argv[0]);
	struct run run = {.dir = "vtk", .enc = MRDEM_VTK_ASCII};
	int c;
	while ((c = getopt_long(argc, argv, "o:bh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': run.dir = optarg; break;
		case 'b': run.enc = MRDEM_VTK_BASE64; break;
		case 'h': fputs(usage, stdout); return 0;
		default: fputs("try 'mrdem-vtk --help'\n", stderr); return 2;
		}
	}
	if (argc - optind > 1) {
		fputs("mrdem-vtk: give at most one input (try 'mrdem-vtk --help')\n", stderr);
		return 2;
	}
	if (!*run.dir) {
		fputs("mrdem-vtk: -o needs a directory name\n", stderr);
		return 2;
	}
	const char *in = optind < argc ? argv[optind] : "-";

	struct mrdem_reader r;
	if (mrdem_reader_open(&r, in))
		return 1;
	if (make_dir(&run, run.dir)) {
		remove_created(&run);
		run_release(&run);
		mrdem_reader_close(&r);
		return 1;
	}
	run.pvd_path = path_in(run.dir, "series.pvd");

	struct mrdem_scene scene;
	mrdem_scene_init(&scene);
	struct mrdem_contacts pending;  /* contacts of the current frame */
	mrdem_contacts_init(&pending);
	int have_pending = 0;
	size_t nframes = 0, ncontact_files = 0;
	uint64_t unmatched = 0, first_unmatched = 0;

	struct mrdem_record rec;
	int rc;
	while ((rc = mrdem_reader_next(&r, &rec)) == 1) {
		if (rec.type == MRDEM_REC_FRAME && have_pending) {
			if (write_contacts(&run, &pending, scene.frame.time, nframes - 1)) {
				rc = -1;
				break;
			}
			ncontact_files++;
			pending.n = 0;
			have_pending = 0;
		}
		if (mrdem_scene_absorb(&scene, &rec, r.name) < 0) {
			rc = -1;
			break;
		}
		if (rec.type == MRDEM_REC_FRAME) {
			if (write_frame(&run, &scene, nframes)) {
				mrdem_error("%s: record %llu: frame of step %llu not written", r.name,
					    (unsigned long long)rec.index,
					    (unsigned long long)scene.frame.step);
				rc = -1;
				break;
			}
			nframes++;
		} else if (rec.type == MRDEM_REC_CONTACTS) {
			struct mrdem_contacts cs;
			if (mrdem_decode_contacts(&rec, r.name, &cs)) {
				rc = -1;
				break;
			}
			if (nframes && cs.step == scene.frame.step) {
				merge_contacts(&pending, &cs);
				pending.step = cs.step;
				have_pending = 1;
			} else if (unmatched++ == 0) {
				first_unmatched = rec.index;
			}
			mrdem_contacts_release(&cs);
		}
	}
	if (rc == 0 && have_pending) {
		rc = write_contacts(&run, &pending, scene.frame.time, nframes - 1);
		ncontact_files += rc == 0;
	}
	if (rc == 0 && nframes == 0)
		rc = mrdem_error("%s: no frame record in the stream (nothing to draw)", r.name);
	if (rc == 0)
		rc = mrdem_vtk_write_pvd(run.pvd_path, run.pvd, run.npvd);
	if (rc == 0 && unmatched)
		mrdem_warning("%s: %llu contacts record(s), the first record %llu, do not follow a "
			      "frame of their step; not written",
			      r.name, (unsigned long long)unmatched,
			      (unsigned long long)first_unmatched);
	if (rc == 0 && isatty(STDERR_FILENO))
		fprintf(stderr, "mrdem-vtk: %zu frame(s), %zu with contacts: open %s in ParaView\n",
			nframes, ncontact_files, run.pvd_path);
	if (rc != 0)
		remove_created(&run);
	mrdem_reader_close(&r);
	mrdem_contacts_release(&pending);
	mrdem_scene_release(&scene);
	run_release(&run);
	return rc == 0 ? 0 : 1;
}
