/* mrdem-tree: build the surrogate tree of every shape that lacks one and
 * write the stream on with each tree record right after its mesh record
 * (docs/surrogate-trees.md). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/tree/tree.h"
#include "common/util/error.h"
#include "common/util/threads.h"
#include "common/util/parse.h"
#include "formats/stream/record_tree.h"
#include "formats/stream/filter.h"
#include "formats/stream/records.h"

static const char usage[] =
	"usage: mrdem-tree [OPTIONS] [INPUT]\n"
	"\n"
	"Read a mesh or scene stream (INPUT, or standard input) and write it\n"
	"(-o F, or standard output) with a surrogate tree record after the mesh\n"
	"record of every shape that has no tree yet. Trees already in the stream\n"
	"are kept (and checked) unless --rebuild is given; tree options when\n"
	"every tree is kept (nothing to build) exit 2. A scaled shape\n"
	"(scaled_shape record) takes its base's tree, scaled: no tree is built or\n"
	"written for it.\n"
	"\n"
	"Tree shape (paper Alg. 7):\n"
	"  --fanout N        clusters per split, N_surrogate (default 8)\n"
	"  --leaf N          a node with at most N triangles is a leaf (default 8)\n"
	"  --seed S          k-means seed, a non-negative integer (default 1)\n"
	"  --kmeans-iters N  Lloyd iterations per split (default 16)\n"
	"Surrogate triangles, functional (6) of the paper's Appendix A:\n"
	"  --beta-size B     integer exponent of the size term, 2..64 (default 16)\n"
	"  --alpha-area A    weight of the anti-degeneration term (default 1e-5)\n"
	"  --alpha-inside A  weight of the outer-normal penalty (default 0.01)\n"
	"  --beta-normal B   integer exponent of the outer-normal penalty (default 4)\n"
	"  --iters N         quasi-Newton iterations per minimisation (default 200)\n"
	"  --no-refine       keep the minimiser of (6); by default it is refined to\n"
	"                    the smallest halo volume with the exact epsilon\n"
	"Other:\n"
	"  --rebuild         replace trees already in the stream\n"
	"  --verify          re-check every node of every tree against every real\n"
	"                    triangle beneath it; exit 1 (and write nothing) on a\n"
	"                    violation\n"
	"  -v, --verbose     one line per shape on standard error (root figures, time)\n"
	"  -o, --output F    output file (default: standard output)\n"
	"  -h, --help        show this help\n"
	"\n"
	"Distances in the functional are in units of each node's radius, so the\n"
	"weights do not depend on the mesh's scale. The output does not depend on\n"
	"the number of threads (OMP_NUM_THREADS).\n"
	"\n"
	"Exit status: 0 success, 1 error (bad input, failed computation), 2 usage\n"
	"error (unknown option, bad option value, an option given twice, too many\n"
	"arguments).\n";

enum {
	OPT_FANOUT = 256,
	OPT_LEAF,
	OPT_SEED,
	OPT_KMEANS,
	OPT_BETA_SIZE,
	OPT_ALPHA_AREA,
	OPT_ALPHA_INSIDE,
	OPT_BETA_NORMAL,
	OPT_ITERS,
	OPT_NO_REFINE,
	OPT_REBUILD,
	OPT_VERIFY,
};

/* One run of mrdem-tree: its options, and the shapes it builds trees for. */
struct tree_run {
	/* options */
	const char *in, *out;
	struct mrdem_tree_params params;
	int rebuild, verify, verbose, help;
	int shaping; /* a tree-shape or functional option was given */
	int misused; /* ... but no tree was built for it to shape: exit 2 */
	/* state */
	const char *src;
	struct mrdem_scene *scene;
	struct mrdem_writer *w;
	long pending;    /* shape whose mesh was just written, -1 none */
	uint32_t built, kept;
};

static int verify_tree(struct tree_run *r, const struct mrdem_shape *sh)
{
	struct mrdem_tree_violation v;
	size_t n = mrdem_tree_verify(sh->tree, &sh->mesh, &v);
	if (n)
		return mrdem_error("%s: shape %u '%s': tree is not conservative: %zu violation(s); "
				   "worst: node %u (level %u) is %.9g from triangle %u, beyond its "
				   "eps %.9g", r->src, sh->id, sh->name, n, v.node,
				   sh->tree->level[v.node], v.dist, v.tri, v.eps);
	if (r->verbose)
		fprintf(stderr, "mrdem-tree: shape %u '%s': %u nodes verified conservative\n",
			sh->id, sh->name, sh->tree->nnodes);
	return 0;
}

