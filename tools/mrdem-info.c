/* mrdem-info: describe any mrdem stream, for people or (--json) scripts. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mesh/mesh.h"
#include "common/shape/convex.h"
#include "common/util/error.h"
#include "common/util/threads.h"
#include "common/util/parse.h"
#include "formats/foreign/json.h"
#include "formats/stream/filter.h"
#include "formats/stream/meta.h"
#include "formats/stream/record_tree.h"
#include "formats/stream/record_picard.h"
#include "formats/stream/records.h"
#include "formats/stream/stream.h"

static const char usage[] =
	"usage: mrdem-info [--json [--full]] [FILE]\n"
	"       mrdem-info --upgrade OLD -o NEW\n"
	"\n"
	"Describe the records of an mrdem stream (FILE, or standard input).\n"
	"\n"
	"  --json    print one JSON document instead of text\n"
	"  --full    with --json: dump every record completely (vertices, triangles,\n"
	"            particle states, tree nodes, pairs, contacts)\n"
	"  --follow  follow a stream that is still being written (a running\n"
	"            mrdem-run -o FILE): describe records as they arrive until its\n"
	"            end record, like tail -f\n"
	"  --frame N   describe frame N (from 0) alone: through the frame index of a\n"
	"            file written by an mrdem tool (no decompression of what comes\n"
	"            before it), else by reading up to it; with --json as a document\n"
	"  --upgrade OLD -o NEW\n"
	"            rewrite a stream of format version 1 (or 2) as version 2\n"
	"  -h, --help  show this help\n"
	"\n"
	"Exit status: 0 success (a complete, valid stream), 1 error (the stream is\n"
	"bad or truncated; the records before the damage are still described), 2\n"
	"usage error (unknown option, bad option value, too many arguments).\n";

struct info {
	/* options */
	const char *path, *out; /* the input; --upgrade's output */
	const char *frame;      /* --frame as given, frame_n its value */
	uint64_t frame_n;
	int json, full, upgrade, follow, help;
	/* state */
	struct mrdem_json j;
	const char *src;
	struct mrdem_scene scene; /* shapes, for describing frames and trees */
	uint64_t counts[MRDEM_REC_KNOWN_MAX + 2]; /* last slot: unknown types */
	unsigned segment; /* stream of a concatenation being described */
};

static void describe_setup(struct info *in, const struct mrdem_setup *s)
{
	/* The decoder checked both enums: the names exist. */
	const char *scheme = mrdem_scheme_name(s->scheme), *model = mrdem_force_model_name(s->force_model);
	if (!in->json) {
		printf("  gravity [%g %g %g], dt %g, steps %llu, scheme %s, output every %llu\n",
		       s->gravity[0], s->gravity[1], s->gravity[2], s->dt,
		       (unsigned long long)s->steps, scheme,
		       (unsigned long long)s->output_every);
		printf("  contact model %s, stiffness %g, damping %g, friction %g, plane epsilon %g, "
		       "%u plane(s)\n",
		       model, s->stiffness, s->damping, s->friction,
		       s->plane_epsilon, s->nplanes);
		for (uint32_t i = 0; i < s->nplanes; i++)
			printf("    plane %u: point [%g %g %g] normal [%g %g %g]\n", i,
			       s->planes[i].point[0], s->planes[i].point[1], s->planes[i].point[2],
			       s->planes[i].normal[0], s->planes[i].normal[1], s->planes[i].normal[2]);
		return;
	}
	struct mrdem_json *j = &in->j;
	mrdem_json_kv_nums(j, "gravity", s->gravity, 3);
	mrdem_json_kv_str(j, "force_model", model);
	mrdem_json_kv_num(j, "stiffness", s->stiffness);
	mrdem_json_kv_num(j, "damping", s->damping);
	mrdem_json_kv_num(j, "friction", s->friction);
	mrdem_json_kv_num(j, "plane_epsilon", s->plane_epsilon);
	mrdem_json_kv_num(j, "dt", s->dt);
	mrdem_json_kv_uint(j, "steps", s->steps);
	mrdem_json_kv_str(j, "scheme", scheme);
	mrdem_json_kv_uint(j, "output_every", s->output_every);
	mrdem_json_key(j, "planes");
	mrdem_json_begin_array(j);
	for (uint32_t i = 0; i < s->nplanes; i++) {
		mrdem_json_begin_object(j);
		mrdem_json_kv_nums(j, "point", s->planes[i].point, 3);
		mrdem_json_kv_nums(j, "normal", s->planes[i].normal, 3);
		mrdem_json_end_object(j);
	}
	mrdem_json_end_array(j);
}

