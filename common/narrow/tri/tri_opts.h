/* The options of the triangle kernels (paper Sec. 3): method, sweeps of
 * the iterative kernel, its threshold, SIMD level; their names and their
 * check. */
#ifndef MRDEM_NARROW_TRI_OPTS_H
#define MRDEM_NARROW_TRI_OPTS_H

enum mrdem_narrow_method {
	MRDEM_NARROW_COMPARISON = 0,
	MRDEM_NARROW_ITERATIVE = 1,
	MRDEM_NARROW_HYBRID = 2,
};

struct mrdem_narrow_opts {
	int method;       /* enum mrdem_narrow_method */
	int iterations;   /* N_iterative, sweeps of the iterative kernel */
	double threshold; /* C: convergence threshold in units of the mean halo */
	int fallback;     /* hybrid: recompute undecided pairs by comparison (1),
			     or report them MRDEM_TRI_UNDECIDED (0: surrogate levels) */
	int simd;         /* enum mrdem_simd */
	/* mrdem_tri_pairs_test, _hits: the iterative and hybrid kernels' contacts
	 * take their points and distance from the comparison kernel in the
	 * same pass (and are dropped if it finds them apart), so they do not
	 * depend on the kernel that found them (0 by default) */
	int exact_contacts;
};

#define MRDEM_NARROW_ITERATIONS_MAX 64

/* hybrid, 4 iterations, C = 1, fallback on, best SIMD level. */
void mrdem_narrow_opts_default(struct mrdem_narrow_opts *o);
/* "comparison", "iterative", "hybrid"; parse returns -1 when unknown. */
const char *mrdem_narrow_method_name(int method);
int mrdem_narrow_method_parse(const char *name);
/* 0, or -1 with a message when a field is out of range. */
int mrdem_narrow_opts_check(const struct mrdem_narrow_opts *o);

#endif
