/* Narrow-phase contact points of one frame. */
#ifndef MRDEM_SCENE_CONTACTS_H
#define MRDEM_SCENE_CONTACTS_H

#include <stddef.h>
#include <stdint.h>

struct mrdem_contact {
	uint64_t a, b;        /* particle ids; b may be MRDEM_PLANE_ID(k) */
	uint32_t tri_a, tri_b;/* triangle indices in each shape's mesh (UINT32_MAX: none) */
	double x[3];          /* contact point, world frame */
	double normal[3];     /* unit normal, pointing from b towards a */
	double dist;          /* distance between the two triangles */
	double depth;         /* eps_a + eps_b - dist (> 0 inside the halos) */
};
struct mrdem_contacts {
	uint64_t step;
	size_t n, cap;
	struct mrdem_contact *c;
};
void mrdem_contacts_init(struct mrdem_contacts *c);
void mrdem_contacts_release(struct mrdem_contacts *c);
struct mrdem_contact *mrdem_contacts_push(struct mrdem_contacts *c);

#endif
