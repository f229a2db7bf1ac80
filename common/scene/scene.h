/* The simulation data model: shapes, particles, planes and parameters.
 *
 * Shapes are stored once and referenced by index from particles, so 24,576
 * particles of one shape hold one mesh. Particle state is structure-of-
 * arrays in double precision; each particle has a stable 64-bit id. */
#ifndef MRDEM_SCENE_SCENE_H
#define MRDEM_SCENE_SCENE_H

#include <stddef.h>
#include <stdint.h>

#include "common/mesh/mesh.h"
#include "common/scene/material.h"
#include "common/scene/flow.h"
#include "common/shape/analytic.h"

struct mrdem_tree; /* surrogate tree, common/tree/tree.h */
struct mrdem_convex; /* features of a convex polyhedron, common/shape/convex.h */

/* A shape is a tagged kind (common/shape/analytic.h): a triangle mesh, or
 * an analytic sphere or ellipsoid. Every kind fills mesh.mass, so mass and
 * inertia need no case per kind; an analytic shape's mesh has no vertices
 * or triangles and it never has a tree. A convex shape is a mesh (its
 * hull: kind MRDEM_SHAPE_MESH, so every mesh path takes it as it is)
 * with its features in `convex`; mrdem_shape_kind() says "convex". */
struct mrdem_shape {
	uint32_t id;              /* index in the scene's shape table */
	char *name;
	int kind;                 /* enum mrdem_shape_kind, never MRDEM_SHAPE_CONVEX */
	double axes[3];           /* analytic kinds: semi-axes (a sphere's radius thrice) */
	struct mrdem_mesh mesh;
	/* Radius about mass.com of the sphere that holds the shape (every
	 * vertex of a mesh, the largest semi-axis of an analytic kind), kept
	 * since shapes are rigid: set when the shape is added, and again by
	 * mrdem_scene_shape_changed after its mesh or axes are replaced. */
	double bound_radius;
	struct mrdem_convex *convex; /* the convex kind's features, else NULL */
	struct mrdem_tree *tree;  /* NULL until mrdem-tree has built it */
	/* Where a tree taken from a file came from, "FILE (tree record of shape
	 * NAME)" (the scene loader sets it, for provenance); NULL when there is
	 * no tree or it was built or read from the stream in this process. */
	char *tree_origin;
	/* A scaled shape (common/scene/scaled_shape.h) is derived from shape
	 * `base` (a smaller id, itself not scaled) by the factor `scale`; a
	 * shape of its own has base MRDEM_SHAPE_NO_BASE and scale 1. */
	uint32_t base;
	double scale;
};
#define MRDEM_SHAPE_NO_BASE UINT32_MAX

/* Analytic plane k appears in pair and contact lists as particle id
 * MRDEM_PLANE_ID(k); real particle ids must stay below MRDEM_PLANE_ID_MIN. */
#define MRDEM_PLANE_ID(k) (UINT64_MAX - (uint64_t)(k))
#define MRDEM_PLANE_ID_MIN (UINT64_MAX - UINT32_MAX)

/* Whether id names an analytic plane, and which (the inverse of
 * MRDEM_PLANE_ID; mrdem_plane_index is meaningful only for plane ids). */
static inline int mrdem_is_plane_id(uint64_t id) { return id >= MRDEM_PLANE_ID_MIN; }
static inline uint32_t mrdem_plane_index(uint64_t id) { return (uint32_t)(UINT64_MAX - id); }

struct mrdem_plane {
	double point[3];
	double normal[3];         /* unit, pointing into the free half-space */
	uint32_t material;        /* index in setup.materials; 0 without materials */
	/* a moving plane (common/scene/motion.h): the velocity of point and the
	 * angular velocity about it, at the frame's time; zero otherwise */
	double vel[3];
	double angvel[3];
};

struct mrdem_motion; /* a prescribed wall motion, common/scene/motion.h */

