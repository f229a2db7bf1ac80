/* mrdem-step: advance the frame of a stream by one explicit time step,
 * using the contacts computed for that frame. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dynamics/integrate.h"
#include "common/dynamics/step.h"
#include "common/util/error.h"
#include "common/util/parse.h"
#include "formats/stream/filter.h"
#include "formats/stream/records.h"

static const char usage[] =
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
	"  --scheme NAME      explicit-euler, symplectic-euler or velocity-verlet\n"
	"                     (default: the setup's scheme)\n"
	"  --dt SECONDS       time step (default: the setup's dt)\n"
	"  --no-contacts      step without a contacts record (gravity only); a\n"
	"                     stream that carries contacts is then refused\n"
	"  --max-energy-growth R\n"
	"                     fail when one step creates more than R times the\n"
	"                     kinetic and contact energy before it (default 1;\n"
	"                     0 disables the check)\n"
	"  -o FILE            output (default: standard output)\n"
	"  -h, --help         show this help\n"
	"\n"
	"The step stops with an error naming the step and the particle, and writes\n"
	"nothing, when the state becomes non-finite or the energy bound is broken.\n"
	"With velocity-verlet the written velocities are half a step behind the\n"
	"positions (flag half-kick) until the next step closes them; see\n"
	"docs/dynamics.md.\n"
	"\n"
	"Exit status: 0 success, 1 error (bad input, failed computation), 2 usage\n"
	"error (unknown option, bad option value, too many arguments).\n";

struct job {
	/* options */
	const char *in, *out;
	struct mrdem_step_opts opts;
	int scheme_set, dt_set, no_contacts, help;
	/* state */
	struct mrdem_stepper st;
	int have_setup, have_frame, have_contacts, stepped_any;
	struct mrdem_contacts contacts;
	uint64_t frame_index;   /* record index of the pending frame */
};

/* Step the pending frame with the pending contacts and write the result. */
static int step_frame(struct mrdem_filter *f)
{
	struct job *j = f->ctx;
	struct mrdem_step_opts o;
	mrdem_step_opts_default(&o, &f->scene.setup);
	if (j->scheme_set)
		o.scheme = j->opts.scheme;
	if (j->dt_set)
		o.dt = j->opts.dt;
	o.max_energy_growth = j->opts.max_energy_growth;
	if (mrdem_stepper_step(&j->st, &f->scene, j->have_contacts ? &j->contacts : NULL, &o))
		return mrdem_error("%s: cannot step the frame of record %llu", f->src,
				   (unsigned long long)j->frame_index);
	struct mrdem_stats stats;
	mrdem_stats_init(&stats, f->tool, j->st.step);
	mrdem_stepper_stats(&j->st, &stats);
	int rc = mrdem_write_frame(&f->w, &f->scene.frame) || mrdem_write_stats(&f->w, &stats);
	mrdem_stats_release(&stats);
	if (j->have_contacts)
		mrdem_contacts_release(&j->contacts);
	j->have_frame = j->have_contacts = 0;
	j->stepped_any = 1;
	return rc ? -1 : 0;
}

/* A frame must have had its contacts before the next one replaces it. */
static int before(struct mrdem_filter *f, const struct mrdem_record *rec)
{
	struct job *j = f->ctx;
	j->have_setup |= rec->type == MRDEM_REC_SETUP;
	if (rec->type == MRDEM_REC_FRAME && j->have_frame)
		return mrdem_error("%s: frame of record %llu has no contacts record before the next "
				   "frame (record %llu); run mrdem-contact first, or --no-contacts",
				   f->src, (unsigned long long)j->frame_index,
				   (unsigned long long)rec->index);
	return 0;
}

static int take(struct mrdem_filter *f, const struct mrdem_record *rec)
{
	struct job *j = f->ctx;
	if (rec->type == MRDEM_REC_FRAME) {
		if (!j->have_setup)
			return mrdem_error("%s: record %llu: frame before any setup record", f->src,
					   (unsigned long long)rec->index);
		j->have_frame = 1;
		j->frame_index = rec->index;
	} else { /* contacts */
		if (j->no_contacts)
			return mrdem_error("%s: record %llu: --no-contacts given, but the stream "
					   "carries contacts", f->src, (unsigned long long)rec->index);
		if (j->have_contacts)
			return mrdem_error("%s: record %llu: a second contacts record for one frame",
					   f->src, (unsigned long long)rec->index);
		if (mrdem_decode_contacts(rec, f->src, &j->contacts))
			return -1;
		j->have_contacts = 1;
	}
	if (j->have_frame && (j->no_contacts || j->have_contacts))
		return step_frame(f);
	return 0;
}

