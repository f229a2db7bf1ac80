/* mrdem-vtk: frame stream -> ParaView files (docs/output.md). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util/error.h"
#include "common/util/parse.h"
#include "common/util/threads.h"
#include "formats/stream/rank_merge.h"
#include "formats/stream/records.h"
#include "formats/stream/staged_files.h"
#include "formats/stream/filter.h"
#include "formats/foreign/vtk.h"
#include "formats/foreign/vtk_plane_track.h"

static const char usage[] =
	"usage: mrdem-vtk [-o DIR] [--surfaces] [--double] [--ascii | --binary] [INPUT]\n"
	"\n"
	"Convert a frame stream (INPUT, or standard input; a directory: the streams\n"
	"of a parallel run's ranks, merged as mrdem-merge does) into VTK XML PolyData\n"
	"for ParaView (docs/output.md). By default particles are instances of their shapes:\n"
	"DIR/shape-NNN.vtp holds each shape's surface once, in its own frame (vertices\n"
	"relative to the centre of mass), and DIR/frame-NNNNNN.vtp one point per\n"
	"particle of the N-th frame at its centre of mass, with point data particle_id,\n"
	"shape, fixed, orientation (quaternion w x y z), velocity, angular_velocity and,\n"
	"when the frame has contacts, contacts (contact points per particle), force and\n"
	"torque (totals with gravity); show them as oriented glyphs of the shapes\n"
	"(docs/paraview/mrdem_glyphs.py).\n"
	"DIR/contacts-NNNNNN.vtp holds the frame's contact points when the stream has\n"
	"contacts records for its step (point data normal, overlap = depth * normal,\n"
	"force on particle a, dist, depth, particle_a, particle_b, plane, tri_a, tri_b).\n"
	"Forces are the scene's force model's for the frame's state and contacts, the\n"
	"same library call a step makes (docs/dynamics.md). DIR/planes.vtp draws the\n"
	"analytic planes, each as the rectangle in it over every frame's particles,\n"
	"less what lies behind the other planes (cell data plane, normal); moving\n"
	"planes get one DIR/planes-NNNNNN.vtp per frame, where they are at its time.\n"
	"DIR/series.pvd is the time series of all three (contacts are part 1, planes\n"
	"part 2), DIR/particles.pvd that of the particles alone. Every file is written\n"
	"under a temporary name and renamed into place when the whole series is\n"
	"complete: on an error the files already in DIR are left as they were and the\n"
	"directories this run created removed. Once the series is in place, the files\n"
	"of an earlier one that it did not replace (frame-, contacts- and\n"
	"shape-NNN.vtp, planes.vtp, planes-NNNNNN.vtp, particles.pvd) are removed: DIR\n"
	"holds this series alone; other names are left alone.\n"
	"\n"
	"  -o, --output DIR  output directory, created if missing (default: vtk)\n"
	"  -s, --surfaces    every particle's surface in world space per frame instead\n"
	"                    (cell data per triangle; large: for small runs)\n"
	"  -d, --double      instances: Float64 positions, orientations and velocities\n"
	"                    (default Float32, enough for display)\n"
	"  -a, --ascii       ASCII data arrays (readable, large) instead of zlib-compressed\n"
	"                    appended binary data\n"
	"  -b, --binary      inline base64 data arrays, uncompressed\n"
	"  -h, --help        show this help\n"
	"\n"
	"Exit status: 0 success, 1 error (bad input, failed computation), 2 usage\n"
	"error (unknown option, bad option value, an option given twice, too many\n"
	"arguments).\n";

/* One export of a stream into DIR: its options, and the files it made. */
struct vtk_export {
	/* options */
	const char *in, *dir;
	int enc, help, surfaces;
	unsigned flags;         /* MRDEM_VTK_DOUBLE */
	/* what this run made: DIR and its files, staged until published */
	struct mrdem_staged_files files;
	struct mrdem_pvd_entry *pvd;
	size_t npvd;
	char *pvd_path, *particles_pvd_path;
};

