/* A series of plain files written into a directory all or nothing (the VTK
 * series of mrdem-vtk): each file is written under a staged name in the
 * directory, and all are renamed into place together once the series is
 * complete. Renaming each file over its old copy at once would leave, on a
 * later error, a directory of which no run's series is whole (or nothing
 * of the last). On failure the staged files and the directories made for
 * them are removed. Errors are reported (mrdem_error) and returned as -1. */
#ifndef MRDEM_FORMATS_STAGED_FILES_H
#define MRDEM_FORMATS_STAGED_FILES_H

#include <stddef.h>

struct mrdem_staged_files {
	char *dir;
	char **names;  /* files staged so far */
	size_t n;
	char **made;   /* directories made for the series, outermost first */
	size_t nmade;
};

/* Make dir and its parents where missing (mkdir -p), remembering what was
 * made. On an error what was made is removed again; release s either way. */
int mrdem_staged_files_open(struct mrdem_staged_files *s, const char *dir);
/* Where file name is written until the series is published, and where it
 * goes then (both newly allocated). */
char *mrdem_staged_files_path(const struct mrdem_staged_files *s, const char *name);
char *mrdem_staged_files_final_path(const struct mrdem_staged_files *s, const char *name);
/* Name is staged (written to its staged path): published or removed at
 * the end. */
void mrdem_staged_files_add(struct mrdem_staged_files *s, const char *name);
/* The series is complete: every staged file into place, in the order
 * added. */
int mrdem_staged_files_publish(struct mrdem_staged_files *s);
/* Nothing of the series may remain: its staged files, then the
 * directories made for it, innermost first. */
void mrdem_staged_files_abort(struct mrdem_staged_files *s);
/* After publishing: remove every file in the directory that stale(name,
 * ctx) says belongs to an earlier series and not to this one. */
int mrdem_staged_files_remove_stale(const struct mrdem_staged_files *s,
				    int (*stale)(const char *name, void *ctx), void *ctx);
void mrdem_staged_files_release(struct mrdem_staged_files *s);

#endif
