/* Incremental sort-and-update (Schinner): every particle's
 * bounding sphere as an axis-aligned box; on each axis the list of box
 * begins and ends is kept sorted between steps, and so is the set of
 * overlapping boxes. Each step the lists are repaired by insertion sort,
 * which only swaps neighbours, and every swap of a begin with an end is
 * exactly a change of overlap on that axis (Schinner, Tables 1 and 3): an
 * end moving below a begin separates the pair; a begin moving below an
 * end makes it overlap when the boxes overlap on the other axes too.
 * Particles move little per step, so this is O(N) per step.
 *
 * The overlap set is a sorted partner list per particle (j > i), so the
 * pairs come out in the canonical order after the exact sphere test. It
 * holds exactly the box overlaps of the last call's boxes: the last swap
 * that touched a pair decides, and an overlap it finds is checked on all
 * three axes with the current boxes. Box ends are floats rounded outwards
 * from the sphere, so the box test never loses a sphere contact.
 *
 * From scratch (the first call, another particle count, or a repair that
 * would move too much) the lists are sorted and the overlapping boxes
 * found by the MR-linear search on spheres holding the boxes. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/broad/broad_methods.h"
#include "common/broad/broad.h"
#include "common/util/error.h"

#define NIL UINT32_MAX
/* Repairing may move this many list entries per box end over the three
 * axes (and a constant) before sorting from scratch takes over: about
 * where repairing costs as much as a rebuild (bench_broad). In 3D the
 * moves per step grow as N^(1/3) (an axis holds the ends of a whole
 * slab), so dense scenes of 10^5 and more particles rebuild. */
#define REPAIR_MOVES_PER_END 128
/* After a repair over budget, this many calls rebuild straight away (the
 * aborted repair cost about a rebuild of its own). */
#define SKIP_AFTER_FAILED_REPAIR 7

struct box_end {
	float key;
	uint32_t tag; /* particle << 1 | 1 for the end, 0 for the begin */
};

struct partner {
	uint32_t j, next;
};

struct mrdem_sap {
	size_t n, cap;            /* particles described; capacity */
	float *box;               /* 6 per particle: lo x y z, hi x y z */
	struct box_end *axis[3];  /* 2n sorted ends per axis */
	uint32_t *head;           /* first partner of each particle, NIL */
	struct partner *node;     /* partner lists, ascending j */
	size_t nnodes, node_cap;
	uint32_t free_node;       /* list of unused nodes */
	uint64_t moves;           /* insertion-sort moves of the last call */
	int rebuilt;
	int skip_repair;          /* calls left that rebuild without trying */
};

struct mrdem_sap *mrdem_sap_new(void)
{
	return mrdem_xcalloc(1, sizeof(struct mrdem_sap));
}

void mrdem_sap_free(struct mrdem_sap *s)
{
	if (!s)
		return;
	free(s->box);
	for (int a = 0; a < 3; a++)
		free(s->axis[a]);
	free(s->head);
	free(s->node);
	free(s);
}

size_t mrdem_sap_bytes(const struct mrdem_sap *s)
{
	return s->cap * (6 * sizeof *s->box + 6 * sizeof(struct box_end) + sizeof *s->head) +
	       s->node_cap * sizeof *s->node;
}

uint64_t mrdem_sap_moves(const struct mrdem_sap *s, int *rebuilt)
{
	*rebuilt = s->rebuilt;
	return s->moves;
}

static float round_down(double v)
{
	float f = (float)v;
	return (double)f > v ? nextafterf(f, -INFINITY) : f;
}

static float round_up(double v)
{
	float f = (float)v;
	return (double)f < v ? nextafterf(f, INFINITY) : f;
}

/* Boxes around the spheres, widened by a margin above the rounding of
 * x +- r and of the sphere test, then rounded outwards to float. */
static void compute_boxes(struct mrdem_sap *s, const double *pos, const double *radius, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (int a = 0; a < 3; a++) {
			double x = pos[3 * i + a];
			double r = radius[i] * (1 + 1e-12) + 8 * DBL_EPSILON * fabs(x);
			s->box[6 * i + a] = round_down(x - r);
			s->box[6 * i + 3 + a] = round_up(x + r);
		}
}

