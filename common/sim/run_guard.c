#include "common/sim/run_guard.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/geom/vec3.h"
#include "common/util/error.h"

static int is_fixed(const struct mrdem_particles *p, size_t i)
{
	return (p->flags[i] & MRDEM_PARTICLE_FIXED) != 0;
}

void mrdem_run_guard_init(struct mrdem_run_guard *g, const struct mrdem_scene *s, double dt,
			  uint64_t steps, double growth)
{
	const struct mrdem_particles *p = &s->frame.p;
	memset(g, 0, sizeof *g);
	double vmax = 0, mass = 0;
	/* moving walls (motion record) do work the energies do not count */
	g->energy_on = growth > 0 && !s->setup.nmotions;
	g->speed_on = s->setup.scheme != MRDEM_SCHEME_IMPLICIT_EULER;
	for (int k = 0; k < 3; k++)
		g->lo[k] = INFINITY, g->hi[k] = -INFINITY;
	for (size_t i = 0; i < p->n; i++) {
		double r = s->shapes[p->shape[i]].bound_radius + p->eps[i];
		for (int k = 0; k < 3; k++) {
			g->lo[k] = fmin(g->lo[k], p->pos[3 * i + k] - r);
			g->hi[k] = fmax(g->hi[k], p->pos[3 * i + k] + r);
		}
		if (is_fixed(p, i)) {
			/* prescribed motion does work the energies do not count */
			if (vec3_norm2(&p->vel[3 * i]) > 0 || vec3_norm2(&p->angvel[3 * i]) > 0)
				g->energy_on = 0;
			continue;
		}
		vmax = fmax(vmax, sqrt(vec3_norm2(&p->vel[3 * i])));
		mass += mrdem_particle_mass(s, i);
	}
	if (s->flow.ninsert) {
		/* entering particles bring energy the window does not count */
		g->energy_on = 0;
		mrdem_flow_grow_bounds(&s->flow, g->lo, g->hi, &vmax);
	}
	double side = 0;
	for (int k = 0; k < 3 && g->lo[0] <= g->hi[0]; k++)
		side = fmax(side, g->hi[k] - g->lo[k]);
	double g2 = vec3_norm2(s->setup.gravity), t = (double)steps * dt;
	double margin = MRDEM_GUARD_BOX_MARGIN * side + vmax * t + 0.5 * sqrt(g2) * t * t;
	for (int k = 0; k < 3; k++)
		g->lo[k] -= margin, g->hi[k] += margin;
	g->growth = growth;
	g->mass = mass;
	/* the stepper's allowance for one gravity kick, once per step */
	g->gravity_allowance = MRDEM_GUARD_WINDOW * 0.5 * mass * g2 * dt * dt;
	if (g->energy_on) {
		g->step = mrdem_xmalloc_array(MRDEM_GUARD_WINDOW, sizeof *g->step);
		g->key = mrdem_xmalloc_array(MRDEM_GUARD_WINDOW, sizeof *g->key);
		g->e = mrdem_xmalloc_array(MRDEM_GUARD_WINDOW, sizeof *g->e);
		g->s = mrdem_xmalloc_array(MRDEM_GUARD_WINDOW, sizeof *g->s);
	}
}

void mrdem_run_guard_release(struct mrdem_run_guard *g)
{
	free(g->step);
	free(g->key);
	free(g->e);
	free(g->s);
	memset(g, 0, sizeof *g);
}

/* The plane whose solid side holds x, or -1. */
static long solid_side(const struct mrdem_setup *st, const double x[3])
{
	for (uint32_t k = 0; k < st->nplanes; k++) {
		double d[3];
		vec3_sub(d, x, st->planes[k].point);
		if (vec3_dot(d, st->planes[k].normal) < 0)
			return k;
	}
	return -1;
}