static void describe_contact_model(struct info *in, const struct mrdem_setup *s)
{
	const char *model = mrdem_force_model_name(s->force_model);
	if (!in->json) {
		printf("  %s: restitution %g, ", model, s->restitution);
		if (s->force_model == MRDEM_FORCE_HERTZ)
			printf("Young's modulus %g Pa, Poisson ratio %g", s->young, s->poisson);
		else
			printf("kt/kn %g", s->tangential);
		printf(", rolling friction %g\n", s->rolling_friction);
		return;
	}
	struct mrdem_json *j = &in->j;
	mrdem_json_kv_str(j, "force_model", model);
	mrdem_json_kv_num(j, "restitution", s->restitution);
	mrdem_json_kv_num(j, "young", s->young);
	mrdem_json_kv_num(j, "poisson", s->poisson);
	mrdem_json_kv_num(j, "tangential", s->tangential);
	mrdem_json_kv_num(j, "rolling_friction", s->rolling_friction);
}

static void describe_history(struct info *in, const struct mrdem_frame *f)
{
	const struct mrdem_history *h = &f->history;
	double smax = 0, rmax = 0;
	for (size_t i = 0; i < h->n; i++) {
		double s = 0, r = 0;
		for (int k = 0; k < 3; k++) {
			s += h->s[i].shear[k] * h->s[i].shear[k];
			r += h->s[i].roll[k] * h->s[i].roll[k];
		}
		smax = s > smax ? s : smax;
		rmax = r > rmax ? r : rmax;
	}
	if (!in->json) {
		printf("  step %llu: %zu contact springs, longest tangential %g m, largest rolling "
		       "torque %g N m\n", (unsigned long long)f->step, h->n, sqrt(smax), sqrt(rmax));
		return;
	}
	struct mrdem_json *j = &in->j;
	mrdem_json_kv_uint(j, "step", f->step);
	mrdem_json_kv_uint(j, "springs", h->n);
	mrdem_json_kv_num(j, "max_shear", sqrt(smax));
	mrdem_json_kv_num(j, "max_roll", sqrt(rmax));
	if (!in->full)
		return;
	mrdem_json_key(j, "springs_list");
	mrdem_json_begin_array(j);
	for (size_t i = 0; i < h->n; i++) {
		mrdem_json_begin_object(j);
		mrdem_json_kv_uint(j, "a", h->s[i].a);
		mrdem_json_kv_uint(j, "b", h->s[i].b);
		mrdem_json_kv_nums(j, "anchor", h->s[i].anchor, 3);
		mrdem_json_kv_nums(j, "shear", h->s[i].shear, 3);
		mrdem_json_kv_nums(j, "roll", h->s[i].roll, 3);
		mrdem_json_end_object(j);
	}
	mrdem_json_end_array(j);
}

static void describe_mesh(struct info *in, uint32_t id, const char *name,
			  const struct mrdem_mesh *m)
{
	double lo[3], hi[3];
	mrdem_mesh_bbox(m, lo, hi);
	double area = mrdem_mesh_area(m);
	if (!in->json) {
		printf("  shape %u '%s': %u vertices, %u triangles, %s, area %.6g\n", id, name,
		       m->nverts, m->ntris, m->open ? "open" : "closed", area);
		printf("    bbox [%g %g %g] .. [%g %g %g]\n", lo[0], lo[1], lo[2], hi[0], hi[1],
		       hi[2]);
		if (!m->open)
			printf("    volume %.9g, centre of mass [%.6g %.6g %.6g], inertia "
			       "(unit density) xx %.6g yy %.6g zz %.6g xy %.3g yz %.3g xz %.3g\n",
			       m->mass.volume, m->mass.com[0], m->mass.com[1], m->mass.com[2],
			       m->mass.inertia[0], m->mass.inertia[1], m->mass.inertia[2],
			       m->mass.inertia[3], m->mass.inertia[4], m->mass.inertia[5]);
		return;
	}
	struct mrdem_json *j = &in->j;
	mrdem_json_kv_uint(j, "id", id);
	mrdem_json_kv_str(j, "name", name);
	mrdem_json_kv_uint(j, "vertices", m->nverts);
	mrdem_json_kv_uint(j, "triangles", m->ntris);
	mrdem_json_key(j, "closed");
	mrdem_json_bool(j, !m->open);
	mrdem_json_kv_num(j, "area", area);
	mrdem_json_key(j, "bbox");
	mrdem_json_begin_array(j);
	mrdem_json_nums(j, lo, 3);
	mrdem_json_nums(j, hi, 3);
	mrdem_json_end_array(j);
	if (!m->open) {
		mrdem_json_kv_num(j, "volume", m->mass.volume);
		mrdem_json_kv_nums(j, "com", m->mass.com, 3);
		mrdem_json_kv_nums(j, "inertia", m->mass.inertia, 6);
		mrdem_json_kv_num(j, "radius", mrdem_mesh_radius_about(m, m->mass.com));
	}
	if (in->full) {
		mrdem_json_kv_nums(j, "vertex_coords", m->verts, 3 * (size_t)m->nverts);
		mrdem_json_key(j, "triangle_vertices");
		mrdem_json_uints(j, m->tris, 3 * (size_t)m->ntris);
	}
}

