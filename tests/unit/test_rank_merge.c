/* The merge of the ranks' records of one frame (common/scene/frame_merge.h,
 * contact_merge.h, stats_merge.h) on small hand-made parts whose merge is
 * known exactly: particles placed by their order column, springs, pairs
 * and contacts in the one-rank order, stats by their rules, and the
 * refusals. */
#include <stdlib.h>
#include <string.h>

#include "common/scene/contact_merge.h"
#include "common/scene/frame_merge.h"
#include "common/scene/id_index.h"
#include "common/scene/stats_merge.h"
#include "common/util/error.h"
#include "tests/lib/tap.h"

static const char *const names[] = {"p0", "p1", "p2"};

/* A part of particles with these ids and order values (x = 10 * id), and
 * an extra u32 column "tag" holding id + 100. */
static void make_part(struct mrdem_frame *f, const uint64_t *ids, const uint64_t *order, size_t n)
{
	mrdem_frame_init(f);
	f->step = 7;
	f->time = 0.5;
	for (size_t i = 0; i < n; i++) {
		size_t k = mrdem_particles_push(&f->p, ids[i], 0);
		f->p.pos[3 * k] = 10.0 * (double)ids[i];
	}
	f->extra = mrdem_xcalloc(2, sizeof *f->extra);
	struct mrdem_column tag = {mrdem_xstrdup("tag"), MRDEM_COLUMN_U32, 1, 4 * n,
				   mrdem_xmalloc(4 * n + 1)};
	struct mrdem_column ord = {mrdem_xstrdup(MRDEM_COLUMN_ORDER), MRDEM_COLUMN_U64, 1, 8 * n,
				   mrdem_xmalloc(8 * n + 1)};
	for (size_t i = 0; i < n; i++) {
		for (int b = 0; b < 4; b++)
			tag.data[4 * i + b] = (unsigned char)((ids[i] + 100) >> (8 * b));
		for (int b = 0; b < 8; b++)
			ord.data[8 * i + b] = (unsigned char)(order[i] >> (8 * b));
	}
	f->extra[0] = tag;
	f->extra[1] = ord;
	f->nextra = 2;
}

static void spring(struct mrdem_frame *f, uint64_t a, uint64_t b, double shear)
{
	struct mrdem_spring *s = mrdem_history_push(&f->history);
	memset(s, 0, sizeof *s);
	s->a = a;
	s->b = b;
	s->shear[0] = shear;
}

static void test_frames(void)
{
	/* the whole frame: ids 5 3 9 1 at indices 0 1 2 3 */
	struct mrdem_frame parts[3], out;
	make_part(&parts[0], (uint64_t[]){9, 5}, (uint64_t[]){2, 0}, 2);
	make_part(&parts[1], NULL, NULL, 0);
	make_part(&parts[2], (uint64_t[]){1, 3}, (uint64_t[]){3, 1}, 2);
	spring(&parts[2], 3, 9, 1);
	spring(&parts[0], 5, 9, 2);
	spring(&parts[0], 5, 9, 3);
	spring(&parts[2], 1, 5, 4);
	int rc = mrdem_frames_merge(&out, parts, 3, names);
	tap_ok(rc == 0 && out.p.n == 4 && out.p.id[0] == 5 && out.p.id[1] == 3 &&
	       out.p.id[2] == 9 && out.p.id[3] == 1 && out.p.pos[3 * 2] == 90,
	       "frames: particles at the index of their order column");
	tap_ok(rc == 0 && out.nextra == 1 && !strcmp(out.extra[0].name, "tag") &&
	       out.extra[0].data[4 * 2] == 109 && out.extra[0].data[4 * 3] == 101,
	       "frames: the order column dropped, the others permuted with the particles");
	tap_ok(rc == 0 && out.history.n == 4 && out.history.s[0].a == 1 &&
	       out.history.s[1].a == 3 && out.history.s[2].shear[0] == 2 &&
	       out.history.s[3].shear[0] == 3, "frames: springs by (a, b), a pair's in order");
	mrdem_frame_release(&out);

	spring(&parts[2], 5, 9, 5);
	tap_capture_begin();
	rc = mrdem_frames_merge(&out, parts, 3, names);
	const char *err = tap_capture_end();
	tap_ok(rc == -1 && strstr(err, "p0 and p2") && strstr(err, "(5, 9)"),
	       "frames: a pair's springs in two parts refused: %s", err);
	parts[2].history.n = 0;

	parts[2].extra[1].data[0] = 2; /* particle 1 (id 1) now has order 2, as id 9 */
	tap_capture_begin();
	rc = mrdem_frames_merge(&out, parts, 3, names);
	err = tap_capture_end();
	tap_ok(rc == -1 && strstr(err, "p2") && strstr(err, "which another particle has too"),
	       "frames: an order twice refused: %s", err);
	parts[2].extra[1].data[0] = 4;
	tap_capture_begin();
	rc = mrdem_frames_merge(&out, parts, 3, names);
	err = tap_capture_end();
	tap_ok(rc == -1 && strstr(err, "beyond the particles"), "frames: an order >= n refused: %s",
	       err);
	parts[2].extra[1].data[0] = 3;
	parts[1].step = 8;
	tap_capture_begin();
	rc = mrdem_frames_merge(&out, parts, 3, names);
	err = tap_capture_end();
	tap_ok(rc == -1 && strstr(err, "p1: its frame is of step 8"),
	       "frames: parts at other steps refused: %s", err);
	for (int k = 0; k < 3; k++)
		mrdem_frame_release(&parts[k]);
}

