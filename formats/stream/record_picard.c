/* Picard and fronts records: encoding and checked decoding. Fields go one
 * by one, little-endian (formats/stream/bytes.h), in the order of
 * docs/stream-format.md. */
#include "formats/stream/record_picard.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"
#include "formats/stream/records.h"

/* Per particle: x0 3, q0 4, v0 3, w0 3, guess 6, inc 6, weight 2,
 * gross_prev 1, kinetic 1. */
#define PARTICLE_VALUES 29
#define SUBSTEP_BYTES (8 + 8 + 4)
/* A front's certificate: flag, halos, radius, pose. */
#define CERT_BYTES (4 + 4 + 8 + 12 * 8)

static void put_substep(struct mrdem_buf *b, const struct mrdem_picard_substep *u)
{
	mrdem_buf_f64(b, u->dt);
	mrdem_buf_f64(b, u->t);
	mrdem_buf_u32(b, u->depth);
}

static void get_substep(struct mrdem_cursor *c, struct mrdem_picard_substep *u)
{
	u->dt = mrdem_get_f64(c);
	u->t = mrdem_get_f64(c);
	u->depth = mrdem_get_u32(c);
}

/* The energies of struct mrdem_energy in record order. */
static void energy_values(struct mrdem_energy *e, double **v)
{
	double *p[] = { &e->translational, &e->rotational, &e->gravity, &e->contact,
			&e->momentum[0], &e->momentum[1], &e->momentum[2],
			&e->angular_momentum[0], &e->angular_momentum[1],
			&e->angular_momentum[2], &e->mass };
	memcpy(v, p, sizeof p);
}
#define ENERGY_VALUES 11

/* The arrays of pc and st per particle in record order, with their widths. */
struct column { double *v; size_t per; };
static void particle_columns(const struct mrdem_picard *pc, const struct mrdem_stepper *st,
			     struct column *c)
{
	struct column v[] = { {pc->x0, 3}, {pc->q0, 4}, {pc->v0, 3}, {pc->w0, 3},
			      {pc->guess, 6}, {pc->inc, 6}, {pc->weight, 2},
			      {pc->gross_prev, 1}, {st->kinetic, 1} };
	memcpy(c, v, sizeof v);
}
#define COLUMNS 9

void mrdem_encode_picard(struct mrdem_buf *b, const struct mrdem_picard *pc,
			 const struct mrdem_stepper *st)
{
	const struct mrdem_picard_opts *o = &pc->opts;
	const struct mrdem_picard_counts *k = &pc->last;
	mrdem_buf_u64(b, st->step);
	mrdem_buf_f64(b, st->time);
	mrdem_buf_f64(b, st->dt);
	mrdem_buf_u32(b, (uint32_t)st->scheme);
	/* options */
	mrdem_buf_f64(b, o->tol);
	mrdem_buf_u32(b, o->max_iter);
	mrdem_buf_u32(b, o->max_retries);
	mrdem_buf_f64(b, o->damping);
	mrdem_buf_u32(b, (uint32_t)o->warm_start);
	/* account of the step's start */
	mrdem_buf_u64(b, st->contacts);
	mrdem_buf_u64(b, st->forces.active);
	mrdem_buf_u64(b, st->forces.plane_active);
	mrdem_buf_f64(b, st->forces.max_overlap);
	double *e[ENERGY_VALUES];
	energy_values((struct mrdem_energy *)&st->energy, e);
	for (int i = 0; i < ENERGY_VALUES; i++)
		mrdem_buf_f64(b, *e[i]);
	/* the attempt and what remains */
	put_substep(b, &pc->cur);
	mrdem_buf_u32(b, pc->iter);
	mrdem_buf_u32(b, pc->since_best);
	mrdem_buf_f64(b, pc->best);
	mrdem_buf_u32(b, (uint32_t)pc->npending);
	for (size_t i = 0; i < pc->npending; i++)
		put_substep(b, &pc->pending[i]);
	/* counters */
	mrdem_buf_u64(b, k->iterations);
	mrdem_buf_u64(b, k->comparisons);
	mrdem_buf_u32(b, MRDEM_PICARD_ITER_COUNTERS);
	mrdem_buf_u32(b, MRDEM_SEARCH_ROUNDS + 1);
	for (int i = 0; i < MRDEM_PICARD_ITER_COUNTERS; i++)
		mrdem_buf_u64s(b, k->comparisons_round[i], MRDEM_SEARCH_ROUNDS + 1);
	uint64_t more[] = { k->iterative, k->fallbacks, k->retries, k->substeps, k->contacts };
	mrdem_buf_u64s(b, more, sizeof more / sizeof more[0]);
	struct mrdem_front_counts fc = k->front;
	uint64_t *front[MRDEM_FRONT_COUNTS];
	mrdem_front_counts_fields(&fc, front);
	for (int i = 0; i < MRDEM_FRONT_COUNTS; i++)
		mrdem_buf_u64(b, *front[i]);
	mrdem_buf_f64(b, k->residual);
	/* particles */
	mrdem_buf_u64(b, pc->n);
	struct column c[COLUMNS];
	particle_columns(pc, st, c);
	for (int i = 0; i < COLUMNS; i++)
		mrdem_buf_f64s(b, c[i].v, c[i].per * pc->n);
}

