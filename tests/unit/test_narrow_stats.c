/* The contact search's counters through a stats record and back
 * (common/narrow/contacts/contact_stats.c): what mrdem_contact_counts_stats
 * writes, mrdem_search_work_of_stats reads as mrdem_search_work_of_counts
 * takes it in process, with and without fronts; a counter missing, a
 * round after a missing one, part of the fronts' counters, a value that
 * is not a count and rounds that do not sum to the comparisons are
 * errors that name the counter. */
#include <string.h>

#include "common/narrow/contacts/contact_stats.h"
#include "tests/lib/tap.h"

static void sample_counts(struct mrdem_contact_counts *c, int fronts)
{
	memset(c, 0, sizeof *c);
	c->search.round[0].comparisons = 40;
	c->search.round[2].comparisons = 7;
	c->search.round[1].comparisons = 11;
	c->search.real.comparisons = 300;
	c->search.round[1].iterative = 5;
	c->search.real.iterative = 60;
	c->search.real.fallbacks = 3;
	c->hits = 12;
	c->contacts = 4;
	if (fronts) {
		uint64_t *f[MRDEM_FRONT_COUNTS];
		mrdem_front_counts_fields(&c->front, f);
		for (int k = 0; k < MRDEM_FRONT_COUNTS; k++)
			*f[k] = 100 + (uint64_t)k;
	}
}

/* The stats of c without the value named drop (NULL: none). */
static void stats_without(const struct mrdem_contact_counts *c, const char *drop,
			  struct mrdem_stats *st)
{
	struct mrdem_stats all;
	mrdem_stats_init(&all, "mrdem-contact", 3);
	mrdem_contact_counts_stats(c, &all);
	mrdem_stats_init(st, "mrdem-contact", 3);
	for (size_t k = 0; k < all.n; k++)
		if (!drop || strcmp(all.names[k], drop))
			mrdem_stats_add(st, all.names[k], all.values[k]);
	mrdem_stats_release(&all);
}

/* Whether reading st fails with a message that holds word. */
static int fails_naming(const struct mrdem_stats *st, const char *word)
{
	struct mrdem_search_work w;
	tap_capture_begin();
	int rc = mrdem_search_work_of_stats(&w, st);
	const char *msg = tap_capture_end();
	return rc == -1 && strstr(msg, word);
}

int main(void)
{
	for (int fronts = 0; fronts < 2; fronts++) {
		struct mrdem_contact_counts c;
		sample_counts(&c, fronts);
		struct mrdem_stats st;
		stats_without(&c, NULL, &st);
		struct mrdem_search_work want, got;
		mrdem_search_work_of_counts(&want, &c);
		int read = mrdem_search_work_of_stats(&got, &st) == 0;
		tap_ok(read && !memcmp(&want, &got, sizeof got),
		       "the stats read back as the counts give them (fronts: %d)", fronts);
		mrdem_stats_release(&st);
	}
	struct mrdem_contact_counts c;
	sample_counts(&c, 1);
	/* a counter left out, and the one the error names (a round: the
	 * next, written without it) */
	static const char *const needed[][2] = {
		{"comparisons", "comparisons"},
		{"comparisons_real", "comparisons_real"},
		{"iterative", "iterative"},
		{"fallbacks", "fallbacks"},
		{"comparisons_round_1", "comparisons_round_2"},
		{"front_narrows", "front_narrows"},
	};
	for (size_t k = 0; k < sizeof needed / sizeof needed[0]; k++) {
		struct mrdem_stats st;
		stats_without(&c, needed[k][0], &st);
		tap_ok(fails_naming(&st, needed[k][1]), "without %s: an error that names %s",
		       needed[k][0], needed[k][1]);
		mrdem_stats_release(&st);
	}
	struct mrdem_stats st;
	stats_without(&c, NULL, &st);
	st.values[0] = 0.5;
	tap_ok(fails_naming(&st, "not a count"), "a fraction is not a count");
	st.values[0] = 9007199254740994.0;
	tap_ok(fails_naming(&st, "not a count"), "a count above 2^53 is refused");
	st.values[0] = 1;
	tap_ok(fails_naming(&st, "rounds sum"), "rounds that do not sum to the comparisons");
	mrdem_stats_release(&st);
	return tap_done();
}
