/* Merging the frames of the ranks' streams one at a time: the frame and
 * its history, then the records after it position by position (pairs,
 * contacts, stats), which every part must have alike. */
#include "formats/stream/rank_merge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/dynamics/step.h"
#include "common/scene/contact_merge.h"
#include "common/scene/flow.h"
#include "common/scene/frame_merge.h"
#include "common/scene/id_index.h"
#include "common/scene/stats_merge.h"
#include "common/util/error.h"
#include "formats/stream/record_refs.h"
#include "formats/stream/records.h"

/* The one-rank run's stepper stats record names this source. */
#define STEP_SOURCE "mrdem-step"

struct merge {
	struct mrdem_rank_parts *rp;
	struct mrdem_writer *w;
	struct mrdem_scene scene;     /* the header's, with the merged frame */
	struct mrdem_id_index index;  /* of the merged frame */
	struct mrdem_contacts contacts; /* the merged frame's, for its step */
	struct mrdem_stepper st;
};

/* The merged frame into the scene (checked as any frame read) and out. */
static int put_frame(struct merge *m, struct mrdem_part_frame *pf)
{
	struct mrdem_rank_parts *rp = m->rp;
	struct mrdem_frame *parts = mrdem_xmalloc_array(rp->n, sizeof *parts);
	for (unsigned k = 0; k < rp->n; k++)
		parts[k] = pf[k].frame;
	struct mrdem_frame f;
	int rc = mrdem_frames_merge(&f, parts, rp->n, rp->names);
	free(parts);
	if (rc)
		return -1;
	struct mrdem_buf b;
	mrdem_buf_init(&b);
	mrdem_encode_frame(&b, &f);
	struct mrdem_record rec = {.type = MRDEM_REC_FRAME, .index = m->w->index, .len = b.len,
				   .data = b.p};
	rc = mrdem_scene_absorb(&m->scene, &rec, rp->dir) < 0;
	if (!rc) {
		mrdem_history_release(&m->scene.frame.history);
		m->scene.frame.history = f.history;
		mrdem_history_init(&f.history);
		rec.type = MRDEM_REC_HISTORY;
		rc = mrdem_history_check_refs(&m->scene, &m->scene.frame.history, &rec, rp->dir) ||
		     mrdem_id_index_build(&m->index, &m->scene.frame.p) ||
		     mrdem_write_frame(m->w, &m->scene.frame);
	}
	mrdem_buf_release(&b);
	mrdem_frame_release(&f);
	mrdem_contacts_release(&m->contacts);
	return rc ? -1 : 0;
}

static int put_pairs(struct merge *m, const struct mrdem_record *const *recs)
{
	struct mrdem_rank_parts *rp = m->rp;
	struct mrdem_pairs *parts = mrdem_xcalloc(rp->n, sizeof *parts), out;
	int rc = 0;
	for (unsigned k = 0; k < rp->n && !rc; k++)
		rc = mrdem_decode_pairs(recs[k], rp->names[k], &parts[k]);
	if (!rc && !(rc = mrdem_pairs_merge(&out, parts, rp->n, &m->index, m->scene.frame.p.n,
					     rp->names))) {
		rc = mrdem_write_pairs(m->w, &out);
		mrdem_pairs_release(&out);
	}
	for (unsigned k = 0; k < rp->n; k++)
		mrdem_pairs_release(&parts[k]);
	free(parts);
	return rc ? -1 : 0;
}

static int put_contacts(struct merge *m, const struct mrdem_record *const *recs)
{
	struct mrdem_rank_parts *rp = m->rp;
	struct mrdem_contacts *parts = mrdem_xcalloc(rp->n, sizeof *parts);
	int rc = 0;
	for (unsigned k = 0; k < rp->n && !rc; k++)
		rc = mrdem_decode_contacts(recs[k], rp->names[k], &parts[k]);
	mrdem_contacts_release(&m->contacts);
	if (!rc)
		rc = mrdem_contacts_merge(&m->contacts, parts, rp->n, &m->index, m->scene.frame.p.n,
					  rp->names) ||
		     mrdem_contacts_check_refs(&m->scene, 1, &m->contacts, recs[0], rp->dir) ||
		     mrdem_write_contacts(m->w, &m->contacts);
	for (unsigned k = 0; k < rp->n; k++)
		mrdem_contacts_release(&parts[k]);
	free(parts);
	return rc ? -1 : 0;
}

