#include "common/sim/simulation.h"

#include <stdio.h>
#include <string.h>

#include "common/scene/scaled_shape.h"
#include "common/util/error.h"
#include "common/util/stages.h"


void mrdem_sim_opts_default(struct mrdem_sim_opts *o, const struct mrdem_scene *s)
{
	o->broad = s->setup.broad >= 0 ? s->setup.broad : mrdem_broad_default(s);
	mrdem_contact_opts_default(&o->contact);
	o->contact.hierarchy = MRDEM_HIERARCHY_SURROGATE;
	mrdem_step_opts_default(&o->step, &s->setup);
	mrdem_picard_opts_default(&o->picard);
	mrdem_tree_params_default(&o->tree);
}

int mrdem_sim_prepare(struct mrdem_scene *s, const struct mrdem_sim_opts *o)
{
	if (mrdem_step_opts_check(&o->step, &s->setup, s->frame.step))
		return -1;
	if (o->contact.hierarchy == MRDEM_HIERARCHY_MULTISCALE && mrdem_scene_has_analytic(s))
		return mrdem_error("the multiscale hierarchy searches fronts of two surrogate trees; "
				   "analytic shapes have none: use the flat or surrogate hierarchy "
				   "with them");
	if (o->contact.hierarchy == MRDEM_HIERARCHY_SURROGATE ||
	    o->contact.hierarchy == MRDEM_HIERARCHY_MULTISCALE)
		for (uint32_t i = 0; i < s->nshapes; i++) {
			struct mrdem_shape *sh = &s->shapes[i];
			if (sh->kind != MRDEM_SHAPE_MESH || sh->tree)
				continue;
			/* a scaled shape's base comes first and has its tree by now */
			if (mrdem_shape_is_scaled(sh)) {
				if (mrdem_shape_scale_tree(s, i) < 0)
					return -1;
				continue;
			}
			if (mrdem_tree_build(&sh->mesh, &o->tree, &sh->tree))
				return mrdem_error("shape %u '%s': cannot build its surrogate tree", i,
						   sh->name);
		}
	return 0;
}

int mrdem_sim_init(struct mrdem_sim *sim, struct mrdem_scene *s, const struct mrdem_sim_opts *o)
{
	memset(sim, 0, sizeof *sim);
	sim->scene = s;
	sim->opts = *o;
	mrdem_stepper_init(&sim->stepper);
	mrdem_picard_init(&sim->picard);
	mrdem_pairs_init(&sim->pairs);
	mrdem_contacts_init(&sim->contacts);
	sim->broad = mrdem_broad_new();
	sim->finder = mrdem_contact_finder_new();
	return mrdem_sim_prepare(s, o);
}

void mrdem_sim_release(struct mrdem_sim *sim)
{
	mrdem_broad_free(sim->broad);
	mrdem_contact_finder_free(sim->finder);
	mrdem_stepper_release(&sim->stepper);
	mrdem_picard_release(&sim->picard);
	mrdem_pairs_release(&sim->pairs);
	mrdem_contacts_release(&sim->contacts);
	memset(sim, 0, sizeof *sim);
}

int mrdem_sim_detect(struct mrdem_sim *sim)
{
	memset(&sim->log, 0, sizeof sim->log);
	double t0 = mrdem_clock();
	if (mrdem_broad_phase(sim->broad, sim->scene, sim->opts.broad, &sim->pairs,
			      &sim->broad_stats))
		return -1;
	double t1 = mrdem_clock();
	/* A frame's own contacts: multiscale searches on fronts only inside
	 * the Picard loop; at a frame the surrogate search finds the same
	 * contacts (Lemma 5.1). */
	struct mrdem_contact_opts co = sim->opts.contact;
	if (co.hierarchy == MRDEM_HIERARCHY_MULTISCALE)
		co.hierarchy = MRDEM_HIERARCHY_SURROGATE;
	if (mrdem_find_contacts(sim->finder, sim->scene, &sim->pairs, &co, &sim->contacts,
				&sim->counts))
		return -1;
	sim->t_broad = t1 - t0;
	sim->t_narrow = mrdem_clock() - t1;
	sim->log.seconds[MRDEM_STAGE_BROAD] += sim->t_broad;
	sim->log.calls[MRDEM_STAGE_BROAD]++;
	mrdem_contact_finder_take_log(sim->finder, &sim->log);
	sim->detected = 1;
	return 0;
}

/* Energies and pending kicks at the frame, Picard iterations, guard. */
static int implicit_step(struct mrdem_sim *sim)
{
	struct mrdem_stepper *st = &sim->stepper;
	const struct mrdem_step_opts *o = &sim->opts.step;
	struct mrdem_picard_search search = {
		.broad = sim->broad,
		.broad_method = sim->opts.broad,
		.finder = sim->finder,
		.contact = &sim->opts.contact,
	};
	if (mrdem_stepper_begin(st, sim->scene, &sim->contacts, o) ||
	    mrdem_picard_advance(&sim->picard, &sim->opts.picard, &search, sim->scene,
				 &st->bodies, &st->index, o->dt))
		return -1;
	mrdem_wall_forces_collect(&st->walls, sim->scene, &sim->picard.forces);
	return mrdem_stepper_finish(st, sim->scene, o);
}

int mrdem_sim_advance(struct mrdem_sim *sim)
{
	if (!sim->detected && mrdem_sim_detect(sim))
		return -1;
	int rc;
	if (sim->opts.step.scheme == MRDEM_SCHEME_IMPLICIT_EULER)
		rc = implicit_step(sim);
	else
		rc = mrdem_stepper_step(&sim->stepper, sim->scene, &sim->contacts, &sim->opts.step);
	sim->detected = 0;
	mrdem_stage_log_add(&sim->log, &sim->stepper.log);
	if (sim->opts.step.scheme == MRDEM_SCHEME_IMPLICIT_EULER)
		mrdem_stage_log_add(&sim->log, &sim->picard.log);
	mrdem_contact_finder_take_log(sim->finder, &sim->log);
	return rc;
}

void mrdem_sim_detection_stats(const struct mrdem_sim *sim, struct mrdem_stats *broad,
				struct mrdem_stats *narrow)
{
	mrdem_stats_init(broad, "mrdem-pairs", sim->scene->frame.step);
	mrdem_broad_stats_add(broad, sim->opts.broad, &sim->broad_stats);
	mrdem_stats_init(narrow, "mrdem-contact", sim->scene->frame.step);
	mrdem_contact_counts_stats(&sim->counts, narrow);
}

void mrdem_sim_step_stats(const struct mrdem_sim *sim, struct mrdem_stats *out)
{
	mrdem_stats_init(out, "mrdem-step", sim->stepper.step);
	mrdem_stepper_stats(&sim->stepper, out);
	if (sim->stepper.scheme == MRDEM_SCHEME_IMPLICIT_EULER)
		mrdem_picard_stats(&sim->picard.last, out);
}

void mrdem_sim_log_stats(const struct mrdem_stage_log *l, int picard, struct mrdem_stats *out)
{
	for (int k = 0; k < MRDEM_STAGES; k++) {
		char name[32];
		if ((k == MRDEM_STAGE_PICARD && !picard) ||
		    (k == MRDEM_STAGE_EXCHANGE && !l->calls[k]))
			continue;
		snprintf(name, sizeof name, "time_%s", mrdem_stage_name(k));
		mrdem_stats_add(out, name, l->seconds[k]);
	}
}
