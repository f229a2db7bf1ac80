/* All-or-nothing output files (temporary + rename). */
#include "formats/stream/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util/error.h"

int mrdem_output_fd(const char *path, char **tmp)
{
	struct stat st;
	*tmp = NULL;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode))
			return mrdem_error("%s: is a directory", path);
		int fd = open(path, O_WRONLY);
		if (fd < 0)
			return mrdem_error("%s: cannot open: %s", path, strerror(errno));
		return fd;
	}
	size_t n = strlen(path) + 64;
	*tmp = mrdem_xmalloc(n);
	for (int k = 0; k < 100; k++) {
		snprintf(*tmp, n, "%s.tmp.%ld.%d", path, (long)getpid(), k);
		int fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST) {
			/* the path given: the temporary beside it is ours */
			mrdem_error("%s: cannot create: %s", path, strerror(errno));
			break;
		}
	}
	free(*tmp);
	*tmp = NULL;
	return -1;
}

int mrdem_outfile_open(struct mrdem_outfile *o, const char *path, int binary)
{
	memset(o, 0, sizeof *o);
	if (!path || !strcmp(path, "-")) {
		if (binary && isatty(1))
			return mrdem_error("refusing to write a binary file to a terminal "
					   "(redirect standard output or use -o FILE)");
		o->f = stdout;
		return 0;
	}
	int fd = mrdem_output_fd(path, &o->tmp);
	if (fd < 0)
		return -1;
	o->path = mrdem_xstrdup(path);
	if (!(o->f = fdopen(fd, "wb"))) {
		mrdem_error("%s: %s", path, strerror(errno));
		close(fd);
		if (o->tmp)
			unlink(o->tmp);
		free(o->tmp);
		free(o->path);
		memset(o, 0, sizeof *o);
		return -1;
	}
	return 0;
}

int mrdem_outfile_commit(struct mrdem_outfile *o)
{
	const char *what = o->path ? o->path : "standard output";
	int rc = 0;
	if (fflush(o->f) || ferror(o->f))
		rc = mrdem_error("%s: write error: %s", what, strerror(errno));
	if (o->f != stdout) {
		if (fclose(o->f) && !rc)
			rc = mrdem_error("%s: write error: %s", what, strerror(errno));
		o->f = NULL;
	}
	if (o->tmp) {
		if (!rc && rename(o->tmp, o->path))
			rc = mrdem_error("%s: cannot rename %s into place: %s", o->path, o->tmp,
					 strerror(errno));
		if (rc)
			unlink(o->tmp);
	}
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof *o);
	return rc;
}

void mrdem_outfile_abort(struct mrdem_outfile *o)
{
	if (o->f == stdout)
		fflush(o->f);
	else if (o->f)
		fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof *o);
}
