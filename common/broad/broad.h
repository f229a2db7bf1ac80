/* Broad phase: candidate particle-particle and particle-plane pairs from
 * bounding spheres (docs/broad-phase.md).
 *
 * A particle's bounding sphere is centred at its position (the world
 * position of its shape's reference point, mass.com) with radius
 * its shape's bound_radius + the particle's eps, so it contains the
 * particle's whole halo in any orientation. Two particles are a candidate
 * pair when their spheres touch; a particle and an analytic plane when the
 * sphere reaches within the setup's plane_epsilon of the plane's
 * half-space. Pairs of two fixed particles (and fixed particles with
 * planes) are never reported: nothing can move them.
 *
 * All methods return exactly the same list in the canonical order of
 * records.h: sorted by the frame index of a, then by the index of b, with
 * plane k counting as index n + k (planes last). */
#ifndef MRDEM_BROAD_BROAD_H
#define MRDEM_BROAD_BROAD_H

#include <stddef.h>
#include <stdint.h>

#include "common/scene/scene.h"
#include "common/scene/pairs.h"
#include "common/scene/stats.h"
#include "common/util/simd.h"

enum mrdem_broad_method {
	MRDEM_BROAD_GRID = 0,  /* uniform cells of the largest sphere diameter: O(n) */
	MRDEM_BROAD_BRUTE = 1, /* every pair: O(n^2), the reference */
	MRDEM_BROAD_SAP = 2,   /* incremental sort-and-update of boxes (Schinner) */
	MRDEM_BROAD_MR = 3,    /* MR-linear sort and search (Munjiza & Rougier) */
	MRDEM_BROAD_MMR = 4,   /* MR in size groups for polydisperse scenes (Munjiza & Rougier) */
	MRDEM_BROAD_NMETHODS
};

/* The names, as in scenes and on command lines, indexed by method. */
extern const char *const mrdem_broad_method_names[MRDEM_BROAD_NMETHODS];
#define MRDEM_BROAD_METHOD_LIST "sap, mr, mmr, grid or brute"

/* "sap", "mr", "mmr", "grid" or "brute" -> method, or -1 when unknown. */
int mrdem_broad_method_parse(const char *name);
/* The same for the value of a command-line option (opt: "--broad"): the
 * method, or -1 after "OPT: 'VALUE' is not sap, mr, mmr, grid or brute". */
int mrdem_broad_method_option(const char *opt, const char *value);
const char *mrdem_broad_method_name(int method);

/* The method for a scene that names none (contact.broad, --broad): sap
 * for a scene of at most MRDEM_BROAD_SAP_MAX particles that inserts
 * none, mr for every other. Measured (docs/performance.md, 2026-11-28):
 * mr is the fastest from a few hundred particles on and keeps O(n) at
 * any size and packing, while sap's repair grows as n^(1/3) per particle
 * and rebuilds every step in dense scenes of 10^6; below that size sap
 * has the least fixed cost per call and needs no cells sized for the
 * largest particle (several sizes, a fixed mesh). A scene that inserts
 * may grow past any bound, so it gets mr. */
#define MRDEM_BROAD_SAP_MAX 256
int mrdem_broad_default(const struct mrdem_scene *s);

struct mrdem_broad_stats {
	uint64_t particle_pairs; /* particle-particle pairs reported */
	uint64_t plane_pairs;    /* particle-plane pairs reported */
	uint64_t sphere_tests;   /* sphere-sphere overlap tests evaluated */
	uint64_t plane_tests;    /* sphere-plane tests evaluated */
	uint64_t cells;          /* occupied cells (grid, mr, mmr; else 0) */
	double cell_size;        /* cell edge, m (grid, mr; mmr: the finest) */
	/* How the kept state was brought up to date, which depends on the
	 * call history (so not among the statistics tools write): list
	 * entries moved by insertion sort, and whether it was rebuilt from
	 * scratch. */
	uint64_t moves;
	int rebuilt;
	size_t state_bytes;      /* memory the method keeps between calls */
};

/* The broad phase's state between calls: buffers, so a driver calling
 * it every step does not reallocate, and for sap, mr and mmr the sorted
 * lists of the last call, repaired instead of sorted anew. The pairs
 * never depend on that state: any frame may follow any other, and a
 * fresh object gives the same list (docs/broad-phase.md). Not shared
 * between threads. */
struct mrdem_broad;
struct mrdem_broad *mrdem_broad_new(void);
void mrdem_broad_free(struct mrdem_broad *b);
/* The instruction set the cell searches (mr, mmr) run with (enum
 * mrdem_simd, common/util/simd.h): AUTO (the default, the CPU's widest)
 * or a level to keep to (a level the CPU lacks falls back to the widest
 * below it). The pairs and statistics are the same at every level. */
void mrdem_broad_set_simd(struct mrdem_broad *b, int simd);

/* Bounding-sphere radius (its shape's bound_radius, kept with the shape,
 * + eps) of every particle of the
 * scene's frame into radius[n]. Checks positions, eps and shape indices;
 * returns 0, or -1 with a message naming the step and particle. */
int mrdem_broad_bounds(const struct mrdem_scene *s, double *radius);

/* Candidate pairs of the scene's current frame into out (replacing its
 * contents; out->step = the frame's step). st may be NULL.
 * Returns 0, or -1 with a message. */
int mrdem_broad_phase(struct mrdem_broad *b, const struct mrdem_scene *s, int method,
		      struct mrdem_pairs *out, struct mrdem_broad_stats *st);

/* Add the statistics as named values (broad_pairs, broad_plane_pairs,
 * broad_sphere_tests, broad_plane_tests, and for the cell methods
 * broad_cells, broad_cell_size), the names every tool reports them under.
 * Only values that do not depend on the call history. */
void mrdem_broad_stats_add(struct mrdem_stats *out, int method, const struct mrdem_broad_stats *st);

#endif