/* The step's stats record as the one-rank run made it: the whole step
 * from the merged frame with its contacts (begin alone would miss the
 * particles its end removes and inserts), on a copy of the frame. */
static int step_stats(struct merge *m, const struct mrdem_stats *part0)
{
	struct mrdem_scene *s = &m->scene;
	unsigned long long step = (unsigned long long)s->frame.step;
	struct mrdem_step_opts o;
	mrdem_step_opts_default(&o, &s->setup);
	o.max_energy_growth = 0; /* the run's guards passed; only the account is wanted */
	if (o.scheme == MRDEM_SCHEME_IMPLICIT_EULER)
		return mrdem_error("%s: the " STEP_SOURCE " stats of step %llu cannot be computed "
				   "afresh: an implicit-euler step's carry the counters of its "
				   "Picard iterations, which only the ranks saw", m->rp->dir, step);
	if (part0->step != s->frame.step)
		return mrdem_error("%s: an " STEP_SOURCE " stats record of step %llu after the "
				   "frame of step %llu", m->rp->names[0],
				   (unsigned long long)part0->step, step);
	struct mrdem_frame keep;
	mrdem_frame_init(&keep);
	mrdem_frame_copy(&keep, &s->frame);
	int rc = mrdem_stepper_step(&m->st, s, &m->contacts, &o);
	if (!rc) {
		struct mrdem_stats st;
		mrdem_stats_init(&st, STEP_SOURCE, m->st.step);
		mrdem_stepper_stats(&m->st, &st);
		rc = mrdem_write_stats(m->w, &st);
		mrdem_stats_release(&st);
	} else {
		mrdem_error("%s: cannot compute the step from the merged frame of step %llu",
			    m->rp->dir, step);
	}
	mrdem_frame_release(&s->frame);
	s->frame = keep;
	return rc ? -1 : 0;
}

static int put_stats(struct merge *m, const struct mrdem_record *const *recs)
{
	struct mrdem_rank_parts *rp = m->rp;
	struct mrdem_stats *parts = mrdem_xcalloc(rp->n, sizeof *parts), out;
	unsigned got = 0;
	int rc = 0;
	for (; got < rp->n && !rc; got++)
		rc = mrdem_decode_stats(recs[got], rp->names[got], &parts[got]);
	if (!rc && !(rc = mrdem_stats_merge(&out, parts, rp->n, rp->names))) {
		rc = strcmp(out.source, STEP_SOURCE) ? mrdem_write_stats(m->w, &out) :
						       step_stats(m, &parts[0]);
		mrdem_stats_release(&out);
	}
	for (unsigned k = 0; k < got; k++)
		mrdem_stats_release(&parts[k]);
	free(parts);
	return rc ? -1 : 0;
}