enum mrdem_scheme {
	MRDEM_SCHEME_EXPLICIT_EULER = 0,
	MRDEM_SCHEME_SYMPLECTIC_EULER = 1,
	MRDEM_SCHEME_VELOCITY_VERLET = 2,
	MRDEM_SCHEME_IMPLICIT_EULER = 3,
};

enum mrdem_force_model {
	MRDEM_FORCE_SPRING = 0,          /* "paper", Sec. 2: Ks (1 - |n|/eps) sqrt(m_eff) */
	/* The rest are mesh-convergent: one contact per contact patch
	 * (docs/dynamics.md, "Patch models"). */
	MRDEM_FORCE_SPRING_DASHPOT = 1,  /* the sphere DEM course notes: kn delta - gamma_n m_eff v_n, Coulomb */
	/* ... with damping from a restitution coefficient and springs kept
	 * from step to step (tangential, rolling): */
	MRDEM_FORCE_HOOKE = 2,           /* linear, kn */
	MRDEM_FORCE_HERTZ = 3,           /* Hertz-Mindlin from E and nu */
};
/* Models that reduce a particle pair's contact records to contact patches
 * on the smooth surfaces (common/dynamics/patch_forces.h). */
#define MRDEM_FORCE_MODEL_HAS_PATCHES(m) ((m) != MRDEM_FORCE_SPRING)
/* Models whose parameters go beyond the setup record (a contact_model
 * record follows the setup, docs/stream-format.md) and whose friction
 * keeps springs in the history record. */
#define MRDEM_FORCE_MODEL_HAS_SPRINGS(m) ((m) >= MRDEM_FORCE_HOOKE)

/* Global parameters; everything a step needs besides state and shapes. */
struct mrdem_setup {
	double gravity[3];               /* m/s^2 */
	int force_model;                 /* enum mrdem_force_model */
	double stiffness;                /* Ks (spring) or kn (spring-dashpot) */
	double damping;                  /* gamma_n, 1/s (spring-dashpot) */
	double friction;                 /* Coulomb coefficient, 0 = frictionless */
	/* hooke and hertz (the contact_model record) */
	double restitution;              /* normal coefficient of restitution, (0, 1] */
	double young;                    /* Young's modulus E, Pa (hertz) */
	double poisson;                  /* Poisson ratio nu (hertz) */
	double tangential;               /* kt / kn (hooke) */
	double rolling_friction;         /* rolling resistance coefficient mu_r, 0 = none */
	double twisting_friction;        /* twisting resistance coefficient mu_t, 0 = none */
	/* a setup record named a patch model and its contact_model record has
	 * not arrived yet (stream reading) */
	int model_pending;
	double plane_epsilon;            /* absolute halo of analytic planes */
	double dt;                       /* s */
	uint64_t steps;
	int scheme;                      /* enum mrdem_scheme */
	uint64_t output_every;           /* write a frame every N steps */
	/* enum mrdem_broad_method (common/broad/broad.h), from a scene file's
	 * contact.broad: a choice of algorithm, not of physics (every method
	 * gives the same pairs), so streams do not carry it; -1 when the
	 * scene names none (mrdem_broad_default then chooses) */
	int broad;
	/* a scene file's contact.allow_overlap: its start may hold overlaps
	 * with more energy than the scene's (common/sim/overlap.h); a check of
	 * the scene file only, so streams do not carry it */
	int allow_overlap;
	uint32_t nplanes;
	struct mrdem_plane *planes;
	/* NULL: one material, the parameters above (common/scene/material.h) */
	struct mrdem_materials *materials;
	/* moving walls (fixed particles and planes), the motion record */
	uint32_t nmotions;
	struct mrdem_motion *motions;
};

