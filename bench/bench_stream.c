/* Stream throughput: write and read a 1,000,000-triangle mesh record and
 * compare with gzip -c / zcat on the same uncompressed bytes, in one run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/mesh/mesh.h"
#include "common/util/error.h"
#include "formats/stream/records.h"
#include "formats/stream/stream.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* Best of n runs of a shell command, in seconds. */
static double time_cmd(const char *cmd, int n)
{
	double best = 1e30;
	for (int i = 0; i < n; i++) {
		double t0 = now();
		if (system(cmd))
			return -1;
		double t = now() - t0;
		best = t < best ? t : best;
	}
	return best;
}

int main(void)
{
	mrdem_set_progname("bench_stream");
	char dir[] = "/tmp/mrdem-bench-XXXXXX";
	if (!mkdtemp(dir))
		mrdem_die("cannot create a temporary directory");
	char file[256], raw[256], cmd[1024];
	snprintf(file, sizeof file, "%s/mesh.mrd", dir);
	snprintf(raw, sizeof raw, "%s/mesh.raw", dir);

	/* Lat-long sphere: 1000 longitudes x 501 rings = 1,000,000 triangles. */
	struct mrdem_sphere_opts o;
	mrdem_sphere_opts_default(&o);
	o.triangles = 1000000;
	struct mrdem_mesh m;
	mrdem_mesh_init(&m);
	if (mrdem_mesh_sphere(&m, &o))
		return 1;
	mrdem_mesh_mass(&m, &m.mass);

	const int reps = 3;
	double tw = 1e30, tr = 1e30;
	size_t bytes = 0;
	for (int k = 0; k < reps; k++) {
		double t0 = now();
		struct mrdem_writer w;
		struct mrdem_buf b;
		mrdem_buf_init(&b);
		mrdem_encode_mesh(&b, 0, "sphere", &m);
		bytes = b.len;
		if (mrdem_writer_open(&w, file, 0) ||
		    mrdem_writer_put(&w, MRDEM_REC_MESH, b.p, b.len) || mrdem_writer_commit(&w))
			return 1;
		mrdem_buf_release(&b);
		double t1 = now();
		struct mrdem_reader r;
		struct mrdem_record rec;
		uint32_t id;
		char *name;
		struct mrdem_mesh back;
		if (mrdem_reader_open(&r, file, 0) || mrdem_reader_next(&r, &rec) != 1 ||
		    mrdem_decode_mesh(&rec, r.name, &id, &name, &back))
			return 1;
		mrdem_reader_close(&r);
		double t2 = now();
		if (back.ntris != m.ntris)
			mrdem_die("round trip lost triangles");
		mrdem_mesh_release(&back);
		free(name);
		tw = t1 - t0 < tw ? t1 - t0 : tw;
		tr = t2 - t1 < tr ? t2 - t1 : tr;
	}
	/* The same uncompressed bytes through gzip and zcat. */
	snprintf(cmd, sizeof cmd, "zcat %s > %s", file, raw);
	if (system(cmd))
		return 1;
	snprintf(cmd, sizeof cmd, "gzip -c %s > %s.gz", raw, raw);
	double tgz = time_cmd(cmd, reps);
	snprintf(cmd, sizeof cmd, "gzip -1 -c %s > %s.gz1", raw, raw);
	double tgz1 = time_cmd(cmd, reps);
	snprintf(cmd, sizeof cmd, "zcat %s.gz > /dev/null", raw);
	double tzcat = time_cmd(cmd, reps);

	double mb = bytes / 1e6;
	printf("stream throughput, 1,000,000-triangle mesh (%.1f MB uncompressed), best of %d\n",
	       mb, reps);
	printf("  mrdem write (encode+compress): %.3f s  %.0f MB/s\n", tw, mb / tw);
	printf("  mrdem read (decompress+decode+check): %.3f s  %.0f MB/s\n", tr, mb / tr);
	printf("  gzip -c (level 6): %.3f s   gzip -1 -c: %.3f s   zcat: %.3f s\n", tgz, tgz1, tzcat);
	printf("  ratio write/gzip -c: %.2f   write/gzip -1: %.2f   read/zcat: %.2f\n", tw / tgz,
	       tw / tgz1, tr / tzcat);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd))
		return 1;
	mrdem_mesh_release(&m);
	return 0;
}