int mrdem_write_picard(struct mrdem_writer *w, const struct mrdem_picard *pc,
		       const struct mrdem_stepper *st)
{
	struct mrdem_buf b;
	mrdem_buf_init(&b);
	mrdem_encode_picard(&b, pc, st);
	int rc = mrdem_writer_put(w, MRDEM_REC_PICARD, b.p, b.len);
	mrdem_buf_release(&b);
	return rc ? -1 : 0;
}

/* The values a decoded state must have, or a message. */
static int check_picard(const struct mrdem_record *rec, const char *src,
			const struct mrdem_picard *pc, const struct mrdem_stepper *st)
{
	const struct mrdem_picard_opts *o = &pc->opts;
	if (st->scheme != MRDEM_SCHEME_IMPLICIT_EULER)
		return mrdem_record_error(rec, src, "scheme %d is not implicit-euler", st->scheme);
	if (!(st->dt > 0) || !isfinite(st->dt) || !isfinite(st->time))
		return mrdem_record_error(rec, src, "time %g or time step %g is not valid", st->time,
					  st->dt);
	if (mrdem_picard_opts_check(o))
		return mrdem_record_error(rec, src, "the options above are out of range");
	if (o->warm_start > 1)
		return mrdem_record_error(rec, src, "warm-start flag %d is not 0 or 1",
					  o->warm_start);
	for (size_t i = 0; i <= pc->npending; i++) {
		/* the attempt, then the pending ones */
		const struct mrdem_picard_substep *u = i ? &pc->pending[i - 1] : &pc->cur;
		if (!(u->dt > 0) || !isfinite(u->dt) || !isfinite(u->t) ||
		    u->depth > o->max_retries)
			return mrdem_record_error(rec, src, "sub-step %zu (dt %g, t %g, depth %u) is "
						  "not valid", i, u->dt, u->t, u->depth);
	}
	if (pc->iter >= o->max_iter || isnan(pc->best) || !isfinite(pc->last.residual))
		return mrdem_record_error(rec, src, "iteration %u (cap %u) or residual is not valid",
					  pc->iter, o->max_iter);
	double *e[ENERGY_VALUES];
	energy_values((struct mrdem_energy *)&st->energy, e);
	for (int i = 0; i < ENERGY_VALUES; i++)
		if (!isfinite(*e[i]))
			return mrdem_record_error(rec, src, "energy value %d is not finite", i);
	struct column c[COLUMNS];
	particle_columns(pc, st, c);
	for (int i = 0; i < COLUMNS; i++)
		for (size_t k = 0; k < c[i].per * pc->n; k++)
			if (!isfinite(c[i].v[k]))
				return mrdem_record_error(rec, src, "particle %zu: value %zu of array %d "
							  "is not finite", k / c[i].per,
							  k % c[i].per, i);
	return 0;
}

