/* mrdem-run's reporting: the sums over the steps, the progress bar, the
 * summary and the --log-view table (docs/driver.md), all on standard error. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <sys/resource.h>

#include "common/dynamics/energy.h"
#include "common/util/threads.h"
#include "tools/run/run.h"

void run_progress(struct run *r, uint64_t done)
{
	if (!r->progress)
		return;
	int width = 30, fill = r->steps ? (int)(width * done / r->steps) : width;
	double el = mrdem_clock() - r->t0;
	double eta = done ? el / done * (r->steps - done) : 0;
	fprintf(stderr, "\r[%.*s%*s] %3d%% step %llu/%llu  t=%.4g s  contacts %zu  eta %.0f s ",
		fill, "==============================", width - fill, "",
		r->steps ? (int)(100 * done / r->steps) : 100, (unsigned long long)done,
		(unsigned long long)r->steps, r->scene.frame.time,
		(size_t)(r->backend->contacts ? r->backend->contacts(r) : 0), eta);
	fflush(stderr);
}

/* Stages shown; the Picard loop encloses broad phase, narrow phase and
 * forces of its iterations, so it is shown apart and not summed; the
 * ranks' exchange only where there are ranks. */
static int stage_shown(const struct run *r, int k)
{
	if (k == MRDEM_STAGE_EXCHANGE)
		return r->nranks > 0;
	return k != MRDEM_STAGE_PICARD || r->opts.step.scheme == MRDEM_SCHEME_IMPLICIT_EULER;
}

/* Two lines of the summary: ms per step and share of each stage. */
static void compact_log(const struct run *r)
{
	double n = r->nsteps ? (double)r->nsteps : 1, total = r->t_loop > 0 ? r->t_loop : 1;
	fputs("  stages, ms per step (share):", stderr);
	for (int k = 0; k < MRDEM_STAGES; k++) {
		if (!stage_shown(r, k))
			continue;
		if (k == MRDEM_STAGE_PARALLEL)
			fputs("\n   ", stderr);
		fprintf(stderr, "%s %s %.2g (%.0f%%)", k == MRDEM_STAGE_BROAD ||
			k == MRDEM_STAGE_PARALLEL ? "" : ",", k == MRDEM_STAGE_PICARD ? "Picard loop" :
			mrdem_stage_name(k), 1e3 * r->log.seconds[k] / n, 100 * r->log.seconds[k] / total);
	}
	fputs("\n", stderr);
}

/* PETSc -log_view in spirit: per stage calls, time, time per step and
 * share of the run loop; then the work counters with their rates. */
