#include "common/scene/stats.h"

#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"

void mrdem_stats_init(struct mrdem_stats *s, const char *source, uint64_t step)
{
	memset(s, 0, sizeof *s);
	s->source = mrdem_xstrdup(source ? source : "");
	s->step = step;
}

void mrdem_stats_release(struct mrdem_stats *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->names[i]);
	free(s->names);
	free(s->values);
	free(s->source);
	memset(s, 0, sizeof *s);
}

void mrdem_stats_add(struct mrdem_stats *s, const char *name, double value)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->names = mrdem_xrealloc(s->names, s->cap * sizeof *s->names);
		s->values = mrdem_xrealloc(s->values, s->cap * sizeof *s->values);
	}
	s->names[s->n] = mrdem_xstrdup(name);
	s->values[s->n++] = value;
}
