#include "formats/stream/filter.h"

#include <string.h>

#include "common/scene/stats.h"
#include "common/util/error.h"
#include "formats/stream/record_refs.h"
#include "formats/stream/records.h"

void mrdem_filter_init(struct mrdem_filter *f, const char *tool)
{
	memset(f, 0, sizeof *f);
	f->tool = tool;
	mrdem_scene_init(&f->scene);
}

void mrdem_filter_release(struct mrdem_filter *f)
{
	mrdem_scene_release(&f->scene);
	mrdem_meta_release(&f->meta);
}

int mrdem_filter_pass(struct mrdem_filter *f, const struct mrdem_record *rec)
{
	return f->writing ? mrdem_writer_put_record(&f->w, rec) : 0;
}

/* A stats record an earlier run of this tool wrote: 1, else 0; -1 bad. */
static int is_own_stats(struct mrdem_filter *f, const struct mrdem_record *rec)
{
	struct mrdem_stats st;
	if (mrdem_decode_stats(rec, f->src, &st))
		return -1;
	int own = !strcmp(st.source, f->tool);
	mrdem_stats_release(&st);
	return own;
}

static int write_own_meta(struct mrdem_filter *f)
{
	if (f->meta_written)
		return 0;
	f->meta_written = 1;
	return f->writing ? mrdem_write_meta(&f->w, &f->meta) : 0;
}

static int end_stream(struct mrdem_filter *f)
{
	f->in_stream = 0;
	if (f->on_end && f->on_end(f))
		return -1;
	return write_own_meta(f);
}

static int start_stream(struct mrdem_filter *f)
{
	if (f->streams++ > 0) {
		/* A concatenated stream: its own scene and output stream. */
		mrdem_scene_release(&f->scene);
		mrdem_scene_init(&f->scene);
		if (f->writing && mrdem_writer_next_stream(&f->w))
			return -1;
	}
	f->frames = 0;
	f->meta_written = 0;
	f->in_stream = 1;
	return 0;
}

static int take(struct mrdem_filter *f, const struct mrdem_record *rec)
{
	uint32_t bit = rec->type < 32 ? MRDEM_TYPE_BIT(rec->type) : 0;
	if (!f->in_stream && start_stream(f))
		return -1;
	if (rec->type == MRDEM_REC_END)
		return end_stream(f);
	if (rec->type == MRDEM_REC_META)
		return mrdem_filter_pass(f, rec);
	if (write_own_meta(f))
		return -1;
	if (f->before && f->before(f, rec))
		return -1;
	if (rec->type == MRDEM_REC_STATS) {
		int own = is_own_stats(f, rec);
		if (own)
			return own < 0 ? -1 : 0;
	}
	if ((rec->type == MRDEM_REC_SETUP || rec->type == MRDEM_REC_MESH ||
	     rec->type == MRDEM_REC_SHAPE || rec->type == MRDEM_REC_SCALED_SHAPE ||
	     rec->type == MRDEM_REC_TREE ||
	     rec->type == MRDEM_REC_FRAME || rec->type == MRDEM_REC_CONTACT_MODEL ||
	     rec->type == MRDEM_REC_HISTORY || rec->type == MRDEM_REC_MATERIALS ||
	     rec->type == MRDEM_REC_MOTION || rec->type == MRDEM_REC_INFLOW ||
	     rec->type == MRDEM_REC_OUTFLOW) &&
	    !(f->no_absorb & bit) && mrdem_scene_absorb(&f->scene, rec, f->src) < 0)
		return -1;
	if (rec->type == MRDEM_REC_FRAME) {
		f->frames++;
		f->total_frames++;
	}
	/* Checked whether taken or passed on: a tool never uses or writes a
	 * contacts record that names what its frame lacks, or one the next
	 * reader cannot decode. One it drops (replaces, or reads past without
	 * output) is no input of its. */
	int framed = f->frames && !(f->no_absorb & MRDEM_TYPE_BIT(MRDEM_REC_FRAME));
	int used = (f->takes & bit) || (f->writing && !(f->replaces & bit));
	if ((rec->type == MRDEM_REC_CONTACTS || rec->type == MRDEM_REC_GUESSES) && used &&
	    mrdem_contacts_record_check(&f->scene, rec->type == MRDEM_REC_CONTACTS && framed,
					rec, f->src))
		return -1;
	int done = 0;
	if ((f->takes & bit) && f->on_record) {
		done = f->on_record(f, rec);
		if (done < 0)
			return -1;
	}
	if (!done && !(f->replaces & bit))
		return mrdem_filter_pass(f, rec);
	return 0;
}

int mrdem_filter_run(struct mrdem_filter *f, const char *in, const char *out, int argc,
		     char **argv)
{
	mrdem_meta_init(&f->meta, f->tool, argc, argv);
	if (mrdem_reader_open(&f->r, in, f->read_flags))
		return -1;
	f->src = f->r.name;
	if (out) {
		if (mrdem_writer_open(&f->w, out, 0)) {
			mrdem_reader_close(&f->r);
			return -1;
		}
		f->writing = 1;
	}
	struct mrdem_record rec;
	int rc, refused = 0;
	while ((rc = mrdem_reader_next(&f->r, &rec)) == 1)
		if (take(f, &rec)) {
			rc = -1;
			refused = 1;
			break;
		}
	f->damaged = !refused && (rc < 0 || f->r.incomplete);
	/* A stream without an end record (version 1, or recovered damage), or
	 * read-only tools on damaged input: finish with what arrived. */
	if (f->in_stream && (rc == 0 || (!f->writing && f->damaged)) && end_stream(f))
		rc = -1;
	if (f->writing) {
		if (rc == 0)
			rc = mrdem_writer_commit(&f->w);
		else
			mrdem_writer_abort(&f->w);
		f->writing = 0;
	}
	mrdem_reader_close(&f->r);
	f->src = NULL;
	return rc;
}
