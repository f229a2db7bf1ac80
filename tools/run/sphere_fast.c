/* mrdem-run's steps on the sphere fast path (--fast-spheres, or chosen by
 * itself for a scene it covers): a Verlet list of analytic spheres
 * (common/sim/sphere_fast.h), frames only, no contact records. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/util/error.h"
#include "tools/run/run.h"

struct fast {
	struct mrdem_sphere_fast *f;
	double skin;   /* 0.1 x the smallest radius */
	double *sync;  /* synchronised velocities of the frame written */
	size_t cap;
};

static struct fast *fast_of(const struct run *r)
{
	return r->backend_state;
}

static int covers(const struct mrdem_scene *s, char *why, size_t size)
{
	return mrdem_sphere_fast_covers(s, why, size);
}

static int open_fast(struct run *r, int argc, char **argv)
{
	(void)argc, (void)argv;
	struct fast *fs = mrdem_xcalloc(1, sizeof *fs);
	r->backend_state = fs;
	double rmin = INFINITY;
	for (uint32_t k = 0; k < r->scene.nshapes; k++)
		rmin = fmin(rmin, r->scene.shapes[k].axes[0]);
	fs->skin = r->scene.nshapes ? 0.1 * rmin : 0;
	fs->f = mrdem_sphere_fast_new(&r->scene, r->opts.broad, fs->skin);
	return fs->f ? 0 : -1;
}

static void close_fast(struct run *r)
{
	struct fast *fs = fast_of(r);
	if (!fs)
		return;
	mrdem_sphere_fast_free(fs->f);
	free(fs->sync);
	free(fs);
	r->backend_state = NULL;
}

/* No search of its own: the frame, when due, as the step left it. */
static int detect(struct run *r, int output, int frame, int step)
{
	(void)output, (void)step;
	return frame ? run_write_frame(r, NULL) : 0;
}

static int advance(struct run *r, int output)
{
	(void)output;
	return mrdem_sphere_fast_step(fast_of(r)->f);
}

static int synchronise(struct run *r, const struct mrdem_contacts *c, double **vel,
		       double **angvel)
{
	(void)c;
	struct fast *fs = fast_of(r);
	size_t n = r->scene.frame.p.n;
	if (6 * n + 1 > fs->cap) {
		fs->cap = 6 * n + 1;
		fs->sync = mrdem_xrealloc(fs->sync, fs->cap * sizeof *fs->sync);
	}
	if (mrdem_sphere_fast_synchronise(fs->f, fs->sync, fs->sync + 3 * n))
		return -1;
	*vel = fs->sync;
	*angvel = fs->sync + 3 * n;
	return 1;
}

static int summary(const struct run *r, double n)
{
	const struct fast *fs = fast_of(r);
	struct mrdem_sphere_fast_stats st;
	mrdem_sphere_fast_get_stats(fs->f, &st);
	double np = r->scene.frame.p.n ? (double)r->scene.frame.p.n : 1;
	fprintf(stderr, "  sphere fast path (skin %g m): %.3g ns per particle-step, %llu "
		"Verlet-list builds, per step %.1f listed pairs and %.1f contacts\n",
		fs->skin, 1e9 * r->t_loop / (n * np), (unsigned long long)st.rebuilds,
		st.list_pairs / n, st.contacts / n);
	if (r->backend_auto)
		fprintf(stderr, "  (chosen for this scene of analytic spheres: frames only; "
			"--general-path writes pairs, contacts and stats records)\n");
	return 1;
}

const struct run_backend run_sphere_fast = {
	.option = "fast-spheres",
	.open = open_fast,
	.close = close_fast,
	.covers = covers,
	.detect = detect,
	.advance = advance,
	.synchronise = synchronise,
	.summary = summary,
	.automatic = 1,
	.refuses = RUN_OPT_LOG_VIEW | RUN_OPT_ENERGY_BOUND | RUN_OPT_CONTACT | RUN_OPT_OTHER_BACKEND |
		   RUN_OPT_FRONTS,
	.refusal = "--fast-spheres has no contact records, tools, stages or energy bound to take "
		   "--via-pipes, --log-view, --max-energy-growth or contact options (--hierarchy, "
		   "--method, --no-merge, --warm-start, ...)",
	.memory_note = "",
};
