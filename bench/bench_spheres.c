/* Dense analytic spheres (the goal: at most LAMMPS's granular time
 * per particle-step, measured in the same run): a simple cubic lattice of
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
 * Where LAMMPS's `lmp` is on PATH (Debian: lammps), it runs the same
 * spheres, velocities and steps with pair gran/hooke/history and fix
 * wall/gran (one process, one thread); its "Loop time of" (wall time of
 * the steps alone) times its "CPU use" gives its figure and the ratio;
 * without it, one line and mrdem's figures alone.
 *
 *   bench_spheres [--quick]     (--quick: 46^3 / 8 spheres, fewer steps) */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
	mrdem_sim_opts_default(&o, &s);
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

/* LAMMPS's data file of the scene's spheres: diameter 2 (r + eps), the
 * contact distance of mrdem's halos, and a density that keeps mrdem's
 * mass (that of the sphere of radius r); the box holds the walls and
 * room above. */
static int lammps_data(const struct mrdem_scene *s, const char *path)
{
	const struct mrdem_particles *p = &s->frame.p;
	double lo[3], hi[3];
	for (int c = 0; c < 3; c++)
		lo[c] = hi[c] = p->pos[c];
	for (size_t i = 0; i < p->n; i++)
		for (int c = 0; c < 3; c++) {
			lo[c] = fmin(lo[c], p->pos[3 * i + c]);
			hi[c] = fmax(hi[c], p->pos[3 * i + c]);
		}
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "mrdem bench_spheres lattice\n\n%zu atoms\n1 atom types\n\n", p->n);
	for (int c = 0; c < 3; c++)
		fprintf(f, "%.17g %.17g %clo %chi\n", lo[c] - 4 * R, hi[c] + (c == 2 ? 40 : 4) * R,
			'x' + c, 'x' + c);
	fprintf(f, "\nAtoms # sphere\n\n");
	for (size_t i = 0; i < p->n; i++) {
		double rc = R + p->eps[i], rho = p->density[i] * pow(R / rc, 3);
		fprintf(f, "%zu 1 %.17g %.17g %.17g %.17g %.17g\n", i + 1, 2 * rc, rho, p->pos[3 * i],
			p->pos[3 * i + 1], p->pos[3 * i + 2]);
	}
	fprintf(f, "\nVelocities\n\n");
	for (size_t i = 0; i < p->n; i++) {
		const double *v = &p->vel[3 * i], *w = &p->angvel[3 * i];
		fprintf(f, "%zu %.17g %.17g %.17g %.17g %.17g %.17g\n", i + 1, v[0], v[1], v[2], w[0],
			w[1], w[2]);
	}
	return fclose(f) ? -1 : 0;
}

/* LAMMPS's input: the spring-dashpot law as gran/hooke/history (Kn the
 * stiffness, gamma_n the damping per effective mass, gamma_t 2 sqrt(Kn /
 * m_eff) of two equal spheres: mrdem's viscous friction capped at mu fn),
 * with LAMMPS's default tangential spring Kt = 2/7 Kn where mrdem's law has
 * none (Kt 0 divides by zero when LAMMPS rescales the spring to the
 * Coulomb cap: NaN forces from the second step), the axis-aligned planes as
 * wall/gran moved in by the plane halo (LAMMPS's walls have none), the
 * Verlet list with the same skin and check, nve/sphere. */
static int lammps_input(const struct mrdem_scene *s, double skin, int steps, const char *path)
{
	const struct mrdem_setup *u = &s->setup;
	double m = s->frame.p.density[0] * 4.0 / 3.0 * M_PI * R * R * R;
	double g = sqrt(u->gravity[0] * u->gravity[0] + u->gravity[1] * u->gravity[1] +
			u->gravity[2] * u->gravity[2]);
	char law[256];
	snprintf(law, sizeof law, "hooke/history %.17g NULL %.17g %.17g %.17g 1", u->stiffness,
		 u->damping, 2 * sqrt(u->stiffness / (0.5 * m)), u->friction);
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "units si\natom_style sphere\nboundary f f f\nnewton on\ncomm_modify vel yes\n"
		   "read_data spheres.data\nneighbor %.17g bin\nneigh_modify delay 0 every 1 check yes\n"
		   "pair_style gran/%s\npair_coeff * *\ntimestep %.17g\nfix 1 all nve/sphere\n",
		skin, law, u->dt);
	if (g > 0)
		fprintf(f, "fix 2 all gravity %.17g vector %.17g %.17g %.17g\n", g, u->gravity[0] / g,
			u->gravity[1] / g, u->gravity[2] / g);
	for (int c = 0; c < 3; c++) {
		char lo[32] = "NULL", hi[32] = "NULL";
		int any = 0;
		for (uint32_t k = 0; k < u->nplanes; k++) {
			const struct mrdem_plane *pl = &u->planes[k];
			if (fabs(pl->normal[c]) != 1)
				continue;
			double w = pl->point[c] + u->plane_epsilon * pl->normal[c];
			snprintf(pl->normal[c] > 0 ? lo : hi, 32, "%.17g", w);
			any = 1;
		}
		if (any)
			fprintf(f, "fix w%c all wall/gran %s %cplane %s %s\n", 'x' + c, law, 'x' + c, lo,
				hi);
	}
	fprintf(f, "thermo %d\nrun %d\n", steps, steps);
	return fclose(f) ? -1 : 0;
}

