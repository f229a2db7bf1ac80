/* A stats record from those of the ranks of a parallel run (docs/parallel.md,
 * "Merging the ranks' streams"): each value by the rule of its name, the
 * sum of the ranks' (a count, a mass, a time) or their largest (a size or
 * an extreme). */
#ifndef MRDEM_SCENE_STATS_MERGE_H
#define MRDEM_SCENE_STATS_MERGE_H

#include <stddef.h>

#include "common/scene/stats.h"

enum mrdem_stat_rule {
	MRDEM_STAT_SUM = 0,
	MRDEM_STAT_MAX = 1,
};

/* The rule of the value named name. */
int mrdem_stat_rule(const char *name);

/* out (initialised here): the parts' names, each once, in the order they
 * come (a name only some parts have goes after the name it follows
 * there), each value merged by its rule over the parts that have it. The
 * parts must be of one source and step: else -1 with a message naming
 * the part (name[k]). */
int mrdem_stats_merge(struct mrdem_stats *out, const struct mrdem_stats *parts, size_t nparts,
		      const char *const *name);

#endif
