/* Surrogate trees (paper Sec. 4, Appendices A and B; docs/surrogate-trees.md).
 *
 * Every node holds one surrogate triangle with its own halo width eps; the
 * real triangles sit under the leaves. A node's halo contains the halo of
 * every real triangle beneath it (Definition 4.3, conservative), so a
 * traversal that finds no overlap at a node may drop its whole subtree.
 *
 * Storage is flat and breadth first: the nodes of level l are the index
 * range [level_first[l], level_first[l+1]), the children of a node are one
 * contiguous range of the next level, and the real triangles of a subtree
 * are one contiguous range of the leaf-ordered triangle soup. Per-node data
 * are separate arrays (structure of arrays), so a level can be streamed.
 *
 * Geometry is single precision in the shape's frame (the mesh's own
 * coordinates). eps is the geometric part of the halo: a particle of this
 * shape with halo width e has the node halo eps[n] + e. Every stored eps is
 * an upper bound, rounded up, of the exact double-precision distance from
 * each real vertex beneath (in its double and its float form) to the float
 * surrogate triangle. */
#ifndef MRDEM_TREE_TREE_H
#define MRDEM_TREE_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "common/mesh/mesh.h"

/* Build parameters; mrdem_tree_params_default documents the defaults. */
struct mrdem_tree_params {
	uint32_t fanout;      /* N_surrogate: clusters per split, >= 2 */
	uint32_t leaf;        /* a node with at most this many triangles is a leaf, >= 1 */
	uint64_t seed;        /* k-means seeding */
	uint32_t kmeans_iters;/* Lloyd iterations per split */
	/* functional (6), Appendix A */
	uint32_t beta_size;   /* integer exponent of the size term, 2..64 */
	double alpha_area;    /* weight of the anti-degeneration (inverse area) term, > 0 */
	double alpha_inside;  /* weight of the outer-normal penalty, >= 0 */
	uint32_t beta_normal; /* integer exponent of the outer-normal penalty, 2..64 */
	uint32_t iters;       /* quasi-Newton iterations per minimisation */
	/* after (6): shrink the halo volume with the exact epsilon (0 = off) */
	int refine;
};

/* fanout 8, leaf 8, seed 1, 16 k-means iterations, beta_size 16,
 * alpha_area 1e-5, alpha_inside 1e-2, beta_normal 4, 200 iterations, refine on. */
void mrdem_tree_params_default(struct mrdem_tree_params *p);
/* 0, or -1 with a message naming the bad parameter. */
int mrdem_tree_params_check(const struct mrdem_tree_params *p);

struct mrdem_tree {
	struct mrdem_tree_params params; /* how it was built */
	uint64_t mesh_hash;        /* mrdem_mesh_fingerprint of the mesh it belongs to */
	uint32_t ntris;            /* real triangles (the mesh's) */
	uint32_t nnodes, nlevels;
	uint32_t *level_first;     /* nlevels + 1 */
	float *tri;                /* 9 per node: surrogate vertices x1 x2 x3 (outward order) */
	float *eps;                /* per node: halo width, geometric part, >= 0 */
	uint32_t *child_first;     /* per node: first child (a node of the next level) */
	uint32_t *child_count;     /* per node: 0 for a leaf */
	uint32_t *tri_first;       /* per node: subtree's real triangles in soup/perm order */
	uint32_t *tri_count;
	uint32_t *parent;          /* per node: UINT32_MAX for the root */
	uint32_t *level;           /* per node */
	uint32_t *perm;            /* ntris: mesh triangle index of soup triangle i */
	float *soup;               /* 9 * ntris: real triangles in leaf order (after bind) */
	/* Bounding spheres (centre x y z, radius; after bind), a cheap test
	 * ahead of the triangle kernels: per node around its halo (radius
	 * includes eps), per soup triangle around the triangle. */
	float *node_sphere;        /* 4 * nnodes */
	float *soup_sphere;        /* 4 * ntris */
};

#define MRDEM_TREE_NONE UINT32_MAX

