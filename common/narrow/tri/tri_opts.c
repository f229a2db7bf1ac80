#include "common/narrow/tri/tri_opts.h"

#include <math.h>

#include "common/util/error.h"
#include "common/util/names.h"
#include "common/util/simd.h"

void mrdem_narrow_opts_default(struct mrdem_narrow_opts *o)
{
	o->method = MRDEM_NARROW_HYBRID;
	o->iterations = 4;
	o->threshold = 1.0;
	o->fallback = 1;
	o->simd = MRDEM_SIMD_AUTO;
	o->exact_contacts = 0;
}

static const char *const method_names[] = {"comparison", "iterative", "hybrid"};

const char *mrdem_narrow_method_name(int method)
{
	return mrdem_name_at(method_names, MRDEM_NARROW_HYBRID + 1, method, "unknown");
}

int mrdem_narrow_method_parse(const char *name)
{
	return mrdem_name_index(method_names, MRDEM_NARROW_HYBRID + 1, name);
}

int mrdem_narrow_opts_check(const struct mrdem_narrow_opts *o)
{
	if (o->method < 0 || o->method > MRDEM_NARROW_HYBRID)
		return mrdem_error("unknown narrow-phase method %d", o->method);
	if (o->iterations < 1 || o->iterations > MRDEM_NARROW_ITERATIONS_MAX)
		return mrdem_error("iterations must be between 1 and %d, not %d",
				   MRDEM_NARROW_ITERATIONS_MAX, o->iterations);
	if (!(o->threshold > 0) || !isfinite(o->threshold))
		return mrdem_error("threshold must be a positive number, not %g", o->threshold);
	if (o->simd < MRDEM_SIMD_AUTO || o->simd > MRDEM_SIMD_AVX512)
		return mrdem_error("unknown simd level %d", o->simd);
	return 0;
}
