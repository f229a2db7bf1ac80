/* Triangle mesh files: Wavefront OBJ and STL (ASCII and binary) import
 * and export, and reading shapes back from a mesh stream.
 *
 * Importers return the raw mesh (STL's triangle soup welded at exactly
 * equal coordinates); the caller runs mrdem_mesh_validate on it. Errors
 * name the file and, for text formats, the line. Exporters write through a
 * temporary file renamed into place, so a failed write leaves nothing. */
#ifndef MRDEM_FORMATS_MESH_FILES_H
#define MRDEM_FORMATS_MESH_FILES_H

#include "common/mesh/mesh.h"

enum mrdem_mesh_format {
	MRDEM_MESH_FORMAT_UNKNOWN = -1,
	MRDEM_MESH_FORMAT_OBJ = 0,
	MRDEM_MESH_FORMAT_STL = 1,       /* binary STL on output; either on input */
	MRDEM_MESH_FORMAT_STL_ASCII = 2,
	MRDEM_MESH_FORMAT_STREAM = 3,    /* an mrdem stream of mesh records */
};

/* Format named on a command line ("obj", "stl", "stl-ascii", "stream"). */
enum mrdem_mesh_format mrdem_mesh_format_by_name(const char *name);
/* Format from a file's extension (.obj, .stl, .mrd; any case). */
enum mrdem_mesh_format mrdem_mesh_format_by_extension(const char *path);

/* path "-" or NULL: standard input. */
int mrdem_mesh_read_obj(const char *path, struct mrdem_mesh *m);
int mrdem_mesh_read_stl(const char *path, struct mrdem_mesh *m);

/* name goes into the file's object/solid name. path "-" or NULL: standard
 * output (binary STL is refused on a terminal). */
int mrdem_mesh_write_obj(const char *path, const char *name, const struct mrdem_mesh *m);
int mrdem_mesh_write_stl(const char *path, const char *name, const struct mrdem_mesh *m,
			 int ascii);

/* Read the mesh record of shape `shape` (NULL: the first one) from the
 * mrdem stream at path. On success *name is the shape's name (malloc'd). */
int mrdem_mesh_read_stream(const char *path, const char *shape, struct mrdem_mesh *m,
			   char **name);

/* Load a mesh from an OBJ, STL or mesh-stream file, by extension, else by
 * content (gzip magic: a stream), weld vertices closer than weld when
 * weld > 0 (mrdem_mesh_weld) and validate it (flags as for
 * mrdem_mesh_validate). For mrdem-init and mrdem-mesh import. */
int mrdem_mesh_load(const char *path, enum mrdem_mesh_format format, unsigned flags,
		    double weld, struct mrdem_mesh *m);

struct mrdem_tree;

/* A scene shape from a file: as mrdem_mesh_load, or, from an mrdem stream,
 * the mesh record of shape `shape` (NULL: the first) with *name its name
 * there (malloc'd; NULL for other files). When the stream holds a tree
 * record right after that mesh (mrdem-tree output), the tree comes back in
 * *tree bound to the validated mesh, so nothing rebuilds it; else *tree is
 * NULL. A tree that does not fit the mesh is an error naming the file, the
 * shape and what differs. */
int mrdem_shape_load(const char *path, const char *shape, unsigned flags, struct mrdem_mesh *m,
		     char **name, struct mrdem_tree **tree);

#endif