/* Record a new file and its place in the series. */
static void add_file(struct vtk_export *ex, const char *name, double time, unsigned part)
{
	mrdem_staged_files_add(&ex->files, name);
	ex->pvd = mrdem_xrealloc(ex->pvd, (ex->npvd + 1) * sizeof *ex->pvd);
	ex->pvd[ex->npvd++] = (struct mrdem_pvd_entry){.time = time, .part = part,
						     .file = mrdem_xstrdup(name)};
}

static void export_release(struct vtk_export *ex)
{
	mrdem_staged_files_release(&ex->files);
	for (size_t k = 0; k < ex->npvd; k++)
		free((char *)ex->pvd[k].file);
	free(ex->pvd);
	free(ex->pvd_path);
	free(ex->particles_pvd_path);
}

/* The shapes whose files this run wrote. */
struct shape_files {
	int written;
	uint32_t n;
	struct mrdem_mesh *mesh;       /* copies: the filter's scene changes */
};

static void shape_files_release(struct shape_files *sf)
{
	for (uint32_t k = 0; k < sf->n; k++)
		mrdem_mesh_release(&sf->mesh[k]);
	free(sf->mesh);
}

static int same_mesh(const struct mrdem_mesh *a, const struct mrdem_mesh *b)
{
	return a->nverts == b->nverts && a->ntris == b->ntris &&
	       !memcmp(a->verts, b->verts, 3 * sizeof *a->verts * a->nverts) &&
	       !memcmp(a->tris, b->tris, 3 * sizeof *a->tris * a->ntris) &&
	       !memcmp(a->mass.com, b->mass.com, sizeof a->mass.com);
}

/* The shapes' files, at the first frame; a later concatenated input
 * stream must bring the same shapes, since its frames share the files. */
static int write_shapes(struct vtk_export *ex, const struct mrdem_filter *f, const struct mrdem_scene *s,
			struct shape_files *sf)
{
	if (sf->written) {
		int same = s->nshapes == sf->n;
		for (uint32_t k = 0; same && k < s->nshapes; k++)
			same = same_mesh(&s->shapes[k].mesh, &sf->mesh[k]);
		return same ? 0
			    : mrdem_error("%s: input stream %u has other shapes than the first; "
					  "its instances would show the wrong shapes (use --surfaces, "
					  "or convert the streams apart)",
					  f->src, f->streams);
	}
	for (uint32_t k = 0; k < s->nshapes; k++) {
		char name[64];
		snprintf(name, sizeof name, "shape-%03u.vtp", k);
		char *path = mrdem_staged_files_path(&ex->files, name);
		int ret = mrdem_vtk_write_shape(path, &s->shapes[k], ex->enc);
		free(path);
		if (ret)
			return -1;
		mrdem_staged_files_add(&ex->files, name);
	}
	sf->written = 1;
	sf->n = s->nshapes;
	sf->mesh = mrdem_xmalloc_array(s->nshapes ? s->nshapes : 1, sizeof *sf->mesh);
	for (uint32_t k = 0; k < s->nshapes; k++) {
		mrdem_mesh_init(&sf->mesh[k]);
		mrdem_mesh_copy(&sf->mesh[k], &s->shapes[k].mesh);
	}
	return 0;
}

static int write_frame(struct vtk_export *ex, const struct mrdem_scene *s, const struct mrdem_contacts *c,
		       const struct mrdem_forces *forces, size_t index)
{
	char name[64];
	snprintf(name, sizeof name, "frame-%06zu.vtp", index);
	char *path = mrdem_staged_files_path(&ex->files, name);
	int ret = ex->surfaces ? mrdem_vtk_write_surfaces(path, s, ex->enc)
			      : mrdem_vtk_write_instances(path, s, c, forces, ex->enc, ex->flags);
	free(path);
	if (!ret)
		add_file(ex, name, s->frame.time, 0);
	return ret;
}

