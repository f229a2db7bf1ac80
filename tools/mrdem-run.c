/* mrdem-run: the driver. Runs a whole simulation of a scene in one process
 * (pairs -> contacts -> step, as library calls; implicit Euler loops the
 * contact search inside each step), or one through the separate
 * tools and real pipes with --via-pipes, and writes a frame stream. Here:
 * the options, the scene and the output stream; the loop and its other
 * parts are in tools/run/. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/dynamics/rigid_body.h"
#include "common/util/error.h"
#include "common/util/parse.h"
#include "common/util/threads.h"
#include "formats/foreign/scene_yaml.h"
#include "formats/stream/filter.h"
#include "formats/stream/meta.h"
#include "formats/stream/rank_merge.h"
#include "formats/stream/records.h"
#include "tools/run/run.h"
#ifdef MRDEM_MPI
#include <mpi.h>

#include "tools/run/mpi/exchange.h"
#endif

/* The tool's name: the MPI build is another tool (docs/parallel.md). */
#ifdef MRDEM_MPI
#define RUN_TOOL "mrdem-run-mpi"
#else
#define RUN_TOOL "mrdem-run"
#endif

static const char usage_head[] =
	"usage: " RUN_TOOL " [options] SCENE\n"
	"\n"
	"Simulate SCENE (a YAML scene, docs/scene.md, named *.yaml or *.yml, or a\n"
	"state stream whose last frame is the start; '-': a stream on standard\n"
	"input; a directory: the streams of a parallel run's ranks, merged as\n"
	"mrdem-merge does, docs/parallel.md): broad phase, contact detection and a rigid-body step\n"
	"per time step (implicit Euler: Picard iterations of contact detection and\n"
	"forces per step, docs/dynamics.md). Writes the setup, the shapes\n"
	"with their surrogate trees, and every --every steps a frame with its pairs,\n"
	"contacts and statistics, flushed so a killed run keeps its frames. The last\n"
	"frame is always written. Frames hold velocities at their time: velocity\n"
	"Verlet's are synchronised with the forces at the frame as it is written,\n"
	"the half-step ones a resumed run goes on from in velocity_half and\n"
	"angular_velocity_half (docs/dynamics.md). A progress bar goes to standard\n"
	"error when it is a terminal, and a summary at the end.\n"
	"\n"
	"  -o FILE           output stream (default: standard output)\n"
	"  --steps N         number of steps (default: the scene's time.steps)\n"
	"  --every N         write a frame every N steps (default: output.every)\n"
	"  --dt S            time step in seconds (default: time.dt)\n"
	"  --scheme S        explicit-euler, symplectic-euler, velocity-verlet or\n"
	"                    implicit-euler\n";
static const char usage_middle[] =
	"                    With an explicit scheme (surrogate hierarchy, in process):\n"
	"                    each mesh pair's search starts where the last step's\n"
	"                    stopped (its front, kept with a motion bound; the same\n"
	"                    contacts), or at the two roots, Alg. 5 (the default)\n"
	"  --broad M         broad phase: sap, mr, mmr, grid or brute (default: the\n"
	"                    scene's contact.broad, else sap for at most 256 particles\n"
	"                    and no insert, mr otherwise); all give the same pairs\n"
	"  --max-energy-growth X  stop when a step gains more energy than X times the\n"
	"                    kinetic and contact energy before it, or the last 1000\n"
	"                    steps more than X times the kinetic, contact and potential\n"
	"                    energy at their start (default 1; 0: both off)\n"
	"  --allow-overlap   start even when the initial overlaps hold more energy than\n"
	"                    the scene's kinetic and potential energy (as the scene key\n"
	"                    contact.allow_overlap: true)\n";
#ifdef MRDEM_MPI
static const char usage_mpi[] =
	"\n"
	"mrdem-run-mpi (mpirun -np N mrdem-run-mpi SCENE -o DIR): the scene cut into\n"
	"a brick grid of N ranks (docs/parallel.md); explicit schemes. Each rank\n"
	"writes DIR/rank-K.mrd; 'mrdem-merge DIR -o FILE' makes of them the stream\n"
	"mrdem-run writes.\n"
	"  --ranks X,Y,Z     the grid of ranks (default: the boxes closest to cubes)\n";