static void test_pairs_contacts(void)
{
	/* merged frame: ids 5 3 9 at indices 0 1 2, and two planes */
	struct mrdem_particles p = {0};
	mrdem_particles_reserve(&p, 3);
	mrdem_particles_push(&p, 5, 0);
	mrdem_particles_push(&p, 3, 0);
	mrdem_particles_push(&p, 9, 0);
	struct mrdem_id_index x;
	mrdem_id_index_init(&x);
	mrdem_id_index_build(&x, &p);
	struct mrdem_pairs pp[2], out;
	mrdem_pairs_init(&pp[0]);
	mrdem_pairs_init(&pp[1]);
	mrdem_pairs_push(&pp[0], 3, MRDEM_PLANE_ID(0));
	mrdem_pairs_push(&pp[0], 9, 5); /* turned round: 5 is index 0 */
	mrdem_pairs_push(&pp[1], 5, MRDEM_PLANE_ID(1));
	mrdem_pairs_push(&pp[1], 5, 3);
	int rc = mrdem_pairs_merge(&out, pp, 2, &x, 3, names);
	tap_ok(rc == 0 && out.n == 4 && out.p[0].a == 5 && out.p[0].b == 3 && out.p[1].a == 5 &&
	       out.p[1].b == 9 && out.p[2].b == MRDEM_PLANE_ID(1) && out.p[3].a == 3,
	       "pairs: by index of a, then b, planes last, a the lower index");
	mrdem_pairs_release(&out);
	mrdem_pairs_push(&pp[1], 9, 5);
	tap_capture_begin();
	rc = mrdem_pairs_merge(&out, pp, 2, &x, 3, names);
	const char *err = tap_capture_end();
	tap_ok(rc == -1 && strstr(err, "p0 and p1") && strstr(err, "indices 0, 2"),
	       "pairs: one pair in two parts refused: %s", err);
	mrdem_pairs_push(&pp[0], 4, 5);
	tap_capture_begin();
	rc = mrdem_pairs_merge(&out, pp, 2, &x, 3, names);
	err = tap_capture_end();
	tap_ok(rc == -1 && strstr(err, "p0: the pair (4, 5) names particle 4"),
	       "pairs: an id the frame lacks refused: %s", err);

	struct mrdem_contacts cc[2], co;
	mrdem_contacts_init(&cc[0]);
	mrdem_contacts_init(&cc[1]);
	const uint64_t ab[][3] = {{0, 3, 5}, {0, 3, 5}, {1, 9, MRDEM_PLANE_ID(0)}, {0, 5, 9}};
	for (int i = 0; i < 4; i++) {
		struct mrdem_contact *c = mrdem_contacts_push(&cc[ab[i][0]]);
		memset(c, 0, sizeof *c);
		c->a = ab[i][1];
		c->b = ab[i][2];
		c->dist = i;
	}
	rc = mrdem_contacts_merge(&co, cc, 2, &x, 3, names);
	tap_ok(rc == 0 && co.n == 4 && co.c[0].dist == 0 && co.c[1].dist == 1 &&
	       co.c[2].dist == 3 && co.c[3].dist == 2,
	       "contacts: by their pair's place, each pair's in order");
	mrdem_contacts_release(&co);
	cc[1].c[0].a = 5;
	cc[1].c[0].b = 3;
	tap_capture_begin();
	rc = mrdem_contacts_merge(&co, cc, 2, &x, 3, names);
	err = tap_capture_end();
	tap_ok(rc == -1 && strstr(err, "contacts of step"), "contacts: a pair's in two parts "
	       "refused: %s", err);
	for (int k = 0; k < 2; k++) {
		mrdem_pairs_release(&pp[k]);
		mrdem_contacts_release(&cc[k]);
	}
	mrdem_id_index_release(&x);
	struct mrdem_frame f = {.p = p};
	mrdem_frame_release(&f);
}

static void test_stats(void)
{
	struct mrdem_stats s[2], out;
	mrdem_stats_init(&s[0], "mrdem-contact", 3);
	mrdem_stats_init(&s[1], "mrdem-contact", 3);
	mrdem_stats_add(&s[0], "comparisons", 10);
	mrdem_stats_add(&s[0], "max_depth", 0.5);
	mrdem_stats_add(&s[0], "broad_cell_size", 0.02);
	mrdem_stats_add(&s[0], "contacts", 4);
	mrdem_stats_add(&s[1], "comparisons", 5);
	mrdem_stats_add(&s[1], "comparisons_round_0", 7);
	mrdem_stats_add(&s[1], "max_depth", 0.75);
	mrdem_stats_add(&s[1], "broad_cell_size", 0.03);
	mrdem_stats_add(&s[1], "contacts", 1);
	int rc = mrdem_stats_merge(&out, s, 2, names);
	static const char *const want[] = {"comparisons", "comparisons_round_0", "max_depth",
					   "broad_cell_size", "contacts"};
	static const double value[] = {15, 7, 0.75, 0.03, 5};
	int good = rc == 0 && out.n == 5 && out.step == 3;
	for (size_t i = 0; good && i < 5; i++)
		good = !strcmp(out.names[i], want[i]) && out.values[i] == value[i];
	tap_ok(good, "stats: counts summed, sizes and max_* the largest, a name in its place");
	mrdem_stats_release(&out);
	s[1].step = 4;
	tap_capture_begin();
	rc = mrdem_stats_merge(&out, s, 2, names);
	const char *err = tap_capture_end();
	tap_ok(rc == -1 && strstr(err, "p1: a stats record of mrdem-contact at step 4"),
	       "stats: another step refused: %s", err);
	mrdem_stats_release(&s[0]);
	mrdem_stats_release(&s[1]);
}

int main(void)
{
	test_frames();
	test_pairs_contacts();
	test_stats();
	return tap_done();
}