static int write_contacts(struct vtk_export *ex, const struct mrdem_contacts *c, const double *force,
			  double time, size_t index)
{
	char name[64];
	snprintf(name, sizeof name, "contacts-%06zu.vtp", index);
	char *path = mrdem_staged_files_path(&ex->files, name);
	int ret = mrdem_vtk_write_contacts(path, c, force, time, ex->enc);
	free(path);
	if (!ret)
		add_file(ex, name, time, 1);
	return ret;
}

/* Append the contacts of src to dst. */
static void merge_contacts(struct mrdem_contacts *dst, const struct mrdem_contacts *src)
{
	for (size_t k = 0; k < src->n; k++)
		*mrdem_contacts_push(dst) = src->c[k];
}

/* A frame is written when the next frame or the end of its stream shows
 * that all its contacts records have arrived: instances count them. */
struct vtk_frame_writer {
	struct vtk_export *ex;
	int have_frame;                 /* a frame waits to be written */
	uint64_t frame_record;          /* its record index, for messages */
	struct mrdem_contacts pending;  /* contacts of that frame */
	int have_pending;
	struct shape_files shapes;      /* instances */
	struct mrdem_forces forces;     /* of the frame's contacts, as a step applies them */
	struct mrdem_bodies bodies;
	struct mrdem_id_index index;
	size_t nframes, ncontact_files;
	unsigned char *has_contacts;    /* per frame written: its contacts file too */
	uint64_t unmatched, first_unmatched;
	/* planes.vtp: the analytic planes of the frames written (each once,
	 * with its index in its setup) over the box of every particle's
	 * bounding sphere and halo in those frames */
	struct mrdem_plane *planes;
	uint32_t *plane_index;
	size_t nplanes;
	double lo[3], hi[3];
	int have_box, planes_written;
	/* with moving planes: each frame's planes, in planes-NNNNNN.vtp */
	struct mrdem_plane_track track;
};

/* Take the planes of the frame's setup that are new, and grow the box
 * by its particles. */
static void note_planes_and_bounds(struct vtk_frame_writer *fw, const struct mrdem_scene *s)
{
	const struct mrdem_setup *su = &s->setup;
	mrdem_plane_track_note(&fw->track, su);
	for (uint32_t k = 0; k < su->nplanes; k++) {
		size_t m = 0;
		while (m < fw->nplanes && memcmp(&fw->planes[m], &su->planes[k], sizeof *fw->planes))
			m++;
		if (m < fw->nplanes)
			continue;
		fw->planes = mrdem_xrealloc(fw->planes, (fw->nplanes + 1) * sizeof *fw->planes);
		fw->plane_index = mrdem_xrealloc(fw->plane_index,
						(fw->nplanes + 1) * sizeof *fw->plane_index);
		fw->planes[fw->nplanes] = su->planes[k];
		fw->plane_index[fw->nplanes++] = k;
	}
	const struct mrdem_particles *p = &s->frame.p;
	for (size_t i = 0; i < p->n; i++) {
		double r = s->shapes[p->shape[i]].bound_radius + p->eps[i];
		for (int a = 0; a < 3; a++) {
			double lo = p->pos[3 * i + a] - r, hi = p->pos[3 * i + a] + r;
			fw->lo[a] = fw->have_box ? fmin(fw->lo[a], lo) : lo;
			fw->hi[a] = fw->have_box ? fmax(fw->hi[a], hi) : hi;
		}
		fw->have_box = 1;
	}
}

/* Moving planes: each frame's planes where they are at its time, in its
 * own file, beside the frame in the series (part 2). */