void run_log_view(const struct run *r)
{
	const struct mrdem_stage_log *l = &r->log;
	double n = r->nsteps ? (double)r->nsteps : 1, total = r->t_loop > 0 ? r->t_loop : 1e-300;
	int implicit = r->opts.step.scheme == MRDEM_SCHEME_IMPLICIT_EULER;
	fprintf(stderr,
		"---- mrdem-run performance log (--log-view) ----\n"
		"%llu steps, %.6g s in the run loop (%.4g ms per step), %d OpenMP thread(s), %s\n"
		"Times are wall-clock seconds (CLOCK_MONOTONIC). search, kernels, fallback and\n"
		"merge run per pair on the threads in parallel: each is the threads' seconds\n"
		"summed and divided by the threads of the loop (the mean thread); 'parallel' is\n"
		"the rest of the narrow phase's wall time (thread start and join, load\n"
		"imbalance, job list). Share: of the run loop's wall time; the stages and\n"
		"'other' add up to it. Calls: broad phase runs; pairs searched; kernel batches\n"
		"(and plane pairs); fallback blocks; pairs' contact points; narrow phases;\n"
		"force evaluations; steps; output steps. output is the CPU time writing,\n"
		"output_wait the rest of its wall time, off the CPU: blocked on a full pipe or a\n"
		"slow disk, or waiting for a CPU that other threads or processes hold.\n\n",
		(unsigned long long)r->nsteps, r->t_loop, 1e3 * r->t_loop / n, omp_get_max_threads(),
		mrdem_scheme_name(r->opts.step.scheme));
	fprintf(stderr, "%-12s %12s %12s %12s %8s\n", "Stage", "Calls", "Time (s)", "ms/step",
		"Share");
	double sum = 0;
	for (int k = 0; k < MRDEM_STAGES; k++) {
		if (k == MRDEM_STAGE_PICARD || !stage_shown(r, k))
			continue;
		sum += l->seconds[k];
		fprintf(stderr, "%-12s %12llu %12.6f %12.4f %7.1f%%\n", mrdem_stage_name(k),
			(unsigned long long)l->calls[k], l->seconds[k], 1e3 * l->seconds[k] / n,
			100 * l->seconds[k] / total);
	}
	double other = r->t_loop - sum;
	fprintf(stderr, "%-12s %12s %12.6f %12.4f %7.1f%%\n", "other", "", other, 1e3 * other / n,
		100 * other / total);
	fprintf(stderr, "%-12s %12s %12.6f %12.4f %7.1f%%\n", "total", "", r->t_loop,
		1e3 * r->t_loop / n, 100.0);
	if (implicit) {
		const int k = MRDEM_STAGE_PICARD;
		fprintf(stderr, "%-12s %12llu %12.6f %12.4f %7.1f%%  (encloses the broad phase, narrow "
			"phase and forces of its iterations)\n", mrdem_stage_name(k),
			(unsigned long long)l->calls[k], l->seconds[k], 1e3 * l->seconds[k] / n,
			100 * l->seconds[k] / total);
	}
	double narrow = l->seconds[MRDEM_STAGE_SEARCH] + l->seconds[MRDEM_STAGE_KERNELS] +
			l->seconds[MRDEM_STAGE_FALLBACK] + l->seconds[MRDEM_STAGE_MERGE] +
			l->seconds[MRDEM_STAGE_PARALLEL];
	double kernels = l->seconds[MRDEM_STAGE_KERNELS] + l->seconds[MRDEM_STAGE_FALLBACK];
	struct { const char *name; uint64_t v; double per_s; const char *of; } c[] = {
		{"pairs", l->pairs, narrow, "narrow phase"},
		{"comparisons", l->comparisons, kernels, "kernels + fallback"},
		{"hits", l->hits, narrow, "narrow phase"},
		{"contacts", l->contacts, narrow, "narrow phase"},
		{"picard_iter", l->picard_iterations, l->seconds[MRDEM_STAGE_PICARD], "Picard loop"},
	};
	fprintf(stderr, "\n%-12s %14s %14s %14s  %s\n", "Counter", "Total", "Per step", "Rate (/s)",
		"per second of");
	for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
		if (k == 4 && !implicit)
			continue;
		fprintf(stderr, "%-12s %14llu %14.6g %14.4g  %s\n", c[k].name,
			(unsigned long long)c[k].v, (double)c[k].v / n,
			c[k].per_s > 0 ? (double)c[k].v / c[k].per_s : 0.0, c[k].of);
	}
	fputs("Counters cover every contact search: each frame's (also the last) and, with\n"
	      "implicit-euler, every Picard iteration's.\n", stderr);
	if (r->backend->log_view)
		r->backend->log_view(r);
}

/* The counters the backend summed (its account), per step. */
static void counter_lines(const struct run *r, double n)
{
	fprintf(stderr, "  per step: %.1f pairs (broad phase %s), %.1f contacts, %.4g triangle "
		"comparisons (real %.4g", r->sum_pairs / n, mrdem_broad_method_name(r->opts.broad),
		r->sum_contacts / n, r->sum_comparisons / n, r->sum_real / n);
	for (int k = 0; k < MRDEM_SEARCH_ROUNDS; k++)
		if (r->sum_round[k])
			fprintf(stderr, ", round %d %.4g", k, r->sum_round[k] / n);
	fprintf(stderr, "), %.4g fallbacks\n", r->sum_fallbacks / n);
	const struct mrdem_convex_counts *cv = &r->sum_convex;
	if (cv->pairs)
		fprintf(stderr, "  convex pairs: %.4g per step, %.1f %% apart by closest-feature tracking, "
			"%.3g walk steps per pair, %llu GJK fallbacks\n", cv->pairs / n,
			100.0 * (double)cv->apart / (double)cv->pairs,
			(double)cv->steps / (double)cv->pairs, (unsigned long long)cv->fallbacks);
	if (r->sum_picard_iterations)
		fprintf(stderr, "  Picard: %.3g iterations per step, %.4g triangle comparisons per step "
			"(%.4g per iteration), %llu retries\n", r->sum_picard_iterations / n,
			r->sum_picard_comparisons / n,
			(double)r->sum_picard_comparisons / (double)r->sum_picard_iterations,
			(unsigned long long)r->sum_picard_retries);
	if (r->sum_picard_iterations)
		fprintf(stderr, "          %.4g fallbacks per step", r->sum_picard_fallbacks / n);
	if (r->sum_unfolds)
		fprintf(stderr, "; fronts (%s start): %.4g unfolds, %.4g narrows, %.4g surrogate "
			"guesses per step", r->opts.picard.warm_start ? "warm" : "cold",
			r->sum_unfolds / n, r->sum_narrows / n, r->sum_guesses / n);
	if (r->sum_picard_iterations)
		fprintf(stderr, "\n");
	if (r->backend->stage_log) {
		fprintf(stderr, "  contact detection (broad + narrow phase): %.4g ms per step\n",
			1e3 * r->sum_detect / n);
		compact_log(r);
	}
}

