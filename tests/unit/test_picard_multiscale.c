/* Multiscale Picard (Alg. 6) on a random scene of spheres and boxes with a
 * fixed box obstacle and an analytic plane:
 *   - Lemma 5.7 in every step: the contacts behind the final forces come
 *     from real triangles only (no guesses left) and equal, bit for bit,
 *     the flat search's at the iterate where they were evaluated;
 *   - fronts unfold, guess and narrow along the way (the test covers them);
 *   - a warm-started step (fronts where the last step left them) from the
 *     same state as a root-started one gives the same velocities within
 *     the Picard tolerance, with fewer iterations. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/narrow/contacts/particle_contacts.h"
#include "common/sim/simulation.h"
#include "common/util/error.h"
#include "formats/foreign/scene_yaml.h"
#include "tests/lib/tap.h"

static const char scene_yaml[] =
	"shapes:\n"
	"  ball: {sphere: {triangles: 80, radius: 0.5}}\n"
	"  brick: {box: {size: [0.8, 0.5, 0.4]}}\n"
	"  wall: {box: {size: [3, 0.4, 1]}}\n"
	"particles:\n"
	"  - {shape: wall, position: [0, 1.1, 0.5], fixed: true}\n"
	"  - {shape: ball, position: [-0.4, 0.1, 0.51], velocity: [0.5, 0.8, 0], angular_velocity: [1, 0, 2]}\n"
	"  - {shape: brick, position: [0.52, 0.0, 0.215], velocity: [-0.6, 0.2, 0], angular_velocity: [0, 0, -1]}\n"
	"  - {shape: ball, position: [0.3, -0.2, 1.1], velocity: [0.1, 0.3, 0], angular_velocity: [-2, 0, 1]}\n"
	"  - {shape: brick, position: [-0.3, 0.3, 1.7], velocity: [0.2, 0.1, 0], angular_velocity: [0, -1, 3]}\n"
	"planes:\n"
	"  - {point: [0, 0, 0], normal: [0, 0.05, 1]}\n"
	"gravity: [0, 0, -9.81]\n"
	"contact: {model: paper, epsilon: 0.02, stiffness: 1000}\n"
	"time: {dt: 1.0e-3, steps: 150, scheme: implicit-euler}\n";

static void load(struct mrdem_scene *s, const char *path)
{
	mrdem_scene_init(s);
	if (mrdem_scene_load_yaml(path, s))
		mrdem_die("cannot load the test scene");
}

static void start(struct mrdem_sim *sim, struct mrdem_scene *s, int warm)
{
	struct mrdem_sim_opts o;
	mrdem_sim_opts_default(&o, s);
	o.contact.hierarchy = MRDEM_HIERARCHY_MULTISCALE;
	o.picard.warm_start = warm;
	if (mrdem_sim_init(sim, s, &o))
		mrdem_die("cannot start the simulation");
}

static int same_contacts(const struct mrdem_contacts *x, const struct mrdem_contacts *y)
{
	if (x->n != y->n)
		return 0;
	for (size_t k = 0; k < x->n; k++) {
		const struct mrdem_contact *p = &x->c[k], *q = &y->c[k];
		if (p->a != q->a || p->b != q->b || p->tri_a != q->tri_a || p->tri_b != q->tri_b ||
		    memcmp(p->x, q->x, sizeof p->x) || memcmp(p->normal, q->normal, sizeof p->normal) ||
		    memcmp(&p->dist, &q->dist, sizeof p->dist))
			return 0;
	}
	return 1;
}

/* Lemma 5.7 at the last iterate of the step just taken. */
static int lemma57(struct mrdem_sim *sim, struct mrdem_contact_finder *flat_finder,
		   struct mrdem_contacts *flat)
{
	struct mrdem_scene *s = sim->scene;
	struct mrdem_particles *p = &s->frame.p;
	size_t n = p->n;
	double *save = malloc(13 * n * sizeof *save);
	memcpy(save, p->pos, 3 * n * sizeof *save);
	memcpy(save + 3 * n, p->quat, 4 * n * sizeof *save);
	memcpy(save + 7 * n, p->vel, 3 * n * sizeof *save);
	memcpy(save + 10 * n, p->angvel, 3 * n * sizeof *save);
	mrdem_picard_place_last_iterate(&sim->picard, s);
	struct mrdem_contact_opts o = sim->opts.contact;
	o.hierarchy = MRDEM_HIERARCHY_FLAT;
	if (mrdem_find_contacts(flat_finder, s, &sim->picard.pairs, &o, flat, NULL))
		mrdem_die("flat search failed");
	int ok = sim->picard.guesses.n == 0 && same_contacts(flat, &sim->picard.contacts);
	memcpy(p->pos, save, 3 * n * sizeof *save);
	memcpy(p->quat, save + 3 * n, 4 * n * sizeof *save);
	memcpy(p->vel, save + 7 * n, 3 * n * sizeof *save);
	memcpy(p->angvel, save + 10 * n, 3 * n * sizeof *save);
	free(save);
	return ok;
}