#else
static const char usage_mpi[] = "";
#endif
static const char usage_tail[] =
	"  --via-pipes       run every step as mrdem-pairs | mrdem-contact | mrdem-step\n"
	"                    through real pipes, implicit Euler once per Picard\n"
	"                    iteration (same results, bit for bit)\n"
	"  --fast-spheres    a scene of analytic spheres only, spring-dashpot, velocity\n"
	"                    Verlet: step it on the sphere fast path (Verlet list, skin\n"
	"                    0.1 x the smallest radius; docs/dynamics.md), equal to the\n"
	"                    general path to rounding; writes frames only (no pairs,\n"
	"                    contacts or stats records) and has no energy bound; not\n"
	"                    with --via-pipes, --log-view, --max-energy-growth or\n"
	"                    contact options. Chosen by itself for a scene it covers\n"
	"                    when none of those is given\n"
	"  --general-path    never the sphere fast path: every record, every check\n"
	"  --log-view        at the end, a per-stage performance log on standard error\n"
	"                    (calls, time, share of the step, work counters and rates;\n"
	"                    docs/driver.md), and a stats record of stage times per\n"
	"                    written frame (not with --via-pipes)\n"
	"  -q, --quiet       no progress bar and no summary (--log-view still prints)\n"
	"  -h, --help        show this help\n"
	"\n"
	"A start at step 0 (a YAML scene, or a stream at its first frame) is searched\n"
	"for contacts first: overlaps deeper than 0.5 of the two halos are reported,\n"
	"and a start whose contact energy exceeds its kinetic energy plus gravity's\n"
	"potential energy above the lowest particle is refused (exit 1, no output)\n"
	"unless allowed; the summary names the start's contact energy. Besides the\n"
	"per-step energy bound, the run stops when the energy grows beyond the bound\n"
	"over a window of steps, a particle moves further than its halo in one step\n"
	"(explicit schemes: implicit Euler searches where its steps go), or a\n"
	"particle leaves the scene's bounds (docs/dynamics.md, \"Stability\n"
	"guard\"): exit 1, the step and particle named, and the output ends with the\n"
	"frame that step started from.\n"
	"\n"
	"The hierarchy defaults to surrogate here: shapes without a tree get one\n"
	"built first (docs/surrogate-trees.md), for multiscale too.\n"
	"\n"
	"Exit status: 0 success, 1 error (bad input, failed computation), 2 usage\n"
	"error (unknown option, bad option value, an option given twice, too many\n"
	"arguments).\n";


static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

/* Whether path is a file that opens and does not start with the gzip
 * magic of a stream (standard input is not looked at). */
static int opens_without_gzip_magic(const char *path)
{
	unsigned char m[2];
	FILE *fp = strcmp(path, "-") ? fopen(path, "rb") : NULL;
	if (!fp)
		return 0;
	int gz = fread(m, 1, 2, fp) == 2 && m[0] == 0x1f && m[1] == 0x8b;
	fclose(fp);
	return !gz;
}

/* Where the stream's last frame record was, for messages about it. */
static int note_frame(struct mrdem_filter *f, const struct mrdem_record *rec)
{
	if (rec->type == MRDEM_REC_FRAME)
		*(struct mrdem_record *)f->ctx = *rec;
	return 0;
}

/* A YAML scene, or the setup, shapes and last complete frame of a stream:
 * a run killed mid-way resumes from what it wrote. */
static int load_stream(struct run *r, const char *path);

