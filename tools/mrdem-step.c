/* mrdem-step: advance the frame of a stream by one explicit time step,
 * using the contacts computed for that frame, or run one Picard iteration
 * of an implicit Euler step (common/sim/picard.h). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dynamics/integrate.h"
#include "common/dynamics/rigid_body.h"
#include "common/dynamics/step.h"
#include "common/sim/picard.h"
#include "common/util/error.h"
#include "common/util/threads.h"
#include "common/util/parse.h"
#include "formats/stream/filter.h"
#include "formats/stream/record_picard.h"
#include "formats/stream/records.h"

static const char usage_head[] =
	"usage: mrdem-step [options] [FILE]\n"
	"\n"
	"Advance the frame of an mrdem stream (FILE, or standard input) by one time\n"
	"step with the forces of the contacts record computed for that frame\n"
	"(mrdem-contact), gravity and analytic planes. Writes the stream with the\n"
	"frame replaced by the new one (step + 1, time + dt), the consumed contacts\n"
	"and the stale pair lists dropped, every other record unchanged, and a\n"
	"stats record (source mrdem-step) with the energies and momenta of the\n"
	"state the step started from. A stream holding several frames has each\n"
	"one stepped with its own contacts.\n"
	"\n"
	"  --scheme NAME     explicit-euler, symplectic-euler, velocity-verlet or\n"
	"                    implicit-euler (default: the setup's scheme)\n"
	"  --dt SECONDS      time step (default: the setup's dt)\n"
	"  --no-contacts     step without a contacts record (gravity only); a\n"
	"                    stream that carries contacts is then refused\n"
	"  --max-energy-growth R\n"
	"                    fail when one step creates more than R times the\n"
	"                    kinetic and contact energy before it (default 1;\n"
	"                    0 disables the check)\n";
static const char usage_tail[] =
	"  -o FILE           output (default: standard output)\n"
	"  -h, --help        show this help\n"
	"\n"
	"implicit-euler runs one Picard iteration per call (docs/dynamics.md):\n"
	"given a frame and its contacts it begins the step and writes the frame\n"
	"placed at the first iterate with a picard record (the step's state); given\n"
	"that, the contacts found there (mrdem-pairs | mrdem-contact, whose stats\n"
	"record the step counts) and, for --hierarchy multiscale, the fronts and\n"
	"guesses records, it writes the next iterate, or the frame at the end of the\n"
	"step with its stats record and no picard record. A failed attempt is\n"
	"retried as two of half the time step within, with a warning. Loop:\n"
	"  while mrdem-info it.mrd | grep -q ': picard ('; do\n"
	"    mrdem-pairs it.mrd | mrdem-contact | mrdem-step -o next.mrd &&\n"
	"    mv next.mrd it.mrd; done\n"
	"The Picard options apply when a step begins; the picard record keeps them.\n"
	"\n"
	"The step stops with an error naming the step and the particle, and writes\n"
	"nothing, when the state becomes non-finite or the energy bound is broken.\n"
	"With velocity-verlet the written velocities are half a step behind the\n"
	"positions (flag half-kick) until the next step closes them: the forces at\n"
	"the new positions are the next contact search's (mrdem-run writes its\n"
	"frames synchronised); see docs/dynamics.md.\n"
	"\n"
	"Exit status: 0 success, 1 error (bad input, failed computation), 2 usage\n"
	"error (unknown option, bad option value, an option given twice, too many\n"
	"arguments).\n";

#define MAX_PICARD_OPTS 16

/* mrdem-step as a filter: its options, and the frame, contacts and
 * Picard iterate of the step under way. */
