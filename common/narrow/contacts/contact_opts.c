#include "common/narrow/contacts/contact_opts.h"

#include <string.h>

#include "common/util/error.h"
#include "common/util/names.h"
#include "common/util/parse.h"
#include "common/util/simd.h"

static const char *const hierarchy_names[] = {"flat", "surrogate", "auto", "multiscale"};

const char *mrdem_hierarchy_name(int h)
{
	return mrdem_name_at(hierarchy_names, MRDEM_HIERARCHY_MULTISCALE + 1, h, NULL);
}

static int hierarchy_parse(const char *name)
{
	return mrdem_name_index(hierarchy_names, MRDEM_HIERARCHY_MULTISCALE + 1, name);
}

void mrdem_contact_opts_default(struct mrdem_contact_opts *o)
{
	mrdem_narrow_opts_default(&o->narrow);
	o->hierarchy = MRDEM_HIERARCHY_AUTO;
	o->merge = 1;
}

const char mrdem_contact_opts_usage[] =
	"  --hierarchy H     flat (every triangle pair, Alg. 2), surrogate (trees,\n"
	"                    Alg. 5) or auto (default: surrogate when every shape has\n"
	"                    a tree, else flat); multiscale (Alg. 6) searches on the\n"
	"                    fronts of an implicit step's Picard iterations only\n"
	"  --method M        comparison, iterative or hybrid (default hybrid)\n"
	"  --iterations N    sweeps of the iterative kernel (default 4)\n"
	"  --threshold C     the iterative kernel calls a pair in contact only when its\n"
	"                    distance is certified to C x 1 % of the mean halo, else it\n"
	"                    is not converged (default 1; docs/narrow-phase.md)\n"
	"  --simd S          auto, generic, avx2 or avx512 (default auto)\n"
	"  --no-merge        keep every touching triangle pair (no merging of contact\n"
	"                    points closer than the halo)\n";

int mrdem_contact_opts_check(const struct mrdem_contact_opts *o)
{
	if (o->tuned && o->narrow.method == MRDEM_NARROW_COMPARISON)
		return mrdem_error("--iterations and --threshold tune the iterative kernel, which "
				   "--method comparison does not run");
	return 0;
}

int mrdem_contact_opts_set(struct mrdem_contact_opts *o, const char *key, const char *value)
{
	int v;
	if (!strcmp(key, "hierarchy")) {
		if ((v = hierarchy_parse(value)) < 0)
			return mrdem_error("--hierarchy: '%s' is not flat, surrogate, auto or multiscale",
					   value);
		o->hierarchy = v;
	} else if (!strcmp(key, "method")) {
		if ((v = mrdem_narrow_method_parse(value)) < 0)
			return mrdem_error("--method: '%s' is not comparison, iterative or hybrid",
					   value);
		o->narrow.method = v;
	} else if (!strcmp(key, "iterations")) {
		if (mrdem_parse_int("--iterations", value, 1, MRDEM_NARROW_ITERATIONS_MAX,
				    &o->narrow.iterations))
			return -1;
		o->tuned = 1;
	} else if (!strcmp(key, "threshold")) {
		if (mrdem_parse_positive("--threshold", value, &o->narrow.threshold))
			return -1;
		o->tuned = 1;
	} else if (!strcmp(key, "simd")) {
		if ((v = mrdem_simd_parse(value)) < 0)
			return mrdem_error("--simd: '%s' is not auto, generic, avx2 or avx512", value);
		o->narrow.simd = v;
	} else {
		return mrdem_error("unknown contact option --%s", key);
	}
	return 0;
}
