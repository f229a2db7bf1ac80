/* Allocation of the arrays that grow with the problem (common/util/error.h):
 * a failure names the structure, the count and the bytes it asked for, and
 * the tool exits with status 1. Each request runs in a child process, since
 * the failure ends the process. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/scene/contacts.h"
#include "common/util/error.h"
#include "tests/lib/tap.h"

/* Under AddressSanitizer (make asan) an impossible request returns NULL, as
 * malloc's does, instead of aborting in the sanitizer (with a warning). */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

/* Run mrdem_xmalloc_for(n, size, what) in a child: its exit status and
 * standard error into err. */
static int alloc_in_child(size_t n, size_t size, const char *what, char *err, size_t cap)
{
	int fd[2];
	if (pipe(fd))
		return -1;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fd[1], STDERR_FILENO);
		close(fd[0]);
		mrdem_set_progname("test_alloc");
		free(mrdem_xmalloc_for(n, size, what));
		_exit(0);
	}
	close(fd[1]);
	size_t got = 0;
	ssize_t r;
	while (got + 1 < cap && (r = read(fd[0], err + got, cap - 1 - got)) > 0)
		got += (size_t)r;
	err[got] = 0;
	close(fd[0]);
	int status;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(void)
{
	char err[512], want[256];
	/* 2^50 contacts of 88 bytes: no address space holds them */
	size_t n = (size_t)1 << 50;
	int rc = alloc_in_child(n, sizeof(struct mrdem_contact), "contacts", err, sizeof err);
	snprintf(want, sizeof want, "test_alloc: error: out of memory allocating %zu bytes for "
		 "%zu contacts of %zu bytes\n", n * sizeof(struct mrdem_contact), n,
		 sizeof(struct mrdem_contact));
	/* (AddressSanitizer warns before it on the same stream) */
	if (!tap_ok(rc == 1 && strstr(err, want), "a failed allocation names what and how many"))
		tap_diag("exit status %d, standard error: %s", rc, err);
	rc = alloc_in_child(SIZE_MAX / 8, 16, "pairs", err, sizeof err);
	snprintf(want, sizeof want, "test_alloc: error: %zu pairs of 16 bytes overflow the "
		 "address space\n", SIZE_MAX / 8);
	if (!tap_ok(rc == 1 && !strcmp(err, want), "a count whose bytes overflow says so"))
		tap_diag("exit status %d, standard error: %s", rc, err);
	rc = alloc_in_child(1000, 88, "contacts", err, sizeof err);
	tap_ok(rc == 0 && !err[0], "a request that fits succeeds silently");
	void *p = mrdem_xrealloc_for(NULL, 0, 88, "contacts");
	tap_ok(p != NULL, "zero elements still give a pointer to free");
	free(p);
	return tap_done();
}