struct step_filter {
	/* options */
	const char *in, *out;
	struct mrdem_step_opts opts;
	int scheme_set, dt_set, no_contacts, help;
	int misused; /* an option the input's scheme has no use for: exit 2 */
	/* Picard options as given (key, value), applied when a step begins */
	const char *picard_key[MAX_PICARD_OPTS], *picard_value[MAX_PICARD_OPTS];
	int npicard;
	/* state */
	struct mrdem_stepper st;
	int have_setup, have_frame, have_contacts, stepped_any;
	struct mrdem_contacts contacts;
	uint64_t frame_index;   /* record index of the pending frame */
	/* implicit-euler: the step in progress and what came for its iterate */
	struct mrdem_picard pc;
	int have_picard, have_guesses, have_work;
	struct mrdem_contacts guesses;
	struct mrdem_search_work work; /* from mrdem-contact's stats record */
};

static struct mrdem_step_opts step_opts(const struct step_filter *sf, const struct mrdem_setup *setup)
{
	struct mrdem_step_opts o;
	mrdem_step_opts_default(&o, setup);
	if (sf->scheme_set)
		o.scheme = sf->opts.scheme;
	if (sf->dt_set)
		o.dt = sf->opts.dt;
	o.max_energy_growth = sf->opts.max_energy_growth;
	return o;
}

static int implicit(const struct step_filter *sf, const struct mrdem_filter *f)
{
	return step_opts(sf, &f->scene.setup).scheme == MRDEM_SCHEME_IMPLICIT_EULER;
}

/* Forget what came for the pending frame. */
static void clear_frame(struct step_filter *sf)
{
	if (sf->have_contacts)
		mrdem_contacts_release(&sf->contacts);
	if (sf->have_guesses)
		mrdem_contacts_release(&sf->guesses);
	mrdem_front_store_free(sf->pc.fronts);
	sf->pc.fronts = NULL;
	sf->have_frame = sf->have_contacts = sf->have_guesses = sf->have_picard = sf->have_work = 0;
}

/* Step the pending frame with the pending contacts and write the result. */
static int step_frame(struct mrdem_filter *f)
{
	struct step_filter *sf = f->ctx;
	struct mrdem_step_opts o = step_opts(sf, &f->scene.setup);
	/* --scheme other than implicit-euler is refused with them at once; the
	 * setup's scheme is known only now, and they must not go unused */
	if (sf->npicard) {
		sf->misused = 1;
		return mrdem_error("%s: the Picard options apply to implicit-euler only, but the "
				   "frame of record %llu is stepped with the setup's scheme %s "
				   "(--scheme implicit-euler to change it)", f->src,
				   (unsigned long long)sf->frame_index, mrdem_scheme_name(o.scheme));
	}
	if (mrdem_stepper_step(&sf->st, &f->scene, sf->have_contacts ? &sf->contacts : NULL, &o))
		return mrdem_error("%s: cannot step the frame of record %llu", f->src,
				   (unsigned long long)sf->frame_index);
	struct mrdem_stats stats;
	mrdem_stats_init(&stats, f->tool, sf->st.step);
	mrdem_stepper_stats(&sf->st, &stats);
	int rc = mrdem_write_frame(&f->w, &f->scene.frame) || mrdem_write_stats(&f->w, &stats);
	mrdem_stats_release(&stats);
	clear_frame(sf);
	sf->stepped_any = 1;
	return rc ? -1 : 0;
}

/* The Picard options of the step in progress must be those given. */
static int same_picard_opts(const struct step_filter *sf, const struct mrdem_filter *f)
{
	struct mrdem_picard_opts given = sf->pc.opts;
	const struct mrdem_picard_opts *kept = &sf->pc.opts;
	for (int k = 0; k < sf->npicard; k++)
		mrdem_picard_opts_set(&given, sf->picard_key[k], sf->picard_value[k]);
	if (given.tol != kept->tol || given.max_iter != kept->max_iter ||
	    given.max_retries != kept->max_retries || given.damping != kept->damping ||
	    given.warm_start != kept->warm_start)
		return mrdem_error("%s: the step in progress (picard record) began with other Picard "
				   "options (tolerance %g, at most %u iterations, %u retries, "
				   "damping %g, %s start); they apply when a step begins", f->src,
				   kept->tol, kept->max_iter, kept->max_retries, kept->damping,
				   kept->warm_start ? "warm" : "cold");
	if (sf->dt_set && sf->opts.dt != sf->st.dt)
		return mrdem_error("%s: --dt %g, but the step in progress has dt %g s", f->src,
				   sf->opts.dt, sf->st.dt);
	return 0;
}

