/* The records of an implicit step between the tools
 * (formats/stream/record_picard.h): random Picard states and fronts survive
 * encode -> decode -> encode byte for byte; every truncated or overlong
 * payload, and fronts whose parts refer to nothing, are refused with -1
 * (under ASan: without reading past the payload). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util/rng.h"
#include "formats/stream/record_picard.h"
#include "tests/lib/tap.h"

static double uni(struct mrdem_rng *r)
{
	return mrdem_rng_range(r, -10, 10);
}

/* A state that passes the decoder's checks, every field random. */
static void random_state(struct mrdem_rng *r, struct mrdem_picard *pc, struct mrdem_stepper *st)
{
	size_t n = mrdem_rng_u64(r) % 9;
	st->step = mrdem_rng_u64(r) % 1000;
	st->time = mrdem_rng_uniform(r);
	st->dt = 1e-3 * (1 + mrdem_rng_uniform(r));
	st->scheme = MRDEM_SCHEME_IMPLICIT_EULER;
	st->contacts = mrdem_rng_u64(r) % 50;
	st->forces.active = mrdem_rng_u64(r) % 50;
	st->forces.plane_active = mrdem_rng_u64(r) % 50;
	st->forces.max_overlap = mrdem_rng_uniform(r);
	st->energy = (struct mrdem_energy){ uni(r), uni(r), uni(r), uni(r), { uni(r), uni(r), uni(r) },
					    { uni(r), uni(r), uni(r) }, uni(r) };
	struct mrdem_picard_opts *o = &pc->opts;
	o->tol = 1e-3 + mrdem_rng_uniform(r);
	o->max_iter = 2 + (unsigned)(mrdem_rng_u64(r) % 50);
	o->max_retries = (unsigned)(mrdem_rng_u64(r) % 5);
	o->damping = 0.05 + 0.9 * mrdem_rng_uniform(r);
	o->warm_start = (int)(mrdem_rng_u64(r) % 2);
	pc->cur = (struct mrdem_picard_substep){ st->dt / 2, st->time, o->max_retries };
	pc->npending = 0;
	size_t np = mrdem_rng_u64(r) % 4;
	pc->pending = realloc(pc->pending, (np + 1) * sizeof *pc->pending);
	pc->pending_cap = np + 1;
	for (size_t i = 0; i < np; i++)
		pc->pending[pc->npending++] = (struct mrdem_picard_substep){ st->dt / 4, uni(r),
									    o->max_retries };
	pc->iter = (uint32_t)(mrdem_rng_u64(r) % o->max_iter);
	pc->since_best = (uint32_t)(mrdem_rng_u64(r) % 10);
	pc->best = mrdem_rng_u64(r) % 2 ? mrdem_rng_uniform(r) : INFINITY;
	uint64_t *words = (uint64_t *)&pc->last.comparisons_round[0][0];
	for (size_t k = 0; k < sizeof pc->last.comparisons_round / sizeof *words; k++)
		words[k] = mrdem_rng_u64(r) >> 20;
	pc->last.iterations = mrdem_rng_u64(r) >> 40;
	pc->last.comparisons = mrdem_rng_u64(r) >> 20;
	pc->last.iterative = mrdem_rng_u64(r) >> 20;
	pc->last.front.size = mrdem_rng_u64(r) >> 20;
	pc->last.residual = mrdem_rng_uniform(r);
	mrdem_picard_reserve(pc, n);
	mrdem_stepper_reserve(st, n + 1);
	double *arrays[] = { pc->x0, pc->q0, pc->v0, pc->w0, pc->guess, pc->inc, pc->weight,
			     pc->gross_prev, st->kinetic };
	size_t per[] = { 3, 4, 3, 3, 6, 6, 2, 1, 1 };
	for (size_t a = 0; a < sizeof per / sizeof per[0]; a++)
		for (size_t k = 0; k < per[a] * n; k++)
			arrays[a][k] = uni(r);
}

static struct mrdem_record as_record(uint32_t type, const struct mrdem_buf *b)
{
	return (struct mrdem_record){ .type = type, .len = b->len, .data = b->p };
}

