/* The front of a pair of trees (front_search.h) inside: shared by its
 * search (front_search.c) and its arrays (front_arrays.c), private to
 * them. */
#ifndef MRDEM_NARROW_FRONT_PRIVATE_H
#define MRDEM_NARROW_FRONT_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "common/geom/xform.h"

/* No group: a pair of the roots. */
#define NO_GROUP UINT32_MAX

/* A pair's standing with respect to its front's certificate pose. */
enum { UNCERTIFIED = 0, FAR = 1, NEAR = 2 };

/* A pair of the front: nodes a, b (or soup triangles when real), the
 * unfolded pair it is a member of (NO_GROUP: the roots), and its standing
 * (FAR: apart at every pose within the margin of the certificate pose;
 * NEAR: tested at the certificate pose, not apart by the margin). */
struct front_pair {
	uint32_t a, b, group;
	uint16_t real, standing;
};

/* An unfolded node pair: its own group, how many members it unfolded
 * into, and whether they may be narrowed again. */
struct front_group {
	uint32_t a, b, group, members, pinned, dead;
};

struct mrdem_front {
	struct front_pair *p, *q;   /* the front and the next one being built */
	size_t n, cap, qcap;
	struct front_group *g;
	size_t ng, gcap;
	uint64_t *memory;           /* node pairs narrowed in this step, a << 32 | b */
	size_t nmem, memcap;
	/* b's pose in a's frame at which the FAR pairs were found apart
	 * (certified: there is one), the two halos then, and the radius about
	 * b's origin of everything in b's tree */
	struct mrdem_xform cert;
	int certified;
	float cert_eps;
	double radius_b;
	/* pairs not yet tested at the certificate, and the indices of the
	 * pairs that are not FAR, in front order (live_ok: up to date) */
	size_t uncertified;
	uint32_t *live;
	size_t nlive, livecap;
	int live_ok;
	/* the live real pairs ordered by their mesh triangles (ta, tb), the
	 * order of the flat search's hits; made with the live list */
	uint32_t *order;
	size_t norder, ordercap;
	/* copies of the pairs of live and order, side by side: an iteration
	 * reads them in a row instead of a few here and there across the
	 * front, most of it FAR (a cache miss each on large fronts) */
	struct front_pair *livep, *orderp;
	size_t livepcap, orderpcap;
	/* groups pinned in this step, narrowed ones too: none, or some for
	 * mrdem_front_new_step to unpin */
	size_t pins;
	/* where the uncertified pairs are: nfresh runs [first, end), in front
	 * order (fresh_ok: all of them; else every pair is looked at) */
	uint32_t *fresh;
	size_t nfresh, freshcap;
	int fresh_ok;
};

#endif
