#include "common/dynamics/contact_law.h"

#include <math.h>

#include "common/geom/vec3.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

const char *mrdem_contact_model_invalid(const struct mrdem_setup *s)
{
	if (!(s->restitution > 0 && s->restitution <= 1))
		return "restitution must be in (0, 1]";
	if (!(s->rolling_friction >= 0) || !isfinite(s->rolling_friction))
		return "rolling_friction must be finite and >= 0";
	if (!(s->twisting_friction >= 0) || !isfinite(s->twisting_friction))
		return "twisting_friction must be finite and >= 0";
	if (s->force_model == MRDEM_FORCE_HOOKE) {
		if (!(s->stiffness > 0) || !isfinite(s->stiffness))
			return "hooke needs a positive stiffness kn";
		if (!(s->tangential >= 0) || !isfinite(s->tangential))
			return "tangential (kt / kn) must be finite and >= 0";
	}
	if (s->force_model == MRDEM_FORCE_HERTZ) {
		if (!(s->young > 0) || !isfinite(s->young))
			return "hertz needs a positive Young's modulus";
		if (!(s->poisson > -1 && s->poisson < 0.5))
			return "poisson must be in (-1, 0.5)";
	}
	return NULL;
}

/* Rolling dashpot, fraction of critical (LIGGGHTS' default coefficient
 * of rolling viscous damping for epsd is 0.3); the twisting dashpot takes
 * the same fraction. */
#define ROLLING_DAMPING 0.3

double mrdem_damping_ratio(double e)
{
	double l = log(e);
	return -l / sqrt(M_PI * M_PI + l * l);
}

/* Turn a spring vector into the tangent plane of n, keeping its length
 * (the contact turned since it was stretched). */
static void to_tangent_plane(double s[3], const double n[3])
{
	double len = vec3_norm(s);
	if (!(len > 0))
		return;
	vec3_axpy(s, s, -vec3_dot(s, n), n);
	double l2 = vec3_norm(s);
	if (l2 > 0)
		vec3_scale(s, s, len / l2);
	else
		vec3_set(s, 0, 0, 0);
}

/* The textbook spring-dashpot (sphere DEM course notes) at one patch: F_n = kn delta - gamma_n m_eff
 * v_n, never pulling, and Coulomb friction regularised by the normal
 * contact's critical damping, with no springs kept. */
static void spring_dashpot_law(const struct mrdem_pair_law *set, struct mrdem_patch_contact *c,
			       double vn, const double vt[3])
{
	double k = set->stiffness, m = c->m_eff;
	double fn = fmax(k * c->delta - set->damping * m * vn, 0.0);
	vec3_scale(c->F, c->n, fn);
	vec3_set(c->T, 0, 0, 0);
	vec3_set(c->shear, 0, 0, 0);
	vec3_set(c->roll, 0, 0, 0);
	c->twist = 0;
	c->energy = 0.5 * k * c->delta * c->delta;
	double vtn = vec3_norm(vt);
	if (set->friction > 0 && fn > 0 && vtn > 0) {
		double ft = fmin(set->friction * fn, 2.0 * sqrt(k * m) * vtn);
		vec3_axpy(c->F, c->F, -ft / vtn, vt);
	}
}

/* Twisting resistance (torsional friction) at one patch: the rolling
 * law's elastic-plastic spring-dashpot about the normal. A scalar torque
 * M_t on a about n grows by -kw w_n dt with the relative spin w_n = w . n,
 * kw = 2.25 kn mu_t^2 R*^2, up to |M_t| <= mu_t R* F_n (then the contact
 * twists, plastic); while elastic a dashpot -C_w w_n with C_w =
 * ROLLING_DAMPING 2 sqrt(I_t kw), I_t = 2/5 m_eff R*^2 the inertia of a
 * sphere about its own axis. The spring is a scalar about the current
 * normal, so it turns with the contact by itself. */
static void twisting_law(const struct mrdem_pair_law *set, struct mrdem_patch_contact *c,
			 double kn, double fn)
{
	double mt = set->twisting_friction * c->r_eff;
	if (!(mt > 0 && fn > 0)) {
		c->twist = 0;
		return;
	}
	double kw = 2.25 * kn * mt * mt, wn = vec3_dot(c->w, c->n);
	double tmax = mt * fn, t = c->twist - kw * c->dt * wn;
	if (fabs(t) > tmax) {
		c->twist = copysign(tmax, t);
		vec3_axpy(c->T, c->T, c->twist, c->n);
	} else {
		c->twist = t;
		double cw = 2 * ROLLING_DAMPING * sqrt(0.4 * c->m_eff * c->r_eff * c->r_eff * kw);
		vec3_axpy(c->T, c->T, t - cw * wn, c->n);
	}
	c->energy += 0.5 * c->twist * c->twist / kw;
}

