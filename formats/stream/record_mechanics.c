#include "formats/stream/record_mechanics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/dynamics/contact_law.h"
#include "formats/stream/records.h"

/* The parameters by name, so a reader meets a name it does not know as an
 * error instead of a shifted layout. Those added later are written only
 * when they differ from 0, their value when absent: a stream that does
 * not use one stays readable by the readers before it. */
static const struct {
	const char *name;
	size_t off;
	int optional;
} params[] = {
	{"restitution", offsetof(struct mrdem_setup, restitution), 0},
	{"young", offsetof(struct mrdem_setup, young), 0},
	{"poisson", offsetof(struct mrdem_setup, poisson), 0},
	{"tangential", offsetof(struct mrdem_setup, tangential), 0},
	{"rolling_friction", offsetof(struct mrdem_setup, rolling_friction), 0},
	{"twisting_friction", offsetof(struct mrdem_setup, twisting_friction), 1},
};
#define NPARAMS (sizeof params / sizeof params[0])

static double *param(struct mrdem_setup *s, size_t k)
{
	return (double *)((char *)s + params[k].off);
}

void mrdem_encode_contact_model(struct mrdem_buf *b, const struct mrdem_setup *s)
{
	uint32_t n = 0;
	for (size_t k = 0; k < NPARAMS; k++)
		n += !params[k].optional || *param((struct mrdem_setup *)s, k) != 0;
	mrdem_buf_u32(b, (uint32_t)s->force_model);
	mrdem_buf_u32(b, n);
	for (size_t k = 0; k < NPARAMS; k++) {
		double v = *param((struct mrdem_setup *)s, k);
		if (params[k].optional && v == 0)
			continue;
		mrdem_buf_str(b, params[k].name);
		mrdem_buf_f64(b, v);
	}
}

int mrdem_decode_contact_model(const struct mrdem_record *rec, const char *src,
			       struct mrdem_setup *s)
{
	struct mrdem_cursor c;
	mrdem_cursor_init(&c, rec->data, rec->len);
	uint32_t model = mrdem_get_u32(&c), n = mrdem_get_u32(&c);
	if (!c.bad && model != (uint32_t)s->force_model)
		return mrdem_record_error(rec, src, "contact model %u does not match the setup's "
					  "force model %d", model, s->force_model);
	unsigned seen = 0;
	for (uint32_t i = 0; i < n && !c.bad; i++) {
		char *name = mrdem_get_str(&c);
		double v = mrdem_get_f64(&c);
		size_t k = 0;
		while (name && k < NPARAMS && strcmp(name, params[k].name))
			k++;
		if (name && k == NPARAMS) {
			mrdem_record_error(rec, src, "unknown contact model parameter '%s' (from a "
					   "newer mrdem?)", name);
			free(name);
			return -1;
		}
		free(name);
		if (k < NPARAMS) {
			if (!isfinite(v) || (seen & 1u << k))
				return mrdem_record_error(rec, src, "parameter %s: %s",
							  params[k].name, isfinite(v) ?
							  "given twice" : "not finite");
			*param(s, k) = v;
			seen |= 1u << k;
		}
	}
	if (mrdem_record_done(rec, src, &c))
		return -1;
	const char *bad = mrdem_contact_model_invalid(s);
	if (bad)
		return mrdem_record_error(rec, src, "%s", bad);
	s->model_pending = 0;
	return 0;
}

/* A spring without and with the twisting torque: a record holds the
 * longer ones when any of its springs is twisted, so streams without
 * twisting resistance keep the layout that readers before it know. */
#define SPRING_BYTES (16 + 9 * 8)
#define TWIST_SPRING_BYTES (SPRING_BYTES + 8)

void mrdem_encode_history(struct mrdem_buf *b, uint64_t step, const struct mrdem_history *h)
{
	int twist = 0;
	for (size_t i = 0; i < h->n && !twist; i++)
		twist = h->s[i].twist != 0;
	mrdem_buf_reserve(b, 16 + h->n * (twist ? TWIST_SPRING_BYTES : SPRING_BYTES));
	mrdem_buf_u64(b, step);
	mrdem_buf_u64(b, h->n);
	for (size_t i = 0; i < h->n; i++) {
		const struct mrdem_spring *sp = &h->s[i];
		mrdem_buf_u64(b, sp->a);
		mrdem_buf_u64(b, sp->b);
		mrdem_buf_f64s(b, sp->anchor, 3);
		mrdem_buf_f64s(b, sp->shear, 3);
		mrdem_buf_f64s(b, sp->roll, 3);
		if (twist)
			mrdem_buf_f64(b, sp->twist);
	}
}

int mrdem_decode_history(const struct mrdem_record *rec, const char *src, uint64_t *step,
			 struct mrdem_history *h)
{
	struct mrdem_cursor c;
	mrdem_cursor_init(&c, rec->data, rec->len);
	*step = mrdem_get_u64(&c);
	uint64_t n = mrdem_get_u64(&c);
	if (!mrdem_cursor_has(&c, n, SPRING_BYTES))
		return mrdem_record_error(rec, src, "history record of %zu bytes does not hold "
					  "its %llu springs (corrupt record)", rec->len,
					  (unsigned long long)n);
	/* the layout by the length: springs of SPRING_BYTES or, twisted,
	 * of TWIST_SPRING_BYTES (anything else fails at the end) */
	int twist = n > 0 && rec->len >= 16 && (rec->len - 16) / n == TWIST_SPRING_BYTES;
	h->n = 0;
	for (uint64_t i = 0; i < n; i++) {
		struct mrdem_spring *sp = mrdem_history_push(h);
		sp->a = mrdem_get_u64(&c);
		sp->b = mrdem_get_u64(&c);
		mrdem_get_f64s(&c, sp->anchor, 3);
		mrdem_get_f64s(&c, sp->shear, 3);
		mrdem_get_f64s(&c, sp->roll, 3);
		sp->twist = twist ? mrdem_get_f64(&c) : 0.0;
		int bad = !isfinite(sp->twist);
		for (int k = 0; k < 3; k++)
			bad |= !isfinite(sp->anchor[k]) || !isfinite(sp->shear[k]) ||
			       !isfinite(sp->roll[k]);
		if (bad)
			return mrdem_record_error(rec, src, "spring %llu (particles %llu and %llu) "
						  "is not finite", (unsigned long long)i,
						  (unsigned long long)sp->a,
						  (unsigned long long)sp->b);
		if (i > 0 && (sp->a < sp[-1].a || (sp->a == sp[-1].a && sp->b < sp[-1].b)))
			return mrdem_record_error(rec, src, "spring %llu is out of order (sorted "
						  "by particle ids)", (unsigned long long)i);
	}
	return mrdem_record_done(rec, src, &c);
}
