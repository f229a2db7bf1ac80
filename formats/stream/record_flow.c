/* The inflow (type 20) and outflow (type 21) records: a scene's insertions
 * and remove regions (docs/stream-format.md). Both are critical: a tool
 * that stepped a scene without them would step another scene. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/stream/records.h"

static void encode_region(struct mrdem_buf *b, const struct mrdem_region *r)
{
	mrdem_buf_u32(b, r->kind);
	mrdem_buf_f64s(b, r->a, 3);
	mrdem_buf_f64s(b, r->b, 3);
	mrdem_buf_f64(b, r->radius);
}

static void decode_region(struct mrdem_cursor *c, struct mrdem_region *r)
{
	r->kind = mrdem_get_u32(c);
	mrdem_get_f64s(c, r->a, 3);
	mrdem_get_f64s(c, r->b, 3);
	r->radius = mrdem_get_f64(c);
}

/* 60 bytes a region */
#define REGION_BYTES (4 + 7 * 8)

void mrdem_encode_outflow(struct mrdem_buf *b, const struct mrdem_flow *f)
{
	mrdem_buf_u32(b, f->nremove);
	for (uint32_t k = 0; k < f->nremove; k++)
		encode_region(b, &f->remove[k]);
}

int mrdem_decode_outflow(const struct mrdem_record *rec, const char *src, struct mrdem_flow *f)
{
	struct mrdem_cursor c;
	mrdem_cursor_init(&c, rec->data, rec->len);
	uint32_t n = mrdem_get_u32(&c);
	if (!n || !mrdem_cursor_has(&c, n, REGION_BYTES))
		return mrdem_record_error(rec, src, "%u remove regions: none, or more than the "
					  "record holds", n);
	struct mrdem_region *r = mrdem_xmalloc_array(n, sizeof *r);
	for (uint32_t k = 0; k < n; k++)
		decode_region(&c, &r[k]);
	if (mrdem_record_done(rec, src, &c)) {
		free(r);
		return -1;
	}
	for (uint32_t k = 0; k < n; k++) {
		const char *why = mrdem_region_check(&r[k]);
		if (why) {
			free(r);
			return mrdem_record_error(rec, src, "remove[%u]: %s", k, why);
		}
	}
	free(f->remove);
	f->remove = r;
	f->nremove = n;
	return 0;
}

static void encode_insertion(struct mrdem_buf *b, const struct mrdem_insertion *in)
{
	encode_region(b, &in->region);
	mrdem_buf_u32(b, in->nshapes);
	for (uint32_t j = 0; j < in->nshapes; j++) {
		mrdem_buf_u32(b, in->shapes[j].shape);
		mrdem_buf_u32(b, in->shapes[j].material);
		mrdem_buf_f64(b, in->shapes[j].fraction);
		mrdem_buf_f64(b, in->shapes[j].density);
		mrdem_buf_f64(b, in->shapes[j].eps);
	}
	mrdem_buf_f64s(b, in->vel, 3);
	mrdem_buf_f64s(b, in->angvel, 3);
	mrdem_buf_u32(b, (uint32_t)in->random_orientation);
	mrdem_buf_f64s(b, in->quat, 4);
	mrdem_buf_u64(b, in->seed);
	mrdem_buf_u64(b, in->first_id);
	mrdem_buf_u64(b, in->total);
	mrdem_buf_u64(b, in->start);
	mrdem_buf_f64(b, in->per_step);
	mrdem_buf_f64(b, in->dt);
}

void mrdem_encode_inflow(struct mrdem_buf *b, const struct mrdem_flow *f)
{
	mrdem_buf_u32(b, f->ninsert);
	for (uint32_t k = 0; k < f->ninsert; k++)
		encode_insertion(b, &f->insert[k]);
}

/* One insertion; 0, or -1 when the record ends inside it. */
static int decode_insertion(struct mrdem_cursor *c, struct mrdem_insertion *in)
{
	decode_region(c, &in->region);
	in->nshapes = mrdem_get_u32(c);
	if (!mrdem_cursor_has(c, in->nshapes, 32)) {
		c->bad = 1;
		return -1;
	}
	in->shapes = mrdem_xmalloc_array(in->nshapes ? in->nshapes : 1, sizeof *in->shapes);
	for (uint32_t j = 0; j < in->nshapes; j++) {
		in->shapes[j].shape = mrdem_get_u32(c);
		in->shapes[j].material = mrdem_get_u32(c);
		in->shapes[j].fraction = mrdem_get_f64(c);
		in->shapes[j].density = mrdem_get_f64(c);
		in->shapes[j].eps = mrdem_get_f64(c);
	}
	mrdem_get_f64s(c, in->vel, 3);
	mrdem_get_f64s(c, in->angvel, 3);
	in->random_orientation = (int)mrdem_get_u32(c);
	mrdem_get_f64s(c, in->quat, 4);
	in->seed = mrdem_get_u64(c);
	in->first_id = mrdem_get_u64(c);
	in->total = mrdem_get_u64(c);
	in->start = mrdem_get_u64(c);
	in->per_step = mrdem_get_f64(c);
	in->dt = mrdem_get_f64(c);
	return c->bad ? -1 : 0;
}

/* Each insertion as mrdem_insertion_check has it, and id ranges apart. */
static int check_insertions(const struct mrdem_record *rec, const char *src,
			    const struct mrdem_scene *s, const struct mrdem_flow *f)
{
	char buf[160];
	for (uint32_t k = 0; k < f->ninsert; k++) {
		const struct mrdem_insertion *in = &f->insert[k];
		const char *why = mrdem_insertion_check(s, in, buf, sizeof buf);
		if (why)
			return mrdem_record_error(rec, src, "insert[%u]: %s", k, why);
		for (uint32_t j = 0; j < k; j++) {
			const struct mrdem_insertion *o = &f->insert[j];
			if (in->first_id < o->first_id + o->total && o->first_id < in->first_id + in->total)
				return mrdem_record_error(rec, src, "insert[%u] and insert[%u] share "
							  "particle ids", j, k);
		}
	}
	return 0;
}

int mrdem_decode_inflow(const struct mrdem_record *rec, const char *src,
			const struct mrdem_scene *s, struct mrdem_flow *f)
{
	struct mrdem_cursor c;
	mrdem_cursor_init(&c, rec->data, rec->len);
	uint32_t n = mrdem_get_u32(&c);
	if (!n || !mrdem_cursor_has(&c, n, REGION_BYTES))
		return mrdem_record_error(rec, src, "%u insertions: none, or more than the record "
					  "holds", n);
	struct mrdem_flow g;
	memset(&g, 0, sizeof g);
	g.insert = mrdem_xcalloc(n, sizeof *g.insert);
	g.ninsert = n;
	for (uint32_t k = 0; k < n; k++)
		if (decode_insertion(&c, &g.insert[k]))
			break;
	/* a record cut inside an insertion fails here as too short */
	if (mrdem_record_done(rec, src, &c) || check_insertions(rec, src, s, &g)) {
		mrdem_flow_release(&g);
		return -1;
	}
	for (uint32_t k = 0; k < f->ninsert; k++)
		free(f->insert[k].shapes);
	free(f->insert);
	f->insert = g.insert;
	f->ninsert = g.ninsert;
	return 0;
}
