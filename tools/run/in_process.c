/* mrdem-run's steps in this process: broad phase, contact detection and the
 * step as library calls (common/sim/simulation.h), implicit Euler looping
 * the contact search inside each step. */
#include "formats/stream/records.h"
#include "tools/run/run.h"

/* The pairs, contacts and stats records of the current frame's detection,
 * as mrdem-pairs | mrdem-contact write them. */
static int write_detection(struct mrdem_sim *sim, struct mrdem_writer *w)
{
	struct mrdem_stats broad, narrow;
	mrdem_sim_detection_stats(sim, &broad, &narrow);
	int rc = mrdem_write_pairs(w, &sim->pairs) || mrdem_write_stats(w, &broad) ||
		 mrdem_write_contacts(w, &sim->contacts) || mrdem_write_stats(w, &narrow);
	mrdem_stats_release(&broad);
	mrdem_stats_release(&narrow);
	return rc ? -1 : 0;
}

static int write_step_stats(struct mrdem_sim *sim, struct mrdem_writer *w)
{
	struct mrdem_stats st;
	mrdem_sim_step_stats(sim, &st);
	int rc = mrdem_write_stats(w, &st);
	mrdem_stats_release(&st);
	return rc;
}

/* The run's account of one detection (and step): stages and counters. */
static void log_step(struct run *r)
{
	mrdem_stage_log_add(&r->log, &r->sim.log);
}

/* The simulation is made before the loop (mrdem-run.c), for the start's
 * check too. */
static int open_in_process(struct run *r, int argc, char **argv)
{
	(void)r, (void)argc, (void)argv;
	return 0;
}

static void close_in_process(struct run *r)
{
	(void)r;
}

static int detect(struct run *r, int output, int frame, int step)
{
	(void)step;
	if (mrdem_sim_detect(&r->sim))
		return -1;
	if (frame && run_write_frame(r, &r->sim.contacts))
		return -1;
	struct run_out_mark t0 = run_output_begin();
	int rc = output && write_detection(&r->sim, &r->w);
	run_output_done(r, t0);
	return rc ? -1 : 0;
}

static int advance(struct run *r, int output)
{
	(void)output;
	return mrdem_sim_advance(&r->sim);
}

static int start_energies(const struct run *r, double e[3])
{
	const struct mrdem_energy *en = &r->sim.stepper.energy;
	e[0] = en->translational + en->rotational;
	e[1] = en->gravity;
	e[2] = en->contact;
	return 1;
}

static int account(struct run *r, int output)
{
	run_account(r);
	log_step(r);
	struct run_out_mark t0 = run_output_begin();
	int rc = output && write_step_stats(&r->sim, &r->w);
	run_output_done(r, t0);
	return rc ? -1 : 0;
}

static uint64_t contacts(const struct run *r)
{
	return r->sim.contacts.n;
}

const struct run_backend run_in_process = {
	.open = open_in_process,
	.close = close_in_process,
	.detect = detect,
	.advance = advance,
	.synchronise = run_stepper_synchronise,
	.start_energies = start_energies,
	.account = account,
	.account_last = log_step,
	.contacts = contacts,
	.stage_log = 1,
	.memory_note = "",
};
