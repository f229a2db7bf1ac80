/* Dense analytic spheres (the goal: at most LAMMPS's granular time
 * per particle-step, measured at about 150 ns): a simple cubic lattice of
 * spheres (radius 1 mm, halo 2 % of it) whose neighbours' halos overlap
 * (six contacts a sphere), small random velocities, gravity, in a box of
 * five planes; the spring-dashpot model with friction, and hooke and
 * hertz with friction (tangential springs), velocity Verlet.
 * Nanoseconds of CPU per particle-step on one thread for the sphere fast
 * path (common/sim/sphere_fast.h: Verlet list from the mr broad phase with
 * a skin of 10 % of the radius, and without a skin), and for the general
 * path (mrdem_sim_advance: broad phase, contact records, forces) on the
 * same scene for fewer steps. Scalar C at -O2 (the build's flags; no
 * explicit SIMD). Printed, never asserted.
 *
 *   bench_spheres [--quick]     (--quick: 46^3 / 8 spheres, fewer steps) */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/broad/broad.h"
#include "common/sim/simulation.h"
#include "common/sim/sphere_fast.h"
#include "common/util/error.h"
#include "common/util/rng.h"

#define R 1e-3

static double cpu_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void lattice(struct mrdem_scene *s, int nx, int ny, int nz, int model)
{
	mrdem_scene_init(s);
	double ax[3] = {R, R, R}, eps = 0.02 * R, a = 2 * R + eps; /* halos overlap by eps */
	uint32_t k = mrdem_scene_add_analytic(s, "grain", MRDEM_SHAPE_SPHERE, ax);
	struct mrdem_setup *u = &s->setup;
	u->force_model = model;
	u->stiffness = 100;
	u->damping = 200;
	u->friction = 0.5;
	/* hooke, hertz: about the spring-dashpot's stiffness at these overlaps */
	u->restitution = 0.5;
	u->tangential = 2.0 / 7.0;
	u->young = 1e6;
	u->poisson = 0.3;
	u->plane_epsilon = eps;
	u->gravity[2] = -9.81;
	u->scheme = MRDEM_SCHEME_VELOCITY_VERLET;
	u->dt = 2e-5;
	static const double nrm[5][3] = {{0, 0, 1}, {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}};
	u->nplanes = 5;
	u->planes = calloc(5, sizeof *u->planes);
	for (int p = 0; p < 5; p++)
		memcpy(u->planes[p].normal, nrm[p], sizeof nrm[p]);
	u->planes[0].point[2] = -R - eps;
	u->planes[1].point[0] = -R - eps, u->planes[2].point[0] = (nx - 1) * a + R + eps;
	u->planes[3].point[1] = -R - eps, u->planes[4].point[1] = (ny - 1) * a + R + eps;
	struct mrdem_rng rng;
	mrdem_rng_seed(&rng, 5);
	mrdem_particles_reserve(&s->frame.p, (size_t)nx * ny * nz);
	uint64_t id = 0;
	for (int z = 0; z < nz; z++)
		for (int y = 0; y < ny; y++)
			for (int x = 0; x < nx; x++) {
				size_t i = mrdem_particles_push(&s->frame.p, id++, k);
				double *p = &s->frame.p.pos[3 * i], *v = &s->frame.p.vel[3 * i];
				p[0] = x * a, p[1] = y * a, p[2] = z * a;
				for (int c = 0; c < 3; c++)
					v[c] = mrdem_rng_range(&rng, -0.01, 0.01);
				s->frame.p.density[i] = 2500;
				s->frame.p.eps[i] = 0.5 * eps;
			}
}

static double fast(int n3[3], int model, double skin, int steps,
		   struct mrdem_sphere_fast_stats *st)
{
	struct mrdem_scene s;
	lattice(&s, n3[0], n3[1], n3[2], model);
	struct mrdem_sphere_fast *f = mrdem_sphere_fast_new(&s, MRDEM_BROAD_MR, skin);
	if (!f)
		mrdem_die("fast path refused the lattice");
	double t0 = cpu_now();
	for (int k = 0; k < steps; k++)
		if (mrdem_sphere_fast_step(f))
			mrdem_die("fast path step failed");
	double t = cpu_now() - t0;
	mrdem_sphere_fast_get_stats(f, st);
	size_t n = s.frame.p.n;
	mrdem_sphere_fast_free(f);
	mrdem_scene_release(&s);
	return t / ((double)n * steps) * 1e9;
}

static double general(int n3[3], int model, int steps)
{
	struct mrdem_scene s;
	lattice(&s, n3[0], n3[1], n3[2], model);
	struct mrdem_sim_opts o;
	struct mrdem_sim sim;
	mrdem_sim_opts_default(&o, &s.setup);
	o.broad = MRDEM_BROAD_MR;
	if (mrdem_sim_init(&sim, &s, &o))
		mrdem_die("sim init");
	double t0 = cpu_now();
	for (int k = 0; k < steps; k++)
		if (mrdem_sim_advance(&sim))
			mrdem_die("general step failed");
	double t = cpu_now() - t0;
	size_t n = s.frame.p.n;
	mrdem_sim_release(&sim);
	mrdem_scene_release(&s);
	return t / ((double)n * steps) * 1e9;
}

int main(int argc, char **argv)
{
	int quick = argc > 1 && !strcmp(argv[1], "--quick");
	int n3[3] = {46, 46, 48};
	if (quick)
		n3[0] = n3[1] = n3[2] = 23;
	int steps = quick ? 50 : 200;
	omp_set_num_threads(1);
	long n = (long)n3[0] * n3[1] * n3[2];
	struct mrdem_sphere_fast_stats st;
	printf("%ld dense analytic spheres (simple cubic, 6 contacts each), one thread, %d steps:\n",
	       n, steps);
	double ns = fast(n3, MRDEM_FORCE_SPRING_DASHPOT, 0.1 * R, steps, &st);
	printf("  spring-dashpot, fast path, Verlet list (skin 0.1 r): %.1f ns per particle-step "
	       "(%.2f of LAMMPS's 150 ns); %llu list builds, %.2f listed pairs and %.2f contacts "
	       "per particle\n", ns, ns / 150, (unsigned long long)st.rebuilds,
	       (double)st.list_pairs / ((double)n * steps), (double)st.contacts / ((double)n * steps));
	ns = fast(n3, MRDEM_FORCE_SPRING_DASHPOT, 0, steps / 4, &st);
	printf("  spring-dashpot, fast path, broad phase every step:   %.1f ns per particle-step\n", ns);
	int gsteps = quick ? 5 : 10;
	ns = general(n3, MRDEM_FORCE_SPRING_DASHPOT, gsteps);
	printf("  spring-dashpot, general path (mrdem_sim_advance):     %.1f ns per particle-step "
	       "(%d steps)\n", ns, gsteps);
	static const int models[2] = {MRDEM_FORCE_HOOKE, MRDEM_FORCE_HERTZ};
	for (int k = 0; k < 2; k++) {
		const char *name = mrdem_force_model_name(models[k]);
		ns = fast(n3, models[k], 0.1 * R, steps, &st);
		printf("  %s with friction, fast path (skin 0.1 r): %.1f ns per particle-step; %.2f "
		       "contacts per particle\n", name, ns, (double)st.contacts / ((double)n * steps));
		ns = general(n3, models[k], gsteps);
		printf("  %s with friction, general path:           %.1f ns per particle-step (%d "
		       "steps)\n", name, ns, gsteps);
	}
	return 0;
}
