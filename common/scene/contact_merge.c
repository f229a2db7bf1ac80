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

/* The keys of the parts' items (pairs or contacts: id(part, at, ab) gives
 * the two ids), sorted; *m receives their count. NULL after a message. */
static struct keyed *sorted_keys(size_t nparts, const size_t *counts, const void *parts,
				 void (*ids)(const void *, size_t, size_t, uint64_t[2]),
				 const struct mrdem_id_index *x, size_t n, const char *const *name,
				 size_t *m)
{
	size_t total = 0;
	for (size_t k = 0; k < nparts; k++)
		total += counts[k];
	struct keyed *t = mrdem_xmalloc_array(total ? total : 1, sizeof *t);
	*m = 0;
	for (size_t k = 0; k < nparts; k++)
		for (size_t i = 0; i < counts[k]; i++) {
			uint64_t ab[2];
			ids(parts, k, i, ab);
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

/* Two items of one pair: from two parts (any items), or twice in one
 * (pairs only, when once_per_part). */
static int clash(const struct keyed *t, size_t i, int once_per_part)
{
	if (!i || t[i].key[0] != t[i - 1].key[0] || t[i].key[1] != t[i - 1].key[1])
		return 0;
	return once_per_part || t[i].part != t[i - 1].part;
}

static int clash_error(const char *what, uint64_t step, const struct keyed *t, size_t i,
		       const char *const *name)
{
	return mrdem_error("%s and %s: the %s of step %llu name one pair (frame indices %zu, "
			   "%zu) twice; one rank owns a pair", name[t[i - 1].part], name[t[i].part],
			   what, (unsigned long long)step, t[i].key[0], t[i].key[1]);
}

int mrdem_pairs_merge(struct mrdem_pairs *out, const struct mrdem_pairs *parts, size_t nparts,
		      const struct mrdem_id_index *x, size_t n, const char *const *name)
{
	mrdem_pairs_init(out);
	out->step = nparts ? parts[0].step : 0;
	size_t *counts = mrdem_xmalloc_array(nparts ? nparts : 1, sizeof *counts);
	for (size_t k = 0; k < nparts; k++)
		counts[k] = parts[k].n;
	size_t m;
	struct keyed *t = sorted_keys(nparts, counts, parts, pair_ids, x, n, name, &m);
	free(counts);
	if (!t)
		return -1;
	int rc = 0;
	for (size_t i = 0; i < m && !rc; i++) {
		if (clash(t, i, 1)) {
			rc = clash_error("pairs", out->step, t, i, name);
			break;
		}
		const struct mrdem_pair *p = &parts[t[i].part].p[t[i].at];
		size_t ia;
		/* a is the lower index */
		int turned = index_of(x, n, p->a, &ia) || ia != t[i].key[0];
		mrdem_pairs_push(out, turned ? p->b : p->a, turned ? p->a : p->b);
	}
	free(t);
	if (rc)
		mrdem_pairs_release(out);
	return rc;
}

int mrdem_contacts_merge(struct mrdem_contacts *out, const struct mrdem_contacts *parts,
			 size_t nparts, const struct mrdem_id_index *x, size_t n,
			 const char *const *name)
{
	mrdem_contacts_init(out);
	out->step = nparts ? parts[0].step : 0;
	size_t *counts = mrdem_xmalloc_array(nparts ? nparts : 1, sizeof *counts);
	for (size_t k = 0; k < nparts; k++)
		counts[k] = parts[k].n;
	size_t m;
	struct keyed *t = sorted_keys(nparts, counts, parts, contact_ids, x, n, name, &m);
	free(counts);
	if (!t)
		return -1;
	int rc = 0;
	for (size_t i = 0; i < m && !rc; i++) {
		if (clash(t, i, 0)) {
			rc = clash_error("contacts", out->step, t, i, name);
			break;
		}
		*mrdem_contacts_push(out) = parts[t[i].part].c[t[i].at];
	}
	free(t);
	if (rc)
		mrdem_contacts_release(out);
	return rc;
}