/* A convex shape (its mesh record came before): its features. */
static void describe_convex(struct info *in, const struct mrdem_shape *sh)
{
	const struct mrdem_convex *c = sh->convex;
	if (!in->json) {
		printf("  shape %u '%s': convex polyhedron (the mesh above), %u vertices, %u edges, "
		       "%u faces\n", sh->id, sh->name, c->nv, c->ne, c->nf);
		return;
	}
	struct mrdem_json *j = &in->j;
	mrdem_json_kv_uint(j, "id", sh->id);
	mrdem_json_kv_str(j, "name", sh->name);
	mrdem_json_kv_str(j, "kind", mrdem_shape_kind_name(MRDEM_SHAPE_CONVEX));
	mrdem_json_kv_uint(j, "vertices", c->nv);
	mrdem_json_kv_uint(j, "edges", c->ne);
	mrdem_json_kv_uint(j, "faces", c->nf);
}

/* An analytic shape: kind, semi-axes and closed-form mass properties. */
static void describe_analytic(struct info *in, const struct mrdem_shape *sh)
{
	const struct mrdem_mass *m = &sh->mesh.mass;
	if (sh->convex) {
		describe_convex(in, sh);
		return;
	}
	if (!in->json) {
		if (sh->kind == MRDEM_SHAPE_SPHERE)
			printf("  shape %u '%s': analytic sphere, radius %.9g\n", sh->id, sh->name,
			       sh->axes[0]);
		else
			printf("  shape %u '%s': ellipsoid, semi-axes %.9g %.9g %.9g\n", sh->id,
			       sh->name, sh->axes[0], sh->axes[1], sh->axes[2]);
		printf("    volume %.9g, centre of mass [0 0 0], inertia (unit density) xx %.6g "
		       "yy %.6g zz %.6g\n", m->volume, m->inertia[0], m->inertia[1], m->inertia[2]);
		return;
	}
	struct mrdem_json *j = &in->j;
	mrdem_json_kv_uint(j, "id", sh->id);
	mrdem_json_kv_str(j, "name", sh->name);
	mrdem_json_kv_str(j, "kind", mrdem_shape_kind_name(sh->kind));
	if (sh->kind == MRDEM_SHAPE_SPHERE)
		mrdem_json_kv_num(j, "radius", sh->axes[0]);
	else
		mrdem_json_kv_nums(j, "axes", sh->axes, 3);
	mrdem_json_kv_num(j, "volume", m->volume);
	mrdem_json_kv_nums(j, "com", m->com, 3);
	mrdem_json_kv_nums(j, "inertia", m->inertia, 6);
}

static void describe_frame(struct info *in, const struct mrdem_frame *f)
{
	const struct mrdem_particles *p = &f->p;
	size_t nfixed = 0;
	double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	double vmax = 0, emin = INFINITY, emax = 0;
	for (size_t i = 0; i < p->n; i++) {
		nfixed += (p->flags[i] & MRDEM_PARTICLE_FIXED) != 0;
		for (int k = 0; k < 3; k++) {
			lo[k] = fmin(lo[k], p->pos[3 * i + k]);
			hi[k] = fmax(hi[k], p->pos[3 * i + k]);
		}
		const double *v = &p->vel[3 * i];
		vmax = fmax(vmax, sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
		emin = fmin(emin, p->eps[i]);
		emax = fmax(emax, p->eps[i]);
	}
	if (!in->json) {
		printf("  step %llu, time %.9g: %zu particles (%zu fixed)", (unsigned long long)f->step,
		       f->time, p->n, nfixed);
		if (p->n)
			printf(", positions [%g %g %g] .. [%g %g %g], max speed %g, eps %g..%g",
			       lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], vmax, emin, emax);
		printf("\n");
		return;
	}
	struct mrdem_json *j = &in->j;
	mrdem_json_kv_uint(j, "step", f->step);
	mrdem_json_kv_num(j, "time", f->time);
	mrdem_json_kv_uint(j, "particles", p->n);
	mrdem_json_kv_uint(j, "fixed", nfixed);
	mrdem_json_kv_num(j, "max_speed", vmax);
	if (p->n) {
		mrdem_json_key(j, "position_bbox");
		mrdem_json_begin_array(j);
		mrdem_json_nums(j, lo, 3);
		mrdem_json_nums(j, hi, 3);
		mrdem_json_end_array(j);
		mrdem_json_kv_num(j, "eps_min", emin);
		mrdem_json_kv_num(j, "eps_max", emax);
	}
	if (in->full) {
		mrdem_json_key(j, "state");
		mrdem_json_begin_array(j);
		for (size_t i = 0; i < p->n; i++) {
			mrdem_json_begin_object(j);
			mrdem_json_kv_uint(j, "id", p->id[i]);
			mrdem_json_kv_uint(j, "shape", p->shape[i]);
			mrdem_json_key(j, "fixed");
			mrdem_json_bool(j, (p->flags[i] & MRDEM_PARTICLE_FIXED) != 0);
			mrdem_json_kv_nums(j, "position", &p->pos[3 * i], 3);
			mrdem_json_kv_nums(j, "orientation", &p->quat[4 * i], 4);
			mrdem_json_kv_nums(j, "velocity", &p->vel[3 * i], 3);
			mrdem_json_kv_nums(j, "angular_velocity", &p->angvel[3 * i], 3);
			mrdem_json_kv_num(j, "density", p->density[i]);
			mrdem_json_kv_num(j, "epsilon", p->eps[i]);
			mrdem_json_end_object(j);
		}
		mrdem_json_end_array(j);
	}
}