/* The iterate, its Picard record and fronts (when there are). */
static int write_iterate(struct mrdem_filter *f)
{
	struct step_filter *sf = f->ctx;
	return mrdem_write_frame(&f->w, &f->scene.frame) ||
	       mrdem_write_picard(&f->w, &sf->pc, &sf->st) ||
	       (sf->pc.fronts && mrdem_write_fronts(&f->w, sf->pc.fronts)) ? -1 : 0;
}

/* One Picard iteration of the pending frame: begin a step, or take the
 * contacts at the iterate and move on (common/sim/picard.h). */
static int iterate_frame(struct mrdem_filter *f)
{
	struct step_filter *sf = f->ctx;
	struct mrdem_scene *s = &f->scene;
	struct mrdem_step_opts o = step_opts(sf, &s->setup);
	const char *src = f->src;
	unsigned long long at = (unsigned long long)sf->frame_index;
	int rc;
	if (sf->no_contacts) {
		sf->misused = 1;
		return mrdem_error("%s: --no-contacts steps explicit schemes only; an implicit step "
				   "searches its own contacts", src);
	}
	if (!sf->have_contacts)
		return mrdem_error("%s: the frame of record %llu has no contacts record; run "
				   "mrdem-contact first", src, at);
	if (!sf->have_picard) {
		struct mrdem_picard_opts po;
		mrdem_picard_opts_default(&po);
		for (int k = 0; k < sf->npicard; k++)
			mrdem_picard_opts_set(&po, sf->picard_key[k], sf->picard_value[k]);
		if (sf->have_guesses)
			return mrdem_error("%s: a guesses record without a step in progress (no picard "
					   "record after the frame of record %llu)", src, at);
		if (mrdem_stepper_begin(&sf->st, s, &sf->contacts, &o) ||
		    mrdem_picard_begin(&sf->pc, &po, s, o.dt) < 0)
			return mrdem_error("%s: cannot begin the implicit step of the frame of record "
					   "%llu", src, at);
		rc = write_iterate(f);
	} else {
		if (same_picard_opts(sf, f))
			return -1;
		if (!sf->have_work)
			return mrdem_error("%s: the iterate of record %llu has no stats record of "
					   "mrdem-contact (the step counts its work)", src, at);
		if (!sf->pc.fronts != !sf->have_guesses)
			return mrdem_error("%s: the iterate of record %llu has %s: a multiscale "
					   "iteration needs both (mrdem-contact --hierarchy "
					   "multiscale), other hierarchies neither", src, at,
					   sf->pc.fronts ? "fronts but no guesses" :
							  "guesses but no fronts");
		o.dt = sf->st.dt;
		if (mrdem_stepper_bind(&sf->st, s))
			return -1;
		rc = mrdem_picard_respond(&sf->pc, s, &sf->st.bodies, &sf->st.index, &sf->contacts,
					  sf->have_guesses ? &sf->guesses : NULL, &sf->work);
		if (rc < 0)
			return mrdem_error("%s: the implicit step of the iterate of record %llu failed",
					   src, at);
		if (rc == MRDEM_PICARD_MORE) {
			rc = write_iterate(f);
		} else {
			mrdem_wall_forces_collect(&sf->st.walls, s, &sf->pc.forces);
			if (mrdem_stepper_finish(&sf->st, s, &o))
				return -1;
			struct mrdem_stats stats;
			mrdem_stats_init(&stats, f->tool, sf->st.step);
			mrdem_stepper_stats(&sf->st, &stats);
			mrdem_picard_stats(&sf->pc.last, &stats);
			rc = mrdem_write_frame(&f->w, &s->frame) || mrdem_write_stats(&f->w, &stats) ||
			     (sf->pc.fronts && mrdem_write_fronts(&f->w, sf->pc.fronts));
			mrdem_stats_release(&stats);
		}
	}
	clear_frame(sf);
	sf->stepped_any = 1;
	return rc ? -1 : 0;
}

