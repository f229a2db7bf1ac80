#include "common/parallel/rank_frame.h"

#include <stdlib.h>
#include <string.h>

#include "common/scene/flow.h"
#include "common/util/error.h"

void mrdem_order_column(struct mrdem_column *c, const uint64_t *order, size_t n)
{
	memset(c, 0, sizeof *c);
	c->name = mrdem_xstrdup(MRDEM_COLUMN_ORDER);
	c->type = MRDEM_COLUMN_U64;
	c->components = 1;
	c->size = n * 8;
	c->data = mrdem_xmalloc(n ? n * 8 : 1);
	for (size_t k = 0; k < n; k++)
		for (int byte = 0; byte < 8; byte++)
			c->data[8 * k + byte] = (unsigned char)(order[k] >> (8 * byte));
}

void mrdem_wire_particle_get(struct mrdem_wire_particle *w, const struct mrdem_particles *p,
			     size_t i, uint64_t order, int owner)
{
	memset(w, 0, sizeof *w);
	w->id = p->id[i];
	w->order = order;
	w->shape = p->shape[i];
	w->flags = p->flags[i] & ~(uint32_t)MRDEM_PARTICLE_GHOST;
	w->material = p->material ? p->material[i] : 0;
	w->owner = owner;
	memcpy(w->pos, &p->pos[3 * i], sizeof w->pos);
	memcpy(w->quat, &p->quat[4 * i], sizeof w->quat);
	memcpy(w->vel, &p->vel[3 * i], sizeof w->vel);
	memcpy(w->angvel, &p->angvel[3 * i], sizeof w->angvel);
	w->density = p->density[i];
	w->eps = p->eps[i];
}

static void wire_particle_put(struct mrdem_particles *p, size_t i,
			      const struct mrdem_wire_particle *w, int ghost)
{
	p->id[i] = w->id;
	p->shape[i] = w->shape;
	p->flags[i] = w->flags | (ghost ? MRDEM_PARTICLE_GHOST : 0);
	if (p->material)
		p->material[i] = w->material;
	memcpy(&p->pos[3 * i], w->pos, sizeof w->pos);
	memcpy(&p->quat[4 * i], w->quat, sizeof w->quat);
	memcpy(&p->vel[3 * i], w->vel, sizeof w->vel);
	memcpy(&p->angvel[3 * i], w->angvel, sizeof w->angvel);
	p->density[i] = w->density;
	p->eps[i] = w->eps;
}

void mrdem_rank_frame_init(struct mrdem_rank_frame *rf)
{
	memset(rf, 0, sizeof *rf);
	mrdem_id_index_init(&rf->index);
}

void mrdem_rank_frame_release(struct mrdem_rank_frame *rf)
{
	free(rf->order);
	free(rf->owner);
	mrdem_id_index_release(&rf->index);
	mrdem_rank_frame_init(rf);
}

static int cmp_order(const void *x, const void *y)
{
	const struct mrdem_wire_particle *a = x, *b = y;
	return (a->order > b->order) - (a->order < b->order);
}

int mrdem_rank_frame_build(struct mrdem_rank_frame *rf, struct mrdem_frame *f,
			   struct mrdem_wire_particle *w, size_t n, int me)
{
	qsort(w, n, sizeof *w, cmp_order);
	if (n > rf->cap) {
		rf->order = mrdem_xrealloc(rf->order, n * sizeof *rf->order);
		rf->owner = mrdem_xrealloc(rf->owner, n * sizeof *rf->owner);
		rf->cap = n;
	}
	struct mrdem_particles *p = &f->p;
	if (n > p->cap)
		mrdem_particles_reserve(p, n);
	p->n = n;
	rf->n = n;
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && w[i].order == w[i - 1].order)
			return mrdem_error("particles %llu and %llu arrived with the same place %llu "
					   "in the frame", (unsigned long long)w[i - 1].id,
					   (unsigned long long)w[i].id,
					   (unsigned long long)w[i].order);
		wire_particle_put(p, i, &w[i], w[i].owner != me && w[i].owner != MRDEM_RANK_GLOBAL);
		rf->order[i] = w[i].order;
		rf->owner[i] = w[i].owner;
	}
	return mrdem_id_index_build(&rf->index, p);
}

