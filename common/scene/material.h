/* Materials: named sets of density and contact law parameters, per
 * material pair overrides, and the table of the law parameters of every
 * pair built from them once (docs/dynamics.md, "Materials").
 *
 * A scene without materials has none (setup.materials NULL): every pair
 * takes the contact section's parameters, as mrdem_pair_law_of fills them.
 * With materials, particle i is of material p->material[i] and analytic
 * plane k of planes[k].material. */
#ifndef MRDEM_SCENE_MATERIAL_H
#define MRDEM_SCENE_MATERIAL_H

#include <stddef.h>
#include <stdint.h>

struct mrdem_setup;
struct mrdem_particles;

/* The parameters the contact laws read for one pair of materials. */
struct mrdem_pair_law {
	double stiffness;          /* Ks (paper) or kn (spring-dashpot, hooke), N/m */
	double damping;            /* gamma_n, 1/s (spring-dashpot) */
	double friction;           /* Coulomb coefficient */
	double restitution;        /* (0, 1] (hooke, hertz) */
	double tangential;         /* kt / kn (hooke) */
	double rolling_friction;
	double twisting_friction;
	double estar, gstar;       /* effective Young's and shear moduli, Pa (hertz) */
};

/* The parameters of a material, by name in scenes and streams. */
enum mrdem_material_param {
	MRDEM_MAT_STIFFNESS, MRDEM_MAT_DAMPING, MRDEM_MAT_FRICTION, MRDEM_MAT_RESTITUTION,
	MRDEM_MAT_YOUNG, MRDEM_MAT_POISSON, MRDEM_MAT_TANGENTIAL, MRDEM_MAT_ROLLING,
	MRDEM_MAT_TWISTING, MRDEM_MAT_NPARAMS
};
extern const char *const mrdem_material_param_names[MRDEM_MAT_NPARAMS];
/* Bit per enum mrdem_force_model: the models that read parameter k
 * (friction: every model). */
unsigned mrdem_material_param_models(int k);
/* Bit per parameter that model reads. */
uint32_t mrdem_material_params_read(int model);
/* Bit per parameter that a pair entry may override. */
#define MRDEM_MAT_PAIR_PARAMS                                                              \
	(1u << MRDEM_MAT_STIFFNESS | 1u << MRDEM_MAT_DAMPING | 1u << MRDEM_MAT_FRICTION |   \
	 1u << MRDEM_MAT_RESTITUTION | 1u << MRDEM_MAT_ROLLING | 1u << MRDEM_MAT_TWISTING)
/* Whether value x is valid for parameter k; NULL, or what is wrong. */
const char *mrdem_material_param_invalid(int k, double x);

/* The setup's (the contact section's) parameters, in the order of enum
 * mrdem_material_param. */
void mrdem_material_params_of_setup(double v[MRDEM_MAT_NPARAMS], const struct mrdem_setup *s);

struct mrdem_material {
	char *name;
	double density;                  /* kg/m^3 */
	double v[MRDEM_MAT_NPARAMS];     /* every parameter (unread ones as the setup's) */
};

/* An override of the mixed parameters of one pair (a <= b). */
struct mrdem_material_pair {
	uint32_t a, b;
	uint32_t given;                  /* bit per parameter overridden */
	double v[MRDEM_MAT_NPARAMS];
};

struct mrdem_materials {
	uint32_t n;
	struct mrdem_material *m;
	uint32_t npairs;
	struct mrdem_material_pair *pairs;
	struct mrdem_pair_law *table;    /* n x n, from mrdem_materials_build */
};

struct mrdem_materials *mrdem_materials_new(void);
void mrdem_materials_free(struct mrdem_materials *m);
/* Append a material named name (copied) with the setup's parameters and
 * density 1; returns its index. */
uint32_t mrdem_materials_add(struct mrdem_materials *m, const char *name,
			     const struct mrdem_setup *s);
/* Index of the material named name, or -1. The inflow helper and the
 * scene loader resolve `material: NAME` with it. */
long mrdem_materials_find(const struct mrdem_materials *m, const char *name);
/* The pair entry of materials a and b in either order, or NULL. */
struct mrdem_material_pair *mrdem_materials_pair(struct mrdem_materials *m, uint32_t a,
						 uint32_t b);
/* Check every material and pair for the setup's model and build the
 * pair table. Returns NULL, or what is wrong (a static or the given
 * buffer). */
const char *mrdem_materials_build(struct mrdem_materials *m, const struct mrdem_setup *s,
				  char *buf, size_t len);

/* The law of a scene without materials: the setup's parameters. */
void mrdem_setup_pair_law(const struct mrdem_setup *s, struct mrdem_pair_law *out);
/* The law parameters between particle ia of p and particle ib (ib ==
 * SIZE_MAX: analytic plane `plane`): the table's entry with materials,
 * else the setup's parameters in *scratch. */
const struct mrdem_pair_law *mrdem_pair_law_of(const struct mrdem_setup *s,
					       const struct mrdem_particles *p, size_t ia,
					       size_t ib, uint32_t plane,
					       struct mrdem_pair_law *scratch);

#endif