int mrdem_decode_picard(const struct mrdem_record *rec, const char *src, struct mrdem_picard *pc,
			struct mrdem_stepper *st)
{
	struct mrdem_cursor c;
	mrdem_cursor_init(&c, rec->data, rec->len);
	struct mrdem_picard_opts *o = &pc->opts;
	struct mrdem_picard_counts *k = &pc->last;
	st->step = mrdem_get_u64(&c);
	st->time = mrdem_get_f64(&c);
	st->dt = mrdem_get_f64(&c);
	st->scheme = (int)mrdem_get_u32(&c);
	o->tol = mrdem_get_f64(&c);
	o->max_iter = mrdem_get_u32(&c);
	o->max_retries = mrdem_get_u32(&c);
	o->damping = mrdem_get_f64(&c);
	o->warm_start = (int)mrdem_get_u32(&c);
	st->contacts = mrdem_get_u64(&c);
	st->forces.active = mrdem_get_u64(&c);
	st->forces.plane_active = mrdem_get_u64(&c);
	st->forces.max_overlap = mrdem_get_f64(&c);
	double *e[ENERGY_VALUES];
	energy_values(&st->energy, e);
	for (int i = 0; i < ENERGY_VALUES; i++)
		*e[i] = mrdem_get_f64(&c);
	get_substep(&c, &pc->cur);
	pc->iter = mrdem_get_u32(&c);
	pc->since_best = mrdem_get_u32(&c);
	pc->best = mrdem_get_f64(&c);
	uint32_t npending = mrdem_get_u32(&c);
	if (!mrdem_cursor_has(&c, npending, SUBSTEP_BYTES)) {
		c.bad = 1;
		return mrdem_record_done(rec, src, &c);
	}
	if (npending > pc->pending_cap) {
		pc->pending = mrdem_xrealloc(pc->pending, npending * sizeof *pc->pending);
		pc->pending_cap = npending;
	}
	pc->npending = npending;
	for (size_t i = 0; i < npending; i++)
		get_substep(&c, &pc->pending[i]);
	k->iterations = mrdem_get_u64(&c);
	k->comparisons = mrdem_get_u64(&c);
	uint32_t rows = mrdem_get_u32(&c), rounds = mrdem_get_u32(&c);
	if (!c.bad && (rows != MRDEM_PICARD_ITER_COUNTERS || rounds != MRDEM_SEARCH_ROUNDS + 1))
		return mrdem_record_error(rec, src, "%u x %u comparison counters, this build keeps "
					  "%d x %d", rows, rounds, MRDEM_PICARD_ITER_COUNTERS,
					  MRDEM_SEARCH_ROUNDS + 1);
	for (int i = 0; i < MRDEM_PICARD_ITER_COUNTERS; i++)
		mrdem_get_u64s(&c, k->comparisons_round[i], MRDEM_SEARCH_ROUNDS + 1);
	uint64_t more[5], *front[MRDEM_FRONT_COUNTS];
	mrdem_get_u64s(&c, more, 5);
	k->iterative = more[0], k->fallbacks = more[1], k->retries = more[2];
	k->substeps = more[3], k->contacts = more[4];
	mrdem_front_counts_fields(&k->front, front);
	for (int i = 0; i < MRDEM_FRONT_COUNTS; i++)
		*front[i] = mrdem_get_u64(&c);
	k->residual = mrdem_get_f64(&c);
	uint64_t n = mrdem_get_u64(&c);
	if (!mrdem_cursor_has(&c, n, PARTICLE_VALUES * sizeof(double))) {
		c.bad = 1;
		return mrdem_record_done(rec, src, &c);
	}
	mrdem_picard_reserve(pc, (size_t)n);
	mrdem_stepper_reserve(st, (size_t)n);
	struct column col[COLUMNS];
	particle_columns(pc, st, col);
	for (int i = 0; i < COLUMNS; i++)
		mrdem_get_f64s(&c, col[i].v, col[i].per * n);
	if (mrdem_record_done(rec, src, &c) || check_picard(rec, src, pc, st))
		return -1;
	mrdem_stepper_resume(st, (size_t)n);
	return 0;
}

/* ---- fronts */

void mrdem_encode_fronts(struct mrdem_buf *b, const struct mrdem_front_store *fr)
{
	struct mrdem_front_store_entry *v;
	size_t n = mrdem_front_store_save(fr, &v);
	mrdem_buf_u64(b, n);
	for (size_t i = 0; i < n; i++) {
		const struct mrdem_front_arrays *a = &v[i].front;
		mrdem_buf_u64(b, v[i].a);
		mrdem_buf_u64(b, v[i].b);
		mrdem_buf_u32(b, v[i].used ? 1 : 0);
		mrdem_buf_u32(b, (uint32_t)a->npairs);
		mrdem_buf_u32(b, (uint32_t)a->ngroups);
		mrdem_buf_u32(b, (uint32_t)a->nmemory);
		mrdem_buf_u32s(b, a->pairs, MRDEM_FRONT_PAIR_VALUES * a->npairs);
		mrdem_buf_u32s(b, a->groups, MRDEM_FRONT_GROUP_VALUES * a->ngroups);
		mrdem_buf_u64s(b, a->memory, a->nmemory);
		mrdem_buf_u32(b, (uint32_t)a->certified);
		mrdem_buf_f32(b, a->cert_eps);
		mrdem_buf_f64(b, a->radius_b);
		mrdem_buf_f64s(b, a->cert, 12);
	}
	mrdem_front_store_entries_free(v, n);
}

