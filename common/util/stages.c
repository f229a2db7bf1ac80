#include "common/util/stages.h"

static const char *const names[MRDEM_STAGES] = {
	"broad", "search", "kernels", "fallback", "merge", "parallel", "forces", "integrate", "output",
	"output_wait", "exchange", "picard",
};

const char *mrdem_stage_name(int stage)
{
	return stage >= 0 && stage < MRDEM_STAGES ? names[stage] : NULL;
}

void mrdem_stage_log_add(struct mrdem_stage_log *dst, const struct mrdem_stage_log *src)
{
	for (int k = 0; k < MRDEM_STAGES; k++) {
		dst->seconds[k] += src->seconds[k];
		dst->calls[k] += src->calls[k];
	}
	dst->pairs += src->pairs;
	dst->comparisons += src->comparisons;
	dst->hits += src->hits;
	dst->contacts += src->contacts;
	dst->picard_iterations += src->picard_iterations;
}
