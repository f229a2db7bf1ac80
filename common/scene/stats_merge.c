/* The rules of merging the ranks' stats records, and the merge. */
#include "common/scene/stats_merge.h"

#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"

/* First match wins; a pattern ending in '*' matches the names it starts. */
static const struct {
	const char *pattern;
	int rule;
} rules[] = {
	/* the grid's cells are the diameter of the largest sphere, so the
	 * largest rank's is the whole frame's */
	{"broad_cell_size", MRDEM_STAT_MAX},
	/* extremes */
	{"max_*", MRDEM_STAT_MAX},
	/* counts, masses and times: each rank has its share */
	{"*", MRDEM_STAT_SUM},
};

static int matches(const char *pattern, const char *name)
{
	size_t n = strlen(pattern);
	if (n && pattern[n - 1] == '*')
		return !strncmp(pattern, name, n - 1);
	return !strcmp(pattern, name);
}

int mrdem_stat_rule(const char *name)
{
	for (size_t k = 0; k < sizeof rules / sizeof *rules; k++)
		if (matches(rules[k].pattern, name))
			return rules[k].rule;
	return MRDEM_STAT_SUM;
}

static long find(const struct mrdem_stats *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->names[i], name))
			return (long)i;
	return -1;
}

/* Put name with value at position at of s, moving the later ones on. */
static void insert(struct mrdem_stats *s, size_t at, const char *name, double value)
{
	mrdem_stats_add(s, name, value);
	char *nm = s->names[s->n - 1];
	memmove(&s->names[at + 1], &s->names[at], (s->n - 1 - at) * sizeof *s->names);
	memmove(&s->values[at + 1], &s->values[at], (s->n - 1 - at) * sizeof *s->values);
	s->names[at] = nm;
	s->values[at] = value;
}

int mrdem_stats_merge(struct mrdem_stats *out, const struct mrdem_stats *parts, size_t nparts,
		      const char *const *name)
{
	mrdem_stats_init(out, nparts ? parts[0].source : "", nparts ? parts[0].step : 0);
	for (size_t k = 0; k < nparts; k++) {
		const struct mrdem_stats *p = &parts[k];
		if (strcmp(p->source, out->source) || p->step != out->step) {
			mrdem_error("%s: a stats record of %s at step %llu where %s has one of %s at "
				    "step %llu", name[k], p->source, (unsigned long long)p->step,
				    name[0], out->source, (unsigned long long)out->step);
			mrdem_stats_release(out);
			return -1;
		}
		size_t next = 0; /* where a new name goes: after the one before it */
		for (size_t i = 0; i < p->n; i++) {
			long at = find(out, p->names[i]);
			double v = p->values[i];
			if (at < 0) {
				insert(out, next, p->names[i], v);
				at = (long)next;
			} else if (mrdem_stat_rule(p->names[i]) == MRDEM_STAT_MAX) {
				out->values[at] = v > out->values[at] ? v : out->values[at];
			} else {
				out->values[at] += v;
			}
			next = (size_t)at + 1;
		}
	}
	return 0;
}
