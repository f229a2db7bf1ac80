/* The shape record (type 16): one analytic shape, its kind and semi-axes
 * (docs/stream-format.md). Mass properties are not stored: they follow
 * from the semi-axes in closed form, so they cannot disagree with them.
 * Kind 3 (convex) follows the mesh record of the same shape id and marks
 * that mesh convex; its semi-axes are zero. */
#include <stdio.h>
#include <stdlib.h>

#include "common/shape/analytic.h"
#include "formats/stream/records.h"

void mrdem_encode_shape(struct mrdem_buf *b, uint32_t id, const char *name, int kind,
			const double axes[3])
{
	mrdem_buf_u32(b, id);
	mrdem_buf_str(b, name);
	mrdem_buf_u32(b, (uint32_t)kind);
	mrdem_buf_f64s(b, axes, 3);
}

int mrdem_decode_shape(const struct mrdem_record *rec, const char *src, uint32_t *id,
		       char **name, int *kind, double axes[3])
{
	struct mrdem_cursor c;
	mrdem_cursor_init(&c, rec->data, rec->len);
	*id = mrdem_get_u32(&c);
	*name = mrdem_get_str(&c);
	uint32_t k = mrdem_get_u32(&c);
	mrdem_get_f64s(&c, axes, 3);
	if (mrdem_record_done(rec, src, &c))
		goto fail;
	if (k != MRDEM_SHAPE_SPHERE && k != MRDEM_SHAPE_ELLIPSOID && k != MRDEM_SHAPE_CONVEX) {
		mrdem_record_error(rec, src, "shape '%s': unknown shape kind %lu (1 "
				   "analytic-sphere, 2 ellipsoid, 3 convex)", *name, (unsigned long)k);
		goto fail;
	}
	if (k == MRDEM_SHAPE_CONVEX) {
		if (axes[0] != 0 || axes[1] != 0 || axes[2] != 0) {
			mrdem_record_error(rec, src, "shape '%s': a convex shape's semi-axes are "
					   "reserved and must be zero, not %g %g %g", *name, axes[0],
					   axes[1], axes[2]);
			goto fail;
		}
		*kind = (int)k;
		return 0;
	}
	char what[64];
	snprintf(what, sizeof what, "shape %u", *id);
	if (mrdem_analytic_check((int)k, axes, what)) {
		mrdem_record_error(rec, src, "shape '%s': bad semi-axes %g %g %g", *name, axes[0],
				   axes[1], axes[2]);
		goto fail;
	}
	*kind = (int)k;
	return 0;
fail:
	free(*name);
	*name = NULL;
	return -1;
}