static int load(struct run *r, const char *path)
{
	if (has_suffix(path, ".yaml") || has_suffix(path, ".yml"))
		return mrdem_scene_load_yaml(path, &r->scene);
	if (mrdem_is_rank_dir(path)) {
		/* a parallel run's parts: their merge, whose last frame is the start */
		char tmp[4096];
		if (mrdem_rank_dir_merge_temp(path, tmp, sizeof tmp))
			return -1;
		int rc = load_stream(r, tmp);
		unlink(tmp);
		return rc;
	}
	return load_stream(r, path);
}

static int load_stream(struct run *r, const char *path)
{
	struct mrdem_filter f;
	struct mrdem_record last = {0};
	mrdem_filter_init(&f, "mrdem-run");
	f.read_flags = MRDEM_READ_RECOVER;
	f.before = note_frame;
	f.ctx = &last;
	int rc = mrdem_filter_run(&f, path, NULL, 0, NULL);
	if (rc && opens_without_gzip_magic(path)) /* a YAML scene by another name? */
		mrdem_error("%s: a YAML scene needs the suffix .yaml or .yml", path);
	if (rc == 0 && !f.total_frames)
		rc = mrdem_error("%s: the stream has no frame to start from", path);
	/* A frame valid for contact detection that no step can take (a free
	 * particle of density 0): refused here, naming the stream and record,
	 * on every path (the sphere fast path would carry it on silently). */
	char why[160];
	long bad = rc ? -1 : mrdem_particles_unsteppable(&f.scene.frame.p, why, sizeof why);
	if (bad >= 0) {
		last.data = NULL;
		rc = mrdem_record_error(&last, strcmp(path, "-") ? path : "<stdin>",
					"particle %ld (id %llu): %s",
					bad, (unsigned long long)f.scene.frame.p.id[bad], why);
	}
	if (rc == 0 && f.damaged)
		mrdem_warning("%s: resuming from step %llu (t = %.9g s), the last of %llu complete "
			      "frame(s)", path, (unsigned long long)f.scene.frame.step,
			      f.scene.frame.time, (unsigned long long)f.total_frames);
	if (rc == 0) {
		mrdem_scene_release(&r->scene);
		r->scene = f.scene;
		mrdem_scene_init(&f.scene);
	}
	mrdem_filter_release(&f);
	return rc;
}

/* The meta record: this command, and the scene it ran. */
static int write_meta(struct run *r, const char *scene, int argc, char **argv)
{
	struct mrdem_meta m;
	mrdem_meta_init(&m, RUN_TOOL, argc, argv);
	int rc = 0;
	if (has_suffix(scene, ".yaml") || has_suffix(scene, ".yml"))
		rc = mrdem_meta_add_scene(&m, scene, &r->scene);
	else
		mrdem_meta_add(&m, "resumed_from", scene);
#ifdef MRDEM_MPI
	char v[32];
	snprintf(v, sizeof v, "%d", r->rank);
	mrdem_meta_add(&m, "rank", v);
	snprintf(v, sizeof v, "%d", r->nranks);
	mrdem_meta_add(&m, "ranks", v);
	mrdem_meta_add(&m, "run", r->run_id);
	mrdem_meta_add(&m, "grid", r->grid_name);
#endif
	rc = rc || mrdem_write_meta(&r->w, &m);
	mrdem_meta_release(&m);
	return rc;
}

/* ---- options and main */

/* The command line. Values are checked before the scene is read, so a bad
 * one is a usage error whatever the scene; they are applied over its
 * defaults after (apply_options), so each is kept as given too. */
struct options {
	const char *scene, *out;
	const char *steps, *every, *dt, *scheme, *broad, *growth;
	/* Picard options given: for implicit-euler, for multiscale only;
	 * --warm-start or --cold-start (start_given), warm the last of them */
	int picard_given, multiscale_given, start_given, warm;
	struct mrdem_picard_opts picard;
	uint64_t steps_v, every_v;
	double dt_v, growth_v;
	int scheme_v, broad_v;
	struct mrdem_contact_opts contact;
	/* the backends options chose (a bit per entry of chosen_by_option);
	 * none: the default, or one chosen by itself */
	unsigned backends;
	int quiet, help, log_view, general_path, contact_given;
	int allow_overlap;
	const char *ranks;  /* mrdem-run-mpi: --ranks X,Y,Z */
	int ranks_v[3];
};

