/* Time per triangle comparison of a whole contact detection (the
 * goal: at most 20 ns on the paper's lattice, examples/lattice-24576.yaml):
 * the driver's own detection (mrdem_sim_detect: broad phase, surrogate
 * search, kernels, contact points and merge) on the scene's first frame,
 * repeated, one thread. Each detection's CPU time is printed, then the
 * least over the comparisons of one detection: the least of a few runs in
 * one process is what a shared machine disturbs least (separate mrdem-run
 * processes of 1 and 3 steps varied by 20 % and more between runs). A
 * step adds forces and the integration, under 1 % here (mrdem-run
 * --log-view). Printed, never asserted.
 *
 *   bench_lattice [SCENE [DETECTIONS]]   (default the lattice, 3) */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/narrow/contacts/particle_contacts.h"
#include "common/sim/simulation.h"
#include "common/util/error.h"
#include "common/util/parse.h"
#include "common/util/simd.h"
#include "formats/foreign/scene_yaml.h"

static double cpu_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
	mrdem_set_progname("bench_lattice");
	omp_set_num_threads(1); /* the goal is per thread */
	if (argc > 1 && argv[1][0] == '-') {
		int help = !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help");
		fprintf(help ? stdout : stderr,
			"usage: bench_lattice [SCENE [DETECTIONS]]\n"
			"CPU time per triangle comparison of SCENE's contact detection (default\n"
			"examples/lattice-24576.yaml), the least of DETECTIONS (default 3), one thread\n");
		return help ? 0 : 2;
	}
	const char *path = argc > 1 ? argv[1] : "examples/lattice-24576.yaml";
	int reps = 3;
	if (argc > 2 && mrdem_parse_int("detections", argv[2], 1, 1000, &reps))
		return 1;
	struct mrdem_scene s;
	mrdem_scene_init(&s);
	if (mrdem_scene_load_yaml(path, &s))
		return 1;
	struct mrdem_sim_opts o;
	mrdem_sim_opts_default(&o, &s);
	struct mrdem_sim sim;
	double t0 = cpu_now();
	if (mrdem_sim_init(&sim, &s, &o)) /* builds the surrogate trees */
		return 1;
	printf("%s: %zu particles, one thread, SIMD %s; trees built in %.2f s of CPU\n", path,
	       s.frame.p.n, mrdem_simd_name(mrdem_simd_resolve(MRDEM_SIMD_AUTO)),
	       cpu_now() - t0);
	double least = 1e30;
	uint64_t comparisons = 0;
	printf("  detections, s of CPU:");
	for (int r = 0; r < reps; r++) {
		t0 = cpu_now(); /* each detection's counts replace the last's */
		if (mrdem_sim_detect(&sim))
			return 1;
		double t = cpu_now() - t0;
		least = t < least ? t : least;
		struct mrdem_narrow_counts all = {0};
		mrdem_search_counts_total(&sim.counts.search, &all);
		comparisons = all.comparisons;
		printf(" %.3f", t);
		fflush(stdout);
	}
	printf("\n  %zu pairs, %zu contacts, %.4g triangle comparisons a detection: "
	       "least %.3f s, %.2f ns per comparison\n",
	       sim.pairs.n, sim.contacts.n, (double)comparisons, least,
	       comparisons ? 1e9 * least / (double)comparisons : 0.0);
	mrdem_sim_release(&sim);
	mrdem_scene_release(&s);
	return 0;
}