/* A frame must have had its contacts before the next one replaces it; an
 * implicit iteration runs when its frame's records are all in. */
static int before(struct mrdem_filter *f, const struct mrdem_record *rec)
{
	struct step_filter *sf = f->ctx;
	/* --no-contacts: the frame's history record (if any) is the last one
	 * the step needs */
	if (sf->have_frame && sf->no_contacts && !implicit(sf, f) && rec->type != MRDEM_REC_HISTORY &&
	    step_frame(f))
		return -1;
	sf->have_setup |= rec->type == MRDEM_REC_SETUP;
	if (rec->type != MRDEM_REC_FRAME || !sf->have_frame)
		return 0;
	if (implicit(sf, f))
		return iterate_frame(f);
	return mrdem_error("%s: frame of record %llu has no contacts record before the next "
			   "frame (record %llu); run mrdem-contact first, or --no-contacts",
			   f->src, (unsigned long long)sf->frame_index, (unsigned long long)rec->index);
}

/* The records of an implicit iteration. Returns 1 when taken. */
static int take_implicit(struct mrdem_filter *f, const struct mrdem_record *rec)
{
	struct step_filter *sf = f->ctx;
	const char *src = f->src;
	unsigned long long at = (unsigned long long)rec->index;
	if (!sf->have_frame && rec->type == MRDEM_REC_STATS)
		return 0; /* about the shapes, say: passed on */
	if (!sf->have_frame)
		return mrdem_error("%s: record %llu (%s) without its frame", src, at,
				   mrdem_record_name(rec->type));
	switch (rec->type) {
	case MRDEM_REC_PICARD:
		if (sf->have_picard)
			return mrdem_error("%s: record %llu: a second picard record for one frame", src,
					   at);
		if (mrdem_decode_picard(rec, src, &sf->pc, &sf->st))
			return -1;
		if (sf->st.step != f->scene.frame.step || sf->pc.n != f->scene.frame.p.n)
			return mrdem_error("%s: record %llu: the picard record is for step %llu with "
					   "%zu particles, its frame is step %llu with %zu", src, at,
					   (unsigned long long)sf->st.step, sf->pc.n,
					   (unsigned long long)f->scene.frame.step,
					   f->scene.frame.p.n);
		sf->have_picard = 1;
		return 1;
	case MRDEM_REC_FRONTS:
		if (sf->pc.fronts)
			return mrdem_error("%s: record %llu: a second fronts record for one frame", src,
					   at);
		return mrdem_decode_fronts(rec, src, &sf->pc.fronts) ? -1 : 1;
	case MRDEM_REC_GUESSES:
		if (sf->have_guesses)
			return mrdem_error("%s: record %llu: a second guesses record for one frame",
					   src, at);
		if (mrdem_decode_contacts(rec, src, &sf->guesses))
			return -1;
		sf->have_guesses = 1;
		return 1;
	default: { /* stats: the search's work counts; all describe the iterate */
		struct mrdem_stats st;
		if (mrdem_decode_stats(rec, src, &st))
			return -1;
		int rc = 0;
		if (!strcmp(st.source, "mrdem-contact")) {
			rc = mrdem_search_work_of_stats(&sf->work, &st);
			sf->have_work = 1;
		}
		mrdem_stats_release(&st);
		return rc ? -1 : 1;
	}
	}
}

