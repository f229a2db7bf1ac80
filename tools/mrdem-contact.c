/* mrdem-contact: narrow phase. Append the contact points of every frame
 * of a state stream (for the frame's pairs record when there is one, else
 * for every pair). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "common/narrow/contacts/particle_contacts.h"
#include "common/util/error.h"
#include "common/util/parse.h"
#include "common/util/threads.h"
#include "formats/stream/filter.h"
#include "formats/stream/record_picard.h"
#include "formats/stream/records.h"

static const char usage_head[] =
	"usage: mrdem-contact [options] [INPUT]\n"
	"\n"
	"Read a state stream (shapes, trees, frames, optionally pairs from mrdem-pairs)\n"
	"from INPUT or standard input and write it through with a contacts record and\n"
	"a stats record appended after each frame (after its pairs record, if any).\n"
	"Without a pairs record every pair of particles and every particle-plane pair\n"
	"is tested.\n"
	"\n"
	"--hierarchy multiscale runs the search of one Picard iteration of an\n"
	"implicit step (paper Alg. 6, docs/dynamics.md): the frame must be an\n"
	"iterate with its picard record (mrdem-step --scheme implicit-euler); each\n"
	"particle pair is searched on its front (the fronts record, or the roots\n"
	"where there is none), which then unfolds and narrows. Writes the fronts\n"
	"record, the contacts of real triangles and a guesses record with the\n"
	"surrogate contacts (node indices in tri_a and tri_b).\n"
	"\n";
static const char usage_tail[] =
	"  --stats           print the work counters to standard error\n"
	"  -o FILE           write to FILE instead of standard output\n"
	"  -h, --help        show this help\n"
	"\n"
	"Exit status: 0 success, 1 error (bad input, failed computation), 2 usage\n"
	"error (unknown option, bad option value, an option given twice, too many\n"
	"arguments).\n";

/* mrdem-contact as a filter: its options, and the frame that waits for its
 * pairs. */
struct contact_filter {
	struct mrdem_contact_opts opts;
	struct mrdem_contact_finder *finder;
	int pending;         /* a frame waits for its contacts */
	int have_pairs;      /* ... and its pairs arrived */
	int have_picard;     /* ... it is the iterate of an implicit step */
	struct mrdem_pairs pairs;
	struct mrdem_front_store *fronts; /* multiscale: those read after the frame */
	int print_stats;
};

/* The multiscale search of the pending iterate: its fronts, contacts and
 * guesses records. */
static int emit_multiscale(struct mrdem_filter *f, struct mrdem_contacts *c,
			   struct mrdem_contact_counts *cnt)
{
	struct contact_filter *cf = f->ctx;
	if (!cf->have_picard)
		return mrdem_error("%s: frame of step %llu: --hierarchy multiscale searches the "
				   "iterate of an implicit step, and this frame has no picard record "
				   "(run mrdem-step --scheme implicit-euler first; one frame's "
				   "contacts come from flat or surrogate)", f->src,
				   (unsigned long long)f->scene.frame.step);
	if (!cf->fronts)
		cf->fronts = mrdem_front_store_new();
	struct mrdem_contacts g;
	mrdem_contacts_init(&g);
	int rc = mrdem_find_contacts_multiscale(cf->finder, &f->scene,
						cf->have_pairs ? &cf->pairs : NULL, &cf->opts, cf->fronts,
						c, &g, cnt);
	if (!rc)
		rc = mrdem_write_fronts(&f->w, cf->fronts) || mrdem_write_contacts(&f->w, c) ||
		     mrdem_write_guesses(&f->w, &g) ? -1 : 0;
	mrdem_contacts_release(&g);
	mrdem_front_store_free(cf->fronts);
	cf->fronts = NULL;
	return rc;
}

/* Contacts of the pending frame, for its pairs (all pairs without). */
static int emit(struct mrdem_filter *f)
{
	struct contact_filter *cf = f->ctx;
	struct mrdem_contacts c;
	struct mrdem_contact_counts cnt;
	mrdem_contacts_init(&c);
	cf->pending = 0;
	int multiscale = cf->opts.hierarchy == MRDEM_HIERARCHY_MULTISCALE;
	/* What came through so far (the frame, its pairs) goes on now: a tool
	 * reading our output decodes it during the search, not after it. */
	if (mrdem_writer_flush(&f->w))
		return -1;
	if (multiscale ? emit_multiscale(f, &c, &cnt) :
			 mrdem_find_contacts(cf->finder, &f->scene, cf->have_pairs ? &cf->pairs : NULL,
					     &cf->opts, &c, &cnt) ||
			 mrdem_write_contacts(&f->w, &c)) {
		mrdem_contacts_release(&c);
		return mrdem_error("%s: frame of step %llu: contact detection failed", f->src,
				   (unsigned long long)f->scene.frame.step);
	}
	struct mrdem_stats st;
	mrdem_stats_init(&st, f->tool, f->scene.frame.step);
	mrdem_contact_counts_stats(&cnt, &st);
	if (cf->print_stats) {
		fprintf(stderr, "mrdem-contact: step %llu:", (unsigned long long)st.step);
		for (size_t i = 0; i < st.n; i++)
			fprintf(stderr, " %s=%.0f", st.names[i], st.values[i]);
		fprintf(stderr, "\n");
	}
	int rc = mrdem_write_stats(&f->w, &st);
	mrdem_stats_release(&st);
	mrdem_contacts_release(&c);
	if (cf->have_pairs)
		mrdem_pairs_release(&cf->pairs);
	cf->have_pairs = cf->have_picard = 0;
	return rc ? -1 : 0;
}