int mrdem_run_guard_motion(const struct mrdem_run_guard *g, const struct mrdem_scene *s,
			   uint64_t step, double time, double dt)
{
	const struct mrdem_particles *p = &s->frame.p;
	for (size_t i = 0; i < p->n; i++) {
		if (is_fixed(p, i))
			continue;
		const double *x = &p->pos[3 * i];
		unsigned long long id = (unsigned long long)p->id[i];
		/* the centre's travel against the halo (spin is left out: a
		 * spinning particle's rim moves, but its reach does not grow) */
		double v = sqrt(vec3_norm2(&p->vel[3 * i]));
		double reach = v * dt;
		if (g->speed_on && reach > p->eps[i])
			return mrdem_error("step %llu (t = %g s): particle %llu moves %.4g m in one step "
					   "(speed %.4g m/s), more than its halo %.4g m: contacts would "
					   "be passed over; the time step %g s is too large for this "
					   "motion, or the state diverged",
					   (unsigned long long)step, time, id, reach, v, p->eps[i], dt);
		long k = solid_side(&s->setup, x);
		if (k >= 0)
			return mrdem_error("step %llu (t = %g s): particle %llu left the scene through "
					   "plane %ld: its centre (%.6g, %.6g, %.6g) is on the plane's "
					   "solid side", (unsigned long long)step, time, id, k,
					   x[0], x[1], x[2]);
		for (int c = 0; c < 3; c++)
			if (!(x[c] >= g->lo[c] && x[c] <= g->hi[c]))
				return mrdem_error("step %llu (t = %g s): particle %llu left the scene's "
						   "bounds: its centre (%.6g, %.6g, %.6g) is outside the box "
						   "[%.6g, %.6g] x [%.6g, %.6g] x [%.6g, %.6g] around the "
						   "start", (unsigned long long)step, time, id,
						   x[0], x[1], x[2], g->lo[0], g->hi[0], g->lo[1],
						   g->hi[1], g->lo[2], g->hi[2]);
	}
	return 0;
}

/* Index of the fastest free particle of the frame, or 0. */
static size_t fastest(const struct mrdem_particles *p)
{
	size_t best = 0;
	double vbest = -1;
	for (size_t i = 0; i < p->n; i++) {
		double v = vec3_norm2(&p->vel[3 * i]);
		if (!is_fixed(p, i) && v > vbest)
			vbest = v, best = i;
	}
	return best;
}

/* Gravity's potential energy above the lowest point of any particle's
 * bounding sphere, fixed ones included (the floor a slope or a box of
 * meshes gives), from gravity = sum m |g| h_i. */
static double potential_above_lowest(const struct mrdem_run_guard *g,
				     const struct mrdem_scene *s, double gravity)
{
	const struct mrdem_particles *p = &s->frame.p;
	double gn = sqrt(vec3_norm2(s->setup.gravity)), hmin = INFINITY;
	if (!(gn > 0) || !(g->mass > 0))
		return 0;
	for (size_t i = 0; i < p->n; i++)
		hmin = fmin(hmin, -vec3_dot(&p->pos[3 * i], s->setup.gravity) / gn -
				      s->shapes[p->shape[i]].bound_radius - p->eps[i]);
	return fmax(0.0, gravity - g->mass * gn * hmin);
}

int mrdem_run_guard_energy(struct mrdem_run_guard *g, const struct mrdem_scene *s, uint64_t step,
			   double time, double kinetic, double gravity, double contact)
{
	if (!g->energy_on)
		return 0;
	double e = kinetic + gravity;
	double avail = kinetic + contact + potential_above_lowest(g, s, gravity);
	const size_t W = MRDEM_GUARD_WINDOW;
	/* drop what fell out of the window */
	while (g->n && g->step[g->head] + W <= step) {
		g->head = (g->head + 1) % W;
		g->n--;
	}
	if (g->n && e - g->key[g->head] > g->gravity_allowance) {
		size_t j = g->head;
		const struct mrdem_particles *p = &s->frame.p;
		size_t f = fastest(p);
		return mrdem_error("step %llu (t = %g s): the kinetic and gravitational energy grew "
				   "beyond the total energy by %.4g J over the %llu "
				   "steps since step %llu, more than %g times the %.4g J of kinetic, "
				   "contact and potential energy (above the lowest particle's bottom) there (plus %.4g J that gravity can add over %zu "
				   "steps); fastest particle %llu (%.4g m/s); reduce the time step",
				   (unsigned long long)step, time, e - g->e[j],
				   (unsigned long long)(step - g->step[j]),
				   (unsigned long long)g->step[j], g->growth, g->s[j],
				   g->gravity_allowance, W, (unsigned long long)p->id[f],
				   sqrt(vec3_norm2(&p->vel[3 * f])));
	}
	/* the contact energy at j may all turn into motion: growth is beyond it */
	double key = e + contact + g->growth * avail;
	/* candidates with keys at or above the new one can never be the minimum again */
	while (g->n && g->key[(g->head + g->n - 1) % W] >= key)
		g->n--;
	size_t t = (g->head + g->n) % W;
	g->step[t] = step;
	g->key[t] = key;
	g->e[t] = e + contact;
	g->s[t] = avail;
	g->n++;
	return 0;
}
