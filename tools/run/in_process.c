/* mrdem-run's steps in this process: broad phase, contact detection and the
 * step as library calls (common/sim/simulation.h), implicit Euler looping
 * the contact search inside each step. */
#include <stdlib.h>

#include "common/dynamics/energy.h"
#include "common/util/error.h"
#include "formats/stream/records.h"
#include "tools/run/run.h"

/* The simulation of the run, made by open. */
static struct mrdem_sim *sim_of(const struct run *r)
{
	return r->backend_state;
}

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

/* The step's counters into the run's sums (the summary, report.c). */
static void sum_counters(struct run *r)
{
	run_add_search_counts(r, &sim_of(r)->counts);
	r->sum_contacts += sim_of(r)->contacts.n;
	if (sim_of(r)->contacts.n > r->max_contacts)
		r->max_contacts = sim_of(r)->contacts.n;
	r->sum_pairs += sim_of(r)->pairs.n;
	r->sum_detect += sim_of(r)->t_broad + sim_of(r)->t_narrow;
	if (sim_of(r)->stepper.scheme == MRDEM_SCHEME_IMPLICIT_EULER) {
		const struct mrdem_picard_counts *pc = &sim_of(r)->picard.last;
		r->sum_picard_iterations += pc->iterations;
		r->sum_picard_comparisons += pc->comparisons;
		r->sum_picard_retries += pc->retries;
		r->sum_picard_fallbacks += pc->fallbacks;
		r->sum_unfolds += pc->front.unfolds;
		r->sum_narrows += pc->front.narrows;
		r->sum_guesses += pc->front.guesses;
	}
	const struct mrdem_stepper *st = &sim_of(r)->stepper;
	double e = st->want_energy ? mrdem_energy_total(&st->energy) :
		   st->start.kinetic + st->start.gravity + st->start.contact;
	if (!r->have_energy)
		r->e_first = e, r->have_energy = 1;
	r->e_last = e;
}

static int log_stats(struct run *r, double t_iter)
{
	return run_write_log_stats(r, &sim_of(r)->log, sim_of(r)->stepper.step, t_iter);
}

/* The run's account of one detection (and step): stages and counters. */
static void log_step(struct run *r)
{
	mrdem_stage_log_add(&r->log, &sim_of(r)->log);
}

static int open_in_process(struct run *r, int argc, char **argv)
{
	(void)argc, (void)argv;
	struct mrdem_sim *sim = mrdem_xcalloc(1, sizeof *sim);
	r->backend_state = sim;
	return mrdem_sim_init(sim, &r->scene, &r->opts);
}

static void close_in_process(struct run *r)
{
	struct mrdem_sim *sim = sim_of(r);
	if (!sim)
		return;
	mrdem_sim_release(sim);
	free(sim);
	r->backend_state = NULL;
}

static int synchronise(struct run *r, const struct mrdem_contacts *c, double **vel,
		       double **angvel)
{
	return run_stepper_synchronise(&sim_of(r)->stepper, r, c, vel, angvel);
}

static int detect(struct run *r, int output, int frame, int step)
{
	(void)step;
	if (mrdem_sim_detect(sim_of(r)))
		return -1;
	if (frame && run_write_frame(r, &sim_of(r)->contacts))
		return -1;
	struct run_out_mark t0 = run_output_begin();
	int rc = output && write_detection(sim_of(r), &r->w);
	run_output_done(r, t0);
	return rc ? -1 : 0;
}

static int advance(struct run *r, int output)
{
	/* the energies of the step's statistics, and of the summary's first
	 * and last step; the guards have theirs (stepper.start) every step */
	sim_of(r)->stepper.want_energy = output || r->nsteps == 0 || r->nsteps + 1 >= r->steps;
	return mrdem_sim_advance(sim_of(r));
}

static int start_energies(const struct run *r, double e[3])
{
	const struct mrdem_guard_energy *en = &sim_of(r)->stepper.start;
	e[0] = en->kinetic;
	e[1] = en->gravity;
	e[2] = en->contact;
	return 1;
}

static int account(struct run *r, int output)
{
	sum_counters(r);
	run_flow_add(r, &sim_of(r)->stepper.flow);
	log_step(r);
	struct run_out_mark t0 = run_output_begin();
	int rc = output && write_step_stats(sim_of(r), &r->w);
	run_output_done(r, t0);
	return rc ? -1 : 0;
}

static uint64_t contacts(const struct run *r)
{
	return sim_of(r)->contacts.n;
}

const struct run_backend run_in_process = {
	.open = open_in_process,
	.close = close_in_process,
	.detect = detect,
	.advance = advance,
	.synchronise = synchronise,
	.start_energies = start_energies,
	.account = account,
	.account_last = log_step,
	.log_stats = log_stats,
	.contacts = contacts,
	.stage_log = 1,
	.memory_note = "",
};
