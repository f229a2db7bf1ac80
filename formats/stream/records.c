#include "formats/stream/records.h"
#include "formats/stream/record_materials.h"
#include "formats/stream/record_mechanics.h"
#include "formats/stream/record_motion.h"

#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dynamics/energy.h"
#include "common/geom/quat.h"
#include "common/scene/id_index.h"
#include "common/scene/motion.h"
#include "common/util/error.h"
#include "formats/stream/meta.h"
#include "formats/stream/record_refs.h"
#include "formats/stream/record_scaled_shape.h"
#include "formats/stream/record_tree.h"

int mrdem_record_error(const struct mrdem_record *rec, const char *src, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	const char *name = mrdem_record_name(rec->type);
	return mrdem_error("%s: record %llu (%s) at byte %llu: %s", src ? src : "<stream>",
			   (unsigned long long)rec->index, name ? name : "unknown",
			   (unsigned long long)rec->offset, msg);
}

/* Common tail of every decoder: the payload must be consumed exactly. */
int mrdem_record_done(const struct mrdem_record *rec, const char *src, struct mrdem_cursor *c)
{
	if (c->bad)
		return mrdem_record_error(rec, src, "payload too short (%zu bytes; corrupt record)",
					  rec->len);
	if (c->pos != c->len)
		return mrdem_record_error(rec, src, "%zu unexpected bytes after the payload "
					  "(length mismatch)", c->len - c->pos);
	return 0;
}

/* First non-finite entry of v[0..n), or -1. */
static long first_nonfinite(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return (long)i;
	return -1;
}

/* ---- setup */

void mrdem_encode_setup(struct mrdem_buf *b, const struct mrdem_setup *s)
{
	mrdem_buf_f64s(b, s->gravity, 3);
	mrdem_buf_u32(b, (uint32_t)s->force_model);
	mrdem_buf_f64(b, s->stiffness);
	mrdem_buf_f64(b, s->damping);
	mrdem_buf_f64(b, s->friction);
	mrdem_buf_f64(b, s->plane_epsilon);
	mrdem_buf_f64(b, s->dt);
	mrdem_buf_u64(b, s->steps);
	mrdem_buf_u32(b, (uint32_t)s->scheme);
	mrdem_buf_u64(b, s->output_every);
	mrdem_buf_u32(b, s->nplanes);
	for (uint32_t i = 0; i < s->nplanes; i++) {
		/* a moving plane's reference pose: where it is now follows */
		const struct mrdem_motion *m = mrdem_motion_find(s, MRDEM_PLANE_ID(i));
		mrdem_buf_f64s(b, m ? m->ref_pos : s->planes[i].point, 3);
		mrdem_buf_f64s(b, m ? m->ref_normal : s->planes[i].normal, 3);
	}
}

static int decode_setup(const struct mrdem_record *rec, const char *src, struct mrdem_setup *s)
{
	struct mrdem_cursor c;
	mrdem_cursor_init(&c, rec->data, rec->len);
	mrdem_setup_default(s);
	mrdem_get_f64s(&c, s->gravity, 3);
	uint32_t model = mrdem_get_u32(&c);
	s->stiffness = mrdem_get_f64(&c);
	s->damping = mrdem_get_f64(&c);
	s->friction = mrdem_get_f64(&c);
	s->plane_epsilon = mrdem_get_f64(&c);
	s->dt = mrdem_get_f64(&c);
	s->steps = mrdem_get_u64(&c);
	uint32_t scheme = mrdem_get_u32(&c);
	s->output_every = mrdem_get_u64(&c);
	s->nplanes = mrdem_get_u32(&c);
	if (!mrdem_cursor_has(&c, s->nplanes, 48)) {
		s->nplanes = 0;
		return mrdem_record_done(rec, src, &c) ? -1 : mrdem_record_error(rec, src, "bad plane count");
	}
	s->planes = mrdem_xcalloc(s->nplanes ? s->nplanes : 1, sizeof *s->planes);
	for (uint32_t i = 0; i < s->nplanes; i++) {
		mrdem_get_f64s(&c, s->planes[i].point, 3);
		mrdem_get_f64s(&c, s->planes[i].normal, 3);
	}
	if (mrdem_record_done(rec, src, &c))
		goto fail;
	double scalars[] = {s->gravity[0], s->gravity[1], s->gravity[2], s->stiffness,
			    s->damping, s->friction, s->plane_epsilon, s->dt};
	if (first_nonfinite(scalars, 8) >= 0) {
		mrdem_record_error(rec, src, "non-finite parameter");
		goto fail;
	}
	/* Range-check the u32 before it becomes an int enum. */
	if (model > INT32_MAX || !mrdem_force_model_name((int)model)) {
		mrdem_record_error(rec, src, "unknown force model %lu", (unsigned long)model);
		goto fail;
	}
	if (scheme > INT32_MAX || !mrdem_scheme_name((int)scheme)) {
		mrdem_record_error(rec, src, "unknown time-stepping scheme %lu",
				   (unsigned long)scheme);
		goto fail;
	}
	s->force_model = (int)model;
	s->model_pending = MRDEM_FORCE_MODEL_HAS_SPRINGS(s->force_model);
	s->scheme = (int)scheme;
	for (uint32_t i = 0; i < s->nplanes; i++)
		if (first_nonfinite(s->planes[i].point, 3) >= 0 ||
		    first_nonfinite(s->planes[i].normal, 3) >= 0) {
			mrdem_record_error(rec, src, "plane %u is not finite", i);
			goto fail;
		}
	return 0;
fail:
	mrdem_setup_release(s);
	return -1;
}