/* The options given that a backend may not take (enum run_option). */
static unsigned options_given(const struct options *o)
{
	return (o->log_view ? RUN_OPT_LOG_VIEW : 0) | (o->growth ? RUN_OPT_ENERGY_BOUND : 0) |
	       (o->contact_given ? RUN_OPT_CONTACT : 0) |
	       (o->contact.keep_fronts ? RUN_OPT_FRONTS : 0);
}

/* The backends an option chooses (struct run_backend, option). */
static const struct run_backend *const chosen_by_option[] = { &run_via_pipes, &run_sphere_fast };
enum { BACKEND_OPTIONS = sizeof chosen_by_option / sizeof chosen_by_option[0] };

/* The backend the options chose, NULL: none. */
static const struct run_backend *backend_chosen(const struct options *o)
{
	for (int k = 0; k < BACKEND_OPTIONS; k++)
		if (o->backends & 1u << k)
			return chosen_by_option[k];
	return NULL;
}

/* The backends chosen by option against the options they cannot take. */
static int check_backends(const struct options *o)
{
	int bad = 0;
	for (int k = 0; k < BACKEND_OPTIONS; k++) {
		const struct run_backend *b = chosen_by_option[k];
		if (!(o->backends & 1u << k))
			continue;
		unsigned given = options_given(o);
		if (o->backends & ~(1u << k))
			given |= RUN_OPT_OTHER_BACKEND;
		if (given & b->refuses)
			bad = mrdem_error("%s", b->refusal);
		/* --general-path: never a backend chosen by itself */
		if (b->automatic && o->general_path)
			bad = mrdem_error("--%s and --general-path: choose one", b->option);
	}
	return bad;
}

#ifdef MRDEM_MPI
/* --ranks X,Y,Z: three counts of ranks along the axes, 0 for one chosen. */
static int mrdem_parse_ranks(const char *arg, int v[3])
{
	const char *at = arg;
	for (int k = 0; k < 3; k++) {
		char *end;
		long x = strtol(at, &end, 10);
		if (end == at || x < 0 || x > 1 << 20 || *end != (k < 2 ? ',' : '\0'))
			return mrdem_error("--ranks: '%s' is not X,Y,Z (three counts of ranks along "
					   "x, y and z; 0 for one chosen)", arg);
		v[k] = (int)x;
		at = end + 1;
	}
	return 0;
}
#endif

/* The values and combinations of the options given, after bad from their
 * parsing: 0, or nonzero after reporting each that is wrong. */
static int check_options(struct options *o, int bad)
{
	int multiscale = o->contact.hierarchy == MRDEM_HIERARCHY_MULTISCALE;
	/* explicit schemes: the search of each step from the last one's fronts */
	o->contact.keep_fronts = o->start_given && o->warm && !multiscale;
	if (o->steps)
		bad |= mrdem_parse_u64("--steps", o->steps, UINT64_MAX - 1, &o->steps_v);
	if (o->every)
		bad |= mrdem_parse_u64_range("--every", o->every, 1, UINT64_MAX, &o->every_v);
	if (o->dt)
		bad |= mrdem_parse_positive("--dt", o->dt, &o->dt_v);
	if (o->growth) {
		bad |= mrdem_parse_double("--max-energy-growth", o->growth, &o->growth_v);
		if (!bad && o->growth_v < 0)
			bad = mrdem_error("--max-energy-growth: '%s' must not be negative", o->growth);
	}
	if (check_backends(o))
		bad = 1;
#ifdef MRDEM_MPI
	if (o->backends)
		bad = mrdem_error("mrdem-run-mpi runs every rank in process: --via-pipes and "
				  "--fast-spheres are mrdem-run's");
	if (o->ranks && mrdem_parse_ranks(o->ranks, o->ranks_v))
		bad = 1;
#endif
	if (o->multiscale_given && !multiscale)
		bad = mrdem_error("--surrogate-damping applies to --hierarchy multiscale only");
	if (o->start_given && !multiscale && o->contact.hierarchy != MRDEM_HIERARCHY_SURROGATE)
		bad = mrdem_error("--warm-start and --cold-start choose where the fronts of the "
				  "surrogate trees start: --hierarchy %s has none",
				  mrdem_hierarchy_name(o->contact.hierarchy));
#ifdef MRDEM_MPI
	if (o->contact.keep_fronts)
		bad = mrdem_error("mrdem-run-mpi searches from the roots every step (--warm-start "
				  "is mrdem-run's, docs/parallel.md)");
#endif
	if (mrdem_contact_opts_check(&o->contact))
		bad = 1;
	if (o->scheme && (o->scheme_v = mrdem_scheme_parse(o->scheme)) < 0)
		bad = mrdem_error("--scheme: unknown scheme '%s'", o->scheme);
	if (o->broad && (o->broad_v = mrdem_broad_method_option("--broad", o->broad)) < 0)
		bad = -1;
	return bad;
}