enum {
	MRDEM_PARTICLE_FIXED = 1,     /* immovable obstacle (infinite mass) */
	/* velocities are half a step behind the position: a velocity Verlet
	 * step awaits its closing half kick (common/dynamics/integrate.h) */
	MRDEM_PARTICLE_HALF_KICK = 2,
	MRDEM_PARTICLE_FLAGS_KNOWN = 3,
	/* A copy of a particle another MPI rank owns (common/parallel/): in
	 * a rank's working frame only, never in a stream (readers refuse it).
	 * It takes part in the contact search; nothing integrates it or
	 * counts it in sums. */
	MRDEM_PARTICLE_GHOST = 4,
};

/* Particle state, structure of arrays. */
struct mrdem_particles {
	size_t n, cap;
	uint64_t *id;
	uint32_t *shape;     /* index into the shape table */
	uint32_t *flags;     /* MRDEM_PARTICLE_* */
	double *pos;         /* 3n, world position of the centre of mass, m */
	double *quat;        /* 4n, orientation w x y z, body -> world */
	double *vel;         /* 3n, m/s */
	double *angvel;      /* 3n, world frame, rad/s */
	double *density;     /* n, kg/m^3 (mass = density * shape volume) */
	double *eps;         /* n, absolute halo width, m */
	/* n, index in setup.materials; NULL in a scene without materials
	 * (mrdem_particles_use_material allocates it) */
	uint32_t *material;
};

/* A per-particle column of a frame record that this build does not know
 * (written by a newer tool): kept as read and written back unchanged, so
 * older tools in a pipeline do not lose it. */
struct mrdem_column {
	char *name;
	uint32_t type;        /* MRDEM_COLUMN_* */
	uint32_t components;
	size_t size;          /* bytes: n * components * the type's size */
	unsigned char *data;  /* little-endian values as in the stream */
};
enum { MRDEM_COLUMN_U32 = 1, MRDEM_COLUMN_U64 = 2, MRDEM_COLUMN_F64 = 3 };

/* Tangential, rolling and twisting springs of one contact patch, kept from step to
 * step (hooke, hertz): the history of a frame is what the step from it
 * starts with (docs/dynamics.md, "Contact history"). */
struct mrdem_spring {
	uint64_t a, b;        /* particle ids as in the contact records */
	double anchor[3];     /* patch point in a's body frame (matching) */
	double shear[3];      /* tangential spring displacement, world, m */
	double roll[3];       /* rolling resistance torque on a, world, N m */
	double twist;         /* twisting resistance torque on a about the normal, N m */
};
struct mrdem_history {
	size_t n, cap;
	struct mrdem_spring *s; /* sorted by (a, b), then by creation */
};
void mrdem_history_init(struct mrdem_history *h);
void mrdem_history_release(struct mrdem_history *h);
struct mrdem_spring *mrdem_history_push(struct mrdem_history *h);

/* One snapshot in time. */
struct mrdem_frame {
	uint64_t step;
	double time;
	struct mrdem_particles p;
	struct mrdem_history history;
	size_t nextra;
	struct mrdem_column *extra;
};

struct mrdem_scene {
	struct mrdem_setup setup;
	uint32_t nshapes;
	struct mrdem_shape *shapes;
	struct mrdem_frame frame;
	struct mrdem_flow flow;   /* insert and remove (flow.h); empty when unused */
};

/* The one name table of each enum: names as in scenes and on command
 * lines ("velocity-verlet"); NULL for a value out of range. *_parse
 * returns the value, or -1 for an unknown name. */
#define MRDEM_NSCHEMES 4
#define MRDEM_NFORCE_MODELS 4
extern const char *const mrdem_scheme_names[MRDEM_NSCHEMES];
extern const char *const mrdem_force_model_names[MRDEM_NFORCE_MODELS];
const char *mrdem_scheme_name(int scheme);
int mrdem_scheme_parse(const char *name);
const char *mrdem_force_model_name(int model);

void mrdem_setup_default(struct mrdem_setup *s);
void mrdem_setup_release(struct mrdem_setup *s);

void mrdem_particles_reserve(struct mrdem_particles *p, size_t cap);
/* Give p a material column, all material 0 (kept by reserve and push). */
void mrdem_particles_use_material(struct mrdem_particles *p);
/* Append a particle at rest with identity orientation; returns its index. */
size_t mrdem_particles_push(struct mrdem_particles *p, uint64_t id, uint32_t shape);