static void describe_pairs(struct info *in, const struct mrdem_pairs *p)
{
	size_t planes = 0;
	for (size_t i = 0; i < p->n; i++)
		planes += p->p[i].b >= MRDEM_PLANE_ID_MIN;
	if (!in->json) {
		printf("  step %llu: %zu candidate pairs (%zu with planes)\n",
		       (unsigned long long)p->step, p->n, planes);
		return;
	}
	struct mrdem_json *j = &in->j;
	mrdem_json_kv_uint(j, "step", p->step);
	mrdem_json_kv_uint(j, "pairs", p->n);
	mrdem_json_kv_uint(j, "plane_pairs", planes);
	if (in->full) {
		mrdem_json_key(j, "list");
		mrdem_json_begin_array(j);
		for (size_t i = 0; i < p->n; i++) {
			mrdem_json_begin_array(j);
			mrdem_json_uint(j, p->p[i].a);
			mrdem_json_uint(j, p->p[i].b);
			mrdem_json_end_array(j);
		}
		mrdem_json_end_array(j);
	}
}

/* The step in progress: where its Picard loop stands. */
static int describe_picard(struct info *in, const struct mrdem_record *rec)
{
	struct mrdem_picard pc;
	struct mrdem_stepper st;
	mrdem_picard_init(&pc);
	mrdem_stepper_init(&st);
	int rc = mrdem_decode_picard(rec, in->src, &pc, &st);
	if (rc == 0 && !in->json) {
		printf("  implicit step %llu (t = %.9g s, dt %g s) in progress: attempt at dt %g s "
		       "after %u halving(s), iteration %u, %zu sub-step(s) pending\n",
		       (unsigned long long)st.step, st.time, st.dt, pc.cur.dt, pc.cur.depth,
		       pc.iter + 1, pc.npending);
		printf("  so far %llu iterations, %llu triangle comparisons, last residual %.3g\n",
		       (unsigned long long)pc.last.iterations,
		       (unsigned long long)pc.last.comparisons, pc.last.residual);
	} else if (rc == 0) {
		struct mrdem_json *j = &in->j;
		mrdem_json_kv_uint(j, "step", st.step);
		mrdem_json_kv_num(j, "time", st.time);
		mrdem_json_kv_num(j, "dt", st.dt);
		mrdem_json_kv_num(j, "attempt_dt", pc.cur.dt);
		mrdem_json_kv_uint(j, "halvings", pc.cur.depth);
		mrdem_json_kv_uint(j, "iteration", pc.iter + 1);
		mrdem_json_kv_uint(j, "pending", pc.npending);
		mrdem_json_kv_uint(j, "iterations", pc.last.iterations);
		mrdem_json_kv_uint(j, "comparisons", pc.last.comparisons);
		mrdem_json_kv_num(j, "residual", pc.last.residual);
	}
	mrdem_picard_release(&pc);
	mrdem_stepper_release(&st);
	return rc;
}

/* Multiscale fronts: how many pairs, and how far they have unfolded. */
static int describe_fronts(struct info *in, const struct mrdem_record *rec)
{
	struct mrdem_fronts *fr;
	if (mrdem_decode_fronts(rec, in->src, &fr))
		return -1;
	struct mrdem_fronts_entry *v;
	size_t n = mrdem_fronts_save(fr, &v), size = 0, groups = 0;
	for (size_t i = 0; i < n; i++) {
		size += v[i].front.npairs;
		groups += v[i].front.ngroups;
	}
	if (!in->json) {
		printf("  fronts of %zu particle pair(s): %zu pairs of nodes or triangles, %zu "
		       "unfolded\n", n, size, groups);
	} else {
		mrdem_json_kv_uint(&in->j, "particle_pairs", n);
		mrdem_json_kv_uint(&in->j, "front_pairs", size);
		mrdem_json_kv_uint(&in->j, "unfolded", groups);
	}
	mrdem_fronts_entries_free(v, n);
	mrdem_fronts_free(fr);
	return 0;
}

