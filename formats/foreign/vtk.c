#include "formats/foreign/vtk.h"

#include <math.h>
#include <zlib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/quat.h"
#include "common/geom/vec3.h"
#include "common/scene/id_index.h"
#include "common/util/error.h"
#include "formats/stream/outfile.h"

/* ---- data arrays, ASCII or base64 */

struct vtk_buf {
	unsigned char *p;
	size_t n, cap;
};

struct vtk_out {
	FILE *f;
	int enc;
	unsigned char carry[3]; /* base64: bytes waiting for a full group */
	int ncarry;
	size_t nvals;           /* ASCII: values on the current line */
	/* zlib: the open array's bytes, and the appended section they are
	 * compressed into (its offsets must be known when each DataArray tag is
	 * written, so the whole section is kept until the XML is done) */
	struct vtk_buf raw, app;
	int zerr;               /* compress2 failed */
	int range;              /* a value did not fit in single precision */
};

static void buf_reserve(struct vtk_buf *b, size_t more)
{
	if (b->cap - b->n >= more)
		return;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap - b->n < more)
		cap *= 2;
	b->p = mrdem_xrealloc(b->p, cap);
	b->cap = cap;
}

static void buf_add(struct vtk_buf *b, const void *p, size_t n)
{
	buf_reserve(b, n);
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void vtk_out_release(struct vtk_out *o)
{
	free(o->raw.p);
	free(o->app.p);
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void b64_group(FILE *f, const unsigned char *g, int n)
{
	char out[4];
	unsigned v = (unsigned)g[0] << 16 | (n > 1 ? (unsigned)g[1] << 8 : 0) | (n > 2 ? g[2] : 0);
	out[0] = b64[v >> 18 & 63];
	out[1] = b64[v >> 12 & 63];
	out[2] = n > 1 ? b64[v >> 6 & 63] : '=';
	out[3] = n > 2 ? b64[v & 63] : '=';
	fwrite(out, 1, 4, f);
}

static void b64_put(struct vtk_out *o, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		o->carry[o->ncarry++] = p[i];
		if (o->ncarry == 3) {
			b64_group(o->f, o->carry, 3);
			o->ncarry = 0;
		}
	}
}

/* End one base64 block (VTK encodes the header and the data separately). */
static void b64_flush(struct vtk_out *o)
{
	if (o->ncarry)
		b64_group(o->f, o->carry, o->ncarry);
	o->ncarry = 0;
}

/* Binary bytes of the open array: base64 now, or kept for compression. */
static void put_bytes(struct vtk_out *o, const unsigned char *p, size_t n)
{
	if (o->enc == MRDEM_VTK_ZLIB)
		buf_add(&o->raw, p, n);
	else
		b64_put(o, p, n);
}

static void put_le(struct vtk_out *o, uint64_t v, int nbytes)
{
	unsigned char b[8];
	for (int i = 0; i < nbytes; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	put_bytes(o, b, (size_t)nbytes);
}

static void ascii_sep(struct vtk_out *o)
{
	if (o->nvals && o->nvals % 9 == 0)
		fputs("\n", o->f);
	else if (o->nvals)
		fputc(' ', o->f);
	o->nvals++;
}

static void put_f64(struct vtk_out *o, double v)
{
	if (o->enc == MRDEM_VTK_ASCII) {
		ascii_sep(o);
		fprintf(o->f, "%.17g", v);
	} else {
		uint64_t u;
		memcpy(&u, &v, 8);
		put_le(o, u, 8);
	}
}

static void put_f32(struct vtk_out *o, float v)
{
	if (o->enc == MRDEM_VTK_ASCII) {
		ascii_sep(o);
		fprintf(o->f, "%.9g", (double)v);
	} else {
		uint32_t u;
		memcpy(&u, &v, 4);
		put_le(o, u, 4);
	}
}

static void put_u64(struct vtk_out *o, uint64_t v)
{
	if (o->enc == MRDEM_VTK_ASCII) {
		ascii_sep(o);
		fprintf(o->f, "%llu", (unsigned long long)v);
	} else {
		put_le(o, v, 8);
	}
}

static void put_i64(struct vtk_out *o, int64_t v)
{
	if (o->enc == MRDEM_VTK_ASCII) {
		ascii_sep(o);
		fprintf(o->f, "%lld", (long long)v);
	} else {
		put_le(o, (uint64_t)v, 8);
	}
}

static void put_u32(struct vtk_out *o, uint32_t v)
{
	if (o->enc == MRDEM_VTK_ASCII) {
		ascii_sep(o);
		fprintf(o->f, "%lu", (unsigned long)v);
	} else {
		put_le(o, v, 4);
	}
}

static void put_i32(struct vtk_out *o, int32_t v)
{
	if (o->enc == MRDEM_VTK_ASCII) {
		ascii_sep(o);
		fprintf(o->f, "%ld", (long)v);
	} else {
		put_le(o, (uint32_t)v, 4);
	}
}

static void put_u8(struct vtk_out *o, unsigned v)
{
	if (o->enc == MRDEM_VTK_ASCII) {
		ascii_sep(o);
		fprintf(o->f, "%u", v);
	} else {
		unsigned char b = (unsigned char)v;
		put_bytes(o, &b, 1);
	}
}

static size_t type_size(const char *type)
{
	if (!strcmp(type, "Float64") || !strcmp(type, "Int64") || !strcmp(type, "UInt64"))
		return 8;
	if (!strcmp(type, "UInt8"))
		return 1;
	return 4;
}

/* Open a DataArray of `count` values; tuples > 0 adds NumberOfTuples
 * (field data). */
static void array_begin(struct vtk_out *o, const char *indent, const char *type, const char *name,
			int ncomp, size_t count, size_t tuples)
{
	fprintf(o->f, "%s<DataArray type=\"%s\" Name=\"%s\"", indent, type, name);
	if (ncomp > 1)
		fprintf(o->f, " NumberOfComponents=\"%d\"", ncomp);
	if (tuples)
		fprintf(o->f, " NumberOfTuples=\"%zu\"", tuples);
	if (o->enc == MRDEM_VTK_ZLIB) {
		fprintf(o->f, " format=\"appended\" offset=\"%zu\"/>\n", o->app.n);
		o->raw.n = 0;
		return;
	}
	fprintf(o->f, " format=\"%s\">\n", o->enc == MRDEM_VTK_ASCII ? "ascii" : "binary");
	o->nvals = 0;
	if (o->enc == MRDEM_VTK_BASE64) {
		put_le(o, (uint64_t)count * type_size(type), 8);
		b64_flush(o);
	}
}

/* vtkZLibDataCompressor's layout (header_type UInt64): block count, block
 * size, size of a partial last block (0: the last block is full), the
 * compressed size of each block, then the blocks, each deflated alone. */
#define VTK_ZBLOCK 32768

static void put_u64_at(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void zlib_array(struct vtk_out *o)
{
	size_t n = o->raw.n, nb = (n + VTK_ZBLOCK - 1) / VTK_ZBLOCK;
	size_t head = o->app.n;
	buf_reserve(&o->app, (3 + nb) * 8);
	o->app.n += (3 + nb) * 8;
	put_u64_at(o->app.p + head, nb);
	put_u64_at(o->app.p + head + 8, VTK_ZBLOCK);
	put_u64_at(o->app.p + head + 16, n % VTK_ZBLOCK);
	for (size_t b = 0; b < nb; b++) {
		size_t len = b + 1 < nb || n % VTK_ZBLOCK == 0 ? VTK_ZBLOCK : n % VTK_ZBLOCK;
		uLongf zlen = compressBound((uLong)len);
		buf_reserve(&o->app, zlen);
		if (compress2(o->app.p + o->app.n, &zlen, o->raw.p + b * VTK_ZBLOCK, (uLong)len,
			      Z_DEFAULT_COMPRESSION) != Z_OK)
			o->zerr = 1;
		/* the header may have moved with the buffer: address it by offset */
		put_u64_at(o->app.p + head + 8 * (3 + b), zlen);
		o->app.n += zlen;
	}
}

static void array_end(struct vtk_out *o, const char *indent)
{
	if (o->enc == MRDEM_VTK_ZLIB) {
		zlib_array(o);
		return;
	}
	if (o->enc == MRDEM_VTK_BASE64)
		b64_flush(o);
	fprintf(o->f, "\n%s</DataArray>\n", indent);
}

static void write_root(struct vtk_out *o)
{
	fprintf(o->f,
		"<?xml version=\"1.0\"?>\n"
		"<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\" "
		"header_type=\"UInt64\"%s>\n"
		"  <PolyData>\n",
		o->enc == MRDEM_VTK_ZLIB ? " compressor=\"vtkZLibDataCompressor\"" : "");
}

static void write_head(struct vtk_out *o, double time, uint64_t step)
{
	write_root(o);
	fputs("    <FieldData>\n", o->f);
	array_begin(o, "      ", "Float64", "TIME", 1, 1, 1);
	put_f64(o, time);
	array_end(o, "      ");
	array_begin(o, "      ", "UInt64", "STEP", 1, 1, 1);
	put_u64(o, step);
	array_end(o, "      ");
	fputs("    </FieldData>\n", o->f);
}

static void write_tail(struct vtk_out *o)
{
	fputs("    </Piece>\n"
	      "  </PolyData>\n",
	      o->f);
	if (o->enc == MRDEM_VTK_ZLIB) {
		fputs("  <AppendedData encoding=\"raw\">\n   _", o->f);
		fwrite(o->app.p, 1, o->app.n, o->f);
		fputs("\n  </AppendedData>\n", o->f);
	}
	fputs("</VTKFile>\n", o->f);
}

/* Write one file all or nothing: body fills it, then compression and
 * single-precision failures are reported as errors. */
static int write_file(const char *path, int encoding, const char *what,
		      int (*body)(struct vtk_out *o, const void *ctx), const void *ctx)
{
	struct mrdem_outfile of;
	if (mrdem_outfile_open(&of, path, 0))
		return -1;
	struct vtk_out o = {.f = of.f, .enc = encoding};
	int ret = body(&o, ctx);
	if (!ret && o.zerr)
		ret = mrdem_error("%s: %s: zlib compression failed", path, what);
	if (!ret && o.range)
		ret = mrdem_error("%s: %s: a value lies outside single precision range (try "
				  "--double)",
				  path, what);
	vtk_out_release(&o);
	if (ret) {
		mrdem_outfile_abort(&of);
		return -1;
	}
	return mrdem_outfile_commit(&of);
}

/* ---- particle surfaces */

static int check_state(const struct mrdem_scene *s)
{
	const struct mrdem_particles *p = &s->frame.p;
	for (size_t i = 0; i < p->n; i++) {
		double sum = 0, qn = 0;
		for (int a = 0; a < 3; a++)
			sum += p->pos[3 * i + a] + p->vel[3 * i + a] + p->angvel[3 * i + a];
		for (int a = 0; a < 4; a++)
			qn += p->quat[4 * i + a] * p->quat[4 * i + a];
		if (!isfinite(sum) || !isfinite(qn))
			return mrdem_error("step %llu: particle %llu has a non-finite position, "
					   "orientation or velocity",
					   (unsigned long long)s->frame.step,
					   (unsigned long long)p->id[i]);
		/* finite, but no rotation: say so, not "non-finite" */
		if (!(qn > 0))
			return mrdem_error("step %llu: particle %llu has a zero orientation quaternion",
					   (unsigned long long)s->frame.step,
					   (unsigned long long)p->id[i]);
		if (p->shape[i] >= s->nshapes)
			return mrdem_error("step %llu: particle %llu uses shape %u of %u",
					   (unsigned long long)s->frame.step,
					   (unsigned long long)p->id[i], p->shape[i], s->nshapes);
	}
	return 0;
}

/* World position of vertex v of particle i. */
static void world_vertex(const struct mrdem_mesh *m, const double rot[9], const double pos[3],
			 uint32_t v, double out[3])
{
	double local[3];
	for (int a = 0; a < 3; a++)
		local[a] = m->verts[3 * (size_t)v + a] - m->mass.com[a];
	mat3_apply(out, rot, local);
	for (int a = 0; a < 3; a++)
		out[a] += pos[a];
}

static void particle_rotation(const struct mrdem_particles *p, size_t i, double rot[9])
{
	double q[4];
	memcpy(q, &p->quat[4 * i], sizeof q);
	quat_normalize(q);
	quat_to_matrix(q, rot);
}

static int write_surfaces(struct vtk_out *o, const void *ctx)
{
	const struct mrdem_scene *s = ctx;
	const struct mrdem_particles *p = &s->frame.p;
	size_t npts = 0, ntris = 0;
	for (size_t i = 0; i < p->n; i++) {
		npts += s->shapes[p->shape[i]].mesh.nverts;
		ntris += s->shapes[p->shape[i]].mesh.ntris;
	}
	write_head(o, s->frame.time, s->frame.step);
	fprintf(o->f,
		"    <Piece NumberOfPoints=\"%zu\" NumberOfVerts=\"0\" NumberOfLines=\"0\" "
		"NumberOfStrips=\"0\" NumberOfPolys=\"%zu\">\n"
		"      <CellData Scalars=\"particle_id\" Vectors=\"velocity\">\n",
		npts, ntris);
	const char *in = "        ";

	array_begin(o, in, "UInt64", "particle_id", 1, ntris, 0);
	for (size_t i = 0; i < p->n; i++)
		for (uint32_t t = 0; t < s->shapes[p->shape[i]].mesh.ntris; t++)
			put_u64(o, p->id[i]);
	array_end(o, in);
	array_begin(o, in, "UInt32", "shape", 1, ntris, 0);
	for (size_t i = 0; i < p->n; i++)
		for (uint32_t t = 0; t < s->shapes[p->shape[i]].mesh.ntris; t++)
			put_u32(o, p->shape[i]);
	array_end(o, in);
	array_begin(o, in, "UInt8", "fixed", 1, ntris, 0);
	for (size_t i = 0; i < p->n; i++)
		for (uint32_t t = 0; t < s->shapes[p->shape[i]].mesh.ntris; t++)
			put_u8(o, (p->flags[i] & MRDEM_PARTICLE_FIXED) ? 1 : 0);
	array_end(o, in);
	if (p->material) {
		array_begin(o, in, "UInt32", "material", 1, ntris, 0);
		for (size_t i = 0; i < p->n; i++)
			for (uint32_t t = 0; t < s->shapes[p->shape[i]].mesh.ntris; t++)
				put_u32(o, p->material[i]);
		array_end(o, in);
	}
	array_begin(o, in, "UInt32", "triangle", 1, ntris, 0);
	for (size_t i = 0; i < p->n; i++)
		for (uint32_t t = 0; t < s->shapes[p->shape[i]].mesh.ntris; t++)
			put_u32(o, t);
	array_end(o, in);
	static const char *const vec_names[2] = {"velocity", "angular_velocity"};
	for (int k = 0; k < 2; k++) {
		const double *v = k ? p->angvel : p->vel;
		array_begin(o, in, "Float64", vec_names[k], 3, 3 * ntris, 0);
		for (size_t i = 0; i < p->n; i++)
			for (uint32_t t = 0; t < s->shapes[p->shape[i]].mesh.ntris; t++)
				for (int a = 0; a < 3; a++)
					put_f64(o, v[3 * i + a]);
		array_end(o, in);
	}
	fputs("      </CellData>\n      <Points>\n", o->f);

	array_begin(o, in, "Float32", "Points", 3, 3 * npts, 0);
	for (size_t i = 0; i < p->n; i++) {
		const struct mrdem_mesh *m = &s->shapes[p->shape[i]].mesh;
		double rot[9], x[3];
		particle_rotation(p, i, rot);
		for (uint32_t v = 0; v < m->nverts; v++) {
			world_vertex(m, rot, &p->pos[3 * i], v, x);
			for (int a = 0; a < 3; a++) {
				float f = (float)x[a];
				if (!isfinite(f))
					return mrdem_error("step %llu: particle %llu: vertex %u lies outside "
							   "single precision range",
							   (unsigned long long)s->frame.step,
							   (unsigned long long)p->id[i], v);
				put_f32(o, f);
			}
		}
	}
	array_end(o, in);
	fputs("      </Points>\n      <Polys>\n", o->f);

	array_begin(o, in, "Int64", "connectivity", 1, 3 * ntris, 0);
	size_t base = 0;
	for (size_t i = 0; i < p->n; i++) {
		const struct mrdem_mesh *m = &s->shapes[p->shape[i]].mesh;
		for (size_t k = 0; k < 3 * (size_t)m->ntris; k++)
			put_i64(o, (int64_t)(base + m->tris[k]));
		base += m->nverts;
	}
	array_end(o, in);
	array_begin(o, in, "Int64", "offsets", 1, ntris, 0);
	for (size_t t = 1; t <= ntris; t++)
		put_i64(o, (int64_t)(3 * t));
	array_end(o, in);
	fputs("      </Polys>\n", o->f);
	write_tail(o);
	return 0;
}

int mrdem_vtk_write_surfaces(const char *path, const struct mrdem_scene *s, int encoding)
{
	if (check_state(s))
		return -1;
	return write_file(path, encoding, "surfaces", write_surfaces, s);
}

/* ---- particles as instances of their shapes */

/* A real value in the precision the caller chose; single precision
 * overflow is noted and reported by write_file. */
static void put_real(struct vtk_out *o, int dbl, double v)
{
	if (dbl) {
		put_f64(o, v);
		return;
	}
	float f = (float)v;
	if (!isfinite(f))
		o->range = 1;
	put_f32(o, f);
}

/* The shape frame: vertices relative to the centre of mass, the point a
 * frame's positions give. Float64 always: one small file per shape. */
static int write_shape(struct vtk_out *o, const void *ctx)
{
	const struct mrdem_shape *sh = ctx;
	const struct mrdem_mesh *m = &sh->mesh;
	const char *in = "        ";
	write_root(o);
	fputs("    <FieldData>\n", o->f);
	array_begin(o, "      ", "UInt32", "SHAPE", 1, 1, 1);
	put_u32(o, sh->id);
	array_end(o, "      ");
	fputs("    </FieldData>\n", o->f);
	fprintf(o->f,
		"    <Piece NumberOfPoints=\"%u\" NumberOfVerts=\"0\" NumberOfLines=\"0\" "
		"NumberOfStrips=\"0\" NumberOfPolys=\"%u\">\n"
		"      <Points>\n",
		m->nverts, m->ntris);
	array_begin(o, in, "Float64", "Points", 3, 3 * (size_t)m->nverts, 0);
	for (uint32_t v = 0; v < m->nverts; v++)
		for (int a = 0; a < 3; a++)
			put_f64(o, m->verts[3 * (size_t)v + a] - m->mass.com[a]);
	array_end(o, in);
	fputs("      </Points>\n      <Polys>\n", o->f);
	array_begin(o, in, "Int64", "connectivity", 1, 3 * (size_t)m->ntris, 0);
	for (size_t k = 0; k < 3 * (size_t)m->ntris; k++)
		put_i64(o, m->tris[k]);
	array_end(o, in);
	array_begin(o, in, "Int64", "offsets", 1, m->ntris, 0);
	for (size_t t = 1; t <= m->ntris; t++)
		put_i64(o, (int64_t)(3 * t));
	array_end(o, in);
	fputs("      </Polys>\n", o->f);
	write_tail(o);
	return 0;
}

int mrdem_vtk_write_shape(const char *path, const struct mrdem_shape *sh, int encoding)
{
	const struct mrdem_mesh *m = &sh->mesh;
	for (size_t k = 0; k < 3 * (size_t)m->nverts; k++)
		if (!isfinite(m->verts[k] - m->mass.com[k % 3]))
			return mrdem_error("shape %u (%s): non-finite vertex or centre of mass", sh->id,
					   sh->name ? sh->name : "unnamed");
	return write_file(path, encoding, "shape", write_shape, sh);
}

struct instances {
	const struct mrdem_scene *s;
	const uint32_t *ncontacts; /* per particle, NULL: no contacts known */
	const struct mrdem_forces *f; /* NULL: no forces known */
	int dbl;
};


/* Close the points of a piece of n points and give each its own vertex
 * cell, so the Surface and Points representations show them. */
static int write_vertex_cells(struct vtk_out *o, const char *in, size_t n)
{
	fputs("      </Points>\n      <Verts>\n", o->f);
	array_begin(o, in, "Int64", "connectivity", 1, n, 0);
	for (size_t k = 0; k < n; k++)
		put_i64(o, (int64_t)k);
	array_end(o, in);
	array_begin(o, in, "Int64", "offsets", 1, n, 0);
	for (size_t k = 1; k <= n; k++)
		put_i64(o, (int64_t)k);
	array_end(o, in);
	fputs("      </Verts>\n", o->f);
	write_tail(o);
	return 0;
}

static int write_instances(struct vtk_out *o, const void *ctx)
{
	const struct instances *x = ctx;
	const struct mrdem_particles *p = &x->s->frame.p;
	const char *real = x->dbl ? "Float64" : "Float32";
	const char *in = "        ";
	size_t n = p->n;
	write_head(o, x->s->frame.time, x->s->frame.step);
	/* One vertex cell per point, so the Surface and Points representations
	 * show the particles too; glyphs only need the points. */
	fprintf(o->f,
		"    <Piece NumberOfPoints=\"%zu\" NumberOfVerts=\"%zu\" NumberOfLines=\"0\" "
		"NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n"
		"      <PointData Scalars=\"particle_id\" Vectors=\"velocity\">\n",
		n, n);
	array_begin(o, in, "UInt64", "particle_id", 1, n, 0);
	for (size_t i = 0; i < n; i++)
		put_u64(o, p->id[i]);
	array_end(o, in);
	array_begin(o, in, "UInt32", "shape", 1, n, 0);
	for (size_t i = 0; i < n; i++)
		put_u32(o, p->shape[i]);
	array_end(o, in);
	array_begin(o, in, "UInt8", "fixed", 1, n, 0);
	for (size_t i = 0; i < n; i++)
		put_u8(o, (p->flags[i] & MRDEM_PARTICLE_FIXED) ? 1 : 0);
	array_end(o, in);
	if (p->material) {
		array_begin(o, in, "UInt32", "material", 1, n, 0);
		for (size_t i = 0; i < n; i++)
			put_u32(o, p->material[i]);
		array_end(o, in);
	}
	if (x->ncontacts) {
		array_begin(o, in, "UInt32", "contacts", 1, n, 0);
		for (size_t i = 0; i < n; i++)
			put_u32(o, x->ncontacts[i]);
		array_end(o, in);
	}
	array_begin(o, in, real, "orientation", 4, 4 * n, 0);
	for (size_t k = 0; k < 4 * n; k++)
		put_real(o, x->dbl, p->quat[k]);
	array_end(o, in);
	static const char *const vec_names[4] = {"velocity", "angular_velocity", "force", "torque"};
	for (int k = 0; k < (x->f ? 4 : 2); k++) {
		const double *v = k == 0 ? p->vel : k == 1 ? p->angvel
				: k == 2 ? x->f->force : x->f->torque;
		array_begin(o, in, real, vec_names[k], 3, 3 * n, 0);
		for (size_t i = 0; i < 3 * n; i++)
			put_real(o, x->dbl, v[i]);
		array_end(o, in);
	}
	fputs("      </PointData>\n      <Points>\n", o->f);
	array_begin(o, in, real, "Points", 3, 3 * n, 0);
	for (size_t i = 0; i < 3 * n; i++)
		put_real(o, x->dbl, p->pos[i]);
	array_end(o, in);
	return write_vertex_cells(o, in, n);
}

/* Contacts per particle: every contact point counts once for a and once
 * for b (unless b is a plane). */
static int count_contacts(const struct mrdem_scene *s, const struct mrdem_contacts *c,
			  uint32_t *count)
{
	struct mrdem_id_index ix;
	mrdem_id_index_init(&ix);
	int ret = mrdem_id_index_build(&ix, &s->frame.p);
	for (size_t k = 0; !ret && k < c->n; k++) {
		uint64_t ids[2] = {c->c[k].a, c->c[k].b};
		for (int e = 0; e < 2 && !ret; e++) {
			if (mrdem_is_plane_id(ids[e]))
				continue;
			size_t i = mrdem_id_index_find(&ix, ids[e]);
			if (i == MRDEM_NO_INDEX)
				ret = mrdem_error("step %llu: contact %zu names particle %llu, which "
						  "the frame lacks",
						  (unsigned long long)c->step, k,
						  (unsigned long long)ids[e]);
			else
				count[i]++;
		}
	}
	mrdem_id_index_release(&ix);
	return ret;
}

int mrdem_vtk_write_instances(const char *path, const struct mrdem_scene *s,
			      const struct mrdem_contacts *c, const struct mrdem_forces *f,
			      int encoding, unsigned flags)
{
	if (check_state(s))
		return -1;
	struct instances x = {.s = s, .f = f, .dbl = (flags & MRDEM_VTK_DOUBLE) != 0};
	uint32_t *count = NULL;
	if (c) {
		count = mrdem_xmalloc_array(s->frame.p.n ? s->frame.p.n : 1, sizeof *count);
		memset(count, 0, s->frame.p.n * sizeof *count);
		if (count_contacts(s, c, count)) {
			free(count);
			return -1;
		}
		x.ncontacts = count;
	}
	int ret = write_file(path, encoding, "instances", write_instances, &x);
	free(count);
	return ret;
}

/* ---- contact points */

static int check_contacts(const struct mrdem_contacts *c)
{
	for (size_t k = 0; k < c->n; k++) {
		const struct mrdem_contact *q = &c->c[k];
		double sum = q->dist + q->depth;
		for (int a = 0; a < 3; a++)
			sum += q->x[a] + q->normal[a];
		if (!isfinite(sum))
			return mrdem_error("step %llu: contact %zu (particles %llu, %llu) has a "
					   "non-finite value",
					   (unsigned long long)c->step, k, (unsigned long long)q->a,
					   (unsigned long long)q->b);
	}
	return 0;
}

struct contacts_file {
	const struct mrdem_contacts *c;
	const double *force; /* 3 per contact, NULL: not known */
	double time;
};

static int write_contacts(struct vtk_out *o, const void *ctx)
{
	const struct contacts_file *cf = ctx;
	const struct mrdem_contacts *c = cf->c;
	double time = cf->time;
	size_t n = c->n;
	const char *in = "        ";
	write_head(o, time, c->step);
	fprintf(o->f,
		"    <Piece NumberOfPoints=\"%zu\" NumberOfVerts=\"%zu\" NumberOfLines=\"0\" "
		"NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n"
		"      <PointData Scalars=\"depth\" Normals=\"normal\"%s>\n",
		n, n, cf->force ? " Vectors=\"force\"" : "");
	array_begin(o, in, "Float64", "normal", 3, 3 * n, 0);
	for (size_t k = 0; k < n; k++)
		for (int a = 0; a < 3; a++)
			put_f64(o, c->c[k].normal[a]);
	array_end(o, in);
	array_begin(o, in, "Float64", "overlap", 3, 3 * n, 0);
	for (size_t k = 0; k < n; k++)
		for (int a = 0; a < 3; a++)
			put_f64(o, c->c[k].depth * c->c[k].normal[a]);
	array_end(o, in);
	array_begin(o, in, "Float64", "dist", 1, n, 0);
	for (size_t k = 0; k < n; k++)
		put_f64(o, c->c[k].dist);
	array_end(o, in);
	array_begin(o, in, "Float64", "depth", 1, n, 0);
	for (size_t k = 0; k < n; k++)
		put_f64(o, c->c[k].depth);
	array_end(o, in);
	array_begin(o, in, "UInt64", "particle_a", 1, n, 0);
	for (size_t k = 0; k < n; k++)
		put_u64(o, c->c[k].a);
	array_end(o, in);
	array_begin(o, in, "UInt64", "particle_b", 1, n, 0);
	for (size_t k = 0; k < n; k++)
		put_u64(o, c->c[k].b);
	array_end(o, in);
	array_begin(o, in, "Int32", "plane", 1, n, 0);
	for (size_t k = 0; k < n; k++)
		put_i32(o, mrdem_is_plane_id(c->c[k].b) ? (int32_t)mrdem_plane_index(c->c[k].b) : -1);
	array_end(o, in);
	array_begin(o, in, "Int64", "tri_a", 1, n, 0);
	for (size_t k = 0; k < n; k++)
		put_i64(o, c->c[k].tri_a == UINT32_MAX ? -1 : (int64_t)c->c[k].tri_a);
	array_end(o, in);
	array_begin(o, in, "Int64", "tri_b", 1, n, 0);
	for (size_t k = 0; k < n; k++)
		put_i64(o, c->c[k].tri_b == UINT32_MAX ? -1 : (int64_t)c->c[k].tri_b);
	array_end(o, in);
	if (cf->force) {
		array_begin(o, in, "Float64", "force", 3, 3 * n, 0);
		for (size_t k = 0; k < 3 * n; k++)
			put_f64(o, cf->force[k]);
		array_end(o, in);
	}
	fputs("      </PointData>\n      <Points>\n", o->f);
	array_begin(o, in, "Float64", "Points", 3, 3 * n, 0);
	for (size_t k = 0; k < n; k++)
		for (int a = 0; a < 3; a++)
			put_f64(o, c->c[k].x[a]);
	array_end(o, in);
	return write_vertex_cells(o, in, n);
}

int mrdem_vtk_write_contacts(const char *path, const struct mrdem_contacts *c,
			     const double *force, double time, int encoding)
{
	if (check_contacts(c))
		return -1;
	struct contacts_file cf = {.c = c, .force = force, .time = time};
	return write_file(path, encoding, "contacts", write_contacts, &cf);
}

/* ---- analytic planes, for display */

/* A plane's polygon: its rectangle (4 corners), then at most one corner
 * more per other plane that clips it. */
struct planes_file {
	const uint32_t *index;
	const struct mrdem_plane *pl;
	size_t n;            /* polygons drawn */
	size_t *keep;        /* per polygon: the plane's position in pl */
	size_t *end;         /* per polygon: one past its last corner */
	double (*corner)[3];
};

/* Unit vectors u, w spanning the plane of unit normal n, with u x w = n,
 * so corners taken in the order (u-, w-), (u+, w-), (u+, w+), (u-, w+)
 * turn counter-clockwise seen from the free side. */
static void plane_axes(const double n[3], double u[3], double w[3])
{
	/* the coordinate axis least aligned with n keeps the cross product long */
	int a = fabs(n[0]) <= fabs(n[1]) ? (fabs(n[0]) <= fabs(n[2]) ? 0 : 2)
					 : (fabs(n[1]) <= fabs(n[2]) ? 1 : 2);
	double e[3] = {0, 0, 0};
	e[a] = 1;
	vec3_cross(u, n, e);
	vec3_normalize(u);
	vec3_cross(w, n, u);
}

/* The foot of x on plane pl. */
static void plane_foot(const struct mrdem_plane *pl, const double x[3], double foot[3])
{
	double h[3];
	vec3_sub(h, x, pl->point);
	vec3_axpy(foot, x, -vec3_dot(h, pl->normal), pl->normal);
}

/* The four corners of plane pl's rectangle over the box lo..hi: the box's
 * corners projected into the plane, their extent along u and w. */
static void plane_rectangle(const struct mrdem_plane *pl, const double lo[3], const double hi[3],
			    double out[4][3])
{
	double u[3], w[3], c[3], foot[3];
	plane_axes(pl->normal, u, w);
	for (int a = 0; a < 3; a++)
		c[a] = 0.5 * (lo[a] + hi[a]);
	plane_foot(pl, c, foot);
	double umin = INFINITY, umax = -INFINITY, wmin = INFINITY, wmax = -INFINITY;
	for (int k = 0; k < 8; k++) {
		double x[3] = {k & 1 ? hi[0] : lo[0], k & 2 ? hi[1] : lo[1], k & 4 ? hi[2] : lo[2]};
		vec3_sub(x, x, foot);
		double du = vec3_dot(x, u), dw = vec3_dot(x, w);
		umin = fmin(umin, du), umax = fmax(umax, du);
		wmin = fmin(wmin, dw), wmax = fmax(wmax, dw);
	}
	const double cu[4] = {umin, umax, umax, umin}, cw[4] = {wmin, wmin, wmax, wmax};
	for (int k = 0; k < 4; k++)
		for (int a = 0; a < 3; a++)
			out[k][a] = foot[a] + cu[k] * u[a] + cw[k] * w[a];
}

/* Keep the part of the convex polygon in[0..n) on the free side of cut
 * (Sutherland-Hodgman); returns the corners written to out (at most n + 1). */
static size_t clip_polygon(const double (*in)[3], size_t n, const struct mrdem_plane *cut,
			   double (*out)[3])
{
	size_t m = 0;
	for (size_t k = 0; k < n; k++) {
		const double *x = in[k], *y = in[(k + 1) % n];
		double hx[3], hy[3];
		vec3_sub(hx, x, cut->point);
		vec3_sub(hy, y, cut->point);
		double dx = vec3_dot(hx, cut->normal), dy = vec3_dot(hy, cut->normal);
		if (dx >= 0)
			vec3_copy(out[m++], x);
		if ((dx > 0 && dy < 0) || (dx < 0 && dy > 0)) { /* a corner on cut is kept once */
			double t = dx / (dx - dy), e[3];
			vec3_sub(e, y, x);
			vec3_axpy(out[m++], x, t, e);
		}
	}
	return m;
}

static int write_planes(struct vtk_out *o, const void *ctx)
{
	const struct planes_file *pf = ctx;
	const char *in = "        ";
	size_t n = pf->n, npts = n ? pf->end[n - 1] : 0;
	write_root(o);
	fprintf(o->f,
		"    <Piece NumberOfPoints=\"%zu\" NumberOfVerts=\"0\" NumberOfLines=\"0\" "
		"NumberOfStrips=\"0\" NumberOfPolys=\"%zu\">\n"
		"      <CellData Scalars=\"plane\" Normals=\"normal\">\n",
		npts, n);
	array_begin(o, in, "Int32", "plane", 1, n, 0);
	for (size_t k = 0; k < n; k++)
		put_i32(o, (int32_t)pf->index[pf->keep[k]]);
	array_end(o, in);
	array_begin(o, in, "Float64", "normal", 3, 3 * n, 0);
	for (size_t k = 0; k < n; k++)
		for (int a = 0; a < 3; a++)
			put_f64(o, pf->pl[pf->keep[k]].normal[a]);
	array_end(o, in);
	fputs("      </CellData>\n      <Points>\n", o->f);
	array_begin(o, in, "Float64", "Points", 3, 3 * npts, 0);
	for (size_t k = 0; k < npts; k++)
		for (int a = 0; a < 3; a++)
			put_f64(o, pf->corner[k][a]);
	array_end(o, in);
	fputs("      </Points>\n      <Polys>\n", o->f);
	array_begin(o, in, "Int64", "connectivity", 1, npts, 0);
	for (size_t k = 0; k < npts; k++)
		put_i64(o, (int64_t)k);
	array_end(o, in);
	array_begin(o, in, "Int64", "offsets", 1, n, 0);
	for (size_t k = 0; k < n; k++)
		put_i64(o, (int64_t)pf->end[k]);
	array_end(o, in);
	fputs("      </Polys>\n", o->f);
	write_tail(o);
	return 0;
}

int mrdem_vtk_write_planes(const char *path, const struct mrdem_plane *planes,
			   const uint32_t *index, size_t n, const double lo[3], const double hi[3],
			   int encoding)
{
	/* grow the box to every plane (the foot of its centre on it), so that
	 * each plane's rectangle reaches the others */
	double glo[3], ghi[3], c[3];
	for (int a = 0; a < 3; a++) {
		glo[a] = lo[a], ghi[a] = hi[a];
		c[a] = 0.5 * (lo[a] + hi[a]);
	}
	for (size_t k = 0; k < n; k++) {
		double foot[3];
		plane_foot(&planes[k], c, foot);
		for (int a = 0; a < 3; a++)
			glo[a] = fmin(glo[a], foot[a]), ghi[a] = fmax(ghi[a], foot[a]);
	}
	size_t cap = 4 + n; /* corners of one polygon, at most */
	struct planes_file pf = {.index = index, .pl = planes};
	pf.keep = mrdem_xmalloc_array(n ? n : 1, sizeof *pf.keep);
	pf.end = mrdem_xmalloc_array(n ? n : 1, sizeof *pf.end);
	pf.corner = mrdem_xmalloc_array((n ? n : 1) * cap, sizeof *pf.corner);
	double (*tmp)[3] = mrdem_xmalloc_array(2 * cap, sizeof *tmp);
	size_t used = 0;
	int ret = 0;
	for (size_t k = 0; k < n && !ret; k++) {
		/* the rectangle, less what lies behind another plane: there no
		 * particle can be, and a box's walls end at its floor */
		double (*poly)[3] = tmp, (*next)[3] = tmp + cap;
		plane_rectangle(&planes[k], glo, ghi, poly);
		size_t m = 4;
		for (size_t q = 0; q < n && m >= 3; q++) {
			if (q == k)
				continue;
			m = clip_polygon((const double (*)[3])poly, m, &planes[q], next);
			double (*t)[3] = poly;
			poly = next, next = t;
		}
		if (m < 3)
			continue; /* wholly behind the others: nothing to see */
		for (size_t v = 0; v < m && !ret; v++)
			if (!vec3_isfinite(poly[v]))
				ret = mrdem_error("plane %u: its rectangle over the particles' bounds "
						  "is not finite", index[k]);
		memcpy(pf.corner + used, poly, m * sizeof *poly);
		used += m;
		pf.keep[pf.n] = k;
		pf.end[pf.n++] = used;
	}
	if (!ret)
		ret = write_file(path, encoding, "planes", write_planes, &pf);
	free(tmp);
	free(pf.keep);
	free(pf.end);
	free(pf.corner);
	return ret;
}

/* ---- time series */

/* Write s as an XML attribute value. */
static void xml_attr(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

int mrdem_vtk_write_pvd(const char *path, const struct mrdem_pvd_entry *e, size_t n)
{
	struct mrdem_outfile of;
	if (mrdem_outfile_open(&of, path, 0))
		return -1;
	FILE *f = of.f;
	fputs("<?xml version=\"1.0\"?>\n"
	      "<VTKFile type=\"Collection\" version=\"1.0\" byte_order=\"LittleEndian\">\n"
	      "  <Collection>\n",
	      f);
	for (size_t k = 0; k < n; k++) {
		fprintf(f, "    <DataSet timestep=\"%.17g\" group=\"\" part=\"%u\" file=\"",
			e[k].time, e[k].part);
		xml_attr(f, e[k].file);
		fputs("\"/>\n", f);
	}
	fputs("  </Collection>\n</VTKFile>\n", f);
	return mrdem_outfile_commit(&of);
}