enum { OPT_STEPS = 256, OPT_EVERY, OPT_DT, OPT_SCHEME, OPT_BROAD, OPT_GROWTH, OPT_BACKEND,
       OPT_NO_MERGE, OPT_CONTACT, OPT_PICARD, OPT_MULTISCALE, OPT_START, OPT_LOG_VIEW,
       OPT_GENERAL_PATH, OPT_ALLOW_OVERLAP, OPT_RANKS };
static const struct option longopts[] = {
	{"steps", required_argument, NULL, OPT_STEPS},
	{"every", required_argument, NULL, OPT_EVERY},
	{"dt", required_argument, NULL, OPT_DT},
	{"scheme", required_argument, NULL, OPT_SCHEME},
	{"broad", required_argument, NULL, OPT_BROAD},
	{"max-energy-growth", required_argument, NULL, OPT_GROWTH},
	{"via-pipes", no_argument, NULL, OPT_BACKEND},
	{"allow-overlap", no_argument, NULL, OPT_ALLOW_OVERLAP},
	{"picard-tol", required_argument, NULL, OPT_PICARD},
	{"picard-max", required_argument, NULL, OPT_PICARD},
	{"picard-retries", required_argument, NULL, OPT_PICARD},
	{"surrogate-damping", required_argument, NULL, OPT_MULTISCALE},
	{"warm-start", no_argument, NULL, OPT_START},
	{"cold-start", no_argument, NULL, OPT_START},
	{"no-merge", no_argument, NULL, OPT_NO_MERGE},
	{"log-view", no_argument, NULL, OPT_LOG_VIEW},
	{"fast-spheres", no_argument, NULL, OPT_BACKEND},
	{"general-path", no_argument, NULL, OPT_GENERAL_PATH},
	{"hierarchy", required_argument, NULL, OPT_CONTACT},
	{"method", required_argument, NULL, OPT_CONTACT},
	{"iterations", required_argument, NULL, OPT_CONTACT},
	{"threshold", required_argument, NULL, OPT_CONTACT},
	{"simd", required_argument, NULL, OPT_CONTACT},
#ifdef MRDEM_MPI
	{"ranks", required_argument, NULL, OPT_RANKS},
#endif
	{"quiet", no_argument, NULL, 'q'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* Options into o (reset first). Returns 0, or the exit status 2 for a
 * usage error; after --help, 0 with o->help set. */
static int parse_options(struct options *o, int argc, char **argv)
{
	memset(o, 0, sizeof *o);
	mrdem_contact_opts_default(&o->contact);
	o->contact.hierarchy = MRDEM_HIERARCHY_SURROGATE;
	mrdem_picard_opts_default(&o->picard);
	int c, li, bad = 0;
	struct mrdem_opts_seen seen = {{0}};
	while ((c = mrdem_getopt_once(argc, argv, "o:qh", longopts, &li, &seen)) != -1) {
		switch (c) {
		case OPT_STEPS: o->steps = optarg; break;
		case OPT_EVERY: o->every = optarg; break;
		case OPT_DT: o->dt = optarg; break;
		case OPT_SCHEME: o->scheme = optarg; break;
		case OPT_BROAD: o->broad = optarg; break;
		case OPT_GROWTH: o->growth = optarg; break;
		case OPT_BACKEND:
			for (int k = 0; k < BACKEND_OPTIONS; k++)
				if (!strcmp(chosen_by_option[k]->option, longopts[li].name))
					o->backends |= 1u << k;
			break;
		case OPT_ALLOW_OVERLAP: o->allow_overlap = 1; break;
		case OPT_RANKS: o->ranks = optarg; break;
		case OPT_LOG_VIEW: o->log_view = 1; break;
		case OPT_GENERAL_PATH: o->general_path = 1; break;
		case OPT_PICARD:
		case OPT_MULTISCALE:
			bad |= mrdem_picard_opts_set(&o->picard, longopts[li].name, optarg);
			*(c == OPT_PICARD ? &o->picard_given : &o->multiscale_given) = 1;
			break;
		case OPT_START:
			bad |= mrdem_picard_opts_set(&o->picard, longopts[li].name, optarg);
			o->start_given = 1;
			o->warm = longopts[li].name[0] == 'w';
			break;
		case OPT_NO_MERGE: o->contact.merge = 0; o->contact_given = 1; break;
		case OPT_CONTACT:
			if (mrdem_contact_opts_set(&o->contact, longopts[li].name, optarg))
				return 2;
			o->contact_given = 1;
			break;
		case 'o': o->out = optarg; break;
		case 'q': o->quiet = 1; break;
		case 'h':
			printf("%s%s%s%s%s%s", usage_head, mrdem_picard_opts_usage, usage_middle,
			       mrdem_contact_opts_usage, usage_tail, usage_mpi);
			o->help = 1;
			return 0;
		default: fputs("try '" RUN_TOOL " --help'\n", stderr); return 2;
		}
	}
	if (argc - optind != 1) {
		fputs(RUN_TOOL ": give one scene (try '" RUN_TOOL " --help')\n", stderr);
		return 2;
	}
	o->scene = argv[optind];
	return check_options(o, bad) ? 2 : 0;
}

/* The options over the defaults of the scene just read, which then
 * records what the run uses. Returns 0, or an exit status. */
static int apply_options(struct run *r, const struct options *o)
{
	r->out = o->out;
	r->backend = backend_chosen(o) ? backend_chosen(o) : &run_in_process;
#ifdef MRDEM_MPI
	r->backend = &run_mpi;
	memcpy(r->ranks_given, o->ranks_v, sizeof r->ranks_given);
#endif
	r->log_view = o->log_view;
	r->quiet = o->quiet;
	r->allow_overlap = o->allow_overlap || r->scene.setup.allow_overlap;
	mrdem_sim_opts_default(&r->opts, &r->scene);
	r->opts.contact = o->contact;
	if (o->contact.hierarchy == MRDEM_HIERARCHY_AUTO)
		r->opts.contact.hierarchy = MRDEM_HIERARCHY_SURROGATE;
	r->steps = o->steps ? o->steps_v : r->scene.setup.steps;
	/* A resumed run goes on from its frame's step: the last step's number
	 * must fit the counter (a wrapped one would go back to step 0). */
	uint64_t start = r->scene.frame.step;
	if (start > UINT64_MAX - r->steps) {
		mrdem_error("%s: resuming at step %llu, %llu more steps (%s) would pass the "
			    "largest step number %llu; give --steps %llu or fewer",
			    o->scene, (unsigned long long)start, (unsigned long long)r->steps,
			    o->steps ? "--steps" : "time.steps of its setup record",
			    (unsigned long long)UINT64_MAX, (unsigned long long)(UINT64_MAX - start));
		return o->steps ? 2 : 1;
	}
	r->every = o->every ? o->every_v :
		   r->scene.setup.output_every ? r->scene.setup.output_every : 1;
	if (o->dt)
		r->opts.step.dt = o->dt_v;
	if (o->growth)
		r->opts.step.max_energy_growth = o->growth_v;
	if (o->scheme)
		r->opts.step.scheme = o->scheme_v;
	if (o->broad)
		r->opts.broad = o->broad_v;
	int implicit = r->opts.step.scheme == MRDEM_SCHEME_IMPLICIT_EULER;
	if (!implicit && o->contact.hierarchy == MRDEM_HIERARCHY_MULTISCALE) {
		mrdem_error("--hierarchy multiscale fuses the search into the Picard loop of "
			    "implicit-euler (paper Alg. 6), and this run uses %s; add --scheme "
			    "implicit-euler, or use flat or surrogate",
			    mrdem_scheme_name(r->opts.step.scheme));
		return 2;
	}
	if (implicit && o->start_given && o->contact.hierarchy != MRDEM_HIERARCHY_MULTISCALE) {
		mrdem_error("--warm-start and --cold-start apply to the search of an explicit "
			    "scheme or to --hierarchy multiscale, and this run uses implicit-euler "
			    "with the %s hierarchy", mrdem_hierarchy_name(o->contact.hierarchy));
		return 2;
	}
	if (!implicit && o->picard_given) {
		mrdem_error("--picard-tol, --picard-max and --picard-retries apply to implicit-euler "
			    "only, and this run uses %s", mrdem_scheme_name(r->opts.step.scheme));
		return 2;
	}
	r->opts.picard = o->picard;
	r->scene.setup.steps = r->steps;
	r->scene.setup.output_every = r->every;
	r->scene.setup.dt = r->opts.step.dt;
	r->scene.setup.scheme = r->opts.step.scheme;
	r->progress = !r->quiet && isatty(2);
	/* A backend by itself when it covers the scene and no option asks
	 * for another or for what it refuses. */
	char why[256];
	int automatic = !o->backends && !o->general_path;
#ifdef MRDEM_MPI
	automatic = 0;
#endif
	for (int k = 0; k < BACKEND_OPTIONS && automatic; k++) {
		const struct run_backend *b = chosen_by_option[k];
		if (b->automatic && !(options_given(o) & b->refuses) &&
		    (!b->covers || b->covers(&r->scene, why, sizeof why))) {
			r->backend = b;
			r->backend_auto = 1;
			break;
		}
	}
	if (r->backend->covers && !r->backend->covers(&r->scene, why, sizeof why)) {
		mrdem_error("%s: --%s does not cover this scene: %s", o->scene, r->backend->option,
			    why);
		return 1;
	}
	return 0;
}

/* The start's overlaps (r->start, measured): at step 0 they are reported,
 * and refused when they would throw the particles apart
 * (common/sim/overlap.h). Before any output. */
static int judge_start(struct run *r, const char *scene)
{
	r->have_start = 1;
	if (r->scene.frame.step != 0 || !r->start.deep)
		return 0;
	char what[512];
	mrdem_overlap_describe(&r->start, what, sizeof what);
	if (!mrdem_overlap_excessive(&r->start) || r->allow_overlap) {
		mrdem_warning("%s: %s", scene, what);
		return 0;
	}
	return mrdem_error("%s: %s: the first steps would throw the particles apart; move them "
			   "apart, or give --allow-overlap (scene key contact.allow_overlap: true) "
			   "if the overlap is intended", scene, what);
}

/* Simulate into the output stream, with a summary. Returns 0 or -1. */
static int run_scene(struct run *r, const char *scene, int argc, char **argv)
{
	const struct run_backend *b = r->backend;
	if (mrdem_sim_prepare(&r->scene, &r->opts))
		return -1;
	if (!b->measures_start &&
	    (mrdem_overlap_measure(&r->scene, &r->opts, &r->start) || judge_start(r, scene)))
		return -1;
	/* the bounds of the whole start (an MPI rank keeps its part of it) */
	mrdem_run_guard_init(&r->guard, &r->scene, r->opts.step.dt, r->steps,
			     r->backend->start_energies ? r->opts.step.max_energy_growth : 0);
	if (b->open(r, argc, argv))
		return -1;
	if (b->measures_start) {
		/* every rank judges the same sums: the first says so */
		mrdem_set_errors(r->rank == 0);
		int bad = judge_start(r, scene);
		mrdem_set_errors(1);
		if (bad)
			return -1;
	}
	r->failure_agreed = 0;
#ifndef MRDEM_MPI
	/* Before the output exists: a signal as soon as it does ends the run
	 * cleanly (the loop looks at it before every step). An MPI run's ranks
	 * would see it at different steps: there, it ends the processes. */
	run_catch_stop_signals();
#endif
	/* Written in place and flushed per frame: a killed run keeps its frames. */
	if (mrdem_writer_open(&r->w, r->out, MRDEM_WRITE_INCREMENTAL))
		return -1;
	if (write_meta(r, scene, argc, argv)) {
		mrdem_writer_abort(&r->w);
		return -1;
	}
	/* the scheme this run steps with, --scheme included */
	r->guard.speed_on = r->opts.step.scheme != MRDEM_SCHEME_IMPLICIT_EULER;
	r->t0 = mrdem_clock();
	int rc = run_loop(r);
	r->t_loop = mrdem_clock() - r->t0;
	/* Close the stream either way once published: after a failure it still
	 * ends with the complete frames written so far. A run that failed before
	 * its first step was done leaves no output. */
	int written = !rc || mrdem_writer_published(&r->w);
	if (!written)
		mrdem_writer_abort(&r->w);
	else if (mrdem_writer_commit(&r->w))
		rc = -1;
	if (!r->quiet && written) /* else no step and no frame to report */
		run_summary(r);
	if (r->log_view && (!b->log_gather || b->log_gather(r)))
		run_log_view(r);
	return rc;
}

/* The exit status. An MPI run's failure that not every rank knows of
 * (its output, a crash of its own) ends every rank, so none waits for
 * it; the others end together. */
static int run_end(struct run *r, int status)
{
#ifdef MRDEM_MPI
	if (status && !r->failure_agreed)
		MPI_Abort(MPI_COMM_WORLD, status);
	MPI_Finalize();
#else
	(void)r;
#endif
	return status;
}

int main(int argc, char **argv)
{
	struct run r;
	struct options o;
	memset(&r, 0, sizeof r);
	mrdem_set_progname(argv[0]);
	mrdem_threads_init();
	mrdem_scene_init(&r.scene);
	struct rusage ru;
	if (!getrusage(RUSAGE_SELF, &ru))
		r.base_rss_kb = ru.ru_maxrss;
	/* every rank reads the same input to the same end until the run opens */
	r.failure_agreed = 1;
	int rc = parse_options(&o, argc, argv);
	if (rc || o.help)
		return rc;
#ifdef MRDEM_MPI
	/* after the options: --help and usage errors need no MPI */
	int provided, rank;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	mrdem_set_warnings(rank == 0);
	ranks_share_cores();
#endif
	if (load(&r, o.scene)) {
		mrdem_scene_release(&r.scene);
		return run_end(&r, 1);
	}
	if ((rc = apply_options(&r, &o))) {
		mrdem_scene_release(&r.scene);
		return run_end(&r, rc);
	}
	rc = run_scene(&r, o.scene, argc, argv);
	if (r.backend)
		r.backend->close(&r);
	mrdem_run_guard_release(&r.guard);
	free(r.saved.flags);
	free(r.saved.state);
	mrdem_history_release(&r.saved.history);
	mrdem_frame_release(&r.saved.whole);
	mrdem_scene_release(&r.scene);
	if (run_stop_signal())
		return 128 + run_stop_signal();
	return run_end(&r, rc == 0 ? 0 : 1);
}
