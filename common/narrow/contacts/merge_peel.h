/* The scan's groups (merge_scan.h) without sorting the hits first, for
 * pairs of few hits, with AVX-512: the scan makes a hit the seed of a new
 * group when no earlier seed takes it, so its first seed is the hit of
 * least (ta, tb), every hit that seed takes is in group 0 (the lowest),
 * and of the rest the least is the next seed, which no earlier seed takes
 * and which precedes every hit still left. So group after group, in the
 * scan's order: the least key left seeds it, one pass over the hits left
 * takes its members by the scan's own test against that seed, and the
 * member of least (distance, key) becomes its contact, as the scan keeps
 * it. */
#ifndef MRDEM_NARROW_MERGE_PEEL_H
#define MRDEM_NARROW_MERGE_PEEL_H

#include <stddef.h>
#include <stdint.h>

#include "common/narrow/contacts/hit_frame.h"

/* Scratch of the peel: the hits not yet in a group, as columns in their
 * order (the hits a group takes leave them, the rest move up). */
struct mrdem_merge_peel {
	double *x, *y, *z;    /* per hit its midpoint (the scan's, in double) */
	double *dist;         /* per hit its distance */
	uint64_t *key;        /* per hit its (ta, tb) */
	uint32_t *place;      /* per hit its place in the hits */
	unsigned char *odd;   /* per block of 8 hits: those whose points coincide */
	size_t cap;
	size_t n;             /* hits left */
	size_t least;         /* the column of the least key among them */
};
void mrdem_merge_peel_release(struct mrdem_merge_peel *m);

/* Group after group of the hits (halos the particles', radius > 0 and
 * finite) as contacts appended to out, while that pays: a pass costs a
 * few cycles per hit left, the sort and the scan some tens per hit; so
 * the passes stop before they have looked at 8 times as many hits as
 * there are (the groups are many), and the hits left, moved to the front
 * of hits (hits->n: how many), go to the sort and the scan, whose groups
 * follow these (every hit left comes after every seed here, and no seed
 * here takes it). Returns the largest point coordinate of all the hits,
 * for the scan's band. AVX-512 only (merge_peel_avx512.c). */
float mrdem_merge_peel_avx512(const struct mrdem_hit_frame *f, struct mrdem_tri_hits *hits,
			      struct mrdem_merge_peel *m, double radius, struct mrdem_contacts *out);

#endif
