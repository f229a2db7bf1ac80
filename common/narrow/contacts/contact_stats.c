#include "common/narrow/contacts/contact_stats.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/util/error.h"

const char *const mrdem_contact_stat_names[MRDEM_CONTACT_STATS] = {
	[MRDEM_STAT_COMPARISONS] = "comparisons",
	[MRDEM_STAT_COMPARISONS_REAL] = "comparisons_real",
	[MRDEM_STAT_ITERATIVE] = "iterative",
	[MRDEM_STAT_FALLBACKS] = "fallbacks",
	[MRDEM_STAT_UNCONVERGED] = "unconverged",
	[MRDEM_STAT_INTERSECTING] = "intersecting",
	[MRDEM_STAT_UNDECIDED] = "undecided",
	[MRDEM_STAT_PRUNED] = "pruned",
	[MRDEM_STAT_SPHERE_PRUNED] = "sphere_pruned",
	[MRDEM_STAT_PARTICLE_PAIRS] = "particle_pairs",
	[MRDEM_STAT_PLANE_PAIRS] = "plane_pairs",
	[MRDEM_STAT_PLANE_TESTS] = "plane_tests",
	[MRDEM_STAT_HITS] = "hits",
	[MRDEM_STAT_CONTACTS] = "contacts",
};

/* The largest integer a double holds exactly (2^53): a count above it
 * may have been rounded on its way through the stats record. */
#define EXACT_COUNT_MAX 9007199254740992.0

/* The name of round r's comparisons, and of front count k. */
static void round_name(char *name, size_t size, int r)
{
	snprintf(name, size, "comparisons_round_%d", r);
}

static void front_name(char *name, size_t size, int k)
{
	snprintf(name, size, "front_%s", mrdem_front_count_names[k]);
}

/* The values of the named counters. */
static void named_values(const struct mrdem_contact_counts *c, uint64_t v[MRDEM_CONTACT_STATS])
{
	const struct mrdem_search_counts *s = &c->search;
	struct mrdem_narrow_counts all = {0};
	mrdem_search_counts_total(s, &all);
	v[MRDEM_STAT_COMPARISONS] = all.comparisons;
	v[MRDEM_STAT_COMPARISONS_REAL] = s->real.comparisons;
	v[MRDEM_STAT_ITERATIVE] = all.iterative;
	v[MRDEM_STAT_FALLBACKS] = all.fallbacks;
	v[MRDEM_STAT_UNCONVERGED] = all.unconverged;
	v[MRDEM_STAT_INTERSECTING] = all.intersecting;
	v[MRDEM_STAT_UNDECIDED] = all.undecided;
	v[MRDEM_STAT_PRUNED] = s->pruned;
	v[MRDEM_STAT_SPHERE_PRUNED] = s->sphere_pruned;
	v[MRDEM_STAT_PARTICLE_PAIRS] = c->particle_pairs;
	v[MRDEM_STAT_PLANE_PAIRS] = c->plane_pairs;
	v[MRDEM_STAT_PLANE_TESTS] = c->plane_tests;
	v[MRDEM_STAT_HITS] = c->hits;
	v[MRDEM_STAT_CONTACTS] = c->contacts;
}

void mrdem_contact_counts_stats(const struct mrdem_contact_counts *c, struct mrdem_stats *out)
{
	const struct mrdem_search_counts *s = &c->search;
	uint64_t v[MRDEM_CONTACT_STATS];
	named_values(c, v);
	char name[64];
	int last = 0;
	for (int r = 0; r < MRDEM_SEARCH_ROUNDS; r++)
		if (s->round[r].comparisons)
			last = r + 1;
	mrdem_stats_add(out, mrdem_contact_stat_names[0], (double)v[0]);
	for (int r = 0; r < last; r++) {
		round_name(name, sizeof name, r);
		mrdem_stats_add(out, name, (double)s->round[r].comparisons);
	}
	for (int k = 1; k < MRDEM_CONTACT_STATS; k++)
		mrdem_stats_add(out, mrdem_contact_stat_names[k], (double)v[k]);
	mrdem_analytic_counts_stats(&c->analytic, out);
	mrdem_convex_counts_stats(&c->convex, out);
	if (c->front.size) { /* a multiscale iteration */
		struct mrdem_front_counts fc = c->front;
		uint64_t *f[MRDEM_FRONT_COUNTS];
		mrdem_front_counts_fields(&fc, f);
		for (int k = 0; k < MRDEM_FRONT_COUNTS; k++) {
			front_name(name, sizeof name, k);
			mrdem_stats_add(out, name, (double)*f[k]);
		}
	}
}

