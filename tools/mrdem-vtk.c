/* mrdem-vtk: frame stream -> ParaView files (docs/output.md). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util/error.h"
#include "formats/stream/records.h"
#include "formats/stream/filter.h"
#include "formats/foreign/vtk.h"

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
	/* options */
	const char *in, *dir;
	int enc, help;
	/* what this run made */
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

struct job {
	struct run *run;
	struct mrdem_contacts pending;  /* contacts of the current frame */
	int have_pending;
	size_t nframes, ncontact_files;
	uint64_t unmatched, first_unmatched;
};

static int flush_contacts(struct mrdem_filter *f)
{
	struct job *j = f->ctx;
	if (!j->have_pending)
		return 0;
	if (write_contacts(j->run, &j->pending, f->scene.frame.time, j->nframes - 1))
		return -1;
	j->ncontact_files++;
	j->pending.n = 0;
	j->have_pending = 0;
	return 0;
}

static int before(struct mrdem_filter *f, const struct mrdem_record *rec)
{
	return rec->type == MRDEM_REC_FRAME ? flush_contacts(f) : 0;
}

static int take(struct mrdem_filter *f, const struct mrdem_record *rec)
{
	struct job *j = f->ctx;
	if (rec->type == MRDEM_REC_FRAME) {
		if (write_frame(j->run, &f->scene, j->nframes))
			return mrdem_error("%s: record %llu: frame of step %llu not written", f->src,
					   (unsigned long long)rec->index,
					   (unsigned long long)f->scene.frame.step);
		j->nframes++;
		return 0;
	}
	struct mrdem_contacts cs;
	if (mrdem_decode_contacts(rec, f->src, &cs))
		return -1;
	if (f->frames && cs.step == f->scene.frame.step) {
		merge_contacts(&j->pending, &cs);
		j->pending.step = cs.step;
		j->have_pending = 1;
	} else if (j->unmatched++ == 0) {
		j->first_unmatched = rec->index;
	}
	mrdem_contacts_release(&cs);
	return 0;
}

static int finish(struct mrdem_filter *f)
{
	return flush_contacts(f);
}

/* Options into r (reset first). Returns 0, or the exit status 2 for a
 * usage error; after --help, 0 with r->help set. */
static int parse_options(struct run *r, int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"binary", no_argument, NULL, 'b'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	*r = (struct run){.dir = "vtk", .enc = MRDEM_VTK_ASCII};
	int c;
	while ((c = getopt_long(argc, argv, "o:bh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': r->dir = optarg; break;
		case 'b': r->enc = MRDEM_VTK_BASE64; break;
		case 'h': fputs(usage, stdout); r->help = 1; return 0;
		default: fputs("try 'mrdem-vtk --help'\n", stderr); return 2;
		}
	}
	if (argc - optind > 1) {
		fputs("mrdem-vtk: give at most one input (try 'mrdem-vtk --help')\n", stderr);
		return 2;
	}
	if (!*r->dir) {
		fputs("mrdem-vtk: -o needs a directory name\n", stderr);
		return 2;
	}
	r->in = optind < argc ? argv[optind] : "-";
	return 0;
}

/* Write the frames, contacts and series of run->in into run->dir (made
 * already); on an error, remove what this run made. */
static int convert(struct run *run, int argc, char **argv)
{
	const char *in = run->in;
	run->pvd_path = path_in(run->dir, "series.pvd");
	struct job j = {.run = run};
	mrdem_contacts_init(&j.pending);
	struct mrdem_filter f;
	mrdem_filter_init(&f, "mrdem-vtk");
	f.takes = MRDEM_TYPE_BIT(MRDEM_REC_FRAME) | MRDEM_TYPE_BIT(MRDEM_REC_CONTACTS);
	f.before = before;
	f.on_record = take;
	f.on_end = finish;
	f.ctx = &j;
	int rc = mrdem_filter_run(&f, in, NULL, argc, argv);
	/* Damaged input: the frames before the damage are kept, with their series. */
	if ((rc == 0 || f.damaged) && j.nframes == 0) {
		mrdem_error("%s: no frame record in the stream (nothing to draw)", in);
		rc = -1;
		f.damaged = 0;
	}
	if ((rc == 0 || f.damaged) && mrdem_vtk_write_pvd(run->pvd_path, run->pvd, run->npvd))
		rc = -1, f.damaged = 0;
	if (rc == 0 && j.unmatched)
		mrdem_warning("%s: %llu contacts record(s), the first record %llu, do not follow a "
			      "frame of their step; not written",
			      in, (unsigned long long)j.unmatched,
			      (unsigned long long)j.first_unmatched);
	if ((rc == 0 || f.damaged) && isatty(STDERR_FILENO))
		fprintf(stderr, "mrdem-vtk: %zu frame(s), %zu with contacts: open %s in ParaView\n",
			j.nframes, j.ncontact_files, run->pvd_path);
	if (rc != 0 && !f.damaged)
		remove_created(run);
	mrdem_contacts_release(&j.pending);
	mrdem_filter_release(&f);
	return rc;
}

int main(int argc, char **argv)
{
	mrdem_set_progname(argv[0]);
	struct run run;
	int rc = parse_options(&run, argc, argv);
	if (rc || run.help)
		return rc;
	/* A missing input is reported before any directory is made. */
	if (strcmp(run.in, "-") && access(run.in, R_OK))
		return mrdem_error("%s: cannot open: %s", run.in, strerror(errno)), 1;
	if (make_dir(&run, run.dir)) {
		remove_created(&run);
		run_release(&run);
		return 1;
	}
	rc = convert(&run, argc, argv);
	run_release(&run);
	return rc == 0 ? 0 : 1;
}