/* The records after the frame, position by position. */
static int put_after(struct merge *m, struct mrdem_part_frame *pf)
{
	struct mrdem_rank_parts *rp = m->rp;
	unsigned long long step = (unsigned long long)m->scene.frame.step;
	for (unsigned k = 1; k < rp->n; k++)
		if (pf[k].after.n != pf[0].after.n)
			return mrdem_error("%s: %zu records after the frame of step %llu, %s has %zu",
					   rp->names[k], pf[k].after.n, step, rp->names[0],
					   pf[0].after.n);
	const struct mrdem_record **recs = mrdem_xmalloc_array(rp->n, sizeof *recs);
	int rc = 0;
	for (size_t i = 0; i < pf[0].after.n && !rc; i++) {
		uint32_t type = pf[0].after.v[i].type;
		for (unsigned k = 0; k < rp->n && !rc; k++) {
			recs[k] = &pf[k].after.v[i];
			if (recs[k]->type != type)
				rc = mrdem_record_error(recs[k], rp->names[k], "a %s record where %s "
							"has a %s record (after the frame of "
							"step %llu)",
							mrdem_record_name(recs[k]->type),
							rp->names[0], mrdem_record_name(type), step);
		}
		if (rc)
			break;
		if (type == MRDEM_REC_PAIRS)
			rc = put_pairs(m, recs);
		else if (type == MRDEM_REC_CONTACTS)
			rc = put_contacts(m, recs);
		else if (type == MRDEM_REC_STATS)
			rc = put_stats(m, recs);
		else
			rc = mrdem_record_error(recs[0], rp->names[0], "a %s record after a frame: "
						"the parts of a run hold pairs, contacts and stats "
						"there", mrdem_record_name(type) ?
						mrdem_record_name(type) : "unknown");
	}
	free(recs);
	return rc;
}

/* The header records, into the scene and out. */
static int put_header(struct merge *m)
{
	for (size_t i = 0; i < m->rp->header.n; i++) {
		const struct mrdem_record *rec = &m->rp->header.v[i];
		if (mrdem_scene_absorb(&m->scene, rec, m->rp->names[0]) < 0 ||
		    mrdem_writer_put_record(m->w, rec))
			return -1;
	}
	return 0;
}

int mrdem_rank_merge(struct mrdem_rank_parts *rp, struct mrdem_writer *w)
{
	struct merge m = {.rp = rp, .w = w};
	mrdem_scene_init(&m.scene);
	mrdem_id_index_init(&m.index);
	mrdem_contacts_init(&m.contacts);
	mrdem_stepper_init(&m.st);
	struct mrdem_part_frame *pf = mrdem_xcalloc(rp->n, sizeof *pf);
	int rc = put_header(&m), got = 0;
	while (!rc && (got = mrdem_rank_parts_next(rp, pf)) > 0) {
		rc = put_frame(&m, pf) || put_after(&m, pf) || mrdem_writer_flush(w);
		for (unsigned k = 0; k < rp->n; k++)
			mrdem_part_frame_release(&pf[k]);
	}
	if (got < 0) {
		rc = -1;
		for (unsigned k = 0; k < rp->n; k++)
			mrdem_part_frame_release(&pf[k]);
	}
	free(pf);
	mrdem_stepper_release(&m.st);
	mrdem_contacts_release(&m.contacts);
	mrdem_id_index_release(&m.index);
	mrdem_scene_release(&m.scene);
	return rc ? -1 : 0;
}

int mrdem_is_rank_dir(const char *path)
{
	struct stat st;
	return strcmp(path, "-") && !stat(path, &st) && S_ISDIR(st.st_mode);
}

int mrdem_rank_dir_merge_temp(const char *dir, char *tmp, size_t size)
{
	const char *base = getenv("TMPDIR");
	snprintf(tmp, size, "%s/mrdem-merged-XXXXXX", base && *base ? base : "/tmp");
	int fd = mkstemp(tmp);
	if (fd < 0)
		return mrdem_error("%s: cannot make a temporary file to merge it into (%s): %s", dir,
				   tmp, strerror(errno));
	close(fd);
	struct mrdem_rank_parts rp;
	struct mrdem_writer w;
	int rc = mrdem_rank_parts_open(&rp, dir);
	if (!rc && !(rc = mrdem_writer_open(&w, tmp, 0))) {
		rc = mrdem_rank_merge(&rp, &w) || mrdem_writer_commit(&w);
		if (rc)
			mrdem_writer_abort(&w);
	}
	mrdem_rank_parts_close(&rp);
	if (rc)
		unlink(tmp);
	return rc ? -1 : 0;
}