static int take(struct mrdem_filter *f, const struct mrdem_record *rec)
{
	struct step_filter *sf = f->ctx;
	int imp = implicit(sf, f);
	switch (rec->type) {
	case MRDEM_REC_FRAME:
		if (!sf->have_setup)
			return mrdem_error("%s: record %llu: frame before any setup record", f->src,
					   (unsigned long long)rec->index);
		sf->have_frame = 1;
		sf->frame_index = rec->index;
		/* as mrdem-run: one line naming the record (detection tools
		 * take a free particle of density 0, a step cannot) */
		char why[160];
		long bad = mrdem_particles_unsteppable(&f->scene.frame.p, why, sizeof why);
		if (bad >= 0)
			return mrdem_record_error(rec, f->src, "particle %ld (id %llu): %s", bad,
						  (unsigned long long)f->scene.frame.p.id[bad], why);
		break;
	case MRDEM_REC_CONTACTS:
		if (sf->no_contacts)
			return mrdem_error("%s: record %llu: --no-contacts given, but the stream "
					   "carries contacts", f->src, (unsigned long long)rec->index);
		if (sf->have_contacts)
			return mrdem_error("%s: record %llu: a second contacts record for one frame",
					   f->src, (unsigned long long)rec->index);
		if (mrdem_decode_contacts(rec, f->src, &sf->contacts))
			return -1;
		sf->have_contacts = 1;
		break;
	case MRDEM_REC_PICARD:
		if (!imp)
			return mrdem_error("%s: record %llu: an implicit step in progress (picard "
					   "record), but the scheme is %s; continue it with --scheme "
					   "implicit-euler", f->src, (unsigned long long)rec->index,
					   mrdem_scheme_name(step_opts(sf, &f->scene.setup).scheme));
		return take_implicit(f, rec);
	default: /* stats, fronts, guesses: an implicit iteration's, else passed on */
		return imp ? take_implicit(f, rec) : 0;
	}
	if (!imp && sf->have_frame && sf->have_contacts)
		return step_frame(f);
	return 0;
}

static int finish(struct mrdem_filter *f)
{
	struct step_filter *sf = f->ctx;
	if (sf->have_frame && implicit(sf, f) && iterate_frame(f))
		return -1;
	if (sf->have_frame && sf->no_contacts && step_frame(f))
		return -1;
	if (sf->have_frame)
		return mrdem_error("%s: the frame of record %llu has no contacts record; run "
				   "mrdem-contact first, or --no-contacts",
				   f->src, (unsigned long long)sf->frame_index);
	if (sf->have_contacts)
		return mrdem_error("%s: contacts record for step %llu without a frame", f->src,
				   (unsigned long long)sf->contacts.step);
	if (!sf->stepped_any)
		return mrdem_error("%s: no frame to step", f->src);
	/* The next stream of a concatenation starts afresh. */
	sf->stepped_any = sf->have_setup = 0;
	mrdem_stepper_release(&sf->st);
	mrdem_stepper_init(&sf->st);
	return 0;
}

/* Options into sf (zeroed first). Returns 0, or the exit status 2 for a
 * usage error; after --help, 0 with sf->help set. */