/* The owner of particle id, MRDEM_RANK_GLOBAL for a fixed one or a
 * plane, -2 when the frame lacks it. */
static int owner_of(const struct mrdem_rank_frame *rf, uint64_t id)
{
	if (mrdem_is_plane_id(id))
		return MRDEM_RANK_GLOBAL;
	size_t i = mrdem_id_index_find(&rf->index, id);
	return i == MRDEM_NO_INDEX ? -2 : rf->owner[i];
}

int mrdem_rank_pair_owner(const struct mrdem_rank_frame *rf, uint64_t a, uint64_t b)
{
	int oa = owner_of(rf, a);
	if (oa != MRDEM_RANK_GLOBAL)
		return oa;
	int ob = owner_of(rf, b);
	return ob == MRDEM_RANK_GLOBAL ? 0 : ob;
}

void mrdem_rank_pairs_split(const struct mrdem_rank_frame *rf, int me,
			    const struct mrdem_pairs *all, struct mrdem_pairs *mine,
			    struct mrdem_pairs *theirs, unsigned char **kind, size_t *kcap)
{
	mine->n = theirs->n = 0;
	mine->step = theirs->step = all->step;
	if (all->n > *kcap) {
		*kind = mrdem_xrealloc(*kind, all->n);
		*kcap = all->n;
	}
	size_t nk = 0;
	for (size_t k = 0; k < all->n; k++) {
		uint64_t a = all->p[k].a, b = all->p[k].b;
		int oa = owner_of(rf, a), ob = owner_of(rf, b);
		if (oa != me && ob != me)
			continue;
		/* as mrdem_rank_pair_owner, without looking the ids up again */
		int own = (oa != MRDEM_RANK_GLOBAL ? oa : ob != MRDEM_RANK_GLOBAL ? ob : 0) == me;
		mrdem_pairs_push(own ? mine : theirs, a, b);
		(*kind)[nk++] = (unsigned char)own;
	}
}

static int same_pair(const struct mrdem_contact *c, const struct mrdem_pair *p)
{
	return (c->a == p->a && c->b == p->b) || (c->a == p->b && c->b == p->a);
}

/* The contacts of pair p from list c at *at onwards into out. */
static void take_contacts(const struct mrdem_pair *p, const struct mrdem_contacts *c, size_t *at,
			  struct mrdem_contacts *out)
{
	while (*at < c->n && same_pair(&c->c[*at], p))
		*mrdem_contacts_push(out) = c->c[(*at)++];
}

int mrdem_rank_contacts_merge(const struct mrdem_pairs *mine, const struct mrdem_pairs *theirs,
			      const unsigned char *kind, const struct mrdem_contacts *cm,
			      const struct mrdem_contacts *ct, struct mrdem_contacts *out)
{
	out->n = 0;
	out->step = cm->step;
	size_t im = 0, it = 0, jm = 0, jt = 0;
	for (size_t k = 0; k < mine->n + theirs->n; k++) {
		if (kind[k])
			take_contacts(&mine->p[im++], cm, &jm, out);
		else
			take_contacts(&theirs->p[it++], ct, &jt, out);
	}
	if (jm != cm->n || jt != ct->n)
		return mrdem_error("the contacts of a rank's pairs do not follow the pairs' order");
	return 0;
}

struct spring_ref {
	const struct mrdem_spring *s;
	int src;
	size_t k;
};

static int cmp_spring_ref(const void *x, const void *y)
{
	const struct spring_ref *p = x, *q = y;
	if (p->s->a != q->s->a)
		return p->s->a < q->s->a ? -1 : 1;
	if (p->s->b != q->s->b)
		return p->s->b < q->s->b ? -1 : 1;
	if (p->src != q->src)
		return p->src < q->src ? -1 : 1;
	return (p->k > q->k) - (p->k < q->k);
}

