/* Thread teams of the tools (OpenMP). */
#ifndef MRDEM_UTIL_THREADS_H
#define MRDEM_UTIL_THREADS_H

#include <stddef.h>

/* Fixed teams of OMP_NUM_THREADS threads (all cores when unset), whatever
 * the load average, as LAMMPS and LIGGGHTS run: OpenMP's dynamic teams
 * (OMP_DYNAMIC=true) size them from the load average, and on a machine
 * whose previous minute was this run's own work that is one thread.
 * Idle threads sleep instead of spinning (OMP_WAIT_POLICY=passive) unless
 * the user set OMP_WAIT_POLICY or GOMP_SPINCOUNT: a thread spinning
 * between small loops burns a core that another process, or the next
 * tool of a pipeline, needs (docs/driver.md, "Threads"). The policy is
 * set in the environment, so child processes share it. Results never
 * depend on the team size. Every tool's main calls it first. */
void mrdem_threads_init(void);

/* Below this many items of per-particle or per-patch work (a few hundred
 * flops each) a loop stays on the calling thread: the team's barrier
 * costs more than the work. Contact records are cheaper, so their loops
 * wait for four times as many. */
#define MRDEM_PARALLEL_MIN 1024
#define MRDEM_PARALLEL_MIN_RECORDS (4 * MRDEM_PARALLEL_MIN)

/* Work of uneven items (the narrow phase's pairs) shared out only when it
 * takes this long on one thread: a parallel region wakes the sleeping
 * threads (passive waiting) and ends in a barrier, about 25 us here
 * (docs/driver.md, "Threads"), so it pays from twice that, with margin. */
#define MRDEM_PARALLEL_MIN_SECONDS 100e-6

/* for (size_t I = 0; I < N; I++) { ... } on the thread team (static
 * schedule) when N > MIN, else on the calling thread without entering
 * OpenMP: a parallel region, even of one thread (an if clause that is
 * false), ends in a barrier whose wake-up is a futex system call, about
 * 1 us here, and an implicit Picard iteration runs several regions of a
 * few particles each. The iterations must be independent: the result is
 * the same either way. */
#define MRDEM_FOR_PARALLEL_IF(MIN, I, N, ...)                                   \
	do {                                                                    \
		size_t mrdem_for_n_ = (N);                                      \
		if (mrdem_for_n_ > (MIN)) {                                     \
			_Pragma("omp parallel for schedule(static)")            \
			for (size_t I = 0; I < mrdem_for_n_; I++) {             \
				__VA_ARGS__                                     \
			}                                                       \
		} else {                                                        \
			for (size_t I = 0; I < mrdem_for_n_; I++) {             \
				__VA_ARGS__                                     \
			}                                                       \
		}                                                               \
	} while (0)

#endif
