/* One surrogate triangle for a set of triangles (paper Appendix A).
 *
 * The problem is posed in normalised coordinates (centre of the points at
 * the origin, farthest point at distance 1) so the weights of functional
 * (6) mean the same for a five-triangle leaf and a whole particle. */
#ifndef MRDEM_TREE_SURROGATE_H
#define MRDEM_TREE_SURROGATE_H

#include <stddef.h>

#include "common/tree/tree.h"

struct mrdem_surrogate_problem {
	size_t ntris, npts;
	double *tris;          /* 9 * ntris: the triangles to replace, normalised */
	double *pts;           /* 3 * npts: their distinct vertices, normalised */
	double centre[3];      /* shape frame = centre + scale * normalised */
	double scale;
	double outward[3];     /* area-weighted mean outer normal (may be ~0) */
	unsigned beta_size, beta_normal;
	double alpha_area, alpha_inside;
	double *scratch;       /* 7 * npts: one problem per thread */
};

/* Copy and normalise triangles (9 doubles each, outward vertex order) and
 * their distinct vertices. */
void mrdem_surrogate_problem_init(struct mrdem_surrogate_problem *pb, const double *tris,
				  size_t ntris, const double *pts, size_t npts,
				  const struct mrdem_tree_params *p);
void mrdem_surrogate_problem_release(struct mrdem_surrogate_problem *pb);

/* Functional (6) at x (normalised), its gradient into g when not NULL:
 *   1/beta_size * sum_i mean_t dist(x_i, t)^beta_size
 * + alpha_area/2 * |(x2 - x1) x (x3 - x1)|^-2
 * + alpha_inside/beta_normal * sum_i mean_p max(0, (x_i - p) . N)^beta_normal
 * with N the unit normal of x. Infinite for a triangle of zero area. */
double mrdem_surrogate_functional(const struct mrdem_surrogate_problem *pb, const double x[9],
				  double g[9]);

/* Halo volume of x with a smooth maximum (log-sum-exp at temperature tau)
 * of the point distances as epsilon, plus the anti-degeneration term of
 * (6); gradient into g when not NULL. Used by the refinement stage. */
double mrdem_surrogate_halo_objective(const struct mrdem_surrogate_problem *pb,
				      const double x[9], double tau, double g[9]);

/* The start of the minimisation: a copy of the triangle nearest the centre. */
void mrdem_surrogate_start(const struct mrdem_surrogate_problem *pb, double x[9]);

struct mrdem_surrogate_report {
	double j_start, j_end;     /* functional (6) before and after its minimisation */
	double vol_functional;     /* exact halo volume (normalised) of the (6) minimiser */
	double vol_final;          /* exact halo volume of the returned triangle */
	int refined;               /* the refinement produced the returned triangle */
};

/* The whole fit: minimise (6) from the start triangle, then (when refine)
 * shrink the exact halo volume from that minimiser and from a principal-
 * axis triangle, keeping the smallest non-degenerate halo. Writes the
 * triangle in shape-frame coordinates to out. */
void mrdem_surrogate_fit(const struct mrdem_surrogate_problem *pb, unsigned iters, int refine,
			 double out[9], struct mrdem_surrogate_report *r);

/* Shape quality 4 sqrt(3) A / (a^2 + b^2 + c^2): 1 for equilateral, 0 for
 * degenerate. */
double mrdem_triangle_quality(const double x[9]);
/* Triangles below this quality are degenerate for the tree. */
#define MRDEM_SURROGATE_MIN_QUALITY 1e-3

#endif
