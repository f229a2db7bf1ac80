/* The pairs and contacts of the ranks of a parallel run into one frame's,
 * sorted by the canonical pair order with each part's order kept within
 * a pair. */
#include "common/scene/contact_merge.h"

#include <stdlib.h>

#include "common/scene/scene.h"
#include "common/util/error.h"

/* A pair or contact of part `part`, at position `at` in it. */
struct keyed {
	size_t key[2];
	size_t part, at;
};

static int cmp_keyed(const void *x, const void *y)
{
	const struct keyed *a = x, *b = y;
	for (int k = 0; k < 2; k++)
		if (a->key[k] != b->key[k])
			return a->key[k] < b->key[k] ? -1 : 1;
	if (a->part != b->part)
		return a->part < b->part ? -1 : 1;
	return (a->at > b->at) - (a->at < b->at);
}

static int index_of(const struct mrdem_id_index *x, size_t n, uint64_t id, size_t *i)
{
	*i = mrdem_is_plane_id(id) ? n + mrdem_plane_index(id) : mrdem_id_index_find(x, id);
	return *i == MRDEM_NO_INDEX ? -1 : 0;
}

int mrdem_pair_key(const struct mrdem_id_index *x, size_t n, uint64_t a, uint64_t b,
		   size_t key[2], const char *what)
{
	size_t i, j;
	if (index_of(x, n, a, &i) || index_of(x, n, b, &j))
		return mrdem_error("%s: the pair (%llu, %llu) names particle %llu, which the merged "
				   "frame lacks", what, (unsigned long long)a, (unsigned long long)b,
				   (unsigned long long)(index_of(x, n, a, &i) ? a : b));
	key[0] = i < j ? i : j;
	key[1] = i < j ? j : i;
	return 0;
}

/* The items of the parts (pairs or contacts): how many part k has, and
 * the two ids of its item i. */
struct items {
	const void *parts;
	size_t (*count)(const void *parts, size_t k);
	void (*ids)(const void *parts, size_t k, size_t i, uint64_t ab[2]);
};

/* The keys of the parts' items, sorted; *m receives their count. NULL
 * after a message. */
static struct keyed *sorted_keys(size_t nparts, const struct items *it,
				 const struct mrdem_id_index *x, size_t n, const char *const *name,
				 size_t *m)
{
	size_t total = 0;
	for (size_t k = 0; k < nparts; k++)
		total += it->count(it->parts, k);
	struct keyed *t = mrdem_xmalloc_array(total ? total : 1, sizeof *t);
	*m = 0;
	for (size_t k = 0; k < nparts; k++)
		for (size_t i = 0; i < it->count(it->parts, k); i++) {
			uint64_t ab[2];
			it->ids(it->parts, k, i, ab);
			struct keyed *e = &t[(*m)++];
			e->part = k;
			e->at = i;
			if (mrdem_pair_key(x, n, ab[0], ab[1], e->key, name[k])) {
				free(t);
				return NULL;
			}
		}
	qsort(t, total, sizeof *t, cmp_keyed);
	return t;
}

static size_t pair_count(const void *parts, size_t k)
{
	return ((const struct mrdem_pairs *)parts)[k].n;
}

static size_t contact_count(const void *parts, size_t k)
{
	return ((const struct mrdem_contacts *)parts)[k].n;
}

static void pair_ids(const void *parts, size_t k, size_t i, uint64_t ab[2])
{
	const struct mrdem_pair *p = &((const struct mrdem_pairs *)parts)[k].p[i];
	ab[0] = p->a;
	ab[1] = p->b;
}

static void contact_ids(const void *parts, size_t k, size_t i, uint64_t ab[2])
{
	const struct mrdem_contact *c = &((const struct mrdem_contacts *)parts)[k].c[i];
	ab[0] = c->a;
	ab[1] = c->b;
}

/* The parts' items in the merged order: sorted keys, after checking that
 * no pair comes from two parts (nor, once_per_part, twice from one). NULL
 * after a message naming what (pairs, contacts) and the step. */
static struct keyed *merged_order(size_t nparts, const struct items *it,
				  const struct mrdem_id_index *x, size_t n, const char *const *name,
				  const char *what, uint64_t step, int once_per_part, size_t *m)
{
	struct keyed *t = sorted_keys(nparts, it, x, n, name, m);
	for (size_t i = 1; t && i < *m; i++) {
		const struct keyed *a = &t[i - 1], *b = &t[i];
		if (a->key[0] != b->key[0] || a->key[1] != b->key[1] ||
		    (!once_per_part && a->part == b->part))
			continue;
		mrdem_error("%s and %s: the %s of step %llu name one pair (frame indices %zu, %zu) "
			    "twice; one rank owns a pair", name[a->part], name[b->part], what,
			    (unsigned long long)step, b->key[0], b->key[1]);
		free(t);
		t = NULL;
	}
	return t;
}

int mrdem_pairs_merge(struct mrdem_pairs *out, const struct mrdem_pairs *parts, size_t nparts,
		      const struct mrdem_id_index *x, size_t n, const char *const *name)
{
	mrdem_pairs_init(out);
	out->step = nparts ? parts[0].step : 0;
	struct items it = {parts, pair_count, pair_ids};
	size_t m;
	struct keyed *t = merged_order(nparts, &it, x, n, name, "pairs", out->step, 1, &m);
	if (!t)
		return -1;
	for (size_t i = 0; i < m; i++) {
		const struct mrdem_pair *p = &parts[t[i].part].p[t[i].at];
		size_t ia;
		/* a is the lower index */
		int turned = index_of(x, n, p->a, &ia) || ia != t[i].key[0];
		mrdem_pairs_push(out, turned ? p->b : p->a, turned ? p->a : p->b);
	}
	free(t);
	return 0;
}

int mrdem_contacts_merge(struct mrdem_contacts *out, const struct mrdem_contacts *parts,
			 size_t nparts, const struct mrdem_id_index *x, size_t n,
			 const char *const *name)
{
	mrdem_contacts_init(out);
	out->step = nparts ? parts[0].step : 0;
	struct items it = {parts, contact_count, contact_ids};
	size_t m;
	struct keyed *t = merged_order(nparts, &it, x, n, name, "contacts", out->step, 0, &m);
	if (!t)
		return -1;
	for (size_t i = 0; i < m; i++)
		*mrdem_contacts_push(out) = parts[t[i].part].c[t[i].at];
	free(t);
	return 0;
}