static int boxes_overlap(const float *box, uint32_t i, uint32_t j)
{
	const float *a = &box[6 * (size_t)i], *b = &box[6 * (size_t)j];
	return a[0] <= b[3] && b[0] <= a[3] && a[1] <= b[4] && b[1] <= a[4] && a[2] <= b[5] &&
	       b[2] <= a[5];
}

/* x sorts before y: smaller key, and at equal keys a begin before an end
 * (touching boxes overlap). */
static int end_before(struct box_end x, struct box_end y)
{
	return x.key < y.key || (x.key == y.key && !(x.tag & 1) && (y.tag & 1));
}

static void pair_insert(struct mrdem_sap *s, uint32_t a, uint32_t b)
{
	/* room for a node first: link may point into the nodes, which a
	 * reallocation would move */
	if (s->free_node == NIL && s->nnodes == s->node_cap) {
		s->node_cap = s->node_cap ? 2 * s->node_cap : 1024;
		s->node = mrdem_xrealloc(s->node, s->node_cap * sizeof *s->node);
	}
	uint32_t i = a < b ? a : b, j = a < b ? b : a, *link = &s->head[i];
	while (*link != NIL && s->node[*link].j < j)
		link = &s->node[*link].next;
	if (*link != NIL && s->node[*link].j == j)
		return;
	uint32_t k = s->free_node;
	if (k != NIL)
		s->free_node = s->node[k].next;
	else
		k = (uint32_t)s->nnodes++;
	s->node[k] = (struct partner){j, *link};
	*link = k;
}

static void pair_remove(struct mrdem_sap *s, uint32_t a, uint32_t b)
{
	uint32_t i = a < b ? a : b, j = a < b ? b : a, *link = &s->head[i];
	while (*link != NIL && s->node[*link].j < j)
		link = &s->node[*link].next;
	if (*link == NIL || s->node[*link].j != j)
		return;
	uint32_t k = *link;
	*link = s->node[k].next;
	s->node[k].next = s->free_node;
	s->free_node = k;
}

/* Insertion sort of one axis with the overlap updates of its swaps;
 * 0, or -1 when it would move more than budget entries. */
static int repair_axis(struct mrdem_sap *s, int a, uint64_t budget)
{
	struct box_end *e = s->axis[a];
	size_t m = 2 * s->n;
	for (size_t k = 0; k < m; k++) {
		uint32_t p = e[k].tag >> 1;
		e[k].key = s->box[6 * (size_t)p + 3 * (e[k].tag & 1) + a];
	}
	for (size_t k = 1; k < m; k++) {
		struct box_end x = e[k];
		size_t j = k;
		for (; j > 0 && end_before(x, e[j - 1]); j--) {
			struct box_end y = e[j - 1];
			uint32_t px = x.tag >> 1, py = y.tag >> 1;
			if (px == py) {
				/* a box's own ends never cross (lo <= hi) */
			} else if (!(x.tag & 1) && (y.tag & 1)) {
				/* a begin passes an end: overlap on this axis starts */
				if (boxes_overlap(s->box, px, py))
					pair_insert(s, px, py);
				else
					pair_remove(s, px, py);
			} else if ((x.tag & 1) && !(y.tag & 1)) {
				pair_remove(s, px, py); /* an end passes a begin */
			}
			e[j] = y;
		}
		e[j] = x;
		s->moves += k - j;
		if (s->moves > budget)
			return -1;
	}
	return 0;
}

static int cmp_end(const void *pa, const void *pb)
{
	const struct box_end *x = pa, *y = pb;
	if (end_before(*x, *y))
		return -1;
	if (end_before(*y, *x))
		return 1;
	return (x->tag > y->tag) - (x->tag < y->tag);
}

