/* Tree record: encoding and checked decoding; its description for mrdem-info
 * is in formats/foreign/describe.c. Fields go one by one, little-endian
 * (formats/stream/bytes.h). */
#include "formats/stream/record_tree.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/scene/scaled_shape.h"
#include "common/util/error.h"
#include "formats/stream/records.h"

/* Bytes per node: triangle (9 f32), eps (f32), four u32 ranges. */
#define NODE_BYTES (9 * 4 + 4 + 4 * 4)

void mrdem_encode_tree(struct mrdem_buf *b, uint32_t shape_id, const struct mrdem_tree *t)
{
	const struct mrdem_tree_params *p = &t->params;
	mrdem_buf_u32(b, shape_id);
	mrdem_buf_u64(b, t->mesh_hash);
	mrdem_buf_u32(b, t->ntris);
	mrdem_buf_u32(b, t->nnodes);
	mrdem_buf_u32(b, t->nlevels);
	mrdem_buf_u32(b, p->fanout);
	mrdem_buf_u32(b, p->leaf);
	mrdem_buf_u64(b, p->seed);
	mrdem_buf_u32(b, p->kmeans_iters);
	mrdem_buf_u32(b, p->beta_size);
	mrdem_buf_f64(b, p->alpha_area);
	mrdem_buf_f64(b, p->alpha_inside);
	mrdem_buf_u32(b, p->beta_normal);
	mrdem_buf_u32(b, p->iters);
	mrdem_buf_u32(b, (uint32_t)p->refine);
	mrdem_buf_u32s(b, t->level_first, (size_t)t->nlevels + 1);
	mrdem_buf_f32s(b, t->tri, 9 * (size_t)t->nnodes);
	mrdem_buf_f32s(b, t->eps, t->nnodes);
	mrdem_buf_u32s(b, t->child_first, t->nnodes);
	mrdem_buf_u32s(b, t->child_count, t->nnodes);
	mrdem_buf_u32s(b, t->tri_first, t->nnodes);
	mrdem_buf_u32s(b, t->tri_count, t->nnodes);
	mrdem_buf_u32s(b, t->perm, t->ntris);
}

uint32_t mrdem_tree_record_shape(const struct mrdem_record *rec)
{
	struct mrdem_cursor c;
	mrdem_cursor_init(&c, rec->data, rec->len);
	uint32_t id = mrdem_get_u32(&c);
	return c.bad ? 0 : id;
}

static void record_what(char *buf, size_t len, const struct mrdem_record *rec, const char *src)
{
	snprintf(buf, len, "%s: record %llu (tree) at byte %llu", src ? src : "<stream>",
		 (unsigned long long)rec->index, (unsigned long long)rec->offset);
}