void mrdem_patch_law(int model, const struct mrdem_pair_law *set, struct mrdem_patch_contact *c)
{
	mrdem_patch_law_ratio(model, set, mrdem_damping_ratio(set->restitution), c);
}

void mrdem_patch_law_ratio(int model, const struct mrdem_pair_law *set, double ratio,
			   struct mrdem_patch_contact *c)
{
	double d = c->delta, m = c->m_eff;
	double vn = vec3_dot(c->v, c->n), vt[3];
	vec3_axpy(vt, c->v, -vn, c->n);
	if (model == MRDEM_FORCE_SPRING_DASHPOT) {
		spring_dashpot_law(set, c, vn, vt);
		return;
	}

	/* Stiffnesses (N/m) and damping coefficients (N s/m), normal and
	 * tangential; energy of the normal spring. */
	double kn, kt, gn, gt, en;
	if (model == MRDEM_FORCE_HERTZ) {
		double estar = set->estar, gstar = set->gstar;    /* common/scene/material.c */
		double a = sqrt(c->r_eff * d);                    /* contact radius */
		double sn = 2 * estar * a, st = 8 * gstar * a;
		double beta = -ratio;
		kn = 4.0 / 3.0 * estar * a;
		kt = st;
		gn = -2 * sqrt(5.0 / 6.0) * beta * sqrt(sn * m);
		gt = -2 * sqrt(5.0 / 6.0) * beta * sqrt(st * m);
		en = 0.4 * kn * d * d;
	} else { /* MRDEM_FORCE_HOOKE */
		kn = set->stiffness;
		kt = set->tangential * kn;
		gn = gt = 2 * ratio * sqrt(kn * m);
		en = 0.5 * kn * d * d;
	}
	/* No clamp at zero: the dashpot pulls while the contact opens fast,
	 * as in LIGGGHTS's default, so the restitution is the one asked for. */
	double fn = kn * d - gn * vn;
	vec3_scale(c->F, c->n, fn);
	vec3_set(c->T, 0, 0, 0);
	c->energy = en;

	double flim = set->friction * fmax(fn, 0.0);
	if (set->friction > 0 && kt > 0) {
		to_tangent_plane(c->shear, c->n);
		vec3_axpy(c->shear, c->shear, c->dt, vt);
		double ft[3];
		vec3_scale(ft, c->shear, -kt);
		vec3_axpy(ft, ft, -gt, vt);
		double f = vec3_norm(ft);
		if (f > flim) {
			/* Sliding: the force is the Coulomb limit and the spring
			 * just as long as gives it (LAMMPS gran/hooke/history). */
			double r = f > 0 ? flim / f : 0.0;
			for (int k = 0; k < 3; k++)
				c->shear[k] = r * (c->shear[k] + gt * vt[k] / kt) - gt * vt[k] / kt;
			vec3_scale(ft, ft, r);
		}
		vec3_add(c->F, c->F, ft);
		c->energy += 0.5 * kt * vec3_norm2(c->shear);
	} else {
		vec3_set(c->shear, 0, 0, 0);
	}

	if (set->rolling_friction > 0 && fn > 0) {
		/* Elastic-plastic spring-dashpot (EPSD, Ai et al. 2011, as in
		 * LIGGGHTS rolling_friction epsd): a spring of stiffness
		 * kr = 2.25 kn mu_r^2 R*^2 up to the torque mu_r R* Fn, and while
		 * elastic a dashpot at ROLLING_DAMPING of critical, with the
		 * rolling inertia 7/5 m_eff R*^2 of a sphere about its contact. */
		double wr[3], mr = set->rolling_friction * c->r_eff;
		double kr = 2.25 * kn * mr * mr;
		vec3_axpy(wr, c->w, -vec3_dot(c->w, c->n), c->n);
		to_tangent_plane(c->roll, c->n);
		vec3_axpy(c->roll, c->roll, -kr * c->dt, wr);
		double t = vec3_norm(c->roll), tmax = mr * fn;
		if (t > tmax) {
			vec3_scale(c->roll, c->roll, tmax / t);
			vec3_copy(c->T, c->roll);
		} else {
			double cr = 2 * ROLLING_DAMPING *
				    sqrt(1.4 * m * c->r_eff * c->r_eff * kr);
			vec3_axpy(c->T, c->roll, -cr, wr);
		}
	} else {
		vec3_set(c->roll, 0, 0, 0);
	}
	twisting_law(set, c, kn, fn);
}