/* Give the pending shape its tree: build it unless the stream had one. */
static int finish_pending(struct tree_run *r)
{
	if (r->pending < 0)
		return 0;
	struct mrdem_shape *sh = &r->scene->shapes[r->pending];
	r->pending = -1;
	if (sh->tree) {
		r->kept++;
		return r->verify ? verify_tree(r, sh) : 0;
	}
	double t0 = omp_get_wtime();
	if (mrdem_tree_build(&sh->mesh, &r->params, &sh->tree))
		return mrdem_error("%s: shape %u '%s': no tree built", r->src, sh->id, sh->name);
	double t1 = omp_get_wtime();
	r->built++;
	if (r->verbose) {
		struct mrdem_tree_root_stats rs;
		mrdem_tree_root_stats(sh->tree, &sh->mesh, &rs);
		fprintf(stderr, "mrdem-tree: shape %u '%s': %u triangles, %u nodes in %u levels, "
			"root d %.4g eps %.4g halo %.1f%% of the bounding sphere, built in %.3f s\n",
			sh->id, sh->name, sh->mesh.ntris, sh->tree->nnodes, sh->tree->nlevels, rs.d,
			rs.eps, 100 * rs.ratio, t1 - t0);
	}
	if (r->verify && verify_tree(r, sh))
		return -1;
	return mrdem_write_tree(r->w, sh->id, sh->tree);
}

static struct tree_run *run_of(struct mrdem_filter *f)
{
	struct tree_run *r = f->ctx;
	r->src = f->src;
	r->scene = &f->scene;
	r->w = &f->w;
	return r;
}

/* Every record but the pending shape's own tree ends the wait for it. */
static int before(struct mrdem_filter *f, const struct mrdem_record *rec)
{
	struct tree_run *r = run_of(f);
	if (rec->type == MRDEM_REC_TREE && !r->rebuild) {
		uint32_t id = mrdem_tree_record_shape(rec);
		if (r->pending < 0 || id != (uint32_t)r->pending)
			return mrdem_record_error(rec, r->src, "tree for shape %u does not follow "
						  "that shape's mesh record", id);
		return 0;
	}
	return finish_pending(r);
}

static int take(struct mrdem_filter *f, const struct mrdem_record *rec)
{
	struct tree_run *r = run_of(f);
	const struct mrdem_shape *last = &r->scene->shapes[r->scene->nshapes - 1];
	if (rec->type == MRDEM_REC_MESH)
		r->pending = r->scene->nshapes - 1;
	else if (rec->type == MRDEM_REC_SCALED_SHAPE) /* its tree is the base's, scaled */
		return r->verify && last->tree ? verify_tree(r, last) : 0;
	else if (rec->type == MRDEM_REC_TREE && !r->rebuild)
		return finish_pending(r);
	return 0;
}

static int finish(struct mrdem_filter *f)
{
	struct tree_run *r = run_of(f);
	if (finish_pending(r))
		return -1;
	if (r->scene->nshapes == 0)
		return mrdem_error("%s: no mesh record in the stream (nothing to build a tree for)",
				   r->src);
	/* kept trees have the shape they were built with, analytic shapes
	 * have none: the options would go unused */
	if (r->shaping && !r->built) {
		r->misused = 1;
		if (!r->kept)
			return mrdem_error("%s: no shape has a mesh to build a tree for (analytic "
					   "shapes need none), so the tree options shape nothing",
					   r->src);
		return mrdem_error("%s: every shape has its tree already, so the tree options "
				   "shape nothing; --rebuild replaces the trees", r->src);
	}
	return 0;
}

/* Options into r (zeroed first). Returns 0, or the exit status 2 for a
 * usage error; after --help, 0 with r->help set. */