/* Decoding every shorter and one longer copy of b fails. */
static int truncations_refused(uint32_t type, const struct mrdem_buf *b,
			       int (*decode)(const struct mrdem_record *))
{
	int ok = 1;
	FILE *saved = stderr;
	stderr = fopen("/dev/null", "w");
	for (size_t len = 0; len <= b->len + 1; len++) {
		if (len == b->len)
			continue;
		unsigned char *copy = malloc(len + 1);
		memcpy(copy, b->p, len < b->len ? len : b->len);
		if (len > b->len)
			copy[b->len] = 0;
		struct mrdem_record rec = { .type = type, .len = len, .data = copy };
		ok &= decode(&rec) == -1;
		free(copy);
	}
	fclose(stderr);
	stderr = saved;
	return ok;
}

static int decode_picard(const struct mrdem_record *rec)
{
	struct mrdem_picard pc;
	struct mrdem_stepper st;
	mrdem_picard_init(&pc);
	mrdem_stepper_init(&st);
	int rc = mrdem_decode_picard(rec, "test", &pc, &st);
	mrdem_picard_release(&pc);
	mrdem_stepper_release(&st);
	return rc;
}

static int decode_fronts(const struct mrdem_record *rec)
{
	struct mrdem_front_store *fr = NULL;
	int rc = mrdem_decode_fronts(rec, "test", &fr);
	mrdem_front_store_free(fr);
	return rc;
}

static void test_picard(struct mrdem_rng *r)
{
	int same = 1, refused = 1;
	for (int trial = 0; trial < 200; trial++) {
		struct mrdem_picard pc, pc2;
		struct mrdem_stepper st, st2;
		mrdem_picard_init(&pc);
		mrdem_picard_init(&pc2);
		mrdem_stepper_init(&st);
		mrdem_stepper_init(&st2);
		random_state(r, &pc, &st);
		struct mrdem_buf a, b;
		mrdem_buf_init(&a);
		mrdem_buf_init(&b);
		mrdem_encode_picard(&a, &pc, &st);
		struct mrdem_record rec = as_record(MRDEM_REC_PICARD, &a);
		if (mrdem_decode_picard(&rec, "test", &pc2, &st2) == 0)
			mrdem_encode_picard(&b, &pc2, &st2);
		same &= a.len == b.len && !memcmp(a.p, b.p, a.len);
		if (trial < 20)
			refused &= truncations_refused(MRDEM_REC_PICARD, &a, decode_picard);
		mrdem_buf_release(&a);
		mrdem_buf_release(&b);
		mrdem_picard_release(&pc);
		mrdem_picard_release(&pc2);
		mrdem_stepper_release(&st);
		mrdem_stepper_release(&st2);
	}
	tap_ok(same, "picard: 200 random states encode, decode and encode to the same bytes");
	tap_ok(refused, "picard: every truncated or overlong payload is refused");
}

/* A random front that forms a tree of unfolded pairs (parents first). */
static void random_front(struct mrdem_rng *r, struct mrdem_front_arrays *f)
{
	f->ngroups = mrdem_rng_u64(r) % 6;
	f->npairs = 1 + mrdem_rng_u64(r) % 12;
	f->nmemory = mrdem_rng_u64(r) % 3;
	f->groups = malloc((5 * f->ngroups + 1) * sizeof *f->groups);
	f->pairs = malloc((5 * f->npairs + 1) * sizeof *f->pairs);
	f->memory = malloc((f->nmemory + 1) * sizeof *f->memory);
	for (size_t u = 0; u < f->ngroups; u++) {
		uint32_t *g = &f->groups[5 * u];
		g[0] = (uint32_t)(mrdem_rng_u64(r) % 20);
		g[1] = (uint32_t)(mrdem_rng_u64(r) % 20);
		g[2] = u ? (uint32_t)(mrdem_rng_u64(r) % u) : UINT32_MAX;
		g[3] = (uint32_t)(mrdem_rng_u64(r) % 9);
		g[4] = (uint32_t)(mrdem_rng_u64(r) % 2);
	}
	for (size_t k = 0; k < f->npairs; k++) {
		uint32_t *p = &f->pairs[5 * k];
		p[0] = (uint32_t)(mrdem_rng_u64(r) % 20);
		p[1] = (uint32_t)(mrdem_rng_u64(r) % 20);
		p[2] = f->ngroups ? (uint32_t)(mrdem_rng_u64(r) % f->ngroups) : UINT32_MAX;
		p[3] = f->ngroups ? (uint32_t)(mrdem_rng_u64(r) % 2) : 0;
		p[4] = (uint32_t)(mrdem_rng_u64(r) % 3);
	}
	f->certified = (int)(mrdem_rng_u64(r) % 2);
	f->cert_eps = (float)mrdem_rng_uniform(r);
	f->radius_b = mrdem_rng_uniform(r);
	for (int k = 0; k < 12; k++)
		f->cert[k] = uni(r);
	for (size_t k = 0; k < f->nmemory; k++)
		f->memory[k] = mrdem_rng_u64(r);
}