static void describe_contacts(struct info *in, const struct mrdem_contacts *c)
{
	double dmin = INFINITY, depth_max = 0;
	for (size_t i = 0; i < c->n; i++) {
		dmin = fmin(dmin, c->c[i].dist);
		depth_max = fmax(depth_max, c->c[i].depth);
	}
	if (!in->json) {
		printf("  step %llu: %zu contacts", (unsigned long long)c->step, c->n);
		if (c->n)
			printf(", min distance %g, max depth %g", dmin, depth_max);
		printf("\n");
		return;
	}
	struct mrdem_json *j = &in->j;
	mrdem_json_kv_uint(j, "step", c->step);
	mrdem_json_kv_uint(j, "contacts", c->n);
	if (c->n) {
		mrdem_json_kv_num(j, "min_distance", dmin);
		mrdem_json_kv_num(j, "max_depth", depth_max);
	}
	if (in->full) {
		mrdem_json_key(j, "list");
		mrdem_json_begin_array(j);
		for (size_t i = 0; i < c->n; i++) {
			const struct mrdem_contact *k = &c->c[i];
			mrdem_json_begin_object(j);
			mrdem_json_kv_uint(j, "a", k->a);
			mrdem_json_kv_uint(j, "b", k->b);
			mrdem_json_kv_uint(j, "tri_a", k->tri_a);
			mrdem_json_kv_uint(j, "tri_b", k->tri_b);
			mrdem_json_kv_nums(j, "point", k->x, 3);
			mrdem_json_kv_nums(j, "normal", k->normal, 3);
			mrdem_json_kv_num(j, "distance", k->dist);
			mrdem_json_kv_num(j, "depth", k->depth);
			mrdem_json_end_object(j);
		}
		mrdem_json_end_array(j);
	}
}

static void describe_stats(struct info *in, const struct mrdem_stats *s)
{
	if (!in->json) {
		printf("  from %s, step %llu:", s->source, (unsigned long long)s->step);
		for (size_t i = 0; i < s->n; i++)
			printf(" %s=%.9g", s->names[i], s->values[i]);
		printf("\n");
		return;
	}
	struct mrdem_json *j = &in->j;
	mrdem_json_kv_str(j, "source", s->source);
	mrdem_json_kv_uint(j, "step", s->step);
	mrdem_json_key(j, "values");
	mrdem_json_begin_object(j);
	for (size_t i = 0; i < s->n; i++)
		mrdem_json_kv_num(j, s->names[i], s->values[i]);
	mrdem_json_end_object(j);
}

static void describe_meta(struct info *in, const struct mrdem_meta *m)
{
	if (!in->json) {
		printf("  made by %s %s\n", m->tool, m->version);
		for (size_t i = 0; i < m->n; i++) {
			const char *v = m->values[i], *nl = strchr(v, '\n');
			if (nl && nl[1]) /* multi-line text (a scene): its size only */
				printf("    %s: %zu bytes of text (--json shows it)\n", m->keys[i],
				       strlen(v));
			else
				printf("    %s: %.*s\n", m->keys[i], (int)(nl ? nl - v : (long)strlen(v)),
				       v);
		}
		return;
	}
	struct mrdem_json *j = &in->j;
	mrdem_json_kv_str(j, "tool", m->tool);
	mrdem_json_kv_str(j, "version", m->version);
	mrdem_json_key(j, "values");
	mrdem_json_begin_object(j);
	for (size_t i = 0; i < m->n; i++)
		mrdem_json_kv_str(j, m->keys[i], m->values[i]);
	mrdem_json_end_object(j);
}

static void describe_index(struct info *in, const struct mrdem_frame_pos *v, size_t n)
{
	if (!in->json) {
		printf("  frame index: %zu frame(s)", n);
		if (n)
			printf(", steps %llu .. %llu", (unsigned long long)v[0].step,
			       (unsigned long long)v[n - 1].step);
		printf("\n");
		return;
	}
	struct mrdem_json *j = &in->j;
	mrdem_json_kv_uint(j, "frames", n);
	if (in->full) {
		mrdem_json_key(j, "list");
		mrdem_json_begin_array(j);
		for (size_t i = 0; i < n; i++) {
			mrdem_json_begin_object(j);
			mrdem_json_kv_uint(j, "step", v[i].step);
			mrdem_json_kv_num(j, "time", v[i].time);
			mrdem_json_kv_uint(j, "record", v[i].record);
			mrdem_json_kv_uint(j, "offset", v[i].offset);
			mrdem_json_kv_uint(j, "compressed_offset", v[i].zoffset);
			mrdem_json_end_object(j);
		}
		mrdem_json_end_array(j);
	}
}