int mrdem_decode_tree(const struct mrdem_record *rec, const char *src, uint32_t *shape_id,
		      struct mrdem_tree **out)
{
	struct mrdem_cursor c;
	struct mrdem_tree_params p;
	*out = NULL;
	mrdem_cursor_init(&c, rec->data, rec->len);
	*shape_id = mrdem_get_u32(&c);
	uint64_t hash = mrdem_get_u64(&c);
	uint32_t ntris = mrdem_get_u32(&c), nnodes = mrdem_get_u32(&c);
	uint32_t nlevels = mrdem_get_u32(&c);
	memset(&p, 0, sizeof p);
	p.fanout = mrdem_get_u32(&c);
	p.leaf = mrdem_get_u32(&c);
	p.seed = mrdem_get_u64(&c);
	p.kmeans_iters = mrdem_get_u32(&c);
	p.beta_size = mrdem_get_u32(&c);
	p.alpha_area = mrdem_get_f64(&c);
	p.alpha_inside = mrdem_get_f64(&c);
	p.beta_normal = mrdem_get_u32(&c);
	p.iters = mrdem_get_u32(&c);
	p.refine = (int)mrdem_get_u32(&c);
	if (c.bad)
		return mrdem_record_error(rec, src, "payload too short for a tree header "
					  "(%zu bytes; corrupt record)", rec->len);
	if (nnodes < 1 || nlevels < 1 || nlevels > nnodes || ntris < 1)
		return mrdem_record_error(rec, src, "tree with %u nodes, %u levels and %u "
					  "triangles is impossible", nnodes, nlevels, ntris);
	/* sizes come from the stream: check them against the payload before
	 * allocating anything */
	if (!mrdem_cursor_has(&c, (uint64_t)nlevels + 1, 4) || !mrdem_cursor_has(&c, nnodes, NODE_BYTES) ||
	    !mrdem_cursor_has(&c, ntris, 4) ||
	    (uint64_t)4 * ((uint64_t)nlevels + 1 + ntris) + (uint64_t)NODE_BYTES * nnodes >
		    c.len - c.pos)
		return mrdem_record_error(rec, src, "payload too short for %u nodes, %u levels and "
					  "%u triangles (corrupt record)", nnodes, nlevels, ntris);
	struct mrdem_tree *t = mrdem_tree_alloc(nnodes, nlevels, ntris);
	t->params = p;
	t->mesh_hash = hash;
	mrdem_get_u32s(&c, t->level_first, (size_t)nlevels + 1);
	mrdem_get_f32s(&c, t->tri, 9 * (size_t)nnodes);
	mrdem_get_f32s(&c, t->eps, nnodes);
	mrdem_get_u32s(&c, t->child_first, nnodes);
	mrdem_get_u32s(&c, t->child_count, nnodes);
	mrdem_get_u32s(&c, t->tri_first, nnodes);
	mrdem_get_u32s(&c, t->tri_count, nnodes);
	mrdem_get_u32s(&c, t->perm, ntris);
	if (c.bad) {
		mrdem_record_error(rec, src, "payload too short (%zu bytes; corrupt record)",
				   rec->len);
		goto fail;
	}
	if (c.pos != c.len) {
		mrdem_record_error(rec, src, "%zu unexpected bytes after the payload (length "
				   "mismatch)", c.len - c.pos);
		goto fail;
	}
	if (!isfinite(p.alpha_area) || !isfinite(p.alpha_inside)) {
		mrdem_record_error(rec, src, "build parameters are not finite");
		goto fail;
	}
	char what[512];
	record_what(what, sizeof what, rec, src);
	if (mrdem_tree_check_layout(t, what))
		goto fail;
	*out = t;
	return 0;
fail:
	mrdem_tree_free(t);
	return -1;
}

int mrdem_scene_absorb_tree(struct mrdem_scene *s, const struct mrdem_record *rec,
			    const char *src)
{
	uint32_t id;
	struct mrdem_tree *t;
	if (mrdem_decode_tree(rec, src, &id, &t))
		return -1;
	if (id >= s->nshapes) {
		mrdem_record_error(rec, src, "tree for shape %u, but the stream defines %u shapes "
				   "before it", id, s->nshapes);
		goto fail;
	}
	if (s->shapes[id].kind != MRDEM_SHAPE_MESH) {
		mrdem_record_error(rec, src, "tree for shape %u '%s', which is %s, not a mesh", id,
				   s->shapes[id].name, mrdem_shape_kind_name(s->shapes[id].kind));
		goto fail;
	}
	if (mrdem_shape_is_scaled(&s->shapes[id])) {
		mrdem_record_error(rec, src, "tree for shape %u '%s', which is scaled from shape "
				   "%u: its tree is the base's, scaled", id, s->shapes[id].name,
				   s->shapes[id].base);
		goto fail;
	}
	if (s->shapes[id].tree) {
		mrdem_record_error(rec, src, "shape %u '%s' already has a tree", id,
				   s->shapes[id].name);
		goto fail;
	}
	char what[512];
	record_what(what, sizeof what, rec, src);
	if (mrdem_tree_bind(t, &s->shapes[id].mesh, what))
		goto fail;
	s->shapes[id].tree = t;
	/* shapes scaled from it before its tree arrived get theirs now */
	return mrdem_scene_scale_trees(s, id);
fail:
	mrdem_tree_free(t);
	return -1;
}

int mrdem_write_tree(struct mrdem_writer *w, uint32_t shape_id, const struct mrdem_tree *t)
{
	struct mrdem_buf b;
	mrdem_buf_init(&b);
	mrdem_encode_tree(&b, shape_id, t);
	int rc = mrdem_writer_put(w, MRDEM_REC_TREE, b.p, b.len);
	mrdem_buf_release(&b);
	return rc;
}
