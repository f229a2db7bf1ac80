/* The contact laws of the patch force models, for one contact patch
 * reduced to one contact (common/dynamics/forces.c): hooke (linear spring
 * kn) and hertz (Hertz-Mindlin from E and nu), both with damping from the
 * coefficient of restitution as LIGGGHTS and LAMMPS define it, a
 * tangential spring with Coulomb limit kept from step to step, and
 * optional elastic-plastic rolling and twisting resistance; and the sphere DEM course notes'
 * spring-dashpot (kn, gamma_n, regularised Coulomb friction, no springs).
 * Formulas and units: docs/dynamics.md, "Patch models". */
#ifndef MRDEM_DYNAMICS_CONTACT_LAW_H
#define MRDEM_DYNAMICS_CONTACT_LAW_H

#include "common/scene/scene.h"

struct mrdem_patch_contact {
	/* in */
	double delta;      /* overlap of the halos, m (> 0) */
	double n[3];       /* unit normal, from b towards a */
	double v[3];       /* velocity of a relative to b at the contact point, m/s */
	double w[3];       /* angular velocity of a relative to b, rad/s */
	double m_eff;      /* kg */
	double r_eff;      /* effective radius R*, m (hertz, rolling) */
	double dt;         /* s: how far the springs move */
	/* in: the springs of the last step; out: this step's */
	double shear[3];   /* tangential displacement, m */
	double roll[3];    /* rolling resistance torque on a, N m */
	double twist;      /* twisting resistance torque on a about n, N m */
	/* out */
	double F[3];       /* force on a, N */
	double T[3];       /* torque on a besides F's (rolling, twisting), N m */
	double energy;     /* elastic energy of the normal, tangential and twisting springs, J */
};

/* Normal damping ratio of a coefficient of restitution e in (0, 1]:
 * -ln e / sqrt(pi^2 + ln^2 e). */
double mrdem_damping_ratio(double e);

/* Check the parameters of a patch model (the scene loader's and the
 * stream reader's check); NULL when they are valid, else what is wrong. */
const char *mrdem_contact_model_invalid(const struct mrdem_setup *s);

/* Apply model (spring-dashpot, hooke or hertz) with the pair's parameters
 * (mrdem_pair_law_of) to c. */
void mrdem_patch_law(int model, const struct mrdem_pair_law *law, struct mrdem_patch_contact *c);
/* The same with the damping ratio of law's restitution given
 * (mrdem_damping_ratio), for callers that keep it. */
void mrdem_patch_law_ratio(int model, const struct mrdem_pair_law *law, double ratio,
			   struct mrdem_patch_contact *c);

#endif
