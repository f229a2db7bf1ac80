/* Records described for people or scripts (describe.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dynamics/contact_law.h"
#include "common/mesh/mesh.h"
#include "common/scene/scaled_shape.h"
#include "common/shape/convex.h"
#include "common/util/error.h"
#include "formats/foreign/describe.h"
#include "formats/foreign/describe_materials.h"
#include "formats/foreign/describe_motion.h"
#include "formats/stream/meta.h"
#include "formats/stream/record_picard.h"
#include "formats/stream/record_refs.h"
#include "formats/stream/record_tree.h"

void mrdem_describe_init(struct mrdem_describe *d, int json, int full)
{
	memset(d, 0, sizeof *d);
	d->json = json;
	d->full = full;
	mrdem_json_init(&d->j, stdout);
	mrdem_scene_init(&d->scene);
}

void mrdem_describe_release(struct mrdem_describe *d)
{
	mrdem_scene_release(&d->scene);
}

static void describe_setup(struct mrdem_describe *in, const struct mrdem_setup *s)
{
	/* The decoder checked both enums: the names exist. */
	const char *scheme = mrdem_scheme_name(s->scheme), *model = mrdem_force_model_name(s->force_model);
	if (!in->json) {
		printf("  gravity [%g %g %g], dt %g, steps %llu, scheme %s, output every %llu\n",
		       s->gravity[0], s->gravity[1], s->gravity[2], s->dt,
		       (unsigned long long)s->steps, scheme,
		       (unsigned long long)s->output_every);
		/* name only what the model reads: hooke's damping and all of
		 * hertz's parameters come with the contact_model record */
		printf("  contact model %s, ", model);
		switch (s->force_model) {
		case MRDEM_FORCE_SPRING:
			printf("stiffness Ks %g, no damping", s->stiffness);
			break;
		case MRDEM_FORCE_SPRING_DASHPOT:
			printf("stiffness kn %g N/m, damping gamma_n %g 1/s", s->stiffness,
			       s->damping);
			break;
		case MRDEM_FORCE_HOOKE:
			printf("stiffness kn %g N/m, damping from the restitution", s->stiffness);
			break;
		default: /* MRDEM_FORCE_HERTZ */
			printf("stiffness from Young's modulus, damping from the restitution");
			break;
		}
		printf(", friction %g, plane epsilon %g, %u plane(s)\n", s->friction,
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
	if (s->force_model != MRDEM_FORCE_HERTZ)
		mrdem_json_kv_num(j, "stiffness", s->stiffness);
	if (s->force_model == MRDEM_FORCE_SPRING_DASHPOT)
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

static void describe_contact_model(struct mrdem_describe *in, const struct mrdem_setup *s)
{
	const char *model = mrdem_force_model_name(s->force_model);
	int hertz = s->force_model == MRDEM_FORCE_HERTZ;
	/* the damping ratio zeta both laws derive from e (docs/dynamics.md) */
	double zeta = mrdem_damping_ratio(s->restitution);
	if (!in->json) {
		printf("  %s: restitution %g (damping ratio %.4g), ", model, s->restitution, zeta);
		if (hertz)
			printf("Young's modulus %g Pa, Poisson ratio %g", s->young, s->poisson);
		else
			printf("kt/kn %g", s->tangential);
		printf(", rolling friction %g, twisting friction %g\n", s->rolling_friction,
		       s->twisting_friction);
		return;
	}
	struct mrdem_json *j = &in->j;
	mrdem_json_kv_str(j, "force_model", model);
	mrdem_json_kv_num(j, "restitution", s->restitution);
	mrdem_json_kv_num(j, "damping_ratio", zeta);
	if (hertz) {
		mrdem_json_kv_num(j, "young", s->young);
		mrdem_json_kv_num(j, "poisson", s->poisson);
	} else {
		mrdem_json_kv_num(j, "tangential", s->tangential);
	}
	mrdem_json_kv_num(j, "rolling_friction", s->rolling_friction);
	mrdem_json_kv_num(j, "twisting_friction", s->twisting_friction);
}

static void describe_history(struct mrdem_describe *in, const struct mrdem_frame *f)
{
	const struct mrdem_history *h = &f->history;
	double smax = 0, rmax = 0, tmax = 0;
	for (size_t i = 0; i < h->n; i++) {
		tmax = fmax(tmax, fabs(h->s[i].twist));
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
		       "torque %g N m, largest twisting torque %g N m\n", (unsigned long long)f->step,
		       h->n, sqrt(smax), sqrt(rmax), tmax);
		return;
	}
	struct mrdem_json *j = &in->j;
	mrdem_json_kv_uint(j, "step", f->step);
	mrdem_json_kv_uint(j, "springs", h->n);
	mrdem_json_kv_num(j, "max_shear", sqrt(smax));
	mrdem_json_kv_num(j, "max_roll", sqrt(rmax));
	mrdem_json_kv_num(j, "max_twist", tmax);
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
		mrdem_json_kv_num(j, "twist", h->s[i].twist);
		mrdem_json_end_object(j);
	}
	mrdem_json_end_array(j);
}

