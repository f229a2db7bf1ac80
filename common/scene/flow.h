/* Particles that enter and leave a running scene (docs/scene.md, "insert"
 * and "remove"; docs/dynamics.md, "Inflow and outflow"): insertions that
 * place new particles in a region on a schedule, and regions that delete
 * the free particles whose centre enters them. Both act at the end of a
 * step (mrdem_stepper_finish), so every scheme and tool shares them.
 *
 * Insertion is stateless: what insertion k places at step s is a function
 * of the insertion and s alone (schedule in whole steps, random draws
 * seeded by seed, k and s, ids from a range reserved at init), so a
 * resumed run and a run through pipes insert the same particles. */
#ifndef MRDEM_SCENE_FLOW_H
#define MRDEM_SCENE_FLOW_H

#include <stddef.h>
#include <stdint.h>

struct mrdem_scene;
struct mrdem_frame;
struct mrdem_stats;

enum mrdem_region_kind {
	MRDEM_REGION_BOX = 1,      /* a <= x <= b componentwise */
	MRDEM_REGION_CYLINDER = 2, /* within radius of the segment from a to b */
	MRDEM_REGION_OUTSIDE = 3,  /* not within the box [a, b] */
};
#define MRDEM_REGION_KINDS 3

struct mrdem_region {
	uint32_t kind;    /* enum mrdem_region_kind */
	double a[3];      /* box, outside: min corner; cylinder: centre of one end */
	double b[3];      /* box, outside: max corner; cylinder: centre of the other */
	double radius;    /* cylinder */
};

/* "box", "cylinder", "outside"; NULL out of range. */
const char *mrdem_region_name(uint32_t kind);
/* NULL when r is a region (a known kind, finite, min <= max, a positive
 * radius and length), else what is wrong. */
const char *mrdem_region_check(const struct mrdem_region *r);
int mrdem_region_contains(const struct mrdem_region *r, const double x[3]);
/* The axis-aligned box that holds the region (outside: its box). */
void mrdem_region_bounds(const struct mrdem_region *r, double lo[3], double hi[3]);

/* One shape an insertion draws from: a shape index (a scaled shape for
 * one size of a scale distribution) with the material, density and halo
 * its particles get, drawn with probability fraction. */
struct mrdem_insert_shape {
	uint32_t shape;
	uint32_t material; /* index in setup.materials; 0 in a scene without */
	double fraction;  /* > 0; an insertion's fractions sum to 1 */
	double density;   /* kg/m^3 */
	double eps;       /* absolute halo, m */
};

struct mrdem_insertion {
	struct mrdem_region region;          /* box or cylinder: where centres go */
	uint32_t nshapes;
	struct mrdem_insert_shape *shapes;
	double vel[3], angvel[3];
	int random_orientation;              /* else quat */
	double quat[4];
	uint64_t seed;
	uint64_t first_id;                   /* ids first_id .. first_id + total - 1 */
	uint64_t total;                      /* particles over the whole schedule */
	/* Schedule, in frame steps: by frame step s >= start the insertion
	 * has placed min(total, floor((s - start) per_step + 1e-9)) particles,
	 * per_step 0 meaning all of them at start. */
	uint64_t start;
	double per_step;
	double dt;                           /* the time step the schedule counts */
};

struct mrdem_flow {
	uint32_t ninsert;
	struct mrdem_insertion *insert;
	uint32_t nremove;
	struct mrdem_region *remove;
};

void mrdem_flow_release(struct mrdem_flow *f);

/* Grow the box [lo, hi] by the insertions' regions and *vmax by their
 * speeds (the bounds of a run's particles, common/sim/run_guard.h). */
void mrdem_flow_grow_bounds(const struct mrdem_flow *f, double lo[3], double hi[3], double *vmax);

/* What is wrong with insertion in of scene s (its shapes known), in buf
 * when it needs room, or NULL when nothing is. */
const char *mrdem_insertion_check(const struct mrdem_scene *s, const struct mrdem_insertion *in,
				  char *buf, size_t size);

/* Particles insertion in has placed by frame step s. */
uint64_t mrdem_insertion_placed(const struct mrdem_insertion *in, uint64_t s);

/* What the end of a step did (the step's stats). */
struct mrdem_flow_account {
	int removes, inserts;      /* the scene has remove regions, insertions */
	uint64_t removed, inserted;
	double removed_mass;       /* kg */
};

/* The account as the step's statistics: removed_particles and
 * removed_mass when the scene removes, inserted_particles when it
 * inserts, nothing when it does neither (docs/dynamics.md). */
#define MRDEM_STAT_REMOVED_PARTICLES "removed_particles"
#define MRDEM_STAT_REMOVED_MASS "removed_mass"
#define MRDEM_STAT_INSERTED_PARTICLES "inserted_particles"
void mrdem_flow_stats(const struct mrdem_flow_account *acc, struct mrdem_stats *out);
/* Add the account in a step's statistics (names above; absent ones count
 * 0) to acc. */
void mrdem_flow_account_add_stats(struct mrdem_flow_account *acc, const struct mrdem_stats *st);

/* The end of a step, on s's frame that has just reached its new step:
 * delete the free particles in a remove region (with their springs), then
 * place what the insertions schedule for that step. dt is the step's;
 * an insertion scheduled for another dt is refused. 0, or -1 with a
 * message naming the insertion and step (the frame must not be written). */
int mrdem_flow_step_end(struct mrdem_scene *s, double dt, struct mrdem_flow_account *acc);

/* Delete the particles with drop[i] set from f, compacting every
 * per-particle array and extra column, and the springs that name them. */
void mrdem_frame_remove(struct mrdem_frame *f, const unsigned char *drop);
/* Append a particle at rest (mrdem_particles_push), extra columns grown
 * with zeros; its index. */
size_t mrdem_frame_push(struct mrdem_frame *f, uint64_t id, uint32_t shape);

/* dst (initialised) becomes a deep copy of src: a frame kept through a
 * step that may add and delete particles. */
void mrdem_frame_copy(struct mrdem_frame *dst, const struct mrdem_frame *src);

/* Place the particles insertion k schedules between frame steps from
 * (exclusive; UINT64_MAX: none before) and to, in s's frame. 0, or -1
 * with a message when the region cannot take them (common/scene/inflow.c). */
int mrdem_inflow_place(struct mrdem_scene *s, uint32_t k, uint64_t placed_before,
		       uint64_t placed_after, uint64_t step);

#endif