/* Decode one record and describe it; -1 when it does not decode. */
static int describe(struct info *in, const struct mrdem_record *rec)
{
	const char *name = mrdem_record_name(rec->type);
	in->counts[name ? rec->type : MRDEM_REC_KNOWN_MAX + 1]++;
	if (rec->segment != in->segment) {
		/* A concatenation: the next stream has its own shapes. */
		in->segment = rec->segment;
		mrdem_scene_release(&in->scene);
		mrdem_scene_init(&in->scene);
		if (!in->json)
			printf("stream %u (concatenated) starts before byte %llu\n", rec->segment + 1,
			       (unsigned long long)rec->offset);
	}
	if (in->json) {
		mrdem_json_begin_object(&in->j);
		mrdem_json_kv_uint(&in->j, "stream", rec->segment);
		mrdem_json_kv_uint(&in->j, "index", rec->index);
		mrdem_json_kv_str(&in->j, "type", name ? name : "unknown");
		mrdem_json_kv_uint(&in->j, "type_code", rec->type);
		mrdem_json_kv_uint(&in->j, "offset", rec->offset);
		mrdem_json_kv_uint(&in->j, "length", rec->len);
	} else {
		printf("record %llu: %s (%zu bytes at byte %llu)\n", (unsigned long long)rec->index,
		       name ? name : "unknown type", rec->len, (unsigned long long)rec->offset);
	}
	int rc = 0;
	switch (rec->type) {
	case MRDEM_REC_SETUP:
	case MRDEM_REC_CONTACT_MODEL:
	case MRDEM_REC_MESH:
	case MRDEM_REC_SHAPE:
	case MRDEM_REC_TREE:
	case MRDEM_REC_FRAME:
	case MRDEM_REC_HISTORY:
		/* Absorb into the scene first: frames are checked against shapes. */
		if (mrdem_scene_absorb(&in->scene, rec, in->src) < 0) {
			rc = -1;
			break;
		}
		if (rec->type == MRDEM_REC_SETUP)
			describe_setup(in, &in->scene.setup);
		else if (rec->type == MRDEM_REC_CONTACT_MODEL)
			describe_contact_model(in, &in->scene.setup);
		else if (rec->type == MRDEM_REC_HISTORY)
			describe_history(in, &in->scene.frame);
		else if (rec->type == MRDEM_REC_MESH) {
			const struct mrdem_shape *sh = &in->scene.shapes[in->scene.nshapes - 1];
			describe_mesh(in, sh->id, sh->name, &sh->mesh);
		} else if (rec->type == MRDEM_REC_SHAPE) {
			describe_analytic(in, &in->scene.shapes[in->scene.nshapes - 1]);
		} else if (rec->type == MRDEM_REC_TREE) {
			const struct mrdem_shape *sh = &in->scene.shapes[mrdem_tree_record_shape(rec)];
			if (in->json)
				mrdem_tree_describe_json(&in->j, sh, in->full);
			else
				mrdem_tree_describe_text(stdout, sh);
		} else
			describe_frame(in, &in->scene.frame);
		break;
	case MRDEM_REC_PAIRS: {
		struct mrdem_pairs p;
		if ((rc = mrdem_decode_pairs(rec, in->src, &p)) == 0) {
			describe_pairs(in, &p);
			mrdem_pairs_release(&p);
		}
		break;
	}
	case MRDEM_REC_PICARD:
		rc = describe_picard(in, rec);
		break;
	case MRDEM_REC_FRONTS:
		rc = describe_fronts(in, rec);
		break;
	case MRDEM_REC_GUESSES:
	case MRDEM_REC_CONTACTS: {
		struct mrdem_contacts c;
		if ((rc = mrdem_decode_contacts(rec, in->src, &c)) == 0) {
			describe_contacts(in, &c);
			mrdem_contacts_release(&c);
		}
		break;
	}
	case MRDEM_REC_STATS: {
		struct mrdem_stats s;
		if ((rc = mrdem_decode_stats(rec, in->src, &s)) == 0) {
			describe_stats(in, &s);
			mrdem_stats_release(&s);
		}
		break;
	}
	case MRDEM_REC_META: {
		struct mrdem_meta m;
		if ((rc = mrdem_decode_meta(rec, in->src, &m)) == 0) {
			describe_meta(in, &m);
			mrdem_meta_release(&m);
		}
		break;
	}
	case MRDEM_REC_INDEX: {
		struct mrdem_frame_pos *v;
		size_t n;
		if ((rc = mrdem_decode_index(rec, in->src, &v, &n)) == 0) {
			describe_index(in, v, n);
			free(v);
		}
		break;
	}
	case MRDEM_REC_END:
		if (!in->json)
			printf("  end of stream %u: %llu records before it\n", rec->segment + 1,
			       (unsigned long long)rec->index);
		break;
	default:
		break;
	}
	if (in->json)
		mrdem_json_end_object(&in->j);
	return rc;
}