static void test_fronts(struct mrdem_rng *r)
{
	int same = 1, refused = 1, loaded = 1;
	for (int trial = 0; trial < 100; trial++) {
		struct mrdem_front_store *fr = mrdem_front_store_new(), *fr2 = NULL;
		size_t n = mrdem_rng_u64(r) % 6;
		for (size_t i = 0; i < n; i++) {
			struct mrdem_front_store_entry e = {
				.a = i, .b = i + 1 + mrdem_rng_u64(r) % 9,
				.used = (int)(mrdem_rng_u64(r) % 2) };
			random_front(r, &e.front);
			loaded &= mrdem_front_store_load(fr, &e, "test") == 0;
			mrdem_front_arrays_release(&e.front);
		}
		struct mrdem_buf a, b;
		mrdem_buf_init(&a);
		mrdem_buf_init(&b);
		mrdem_encode_fronts(&a, fr);
		struct mrdem_record rec = as_record(MRDEM_REC_FRONTS, &a);
		if (mrdem_decode_fronts(&rec, "test", &fr2) == 0)
			mrdem_encode_fronts(&b, fr2);
		same &= a.len == b.len && !memcmp(a.p, b.p, a.len);
		if (trial < 20)
			refused &= truncations_refused(MRDEM_REC_FRONTS, &a, decode_fronts);
		mrdem_buf_release(&a);
		mrdem_buf_release(&b);
		mrdem_front_store_free(fr);
		mrdem_front_store_free(fr2);
	}
	tap_ok(loaded, "fronts: random trees of unfolded pairs load");
	tap_ok(same, "fronts: 100 random sets encode, decode and encode to the same bytes");
	tap_ok(refused, "fronts: every truncated or overlong payload is refused");

	/* Parts that refer to nothing. */
	struct mrdem_front_arrays f;
	random_front(r, &f);
	f.ngroups = 2;
	f.groups = realloc(f.groups, 10 * sizeof *f.groups);
	uint32_t good[10] = { 0, 0, UINT32_MAX, 4, 0, 1, 1, 0, 4, 0 };
	memcpy(f.groups, good, sizeof good);
	for (size_t k = 0; k < f.npairs; k++)
		if (f.pairs[5 * k + 2] != UINT32_MAX)
			f.pairs[5 * k + 2] %= 2;
	f.pairs[2] = 1;
	f.pairs[4] = 1;
	struct mrdem_front *ok = mrdem_front_load(&f, "test");
	tap_ok(ok != NULL, "a front whose pairs and groups refer to existing groups loads");
	mrdem_front_free(ok);
	FILE *saved = stderr;
	stderr = fopen("/dev/null", "w");
	f.groups[2] = 1; /* the first group's parent is itself */
	int bad_parent = mrdem_front_load(&f, "test") == NULL;
	f.groups[2] = UINT32_MAX;
	f.pairs[2] = 2; /* no group 2 */
	int bad_group = mrdem_front_load(&f, "test") == NULL;
	f.pairs[2] = UINT32_MAX;
	f.pairs[3] = 1; /* a real pair of the roots */
	int bad_real = mrdem_front_load(&f, "test") == NULL;
	f.pairs[3] = 0;
	f.pairs[4] = 3; /* no such standing */
	int bad_standing = mrdem_front_load(&f, "test") == NULL;
	fclose(stderr);
	stderr = saved;
	tap_ok(bad_parent && bad_group && bad_real && bad_standing,
	       "a parent that is not earlier, a missing group, a real pair at the roots and an "
	       "unknown standing are refused");
	mrdem_front_arrays_release(&f);
}

int main(void)
{
	struct mrdem_rng r;
	mrdem_rng_seed(&r, 11);
	test_picard(&r);
	test_fronts(&r);
	return tap_done();
}