void mrdem_rank_springs_merge(struct mrdem_history *h, const int *src)
{
	size_t n = h->n;
	if (!n)
		return;
	struct spring_ref *r = mrdem_xmalloc_array(n, sizeof *r);
	for (size_t k = 0; k < n; k++)
		r[k] = (struct spring_ref){&h->s[k], src[k], k};
	qsort(r, n, sizeof *r, cmp_spring_ref);
	struct mrdem_spring *out = mrdem_xmalloc_array(n, sizeof *out);
	size_t m = 0;
	/* a pair's springs from a second sender are the same again */
	for (size_t k = 0; k < n;) {
		size_t e = k;
		while (e < n && r[e].s->a == r[k].s->a && r[e].s->b == r[k].s->b)
			e++;
		for (size_t j = k; j < e && r[j].src == r[k].src; j++)
			out[m++] = *r[j].s;
		k = e;
	}
	free(r);
	free(h->s);
	h->s = out;
	h->n = m;
	h->cap = n;
}

/* How many of the sorted v[0..n) are below x. */
static size_t count_below(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int mrdem_rank_frame_remove(struct mrdem_rank_frame *rf, struct mrdem_frame *f,
			    const uint64_t *removed, size_t nr)
{
	size_t n = rf->n, m = 0;
	unsigned char *drop = mrdem_xcalloc(n ? n : 1, 1);
	for (size_t i = 0; i < n; i++) {
		size_t below = count_below(removed, nr, rf->order[i]);
		drop[i] = below < nr && removed[below] == rf->order[i];
		if (drop[i])
			continue;
		rf->order[m] = rf->order[i] - below;
		rf->owner[m++] = rf->owner[i];
	}
	mrdem_frame_remove(f, drop);
	free(drop);
	rf->n = m;
	return mrdem_id_index_build(&rf->index, &f->p);
}

void mrdem_rank_frame_output(const struct mrdem_rank_frame *rf, const struct mrdem_frame *local,
			     int me, struct mrdem_frame *out)
{
	const struct mrdem_particles *p = &local->p;
	struct mrdem_particles *q = &out->p;
	/* out's arrays are kept from step to step: rebuilt in place */
	out->step = local->step;
	out->time = local->time;
	if (p->material)
		mrdem_particles_use_material(q);
	mrdem_particles_reserve(q, p->n ? p->n : 1);
	int one_order = out->nextra == 1 && !strcmp(out->extra[0].name, MRDEM_COLUMN_ORDER);
	if (!one_order) {
		mrdem_columns_release(out->extra, out->nextra);
		free(out->extra);
		out->extra = mrdem_xcalloc(1, sizeof *out->extra);
		out->nextra = 1;
		mrdem_order_column(&out->extra[0], NULL, 0);
	}
	struct mrdem_column *c = &out->extra[0];
	c->data = mrdem_xrealloc(c->data, p->n ? 8 * p->n : 1);
	size_t m = 0;
	for (size_t i = 0; i < p->n; i++) {
		if (rf->owner[i] != me && !(rf->owner[i] == MRDEM_RANK_GLOBAL && me == 0))
			continue;
		struct mrdem_wire_particle w;
		mrdem_wire_particle_get(&w, p, i, rf->order[i], rf->owner[i]);
		wire_particle_put(q, m, &w, 0);
		for (int byte = 0; byte < 8; byte++)
			c->data[8 * m + byte] = (unsigned char)(rf->order[i] >> (8 * byte));
		m++;
	}
	q->n = m;
	c->size = 8 * m;
	out->history.n = 0;
	const struct mrdem_history *h = &local->history;
	for (size_t k = 0; k < h->n; k++)
		if (mrdem_rank_pair_owner(rf, h->s[k].a, h->s[k].b) == me)
			*mrdem_history_push(&out->history) = h->s[k];
}
