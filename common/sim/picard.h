/* Implicit Euler by Picard iterations (paper Alg. 3, Sec. 5.2, Sec. 6.1).
 *
 * Per step the unknowns are the velocity updates (dv, dw) of every free
 * particle over the step. Iteration k places every particle at
 * x_n + dt (v_n + dv_k) (orientation from w_n + dw_k), runs the contact
 * search there (broad phase, then the flat or the surrogate search as a
 * black box: same contacts, so the same iterates, Corollary 5.5), computes
 * forces and torques, and forms the fresh update dt F / m (and its angular
 * analogue). The next guess is a per-particle weighted average of the
 * fresh update and the current guess, the weight growing while successive
 * increments agree and shrinking while they oscillate. The step converges
 * when, for every particle, the force and torque computed at the guess
 * differ from those the guess was built from (its update times m / dt) by
 * less than a relative tolerance; it then ends at the fresh update of the
 * last iteration. A step that hits the iteration cap or stops making
 * progress is retried as two steps of half the time step, recursively up
 * to a limit. Formulas, weights and defaults: docs/dynamics.md.
 *
 * With the multiscale hierarchy (Alg. 6) the search of every iteration runs
 * on per-pair fronts (common/narrow/search/front_search.h) that start where the
 * last step left them (warm start, the default) or at the roots (cold
 * start, the paper's Alg. 6), unfold at most one
 * level per iteration and narrow again; node pairs in contact add damped
 * force guesses (remark 5). A step converges only in an iteration that
 * unfolded nothing: its forces then come from real triangles alone, the
 * flat search's contacts at that iterate (Lemma 5.7). */
#ifndef MRDEM_SIM_PICARD_H
#define MRDEM_SIM_PICARD_H

#include <stdint.h>

#include "common/broad/broad.h"
#include "common/dynamics/forces.h"
#include "common/dynamics/rigid_body.h"
#include "common/narrow/contacts/contact_stats.h"
#include "common/scene/contacts.h"
#include "common/scene/id_index.h"
#include "common/scene/pairs.h"
#include "common/scene/scene.h"
#include "common/scene/stats.h"
#include "common/util/stages.h"

#define MRDEM_PICARD_DEFAULT_TOL 0.01
#define MRDEM_PICARD_DEFAULT_MAX 50
#define MRDEM_PICARD_DEFAULT_RETRIES 4
#define MRDEM_PICARD_MAX_RETRIES 60
/* Factor on the force of a surrogate contact (multiscale, remark 5). */
#define MRDEM_PICARD_DEFAULT_DAMPING 0.1
/* Iterations without a new smallest residual after which a step counts as
 * diverging. */
#define MRDEM_PICARD_STALL 10
/* Iterations whose triangle comparisons are also counted one by one
 * (later ones add to the last), paper Figure 4. */
#define MRDEM_PICARD_ITER_COUNTERS 16

struct mrdem_picard_opts {
	double tol;          /* relative force and torque change for convergence */
	unsigned max_iter;   /* iterations per attempt, at least 1 */
	unsigned max_retries;/* halvings of the time step after a failed attempt */
	double damping;      /* multiscale: factor on surrogate contact forces, (0, 1] */
	int warm_start;      /* multiscale: fronts start where the last step left them
	                        (default), or at the roots (0, paper Alg. 6) */
};
void mrdem_picard_opts_default(struct mrdem_picard_opts *o);
/* Set one option from its command-line spelling, so mrdem-run and
 * mrdem-step take the same ones: "picard-tol", "picard-max",
 * "picard-retries", "surrogate-damping" (value in (0, 1]), "warm-start"
 * and "cold-start" (value NULL). Returns 0, or -1 with a message naming --key. */
int mrdem_picard_opts_set(struct mrdem_picard_opts *o, const char *key, const char *value);
/* 0, or -1 with a message naming what is out of range. */
int mrdem_picard_opts_check(const struct mrdem_picard_opts *o);
/* Usage text of those options, for --help. */
extern const char mrdem_picard_opts_usage[];

/* Account of one step, summed over its attempts and sub-steps. */
struct mrdem_picard_counts {
	uint64_t iterations;
	uint64_t comparisons;   /* triangle comparisons of every search round and real triangles */
	/* ... by iteration (1, 2, ...; later ones add to the last) and search
	 * round (level_a + level_b; MRDEM_SEARCH_ROUNDS: the real triangles) */
	uint64_t comparisons_round[MRDEM_PICARD_ITER_COUNTERS][MRDEM_SEARCH_ROUNDS + 1];
	uint64_t iterative, fallbacks;
	uint64_t retries;       /* attempts that failed and were halved */
	uint64_t substeps;      /* converged sub-steps that make up the step */
	uint64_t contacts;      /* contacts of the last iteration */
	struct mrdem_front_counts front; /* multiscale: unfolds, narrows, guesses, ... */
	double residual;        /* largest relative change in the last iteration */
};