/* Rewrite a version 1 stream in the current format: frames get their
 * column table, records their class flags, the stream a meta and an end
 * record. Version 2 input is copied through the same way. */
/* A record of a version 1 stream in the current format: frames get
 * their column table, other types their class (unknown ones ancillary). */
static int upgrade_record(struct mrdem_filter *f, const struct mrdem_record *rec)
{
	if (f->r.version != 1)
		return 0; /* already current: passed through */
	if (rec->type != MRDEM_REC_FRAME)
		return mrdem_writer_put(&f->w, rec->type, rec->data, rec->len) ? -1 : 1;
	struct mrdem_frame fr;
	if (mrdem_decode_frame_v1(rec, f->src, &fr))
		return -1;
	int rc = mrdem_write_frame(&f->w, &fr);
	mrdem_frame_release(&fr);
	return rc ? -1 : 1;
}

/* Rewrite a stream of version 1 (or 2) as version 2, through the record
 * filter: it adds the meta and end records and keeps concatenations. */
static int upgrade(const char *in, const char *out, int argc, char **argv)
{
	struct mrdem_filter f;
	mrdem_filter_init(&f, "mrdem-info");
	f.read_flags = MRDEM_READ_V1;
	f.takes = MRDEM_ALL_TYPES;
	f.no_absorb = MRDEM_ALL_TYPES; /* nothing to compute: records are only rewritten */
	f.on_record = upgrade_record;
	int rc = mrdem_filter_run(&f, in, out, argc, argv);
	mrdem_filter_release(&f);
	return rc;
}

/* Describe frame `want` (from 0) of a file alone: through the frame index
 * when the file has one (after the setup and shapes before the first
 * frame), else by reading up to it. */
static int show_frame(struct info *in, const char *path, uint64_t want)
{
	struct mrdem_reader r;
	if (mrdem_reader_open(&r, path, 0))
		return -1;
	in->src = r.name;
	struct mrdem_frame_pos *v = NULL;
	size_t n = 0;
	int rc = mrdem_reader_frame_index(&r, &v, &n);
	struct mrdem_record rec;
	uint64_t frames = 0;
	int got = 0, via_index = 0;
	while (rc == 0 && !got) {
		int k = mrdem_reader_next(&r, &rec);
		if (k <= 0) {
			rc = k < 0 ? -1 : mrdem_error("%s: the stream has %llu frame(s), no frame %llu",
						      r.name, (unsigned long long)frames,
						      (unsigned long long)want);
			break;
		}
		if (rec.segment > 0) {
			rc = mrdem_error("%s: --frame reads single streams, this is a concatenation",
					 r.name);
			break;
		}
		if (rec.type == MRDEM_REC_FRAME) {
			/* The index must describe this stream: its first frame is here. */
			if (frames == 0 && want > 0 && want < n && v[0].offset == rec.offset) {
				if (mrdem_reader_seek(&r, &v[want])) {
					rc = -1;
					break;
				}
				via_index = 1;
				frames = want;
				continue;
			}
			got = frames++ == want;
			if (!got)
				continue;
		}
		if ((got || rec.type == MRDEM_REC_SETUP || rec.type == MRDEM_REC_MESH ||
		     rec.type == MRDEM_REC_SHAPE || rec.type == MRDEM_REC_TREE ||
		     rec.type == MRDEM_REC_CONTACT_MODEL) &&
		    mrdem_scene_absorb(&in->scene, &rec, r.name) < 0)
			rc = -1;
	}
	if (rc == 0) {
		if (in->json) {
			mrdem_json_begin_object(&in->j);
			mrdem_json_kv_str(&in->j, "input", r.name);
			mrdem_json_kv_uint(&in->j, "frame", want);
			mrdem_json_key(&in->j, "via_index");
			mrdem_json_bool(&in->j, via_index);
			mrdem_json_key(&in->j, "record");
			mrdem_json_begin_object(&in->j);
			describe_frame(in, &in->scene.frame);
			mrdem_json_end_object(&in->j);
			mrdem_json_end_object(&in->j);
			fputc('\n', stdout);
		} else {
			printf("frame %llu (record %llu at byte %llu, %s)\n", (unsigned long long)want,
			       (unsigned long long)rec.index, (unsigned long long)rec.offset,
			       via_index ? "read through the frame index" : "read in sequence");
			describe_frame(in, &in->scene.frame);
		}
	}
	free(v);
	mrdem_reader_close(&r);
	return rc;
}

/* Describe every record of the stream at path, then count them by type;
 * -1 when the stream is bad or truncated (or standard output fails). */