/* ---- mesh */

enum { MESH_FLAG_OPEN = 1 };

void mrdem_encode_mesh(struct mrdem_buf *b, uint32_t id, const char *name,
		       const struct mrdem_mesh *m)
{
	mrdem_buf_reserve(b, 128 + 24 * (size_t)m->nverts + 12 * (size_t)m->ntris);
	mrdem_buf_u32(b, id);
	mrdem_buf_str(b, name);
	mrdem_buf_u32(b, m->open ? MESH_FLAG_OPEN : 0);
	mrdem_buf_u32(b, m->nverts);
	mrdem_buf_u32(b, m->ntris);
	mrdem_buf_f64(b, m->mass.volume);
	mrdem_buf_f64s(b, m->mass.com, 3);
	mrdem_buf_f64s(b, m->mass.inertia, 6);
	mrdem_buf_f64s(b, m->verts, 3 * (size_t)m->nverts);
	mrdem_buf_u32s(b, m->tris, 3 * (size_t)m->ntris);
}

int mrdem_decode_mesh(const struct mrdem_record *rec, const char *src, uint32_t *id,
		      char **name, struct mrdem_mesh *m)
{
	struct mrdem_cursor c;
	mrdem_cursor_init(&c, rec->data, rec->len);
	mrdem_mesh_init(m);
	*name = NULL;
	*id = mrdem_get_u32(&c);
	*name = mrdem_get_str(&c);
	uint32_t flags = mrdem_get_u32(&c);
	uint32_t nv = mrdem_get_u32(&c), nt = mrdem_get_u32(&c);
	struct mrdem_mass mass;
	mass.volume = mrdem_get_f64(&c);
	mrdem_get_f64s(&c, mass.com, 3);
	mrdem_get_f64s(&c, mass.inertia, 6);
	/* Check the counts against the bytes present before allocating. */
	if (!mrdem_cursor_has(&c, (uint64_t)nv * 3, 8) ||
	    !mrdem_cursor_has(&c, (uint64_t)nv * 24 + (uint64_t)nt * 12, 1)) {
		c.bad = 1;
		goto fail;
	}
	mrdem_mesh_alloc(m, nv, nt);
	m->open = flags & MESH_FLAG_OPEN;
	m->mass = mass;
	mrdem_get_f64s(&c, m->verts, 3 * (size_t)nv);
	mrdem_get_u32s(&c, m->tris, 3 * (size_t)nt);
	if (mrdem_record_done(rec, src, &c))
		goto fail_quiet;
	if (flags & ~(uint32_t)MESH_FLAG_OPEN) {
		mrdem_record_error(rec, src, "unknown mesh flags 0x%x", flags);
		goto fail_quiet;
	}
	long bad = first_nonfinite(m->verts, 3 * (size_t)nv);
	if (bad >= 0) {
		mrdem_record_error(rec, src, "vertex %ld is not finite", bad / 3);
		goto fail_quiet;
	}
	for (size_t i = 0; i < 3 * (size_t)nt; i++)
		if (m->tris[i] >= nv) {
			mrdem_record_error(rec, src, "triangle %zu uses vertex %u of %u", i / 3,
					   m->tris[i], nv);
			goto fail_quiet;
		}
	double mp[10] = {m->mass.volume};
	memcpy(mp + 1, m->mass.com, sizeof m->mass.com);
	memcpy(mp + 4, m->mass.inertia, sizeof m->mass.inertia);
	if (first_nonfinite(mp, 10) >= 0 || (!m->open && !(m->mass.volume > 0))) {
		mrdem_record_error(rec, src, "bad mass properties (volume %g)", m->mass.volume);
		goto fail_quiet;
	}
	return 0;
fail:
	mrdem_record_done(rec, src, &c);
fail_quiet:
	free(*name);
	*name = NULL;
	mrdem_mesh_release(m);
	return -1;
}

/* ---- frame */

/* The per-particle columns of this build, in the order written. */
static const struct frame_column {
	const char *name;
	uint32_t type, components;
	size_t member; /* offsetof the array in struct mrdem_particles */
	int optional;  /* written when the array is there (material) */
} frame_columns[] = {
	{"id", MRDEM_COLUMN_U64, 1, offsetof(struct mrdem_particles, id), 0},
	{"shape", MRDEM_COLUMN_U32, 1, offsetof(struct mrdem_particles, shape), 0},
	{"flags", MRDEM_COLUMN_U32, 1, offsetof(struct mrdem_particles, flags), 0},
	{"position", MRDEM_COLUMN_F64, 3, offsetof(struct mrdem_particles, pos), 0},
	{"orientation", MRDEM_COLUMN_F64, 4, offsetof(struct mrdem_particles, quat), 0},
	{"velocity", MRDEM_COLUMN_F64, 3, offsetof(struct mrdem_particles, vel), 0},
	{"angular_velocity", MRDEM_COLUMN_F64, 3, offsetof(struct mrdem_particles, angvel), 0},
	{"density", MRDEM_COLUMN_F64, 1, offsetof(struct mrdem_particles, density), 0},
	{"epsilon", MRDEM_COLUMN_F64, 1, offsetof(struct mrdem_particles, eps), 0},
	{"material", MRDEM_COLUMN_U32, 1, offsetof(struct mrdem_particles, material), 1},
};
#define NCOLUMNS (sizeof frame_columns / sizeof *frame_columns)
#define MATERIAL_COLUMN (NCOLUMNS - 1)
#define MAX_COLUMNS 1024
#define MAX_COMPONENTS 64