/* The contact search of the run, used at every iterate. */
struct mrdem_picard_search {
	struct mrdem_broad *broad;
	int broad_method;
	struct mrdem_contact_finder *finder;
	const struct mrdem_contact_opts *contact;
};

/* A (sub-)step still to do: its time step, start time and how many
 * halvings made it. */
struct mrdem_picard_substep {
	double dt, t;
	uint32_t depth;
};

/* The state of a step in progress: everything an iteration needs besides
 * the frame at the iterate and the contacts found there. It lives in the
 * driver's memory in process and in the picard record between the tools
 * (formats/stream/record_picard.h), so both compute the same bits. */
struct mrdem_picard {
	/* the step */
	struct mrdem_picard_opts opts;
	struct mrdem_picard_substep cur;       /* the attempt in progress */
	struct mrdem_picard_substep *pending;  /* still to do after it, the next last */
	size_t npending, pending_cap;
	uint32_t iter;               /* iterations of the attempt so far */
	uint32_t since_best;         /* ... without a new smallest residual */
	double best;                 /* smallest residual of the attempt (unfold: reset) */
	struct mrdem_picard_counts last;
	/* per particle, in frame order */
	size_t n, cap;
	double *x0, *q0, *v0, *w0;   /* start of the (sub-)step */
	double *guess;               /* 6 per particle: dv, dw of the current iterate */
	double *inc;                 /* 6 per particle: the previous increment fresh - guess */
	double *weight;              /* 2 per particle: linear, angular */
	double *gross_prev;          /* per particle: gross force of the previous iteration */
	/* scratch of one iteration */
	double *fresh;               /* 6 per particle: the update the last forces ask for */
	double *torque0;             /* 3 per particle: torque about x0 (mrdem_implicit_torque) */
	double *gross;               /* per particle: weight plus sum of |contact force| */
	double *size;                /* per particle: sqrt(trace I_b / m), the torque arm */
	double *resid;               /* per particle: relative change of the last iteration */
	struct mrdem_forces forces;
	/* in process: the search at the iterate */
	struct mrdem_pairs pairs;
	struct mrdem_broad_stats broad_stats;
	struct mrdem_contacts contacts;
	struct mrdem_contact_counts counts;
	/* multiscale: the fronts (NULL until needed; through pipes, those of
	 * the fronts record) and the guesses of the last iteration */
	struct mrdem_front_store *fronts;
	struct mrdem_contacts guesses;
	/* wall time of the last step: the loop as a whole, its broad phases
	 * and forces (the narrow phase's are in the finder's log) */
	struct mrdem_stage_log log;
};

void mrdem_picard_init(struct mrdem_picard *pc);
void mrdem_picard_release(struct mrdem_picard *pc);

/* Advance the particles of s->frame by dt (frame step and time are left to
 * the caller, mrdem_stepper_finish), with bodies b and index ix of the
 * frame. Each retry is reported on standard error. Returns 0, or -1 with a
 * message naming the step and the particles that did not converge; the
 * frame then holds an unconverged state and must not be written.
 * In process this is begin, then search and respond until done. */
int mrdem_picard_advance(struct mrdem_picard *pc, const struct mrdem_picard_opts *o,
			 const struct mrdem_picard_search *search, struct mrdem_scene *s,
			 const struct mrdem_bodies *b, const struct mrdem_id_index *ix, double dt);

/* The step as one Picard iteration per call, for the tools:
 *   begin    options checked, the start saved, the frame placed at the
 *            first iterate;
 *   (search  contacts, and multiscale guesses, at the frame as placed)
 *   respond  forces there, the residual, and the next move: the frame
 *            placed at the next iterate (MRDEM_PICARD_MORE, search again),
 *            or at the end of the step (MRDEM_PICARD_DONE); a failed
 *            attempt is retried at half the time step within.
 * begin returns MRDEM_PICARD_MORE, respond one of the two; both -1 with
 * a message. */
enum { MRDEM_PICARD_MORE = 1, MRDEM_PICARD_DONE = 0 };
int mrdem_picard_begin(struct mrdem_picard *pc, const struct mrdem_picard_opts *o,
		       struct mrdem_scene *s, double dt);
int mrdem_picard_respond(struct mrdem_picard *pc, struct mrdem_scene *s,
			 const struct mrdem_bodies *b, const struct mrdem_id_index *ix,
			 const struct mrdem_contacts *contacts,
			 const struct mrdem_contacts *guesses, const struct mrdem_search_work *work);
/* Room for the state of n particles (decoders). */
void mrdem_picard_reserve(struct mrdem_picard *pc, size_t n);

/* Put the particles of s->frame where the last iteration evaluated the
 * contacts (pc->contacts; after a converged step without retries, for
 * checks such as Lemma 5.7). */
void mrdem_picard_place_last_iterate(struct mrdem_picard *pc, struct mrdem_scene *s);

/* The account of the last step as named statistics (docs/dynamics.md). */
void mrdem_picard_stats(const struct mrdem_picard_counts *c, struct mrdem_stats *out);

#endif
