#include "common/narrow/search/front_store.h"

#include <stdlib.h>

#include "common/util/error.h"
#include "common/util/hash.h"

struct store_slot {
	uint64_t a, b;
	struct mrdem_front *front; /* NULL: empty slot */
	int used;                  /* searched since the last new step */
	int unchecked;             /* loaded, not yet checked against the trees */
	/* the trees it was last searched on: a particle id given to a particle
	 * of another shape starts its pairs' fronts anew */
	const struct mrdem_tree *ta, *tb;
};

struct mrdem_front_store {
	struct store_slot *e;
	size_t n, cap;             /* cap: a power of two, or 0 */
};

struct mrdem_front_store *mrdem_front_store_new(void)
{
	return mrdem_xcalloc(1, sizeof(struct mrdem_front_store));
}

void mrdem_front_store_free(struct mrdem_front_store *fr)
{
	if (!fr)
		return;
	for (size_t i = 0; i < fr->cap; i++)
		mrdem_front_free(fr->e[i].front);
	free(fr->e);
	free(fr);
}

static size_t store_find(const struct mrdem_front_store *fr, uint64_t a, uint64_t b)
{
	size_t i = mrdem_mix64(a * 0x9e3779b97f4a7c15ULL ^ b) & (fr->cap - 1);
	while (fr->e[i].front && (fr->e[i].a != a || fr->e[i].b != b))
		i = (i + 1) & (fr->cap - 1);
	return i;
}

/* Rebuild the table at capacity cap with the entries kept (keep: only
 * those used since the last new step). */
static void store_rehash(struct mrdem_front_store *fr, size_t cap, int keep_used_only)
{
	struct store_slot *old = fr->e;
	size_t oldcap = fr->cap;
	fr->e = mrdem_xcalloc(cap, sizeof *fr->e);
	fr->cap = cap;
	fr->n = 0;
	for (size_t i = 0; i < oldcap; i++) {
		if (!old[i].front)
			continue;
		if (keep_used_only && !old[i].used) {
			mrdem_front_free(old[i].front);
			continue;
		}
		fr->e[store_find(fr, old[i].a, old[i].b)] = old[i];
		fr->n++;
	}
	free(old);
}

static struct store_slot *store_get(struct mrdem_front_store *fr, uint64_t a, uint64_t b)
{
	if (2 * (fr->n + 1) > fr->cap)
		store_rehash(fr, fr->cap ? 2 * fr->cap : 64, 0);
	struct store_slot *e = &fr->e[store_find(fr, a, b)];
	if (!e->front) {
		*e = (struct store_slot){a, b, mrdem_front_new(), 0, 0, NULL, NULL};
		fr->n++;
	}
	e->used = 1;
	return e;
}

int mrdem_front_store_bind(struct mrdem_front_store *fr, const struct mrdem_scene *s, size_t ia,
			   size_t ib, struct mrdem_front **front)
{
	const struct mrdem_particles *p = &s->frame.p;
	struct store_slot *e = store_get(fr, p->id[ia], p->id[ib]);
	if (e->unchecked) {
		const struct mrdem_tree *ta = s->shapes[p->shape[ia]].tree;
		const struct mrdem_tree *tb = s->shapes[p->shape[ib]].tree;
		if (mrdem_front_fits(e->front, ta, tb))
			return mrdem_error("the front of particles %llu and %llu refers to nodes or "
					   "triangles that their shapes' trees do not have (fronts "
					   "record of another scene?)",
					   (unsigned long long)e->a, (unsigned long long)e->b);
		e->unchecked = 0;
	}
	*front = e->front;
	return 0;
}

struct mrdem_front *mrdem_front_store_claim(struct mrdem_front_store *fr,
					    const struct mrdem_scene *s, size_t ia, size_t ib)
{
	const struct mrdem_particles *p = &s->frame.p;
	size_t n = fr->n;
	if (2 * (n + 1) > fr->cap)
		store_rehash(fr, fr->cap ? 2 * fr->cap : 64, 0);
	struct store_slot *e = &fr->e[store_find(fr, p->id[ia], p->id[ib])];
	if (e->front && e->used)
		return NULL;
	const struct mrdem_tree *ta = s->shapes[p->shape[ia]].tree;
	const struct mrdem_tree *tb = s->shapes[p->shape[ib]].tree;
	e = store_get(fr, p->id[ia], p->id[ib]);
	if (e->ta != ta || e->tb != tb)
		mrdem_front_reset(e->front);
	e->ta = ta;
	e->tb = tb;
	return e->front;
}

static int entry_order(const void *x, const void *y)
{
	const struct mrdem_front_store_entry *a = x, *b = y;
	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return a->b < b->b ? -1 : a->b > b->b;
}

size_t mrdem_front_store_save(const struct mrdem_front_store *fr,
			      struct mrdem_front_store_entry **out)
{
	struct mrdem_front_store_entry *v = mrdem_xmalloc_array(fr->n + 1, sizeof *v);
	size_t n = 0;
	for (size_t i = 0; i < fr->cap; i++) {
		const struct store_slot *e = &fr->e[i];
		if (!e->front)
			continue;
		v[n] = (struct mrdem_front_store_entry){ .a = e->a, .b = e->b, .used = e->used };
		mrdem_front_save(e->front, &v[n].front);
		n++;
	}
	qsort(v, n, sizeof *v, entry_order);
	*out = v;
	return n;
}

void mrdem_front_store_entries_free(struct mrdem_front_store_entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		mrdem_front_arrays_release(&v[i].front);
	free(v);
}

int mrdem_front_store_load(struct mrdem_front_store *fr, const struct mrdem_front_store_entry *e,
			   const char *what)
{
	struct mrdem_front *front = mrdem_front_load(&e->front, what);
	if (!front)
		return -1;
	size_t n = fr->n;
	struct store_slot *slot = store_get(fr, e->a, e->b);
	if (fr->n == n) {
		mrdem_front_free(front);
		return mrdem_error("%s: a second front for particles %llu and %llu", what,
				   (unsigned long long)e->a, (unsigned long long)e->b);
	}
	mrdem_front_free(slot->front);
	slot->front = front;
	slot->used = e->used;
	slot->unchecked = 1;
	return 0;
}

void mrdem_front_store_new_step(struct mrdem_front_store *fr, int warm)
{
	if (fr->cap)
		store_rehash(fr, fr->cap, 1);
	for (size_t i = 0; i < fr->cap; i++)
		if (fr->e[i].front) {
			fr->e[i].used = 0;
			if (warm)
				mrdem_front_new_step(fr->e[i].front);
			else
				mrdem_front_reset(fr->e[i].front);
		}
}