/* Sorted ends and the overlap set from scratch. */
static void rebuild(struct mrdem_sap *s, const double *pos, size_t n)
{
	s->rebuilt = 1;
	for (int a = 0; a < 3; a++) {
		struct box_end *e = s->axis[a];
		for (size_t i = 0; i < n; i++) {
			e[2 * i] = (struct box_end){s->box[6 * i + a], (uint32_t)(2 * i)};
			e[2 * i + 1] = (struct box_end){s->box[6 * i + 3 + a], (uint32_t)(2 * i + 1)};
		}
		if (n)
			qsort(e, 2 * n, sizeof *e, cmp_end);
	}
	/* Overlapping boxes are within sqrt(3) (e_i + e_j) of each other, e the
	 * largest distance of a box side from the centre: spheres of that
	 * radius (with a margin) find every overlap as candidates. */
	double *reach = mrdem_xmalloc_array(n ? n : 1, sizeof *reach);
	for (size_t i = 0; i < n; i++) {
		double e = 0;
		for (int a = 0; a < 3; a++)
			e = fmax(e, fmax(pos[3 * i + a] - s->box[6 * i + a],
					 s->box[6 * i + 3 + a] - pos[3 * i + a]));
		reach[i] = e * 1.7320508075688772 * (1 + 1e-6);
	}
	struct mrdem_mr *mr = mrdem_mr_new();
	struct mrdem_ipairs cand = {0};
	uint64_t tests, cells;
	double h;
	mrdem_broad_mr_pairs(mr, pos, reach, NULL, n, MRDEM_SIMD_AUTO, &cand, &tests, &cells, &h);
	mrdem_mr_free(mr);
	free(reach);
	for (size_t i = 0; i < n; i++)
		s->head[i] = NIL;
	s->nnodes = 0;
	s->free_node = NIL;
	/* Candidates are in canonical order: pushing them in reverse onto the
	 * front of each list leaves every list ascending. */
	for (size_t k = cand.n; k-- > 0;) {
		uint32_t i = (uint32_t)cand.ij[2 * k], j = (uint32_t)cand.ij[2 * k + 1];
		if (boxes_overlap(s->box, i, j))
			pair_insert(s, i, j);
	}
	mrdem_ipairs_release(&cand);
}

void mrdem_broad_sap_pairs(struct mrdem_sap *s, const double *pos, const double *radius,
			   const uint32_t *flags, size_t n, struct mrdem_ipairs *out,
			   uint64_t *tests)
{
	if (n > s->cap) {
		s->box = mrdem_xrealloc(s->box, 6 * n * sizeof *s->box);
		for (int a = 0; a < 3; a++)
			s->axis[a] = mrdem_xrealloc(s->axis[a], 2 * n * sizeof *s->axis[a]);
		s->head = mrdem_xrealloc(s->head, n * sizeof *s->head);
		s->cap = n;
	}
	compute_boxes(s, pos, radius, n);
	s->moves = 0;
	s->rebuilt = 0;
	int fresh = s->n != n || s->skip_repair > 0;
	s->n = n;
	uint64_t budget = REPAIR_MOVES_PER_END * 2 * (uint64_t)n + 1024;
	for (int a = 0; a < 3 && !fresh; a++)
		if (repair_axis(s, a, budget)) {
			/* over budget: the next few calls rebuild without trying,
			 * then repairing is tried again */
			s->skip_repair = SKIP_AFTER_FAILED_REPAIR + 1;
			fresh = 1;
		}
	if (s->skip_repair > 0)
		s->skip_repair--;
	if (fresh)
		rebuild(s, pos, n);

	out->n = 0;
	uint64_t ntests = 0;
	for (size_t i = 0; i < n; i++)
		for (uint32_t k = s->head[i]; k != NIL; k = s->node[k].next) {
			size_t j = s->node[k].j;
			if (mrdem_both_fixed(flags, i, j))
				continue;
			ntests++;
			if (mrdem_spheres_touch(&pos[3 * i], radius[i], &pos[3 * j], radius[j]))
				mrdem_ipairs_push(out, i, j);
		}
	*tests = ntests;
}
