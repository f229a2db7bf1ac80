/* One simulation in one process: the pipeline of tools (pairs -> contacts
 * -> step) as library calls on a scene held in memory. mrdem-run drives it;
 * each stage is the very call its tool makes, so a run through pipes gives
 * the same bits (tests/e2e/run.sh checks it). */
#ifndef MRDEM_SIM_SIMULATION_H
#define MRDEM_SIM_SIMULATION_H

#include "common/broad/broad.h"
#include "common/dynamics/step.h"
#include "common/narrow/contacts/particle_contacts.h"
#include "common/scene/scene.h"
#include "common/tree/tree.h"
#include "common/scene/contacts.h"
#include "common/scene/pairs.h"
#include "common/scene/stats.h"
#include "common/sim/picard.h"

struct mrdem_sim_opts {
	int broad;                         /* enum mrdem_broad_method */
	struct mrdem_contact_opts contact;
	struct mrdem_step_opts step;
	struct mrdem_picard_opts picard;   /* step.scheme implicit-euler */
	struct mrdem_tree_params tree;     /* for shapes without a tree */
};

/* The scene's broad phase (its contact.broad, else mrdem_broad_default's
 * for it), hybrid kernels on surrogate trees, the setup's scheme and dt,
 * default tree parameters. */
void mrdem_sim_opts_default(struct mrdem_sim_opts *o, const struct mrdem_scene *s);

struct mrdem_sim {
	struct mrdem_scene *scene;        /* not owned */
	struct mrdem_sim_opts opts;
	struct mrdem_broad *broad;
	struct mrdem_contact_finder *finder;
	struct mrdem_stepper stepper;
	struct mrdem_picard picard;
	/* results for the current frame */
	struct mrdem_pairs pairs;
	struct mrdem_broad_stats broad_stats;
	struct mrdem_contacts contacts;
	struct mrdem_contact_counts counts;
	int detected;                     /* pairs/contacts belong to the frame */
	/* wall time of the last detection's broad and narrow phase, s */
	double t_broad, t_narrow;
	/* stages of the current frame's detection and of the step from it
	 * (reset by each detect; the driver adds its output stage) */
	struct mrdem_stage_log log;
};

/* Check the options against the scene and build the trees the surrogate
 * hierarchy needs (shapes that lack one): what any way of running the
 * steps needs first. Returns 0, or -1 with a message. */
int mrdem_sim_prepare(struct mrdem_scene *s, const struct mrdem_sim_opts *o);
/* The simulation of scene s: prepared (mrdem_sim_prepare). Returns 0, or
 * -1 with a message; release it either way. */
int mrdem_sim_init(struct mrdem_sim *sim, struct mrdem_scene *s, const struct mrdem_sim_opts *o);
void mrdem_sim_release(struct mrdem_sim *sim);
/* Broad and narrow phase for the current frame. */
int mrdem_sim_detect(struct mrdem_sim *sim);
/* One step with the contacts of the current frame (detecting them first
 * if needed; with implicit-euler they give the energies of the frame and
 * close pending Verlet half kicks, and the Picard iterations search their
 * own, common/sim/picard.h). On failure the message names step and particle; the frame
 * must not be written afterwards. */
int mrdem_sim_advance(struct mrdem_sim *sim);

/* The stats records of the current frame's detection, as mrdem-pairs and
 * mrdem-contact write them, and of the last step, as mrdem-step writes it,
 * with the Picard counters of an implicit step (each initialised here; the
 * caller releases). */
void mrdem_sim_detection_stats(const struct mrdem_sim *sim, struct mrdem_stats *broad,
				struct mrdem_stats *narrow);
void mrdem_sim_step_stats(const struct mrdem_sim *sim, struct mrdem_stats *out);
/* Stage times of l as time_broad, time_search, ... in seconds
 * (docs/driver.md); time_picard only when picard is set. */
void mrdem_sim_log_stats(const struct mrdem_stage_log *l, int picard, struct mrdem_stats *out);

#endif
