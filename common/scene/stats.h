/* Statistics: named values (counters, timings, energies) that one tool
 * produced for one step. */
#ifndef MRDEM_SCENE_STATS_H
#define MRDEM_SCENE_STATS_H

#include <stddef.h>
#include <stdint.h>

struct mrdem_stats {
	char *source;   /* producing tool */
	uint64_t step;
	size_t n, cap;
	char **names;
	double *values;
};
void mrdem_stats_init(struct mrdem_stats *s, const char *source, uint64_t step);
void mrdem_stats_release(struct mrdem_stats *s);
void mrdem_stats_add(struct mrdem_stats *s, const char *name, double value);

#endif