static int write_moving_planes(struct vtk_export *ex, struct vtk_frame_writer *fw)
{
	char name[32];
	for (size_t k = 0; k < fw->track.nframes; k++) {
		mrdem_plane_track_name(name, sizeof name, k);
		char *path = mrdem_staged_files_path(&ex->files, name);
		int ret = mrdem_plane_track_write(&fw->track, k, path, fw->lo, fw->hi, ex->enc);
		free(path);
		if (ret)
			return -1;
		mrdem_staged_files_add(&ex->files, name);
	}
	struct mrdem_pvd_entry *e = mrdem_xmalloc_array(ex->npvd + fw->nframes, sizeof *e);
	size_t n = 0, frame = 0;
	for (size_t k = 0; k < ex->npvd; k++) {
		e[n++] = ex->pvd[k];
		if (k + 1 == ex->npvd || ex->pvd[k + 1].part == 0) {
			mrdem_plane_track_name(name, sizeof name, frame++);
			e[n++] = (struct mrdem_pvd_entry){.time = ex->pvd[k].time, .part = 2,
							  .file = mrdem_xstrdup(name)};
		}
	}
	free(ex->pvd);
	ex->pvd = e;
	ex->npvd = n;
	return 0;
}

/* planes.vtp, once every frame is written, and its place beside every
 * frame in the series (part 2); nothing without planes or particles. */
static int write_planes(struct vtk_export *ex, struct vtk_frame_writer *fw)
{
	if (!fw->nplanes || !fw->have_box)
		return 0;
	if (fw->track.moving)
		return write_moving_planes(ex, fw);
	char *path = mrdem_staged_files_path(&ex->files, "planes.vtp");
	int ret = mrdem_vtk_write_planes(path, fw->planes, fw->plane_index, fw->nplanes, fw->lo, fw->hi,
					 ex->enc);
	free(path);
	if (ret)
		return -1;
	mrdem_staged_files_add(&ex->files, "planes.vtp");
	fw->planes_written = 1;
	/* after each frame's files (part 0, then 1 when it has contacts) */
	struct mrdem_pvd_entry *e = mrdem_xmalloc_array(ex->npvd + fw->nframes, sizeof *e);
	size_t n = 0;
	for (size_t k = 0; k < ex->npvd; k++) {
		e[n++] = ex->pvd[k];
		if (k + 1 == ex->npvd || ex->pvd[k + 1].part == 0)
			e[n++] = (struct mrdem_pvd_entry){.time = ex->pvd[k].time, .part = 2,
							  .file = mrdem_xstrdup("planes.vtp")};
	}
	free(ex->pvd);
	ex->pvd = e;
	ex->npvd = n;
	return 0;
}

static int draw_frame(struct mrdem_filter *f, struct vtk_frame_writer *fw, const struct mrdem_scene *s,
		      const struct mrdem_scene *view);

/* The scene as drawn: s with each analytic shape's mesh a tessellation of
 * its surface (its own mesh has no triangles), other shapes shared. */
static int view_of(const struct mrdem_scene *s, struct mrdem_scene *view)
{
	*view = *s;
	view->shapes = mrdem_xmalloc_array(s->nshapes ? s->nshapes : 1, sizeof *view->shapes);
	for (uint32_t k = 0; k < s->nshapes; k++) {
		view->shapes[k] = s->shapes[k];
		if (s->shapes[k].kind != MRDEM_SHAPE_MESH &&
		    mrdem_analytic_tessellate(s->shapes[k].axes, MRDEM_ANALYTIC_DRAW_TRIANGLES,
					      &view->shapes[k].mesh)) {
			view->nshapes = k;
			return -1;
		}
	}
	return 0;
}

static void view_release(const struct mrdem_scene *s, struct mrdem_scene *view)
{
	for (uint32_t k = 0; k < view->nshapes; k++)
		if (s->shapes[k].kind != MRDEM_SHAPE_MESH)
			mrdem_mesh_release(&view->shapes[k].mesh);
	free(view->shapes);
}

static int flush_frame(struct mrdem_filter *f)
{
	struct vtk_frame_writer *fw = f->ctx;
	if (!fw->have_frame)
		return 0;
	fw->have_frame = 0;
	const struct mrdem_scene *s = &f->scene;
	struct mrdem_scene view;
	if (view_of(s, &view)) {
		view_release(s, &view);
		return -1;
	}
	int rc = draw_frame(f, fw, s, &view);
	view_release(s, &view);
	return rc;
}

