#include "common/scene/pairs.h"

#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"

void mrdem_pairs_init(struct mrdem_pairs *p)
{
	memset(p, 0, sizeof *p);
}

void mrdem_pairs_release(struct mrdem_pairs *p)
{
	free(p->p);
	mrdem_pairs_init(p);
}

void mrdem_pairs_push(struct mrdem_pairs *p, uint64_t a, uint64_t b)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 64;
		p->p = mrdem_xrealloc(p->p, p->cap * sizeof *p->p);
	}
	p->p[p->n].a = a;
	p->p[p->n++].b = b;
}
