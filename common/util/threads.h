/* Thread teams of the tools (OpenMP). */
#ifndef MRDEM_UTIL_THREADS_H
#define MRDEM_UTIL_THREADS_H

#include <stddef.h>

/* Unless OMP_DYNAMIC says otherwise, let OpenMP size each team to the
 * cores not already busy (libgomp reads the load average): on a shared,
 * loaded machine a second thread that does not get a core stalls every
 * barrier and burns CPU spinning (measured in docs/driver.md, "Threads").
 * Results never depend on the team size. Every tool's main calls it. */
void mrdem_threads_init(void);

/* Below this many items of per-particle or per-patch work (a few hundred
 * flops each) a loop stays on the calling thread: the team's barrier
 * costs more than the work. Contact records are cheaper, so their loops
 * wait for four times as many. */
#define MRDEM_PARALLEL_MIN 1024
#define MRDEM_PARALLEL_MIN_RECORDS (4 * MRDEM_PARALLEL_MIN)

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