static int finish(struct mrdem_filter *f)
{
	struct job *j = f->ctx;
	if (j->have_frame)
		return mrdem_error("%s: the frame of record %llu has no contacts record; run "
				   "mrdem-contact first, or --no-contacts",
				   f->src, (unsigned long long)j->frame_index);
	if (j->have_contacts)
		return mrdem_error("%s: contacts record for step %llu without a frame", f->src,
				   (unsigned long long)j->contacts.step);
	if (!j->stepped_any)
		return mrdem_error("%s: no frame to step", f->src);
	/* The next stream of a concatenation starts afresh. */
	j->stepped_any = j->have_setup = 0;
	mrdem_stepper_release(&j->st);
	mrdem_stepper_init(&j->st);
	return 0;
}

/* Options into j (zeroed first). Returns 0, or the exit status 2 for a
 * usage error; after --help, 0 with j->help set. */
static int parse_options(struct job *j, int argc, char **argv)
{
	static const struct option longopts[] = {
		{"scheme", required_argument, NULL, 's'},
		{"dt", required_argument, NULL, 't'},
		{"no-contacts", no_argument, NULL, 'n'},
		{"max-energy-growth", required_argument, NULL, 'g'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	memset(j, 0, sizeof *j);
	j->opts.max_energy_growth = MRDEM_DEFAULT_MAX_ENERGY_GROWTH;
	j->out = "-";
	int c;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			j->opts.scheme = mrdem_scheme_parse(optarg);
			if (j->opts.scheme == MRDEM_SCHEME_IMPLICIT_EULER) {
				fprintf(stderr, "mrdem-step: implicit-euler is a non-explicit scheme: its "
						"Picard iterations need the contact search inside the step; "
						"run it with mrdem-run (in process)\n");
				return 2;
			}
			if (j->opts.scheme < 0) {
				fprintf(stderr, "mrdem-step: unknown or non-explicit scheme '%s' "
						"(explicit-euler, symplectic-euler, velocity-verlet)\n",
					optarg);
				return 2;
			}
			j->scheme_set = 1;
			break;
		case 't':
			if (mrdem_parse_double("--dt", optarg, &j->opts.dt))
				return 2;
			if (!(j->opts.dt > 0)) {
				fprintf(stderr, "mrdem-step: --dt must be positive\n");
				return 2;
			}
			j->dt_set = 1;
			break;
		case 'n': j->no_contacts = 1; break;
		case 'g':
			if (mrdem_parse_double("--max-energy-growth", optarg,
					       &j->opts.max_energy_growth))
				return 2;
			if (j->opts.max_energy_growth < 0) {
				fprintf(stderr, "mrdem-step: --max-energy-growth must not be negative\n");
				return 2;
			}
			break;
		case 'o': j->out = optarg; break;
		case 'h': fputs(usage, stdout); j->help = 1; return 0;
		default: fputs("try 'mrdem-step --help'\n", stderr); return 2;
		}
	}
	if (argc - optind > 1) {
		fputs("mrdem-step: give at most one input (try 'mrdem-step --help')\n", stderr);
		return 2;
	}
	j->in = optind < argc ? argv[optind] : "-";
	return 0;
}

int main(int argc, char **argv)
{
	mrdem_set_progname(argv[0]);
	struct job j;
	int rc = parse_options(&j, argc, argv);
	if (rc || j.help)
		return rc;
	struct mrdem_filter f;
	mrdem_filter_init(&f, "mrdem-step");
	/* The frame is replaced by the stepped one, the contacts are used up
	 * and the pairs are stale once the particles have moved. */
	f.replaces = MRDEM_TYPE_BIT(MRDEM_REC_FRAME) | MRDEM_TYPE_BIT(MRDEM_REC_CONTACTS) |
		     MRDEM_TYPE_BIT(MRDEM_REC_PAIRS);
	f.takes = MRDEM_TYPE_BIT(MRDEM_REC_FRAME) | MRDEM_TYPE_BIT(MRDEM_REC_CONTACTS);
	f.before = before;
	f.on_record = take;
	f.on_end = finish;
	f.ctx = &j;
	mrdem_stepper_init(&j.st);
	rc = mrdem_filter_run(&f, j.in, j.out, argc, argv);
	if (j.have_contacts)
		mrdem_contacts_release(&j.contacts);
	mrdem_stepper_release(&j.st);
	mrdem_filter_release(&f);
	return rc == 0 ? 0 : 1;
}