/* Write the frame of s, drawn as view. */
static int draw_frame(struct mrdem_filter *f, struct vtk_frame_writer *fw, const struct mrdem_scene *s,
		      const struct mrdem_scene *view)
{
	if (!fw->ex->surfaces && write_shapes(fw->ex, f, view, &fw->shapes))
		return -1;
	note_planes_and_bounds(fw, s);
	if (fw->have_pending &&
	    mrdem_forces_of_frame(&fw->forces, &fw->bodies, &fw->index, s, &fw->pending))
		return mrdem_error("%s: record %llu: no forces for the contacts of the frame of "
				   "step %llu",
				   f->src, (unsigned long long)fw->frame_record,
				   (unsigned long long)s->frame.step);
	if (write_frame(fw->ex, view, fw->have_pending ? &fw->pending : NULL,
			fw->have_pending ? &fw->forces : NULL, fw->nframes))
		return mrdem_error("%s: record %llu: frame of step %llu not written", f->src,
				   (unsigned long long)fw->frame_record,
				   (unsigned long long)s->frame.step);
	fw->nframes++;
	fw->has_contacts = mrdem_xrealloc(fw->has_contacts, fw->nframes);
	fw->has_contacts[fw->nframes - 1] = 0;
	if (fw->have_pending) {
		if (write_contacts(fw->ex, &fw->pending, fw->forces.cf, s->frame.time,
				   fw->nframes - 1))
			return -1;
		fw->ncontact_files++;
		fw->has_contacts[fw->nframes - 1] = 1;
	}
	fw->pending.n = 0;
	fw->have_pending = 0;
	return 0;
}

static int before(struct mrdem_filter *f, const struct mrdem_record *rec)
{
	return rec->type == MRDEM_REC_FRAME ? flush_frame(f) : 0;
}

static int take(struct mrdem_filter *f, const struct mrdem_record *rec)
{
	struct vtk_frame_writer *fw = f->ctx;
	if (rec->type == MRDEM_REC_FRAME) {
		fw->have_frame = 1;
		fw->frame_record = rec->index;
		return 0;
	}
	struct mrdem_contacts cs;
	if (mrdem_decode_contacts(rec, f->src, &cs))
		return -1;
	if (fw->have_frame && cs.step == f->scene.frame.step) {
		merge_contacts(&fw->pending, &cs);
		fw->pending.step = cs.step;
		fw->have_pending = 1;
	} else if (fw->unmatched++ == 0) {
		fw->first_unmatched = rec->index;
	}
	mrdem_contacts_release(&cs);
	return 0;
}

static int finish(struct mrdem_filter *f)
{
	return flush_frame(f);
}

/* Options into ex (reset first). Returns 0, or the exit status 2 for a
 * usage error; after --help, 0 with ex->help set. */
static int parse_options(struct vtk_export *ex, int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"surfaces", no_argument, NULL, 's'},
		{"double", no_argument, NULL, 'd'},
		{"ascii", no_argument, NULL, 'a'},
		{"binary", no_argument, NULL, 'b'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	*ex = (struct vtk_export){.dir = "vtk", .enc = MRDEM_VTK_ZLIB};
	int c, li, nenc = 0;
	struct mrdem_opts_seen seen = {{0}};
	while ((c = mrdem_getopt_once(argc, argv, "o:sdabh", opts, &li, &seen)) != -1) {
		switch (c) {
		case 'o': ex->dir = optarg; break;
		case 's': ex->surfaces = 1; break;
		case 'd': ex->flags |= MRDEM_VTK_DOUBLE; break;
		case 'a': ex->enc = MRDEM_VTK_ASCII, nenc++; break;
		case 'b': ex->enc = MRDEM_VTK_BASE64, nenc++; break;
		case 'h': fputs(usage, stdout); ex->help = 1; return 0;
		default: fputs("try 'mrdem-vtk --help'\n", stderr); return 2;
		}
	}
	if (nenc > 1) {
		fputs("mrdem-vtk: give one of --ascii and --binary\n", stderr);
		return 2;
	}
	if (ex->surfaces && (ex->flags & MRDEM_VTK_DOUBLE)) {
		fputs("mrdem-vtk: --double applies to instances, not --surfaces\n", stderr);
		return 2;
	}
	if (argc - optind > 1) {
		fputs("mrdem-vtk: give at most one input (try 'mrdem-vtk --help')\n", stderr);
		return 2;
	}
	if (!*ex->dir) {
		fputs("mrdem-vtk: -o needs a directory name\n", stderr);
		return 2;
	}
	ex->in = optind < argc ? argv[optind] : "-";
	return 0;
}

