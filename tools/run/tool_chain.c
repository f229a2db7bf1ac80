#define _GNU_SOURCE /* F_SETPIPE_SZ */
#include "tools/run/tool_chain.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/util/error.h"

extern char **environ;

/* ---- where the tools run */

/* The tools are beside this program; their files go in a new directory. */
static int locate(struct tool_chain *c, const char *argv0)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0)
		return mrdem_error("--via-pipes: cannot find this program's directory (%s)", argv0);
	self[n] = 0;
	*strrchr(self, '/') = 0;
	snprintf(c->bindir, sizeof c->bindir, "%s", self);
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !*tmp)
		tmp = "/tmp";
	if ((size_t)snprintf(c->tmpdir, sizeof c->tmpdir, "%s/mrdem-run-XXXXXX", tmp) >=
	    sizeof c->tmpdir)
		return c->tmpdir[0] = 0, mrdem_error("--via-pipes: TMPDIR is too long: %s", tmp);
	if (!mkdtemp(c->tmpdir)) {
		int e = errno;
		c->tmpdir[0] = 0;
		return mrdem_error("--via-pipes: cannot create a temporary directory in %s: %s", tmp,
				   strerror(e));
	}
	return 0;
}

/* The tools' environment: this one, with MRDEM_STREAM_LEVEL=0 (their
 * files are read once, by the next tool or this driver, and deflating them
 * took about 10 ms of every step's serial time on the 4,096-sphere
 * lattice). The wait policy comes with it: the tools' passive default is
 * already in this environment unless the user chose one
 * (common/util/threads.c), and a tool spinning at the end of its parallel
 * loop would take a core from the next one (about 35 ms of wall time per
 * step there on two threads, docs/driver.md). */
static void make_env(struct tool_chain *c)
{
	static const char level[] = "MRDEM_STREAM_LEVEL=";
	size_t n = 0, k = 0;
	while (environ[n])
		n++;
	c->env = mrdem_xmalloc((n + 2) * sizeof *c->env);
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], level, sizeof level - 1))
			c->env[k++] = environ[i];
	c->env[k++] = "MRDEM_STREAM_LEVEL=0";
	c->env[k] = NULL;
}

/* The temporary directory is ours and flat: remove every file in it (a
 * killed tool may leave a writer's temporary), then it. */
static void remove_tmpdir(const char *dir)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		char path[PATH_MAX + 256];
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
				snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
				unlink(path);
			}
		closedir(d);
	}
	if (rmdir(dir))
		mrdem_warning("cannot remove %s: %s", dir, strerror(errno));
}

int tool_chain_open(struct tool_chain *c, const char *argv0)
{
	memset(c, 0, sizeof *c);
	if (locate(c, argv0))
		return -1;
	make_env(c);
	return 0;
}

void tool_chain_close(struct tool_chain *c)
{
	if (c->tmpdir[0])
		remove_tmpdir(c->tmpdir);
	c->tmpdir[0] = 0;
	free(c->env);
	c->env = NULL;
}

void tool_chain_path(const struct tool_chain *c, char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", c->tmpdir, name);
}

/* ---- chains of tools */

/* Without a shell: no path needs quoting. */
int tool_spawn(const struct tool_chain *c, char **argv, int in, int out, pid_t *pid)
{
	char path[PATH_MAX + 64];
	snprintf(path, sizeof path, "%s/%s", c->bindir, argv[0]);
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	if (in >= 0)
		posix_spawn_file_actions_adddup2(&fa, in, STDIN_FILENO);
	if (out >= 0)
		posix_spawn_file_actions_adddup2(&fa, out, STDOUT_FILENO);
	/* the tools die of SIGPIPE as usual even while this driver ignores it */
	posix_spawnattr_t at;
	sigset_t def;
	posix_spawnattr_init(&at);
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	posix_spawnattr_setsigdefault(&at, &def);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF);
	int rc = posix_spawn(pid, path, &fa, &at, argv, c->env);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		*pid = -1;
		return mrdem_error("--via-pipes: cannot run %s: %s", path, strerror(rc));
	}
	return 0;
}

int tool_wait(pid_t pid, const char *name)
{
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return mrdem_error("--via-pipes: waiting for %s: %s", name, strerror(errno));
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (WIFEXITED(st))
		return mrdem_error("--via-pipes: %s failed (exit status %d)", name, WEXITSTATUS(st));
	return mrdem_error("--via-pipes: %s was killed by signal %d", name,
			   WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* A pipe between two tools, as large as Linux lets us make it (1 MiB by
 * default): a tool then writes a frame on and goes back to work without
 * waiting for the next one to read it, which on a busy machine costs a
 * context switch per 64 KiB. Elsewhere, or when refused, the default. */
int tool_pipe(int fd[2])
{
	if (pipe(fd))
		return mrdem_error("--via-pipes: cannot make a pipe: %s", strerror(errno));
	fcntl(fd[0], F_SETFD, FD_CLOEXEC);
	fcntl(fd[1], F_SETFD, FD_CLOEXEC);
#ifdef F_SETPIPE_SZ
	fcntl(fd[1], F_SETPIPE_SZ, 1 << 20);
#endif
	return 0;
}

int tools_start(const struct tool_chain *c, char **tool[], int n, int out, pid_t pid[])
{
	int fd[TOOL_CHAIN_MAX - 1][2];
	int rc = 0, made = 0;
	for (; made < n - 1; made++)
		if (tool_pipe(fd[made])) {
			rc = -1;
			break;
		}
	for (int k = 0; k < n; k++) {
		pid[k] = -1;
		if (!rc && tool_spawn(c, tool[k], k ? fd[k - 1][0] : -1, k < n - 1 ? fd[k][1] : out,
				 &pid[k]))
			rc = -1;
	}
	for (int k = 0; k < made; k++) {
		close(fd[k][0]);
		close(fd[k][1]);
	}
	return rc;
}

int tools_wait(char **tool[], int n, const pid_t pid[])
{
	int rc = 0;
	for (int k = 0; k < n; k++)
		if (pid[k] > 0 && tool_wait(pid[k], tool[k][0]))
			rc = -1;
	return rc;
}

int tools_run(const struct tool_chain *c, char **tool[], int n)
{
	pid_t pid[TOOL_CHAIN_MAX];
	int rc = tools_start(c, tool, n, -1, pid);
	return tools_wait(tool, n, pid) || rc ? -1 : 0;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		p += k, n -= (size_t)k;
	}
	return 0;
}

int tool_pump(int in, const char *from, const char *path, int tee)
{
	int out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (out < 0)
		return mrdem_error("--via-pipes: cannot create %s: %s", path, strerror(errno));
	/* a tee reader that stops early must not take this driver with it */
	struct sigaction ign, old;
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old);
	static char buf[1 << 16];
	int rc = 0;
	for (;;) {
		ssize_t n = read(in, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = mrdem_error("--via-pipes: reading %s: %s", from, strerror(errno));
			break;
		}
		if (n == 0)
			break;
		if (write_all(out, buf, (size_t)n)) {
			rc = mrdem_error("--via-pipes: writing %s: %s", path, strerror(errno));
			break;
		}
		if (tee >= 0 && write_all(tee, buf, (size_t)n))
			tee = -1;
	}
	sigaction(SIGPIPE, &old, NULL);
	if (close(out) && !rc)
		rc = mrdem_error("--via-pipes: writing %s: %s", path, strerror(errno));
	return rc;
}
