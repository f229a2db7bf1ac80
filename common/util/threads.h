/* Thread teams of the tools (OpenMP). */
#ifndef MRDEM_UTIL_THREADS_H
#define MRDEM_UTIL_THREADS_H

/* Unless OMP_DYNAMIC says otherwise, let OpenMP size each team to the
 * cores not already busy (libgomp reads the load average): on a shared,
 * loaded machine a second thread that does not get a core stalls every
 * barrier and burns CPU spinning (measured in docs/driver.md, "Threads").
 * Results never depend on the team size. Every tool's main calls it. */
void mrdem_threads_init(void);

#endif
