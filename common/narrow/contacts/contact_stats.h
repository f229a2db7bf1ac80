/* The contact search's counters as the named values of a stats record
 * (docs/narrow-phase.md), and back: one table names them, so that what
 * mrdem-contact writes is what mrdem-step reads. */
#ifndef MRDEM_NARROW_CONTACT_STATS_H
#define MRDEM_NARROW_CONTACT_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "common/narrow/contacts/particle_contacts.h"
#include "common/scene/stats.h"

/* The counters with a name of their own, in the order they are written;
 * between the first and the second come the rounds' comparisons
 * ("comparisons_round_R", up to the deepest round with any), after the
 * last the analytic and convex kinds' counts and, in a multiscale
 * iteration, the fronts' ("front_NAME", mrdem_front_count_names). */
enum mrdem_contact_stat {
	MRDEM_STAT_COMPARISONS,
	MRDEM_STAT_COMPARISONS_REAL,
	MRDEM_STAT_ITERATIVE,
	MRDEM_STAT_FALLBACKS,
	MRDEM_STAT_UNCONVERGED,
	MRDEM_STAT_INTERSECTING,
	MRDEM_STAT_UNDECIDED,
	MRDEM_STAT_PRUNED,
	MRDEM_STAT_SPHERE_PRUNED,
	MRDEM_STAT_PARTICLE_PAIRS,
	MRDEM_STAT_PLANE_PAIRS,
	MRDEM_STAT_PLANE_TESTS,
	MRDEM_STAT_HITS,
	MRDEM_STAT_CONTACTS,
	MRDEM_CONTACT_STATS
};
extern const char *const mrdem_contact_stat_names[MRDEM_CONTACT_STATS];

/* Add the counts as named values. */
void mrdem_contact_counts_stats(const struct mrdem_contact_counts *c, struct mrdem_stats *out);

/* The work of one search that an implicit step's account keeps: from the
 * counters in process (mrdem_search_work_of_counts), from mrdem-contact's
 * stats record through pipes (mrdem_search_work_of_stats): the same
 * numbers. */
struct mrdem_search_work {
	uint64_t round[MRDEM_SEARCH_ROUNDS + 1]; /* comparisons; the last: real triangles */
	uint64_t iterative, fallbacks;
	struct mrdem_front_counts front;
};
void mrdem_search_work_of_counts(struct mrdem_search_work *w, const struct mrdem_contact_counts *c);
/* The inverse of mrdem_contact_counts_stats for those counters. Returns
 * 0, or -1 with a message where a counter is missing (rounds after the
 * deepest written and, outside multiscale, the fronts' are left out by
 * the writer and read as 0), is not a count, or the rounds do not sum to
 * the comparisons. */
int mrdem_search_work_of_stats(struct mrdem_search_work *w, const struct mrdem_stats *st);

#endif
