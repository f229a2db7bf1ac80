#include "formats/stream/record_mechanics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/dynamics/contact_law.h"
#include "formats/stream/records.h"

/* The parameters by name, so a reader meets a name it does not know as an
 * error instead of a shifted layout. */
static const struct {
	const char *name;
	size_t off;
} params[] = {
	{"restitution", offsetof(struct mrdem_setup, restitution)},
	{"young", offsetof(struct mrdem_setup, young)},
	{"poisson", offsetof(struct mrdem_setup, poisson)},
	{"tangential", offsetof(struct mrdem_setup, tangential)},
	{"rolling_friction", offsetof(struct mrdem_setup, rolling_friction)},
};
#define NPARAMS (sizeof params / sizeof params[0])

static double *param(struct mrdem_setup *s, size_t k)
{
	return (double *)((char *)s + params[k].off);
}

void mrdem_encode_contact_model(struct mrdem_buf *b, const struct mrdem_setup *s)
{
	mrdem_buf_u32(b, (uint32_t)s->force_model);
	mrdem_buf_u32(b, (uint32_t)NPARAMS);
	for (size_t k = 0; k < NPARAMS; k++) {
		mrdem_buf_str(b, params[k].name);
		mrdem_buf_f64(b, *param((struct mrdem_setup *)s, k));
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

#define SPRING_BYTES (16 + 9 * 8)

void mrdem_encode_history(struct mrdem_buf *b, uint64_t step, const struct mrdem_history *h)
{
	mrdem_buf_reserve(b, 16 + h->n * SPRING_BYTES);
	mrdem_buf_u64(b, step);
	mrdem_buf_u64(b, h->n);
	for (size_t i = 0; i < h->n; i++) {
		const struct mrdem_spring *sp = &h->s[i];
		mrdem_buf_u64(b, sp->a);
		mrdem_buf_u64(b, sp->b);
		mrdem_buf_f64s(b, sp->anchor, 3);
		mrdem_buf_f64s(b, sp->shear, 3);
		mrdem_buf_f64s(b, sp->roll, 3);
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
	h->n = 0;
	for (uint64_t i = 0; i < n; i++) {
		struct mrdem_spring *sp = mrdem_history_push(h);
		sp->a = mrdem_get_u64(&c);
		sp->b = mrdem_get_u64(&c);
		mrdem_get_f64s(&c, sp->anchor, 3);
		mrdem_get_f64s(&c, sp->shear, 3);
		mrdem_get_f64s(&c, sp->roll, 3);
		for (int k = 0; k < 3; k++)
			if (!isfinite(sp->anchor[k]) || !isfinite(sp->shear[k]) ||
			    !isfinite(sp->roll[k]))
				return mrdem_record_error(rec, src, "spring %llu (particles %llu "
							  "and %llu) is not finite",
							  (unsigned long long)i,
							  (unsigned long long)sp->a,
							  (unsigned long long)sp->b);
		if (i > 0 && (sp->a < sp[-1].a || (sp->a == sp[-1].a && sp->b < sp[-1].b)))
			return mrdem_record_error(rec, src, "spring %llu is out of order (sorted "
						  "by particle ids)", (unsigned long long)i);
	}
	return mrdem_record_done(rec, src, &c);
}
