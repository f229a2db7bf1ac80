#include "common/scene/contacts.h"

#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"

void mrdem_contacts_init(struct mrdem_contacts *c)
{
	memset(c, 0, sizeof *c);
}

void mrdem_contacts_release(struct mrdem_contacts *c)
{
	free(c->c);
	mrdem_contacts_init(c);
}

struct mrdem_contact *mrdem_contacts_push(struct mrdem_contacts *c)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		c->c = mrdem_xrealloc_for(c->c, c->cap, sizeof *c->c, "contacts");
	}
	struct mrdem_contact *k = &c->c[c->n++];
	memset(k, 0, sizeof *k);
	return k;
}