int mrdem_write_fronts(struct mrdem_writer *w, const struct mrdem_front_store *fr)
{
	struct mrdem_buf b;
	mrdem_buf_init(&b);
	mrdem_encode_fronts(&b, fr);
	int rc = mrdem_writer_put(w, MRDEM_REC_FRONTS, b.p, b.len);
	mrdem_buf_release(&b);
	return rc ? -1 : 0;
}

int mrdem_decode_fronts(const struct mrdem_record *rec, const char *src,
			struct mrdem_front_store **out)
{
	struct mrdem_cursor c;
	mrdem_cursor_init(&c, rec->data, rec->len);
	struct mrdem_front_store *fr = mrdem_front_store_new();
	uint64_t n = mrdem_get_u64(&c);
	/* the smallest entry: ids, flags, three counts and the certificate */
	if (!mrdem_cursor_has(&c, n, 8 + 8 + 4 * 4 + CERT_BYTES))
		c.bad = 1;
	for (uint64_t i = 0; i < n && !c.bad; i++) {
		struct mrdem_front_store_entry e = { 0 };
		struct mrdem_front_arrays *a = &e.front;
		e.a = mrdem_get_u64(&c);
		e.b = mrdem_get_u64(&c);
		uint32_t flags = mrdem_get_u32(&c);
		a->npairs = mrdem_get_u32(&c);
		a->ngroups = mrdem_get_u32(&c);
		a->nmemory = mrdem_get_u32(&c);
		if (c.bad || !mrdem_cursor_has(&c, MRDEM_FRONT_PAIR_VALUES * (uint64_t)a->npairs +
						   MRDEM_FRONT_GROUP_VALUES * (uint64_t)a->ngroups +
						   2 * (uint64_t)a->nmemory + CERT_BYTES / 4, 4)) {
			c.bad = 1;
			break;
		}
		if (flags > 1) {
			mrdem_record_error(rec, src, "front %llu: flags %u (bits other than 0 set)",
					   (unsigned long long)i, flags);
			goto fail;
		}
		e.used = (int)flags;
		a->pairs = mrdem_xmalloc_array(MRDEM_FRONT_PAIR_VALUES * a->npairs + 1, 4);
		a->groups = mrdem_xmalloc_array(MRDEM_FRONT_GROUP_VALUES * a->ngroups + 1, 4);
		a->memory = mrdem_xmalloc_array(a->nmemory + 1, 8);
		mrdem_get_u32s(&c, a->pairs, MRDEM_FRONT_PAIR_VALUES * a->npairs);
		mrdem_get_u32s(&c, a->groups, MRDEM_FRONT_GROUP_VALUES * a->ngroups);
		mrdem_get_u64s(&c, a->memory, a->nmemory);
		a->certified = (int)mrdem_get_u32(&c);
		a->cert_eps = mrdem_get_f32(&c);
		a->radius_b = mrdem_get_f64(&c);
		mrdem_get_f64s(&c, a->cert, 12);
		char what[160];
		snprintf(what, sizeof what, "%s: record %llu (fronts) at byte %llu: front %llu "
			 "(particles %llu and %llu)", src ? src : "<stream>",
			 (unsigned long long)rec->index, (unsigned long long)rec->offset,
			 (unsigned long long)i, (unsigned long long)e.a, (unsigned long long)e.b);
		int rc = mrdem_front_store_load(fr, &e, what);
		mrdem_front_arrays_release(a);
		if (rc)
			goto fail;
	}
	if (mrdem_record_done(rec, src, &c))
		goto fail;
	*out = fr;
	return 0;
fail:
	mrdem_front_store_free(fr);
	return -1;
}