int main(void)
{
	mrdem_set_progname("test_picard_multiscale");
	char path[] = "/tmp/mrdem-picard-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0 || write(fd, scene_yaml, sizeof scene_yaml - 1) != (ssize_t)(sizeof scene_yaml - 1))
		mrdem_die("cannot write the test scene");
	close(fd);

	struct mrdem_scene cold_s, warm_s;
	struct mrdem_sim cold, warm;
	load(&cold_s, path);
	load(&warm_s, path);
	unlink(path);
	start(&cold, &cold_s, 0);
	start(&warm, &warm_s, 1);
	struct mrdem_contact_finder *flat_finder = mrdem_contact_finder_new();
	struct mrdem_contacts flat;
	mrdem_contacts_init(&flat);

	uint64_t steps = cold_s.setup.steps, bad_cold = 0, bad_warm = 0, touching = 0;
	uint64_t it_cold = 0, it_warm = 0;
	struct mrdem_front_counts fc = {0};
	double worst = 0;
	uint64_t compared = 0;
	size_t n = cold_s.frame.p.n;
	double *v0 = malloc(6 * n * sizeof *v0);
	for (uint64_t k = 0; k < steps; k++) {
		struct mrdem_particles *pc = &cold_s.frame.p, *pw = &warm_s.frame.p;
		/* the warm run steps from the root-started run's state */
		memcpy(pw->pos, pc->pos, 3 * n * sizeof(double));
		memcpy(pw->quat, pc->quat, 4 * n * sizeof(double));
		memcpy(pw->vel, pc->vel, 3 * n * sizeof(double));
		memcpy(pw->angvel, pc->angvel, 3 * n * sizeof(double));
		memcpy(v0, pc->vel, 3 * n * sizeof(double));
		warm_s.frame.step = cold_s.frame.step;
		warm_s.frame.time = cold_s.frame.time;
		if (mrdem_sim_advance(&cold) || mrdem_sim_advance(&warm))
			mrdem_die("step %llu failed", (unsigned long long)k);
		bad_cold += !lemma57(&cold, flat_finder, &flat);
		touching += flat.n > 0;
		bad_warm += !lemma57(&warm, flat_finder, &flat);
		it_cold += cold.picard.last.iterations;
		it_warm += warm.picard.last.iterations;
		mrdem_front_counts_add(&fc, &cold.picard.last.front);
		/* Each run stops once forces change by less than the tolerance
		 * (1 %) of the gross force on the particle (weight plus every
		 * contact force's size), or of the floor that speed sets (1 %
		 * of the speed per step, picard.c): two converged runs differ
		 * in velocity by up to tol (gross dt / m + 0.01 |v|) each. */
		/* A halved step (retry) is another time discretisation. */
		if (cold.picard.last.retries || warm.picard.last.retries)
			continue;
		compared++;
		for (size_t i = 0; i < n; i++) {
			double dv = 0, d = 0, v = 0;
			for (int c = 0; c < 3; c++) {
				dv += pow(pc->vel[3 * i + c] - v0[3 * i + c], 2);
				d += pow(pc->vel[3 * i + c] - pw->vel[3 * i + c], 2);
				v += pow(v0[3 * i + c], 2);
			}
			const struct mrdem_body *bi = &cold.stepper.bodies.b[i];
			if (!(bi->inv_mass > 0))
				continue;
			double gross = fmax(cold.picard.gross[i], warm.picard.gross[i]);
			double bound = 0.01 * (gross * cold_s.setup.dt * bi->inv_mass + 0.01 * sqrt(v)) +
				       1e-12;
			(void)dv;
			worst = fmax(worst, sqrt(d) / bound);
		}
	}
	free(v0);
	tap_ok(touching > steps / 4, "particles touch in many steps (%llu of %llu)",
	       (unsigned long long)touching, (unsigned long long)steps);
	tap_eq_int((int)bad_cold, 0, "Lemma 5.7 in every step: final forces from real triangles, "
		   "the flat search's contacts at the last iterate");
	tap_eq_int((int)bad_warm, 0, "Lemma 5.7 in every warm-started step");
	tap_ok(fc.unfolds > 0 && fc.guesses > 0 && fc.narrows > 0,
	       "fronts unfold (%llu), guess (%llu) and narrow (%llu)",
	       (unsigned long long)fc.unfolds, (unsigned long long)fc.guesses,
	       (unsigned long long)fc.narrows);
	/* Both runs converge each step to the Picard tolerance (1 % of the
	 * forces), so the trajectories part by a small fraction of the motion. */
	tap_ok(worst < 2 && compared > steps / 2, "warm and root-started steps agree within the "
	       "Picard tolerance (largest velocity difference %.3g of the bound, %llu steps "
	       "without retries)", worst, (unsigned long long)compared);
	tap_ok(it_warm < it_cold, "warm start needs fewer Picard iterations (%llu vs %llu)",
	       (unsigned long long)it_warm, (unsigned long long)it_cold);

	mrdem_contacts_release(&flat);
	mrdem_contact_finder_free(flat_finder);
	mrdem_sim_release(&cold);
	mrdem_sim_release(&warm);
	mrdem_scene_release(&cold_s);
	mrdem_scene_release(&warm_s);
	return tap_done();
}
