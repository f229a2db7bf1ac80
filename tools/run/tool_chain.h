/* Running mrdem's tools as child processes, for mrdem-run --via-pipes:
 * where they are, their environment and scratch directory, chains of them
 * joined by pipes, and the tee of a pipe into a file. Errors are reported
 * (mrdem_error, prefixed "--via-pipes") and returned as -1. */
#ifndef MRDEM_TOOLS_RUN_TOOL_CHAIN_H
#define MRDEM_TOOLS_RUN_TOOL_CHAIN_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

/* The longest chain started at once (mrdem-pairs | mrdem-contact | mrdem-step). */
#define TOOL_CHAIN_MAX 3

struct tool_chain {
	char bindir[PATH_MAX]; /* the tools: beside this program */
	char tmpdir[PATH_MAX]; /* their files, ours alone ("" when none) */
	char **env;            /* their environment */
};

/* Find the tools beside this program, make a scratch directory in $TMPDIR
 * (or /tmp) and the tools' environment. */
int tool_chain_open(struct tool_chain *c, const char *argv0);
/* Remove the scratch directory and everything in it. */
void tool_chain_close(struct tool_chain *c);
/* buf = the scratch directory's file name. */
void tool_chain_path(const struct tool_chain *c, char *buf, size_t size, const char *name);

/* A pipe whose ends the children get only as their 0 or 1 (close-on-exec). */
int tool_pipe(int fd[2]);
/* Start bindir/argv[0] with standard input from fd in and standard output
 * to fd out (-1: inherited), without a shell. */
int tool_spawn(const struct tool_chain *c, char **argv, int in, int out, pid_t *pid);
/* Wait for one tool; an exit status other than 0 is an error naming it. */
int tool_wait(pid_t pid, const char *name);
/* Start tool[0] | tool[1] | ... (n of them), the last one's standard
 * output to fd out (-1: inherited); pid[k] > 0 for each one started. */
int tools_start(const struct tool_chain *c, char **tool[], int n, int out, pid_t pid[]);
/* Wait for every tool started, even after a failure. */
int tools_wait(char **tool[], int n, const pid_t pid[]);
/* Run tool[0] | tool[1] | ... (n of them) and wait for all. */
int tools_run(const struct tool_chain *c, char **tool[], int n);
/* Copy everything from fd in (the output of `from`) to the file path and
 * to fd tee (-1: none), until the end of in. A tee reader that goes away
 * early gets nothing more (its exit status says why; SIGPIPE is ignored
 * meanwhile); the file still gets everything. */
int tool_pump(int in, const char *from, const char *path, int tee);

#endif