void run_summary(struct run *r)
{
	double wall = r->t_loop;
	double n = r->nsteps ? (double)r->nsteps : 1;
	if (r->progress)
		fputc('\n', stderr);
	fprintf(stderr, "mrdem-run: %llu steps in %.3f s (%.3g ms per step), %llu frames to %s\n",
		(unsigned long long)r->nsteps, wall, 1e3 * wall / n,
		(unsigned long long)r->frames_written, r->out ? r->out : "standard output");
	fprintf(stderr, "  threads: %d%s\n", omp_get_max_threads(),
		omp_get_dynamic() ? " at most (OMP_DYNAMIC: teams sized to the idle cores)" : "");
	if (r->have_start)
		fprintf(stderr, "  start: %zu contact(s), contact energy %.4g J against %.4g J kinetic "
			"and %.4g J potential (gravity above the lowest particle); %zu overlap(s) "
			"deeper than %g of the halos\n", r->start.contacts, r->start.contact_energy,
			r->start.kinetic, r->start.potential, r->start.deep,
			MRDEM_OVERLAP_DEEP_FRACTION);
	if (r->backend->summary && r->backend->summary(r, n))
		return;
	struct rusage ru;
	size_t np = r->scene.frame.p.n;
	if (!getrusage(RUSAGE_SELF, &ru)) {
		fprintf(stderr, "  peak resident memory: %.1f MB", ru.ru_maxrss / 1024.0);
		/* what the scene added to the process (code, libraries and
		 * OpenMP's threads come before it), charged to the particles or
		 * to the contacts of the busiest step: shares worth stating
		 * from 100 of them */
		double added = 1024.0 * (double)(ru.ru_maxrss - r->base_rss_kb);
		if (np >= 100 && added > 0) {
			fprintf(stderr, ", %.1f MB above the %.1f MB before the scene: %.0f bytes per "
				"particle", added / 1048576, r->base_rss_kb / 1024.0, added / (double)np);
			if (r->max_contacts >= 100)
				fprintf(stderr, ", or %.0f per contact (%llu at most in a step)",
					added / (double)r->max_contacts,
					(unsigned long long)r->max_contacts);
		}
		fprintf(stderr, "%s\n", r->backend->memory_note);
	}
	if (r->backend->account)
		counter_lines(r, n);
	else /* its tools count, into the stats records they write */
		fprintf(stderr, "  per step: pairs, contacts and comparisons in the tools' stats "
			"records (mrdem-stats %s)\n", r->out ? r->out : "FILE");
	if (r->have_energy) {
		double drift = r->e_last - r->e_first;
		const char *contacts, *integrator;
		mrdem_energy_expectation(&r->scene.setup, r->opts.step.scheme, &contacts, &integrator);
		fprintf(stderr, "  energy (kinetic + gravitational + elastic): %.9g J at the first step, "
			"%.9g J at the last (change %.3g J, %.3g relative)\n    expected: %s;\n    %s\n",
			r->e_first, r->e_last, drift, r->e_first != 0 ? drift / fabs(r->e_first) : 0.0,
			contacts, integrator);
	}
}