static int describe_stream(struct info *in, const char *path)
{
	struct mrdem_reader r;
	if (mrdem_reader_open(&r, path, in->follow ? MRDEM_READ_FOLLOW : 0))
		return -1;
	in->src = r.name;
	if (in->json) {
		mrdem_json_begin_object(&in->j);
		mrdem_json_kv_str(&in->j, "input", r.name);
		mrdem_json_kv_uint(&in->j, "version", MRDEM_STREAM_VERSION);
		mrdem_json_key(&in->j, "records");
		mrdem_json_begin_array(&in->j);
	}
	struct mrdem_record rec;
	int rc;
	while ((rc = mrdem_reader_next(&r, &rec)) == 1) {
		if (describe(in, &rec)) {
			rc = -1;
			break;
		}
		if (in->follow)
			fflush(stdout); /* each record as it arrives */
	}
	if (in->json) {
		mrdem_json_end_array(&in->j);
		mrdem_json_key(&in->j, "counts");
		mrdem_json_begin_object(&in->j);
		for (uint32_t t = 1; t <= MRDEM_REC_KNOWN_MAX; t++)
			if (mrdem_record_name(t))
				mrdem_json_kv_uint(&in->j, mrdem_record_name(t), in->counts[t]);
		mrdem_json_kv_uint(&in->j, "unknown", in->counts[MRDEM_REC_KNOWN_MAX + 1]);
		mrdem_json_end_object(&in->j);
		mrdem_json_key(&in->j, "complete");
		mrdem_json_bool(&in->j, rc == 0);
		mrdem_json_end_object(&in->j);
	} else {
		printf("%llu records:", (unsigned long long)r.records);
		for (uint32_t t = 1; t <= MRDEM_REC_KNOWN_MAX; t++)
			if (in->counts[t])
				printf(" %llu %s", (unsigned long long)in->counts[t],
				       mrdem_record_name(t));
		if (in->counts[MRDEM_REC_KNOWN_MAX + 1])
			printf(" %llu unknown", (unsigned long long)in->counts[MRDEM_REC_KNOWN_MAX + 1]);
		printf("%s\n", rc == 0 ? "" : " (stream incomplete or damaged)");
	}
	mrdem_reader_close(&r);
	if (fflush(stdout) || ferror(stdout))
		return mrdem_error("write error on standard output");
	return rc;
}

/* Options into in (zeroed first). Returns 0, or the exit status 2 for a
 * usage error; after --help, 0 with in->help set. */
static int parse_options(struct info *in, int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"full", no_argument, NULL, 'f'},
		{"upgrade", no_argument, NULL, 'u'},
		{"follow", no_argument, NULL, 'w'},
		{"frame", required_argument, NULL, 'F'},
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	memset(in, 0, sizeof *in);
	int c;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'u': in->upgrade = 1; break;
		case 'w': in->follow = 1; break;
		case 'F': in->frame = optarg; break;
		case 'o': in->out = optarg; break;
		case 'j': in->json = 1; break;
		case 'f': in->full = 1; break;
		case 'h': fputs(usage, stdout); in->help = 1; return 0;
		default: fputs("try 'mrdem-info --help'\n", stderr); return 2;
		}
	}
	if (in->full && !in->json) {
		fputs("mrdem-info: --full needs --json\n", stderr);
		return 2;
	}
	if (argc - optind > 1) {
		fputs("mrdem-info: give at most one input (try 'mrdem-info --help')\n", stderr);
		return 2;
	}
	in->path = optind < argc ? argv[optind] : "-";
	if (in->upgrade != (in->out != NULL)) {
		fputs("mrdem-info: --upgrade and -o go together (try 'mrdem-info --help')\n", stderr);
		return 2;
	}
	if (in->follow && (in->upgrade || in->frame)) {
		fputs("mrdem-info: --follow takes no --upgrade or --frame (try 'mrdem-info --help')\n",
		      stderr);
		return 2;
	}
	if (in->upgrade && (in->frame || in->json)) {
		fputs("mrdem-info: --upgrade takes no --frame or --json (try 'mrdem-info --help')\n",
		      stderr);
		return 2;
	}
	if (in->frame &&
	    mrdem_parse_u64("--frame", in->frame, UINT64_MAX, &in->frame_n))
		return 2;
	return 0;
}

int main(int argc, char **argv)
{
	mrdem_set_progname(argv[0]);
	mrdem_threads_init();
	struct info in;
	int rc = parse_options(&in, argc, argv);
	if (rc || in.help)
		return rc;
	if (in.upgrade)
		return upgrade(in.path, in.out, argc, argv) ? 1 : 0;
	mrdem_scene_init(&in.scene);
	mrdem_json_init(&in.j, stdout);
	if (in.frame)
		rc = show_frame(&in, in.path, in.frame_n);
	else
		rc = describe_stream(&in, in.path);
	mrdem_scene_release(&in.scene);
	return rc ? 1 : 0;
}