static size_t column_type_size(uint32_t type)
{
	return type == MRDEM_COLUMN_U32 ? 4 : type == MRDEM_COLUMN_U64 || type == MRDEM_COLUMN_F64 ? 8 : 0;
}

static const char *column_type_name(uint32_t type)
{
	return type == MRDEM_COLUMN_U32 ? "u32" : type == MRDEM_COLUMN_U64 ? "u64" :
	       type == MRDEM_COLUMN_F64 ? "f64" : "unknown";
}

static void *column_data(const struct mrdem_particles *p, const struct frame_column *col)
{
	return *(void *const *)((const char *)p + col->member);
}

/* Extra columns are written back only while they still match the count. */
static int extra_fits(const struct mrdem_column *x, size_t n)
{
	return x->size == n * x->components * column_type_size(x->type);
}

/* Whether the frame of p carries column k. */
static int column_written(const struct mrdem_particles *p, size_t k)
{
	return !frame_columns[k].optional || column_data(p, &frame_columns[k]);
}

void mrdem_encode_frame(struct mrdem_buf *b, const struct mrdem_frame *f)
{
	const struct mrdem_particles *p = &f->p;
	size_t n = p->n, ncols = 0, bytes = 0;
	for (size_t k = 0; k < NCOLUMNS; k++)
		ncols += column_written(p, k);
	for (size_t k = 0; k < f->nextra; k++)
		if (extra_fits(&f->extra[k], n)) {
			ncols++;
			bytes += f->extra[k].size;
		}
	mrdem_buf_reserve(b, 28 + 64 * ncols + n * (8 + 4 + 4 + 8 * 15) + bytes);
	mrdem_buf_u64(b, f->step);
	mrdem_buf_f64(b, f->time);
	mrdem_buf_u64(b, n);
	mrdem_buf_u32(b, (uint32_t)ncols);
	for (size_t k = 0; k < NCOLUMNS; k++) {
		if (!column_written(p, k))
			continue;
		mrdem_buf_str(b, frame_columns[k].name);
		mrdem_buf_u32(b, frame_columns[k].type);
		mrdem_buf_u32(b, frame_columns[k].components);
	}
	for (size_t k = 0; k < f->nextra; k++)
		if (extra_fits(&f->extra[k], n)) {
			mrdem_buf_str(b, f->extra[k].name);
			mrdem_buf_u32(b, f->extra[k].type);
			mrdem_buf_u32(b, f->extra[k].components);
		}
	for (size_t k = 0; k < NCOLUMNS; k++) {
		const struct frame_column *col = &frame_columns[k];
		size_t m = n * col->components;
		void *v = column_data(p, col);
		if (!column_written(p, k))
			continue;
		if (col->type == MRDEM_COLUMN_U32)
			mrdem_buf_u32s(b, v, m);
		else if (col->type == MRDEM_COLUMN_U64)
			mrdem_buf_u64s(b, v, m);
		else
			mrdem_buf_f64s(b, v, m);
	}
	for (size_t k = 0; k < f->nextra; k++)
		if (extra_fits(&f->extra[k], n))
			mrdem_buf_bytes(b, f->extra[k].data, f->extra[k].size);
}