static int parse_options(struct step_filter *sf, int argc, char **argv)
{
	enum { OPT_PICARD = 256 };
	static const struct option longopts[] = {
		{"scheme", required_argument, NULL, 's'},
		{"dt", required_argument, NULL, 't'},
		{"no-contacts", no_argument, NULL, 'n'},
		{"max-energy-growth", required_argument, NULL, 'g'},
		{"picard-tol", required_argument, NULL, OPT_PICARD},
		{"picard-max", required_argument, NULL, OPT_PICARD},
		{"picard-retries", required_argument, NULL, OPT_PICARD},
		{"surrogate-damping", required_argument, NULL, OPT_PICARD},
		{"warm-start", no_argument, NULL, OPT_PICARD},
		{"cold-start", no_argument, NULL, OPT_PICARD},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	memset(sf, 0, sizeof *sf);
	sf->opts.max_energy_growth = MRDEM_DEFAULT_MAX_ENERGY_GROWTH;
	sf->out = "-";
	struct mrdem_picard_opts check;
	mrdem_picard_opts_default(&check);
	int c, li;
	struct mrdem_opts_seen seen = {{0}};
	while ((c = mrdem_getopt_once(argc, argv, "o:h", longopts, &li, &seen)) != -1) {
		switch (c) {
		case 's':
			sf->opts.scheme = mrdem_scheme_parse(optarg);
			if (sf->opts.scheme < 0) {
				fprintf(stderr, "mrdem-step: unknown scheme '%s' (explicit-euler, "
						"symplectic-euler, velocity-verlet, implicit-euler)\n",
					optarg);
				return 2;
			}
			sf->scheme_set = 1;
			break;
		case 't':
			if (mrdem_parse_positive("--dt", optarg, &sf->opts.dt))
				return 2;
			sf->dt_set = 1;
			break;
		case 'n': sf->no_contacts = 1; break;
		case 'g':
			if (mrdem_parse_double("--max-energy-growth", optarg,
					       &sf->opts.max_energy_growth))
				return 2;
			if (sf->opts.max_energy_growth < 0) {
				mrdem_error("--max-energy-growth: '%s' must not be negative", optarg);
				return 2;
			}
			break;
		case OPT_PICARD:
			if (sf->npicard == MAX_PICARD_OPTS) {
				fprintf(stderr, "mrdem-step: too many Picard options\n");
				return 2;
			}
			if (mrdem_picard_opts_set(&check, longopts[li].name, optarg))
				return 2;
			sf->picard_key[sf->npicard] = longopts[li].name;
			sf->picard_value[sf->npicard++] = optarg;
			break;
		case 'o': sf->out = optarg; break;
		case 'h':
			printf("%s%s%s", usage_head, mrdem_picard_opts_usage, usage_tail);
			sf->help = 1;
			return 0;
		default: fputs("try 'mrdem-step --help'\n", stderr); return 2;
		}
	}
	if (argc - optind > 1) {
		fputs("mrdem-step: give at most one input (try 'mrdem-step --help')\n", stderr);
		return 2;
	}
	if (sf->no_contacts && sf->scheme_set && sf->opts.scheme == MRDEM_SCHEME_IMPLICIT_EULER) {
		fputs("mrdem-step: --no-contacts steps explicit schemes only; an implicit step "
		      "searches its own contacts\n", stderr);
		return 2;
	}
	if (sf->npicard && sf->scheme_set && sf->opts.scheme != MRDEM_SCHEME_IMPLICIT_EULER) {
		fputs("mrdem-step: the Picard options apply to --scheme implicit-euler only\n",
		      stderr);
		return 2;
	}
	sf->in = optind < argc ? argv[optind] : "-";
	return 0;
}

int main(int argc, char **argv)
{
	mrdem_set_progname(argv[0]);
	mrdem_threads_init();
	struct step_filter sf;
	int rc = parse_options(&sf, argc, argv);
	if (rc || sf.help)
		return rc;
	struct mrdem_filter f;
	mrdem_filter_init(&f, "mrdem-step");
	/* The frame (and its history) is replaced by the stepped one, the contacts are used up
	 * and the pairs are stale once the particles have moved; an implicit
	 * iteration also takes the records of the step in progress. */
	f.replaces = MRDEM_TYPE_BIT(MRDEM_REC_FRAME) | MRDEM_TYPE_BIT(MRDEM_REC_CONTACTS) |
		     MRDEM_TYPE_BIT(MRDEM_REC_PAIRS) | MRDEM_TYPE_BIT(MRDEM_REC_HISTORY);
	f.takes = MRDEM_TYPE_BIT(MRDEM_REC_FRAME) | MRDEM_TYPE_BIT(MRDEM_REC_CONTACTS) |
		  MRDEM_TYPE_BIT(MRDEM_REC_PICARD) | MRDEM_TYPE_BIT(MRDEM_REC_FRONTS) |
		  MRDEM_TYPE_BIT(MRDEM_REC_GUESSES) | MRDEM_TYPE_BIT(MRDEM_REC_STATS);
	f.before = before;
	f.on_record = take;
	f.on_end = finish;
	f.ctx = &sf;
	mrdem_stepper_init(&sf.st);
	mrdem_picard_init(&sf.pc);
	rc = mrdem_filter_run(&f, sf.in, sf.out, argc, argv);
	clear_frame(&sf);
	mrdem_picard_release(&sf.pc);
	mrdem_stepper_release(&sf.st);
	mrdem_filter_release(&f);
	return rc == 0 ? 0 : sf.misused ? 2 : 1;
}
