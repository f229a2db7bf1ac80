/* Tree records: round trip, scene absorption rules, and every kind of
 * damage rejected with an error (never a crash or a huge allocation). */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/mesh/mesh.h"
#include "common/scene/scene.h"
#include "common/tree/tree.h"
#include "formats/stream/bytes.h"
#include "formats/stream/record_tree.h"
#include "formats/stream/records.h"
#include "tests/lib/record_of.h"
#include "tests/lib/tap.h"

/* Expected failures print hundreds of messages: mute them while testing. */
static int saved_stderr = -1;
static void quiet(int on)
{
	fflush(stderr);
	if (on) {
		int devnull = open("/dev/null", O_WRONLY);
		saved_stderr = dup(2);
		dup2(devnull, 2);
		close(devnull);
	} else {
		dup2(saved_stderr, 2);
		close(saved_stderr);
	}
}

static void sphere(struct mrdem_mesh *m, uint32_t n, double radius)
{
	struct mrdem_sphere_opts o;
	mrdem_sphere_opts_default(&o);
	o.triangles = n;
	o.radius = radius;
	mrdem_mesh_init(m);
	if (mrdem_mesh_sphere(m, &o) || mrdem_mesh_validate(m, 0, "sphere"))
		exit(1);
}

/* Decode a payload; 0 when accepted. */
static int decodes(const unsigned char *p, size_t len)
{
	struct mrdem_buf b = {(unsigned char *)p, len, len};
	struct mrdem_record r = rec_of(&b, MRDEM_REC_TREE);
	uint32_t id;
	struct mrdem_tree *t;
	if (mrdem_decode_tree(&r, "test", &id, &t))
		return -1;
	mrdem_tree_free(t);
	return 0;
}

/* Offsets of fields in the payload (docs/surrogate-trees.md). */
#define HDR 76u
static size_t off_level_first(void) { return HDR; }
static size_t off_tri(const struct mrdem_tree *t) { return HDR + 4 * (t->nlevels + 1); }
static size_t off_eps(const struct mrdem_tree *t) { return off_tri(t) + 36 * (size_t)t->nnodes; }
static size_t off_child_first(const struct mrdem_tree *t) { return off_eps(t) + 4 * (size_t)t->nnodes; }
static size_t off_child_count(const struct mrdem_tree *t) { return off_child_first(t) + 4 * (size_t)t->nnodes; }
static size_t off_tri_first(const struct mrdem_tree *t) { return off_child_count(t) + 4 * (size_t)t->nnodes; }
static size_t off_perm(const struct mrdem_tree *t) { return off_tri_first(t) + 8 * (size_t)t->nnodes; }

static void put_u32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put_f32(unsigned char *p, float f)
{
	uint32_t v;
	memcpy(&v, &f, 4);
	put_u32(p, v);
}

static void test_round_trip(const struct mrdem_mesh *m, const struct mrdem_tree *t)
{
	struct mrdem_buf b, b2;
	mrdem_buf_init(&b);
	mrdem_encode_tree(&b, 5, t);
	size_t expect = HDR + 4 * (t->nlevels + 1) + 56 * (size_t)t->nnodes + 4 * (size_t)t->ntris;
	tap_eq_int(b.len, expect, "payload size as documented");
	struct mrdem_record r = rec_of(&b, MRDEM_REC_TREE);
	uint32_t id = 0;
	struct mrdem_tree *d = NULL;
	tap_ok(mrdem_decode_tree(&r, "test", &id, &d) == 0 && id == 5, "decodes, shape id kept");
	tap_ok(mrdem_tree_record_shape(&r) == 5, "shape id peeked from the record");
	tap_ok(d && mrdem_tree_bind(d, m, "test") == 0, "binds to its mesh");
	mrdem_buf_init(&b2);
	mrdem_encode_tree(&b2, 5, d);
	tap_ok(b.len == b2.len && !memcmp(b.p, b2.p, b.len), "re-encoding is byte-identical");
	tap_ok(!memcmp(d->soup, t->soup, 9 * sizeof(float) * t->ntris) &&
	       !memcmp(d->parent, t->parent, sizeof(uint32_t) * t->nnodes) &&
	       !memcmp(d->level, t->level, sizeof(uint32_t) * t->nnodes) &&
	       d->params.alpha_area == t->params.alpha_area && d->params.seed == t->params.seed,
	       "soup, parents, levels and parameters restored");
	tap_ok(mrdem_tree_verify(d, m, NULL) == 0, "decoded tree verifies");
	mrdem_tree_free(d);
	mrdem_buf_release(&b2);

	/* every truncation is an error */
	int all = 1;
	quiet(1);
	for (size_t len = 0; len < b.len; len += (len < 200 ? 1 : 97))
		all &= decodes(b.p, len) < 0;
	quiet(0);
	tap_ok(all, "every truncated payload is refused");
	unsigned char *x = malloc(b.len + 1);
	memcpy(x, b.p, b.len);
	x[b.len] = 0;
	tap_capture_begin();
	int rc1 = decodes(x, b.len + 1);
	const char *err = tap_capture_end();
	tap_ok(rc1 < 0 && strstr(err, "1 unexpected bytes after the payload"),
	       "a trailing byte is refused: %s", err);

	struct {
		const char *what;
		size_t off;
		int f32;
		double val;
	} bad[] = {
		{"node count 2^32 - 1 (no allocation)", 16, 0, 4294967295.0},
		{"level count above node count", 20, 0, 4294967295.0},
		{"triangle count 0", 12, 0, 0},
		{"level table not starting at 0", off_level_first(), 0, 1},
		{"level table with two roots", off_level_first() + 4, 0, 2},
		{"NaN in a surrogate triangle", off_tri(t) + 8, 1, NAN},
		{"infinite eps", off_eps(t) + 4, 1, INFINITY},
		{"negative eps", off_eps(t), 1, -1.0},
		{"root children not at level 1", off_child_first(t), 0, 0},
		{"root with one child too many", off_child_count(t), 0, t->child_count[0] + 1},
		{"root covering one triangle less", off_tri_first(t) + 4 * (size_t)t->nnodes, 0,
		 t->ntris - 1},
		{"child range shifted", off_tri_first(t) + 4, 0, 1},
		{"order not a permutation", off_perm(t), 0, t->perm[1]},
		{"order entry out of range", off_perm(t) + 4, 0, t->ntris},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		memcpy(x, b.p, b.len);
		if (bad[i].f32)
			put_f32(x + bad[i].off, (float)bad[i].val);
		else
			put_u32(x + bad[i].off, (uint32_t)bad[i].val);
		quiet(1);
		int rc = decodes(x, b.len);
		quiet(0);
		tap_ok(rc < 0, "refused: %s", bad[i].what);
	}
	free(x);
	mrdem_buf_release(&b);
}

