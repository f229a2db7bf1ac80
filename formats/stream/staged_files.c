#include "formats/stream/staged_files.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util/error.h"

static char *path_in(const char *dir, const char *name)
{
	size_t len = strlen(dir) + strlen(name) + 2;
	char *p = mrdem_xmalloc(len);
	snprintf(p, len, "%s/%s", dir, name);
	return p;
}

int mrdem_staged_files_open(struct mrdem_staged_files *s, const char *dir)
{
	memset(s, 0, sizeof *s);
	s->dir = mrdem_xstrdup(dir);
	char *p = mrdem_xstrdup(dir);
	int ret = 0;
	for (char *q = p + 1;; q++) {
		if (*q != '/' && *q != '\0')
			continue;
		char c = *q;
		*q = '\0';
		struct stat st;
		if (mkdir(p, 0777) == 0) {
			s->made = mrdem_xrealloc(s->made, (s->nmade + 1) * sizeof *s->made);
			s->made[s->nmade++] = mrdem_xstrdup(p);
		} else if (errno != EEXIST) {
			ret = mrdem_error("%s: cannot create directory: %s", p, strerror(errno));
		}
		if (!ret && (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)))
			ret = mrdem_error("%s: not a directory", p);
		*q = c;
		if (ret || c == '\0')
			break;
	}
	free(p);
	if (ret)
		mrdem_staged_files_abort(s);
	return ret;
}

char *mrdem_staged_files_path(const struct mrdem_staged_files *s, const char *name)
{
	char staged[128];
	snprintf(staged, sizeof staged, ".%s.%ld.staged", name, (long)getpid());
	return path_in(s->dir, staged);
}

char *mrdem_staged_files_final_path(const struct mrdem_staged_files *s, const char *name)
{
	return path_in(s->dir, name);
}

void mrdem_staged_files_add(struct mrdem_staged_files *s, const char *name)
{
	s->names = mrdem_xrealloc(s->names, (s->n + 1) * sizeof *s->names);
	s->names[s->n++] = mrdem_xstrdup(name);
}

int mrdem_staged_files_publish(struct mrdem_staged_files *s)
{
	int ret = 0;
	for (size_t k = 0; k < s->n && !ret; k++) {
		char *staged = mrdem_staged_files_path(s, s->names[k]);
		char *path = path_in(s->dir, s->names[k]);
		if (rename(staged, path))
			ret = mrdem_error("%s: cannot rename %s into place: %s", path, staged,
					  strerror(errno));
		free(staged);
		free(path);
	}
	return ret;
}

void mrdem_staged_files_abort(struct mrdem_staged_files *s)
{
	for (size_t k = 0; k < s->n; k++) {
		char *staged = mrdem_staged_files_path(s, s->names[k]);
		unlink(staged);
		free(staged);
	}
	for (size_t k = s->nmade; k-- > 0;)
		rmdir(s->made[k]);
}

int mrdem_staged_files_remove_stale(const struct mrdem_staged_files *s,
				    int (*stale)(const char *name, void *ctx), void *ctx)
{
	DIR *d = opendir(s->dir);
	if (!d)
		return mrdem_error("%s: cannot read the directory to remove the earlier series' "
				   "files: %s", s->dir, strerror(errno));
	int ret = 0;
	struct dirent *e;
	errno = 0;
	while ((e = readdir(d))) {
		char *path = stale(e->d_name, ctx) ? path_in(s->dir, e->d_name) : NULL;
		if (path && unlink(path) && errno != ENOENT)
			ret = mrdem_error("%s: cannot remove this file of an earlier series: %s", path,
					  strerror(errno));
		free(path);
		errno = 0;
	}
	if (errno)
		ret = mrdem_error("%s: cannot read the directory: %s", s->dir, strerror(errno));
	closedir(d);
	return ret;
}

void mrdem_staged_files_release(struct mrdem_staged_files *s)
{
	for (size_t k = 0; k < s->n; k++)
		free(s->names[k]);
	for (size_t k = 0; k < s->nmade; k++)
		free(s->made[k]);
	free(s->names);
	free(s->made);
	free(s->dir);
	memset(s, 0, sizeof *s);
}