void mrdem_frame_init(struct mrdem_frame *f);
void mrdem_frame_release(struct mrdem_frame *f);

/* A frame written with synchronised velocities (mrdem-run) keeps the
 * half-step velocities that its particles' pending Verlet kicks close from
 * in two more columns, f64 x 3 each (docs/stream-format.md, "4 frame"), so
 * a run resumed from it goes on with the same bits. */
#define MRDEM_COLUMN_VELOCITY_HALF "velocity_half"
#define MRDEM_COLUMN_ANGVEL_HALF "angular_velocity_half"
/* cols[0], cols[1]: those columns holding vel and angvel (3n each);
 * release them with mrdem_columns_release. */
void mrdem_half_step_columns(struct mrdem_column cols[2], size_t n, const double *vel,
			     const double *angvel);
void mrdem_columns_release(struct mrdem_column *cols, size_t n);
/* Put the half-step velocities of a synchronised frame back as the state
 * of its particles that await their closing kick, and drop the two
 * columns; a frame without them stays as it is. -1 with a message naming
 * the column or particle when only one is there, one is not f64 x 3, or a
 * value is not finite. */
int mrdem_frame_resume_half_step(struct mrdem_frame *f);
/* The velocities a step from f starts from, in vel and angvel (3n each):
 * 1 when f carries the two columns, 0 (nothing written) when it does not,
 * -1 as above. */
int mrdem_frame_half_step_velocities(const struct mrdem_frame *f, double *vel, double *angvel);

void mrdem_scene_init(struct mrdem_scene *s);
void mrdem_scene_release(struct mrdem_scene *s);
/* Add a shape (takes ownership of mesh contents and name); returns its index. */
uint32_t mrdem_scene_add_shape(struct mrdem_scene *s, const char *name, struct mrdem_mesh *mesh);
/* Shape i's mesh or axes were replaced after it was added: measure its
 * bound_radius again. */
void mrdem_scene_shape_changed(struct mrdem_scene *s, uint32_t i);
/* Add an analytic shape (kind and semi-axes checked by the caller with
 * mrdem_analytic_check); mass properties in closed form. Returns its index. */
uint32_t mrdem_scene_add_analytic(struct mrdem_scene *s, const char *name, int kind,
				  const double axes[3]);
/* The farthest a contact record between particles ia and ib of the frame
 * (ib SIZE_MAX, i.e. MRDEM_NO_INDEX: the setup's planes) may reach: the
 * halos eps_a + eps_b (a plane's is plane_epsilon), plus the rounding of
 * the float kernels that measure it, relative to the sizes involved
 * (1e-6: some ulps of a float). A record beyond it is a bug wherever it
 * came from: the readers of streams and the forces refuse it. */
double mrdem_contact_reach(const struct mrdem_scene *s, size_t ia, size_t ib);
/* Make mesh shape i convex: its features from its mesh, which must be
 * closed and convex (common/shape/convex.h). Returns 0, or -1 with a
 * message starting with what. */
int mrdem_scene_make_convex(struct mrdem_scene *s, uint32_t i, const char *what);
/* The kind as streams and mrdem-info name it: MRDEM_SHAPE_CONVEX for a
 * mesh with features, else sh->kind. */
static inline int mrdem_shape_kind(const struct mrdem_shape *sh)
{
	return sh->convex ? MRDEM_SHAPE_CONVEX : sh->kind;
}
/* 1 when some shape of the scene is analytic. */
int mrdem_scene_has_analytic(const struct mrdem_scene *s);
/* Index of the shape with this name, or -1. */
long mrdem_scene_find_shape(const struct mrdem_scene *s, const char *name);

/* Mass of particle i; 0 for fixed particles. */
double mrdem_particle_mass(const struct mrdem_scene *s, size_t i);

#endif
