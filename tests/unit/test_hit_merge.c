/* The merge of a pair's hits (common/narrow/contacts/merge.h) against its
 * definition (tests/lib/merge_reference.h) on the unmerged contacts of the
 * sorted hits: the whole merge of shuffled hits (one pass, group by group,
 * or sorted and scanned; again at the generic SIMD level, where none goes
 * group by group), and the one pass alone (mrdem_hits_one_contact), on random hit
 * sets in a's frame: one cluster or up to 16 within 5 merge radii, of
 * midpoints spread over 0.2 to 1.3 merge radii, unequal halos (where world
 * points, not midpoints, decide near the radius), many distances tied,
 * hits in random order, particles off the origin in random orientations.
 * Wherever the one pass answers, its one contact is the definition's only
 * contact, bit for bit, whatever the order; the sets it declines include
 * the borderline ones (one cluster, several groups).
 * Hits with coincident or non-finite points or a NaN distance, and a
 * merge radius of 0, are declined. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/vec3.h"
#include "common/mesh/mesh.h"
#include "common/narrow/contacts/merge.h"
#include "common/scene/scene.h"
#include "common/util/error.h"
#include "common/util/rng.h"
#include "common/util/simd.h"
#include "tests/lib/merge_reference.h"
#include "tests/lib/tap.h"

static uint64_t key_of(const struct mrdem_tri_hit *h)
{
	return (uint64_t)h->ta << 32 | h->tb;
}

static int by_key(const void *x, const void *y)
{
	uint64_t a = key_of(x), b = key_of(y);
	return (a > b) - (a < b);
}

static void shuffle(struct mrdem_rng *r, struct mrdem_tri_hit *h, size_t n)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)(mrdem_rng_u64(r) % i);
		struct mrdem_tri_hit t = h[i - 1];
		h[i - 1] = h[j];
		h[j] = t;
	}
}

/* n hits around centre c (a's frame), midpoints within spread of it,
 * distinct (ta, tb) keys, distances up to the halos' sum, half of them
 * from three values (ties). */
