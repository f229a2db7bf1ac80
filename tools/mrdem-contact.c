/* mrdem-contact: narrow phase. Append the contact points of every frame
 * of a state stream (for the frame's pairs record when there is one, else
 * for every pair). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "common/narrow/particle_contacts.h"
#include "common/util/error.h"
#include "formats/records.h"
#include "formats/stream.h"

static const char usage_head[] =
	"usage: mrdem-contact [options] [INPUT]\n"
	"\n"
	"Read a state stream (shapes, trees, frames, optionally pairs from mrdem-pairs)\n"
	"from INPUT or standard input and write it through with a contacts record and\n"
	"a stats record appended after each frame (after its pairs record, if any).\n"
	"Without a pairs record every pair of particles and every particle-plane pair\n"
	"is tested.\n"
	"\n";
static const char usage_tail[] =
	"  --no-merge        keep every touching triangle pair (no merging of contact\n"
	"                    points closer than the halo)\n"
	"  --stats           print the work counters to standard error\n"
	"  -o FILE           write to FILE instead of standard output\n"
	"  -h, --help        show this help\n"
	"\n"
	"Exit status: 0 success, 1 error (bad input, failed computation), 2 usage\n"
	"error (unknown option, bad option value, too many arguments).\n";

struct job {
	struct mrdem_scene scene;
	struct mrdem_contact_opts opts;
	struct mrdem_contact_finder *finder;
	const char *src;
	int pending;         /* a frame waits for its contacts */
	int have_pairs;      /* ... and its pairs arrived */
	struct mrdem_pairs pairs;
	int print_stats;
};

static int put_encoded(struct mrdem_writer *w, uint32_t type, struct mrdem_buf *b)
{
	int rc = mrdem_writer_put(w, type, b->p, b->len);
	b->len = 0;
	return rc;
}

/* Contacts of the pending frame, for pairs (NULL: all). */
static int emit(struct job *j, struct mrdem_writer *w, const struct mrdem_pairs *pairs)
{
	struct mrdem_contacts c;
	struct mrdem_contact_counts cnt;
	mrdem_contacts_init(&c);
	j->pending = 0;
	if (j->have_pairs)
		pairs = &j->pairs;
	if (mrdem_find_contacts(j->finder, &j->scene, pairs, &j->opts, &c, &cnt)) {
		mrdem_contacts_release(&c);
		return mrdem_error("%s: frame of step %llu: contact detection failed", j->src,
				   (unsigned long long)j->scene.frame.step);
	}
	struct mrdem_stats st;
	mrdem_stats_init(&st, "mrdem-contact", j->scene.frame.step);
	mrdem_contact_counts_stats(&cnt, &st);
	if (j->print_stats) {
		fprintf(stderr, "mrdem-contact: step %llu:", (unsigned long long)st.step);
		for (size_t i = 0; i < st.n; i++)
			fprintf(stderr, " %s=%.0f", st.names[i], st.values[i]);
		fprintf(stderr, "\n");
	}
	struct mrdem_buf b;
	mrdem_buf_init(&b);
	mrdem_encode_contacts(&b, &c);
	int rc = put_encoded(w, MRDEM_REC_CONTACTS, &b);
	mrdem_encode_stats(&b, &st);
	rc = rc || put_encoded(w, MRDEM_REC_STATS, &b);
	mrdem_buf_release(&b);
	mrdem_stats_release(&st);
	mrdem_contacts_release(&c);
	if (j->have_pairs)
		mrdem_pairs_release(&j->pairs);
	j->have_pairs = 0;
	return rc ? -1 : 0;
}

/* A frame's contacts follow its pairs record and the stats records right
 * after it (the broad phase's), so tools and the driver agree on order. */
static int run(struct job *j, struct mrdem_reader *r, struct mrdem_writer *w)
{
	struct mrdem_record rec;
	int rc;
	while ((rc = mrdem_reader_next(r, &rec)) == 1) {
		if (j->have_pairs && rec.type != MRDEM_REC_STATS && emit(j, w, NULL))
			return -1;
		switch (rec.type) {
		case MRDEM_REC_FRAME:
			if (j->pending && emit(j, w, NULL))
				return -1;
			/* fall through */
		case MRDEM_REC_SETUP:
		case MRDEM_REC_MESH:
		case MRDEM_REC_TREE:
			if (mrdem_scene_absorb(&j->scene, &rec, j->src) < 0 ||
			    mrdem_writer_put_record(w, &rec))
				return -1;
			j->pending |= rec.type == MRDEM_REC_FRAME;
			break;
		case MRDEM_REC_PAIRS:
			if (mrdem_writer_put_record(w, &rec) ||
			    mrdem_decode_pairs(&rec, j->src, &j->pairs))
				return -1;
			j->have_pairs = 1;
			if (!j->pending || j->pairs.step != j->scene.frame.step)
				return mrdem_error("%s: record %llu: pairs of step %llu without their "
						   "frame", j->src, (unsigned long long)rec.index,
						   (unsigned long long)j->pairs.step);
			break;
		case MRDEM_REC_CONTACTS:
			break; /* an earlier run's contacts: replaced by ours */
		case MRDEM_REC_STATS: {
			/* Drop an earlier mrdem-contact run's counters, keep others'. */
			struct mrdem_stats st;
			if (mrdem_decode_stats(&rec, j->src, &st))
				return -1;
			int ours = !strcmp(st.source, "mrdem-contact");
			mrdem_stats_release(&st);
			if (!ours && mrdem_writer_put_record(w, &rec))
				return -1;
			break;
		}
		default:
			if (mrdem_writer_put_record(w, &rec))
				return -1;
		}
	}
	if (rc < 0)
		return -1;
	if (j->pending)
		return emit(j, w, NULL);
	return 0;
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
	struct job j;
	memset(&j, 0, sizeof j);
	mrdem_set_progname(argv[0]);
	mrdem_contact_opts_default(&j.opts);
	const char *out = "-";
	int c, li;
	while ((c = getopt_long(argc, argv, "o:h", longopts, &li)) != -1) {
		switch (c) {
		case OPT_CONTACT:
			if (mrdem_contact_opts_set(&j.opts, longopts[li].name, optarg))
				return 2;
			break;
		case OPT_NO_MERGE: j.opts.merge = 0; break;
		case OPT_STATS: j.print_stats = 1; break;
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
	struct mrdem_reader r;
	struct mrdem_writer w;
	if (mrdem_reader_open(&r, optind < argc ? argv[optind] : "-"))
		return 1;
	if (mrdem_writer_open(&w, out, 0)) {
		mrdem_reader_close(&r);
		return 1;
	}
	j.src = r.name;
	j.finder = mrdem_contact_finder_new();
	mrdem_scene_init(&j.scene);
	int rc = run(&j, &r, &w);
	if (rc == 0)
		rc = mrdem_writer_commit(&w);
	else
		mrdem_writer_abort(&w);
	mrdem_contact_finder_free(j.finder);
	if (j.have_pairs)
		mrdem_pairs_release(&j.pairs);
	mrdem_scene_release(&j.scene);
	mrdem_reader_close(&r);
	return rc == 0 ? 0 : 1;
}