/* LAMMPS's nanoseconds per particle-step on the scene (its loop's wall
 * time, one process and thread) and its CPU use in percent; -1 when it
 * could not run, with a line saying why. */
static double lammps(const struct mrdem_scene *s, double skin, int steps, double *cpu)
{
	const char *tmp = getenv("TMPDIR");
	char dir[512], path[600], cmd[1200];
	snprintf(dir, sizeof dir, "%s/mrdem-lammps-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		printf("  LAMMPS: no temporary folder under %s: not run\n", tmp && *tmp ? tmp : "/tmp");
		return -1;
	}
	snprintf(path, sizeof path, "%s/spheres.data", dir);
	int bad = lammps_data(s, path);
	snprintf(path, sizeof path, "%s/in.spheres", dir);
	bad = bad || lammps_input(s, skin, steps, path);
	snprintf(cmd, sizeof cmd, "cd '%s' && OMP_NUM_THREADS=1 lmp -nocite -screen none "
		 "-log log.lammps -in in.spheres >lmp.out 2>&1", dir);
	if (bad || system(cmd)) {
		printf("  LAMMPS: the run in %s failed (log.lammps, lmp.out there say why)\n", dir);
		return -1;
	}
	snprintf(path, sizeof path, "%s/log.lammps", dir);
	FILE *f = fopen(path, "r");
	char line[512];
	double t = -1;
	int procs, nsteps;
	long natoms;
	*cpu = -1;
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "Loop time of %lf on %d procs for %d steps with %ld atoms", &t, &procs,
			   &nsteps, &natoms) == 4)
			t = t / ((double)natoms * nsteps) * 1e9;
		else if (strstr(line, "% CPU use"))
			sscanf(line, "%lf", cpu);
	if (f)
		fclose(f);
	if (t < 0) {
		printf("  LAMMPS: no \"Loop time of\" in %s\n", path);
		return -1;
	}
	static const char *files[] = {"spheres.data", "in.spheres", "log.lammps", "lmp.out"};
	for (int k = 0; k < 4; k++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[k]);
		unlink(path);
	}
	rmdir(dir);
	return t;
}

/* LAMMPS on the spring-dashpot lattice beside mrdem's fast path's ns. */
static void lammps_line(int n3[3], int steps, double ns)
{
	if (system("command -v lmp >/dev/null 2>&1")) {
		printf("  LAMMPS: lmp not found (Debian: apt-get install lammps): mrdem's figures alone\n");
		return;
	}
	struct mrdem_scene s;
	lattice(&s, n3[0], n3[1], n3[2], MRDEM_FORCE_SPRING_DASHPOT);
	double cpu, t = lammps(&s, 0.1 * R, steps, &cpu);
	mrdem_scene_release(&s);
	/* mrdem's figure is CPU time: LAMMPS's is its loop's wall time times
	 * the CPU use it reports, which a loaded machine takes below 100 % */
	if (t > 0 && cpu > 0)
		printf("  LAMMPS gran/hooke/history, same spheres and steps (skin 0.1 r): %.1f ns per "
		       "particle-step of loop wall time at %.1f %% CPU, %.1f ns of CPU; the fast path "
		       "%.2fx it (CPU)\n", t, cpu, t * cpu / 100, ns / (t * cpu / 100));
	else if (t > 0)
		printf("  LAMMPS gran/hooke/history, same spheres and steps (skin 0.1 r): %.1f ns per "
		       "particle-step of loop wall time (no CPU use in its log); the fast path %.2fx "
		       "it\n", t, ns / t);
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
	printf("  spring-dashpot, fast path, Verlet list (skin 0.1 r): %.1f ns per particle-step; "
	       "%llu list builds, %.2f listed pairs and %.2f contacts per particle\n", ns,
	       (unsigned long long)st.rebuilds, (double)st.list_pairs / ((double)n * steps),
	       (double)st.contacts / ((double)n * steps));
	lammps_line(n3, steps, ns);
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