static void test_scene(const struct mrdem_mesh *m, const struct mrdem_tree *t)
{
	struct mrdem_scene s;
	mrdem_scene_init(&s);
	struct mrdem_buf b;
	mrdem_buf_init(&b);
	mrdem_encode_tree(&b, 0, t);
	struct mrdem_record r = rec_of(&b, MRDEM_REC_TREE);
	tap_capture_begin();
	int rc = mrdem_scene_absorb(&s, &r, "test");
	const char *err = tap_capture_end();
	tap_ok(rc < 0 && strstr(err, "tree for shape 0, but the stream defines 0 shapes before it"),
	       "tree before its mesh is refused: %s", err);

	struct mrdem_mesh other, copy;
	sphere(&other, 320, 1.01); /* same triangle count, other geometry */
	mrdem_scene_add_shape(&s, "other", &other);
	tap_capture_begin();
	rc = mrdem_scene_absorb(&s, &r, "test");
	err = tap_capture_end();
	tap_ok(rc < 0 && !s.shapes[0].tree && strstr(err, "fingerprint mismatch"),
	       "tree of another mesh with the same triangle count is refused: %s", err);
	mrdem_mesh_init(&copy);
	mrdem_mesh_copy(&copy, m);
	mrdem_scene_add_shape(&s, "ball", &copy);
	b.len = 0;
	mrdem_encode_tree(&b, 1, t);
	r = rec_of(&b, MRDEM_REC_TREE);
	tap_ok(mrdem_scene_absorb(&s, &r, "test") == 1 && s.shapes[1].tree,
	       "tree absorbed into its shape");
	tap_capture_begin();
	rc = mrdem_scene_absorb(&s, &r, "test");
	err = tap_capture_end();
	tap_ok(rc < 0 && strstr(err, "shape 1 'ball' already has a tree"),
	       "a second tree for the shape is refused: %s", err);

	/* write the scene's shapes and read them back: mesh, tree, mesh */
	struct mrdem_writer w;
	/* a private scratch file: tests run in parallel (prove -j) */
	char path[256];
	const char *tmp = getenv("TMPDIR");
	snprintf(path, sizeof path, "%s/mrdem-tree-record.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	int fd = mkstemp(path);
	if (fd >= 0)
		close(fd);
	int ok = mrdem_writer_open(&w, path, 0) == 0 && mrdem_scene_write_shapes(&w, &s) == 0 &&
		 mrdem_writer_commit(&w) == 0;
	struct mrdem_reader rd;
	uint32_t types[8], n = 0;
	struct mrdem_scene back;
	mrdem_scene_init(&back);
	ok = ok && mrdem_reader_open(&rd, path, 0) == 0;
	struct mrdem_record rec;
	while (ok && n < 8 && mrdem_reader_next(&rd, &rec) == 1) {
		if (rec.type == MRDEM_REC_END)
			continue;
		types[n++] = rec.type;
		ok &= mrdem_scene_absorb(&back, &rec, path) == 1;
	}
	if (ok)
		mrdem_reader_close(&rd);
	remove(path);
	tap_ok(ok && n == 3 && types[0] == MRDEM_REC_MESH && types[1] == MRDEM_REC_MESH &&
	       types[2] == MRDEM_REC_TREE, "scene written as mesh, mesh, tree (tree after its mesh)");
	tap_ok(ok && back.nshapes == 2 && !back.shapes[0].tree && back.shapes[1].tree &&
	       back.shapes[1].tree->nnodes == t->nnodes, "read back into the right shape");
	mrdem_scene_release(&back);
	mrdem_scene_release(&s);
	mrdem_buf_release(&b);
}

int main(void)
{
	struct mrdem_mesh m;
	sphere(&m, 320, 1.0);
	struct mrdem_tree_params p;
	mrdem_tree_params_default(&p);
	struct mrdem_tree *t;
	if (mrdem_tree_build(&m, &p, &t))
		return 1;
	test_round_trip(&m, t);
	test_scene(&m, t);
	mrdem_tree_free(t);
	mrdem_mesh_release(&m);
	return tap_done();
}
