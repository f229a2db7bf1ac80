/* A series of files written into a directory all or nothing
 * (formats/stream/staged_files.h): staged files appear only when
 * published, an abort leaves nothing the series made, and only the files
 * named stale of an earlier series are removed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util/error.h"
#include "formats/stream/staged_files.h"
#include "tests/lib/tap.h"

static char root[64];

static int exists(const char *dir, const char *name)
{
	char p[256];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	return access(p, F_OK) == 0;
}

static void stage(struct mrdem_staged_files *s, const char *name)
{
	char *path = mrdem_staged_files_path(s, name);
	FILE *f = fopen(path, "w");
	if (f)
		fclose(f);
	mrdem_staged_files_add(s, name);
	free(path);
}

static void test_publish(void)
{
	char dir[128];
	snprintf(dir, sizeof dir, "%s/a/b", root);
	struct mrdem_staged_files s;
	tap_ok(mrdem_staged_files_open(&s, dir) == 0 && s.nmade == 2, "open makes a/ and a/b/");
	stage(&s, "one.vtp");
	stage(&s, "two.vtp");
	tap_ok(!exists(dir, "one.vtp") && !exists(dir, "two.vtp"), "staged files wait apart");
	tap_ok(mrdem_staged_files_publish(&s) == 0 && exists(dir, "one.vtp") &&
		       exists(dir, "two.vtp"),
	       "publish puts every staged file in place");
	char *final = mrdem_staged_files_final_path(&s, "one.vtp");
	char want[160];
	snprintf(want, sizeof want, "%s/one.vtp", dir);
	tap_ok(!strcmp(final, want), "final path: %s", final);
	free(final);
	mrdem_staged_files_release(&s);
}

static int named_old(const char *name, void *ctx)
{
	(void)ctx;
	return !strncmp(name, "old", 3);
}

static void test_stale_and_abort(void)
{
	char dir[128], sub[160];
	snprintf(dir, sizeof dir, "%s/a/b", root);
	struct mrdem_staged_files s;
	mrdem_staged_files_open(&s, dir);
	tap_ok(s.nmade == 0, "an existing directory is not made again");
	stage(&s, "old-1.vtp");
	mrdem_staged_files_publish(&s);
	stage(&s, "three.vtp");
	mrdem_staged_files_abort(&s);
	tap_ok(exists(dir, "one.vtp") && !exists(dir, "three.vtp"),
	       "abort removes the staged files only, in a directory it did not make");
	tap_ok(mrdem_staged_files_remove_stale(&s, named_old, NULL) == 0 &&
		       !exists(dir, "old-1.vtp") && exists(dir, "one.vtp"),
	       "remove_stale removes the files named stale, nothing else");
	mrdem_staged_files_release(&s);
	snprintf(sub, sizeof sub, "%s/c/d", root);
	mrdem_staged_files_open(&s, sub);
	stage(&s, "x.vtp");
	mrdem_staged_files_abort(&s);
	tap_ok(!exists(root, "c"), "abort removes the directories it made");
	mrdem_staged_files_release(&s);
	snprintf(sub, sizeof sub, "%s/a/b/one.vtp/e", root);
	tap_capture_begin();
	int rc = mrdem_staged_files_open(&s, sub);
	const char *err = tap_capture_end();
	tap_ok(rc == -1 && strstr(err, "not a directory"), "a file in the way: %s", err);
	mrdem_staged_files_release(&s);
}

int main(void)
{
	mrdem_set_progname("test_staged_files");
	snprintf(root, sizeof root, "/tmp/mrdem-staged-XXXXXX");
	if (!mkdtemp(root))
		return tap_ok(0, "mkdtemp"), tap_done();
	test_publish();
	test_stale_and_abort();
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	if (system(cmd))
		tap_diag("could not remove %s", root);
	return tap_done();
}