void mrdem_search_work_of_counts(struct mrdem_search_work *w, const struct mrdem_contact_counts *c)
{
	struct mrdem_narrow_counts all = {0};
	mrdem_search_counts_total(&c->search, &all);
	memset(w, 0, sizeof *w);
	for (int r = 0; r < MRDEM_SEARCH_ROUNDS; r++)
		w->round[r] = c->search.round[r].comparisons;
	w->round[MRDEM_SEARCH_ROUNDS] = c->search.real.comparisons;
	w->iterative = all.iterative;
	w->fallbacks = all.fallbacks;
	w->front = c->front;
}

/* The value named name of st as a count into *v: 1 found, 0 absent
 * (*v = 0), -1 with a message where it is not a count. */
static int find_count(const struct mrdem_stats *st, const char *name, uint64_t *v)
{
	int found = 0;
	*v = 0;
	for (size_t k = 0; k < st->n; k++)
		if (!strcmp(st->names[k], name)) {
			double x = st->values[k];
			if (!(x >= 0 && x <= EXACT_COUNT_MAX && x == floor(x)))
				return mrdem_error("stats of %s, step %llu: %s = %g is not a count",
						   st->source, (unsigned long long)st->step, name, x);
			*v = (uint64_t)x;
			found = 1;
		}
	return found;
}

/* find_count where the counter must be there. */
static int need_count(const struct mrdem_stats *st, const char *name, uint64_t *v)
{
	int rc = find_count(st, name, v);
	if (rc == 0)
		return mrdem_error("stats of %s, step %llu: no counter %s (not mrdem-contact's "
				   "stats?)", st->source, (unsigned long long)st->step, name);
	return rc < 0 ? -1 : 0;
}

/* Counters of a group the writer writes up to some point (rounds) or not
 * at all (fronts): once one is absent, every later one must be. */
static int prefix_count(const struct mrdem_stats *st, const char *name, uint64_t *v, int *gone)
{
	int rc = find_count(st, name, v);
	if (rc < 0)
		return -1;
	if (rc && *gone)
		return mrdem_error("stats of %s, step %llu: %s without the counters before it",
				   st->source, (unsigned long long)st->step, name);
	*gone |= !rc;
	return 0;
}

/* The fronts' counters: all of them, or none outside multiscale. */
static int front_counts(const struct mrdem_stats *st, struct mrdem_front_counts *fc)
{
	uint64_t *f[MRDEM_FRONT_COUNTS];
	mrdem_front_counts_fields(fc, f);
	char name[64];
	int gone = 0;
	for (int k = 0; k < MRDEM_FRONT_COUNTS; k++) {
		front_name(name, sizeof name, k);
		int rc = k == 0 || gone ? prefix_count(st, name, f[k], &gone)
					: need_count(st, name, f[k]);
		if (rc)
			return -1;
	}
	return 0;
}

int mrdem_search_work_of_stats(struct mrdem_search_work *w, const struct mrdem_stats *st)
{
	memset(w, 0, sizeof *w);
	char name[64];
	uint64_t total, sum = 0;
	int gone = 0;
	int rc = need_count(st, mrdem_contact_stat_names[MRDEM_STAT_COMPARISONS], &total);
	for (int r = 0; r < MRDEM_SEARCH_ROUNDS && !rc; r++) {
		round_name(name, sizeof name, r);
		rc = prefix_count(st, name, &w->round[r], &gone);
	}
	if (rc || need_count(st, mrdem_contact_stat_names[MRDEM_STAT_COMPARISONS_REAL],
			     &w->round[MRDEM_SEARCH_ROUNDS]) ||
	    need_count(st, mrdem_contact_stat_names[MRDEM_STAT_ITERATIVE], &w->iterative) ||
	    need_count(st, mrdem_contact_stat_names[MRDEM_STAT_FALLBACKS], &w->fallbacks) ||
	    front_counts(st, &w->front))
		return -1;
	for (int r = 0; r <= MRDEM_SEARCH_ROUNDS; r++)
		sum += w->round[r];
	if (sum != total)
		return mrdem_error("stats of %s, step %llu: comparisons = %llu, but its rounds sum "
				   "to %llu", st->source, (unsigned long long)st->step,
				   (unsigned long long)total, (unsigned long long)sum);
	return 0;
}