static int parse_options(struct tree_run *r, int argc, char **argv)
{
	static const struct option opts[] = {
		{"fanout", required_argument, NULL, OPT_FANOUT},
		{"leaf", required_argument, NULL, OPT_LEAF},
		{"seed", required_argument, NULL, OPT_SEED},
		{"kmeans-iters", required_argument, NULL, OPT_KMEANS},
		{"beta-size", required_argument, NULL, OPT_BETA_SIZE},
		{"alpha-area", required_argument, NULL, OPT_ALPHA_AREA},
		{"alpha-inside", required_argument, NULL, OPT_ALPHA_INSIDE},
		{"beta-normal", required_argument, NULL, OPT_BETA_NORMAL},
		{"iters", required_argument, NULL, OPT_ITERS},
		{"no-refine", no_argument, NULL, OPT_NO_REFINE},
		{"rebuild", no_argument, NULL, OPT_REBUILD},
		{"verify", no_argument, NULL, OPT_VERIFY},
		{"verbose", no_argument, NULL, 'v'},
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	memset(r, 0, sizeof *r);
	mrdem_tree_params_default(&r->params);
	r->pending = -1;
	r->out = "-";
	int c, li, bad = 0;
	struct mrdem_opts_seen seen = {{0}};
	while (!bad && (c = mrdem_getopt_once(argc, argv, "vo:h", opts, &li, &seen)) != -1) {
		struct mrdem_tree_params *p = &r->params;
		char o[32] = "--";
		for (const struct option *d = opts; d->name; d++)
			if (d->val == c)
				snprintf(o, sizeof o, "--%s", d->name);
		r->shaping |= c >= OPT_FANOUT && c <= OPT_NO_REFINE;
		switch (c) {
		case OPT_FANOUT: bad = mrdem_parse_u32(o, optarg, &p->fanout); break;
		case OPT_LEAF: bad = mrdem_parse_u32(o, optarg, &p->leaf); break;
		case OPT_SEED: bad = mrdem_parse_u64(o, optarg, UINT64_MAX, &p->seed); break;
		case OPT_KMEANS: bad = mrdem_parse_u32(o, optarg, &p->kmeans_iters); break;
		case OPT_BETA_SIZE: bad = mrdem_parse_u32(o, optarg, &p->beta_size); break;
		case OPT_ALPHA_AREA: bad = mrdem_parse_double(o, optarg, &p->alpha_area); break;
		case OPT_ALPHA_INSIDE: bad = mrdem_parse_double(o, optarg, &p->alpha_inside); break;
		case OPT_BETA_NORMAL: bad = mrdem_parse_u32(o, optarg, &p->beta_normal); break;
		case OPT_ITERS: bad = mrdem_parse_u32(o, optarg, &p->iters); break;
		case OPT_NO_REFINE: p->refine = 0; break;
		case OPT_REBUILD: r->rebuild = 1; break;
		case OPT_VERIFY: r->verify = 1; break;
		case 'v': r->verbose = 1; break;
		case 'o': r->out = optarg; break;
		case 'h': fputs(usage, stdout); r->help = 1; return 0;
		default: bad = 1; break;
		}
	}
	if (bad) {
		fputs("try 'mrdem-tree --help'\n", stderr);
		return 2;
	}
	if (argc - optind > 1) {
		fputs("mrdem-tree: give at most one input (try 'mrdem-tree --help')\n", stderr);
		return 2;
	}
	if (mrdem_tree_params_check(&r->params)) {
		fputs("try 'mrdem-tree --help'\n", stderr);
		return 2;
	}
	r->in = optind < argc ? argv[optind] : "-";
	return 0;
}

int main(int argc, char **argv)
{
	mrdem_set_progname(argv[0]);
	mrdem_threads_init();
	struct tree_run r;
	int rc = parse_options(&r, argc, argv);
	if (rc || r.help)
		return rc;
	struct mrdem_filter f;
	mrdem_filter_init(&f, "mrdem-tree");
	f.takes = MRDEM_TYPE_BIT(MRDEM_REC_MESH) | MRDEM_TYPE_BIT(MRDEM_REC_TREE) |
		  MRDEM_TYPE_BIT(MRDEM_REC_SCALED_SHAPE);
	if (r.rebuild) /* trees in the input are dropped: their shapes get new ones */
		f.replaces = f.no_absorb = MRDEM_TYPE_BIT(MRDEM_REC_TREE);
	f.before = before;
	f.on_record = take;
	f.on_end = finish;
	f.ctx = &r;
	rc = mrdem_filter_run(&f, r.in, r.out, argc, argv);
	if (rc == 0 && r.verbose)
		fprintf(stderr, "mrdem-tree: %u tree(s) built, %u kept\n", r.built, r.kept);
	mrdem_filter_release(&f);
	return rc == 0 ? 0 : r.misused ? 2 : 1;
}