/* Allocate a tree with uninitialised arrays (soup NULL). */
struct mrdem_tree *mrdem_tree_alloc(uint32_t nnodes, uint32_t nlevels, uint32_t ntris);
/* Free a tree; NULL is a no-op. */
void mrdem_tree_free(struct mrdem_tree *t);

/* Check the flat layout (levels, child and triangle ranges, permutation,
 * finite geometry, eps >= 0) and fill parent[] and level[]. `what` names
 * the tree in messages. Returns 0 or -1 with a message. */
int mrdem_tree_check_layout(struct mrdem_tree *t, const char *what);

/* 64-bit fingerprint of a mesh's vertices and triangles. */
uint64_t mrdem_mesh_fingerprint(const struct mrdem_mesh *m);
/* Attach a tree to its mesh: check triangle count and fingerprint, then
 * fill the float triangle soup and the bounding spheres. Returns 0 or -1
 * with a message. */
int mrdem_tree_bind(struct mrdem_tree *t, const struct mrdem_mesh *m, const char *what);

/* Build the tree of a mesh (top-down k-means, then one surrogate per node
 * in parallel; the result does not depend on the thread count). The tree
 * comes back bound. Returns 0 or -1 with a message. */
int mrdem_tree_build(const struct mrdem_mesh *m, const struct mrdem_tree_params *p,
		     struct mrdem_tree **out);

/* The tree of mesh `scaled`, which is t's mesh with every vertex
 * multiplied by scale (> 0), bound to it (tree_scale.c): t's layout, its
 * surrogate vertices scaled and rounded, its eps scaled and widened by 4
 * float ulps of the largest coordinate, so it stays conservative. NULL
 * with a message naming `what` when it does not bind. */
struct mrdem_tree *mrdem_tree_scaled(const struct mrdem_tree *t, double scale,
				     const struct mrdem_mesh *scaled, const char *what);

/* ---- epsilons (tree_eps.c) */

/* Largest exact distance from the points pts[3*i] to triangle tri (double). */
double mrdem_tree_max_distance(const double tri[9], const double *pts, size_t npts);
/* Smallest float >= e plus a margin covering the double evaluation error
 * of distances between points of magnitude up to coord (absolute). */
float mrdem_tree_eps_round_up(double e, double coord);

struct mrdem_tree_violation {
	uint32_t node;        /* node whose halo misses a real vertex */
	uint32_t tri;         /* mesh triangle index of that vertex's triangle */
	double dist, eps;     /* exact distance and stored eps */
};
/* Re-check every node against every vertex (double and float forms) of
 * every real triangle beneath it. Returns the number of violations (0 for
 * a conservative tree); the worst one (largest dist - eps) goes to *worst
 * when not NULL. The tree must be bound to m. */
size_t mrdem_tree_verify(const struct mrdem_tree *t, const struct mrdem_mesh *m,
			 struct mrdem_tree_violation *worst);

/* ---- figures (tree_stats.c) */

/* Volume of the eps-halo of a triangle (Steiner formula):
 * 2 eps A + (pi/2) eps^2 P + (4/3) pi eps^3. */
double mrdem_halo_volume(const double tri[9], double eps);

struct mrdem_tree_level_stats {
	uint32_t nodes, leaves;
	uint32_t tris;        /* real triangles under the leaves of this level */
	double eps_min, eps_mean, eps_max;
};
void mrdem_tree_level_stats(const struct mrdem_tree *t, uint32_t level,
			    struct mrdem_tree_level_stats *s);

struct mrdem_tree_root_stats {
	double d;             /* longest edge of the root surrogate */
	double eps;
	double area, perimeter;
	double halo_volume;   /* Steiner volume of the root halo */
	double centre[3];     /* bounding sphere: about the centre of mass (bbox centre */
	double radius;        /* for open meshes), through the farthest vertex */
	double sphere_volume;
	double ratio;         /* halo_volume / sphere_volume */
};
void mrdem_tree_root_stats(const struct mrdem_tree *t, const struct mrdem_mesh *m,
			   struct mrdem_tree_root_stats *s);

#endif
