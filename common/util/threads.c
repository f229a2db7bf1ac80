#include "common/util/threads.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char passive[] = "OMP_WAIT_POLICY=passive";

static int user_chose_wait(char **envp)
{
	for (; envp && *envp; envp++)
		if (!strncmp(*envp, "OMP_WAIT_POLICY=", 16) || !strncmp(*envp, "GOMP_SPINCOUNT=", 15))
			return 1;
	return 0;
}

#ifdef __linux__
/* libgomp reads the wait policy once, in a constructor that runs before
 * main, and libc's own initialiser (which runs before libgomp's) resets
 * the environment to the one the process started with: a setenv even in
 * the program's .preinit_array, the earliest code it runs, is lost. So
 * the process starts itself again with the policy added, before any
 * library is initialised (about 2.5 ms; children inherit the policy and
 * do not repeat it). If that fails the run goes on spinning. */
static void preinit_wait_policy(int argc, char **argv, char **envp)
{
	(void)argc;
	if (user_chose_wait(envp))
		return;
	size_t n = 0;
	while (envp && envp[n])
		n++;
	char **env = malloc((n + 2) * sizeof *env);
	if (!env)
		return;
	if (n)
		memcpy(env, envp, n * sizeof *env);
	env[n] = (char *)passive;
	env[n + 1] = NULL;
	execve("/proc/self/exe", argv, env);
	free(env);
}

__attribute__((section(".preinit_array"), used))
static void (*const mrdem_preinit_wait_policy)(int, char **, char **) = preinit_wait_policy;
#endif

/* Runtimes that read the environment at the first OpenMP call (LLVM's
 * libomp) see the policy set here; with libgomp it only tells children. */
void mrdem_threads_init(void)
{
	extern char **environ;
	if (!user_chose_wait(environ))
		putenv((char *)passive);
}