/* A frame's contacts follow its pairs record and the stats records right
 * after it (the broad phase's), so tools and the driver agree on order;
 * the records of a step in progress may come in between. */
static int before(struct mrdem_filter *f, const struct mrdem_record *rec)
{
	struct contact_filter *cf = f->ctx;
	int between = rec->type == MRDEM_REC_STATS || rec->type == MRDEM_REC_PICARD ||
		      rec->type == MRDEM_REC_FRONTS;
	if ((cf->have_pairs && !between) || (cf->pending && rec->type == MRDEM_REC_FRAME))
		return emit(f);
	return 0;
}

static int take(struct mrdem_filter *f, const struct mrdem_record *rec)
{
	struct contact_filter *cf = f->ctx;
	if (rec->type == MRDEM_REC_FRAME) {
		cf->pending = 1;
		return 0;
	}
	if (rec->type == MRDEM_REC_PICARD) {
		cf->have_picard = cf->pending;
		return 0;
	}
	if (rec->type == MRDEM_REC_FRONTS) {
		/* multiscale: ours to search on and write anew; else passed on */
		if (cf->opts.hierarchy != MRDEM_HIERARCHY_MULTISCALE)
			return 0;
		if (!cf->pending || cf->fronts)
			return mrdem_error("%s: record %llu: fronts record %s", f->src,
					   (unsigned long long)rec->index,
					   cf->fronts ? "a second time for one frame" : "before any frame");
		return mrdem_decode_fronts(rec, f->src, &cf->fronts) ? -1 : 1;
	}
	/* pairs: passed through, and ours to use */
	if (mrdem_decode_pairs(rec, f->src, &cf->pairs))
		return -1;
	cf->have_pairs = 1;
	if (!cf->pending || cf->pairs.step != f->scene.frame.step)
		return mrdem_error("%s: record %llu: pairs of step %llu without their frame", f->src,
				   (unsigned long long)rec->index, (unsigned long long)cf->pairs.step);
	return 0;
}

static int finish(struct mrdem_filter *f)
{
	struct contact_filter *cf = f->ctx;
	return cf->pending ? emit(f) : 0;
}

int main(int argc, char **argv)
{
	enum { OPT_NO_MERGE = 256, OPT_STATS, OPT_CONTACT };
	static const struct option longopts[] = {
		{"hierarchy", required_argument, NULL, OPT_CONTACT},
		{"method", required_argument, NULL, OPT_CONTACT},
		{"iterations", required_argument, NULL, OPT_CONTACT},
		{"threshold", required_argument, NULL, OPT_CONTACT},
		{"simd", required_argument, NULL, OPT_CONTACT},
		{"no-merge", no_argument, NULL, OPT_NO_MERGE},
		{"stats", no_argument, NULL, OPT_STATS},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct contact_filter cf;
	memset(&cf, 0, sizeof cf);
	mrdem_set_progname(argv[0]);
	mrdem_threads_init();
	mrdem_contact_opts_default(&cf.opts);
	const char *out = "-";
	int c, li;
	struct mrdem_opts_seen seen = {{0}};
	while ((c = mrdem_getopt_once(argc, argv, "o:h", longopts, &li, &seen)) != -1) {
		switch (c) {
		case OPT_CONTACT:
			if (mrdem_contact_opts_set(&cf.opts, longopts[li].name, optarg))
				return 2;
			break;
		case OPT_NO_MERGE: cf.opts.merge = 0; break;
		case OPT_STATS: cf.print_stats = 1; break;
		case 'o': out = optarg; break;
		case 'h':
			printf("%s%s%s", usage_head, mrdem_contact_opts_usage, usage_tail);
			return 0;
		default: fputs("try 'mrdem-contact --help'\n", stderr); return 2;
		}
	}
	if (argc - optind > 1) {
		fputs("mrdem-contact: give at most one input (try 'mrdem-contact --help')\n", stderr);
		return 2;
	}
	if (mrdem_contact_opts_check(&cf.opts))
		return 2;
	struct mrdem_filter f;
	mrdem_filter_init(&f, "mrdem-contact");
	f.replaces = MRDEM_TYPE_BIT(MRDEM_REC_CONTACTS) | MRDEM_TYPE_BIT(MRDEM_REC_GUESSES);
	f.takes = MRDEM_TYPE_BIT(MRDEM_REC_FRAME) | MRDEM_TYPE_BIT(MRDEM_REC_PAIRS) |
		  MRDEM_TYPE_BIT(MRDEM_REC_PICARD) | MRDEM_TYPE_BIT(MRDEM_REC_FRONTS);
	f.before = before;
	f.on_record = take;
	f.on_end = finish;
	f.ctx = &cf;
	cf.finder = mrdem_contact_finder_new();
	int rc = mrdem_filter_run(&f, optind < argc ? argv[optind] : "-", out, argc, argv);
	mrdem_contact_finder_free(cf.finder);
	mrdem_front_store_free(cf.fronts);
	if (cf.have_pairs)
		mrdem_pairs_release(&cf.pairs);
	mrdem_filter_release(&f);
	return rc == 0 ? 0 : 1;
}
