/* Mesh file formats by name and extension; meshes from mrdem streams;
 * loading any supported mesh file. */
#include "formats/mesh_files.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/util/error.h"
#include "formats/records.h"
#include "formats/stream.h"

enum mrdem_mesh_format mrdem_mesh_format_by_name(const char *name)
{
	if (!strcmp(name, "obj"))
		return MRDEM_MESH_FORMAT_OBJ;
	if (!strcmp(name, "stl"))
		return MRDEM_MESH_FORMAT_STL;
	if (!strcmp(name, "stl-ascii"))
		return MRDEM_MESH_FORMAT_STL_ASCII;
	if (!strcmp(name, "stream"))
		return MRDEM_MESH_FORMAT_STREAM;
	return MRDEM_MESH_FORMAT_UNKNOWN;
}

enum mrdem_mesh_format mrdem_mesh_format_by_extension(const char *path)
{
	const char *dot = path ? strrchr(path, '.') : NULL;
	if (!dot || strchr(dot, '/'))
		return MRDEM_MESH_FORMAT_UNKNOWN;
	if (!strcasecmp(dot, ".obj"))
		return MRDEM_MESH_FORMAT_OBJ;
	if (!strcasecmp(dot, ".stl"))
		return MRDEM_MESH_FORMAT_STL;
	if (!strcasecmp(dot, ".mrd"))
		return MRDEM_MESH_FORMAT_STREAM;
	return MRDEM_MESH_FORMAT_UNKNOWN;
}

int mrdem_mesh_read_stream(const char *path, const char *shape, struct mrdem_mesh *m,
			   char **name)
{
	struct mrdem_reader r;
	if (mrdem_reader_open(&r, path, 0))
		return -1;
	struct mrdem_record rec;
	int rc, found = 0;
	while (!found && (rc = mrdem_reader_next(&r, &rec)) == 1) {
		if (rec.type != MRDEM_REC_MESH)
			continue;
		uint32_t id;
		char *nm;
		struct mrdem_mesh mm;
		if (mrdem_decode_mesh(&rec, r.name, &id, &nm, &mm)) {
			rc = -1;
			break;
		}
		if (shape && strcmp(nm, shape)) {
			free(nm);
			mrdem_mesh_release(&mm);
			continue;
		}
		mrdem_mesh_release(m);
		*m = mm;
		*name = nm;
		found = 1;
	}
	if (!found && rc == 0) {
		if (shape)
			mrdem_error("%s: no shape named '%s'", r.name, shape);
		else
			mrdem_error("%s: no mesh record in the stream", r.name);
	}
	mrdem_reader_close(&r);
	return found ? 0 : -1;
}

/* Stream files start with the gzip magic. */
static int looks_like_stream(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	unsigned char b[2] = { 0, 0 };
	size_t n = fread(b, 1, 2, f);
	fclose(f);
	return n == 2 && b[0] == 0x1f && b[1] == 0x8b;
}

int mrdem_mesh_load(const char *path, enum mrdem_mesh_format format, unsigned flags,
		    struct mrdem_mesh *m)
{
	const char *what = !path || !strcmp(path, "-") ? "<stdin>" : path;
	if (format == MRDEM_MESH_FORMAT_UNKNOWN)
		format = mrdem_mesh_format_by_extension(path);
	if (format == MRDEM_MESH_FORMAT_UNKNOWN && path && strcmp(path, "-") && looks_like_stream(path))
		format = MRDEM_MESH_FORMAT_STREAM;
	int rc;
	switch (format) {
	case MRDEM_MESH_FORMAT_OBJ:
		rc = mrdem_mesh_read_obj(path, m);
		break;
	case MRDEM_MESH_FORMAT_STL:
	case MRDEM_MESH_FORMAT_STL_ASCII:
		rc = mrdem_mesh_read_stl(path, m);
		break;
	case MRDEM_MESH_FORMAT_STREAM: {
		char *name = NULL;
		rc = mrdem_mesh_read_stream(path, NULL, m, &name);
		free(name);
		break;
	}
	default:
		return mrdem_error("%s: unknown mesh format: expected a .obj or .stl file or an "
				   "mrdem mesh stream",
				   what);
	}
	if (rc)
		return -1;
	if (mrdem_mesh_validate(m, flags, what)) {
		mrdem_mesh_release(m);
		return -1;
	}
	return 0;
}
