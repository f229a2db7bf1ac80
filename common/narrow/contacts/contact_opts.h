/* The contact search's options as every tool takes them (--hierarchy,
 * --method, --iterations, --threshold, --simd, --no-merge): the search
 * hierarchy, merging, and the kernels' options (tri_opts.h). */
#ifndef MRDEM_NARROW_CONTACT_OPTS_H
#define MRDEM_NARROW_CONTACT_OPTS_H

#include "common/narrow/tri/tri_opts.h"

enum mrdem_hierarchy {
	MRDEM_HIERARCHY_FLAT = 0,      /* every triangle pair (Alg. 2) */
	MRDEM_HIERARCHY_SURROGATE = 1, /* surrogate trees, coarse to fine (Alg. 5) */
	MRDEM_HIERARCHY_AUTO = 2,      /* surrogate when every shape has a tree */
	MRDEM_HIERARCHY_MULTISCALE = 3,/* fronts within the Picard loop (Alg. 6) */
};
const char *mrdem_hierarchy_name(int h);

struct mrdem_contact_opts {
	struct mrdem_narrow_opts narrow;
	int hierarchy;   /* enum mrdem_hierarchy */
	int merge;       /* merge contact points closer than the halo (remark 1) */
	int tuned;       /* "iterations" or "threshold" was set (mrdem_contact_opts_set) */
	/* surrogate hierarchy: each mesh pair's search starts at its front of
	 * the finder's last call instead of the roots (particle_contacts.h) */
	int keep_fronts;
};
/* hybrid kernels, automatic hierarchy, merging on. */
void mrdem_contact_opts_default(struct mrdem_contact_opts *o);
/* Set one option from its command-line spelling, so every tool takes the
 * same ones: "method" (comparison|iterative|hybrid), "iterations",
 * "threshold", "hierarchy" (flat|surrogate|auto|multiscale), "simd"
 * (auto|generic|avx2|avx512). Returns 0, or -1 with a message naming --key. */
int mrdem_contact_opts_set(struct mrdem_contact_opts *o, const char *key, const char *value);
/* After a tool's options: 0, or -1 with a message where --iterations or
 * --threshold were given with --method comparison, which has no iterative
 * kernel for them to tune (a flag that would be ignored). */
int mrdem_contact_opts_check(const struct mrdem_contact_opts *o);
/* Usage text of those options and --no-merge, for --help. */
extern const char mrdem_contact_opts_usage[];

#endif