/* The index of a file name this tool writes, as prefix, the index in at
 * least width digits, suffix; -1 for any other name (one that only looks
 * alike, "frame-1.vtp" or "frame-000001.vtp~", is not this tool's). */
static long long series_index(const char *name, const char *prefix, int width, const char *suffix)
{
	size_t lp = strlen(prefix);
	if (strncmp(name, prefix, lp) || name[lp] < '0' || name[lp] > '9')
		return -1;
	char *end;
	errno = 0;
	unsigned long long k = strtoull(name + lp, &end, 10);
	if (errno || k > (unsigned long long)LLONG_MAX || strcmp(end, suffix))
		return -1;
	char again[NAME_MAX + 1];
	snprintf(again, sizeof again, "%s%0*llu%s", prefix, width, k, suffix);
	return strcmp(again, name) ? -1 : (long long)k;
}

/* Whether a file in DIR is stale: the series just published replaces an
 * earlier one in DIR, and the files of that one this run did not rewrite (frames past this series' last, the
 * contacts of frames that now have none, shapes past its count, the
 * particles' series beside --surfaces) would be read with the new series
 * (ParaView's file-series grouping, a glob), so they go, and DIR holds
 * exactly this series. Only names this tool writes are touched. */
static int stale_file(const char *name, void *ctx)
{
	const struct vtk_frame_writer *fw = ctx;
	uint32_t nshapes = fw->shapes.written ? fw->shapes.n : 0;
	long long k;
	if ((k = series_index(name, "frame-", 6, ".vtp")) >= 0)
		return (size_t)k >= fw->nframes;
	if ((k = series_index(name, "contacts-", 6, ".vtp")) >= 0)
		return (size_t)k >= fw->nframes || !fw->has_contacts[k];
	if ((k = series_index(name, "shape-", 3, ".vtp")) >= 0)
		return k >= nshapes;
	if (!strcmp(name, "planes.vtp"))
		return !fw->planes_written;
	if ((k = series_index(name, "planes-", 6, ".vtp")) >= 0)
		return !fw->track.moving || (size_t)k >= fw->nframes;
	return fw->ex->surfaces && !strcmp(name, "particles.pvd");
}

/* Write the frames, contacts and series of ex->in into ex->dir (made
 * already); on an error, remove what this run made. */