/* Values every frame must satisfy, whatever its version. */
static int check_frame(const struct mrdem_record *rec, const char *src, const struct mrdem_frame *f)
{
	const struct mrdem_particles *p = &f->p;
	size_t n = p->n;
	if (!isfinite(f->time)) {
		mrdem_record_error(rec, src, "time is not finite");
		return -1;
	}
	const struct {
		const char *what;
		const double *v;
		int dim;
	} fields[] = {{"position", p->pos, 3},   {"orientation", p->quat, 4},
		      {"velocity", p->vel, 3},   {"angular velocity", p->angvel, 3},
		      {"density", p->density, 1}, {"epsilon", p->eps, 1}};
	for (size_t k = 0; k < sizeof fields / sizeof *fields; k++) {
		long bad = first_nonfinite(fields[k].v, fields[k].dim * n);
		if (bad >= 0) {
			size_t i = (size_t)bad / fields[k].dim;
			mrdem_record_error(rec, src, "particle %zu (id %llu): %s is not finite", i,
					   (unsigned long long)p->id[i], fields[k].what);
			return -1;
		}
	}
	for (size_t i = 0; i < n; i++) {
		/* every tool maps shapes by this matrix as it stands */
		const double *q = &p->quat[4 * i];
		double norm = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
		if (!(fabs(norm - 1) <= MRDEM_QUAT_NORM_TOL)) {
			if (norm == 0)
				mrdem_record_error(rec, src, "particle %zu (id %llu): orientation "
						   "[0, 0, 0, 0] is the zero quaternion, not a rotation",
						   i, (unsigned long long)p->id[i]);
			else
				mrdem_record_error(rec, src, "particle %zu (id %llu): orientation "
						   "[%g, %g, %g, %g] has norm %.6g: not a unit "
						   "quaternion, so not a rotation", i,
						   (unsigned long long)p->id[i], q[0], q[1], q[2], q[3],
						   norm);
			return -1;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (p->eps[i] < 0) {
			mrdem_record_error(rec, src, "particle %zu (id %llu): epsilon is %g (the halo "
					   "width must be >= 0)", i, (unsigned long long)p->id[i],
					   p->eps[i]);
			return -1;
		}
	char msg[256];
	if (mrdem_ids_check(p, msg, sizeof msg)) {
		mrdem_record_error(rec, src, "%s", msg);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (p->flags[i] & ~(uint32_t)MRDEM_PARTICLE_FLAGS_KNOWN) {
			mrdem_record_error(rec, src, "particle %zu: unknown flags 0x%x", i, p->flags[i]);
			return -1;
		}
	return 0;
}

struct column_head {
	char *name;
	uint32_t type, components;
	long known; /* index in frame_columns, or -1 */
};

/* The columns' data into f's particles (n of them, room reserved), the
 * unknown ones into f->extra (their names taken). */
static void read_columns(struct mrdem_cursor *c, struct mrdem_frame *f, struct column_head *cols,
			 uint32_t ncols)
{
	for (uint32_t k = 0; k < ncols; k++) {
		struct column_head *h = &cols[k];
		size_t m = f->p.n * h->components;
		if (h->known < 0) {
			struct mrdem_column x = {h->name, h->type, h->components,
						 m * column_type_size(h->type), NULL};
			x.data = mrdem_xmalloc(x.size ? x.size : 1);
			mrdem_get_bytes(c, x.data, x.size);
			f->extra = mrdem_xrealloc(f->extra, (f->nextra + 1) * sizeof *f->extra);
			f->extra[f->nextra++] = x;
			h->name = NULL;
			continue;
		}
		void *v = column_data(&f->p, &frame_columns[h->known]);
		if (h->type == MRDEM_COLUMN_U32)
			mrdem_get_u32s(c, v, m);
		else if (h->type == MRDEM_COLUMN_U64)
			mrdem_get_u64s(c, v, m);
		else
			mrdem_get_f64s(c, v, m);
	}
}

int mrdem_decode_frame(const struct mrdem_record *rec, const char *src, struct mrdem_frame *f)
{
	struct mrdem_cursor c;
	mrdem_cursor_init(&c, rec->data, rec->len);
	mrdem_frame_init(f);
	f->step = mrdem_get_u64(&c);
	f->time = mrdem_get_f64(&c);
	uint64_t n = mrdem_get_u64(&c);
	uint32_t ncols = mrdem_get_u32(&c);
	if (c.bad)
		return mrdem_record_done(rec, src, &c);
	if (ncols > MAX_COLUMNS)
		return mrdem_record_error(rec, src, "%u particle columns (at most %d)", ncols,
					  MAX_COLUMNS);
	struct column_head *cols = mrdem_xcalloc(ncols ? ncols : 1, sizeof *cols);
	int seen[NCOLUMNS] = {0};
	uint64_t per_particle = 0;
	int rc = -1;
	for (uint32_t k = 0; k < ncols; k++) {
		struct column_head *h = &cols[k];
		h->name = mrdem_get_str(&c);
		h->type = mrdem_get_u32(&c);
		h->components = mrdem_get_u32(&c);
		h->known = -1;
		if (c.bad) {
			mrdem_record_done(rec, src, &c);
			goto out;
		}
		size_t size = column_type_size(h->type);
		if (!size || h->components == 0 || h->components > MAX_COMPONENTS) {
			mrdem_record_error(rec, src, "column %u '%s': bad type %u or %u components", k,
					   h->name, h->type, h->components);
			goto out;
		}
		for (size_t j = 0; j < NCOLUMNS; j++)
			if (!strcmp(h->name, frame_columns[j].name))
				h->known = (long)j;
		for (uint32_t j = 0; j < k; j++)
			if (!strcmp(h->name, cols[j].name)) {
				mrdem_record_error(rec, src, "column '%s' appears twice", h->name);
				goto out;
			}
		if (h->known >= 0) {
			const struct frame_column *want = &frame_columns[h->known];
			if (h->type != want->type || h->components != want->components) {
				mrdem_record_error(rec, src, "column '%s' is %s x %u, want %s x %u",
						   h->name, column_type_name(h->type), h->components,
						   column_type_name(want->type), want->components);
				goto out;
			}
			seen[h->known] = 1;
		}
		per_particle += size * h->components;
	}
	for (size_t j = 0; j < NCOLUMNS; j++)
		if (!seen[j] && !frame_columns[j].optional) {
			mrdem_record_error(rec, src, "the frame has no '%s' column", frame_columns[j].name);
			goto out;
		}
	/* Check the count against the bytes present before allocating. */
	if (!mrdem_cursor_has(&c, n, (size_t)per_particle)) {
		c.bad = 1;
		mrdem_record_done(rec, src, &c);
		goto out;
	}
	mrdem_particles_reserve(&f->p, n ? n : 1);
	f->p.n = n;
	if (seen[MATERIAL_COLUMN])
		mrdem_particles_use_material(&f->p);
	read_columns(&c, f, cols, ncols);
	if (mrdem_record_done(rec, src, &c) || check_frame(rec, src, f))
		goto out;
	rc = 0;
out:
	for (uint32_t k = 0; k < ncols; k++)
		free(cols[k].name);
	free(cols);
	if (rc)
		mrdem_frame_release(f);
	return rc;
}

/* Version 1 frames: fixed columns (mrdem-info --upgrade). */
#define FRAME_BYTES_PER_PARTICLE (8 + 4 + 4 + 8 * 15)

int mrdem_decode_frame_v1(const struct mrdem_record *rec, const char *src, struct mrdem_frame *f)
{
	struct mrdem_cursor c;
	mrdem_cursor_init(&c, rec->data, rec->len);
	mrdem_frame_init(f);
	f->step = mrdem_get_u64(&c);
	f->time = mrdem_get_f64(&c);
	uint64_t n = mrdem_get_u64(&c);
	if (!mrdem_cursor_has(&c, n, FRAME_BYTES_PER_PARTICLE)) {
		c.bad = 1;
		return mrdem_record_done(rec, src, &c);
	}
	struct mrdem_particles *p = &f->p;
	mrdem_particles_reserve(p, n ? n : 1);
	p->n = n;
	mrdem_get_u64s(&c, p->id, n);
	mrdem_get_u32s(&c, p->shape, n);
	mrdem_get_u32s(&c, p->flags, n);
	mrdem_get_f64s(&c, p->pos, 3 * n);
	mrdem_get_f64s(&c, p->quat, 4 * n);
	mrdem_get_f64s(&c, p->vel, 3 * n);
	mrdem_get_f64s(&c, p->angvel, 3 * n);
	mrdem_get_f64s(&c, p->density, n);
	mrdem_get_f64s(&c, p->eps, n);
	if (mrdem_record_done(rec, src, &c))
		goto fail;
	if (check_frame(rec, src, f))
		goto fail;
	return 0;
fail:
	mrdem_frame_release(f);
	return -1;
}

/* ---- stats */

void mrdem_encode_stats(struct mrdem_buf *b, const struct mrdem_stats *s)
{
	mrdem_buf_str(b, s->source);
	mrdem_buf_u64(b, s->step);
	mrdem_buf_u32(b, (uint32_t)s->n);
	for (size_t i = 0; i < s->n; i++) {
		mrdem_buf_str(b, s->names[i]);
		mrdem_buf_f64(b, s->values[i]);
	}
}

int mrdem_decode_stats(const struct mrdem_record *rec, const char *src, struct mrdem_stats *s)
{
	struct mrdem_cursor c;
	mrdem_cursor_init(&c, rec->data, rec->len);
	memset(s, 0, sizeof *s);
	s->source = mrdem_get_str(&c);
	s->step = mrdem_get_u64(&c);
	uint32_t n = mrdem_get_u32(&c);
	if (!s->source)
		s->source = mrdem_xstrdup("");
	for (uint32_t i = 0; i < n && !c.bad; i++) {
		char *name = mrdem_get_str(&c);
		double v = mrdem_get_f64(&c);
		if (name) {
			mrdem_stats_add(s, name, v);
			free(name);
		}
	}
	if (mrdem_record_done(rec, src, &c)) {
		mrdem_stats_release(s);
		return -1;
	}
	return 0;
}

/* ---- pairs */

void mrdem_encode_pairs(struct mrdem_buf *b, const struct mrdem_pairs *p)
{
	mrdem_buf_reserve(b, 16 + 16 * p->n);
	mrdem_buf_u64(b, p->step);
	mrdem_buf_u64(b, p->n);
	for (size_t i = 0; i < p->n; i++) {
		mrdem_buf_u64(b, p->p[i].a);
		mrdem_buf_u64(b, p->p[i].b);
	}
}

int mrdem_decode_pairs(const struct mrdem_record *rec, const char *src, struct mrdem_pairs *p)
{
	struct mrdem_cursor c;
	mrdem_cursor_init(&c, rec->data, rec->len);
	mrdem_pairs_init(p);
	p->step = mrdem_get_u64(&c);
	uint64_t n = mrdem_get_u64(&c);
	if (!mrdem_cursor_has(&c, n, 16))
		c.bad = 1;
	else if (n) {
		p->p = mrdem_xmalloc_array(n, sizeof *p->p);
		p->n = p->cap = n;
		for (size_t i = 0; i < n; i++) {
			p->p[i].a = mrdem_get_u64(&c);
			p->p[i].b = mrdem_get_u64(&c);
		}
	}
	size_t i, j;
	if (mrdem_record_done(rec, src, &c))
		goto fail;
	if (mrdem_pairs_find_duplicate(p, &i, &j)) {
		mrdem_record_error(rec, src, "pairs %zu and %zu are the same pair (%llu, %llu); a "
				   "pair may appear once", i, j, (unsigned long long)p->p[i].a,
				   (unsigned long long)p->p[i].b);
		goto fail;
	}
	return 0;
fail:
	mrdem_pairs_release(p);
	return -1;
}

/* ---- contacts */

#define CONTACT_BYTES (8 + 8 + 4 + 4 + 8 * 8)

void mrdem_encode_contacts(struct mrdem_buf *b, const struct mrdem_contacts *c)
{
	mrdem_buf_reserve(b, 16 + CONTACT_BYTES * c->n);
	mrdem_buf_u64(b, c->step);
	mrdem_buf_u64(b, c->n);
	for (size_t i = 0; i < c->n; i++) {
		const struct mrdem_contact *k = &c->c[i];
		mrdem_buf_u64(b, k->a);
		mrdem_buf_u64(b, k->b);
		mrdem_buf_u32(b, k->tri_a);
		mrdem_buf_u32(b, k->tri_b);
		mrdem_buf_f64s(b, k->x, 3);
		mrdem_buf_f64s(b, k->normal, 3);
		mrdem_buf_f64(b, k->dist);
		mrdem_buf_f64(b, k->depth);
	}
}

int mrdem_decode_contacts(const struct mrdem_record *rec, const char *src,
			  struct mrdem_contacts *c)
{
	struct mrdem_cursor cur;
	mrdem_cursor_init(&cur, rec->data, rec->len);
	mrdem_contacts_init(c);
	c->step = mrdem_get_u64(&cur);
	uint64_t n = mrdem_get_u64(&cur);
	if (!mrdem_cursor_has(&cur, n, CONTACT_BYTES))
		cur.bad = 1;
	else if (n) {
		c->c = mrdem_xmalloc_array(n, sizeof *c->c);
		c->n = c->cap = n;
		for (size_t i = 0; i < n; i++) {
			struct mrdem_contact *k = &c->c[i];
			k->a = mrdem_get_u64(&cur);
			k->b = mrdem_get_u64(&cur);
			k->tri_a = mrdem_get_u32(&cur);
			k->tri_b = mrdem_get_u32(&cur);
			mrdem_get_f64s(&cur, k->x, 3);
			mrdem_get_f64s(&cur, k->normal, 3);
			k->dist = mrdem_get_f64(&cur);
			k->depth = mrdem_get_f64(&cur);
		}
	}
	if (mrdem_record_done(rec, src, &cur))
		goto fail;
	for (size_t i = 0; i < c->n; i++) {
		const struct mrdem_contact *k = &c->c[i];
		double v[8] = {k->x[0], k->x[1], k->x[2], k->normal[0], k->normal[1], k->normal[2],
			       k->dist, k->depth};
		long bad = first_nonfinite(v, 8);
		if (bad >= 0) {
			const char *what = bad < 3 ? "point" : bad < 6 ? "normal" :
					   bad < 7 ? "dist" : "depth";
			const double *at = bad < 3 ? v : bad < 6 ? v + 3 : v + bad;
			int dim = bad < 6 ? 3 : 1;
			char val[96];
			snprintf(val, sizeof val, dim == 3 ? "[%g, %g, %g]" : "%g", at[0],
				 dim == 3 ? at[1] : 0, dim == 3 ? at[2] : 0);
			mrdem_record_error(rec, src, "contact %zu (particles %llu and %llu): %s %s "
					   "is not finite", i, (unsigned long long)k->a,
					   (unsigned long long)k->b, what, val);
			goto fail;
		}
	}
	return 0;
fail:
	mrdem_contacts_release(c);
	return -1;
}

int mrdem_count_contacts(const struct mrdem_record *rec, const char *src, uint64_t *n)
{
	struct mrdem_cursor cur;
	mrdem_cursor_init(&cur, rec->data, rec->len);
	mrdem_get_u64(&cur); /* step */
	*n = mrdem_get_u64(&cur);
	if (!mrdem_cursor_has(&cur, *n, CONTACT_BYTES))
		cur.bad = 1;
	else
		cur.pos += *n * CONTACT_BYTES;
	return mrdem_record_done(rec, src, &cur);
}

/* ---- index */

int mrdem_decode_index(const struct mrdem_record *rec, const char *src,
		       struct mrdem_frame_pos **out, size_t *n_out)
{
	struct mrdem_cursor c;
	mrdem_cursor_init(&c, rec->data, rec->len);
	uint64_t n = mrdem_get_u64(&c);
	*out = NULL;
	*n_out = 0;
	if (!mrdem_cursor_has(&c, n, 40) || c.len - c.pos != 40 * n)
		return mrdem_record_error(rec, src, "index record of %zu bytes does not hold its "
					  "%llu entries (corrupt record)", rec->len,
					  (unsigned long long)n);
	struct mrdem_frame_pos *v = mrdem_xmalloc_array(n ? n : 1, sizeof *v);
	for (size_t i = 0; i < n; i++) {
		v[i].step = mrdem_get_u64(&c);
		v[i].time = mrdem_get_f64(&c);
		v[i].record = mrdem_get_u64(&c);
		v[i].offset = mrdem_get_u64(&c);
		v[i].zoffset = mrdem_get_u64(&c);
	}
	*out = v;
	*n_out = n;
	return 0;
}

/* ---- whole scenes */

/* The history of the frame just read, its references checked. */
static int absorb_history(struct mrdem_scene *s, const struct mrdem_record *rec, const char *src)
{
	uint64_t step;
	struct mrdem_history h;
	mrdem_history_init(&h);
	if (mrdem_decode_history(rec, src, &step, &h)) {
		mrdem_history_release(&h);
		return -1;
	}
	if (step != s->frame.step || s->frame.history.n) {
		mrdem_history_release(&h);
		return mrdem_record_error(rec, src, "history of step %llu does not follow "
					  "the frame of its step (the frame is of step "
					  "%llu)", (unsigned long long)step,
					  (unsigned long long)s->frame.step);
	}
	if (mrdem_history_check_refs(s, &h, rec, src)) {
		mrdem_history_release(&h);
		return -1;
	}
	mrdem_history_release(&s->frame.history);
	s->frame.history = h;
	return 1;
}

/* A mesh shape, the next id. */
static int absorb_mesh(struct mrdem_scene *s, const struct mrdem_record *rec, const char *src)
{
	uint32_t id;
	char *name;
	struct mrdem_mesh m;
	if (mrdem_decode_mesh(rec, src, &id, &name, &m))
		return -1;
	if (id != s->nshapes) {
		mrdem_record_error(rec, src, "shape id %u out of order (expected %u)", id,
				   s->nshapes);
		free(name);
		mrdem_mesh_release(&m);
		return -1;
	}
	mrdem_scene_add_shape(s, name, &m);
	free(name);
	return 1;
}

/* An analytic shape (the next id), or the convex mark of the mesh just read. */
static int absorb_shape(struct mrdem_scene *s, const struct mrdem_record *rec, const char *src)
{
	uint32_t id;
	char *name;
	int kind;
	double axes[3];
	if (mrdem_decode_shape(rec, src, &id, &name, &kind, axes))
		return -1;
	if (kind == MRDEM_SHAPE_CONVEX) { /* marks the mesh just read */
		int rc = 0;
		if (!s->nshapes || id != s->nshapes - 1 || strcmp(name, s->shapes[id].name))
			rc = mrdem_record_error(rec, src, "convex shape %u '%s' does not follow "
						"the mesh record of its shape", id, name);
		else if (mrdem_scene_make_convex(s, id, name))
			rc = mrdem_record_error(rec, src, "shape %u '%s': its mesh is not the "
						"closed convex polyhedron a convex shape is",
						id, name);
		free(name);
		return rc ? -1 : 1;
	}
	if (id != s->nshapes) {
		mrdem_record_error(rec, src, "shape id %u out of order (expected %u)", id,
				   s->nshapes);
		free(name);
		return -1;
	}
	mrdem_scene_add_analytic(s, name, kind, axes);
	free(name);
	return 1;
}

/* A frame whose particles use shapes defined before it (open meshes only
 * for fixed particles) and whose energy is bounded; it replaces the last. */
static int absorb_frame(struct mrdem_scene *s, const struct mrdem_record *rec, const char *src)
{
	struct mrdem_frame f;
	if (mrdem_decode_frame(rec, src, &f))
		return -1;
	for (size_t i = 0; i < f.p.n; i++) {
		if (f.p.shape[i] >= s->nshapes) {
			mrdem_record_error(rec, src, "particle %zu (id %llu) uses shape %u, "
					   "but the stream defines %u shapes before it",
					   i, (unsigned long long)f.p.id[i], f.p.shape[i],
					   s->nshapes);
			mrdem_frame_release(&f);
			return -1;
		}
		if (s->shapes[f.p.shape[i]].mesh.open &&
		    !(f.p.flags[i] & MRDEM_PARTICLE_FIXED)) {
			mrdem_record_error(rec, src, "particle %zu (id %llu) is not fixed but "
					   "its shape '%s' is an open mesh",
					   i, (unsigned long long)f.p.id[i],
					   s->shapes[f.p.shape[i]].name);
			mrdem_frame_release(&f);
			return -1;
		}
	}
	if (mrdem_materials_check_frame(&s->setup, &f.p, rec, src)) {
		mrdem_frame_release(&f);
		return -1;
	}
	mrdem_frame_release(&s->frame);
	s->frame = f;
	/* planes are in the setup: put the moving ones where the frame is (a
	 * moving particle's pose is in the frame) */
	char why[400];
	if (mrdem_motion_frame_problem(&s->setup, &s->frame.p, why, sizeof why))
		return mrdem_record_error(rec, src, "%s", why);
	mrdem_motion_place_planes(&s->setup, s->frame.time);
	long bad = mrdem_energy_unbounded(s, 0, s->frame.p.n, why, sizeof why);
	if (bad >= 0)
		return mrdem_record_error(rec, src, "particle %ld (id %llu): %s", bad,
					  (unsigned long long)s->frame.p.id[bad], why);
	return 1;
}

int mrdem_scene_absorb(struct mrdem_scene *s, const struct mrdem_record *rec, const char *src)
{
	if (s->setup.model_pending &&
	    (rec->type == MRDEM_REC_MESH || rec->type == MRDEM_REC_SHAPE ||
	     rec->type == MRDEM_REC_SCALED_SHAPE || rec->type == MRDEM_REC_TREE ||
	     rec->type == MRDEM_REC_FRAME || rec->type == MRDEM_REC_HISTORY ||
	     rec->type == MRDEM_REC_MATERIALS))
		return mrdem_record_error(rec, src, "the setup names force model %s but no "
					  "contact_model record follows it",
					  mrdem_force_model_name(s->setup.force_model));
	switch (rec->type) {
	case MRDEM_REC_CONTACT_MODEL:
		if (!s->setup.model_pending)
			return mrdem_record_error(rec, src, "a contact_model record must follow a "
						  "setup record naming hooke or hertz");
		return mrdem_decode_contact_model(rec, src, &s->setup) ? -1 : 1;
	case MRDEM_REC_HISTORY:
		return absorb_history(s, rec, src);
	case MRDEM_REC_MATERIALS:
		return mrdem_decode_materials(rec, src, &s->setup) ? -1 : 1;
	case MRDEM_REC_MOTION:
		if (mrdem_decode_motion(rec, src, &s->setup) ||
		    mrdem_motion_place_planes(&s->setup, s->frame.time))
			return -1;
		return 1;
	case MRDEM_REC_SETUP: {
		struct mrdem_setup setup;
		if (decode_setup(rec, src, &setup))
			return -1;
		mrdem_setup_release(&s->setup);
		s->setup = setup;
		return 1;
	}
	case MRDEM_REC_MESH:
		return absorb_mesh(s, rec, src);
	case MRDEM_REC_SHAPE:
		return absorb_shape(s, rec, src);
	case MRDEM_REC_SCALED_SHAPE:
		return mrdem_scene_absorb_scaled_shape(s, rec, src) ? -1 : 1;
	case MRDEM_REC_FRAME:
		return absorb_frame(s, rec, src);
	case MRDEM_REC_TREE:
		return mrdem_scene_absorb_tree(s, rec, src) ? -1 : 1;
	case MRDEM_REC_INFLOW:
		return mrdem_decode_inflow(rec, src, s, &s->flow) ? -1 : 1;
	case MRDEM_REC_OUTFLOW:
		return mrdem_decode_outflow(rec, src, &s->flow) ? -1 : 1;
	default:
		return 0;
	}
}

/* Encode with enc into a scratch buffer and write it as one record. */
#define WRITE_RECORD(w, type, encode_call)                                   \
	do {                                                                 \
		struct mrdem_buf b_;                                         \
		mrdem_buf_init(&b_);                                         \
		encode_call;                                                 \
		int rc_ = mrdem_writer_put((w), (type), b_.p, b_.len);       \
		mrdem_buf_release(&b_);                                      \
		if (rc_)                                                     \
			return -1;                                           \
	} while (0)

int mrdem_scene_write_shapes(struct mrdem_writer *w, const struct mrdem_scene *s)
{
	for (uint32_t i = 0; i < s->nshapes; i++) {
		const struct mrdem_shape *sh = &s->shapes[i];
		if (sh->base != MRDEM_SHAPE_NO_BASE) { /* readers derive it, tree and all */
			WRITE_RECORD(w, MRDEM_REC_SCALED_SHAPE,
				     mrdem_encode_scaled_shape(&b_, sh->id, sh->name, sh->base,
							       sh->scale));
			continue;
		}
		if (sh->kind != MRDEM_SHAPE_MESH) {
			WRITE_RECORD(w, MRDEM_REC_SHAPE,
				     mrdem_encode_shape(&b_, sh->id, sh->name, sh->kind, sh->axes));
			continue;
		}
		WRITE_RECORD(w, MRDEM_REC_MESH, mrdem_encode_mesh(&b_, sh->id, sh->name, &sh->mesh));
		if (sh->convex)
			WRITE_RECORD(w, MRDEM_REC_SHAPE,
				     mrdem_encode_shape(&b_, sh->id, sh->name, MRDEM_SHAPE_CONVEX,
							(double[3]){0, 0, 0}));
		if (sh->tree)
			WRITE_RECORD(w, MRDEM_REC_TREE, mrdem_encode_tree(&b_, sh->id, sh->tree));
	}
	return 0;
}

/* A frame and, when its contacts keep springs, their history after it. */
int mrdem_write_frame(struct mrdem_writer *w, const struct mrdem_frame *f)
{
	WRITE_RECORD(w, MRDEM_REC_FRAME, mrdem_encode_frame(&b_, f));
	if (f->history.n)
		WRITE_RECORD(w, MRDEM_REC_HISTORY, mrdem_encode_history(&b_, f->step, &f->history));
	return 0;
}

/* Encode x, a record of one of these types, and write it. */
static int write_one(struct mrdem_writer *w, uint32_t type, const void *x)
{
	struct mrdem_buf b;
	mrdem_buf_init(&b);
	switch (type) {
	case MRDEM_REC_PAIRS:
		mrdem_encode_pairs(&b, x);
		break;
	case MRDEM_REC_CONTACTS:
	case MRDEM_REC_GUESSES:
		mrdem_encode_contacts(&b, x);
		break;
	case MRDEM_REC_STATS:
		mrdem_encode_stats(&b, x);
		break;
	case MRDEM_REC_META:
		mrdem_encode_meta(&b, x);
		break;
	}
	int rc = mrdem_writer_put(w, type, b.p, b.len);
	mrdem_buf_release(&b);
	return rc ? -1 : 0;
}

int mrdem_write_pairs(struct mrdem_writer *w, const struct mrdem_pairs *p)
{
	return write_one(w, MRDEM_REC_PAIRS, p);
}

int mrdem_write_contacts(struct mrdem_writer *w, const struct mrdem_contacts *c)
{
	return write_one(w, MRDEM_REC_CONTACTS, c);
}

int mrdem_write_guesses(struct mrdem_writer *w, const struct mrdem_contacts *g)
{
	return write_one(w, MRDEM_REC_GUESSES, g);
}

int mrdem_write_stats(struct mrdem_writer *w, const struct mrdem_stats *s)
{
	return write_one(w, MRDEM_REC_STATS, s);
}

int mrdem_write_meta(struct mrdem_writer *w, const struct mrdem_meta *m)
{
	return write_one(w, MRDEM_REC_META, m);
}

int mrdem_scene_write(struct mrdem_writer *w, const struct mrdem_scene *s)
{
	WRITE_RECORD(w, MRDEM_REC_SETUP, mrdem_encode_setup(&b_, &s->setup));
	if (MRDEM_FORCE_MODEL_HAS_SPRINGS(s->setup.force_model))
		WRITE_RECORD(w, MRDEM_REC_CONTACT_MODEL, mrdem_encode_contact_model(&b_, &s->setup));
	if (s->setup.materials)
		WRITE_RECORD(w, MRDEM_REC_MATERIALS, mrdem_encode_materials(&b_, &s->setup));
	if (s->setup.nmotions)
		WRITE_RECORD(w, MRDEM_REC_MOTION, mrdem_encode_motion(&b_, &s->setup));
	if (mrdem_scene_write_shapes(w, s))
		return -1;
	if (s->flow.ninsert)
		WRITE_RECORD(w, MRDEM_REC_INFLOW, mrdem_encode_inflow(&b_, &s->flow));
	if (s->flow.nremove)
		WRITE_RECORD(w, MRDEM_REC_OUTFLOW, mrdem_encode_outflow(&b_, &s->flow));
	return mrdem_write_frame(w, &s->frame);
}
