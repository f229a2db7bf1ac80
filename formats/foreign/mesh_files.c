/* Mesh file formats by name and extension; meshes (and their stored
 * trees) from mrdem streams; loading any supported mesh file. */
#include "formats/foreign/mesh_files.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/mesh/mesh_weld.h"
#include "common/util/error.h"
#include "common/tree/tree.h"
#include "formats/stream/record_tree.h"
#include "formats/stream/records.h"
#include "formats/stream/stream.h"

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

/* The tree record right after the mesh record of shape `id` (mrdem-tree
 * puts it there), or *tree = NULL when the next record is something else. */
static int read_tree_after(struct mrdem_reader *r, uint32_t id, const char *name,
			   struct mrdem_tree **tree)
{
	struct mrdem_record rec;
	uint32_t tid;
	*tree = NULL;
	int rc = mrdem_reader_next(r, &rec);
	if (rc <= 0 || rec.type != MRDEM_REC_TREE)
		return rc < 0 ? -1 : 0;
	if (mrdem_decode_tree(&rec, r->name, &tid, tree))
		return -1;
	if (tid != id) {
		mrdem_tree_free(*tree);
		*tree = NULL;
		return mrdem_record_error(&rec, r->name, "tree of shape %u right after the mesh of "
					  "shape %u '%s' (a tree follows its own mesh)", tid, id,
					  name);
	}
	return 0;
}

static int read_stream(const char *path, const char *shape, struct mrdem_mesh *m, char **name,
		       struct mrdem_tree **tree)
{
	struct mrdem_reader r;
	if (tree)
		*tree = NULL;
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
		if (tree && read_tree_after(&r, id, nm, tree)) {
			free(nm);
			mrdem_mesh_release(&mm);
			rc = -1;
			break;
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

int mrdem_mesh_read_stream(const char *path, const char *shape, struct mrdem_mesh *m,
			   char **name)
{
	return read_stream(path, shape, m, name, NULL);
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

/* A stored tree must belong to exactly this mesh: say which part differs. */
static int bind_stored_tree(struct mrdem_tree *t, const struct mrdem_mesh *m, const char *what)
{
	if (t->ntris != m->ntris)
		return mrdem_error("%s: the tree covers %u triangles but the mesh has %u (rebuild "
				   "it: mrdem-tree --rebuild)", what, t->ntris, m->ntris);
	uint64_t h = mrdem_mesh_fingerprint(m);
	if (t->mesh_hash != h)
		return mrdem_error("%s: the tree was built for another mesh (mesh fingerprint "
				   "%016llx in the tree, %016llx of the mesh; rebuild it: "
				   "mrdem-tree --rebuild)", what, (unsigned long long)t->mesh_hash,
				   (unsigned long long)h);
	return mrdem_tree_bind(t, m, what);
}

int mrdem_shape_load(const char *path, const char *shape, unsigned flags, struct mrdem_mesh *m,
		     char **name, struct mrdem_tree **tree)
{
	const char *what = !path || !strcmp(path, "-") ? "<stdin>" : path;
	enum mrdem_mesh_format format = mrdem_mesh_format_by_extension(path);
	*name = NULL;
	*tree = NULL;
	if (format == MRDEM_MESH_FORMAT_UNKNOWN && path && strcmp(path, "-") && looks_like_stream(path))
		format = MRDEM_MESH_FORMAT_STREAM;
	if (shape && format != MRDEM_MESH_FORMAT_STREAM)
		return mrdem_error("%s: a shape can be picked by name from an mrdem stream only",
				   what);
	if (format != MRDEM_MESH_FORMAT_STREAM)
		return mrdem_mesh_load(path, format, flags, 0, m);
	if (read_stream(path, shape, m, name, tree))
		return -1;
	/* validation may re-orient a mesh, so the tree is bound after it */
	if (mrdem_mesh_validate(m, flags, what))
		goto fail;
	if (*tree) {
		size_t n = strlen(what) + strlen(*name) + 64;
		char *twhat = mrdem_xmalloc(n);
		snprintf(twhat, n, "%s: tree record of shape '%s'", what, *name);
		int rc = bind_stored_tree(*tree, m, twhat);
		free(twhat);
		if (rc)
			goto fail;
	}
	return 0;
fail:
	mrdem_tree_free(*tree);
	*tree = NULL;
	free(*name);
	*name = NULL;
	mrdem_mesh_release(m);
	return -1;
}

int mrdem_mesh_load(const char *path, enum mrdem_mesh_format format, unsigned flags,
		    double weld, struct mrdem_mesh *m)
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
	if ((weld > 0 && mrdem_mesh_weld(m, weld, NULL, NULL)) || mrdem_mesh_validate(m, flags, what)) {
		mrdem_mesh_release(m);
		return -1;
	}
	return 0;
}