static int convert(struct vtk_export *ex, int argc, char **argv)
{
	const char *in = ex->in;
	ex->pvd_path = mrdem_staged_files_final_path(&ex->files, "series.pvd");
	struct vtk_frame_writer fw = {.ex = ex};
	mrdem_contacts_init(&fw.pending);
	mrdem_forces_init(&fw.forces);
	mrdem_bodies_init(&fw.bodies);
	mrdem_id_index_init(&fw.index);
	struct mrdem_filter f;
	mrdem_filter_init(&f, "mrdem-vtk");
	f.takes = MRDEM_TYPE_BIT(MRDEM_REC_FRAME) | MRDEM_TYPE_BIT(MRDEM_REC_CONTACTS);
	f.before = before;
	f.on_record = take;
	f.on_end = finish;
	f.ctx = &fw;
	int rc = mrdem_filter_run(&f, in, NULL, argc, argv);
	/* Damaged input: the frames before the damage are kept, with their series. */
	if ((rc == 0 || f.damaged) && fw.nframes == 0) {
		mrdem_error("%s: no frame record in the stream (nothing to draw)", in);
		rc = -1;
		f.damaged = 0;
	}
	if ((rc == 0 || f.damaged) && write_planes(ex, &fw))
		rc = -1, f.damaged = 0;
	if (rc == 0 || f.damaged) {
		char *staged = mrdem_staged_files_path(&ex->files, "series.pvd");
		if (mrdem_vtk_write_pvd(staged, ex->pvd, ex->npvd))
			rc = -1, f.damaged = 0;
		else
			mrdem_staged_files_add(&ex->files, "series.pvd");
		free(staged);
	}
	/* Glyphs need the particles without the contact points' block. */
	if ((rc == 0 || f.damaged) && !ex->surfaces) {
		struct mrdem_pvd_entry *parts = mrdem_xmalloc_array(ex->npvd, sizeof *parts);
		size_t n = 0;
		for (size_t k = 0; k < ex->npvd; k++)
			if (ex->pvd[k].part == 0)
				parts[n++] = ex->pvd[k];
		ex->particles_pvd_path = mrdem_staged_files_path(&ex->files, "particles.pvd");
		if (mrdem_vtk_write_pvd(ex->particles_pvd_path, parts, n))
			rc = -1, f.damaged = 0;
		else
			mrdem_staged_files_add(&ex->files, "particles.pvd");
		free(parts);
	}
	if ((rc == 0 || f.damaged) && mrdem_staged_files_publish(&ex->files))
		rc = -1, f.damaged = 0;
	/* Published (a damaged input's series too): past undoing, so a file
	 * left over is an error, with the new series kept. */
	else if ((rc == 0 || f.damaged) &&
		 mrdem_staged_files_remove_stale(&ex->files, stale_file, &fw))
		rc = -1;
	if (rc == 0 && fw.unmatched)
		mrdem_warning("%s: %llu contacts record(s), the first record %llu, do not follow a "
			      "frame of their step; not written",
			      in, (unsigned long long)fw.unmatched,
			      (unsigned long long)fw.first_unmatched);
	if ((rc == 0 || f.damaged) && isatty(STDERR_FILENO))
		fprintf(stderr, "mrdem-vtk: %zu frame(s), %zu with contacts: open %s in ParaView\n",
			fw.nframes, fw.ncontact_files, ex->pvd_path);
	if (rc != 0 && !f.damaged)
		mrdem_staged_files_abort(&ex->files);
	mrdem_contacts_release(&fw.pending);
	mrdem_forces_release(&fw.forces);
	mrdem_bodies_release(&fw.bodies);
	mrdem_id_index_release(&fw.index);
	shape_files_release(&fw.shapes);
	free(fw.has_contacts);
	free(fw.planes);
	free(fw.plane_index);
	mrdem_plane_track_release(&fw.track);
	mrdem_filter_release(&f);
	return rc;
}

int main(int argc, char **argv)
{
	mrdem_set_progname(argv[0]);
	mrdem_threads_init();
	struct vtk_export ex;
	int rc = parse_options(&ex, argc, argv);
	if (rc || ex.help)
		return rc;
	/* A missing input is reported before any directory is made. */
	if (strcmp(ex.in, "-") && access(ex.in, R_OK))
		return mrdem_error("%s: cannot open: %s", ex.in, strerror(errno)), 1;
	/* a parallel run's parts: their merge */
	char merged[4096] = "";
	if (mrdem_is_rank_dir(ex.in)) {
		if (mrdem_rank_dir_merge_temp(ex.in, merged, sizeof merged)) {
			export_release(&ex);
			return 1;
		}
		ex.in = merged;
	}
	rc = mrdem_staged_files_open(&ex.files, ex.dir) ? -1 : convert(&ex, argc, argv);
	if (*merged)
		unlink(merged);
	export_release(&ex);
	return rc == 0 ? 0 : 1;
}