static void describe_mesh(struct mrdem_describe *in, uint32_t id, const char *name,
			  const struct mrdem_mesh *m)
{
	char esc[256];
	double lo[3], hi[3];
	mrdem_mesh_bbox(m, lo, hi);
	double area = mrdem_mesh_area(m);
	if (!in->json) {
		printf("  shape %u '%s': %u vertices, %u triangles, %s, area %.6g\n", id,
		       mrdem_escape_controls(esc, sizeof esc, name),
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
static void describe_convex(struct mrdem_describe *in, const struct mrdem_shape *sh)
{
	const struct mrdem_convex *c = sh->convex;
	if (!in->json) {
		char esc[256];
		printf("  shape %u '%s': convex polyhedron (the mesh above), %u vertices, %u edges, "
		       "%u faces\n", sh->id, mrdem_escape_controls(esc, sizeof esc, sh->name), c->nv, c->ne,
		       c->nf);
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
static void describe_analytic(struct mrdem_describe *in, const struct mrdem_shape *sh)
{
	const struct mrdem_mass *m = &sh->mesh.mass;
	if (sh->convex) {
		describe_convex(in, sh);
		return;
	}
	if (!in->json) {
		char esc[256];
		mrdem_escape_controls(esc, sizeof esc, sh->name);
		if (sh->kind == MRDEM_SHAPE_SPHERE)
			printf("  shape %u '%s': analytic sphere, radius %.9g\n", sh->id, esc,
			       sh->axes[0]);
		else
			printf("  shape %u '%s': ellipsoid, semi-axes %.9g %.9g %.9g\n", sh->id, esc,
			       sh->axes[0], sh->axes[1], sh->axes[2]);
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

void mrdem_describe_frame(struct mrdem_describe *in, const struct mrdem_frame *f)
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
			if (p->material)
				mrdem_json_kv_uint(j, "material", p->material[i]);
			mrdem_json_end_object(j);
		}
		mrdem_json_end_array(j);
	}
}

static void describe_pairs(struct mrdem_describe *in, const struct mrdem_pairs *p)
{
	size_t planes = 0;
	for (size_t i = 0; i < p->n; i++)
		planes += mrdem_is_plane_id(p->p[i].b);
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
static int describe_picard(struct mrdem_describe *in, const struct mrdem_record *rec)
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
static int describe_fronts(struct mrdem_describe *in, const struct mrdem_record *rec)
{
	struct mrdem_front_store *fr;
	if (mrdem_decode_fronts(rec, in->src, &fr))
		return -1;
	struct mrdem_front_store_entry *v;
	size_t n = mrdem_front_store_save(fr, &v), size = 0, groups = 0;
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
	mrdem_front_store_entries_free(v, n);
	mrdem_front_store_free(fr);
	return 0;
}

static void describe_contacts(struct mrdem_describe *in, const struct mrdem_contacts *c)
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

static void describe_stats(struct mrdem_describe *in, const struct mrdem_stats *s)
{
	if (!in->json) {
		/* names from the input, escaped: a line break in one would forge
		 * a line of this line-oriented output (mrdem-info | grep '^picard') */
		char esc[256];
		printf("  from %s, step %llu:", mrdem_escape_controls(esc, sizeof esc, s->source),
		       (unsigned long long)s->step);
		for (size_t i = 0; i < s->n; i++)
			printf(" %s=%.9g", mrdem_escape_controls(esc, sizeof esc, s->names[i]), s->values[i]);
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

static void describe_meta(struct mrdem_describe *in, const struct mrdem_meta *m)
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

/* Per level node count, leaves, real triangles and eps min/mean/max; for the
 * root its longest edge d, eps and halo volume relative to the bounding
 * sphere. The shape's tree is bound. */
static void describe_tree_text(const struct mrdem_shape *sh)
{
	const struct mrdem_tree *t = sh->tree;
	const struct mrdem_tree_params *p = &t->params;
	char esc[256]; /* the name escaped, as mrdem-info's other lines */
	printf("  tree of shape %u '%s': %u triangles, %u nodes in %u levels (fanout %u, "
		"leaf %u, seed %llu, %s)\n", sh->id, mrdem_escape_controls(esc, sizeof esc, sh->name),
		t->ntris, t->nnodes, t->nlevels,
		p->fanout, p->leaf, (unsigned long long)p->seed,
		p->refine ? "functional (6) + halo refinement" : "functional (6)");
	for (uint32_t l = 0; l < t->nlevels; l++) {
		struct mrdem_tree_level_stats s;
		mrdem_tree_level_stats(t, l, &s);
		printf("    level %u: %u nodes, %u leaves with %u triangles, eps min %.6g mean "
			"%.6g max %.6g\n", l, s.nodes, s.leaves, s.tris, s.eps_min, s.eps_mean,
			s.eps_max);
	}
	struct mrdem_tree_root_stats r;
	mrdem_tree_root_stats(t, &sh->mesh, &r);
	printf("    root: longest edge d %.6g, eps %.6g, halo volume %.6g = %.1f%% of the "
		"bounding sphere (radius %.6g)\n", r.d, r.eps, r.halo_volume, 100 * r.ratio,
		r.radius);
}

/* As describe_tree_text; with full also every node (surrogate triangle, eps,
 * children, triangle range) and the leaf triangle order. */
static void describe_tree_json(struct mrdem_json *j, const struct mrdem_shape *sh, int full)
{
	const struct mrdem_tree *t = sh->tree;
	const struct mrdem_tree_params *p = &t->params;
	mrdem_json_kv_uint(j, "shape", sh->id);
	mrdem_json_kv_str(j, "name", sh->name);
	mrdem_json_kv_uint(j, "triangles", t->ntris);
	mrdem_json_kv_uint(j, "nodes", t->nnodes);
	mrdem_json_kv_uint(j, "levels", t->nlevels);
	mrdem_json_key(j, "params");
	mrdem_json_begin_object(j);
	mrdem_json_kv_uint(j, "fanout", p->fanout);
	mrdem_json_kv_uint(j, "leaf", p->leaf);
	mrdem_json_kv_uint(j, "seed", p->seed);
	mrdem_json_kv_uint(j, "kmeans_iters", p->kmeans_iters);
	mrdem_json_kv_uint(j, "beta_size", p->beta_size);
	mrdem_json_kv_num(j, "alpha_area", p->alpha_area);
	mrdem_json_kv_num(j, "alpha_inside", p->alpha_inside);
	mrdem_json_kv_uint(j, "beta_normal", p->beta_normal);
	mrdem_json_kv_uint(j, "iters", p->iters);
	mrdem_json_key(j, "refine");
	mrdem_json_bool(j, p->refine);
	mrdem_json_end_object(j);
	mrdem_json_key(j, "level_stats");
	mrdem_json_begin_array(j);
	for (uint32_t l = 0; l < t->nlevels; l++) {
		struct mrdem_tree_level_stats s;
		mrdem_tree_level_stats(t, l, &s);
		mrdem_json_begin_object(j);
		mrdem_json_kv_uint(j, "level", l);
		mrdem_json_kv_uint(j, "nodes", s.nodes);
		mrdem_json_kv_uint(j, "leaves", s.leaves);
		mrdem_json_kv_uint(j, "triangles", s.tris);
		mrdem_json_kv_num(j, "eps_min", s.eps_min);
		mrdem_json_kv_num(j, "eps_mean", s.eps_mean);
		mrdem_json_kv_num(j, "eps_max", s.eps_max);
		mrdem_json_end_object(j);
	}
	mrdem_json_end_array(j);
	struct mrdem_tree_root_stats r;
	mrdem_tree_root_stats(t, &sh->mesh, &r);
	mrdem_json_key(j, "root");
	mrdem_json_begin_object(j);
	mrdem_json_kv_num(j, "d", r.d);
	mrdem_json_kv_num(j, "eps", r.eps);
	mrdem_json_kv_num(j, "area", r.area);
	mrdem_json_kv_num(j, "perimeter", r.perimeter);
	mrdem_json_kv_num(j, "halo_volume", r.halo_volume);
	mrdem_json_kv_nums(j, "sphere_centre", r.centre, 3);
	mrdem_json_kv_num(j, "sphere_radius", r.radius);
	mrdem_json_kv_num(j, "sphere_volume", r.sphere_volume);
	mrdem_json_kv_num(j, "halo_ratio", r.ratio);
	mrdem_json_end_object(j);
	if (!full)
		return;
	mrdem_json_key(j, "node_list");
	mrdem_json_begin_array(j);
	for (uint32_t n = 0; n < t->nnodes; n++) {
		mrdem_json_begin_object(j);
		mrdem_json_kv_uint(j, "level", t->level[n]);
		mrdem_json_key(j, "parent");
		if (t->parent[n] == MRDEM_TREE_NONE)
			mrdem_json_int(j, -1);
		else
			mrdem_json_uint(j, t->parent[n]);
		mrdem_json_key(j, "triangle");
		mrdem_json_floats(j, &t->tri[9 * (size_t)n], 9);
		mrdem_json_kv_num(j, "eps", t->eps[n]);
		mrdem_json_key(j, "children");
		mrdem_json_begin_array(j);
		mrdem_json_uint(j, t->child_first[n]);
		mrdem_json_uint(j, t->child_count[n]);
		mrdem_json_end_array(j);
		mrdem_json_key(j, "tri_range");
		mrdem_json_begin_array(j);
		mrdem_json_uint(j, t->tri_first[n]);
		mrdem_json_uint(j, t->tri_count[n]);
		mrdem_json_end_array(j);
		mrdem_json_end_object(j);
	}
	mrdem_json_end_array(j);
	mrdem_json_key(j, "triangle_order");
	mrdem_json_uints(j, t->perm, t->ntris);
}

static void describe_index(struct mrdem_describe *in, const struct mrdem_frame_pos *v, size_t n)
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

/* Count a record, start over at a concatenated stream's first record, and
 * open its description: the JSON object's common fields or the text line. */
static void describe_record_head(struct mrdem_describe *in, const struct mrdem_record *rec)
{
	const char *name = mrdem_record_name(rec->type);
	in->counts[name ? rec->type : MRDEM_REC_KNOWN_MAX + 1]++;
	if (rec->segment != in->segment) {
		/* A concatenation: the next stream has its own shapes. */
		in->segment = rec->segment;
		mrdem_scene_release(&in->scene);
		mrdem_scene_init(&in->scene);
		in->framed = 0;
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
}

/* A scaled shape: its base and factor, then the shape it makes. */
static void describe_scaled(struct mrdem_describe *in, const struct mrdem_shape *sh)
{
	if (in->json) {
		mrdem_json_kv_uint(&in->j, "base", sh->base);
		mrdem_json_kv_num(&in->j, "scale", sh->scale);
	} else {
		char text[MRDEM_SCALE_TEXT];
		mrdem_scale_text(text, sh->scale);
		printf("  shape %u is shape %u scaled by %s:\n", sh->id, sh->base, text);
	}
	if (sh->kind != MRDEM_SHAPE_MESH)
		describe_analytic(in, sh);
	else
		describe_mesh(in, sh->id, sh->name, &sh->mesh);
	if (sh->convex && !in->json)
		describe_convex(in, sh);
}

/* A record the scene keeps (setup, contact model, mesh, shape, tree, frame,
 * history): absorbed first, since frames are checked against shapes, then
 * described from the scene. */
static int describe_scene_record(struct mrdem_describe *in, const struct mrdem_record *rec)
{
	if (mrdem_scene_absorb(&in->scene, rec, in->src) < 0)
		return -1;
	in->framed |= rec->type == MRDEM_REC_FRAME;
	if (rec->type == MRDEM_REC_SETUP)
		describe_setup(in, &in->scene.setup);
	else if (rec->type == MRDEM_REC_CONTACT_MODEL)
		describe_contact_model(in, &in->scene.setup);
	else if (rec->type == MRDEM_REC_MATERIALS)
		mrdem_describe_materials(in, &in->scene.setup);
	else if (rec->type == MRDEM_REC_HISTORY)
		describe_history(in, &in->scene.frame);
	else if (rec->type == MRDEM_REC_INFLOW)
		mrdem_describe_inflow(in, &in->scene.flow);
	else if (rec->type == MRDEM_REC_OUTFLOW)
		mrdem_describe_outflow(in, &in->scene.flow);
	else if (rec->type == MRDEM_REC_MOTION)
		mrdem_describe_motion(in, &in->scene.setup);
	else if (rec->type == MRDEM_REC_MESH) {
		const struct mrdem_shape *sh = &in->scene.shapes[in->scene.nshapes - 1];
		describe_mesh(in, sh->id, sh->name, &sh->mesh);
	} else if (rec->type == MRDEM_REC_SHAPE) {
		describe_analytic(in, &in->scene.shapes[in->scene.nshapes - 1]);
	} else if (rec->type == MRDEM_REC_SCALED_SHAPE) {
		describe_scaled(in, &in->scene.shapes[in->scene.nshapes - 1]);
	} else if (rec->type == MRDEM_REC_TREE) {
		const struct mrdem_shape *sh = &in->scene.shapes[mrdem_tree_record_shape(rec)];
		if (in->json)
			describe_tree_json(&in->j, sh, in->full);
		else
			describe_tree_text(sh);
	} else
		mrdem_describe_frame(in, &in->scene.frame);
	return 0;
}

/* Contacts or guesses: decoded, their references checked against the scene
 * (a contacts record after a frame against that frame), described. */
static int describe_contacts_record(struct mrdem_describe *in, const struct mrdem_record *rec)
{
	struct mrdem_contacts c;
	int rc = mrdem_decode_contacts(rec, in->src, &c);
	if (rc == 0) {
		rc = mrdem_contacts_check_refs(&in->scene, in->framed &&
					       rec->type == MRDEM_REC_CONTACTS, &c, rec, in->src);
		if (rc == 0)
			describe_contacts(in, &c);
		mrdem_contacts_release(&c);
	}
	return rc;
}

/* A record the scene does not keep: decoded on its own and described. */
static int describe_other_record(struct mrdem_describe *in, const struct mrdem_record *rec)
{
	int rc = 0;
	switch (rec->type) {
	case MRDEM_REC_PAIRS: {
		struct mrdem_pairs p;
		if ((rc = mrdem_decode_pairs(rec, in->src, &p)) == 0) {
			describe_pairs(in, &p);
			mrdem_pairs_release(&p);
		}
		break;
	}
	case MRDEM_REC_PICARD:
		return describe_picard(in, rec);
	case MRDEM_REC_FRONTS:
		return describe_fronts(in, rec);
	case MRDEM_REC_GUESSES:
	case MRDEM_REC_CONTACTS:
		return describe_contacts_record(in, rec);
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
	return rc;
}

/* Decode one record and describe it; -1 when it does not decode. */
int mrdem_describe_record(struct mrdem_describe *in, const struct mrdem_record *rec)
{
	describe_record_head(in, rec);
	int rc;
	switch (rec->type) {
	case MRDEM_REC_SETUP:
	case MRDEM_REC_CONTACT_MODEL:
	case MRDEM_REC_MATERIALS:
	case MRDEM_REC_MESH:
	case MRDEM_REC_SHAPE:
	case MRDEM_REC_SCALED_SHAPE:
	case MRDEM_REC_TREE:
	case MRDEM_REC_FRAME:
	case MRDEM_REC_HISTORY:
	case MRDEM_REC_INFLOW:
	case MRDEM_REC_OUTFLOW:
	case MRDEM_REC_MOTION:
		rc = describe_scene_record(in, rec);
		break;
	default:
		rc = describe_other_record(in, rec);
		break;
	}
	if (in->json)
		mrdem_json_end_object(&in->j);
	return rc;
}