/* n hits around the nc centres c (3 each), a centre drawn per hit. */
static void random_hits(struct mrdem_rng *r, struct mrdem_tri_hits *hits, size_t n,
			const double *centres, size_t nc, double spread, double cut)
{
	hits->n = 0;
	const double tied[3] = {0.2 * cut, 0.5 * cut, 0.85 * cut};
	while (hits->n < n) {
		struct mrdem_tri_hit h;
		h.ta = (uint32_t)(mrdem_rng_u64(r) % 64); /* a few ta: tb orders them */
		h.tb = (uint32_t)(mrdem_rng_u64(r) % 100000);
		int dup = 0;
		for (size_t k = 0; k < hits->n; k++)
			dup |= key_of(&hits->h[k]) == key_of(&h);
		if (dup)
			continue;
		double m[3], u[3];
		do {
			for (int k = 0; k < 3; k++)
				m[k] = mrdem_rng_range(r, -1, 1);
		} while (vec3_norm2(m) > 1);
		for (int k = 0; k < 3; k++)
			u[k] = mrdem_rng_normal(r);
		vec3_normalize(u);
		const double *c = &centres[3 * (mrdem_rng_u64(r) % nc)];
		double d = mrdem_rng_u64(r) % 2 ? tied[mrdem_rng_u64(r) % 3]
						: mrdem_rng_range(r, 0.01, 1) * cut;
		for (int k = 0; k < 3; k++) {
			double x = c[k] + spread * m[k];
			h.pa[k] = (float)(x + 0.5 * d * u[k]);
			h.pb[k] = (float)(x - 0.5 * d * u[k]);
		}
		float e[3] = {h.pa[0] - h.pb[0], h.pa[1] - h.pb[1], h.pa[2] - h.pb[2]};
		h.dist = sqrtf(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
		*mrdem_tri_hits_push(hits) = h;
	}
}

int main(void)
{
	mrdem_set_progname("test_hit_merge");
	int quick = getenv("MRDEM_ASAN") != NULL;
	struct mrdem_scene s;
	mrdem_scene_init(&s);
	double size[3] = {1, 1, 1};
	struct mrdem_mesh box;
	mrdem_mesh_init(&box);
	if (mrdem_mesh_box(&box, size, 1))
		mrdem_die("cannot make box");
	mrdem_scene_add_shape(&s, "box", &box);
	struct mrdem_particles *p = &s.frame.p;
	mrdem_particles_push(p, 1, 0);
	mrdem_particles_push(p, 2, 0);

	struct mrdem_rng rng;
	mrdem_rng_seed(&rng, 2027);
	struct mrdem_merge_scratch grid;
	memset(&grid, 0, sizeof grid);
	struct mrdem_tri_hits hits, sorted;
	mrdem_tri_hits_init(&hits);
	mrdem_tri_hits_init(&sorted);
	struct mrdem_contacts want, got, again, merged;
	mrdem_contacts_init(&merged);
	mrdem_contacts_init(&want);
	mrdem_contacts_init(&got);
	mrdem_contacts_init(&again);
	long sets = quick ? 3000 : 20000, answered = 0, borderline = 0;
	long equal_single = 0, equal_answered = 0; /* sets of equal halos */
	long wrong = 0, unstable = 0, merge_wrong = 0, scan_wrong = 0;
	struct mrdem_tree_search *sorter = mrdem_tree_search_new();
	double *seeds = NULL;
	for (long t = 0; t < sets; t++) {
		for (int i = 0; i < 2; i++) {
			mrdem_rng_quat(&rng, &p->quat[4 * i]);
			for (int c = 0; c < 3; c++)
				p->pos[3 * i + c] = mrdem_rng_range(&rng, -20, 20);
		}
		p->eps[0] = mrdem_rng_range(&rng, 0.005, 0.035);
		p->eps[1] = t % 4 ? mrdem_rng_range(&rng, 0.005, 0.035) : p->eps[0];
		double radius = 0.5 * (p->eps[0] + p->eps[1]), c[3 * 16];
		for (int k = 0; k < 3; k++)
			c[k] = mrdem_rng_range(&rng, -1.5, 1.5);
		size_t n = 2 + (size_t)(mrdem_rng_u64(&rng) % 60), nc = 1;
		if (t % 8 == 7) {
			/* many groups: up to 16 clusters within 5 radii, up to
			 * 250 hits (the merge's passes per group, and where it
			 * stops them) */
			nc = 2 + (size_t)(mrdem_rng_u64(&rng) % 15);
			n = 20 + (size_t)(mrdem_rng_u64(&rng) % 231);
			for (size_t q = 1; q < nc; q++)
				for (int k = 0; k < 3; k++)
					c[3 * q + k] = c[k] + 5 * radius * mrdem_rng_range(&rng, -1, 1);
		}
		random_hits(&rng, &hits, n, c, nc, radius * mrdem_rng_range(&rng, 0.2, 1.3),
			    p->eps[0] + p->eps[1]);
		struct mrdem_hit_frame f;
		mrdem_hit_frame_init(&f, &s, 0, 1, NULL, NULL, NULL, NULL);

		sorted.n = 0;
		for (size_t k = 0; k < n; k++)
			*mrdem_tri_hits_push(&sorted) = hits.h[k];
		qsort(sorted.h, n, sizeof *sorted.h, by_key);
		want.n = got.n = again.n = merged.n = 0;
		/* the definition on the unmerged contacts, in (ta, tb) order */
		mrdem_hits_to_contacts(&f, &sorted, NULL, radius, MRDEM_SIMD_AUTO, NULL, &want);
		seeds = realloc(seeds, 3 * n * sizeof *seeds);
		merge_reference(&want, radius, seeds);
		equal_single += want.n == 1 && t % 4 == 0;

		shuffle(&rng, hits.h, n);
		/* the whole merge of shuffled hits: one pass or sort and scan */
		sorted.n = 0;
		for (size_t k = 0; k < n; k++)
			*mrdem_tri_hits_push(&sorted) = hits.h[k];
		mrdem_hits_to_contacts(&f, &sorted, &grid, radius, MRDEM_SIMD_AUTO, sorter, &merged);
		if (merged.n != want.n || memcmp(merged.c, want.c, want.n * sizeof *want.c))
			if (merge_wrong++ < 5)
				tap_diag("set %ld: %zu hits, %zu merged contacts against %zu", t, n,
					 merged.n, want.n);
		/* without AVX-512 no set goes group by group (merge_peel_avx512.c,
		 * sets of up to 256 hits): the sort and the scan merge it */
		sorted.n = 0;
		for (size_t k = 0; k < n; k++)
			*mrdem_tri_hits_push(&sorted) = hits.h[k];
		merged.n = 0;
		mrdem_hits_to_contacts(&f, &sorted, &grid, radius, MRDEM_SIMD_GENERIC, sorter,
				       &merged);
		if (merged.n != want.n || memcmp(merged.c, want.c, want.n * sizeof *want.c))
			if (scan_wrong++ < 5)
				tap_diag("set %ld, generic: %zu hits, %zu merged contacts against %zu",
					 t, n, merged.n, want.n);
		int took = mrdem_hits_one_contact(&f, &hits, radius, &got);
		/* midpoints within the radius of each other, yet several groups */
		borderline += !took && want.n > 1 && want.n < 4;
		if (!took) {
			if (got.n)
				wrong++;
			continue;
		}
		answered++;
		equal_answered += t % 4 == 0;
		if (got.n != 1 || want.n != 1 || memcmp(got.c, want.c, sizeof *got.c)) {
			if (wrong++ < 5)
				tap_diag("set %ld: %zu hits, one contact against %zu merged", t, n,
					 want.n);
			continue;
		}
		shuffle(&rng, hits.h, n);
		if (!mrdem_hits_one_contact(&f, &hits, radius, &again) ||
		    memcmp(again.c, got.c, sizeof *got.c))
			unstable++;
	}
	tap_eq_int(merge_wrong, 0, "merged contacts of shuffled hits == the definition, bit for bit "
		   "(%ld sets)", sets);
	tap_eq_int(scan_wrong, 0, "the same sorted and scanned (generic SIMD level) (%ld sets)", sets);
	tap_eq_int(wrong, 0, "one-pass merge == the definition's only contact, bit for bit (%ld sets)",
		   answered);
	tap_eq_int(unstable, 0, "the same contact from the hits in another order");
	tap_ok(equal_answered * 10 > equal_single * 8,
	       "with equal halos it answers most one-contact sets (%ld of %ld; with unequal "
	       "ones world points decide near the radius)", equal_answered, equal_single);
	tap_ok(borderline > 0, "sets of several groups close together are declined (%ld)",
	       borderline);

	/* what it declines */
	struct mrdem_hit_frame f;
	mrdem_hit_frame_init(&f, &s, 0, 1, NULL, NULL, NULL, NULL);
	double c[3] = {0.3, -0.2, 0.1};
	p->eps[0] = p->eps[1] = 0.02;
	const char *what[] = {"coincident points", "a NaN point", "an infinite point",
			      "a NaN distance", "a merge radius of 0", "one hit"};
	for (int k = 0; k < 6; k++) {
		random_hits(&rng, &hits, 6, c, 1, 0.002, 0.04);
		double radius = 0.02;
		struct mrdem_tri_hit *h = &hits.h[3];
		if (k == 0)
			memcpy(h->pb, h->pa, sizeof h->pa);
		else if (k == 1)
			h->pa[1] = NAN;
		else if (k == 2)
			h->pb[2] = INFINITY;
		else if (k == 3)
			h->dist = NAN;
		else if (k == 4)
			radius = 0;
		else
			hits.n = 1;
		got.n = 0;
		int took = mrdem_hits_one_contact(&f, &hits, radius, &got);
		tap_ok(!took && got.n == 0, "declines %s", what[k]);
	}
	random_hits(&rng, &hits, 6, c, 1, 0.002, 0.04);
	got.n = 0;
	tap_ok(mrdem_hits_one_contact(&f, &hits, 0.02, &got) && got.n == 1,
	       "answers the same set unspoilt");

	mrdem_contacts_release(&want);
	mrdem_contacts_release(&merged);
	mrdem_tree_search_free(sorter);
	free(seeds);
	mrdem_contacts_release(&got);
	mrdem_contacts_release(&again);
	mrdem_tri_hits_release(&hits);
	mrdem_tri_hits_release(&sorted);
	mrdem_merge_scratch_release(&grid);
	mrdem_scene_release(&s);
	return tap_done();
}
