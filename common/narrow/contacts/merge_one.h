/* The merge of a pair's hits in one pass, where its result is certainly
 * one contact whatever their order (merge_one.c); the dispatcher
 * (merge.h) tries it before sorting. */
#ifndef MRDEM_NARROW_MERGE_ONE_H
#define MRDEM_NARROW_MERGE_ONE_H

#include "common/narrow/contacts/hit_frame.h"
#include "common/scene/contacts.h"

/* mrdem_hits_to_contacts' merge for hits in any order, where its result
 * is certainly one contact whatever the order: then appends it to out and
 * returns 1; else appends nothing and returns 0 (sort, then scan). */
int mrdem_hits_one_contact(const struct mrdem_hit_frame *f, const struct mrdem_tri_hits *hits,
			   double radius, struct mrdem_contacts *out);

#endif
