#include "formats/stream/record_motion.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/scene/motion.h"
#include "common/util/error.h"
#include "formats/stream/records.h"

/* target, kind, start, then 19 f64: reference position, orientation and
 * normal, direction, point, omega, amplitude, frequency */
#define ENTRY_BYTES (8 + 4 + 8 + 19 * 8)

void mrdem_encode_motion(struct mrdem_buf *b, const struct mrdem_setup *s)
{
	mrdem_buf_u32(b, s->nmotions);
	for (uint32_t k = 0; k < s->nmotions; k++) {
		const struct mrdem_motion *m = &s->motions[k];
		mrdem_buf_u64(b, m->target);
		mrdem_buf_u32(b, m->kind);
		mrdem_buf_f64(b, m->start);
		mrdem_buf_f64s(b, m->ref_pos, 3);
		mrdem_buf_f64s(b, m->ref_quat, 4);
		mrdem_buf_f64s(b, m->ref_normal, 3);
		mrdem_buf_f64s(b, m->dir, 3);
		mrdem_buf_f64s(b, m->point, 3);
		mrdem_buf_f64(b, m->omega);
		mrdem_buf_f64(b, m->amplitude);
		mrdem_buf_f64(b, m->frequency);
	}
}

static void get_entry(struct mrdem_cursor *c, struct mrdem_motion *m)
{
	m->target = mrdem_get_u64(c);
	m->kind = mrdem_get_u32(c);
	m->start = mrdem_get_f64(c);
	mrdem_get_f64s(c, m->ref_pos, 3);
	mrdem_get_f64s(c, m->ref_quat, 4);
	mrdem_get_f64s(c, m->ref_normal, 3);
	mrdem_get_f64s(c, m->dir, 3);
	mrdem_get_f64s(c, m->point, 3);
	m->omega = mrdem_get_f64(c);
	m->amplitude = mrdem_get_f64(c);
	m->frequency = mrdem_get_f64(c);
}

int mrdem_decode_motion(const struct mrdem_record *rec, const char *src, struct mrdem_setup *s)
{
	struct mrdem_cursor c;
	mrdem_cursor_init(&c, rec->data, rec->len);
	uint32_t n = mrdem_get_u32(&c);
	if (!mrdem_cursor_has(&c, n, ENTRY_BYTES))
		return mrdem_record_done(rec, src, &c) ? -1 :
			mrdem_record_error(rec, src, "bad motion count %u", n);
	struct mrdem_motion *ms = mrdem_xcalloc(n ? n : 1, sizeof *ms);
	for (uint32_t k = 0; k < n; k++)
		get_entry(&c, &ms[k]);
	if (mrdem_record_done(rec, src, &c))
		goto fail;
	for (uint32_t k = 0; k < n; k++) {
		const struct mrdem_motion *m = &ms[k];
		const char *why = mrdem_motion_invalid(m);
		if (why) {
			mrdem_record_error(rec, src, "motion %u: %s", k, why);
			goto fail;
		}
		if (k && m->target <= ms[k - 1].target) {
			mrdem_record_error(rec, src, "motion %u: targets are not ascending and distinct",
					   k);
			goto fail;
		}
		if (mrdem_is_plane_id(m->target) && mrdem_plane_index(m->target) >= s->nplanes) {
			mrdem_record_error(rec, src, "motion %u: plane %u, but the setup has %u planes",
					   k, mrdem_plane_index(m->target), s->nplanes);
			goto fail;
		}
	}
	free(s->motions);
	s->motions = ms;
	s->nmotions = n;
	return 0;
fail:
	free(ms);
	return -1;
}
