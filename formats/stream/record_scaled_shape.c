/* Scaled-shape record: encoding, checked decoding and absorption; its
 * description for mrdem-info is in formats/foreign/describe.c. */
#include "formats/stream/record_scaled_shape.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/scene/scaled_shape.h"
#include "formats/stream/records.h"

void mrdem_encode_scaled_shape(struct mrdem_buf *b, uint32_t id, const char *name, uint32_t base,
			       double scale)
{
	mrdem_buf_u32(b, id);
	mrdem_buf_str(b, name);
	mrdem_buf_u32(b, base);
	mrdem_buf_f64(b, scale);
}

int mrdem_decode_scaled_shape(const struct mrdem_record *rec, const char *src, uint32_t *id,
			      char **name, uint32_t *base, double *scale)
{
	struct mrdem_cursor c;
	mrdem_cursor_init(&c, rec->data, rec->len);
	*id = mrdem_get_u32(&c);
	*name = mrdem_get_str(&c);
	*base = mrdem_get_u32(&c);
	*scale = mrdem_get_f64(&c);
	if (mrdem_record_done(rec, src, &c))
		goto fail;
	if (*base >= *id) {
		mrdem_record_error(rec, src, "scaled shape %u '%s': base shape %u is not a "
				   "smaller id", *id, *name, *base);
		goto fail;
	}
	if (!isfinite(*scale) || !(*scale > 0)) {
		mrdem_record_error(rec, src, "scaled shape %u '%s': scale %g is not a finite "
				   "factor > 0", *id, *name, *scale);
		goto fail;
	}
	return 0;
fail:
	free(*name);
	*name = NULL;
	return -1;
}

int mrdem_scene_absorb_scaled_shape(struct mrdem_scene *s, const struct mrdem_record *rec,
				    const char *src)
{
	uint32_t id, base;
	char *name;
	double scale;
	if (mrdem_decode_scaled_shape(rec, src, &id, &name, &base, &scale))
		return -1;
	int rc = 0;
	if (id != s->nshapes)
		rc = mrdem_record_error(rec, src, "shape id %u out of order (expected %u)", id,
					s->nshapes);
	else if (mrdem_shape_is_scaled(&s->shapes[base]))
		rc = mrdem_record_error(rec, src, "scaled shape %u '%s': base shape %u '%s' is "
					"itself scaled (a scaled shape names the shape of its own)",
					id, name, base, s->shapes[base].name);
	char why[400];
	if (rc == 0 && mrdem_shape_scale_check(s, base, scale, why, sizeof why))
		rc = mrdem_record_error(rec, src, "scaled shape %u '%s': %s", id, name, why);
	if (rc == 0) {
		uint32_t i = mrdem_scene_add_scaled(s, name, base, scale);
		rc = s->shapes[base].tree && !s->shapes[i].tree ? -1 : 0;
	}
	free(name);
	return rc;
}
