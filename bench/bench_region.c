/* What a parallel region costs the tools: a loop of two trivial items on
 * the thread team between a few microseconds of serial work (a step's
 * serial part), against the serial work alone; the tools' default teams and
 * waiting (common/util/threads.h), or what the environment asks for. The
 * narrow phase shares out its pairs only when their work pays for it
 * (MRDEM_PARALLEL_MIN_SECONDS). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "common/util/threads.h"

enum { REPS = 20000, SERIAL = 20000, ROUNDS = 5 };

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + 1e-9 * t.tv_nsec;
}

static volatile double sink;

static void serial_work(void)
{
	double s = 0;
	for (int k = 0; k < SERIAL; k++)
		s += k * 1e-9;
	sink += s;
}

/* Seconds per round of REPS: with a region before the serial work, or not. */
static double rounds(int region)
{
	double t0 = now();
	for (int r = 0; r < REPS; r++) {
		if (region) {
#pragma omp parallel for
			for (int i = 0; i < 2; i++)
				sink += i;
		}
		serial_work();
	}
	return (now() - t0) / REPS;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(void)
{
	mrdem_threads_init();
	double cost[ROUNDS], serial = 0;
	for (int k = 0; k < ROUNDS; k++) {
		double s = rounds(0);
		cost[k] = rounds(1) - s;
		serial += s / ROUNDS;
	}
	qsort(cost, ROUNDS, sizeof *cost, cmp);
	const char *wait = getenv("OMP_WAIT_POLICY"), *spin = getenv("GOMP_SPINCOUNT");
	printf("parallel region on %d threads (OMP_WAIT_POLICY=%s, GOMP_SPINCOUNT=%s) between "
	       "%.0f us of serial work: %.1f us (median of %d rounds of %d; %.1f-%.1f)\n",
	       omp_get_max_threads(), wait ? wait : "unset", spin ? spin : "unset", 1e6 * serial,
	       1e6 * cost[ROUNDS / 2], ROUNDS, REPS, 1e6 * cost[0], 1e6 * cost[ROUNDS - 1]);
	return 0;
}
