#include "common/narrow/front_search.h"

#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"

#include "common/narrow/search_scratch.h"

#define NO_GROUP UINT32_MAX
/* slot of a pair its bounding spheres separate: no kernel call */
#define SPHERE_SEPARATE UINT32_MAX
/* slot of a group that holds a pinned one: not tested, does not narrow */
#define HELD_SLOT (UINT32_MAX - 1)

/* A pair of the front: nodes a, b (or soup triangles when real), and the
 * unfolded pair it is a member of (NO_GROUP: the roots). */
struct front_pair {
	uint32_t a, b, group, real;
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
};

struct mrdem_front *mrdem_front_new(void)
{
	return mrdem_xcalloc(1, sizeof(struct mrdem_front));
}

void mrdem_front_free(struct mrdem_front *fr)
{
	if (!fr)
		return;
	free(fr->p);
	free(fr->q);
	free(fr->g);
	free(fr->memory);
	free(fr);
}

void mrdem_front_reset(struct mrdem_front *fr)
{
	fr->n = fr->ng = fr->nmem = 0;
}

void mrdem_front_new_step(struct mrdem_front *fr)
{
	fr->nmem = 0;
	for (size_t u = 0; u < fr->ng; u++)
		fr->g[u].pinned = 0;
}

size_t mrdem_front_size(const struct mrdem_front *fr)
{
	return fr->n;
}

void mrdem_front_counts_add(struct mrdem_front_counts *dst, const struct mrdem_front_counts *src)
{
	dst->unfolds += src->unfolds;
	dst->narrows += src->narrows;
	dst->pinned += src->pinned;
	dst->guesses += src->guesses;
	dst->size += src->size;
}

static void emit(struct mrdem_front *fr, size_t *nq, uint32_t a, uint32_t b, uint32_t group,
		 uint32_t real)
{
	fr->q = mrdem_search_grow(fr->q, &fr->qcap, *nq + 1, sizeof *fr->q);
	fr->q[(*nq)++] = (struct front_pair){a, b, group, real};
}

static int remembered(const struct mrdem_front *fr, uint64_t key)
{
	for (size_t k = 0; k < fr->nmem; k++)
		if (fr->memory[k] == key)
			return 1;
	return 0;
}

static void remember(struct mrdem_front *fr, uint64_t key)
{
	if (remembered(fr, key))
		return;
	fr->memory = mrdem_search_grow(fr->memory, &fr->memcap, fr->nmem + 1, sizeof *fr->memory);
	fr->memory[fr->nmem++] = key;
}

static uint64_t node_key(uint32_t a, uint32_t b)
{
	return (uint64_t)a << 32 | b;
}

/* Replace node pair (a, b), a member of group, by its members one level
 * down on each side (both leaves: their real triangle pairs). */
static void unfold(struct mrdem_front *fr, size_t *nq, const struct mrdem_tree *ta,
		   const struct mrdem_tree *tb, uint32_t a, uint32_t b, uint32_t group,
		   struct mrdem_front_counts *fc)
{
	fr->g = mrdem_search_grow(fr->g, &fr->gcap, fr->ng + 1, sizeof *fr->g);
	uint32_t v = (uint32_t)fr->ng++;
	struct front_group *g = &fr->g[v];
	*g = (struct front_group){a, b, group, 0, remembered(fr, node_key(a, b)), 0};
	fc->unfolds++;
	fc->pinned += g->pinned;
	uint32_t ca = ta->child_count[a], cb = tb->child_count[b];
	size_t first = *nq;
	if (!ca && !cb) {
		for (uint32_t p = ta->tri_first[a]; p < ta->tri_first[a] + ta->tri_count[a]; p++)
			for (uint32_t q = tb->tri_first[b]; q < tb->tri_first[b] + tb->tri_count[b]; q++)
				emit(fr, nq, p, q, v, 1);
	} else {
		uint32_t fa = ca ? ta->child_first[a] : a, na = ca ? ca : 1;
		uint32_t fb = cb ? tb->child_first[b] : b, nb = cb ? cb : 1;
		for (uint32_t p = fa; p < fa + na; p++)
			for (uint32_t q = fb; q < fb + nb; q++)
				emit(fr, nq, p, q, v, 0);
	}
	fr->g[v].members = (uint32_t)(*nq - first);
}

/* Drop narrowed groups and renumber the rest, in the new front too. */
static void compact_groups(struct mrdem_front *fr, uint32_t *map, size_t nq)
{
	uint32_t live = 0;
	for (size_t u = 0; u < fr->ng; u++)
		map[u] = fr->g[u].dead ? NO_GROUP : live++;
	for (size_t u = 0; u < fr->ng; u++)
		if (!fr->g[u].dead) {
			struct front_group g = fr->g[u];
			if (g.group != NO_GROUP)
				g.group = map[g.group];
			fr->g[map[u]] = g;
		}
	fr->ng = live;
	for (size_t k = 0; k < nq; k++)
		if (fr->q[k].group != NO_GROUP)
			fr->q[k].group = map[fr->q[k].group];
}

static uint32_t round_of(const struct mrdem_tree *ta, const struct mrdem_tree *tb, uint32_t a,
			 uint32_t b)
{
	uint32_t r = ta->level[a] + tb->level[b];
	return r < MRDEM_SEARCH_ROUNDS ? r : MRDEM_SEARCH_ROUNDS - 1;
}

/* Item k of an iteration's tests: front pair k, or for k >= n the pair of
 * group k - n (a narrowing candidate). */
static struct front_pair item(const struct mrdem_front *fr, size_t n, size_t k)
{
	if (k < n)
		return fr->p[k];
	const struct front_group *g = &fr->g[k - n];
	return (struct front_pair){g->a, g->b, g->group, 0};
}

/* Per group scratch: whether it or a group beneath it is pinned (then it
 * may not narrow), where its test result is, and the group it narrows into
 * (itself, an ancestor, or NO_GROUP). Parents precede their groups. */
enum { HELD, SLOT, DEST, PER_GROUP };

static void mark_held(const struct mrdem_front *fr, uint32_t *t)
{
	for (size_t u = 0; u < fr->ng; u++)
		t[PER_GROUP * u + HELD] = fr->g[u].pinned;
	for (size_t u = fr->ng; u-- > 0;)
		if (t[PER_GROUP * u + HELD] && fr->g[u].group != NO_GROUP)
			t[PER_GROUP * fr->g[u].group + HELD] = 1;
}

void mrdem_front_search(struct mrdem_tree_search *s, struct mrdem_front *fr,
			const struct mrdem_search_side *a, const struct mrdem_search_side *b,
			const struct mrdem_xform *xb, const struct mrdem_narrow_opts *o,
			struct mrdem_tri_hits *hits, struct mrdem_tri_hits *guesses,
			struct mrdem_search_counts *cnt, struct mrdem_front_counts *fc)
{
	const struct mrdem_tree *ta = a->tree, *tb = b->tree;
	if (fr->n == 0) {
		fr->p = mrdem_search_grow(fr->p, &fr->cap, 1, sizeof *fr->p);
		fr->p[fr->n++] = (struct front_pair){0, 0, NO_GROUP, 0};
	}
	float reach = mrdem_search_prepare(s, a, b);
	size_t n = fr->n, ng = fr->ng;
	fc->size += n;

	/* Every unfolded pair that holds no pinned group is tested again: if
	 * it separates at this iterate, no real pair beneath can touch
	 * (conservative halos), whatever the surrogates below report, and
	 * everything beneath narrows back into it. */
	s->tally = mrdem_search_grow(s->tally, &s->tally_cap, PER_GROUP * ng + 1, sizeof *s->tally);
	uint32_t *t = s->tally;
	mark_held(fr, t);

	/* Node pairs go to the kernels sorted by round (counted per round),
	 * real pairs in front order; slot[k] says where item k's result is. */
	size_t start[MRDEM_SEARCH_ROUNDS + 1] = {0}, nnode = 0, nreal = 0;
	s->slot = mrdem_search_grow(s->slot, &s->slot_cap, n + ng, sizeof *s->slot);
	for (size_t k = 0; k < n + ng; k++) {
		if (k >= n && t[PER_GROUP * (k - n) + HELD]) {
			s->slot[k] = HELD_SLOT;
			continue;
		}
		struct front_pair p = item(fr, n, k);
		int apart;
		if (p.real) {
			mrdem_search_map_leaf(s, tb, xb, fr->g[p.group].b);
			apart = mrdem_spheres_apart(&ta->soup_sphere[4 * (size_t)p.a],
						    &s->tsph_b[4 * (size_t)p.b], reach);
		} else {
			mrdem_search_map_node(s, tb, xb, p.b);
			apart = mrdem_spheres_apart(&ta->node_sphere[4 * (size_t)p.a],
						    &s->nsph_b[4 * (size_t)p.b], reach);
		}
		if (apart) {
			s->slot[k] = SPHERE_SEPARATE;
			cnt->sphere_pruned++;
		} else if (p.real) {
			s->real = mrdem_search_grow(s->real, &s->real_cap, 2 * (nreal + 1), sizeof *s->real);
			s->real[2 * nreal] = p.a;
			s->real[2 * nreal + 1] = p.b;
			s->slot[k] = (uint32_t)nreal++;
		} else {
			s->slot[k] = 0;
			start[round_of(ta, tb, p.a, p.b) + 1]++;
			nnode++;
		}
	}
	for (int r = 0; r < MRDEM_SEARCH_ROUNDS; r++)
		start[r + 1] += start[r];
	size_t fill[MRDEM_SEARCH_ROUNDS];
	memcpy(fill, start, sizeof fill);
	s->cur = mrdem_search_grow(s->cur, &s->cur_cap, 2 * (nnode + 1), sizeof *s->cur);
	for (size_t k = 0; k < n + ng; k++) {
		struct front_pair p = item(fr, n, k);
		if (p.real || s->slot[k] >= HELD_SLOT)
			continue;
		size_t at = fill[round_of(ta, tb, p.a, p.b)]++;
		s->cur[2 * at] = p.a;
		s->cur[2 * at + 1] = p.b;
		s->slot[k] = (uint32_t)at;
	}

	struct mrdem_tri_set na = {ta->tri, ta->nnodes, s->eps_a, 0};
	struct mrdem_tri_set nb = {s->node_b, tb->nnodes, s->eps_b, 0};
	struct mrdem_narrow_opts surrogate = mrdem_search_surrogate_opts(o);
	s->res = mrdem_search_grow(s->res, &s->res_cap, nnode + 1, sizeof *s->res);
	for (int r = 0; r < MRDEM_SEARCH_ROUNDS; r++)
		if (start[r + 1] > start[r])
			mrdem_tri_pairs_test(s->batch, &na, &nb, &s->cur[2 * start[r]],
					     start[r + 1] - start[r], &surrogate, &s->res[start[r]],
					     &cnt->round[r]);
	struct mrdem_tri_set ra = {ta->soup, ta->ntris, NULL, a->eps};
	struct mrdem_tri_set rb = {s->soup_b, tb->ntris, NULL, b->eps};
	s->res2 = mrdem_search_grow(s->res2, &s->res2_cap, nreal + 1, sizeof *s->res2);
	mrdem_tri_pairs_test(s->batch, &ra, &rb, s->real, nreal, o, s->res2, &cnt->real);

	/* Groups first, parents before children: the topmost separate one
	 * takes everything beneath it (DEST). Its members are certified apart,
	 * so their surrogates neither guess nor unfold. */
	for (size_t u = 0; u < ng; u++) {
		uint32_t at = s->slot[n + u], parent = fr->g[u].group;
		int apart = at == SPHERE_SEPARATE ||
			    (at < HELD_SLOT && s->res[at].status == MRDEM_TRI_SEPARATE);
		uint32_t above = parent == NO_GROUP ? NO_GROUP : t[PER_GROUP * parent + DEST];
		t[PER_GROUP * u + DEST] = above != NO_GROUP ? above : apart ? (uint32_t)u : NO_GROUP;
	}
	/* Then the front pairs: real contacts, guesses, unfolding (slot[k]
	 * becomes 1 for a pair that unfolds). */
	size_t first = hits->n, gfirst = guesses->n;
	for (size_t k = 0; k < n; k++) {
		struct front_pair p = fr->p[k];
		uint32_t at = s->slot[k];
		s->slot[k] = 0;
		if (at == SPHERE_SEPARATE)
			continue;
		const struct mrdem_tri_result *r = p.real ? &s->res2[at] : &s->res[at];
		if (p.real) {
			if (r->status == MRDEM_TRI_CONTACT)
				mrdem_search_add_hit(hits, ta->perm[p.a], tb->perm[p.b], r);
		} else if (r->status == MRDEM_TRI_SEPARATE) {
			cnt->pruned++;
		} else if (p.group == NO_GROUP || t[PER_GROUP * p.group + DEST] == NO_GROUP) {
			if (r->status == MRDEM_TRI_CONTACT)
				mrdem_search_add_hit(guesses, p.a, p.b, r);
			s->slot[k] = 1;
		}
	}
	mrdem_search_sort_hits(hits, first);

	/* The next front, in the order of this one: a narrowed group becomes
	 * its pair where its first member was, an unfolded pair its members. */
	size_t nq = 0;
	for (size_t k = 0; k < n; k++) {
		struct front_pair p = fr->p[k];
		uint32_t d = p.group == NO_GROUP ? NO_GROUP : t[PER_GROUP * p.group + DEST];
		if (d != NO_GROUP) {
			struct front_group *g = &fr->g[d];
			if (!g->dead) {
				g->dead = 1;
				emit(fr, &nq, g->a, g->b, g->group, 0);
				remember(fr, node_key(g->a, g->b));
			}
			continue;
		}
		if (s->slot[k])
			unfold(fr, &nq, ta, tb, p.a, p.b, p.group, fc);
		else
			emit(fr, &nq, p.a, p.b, p.group, p.real);
	}
	for (size_t u = 0; u < ng; u++)
		if (t[PER_GROUP * u + DEST] != NO_GROUP) {
			fr->g[u].dead = 1;
			fc->narrows++;
		}
	s->tally = mrdem_search_grow(s->tally, &s->tally_cap, fr->ng + 1, sizeof *s->tally);
	compact_groups(fr, s->tally, nq);
	struct front_pair *tmp = fr->p;
	size_t tc = fr->cap;
	fr->p = fr->q, fr->cap = fr->qcap, fr->n = nq;
	fr->q = tmp, fr->qcap = tc;
	fc->guesses += guesses->n - gfirst;
}

/* ---- the front as arrays (fronts record) */

void mrdem_front_save(const struct mrdem_front *fr, struct mrdem_front_arrays *out)
{
	out->npairs = fr->n;
	out->ngroups = fr->ng;
	out->nmemory = fr->nmem;
	out->pairs = mrdem_xmalloc((fr->n * MRDEM_FRONT_PAIR_VALUES + 1) * sizeof(uint32_t));
	out->groups = mrdem_xmalloc((fr->ng * MRDEM_FRONT_GROUP_VALUES + 1) * sizeof(uint32_t));
	out->memory = mrdem_xmalloc((fr->nmem + 1) * sizeof(uint64_t));
	for (size_t k = 0; k < fr->n; k++) {
		const struct front_pair *p = &fr->p[k];
		uint32_t *v = &out->pairs[MRDEM_FRONT_PAIR_VALUES * k];
		v[0] = p->a, v[1] = p->b, v[2] = p->group, v[3] = p->real;
	}
	for (size_t u = 0; u < fr->ng; u++) {
		const struct front_group *g = &fr->g[u];
		uint32_t *v = &out->groups[MRDEM_FRONT_GROUP_VALUES * u];
		v[0] = g->a, v[1] = g->b, v[2] = g->group, v[3] = g->members, v[4] = g->pinned;
	}
	if (fr->nmem)
		memcpy(out->memory, fr->memory, fr->nmem * sizeof(uint64_t));
}

void mrdem_front_arrays_release(struct mrdem_front_arrays *a)
{
	free(a->pairs);
	free(a->groups);
	free(a->memory);
	memset(a, 0, sizeof *a);
}

struct mrdem_front *mrdem_front_load(const struct mrdem_front_arrays *in, const char *what)
{
	size_t ng = in->ngroups;
	if (ng >= NO_GROUP || in->npairs >= UINT32_MAX) {
		mrdem_error("%s: %zu pairs and %zu groups, too many", what, in->npairs, ng);
		return NULL;
	}
	for (size_t u = 0; u < ng; u++) {
		const uint32_t *v = &in->groups[MRDEM_FRONT_GROUP_VALUES * u];
		if ((v[2] != NO_GROUP && v[2] >= u) || v[4] > 1) {
			mrdem_error("%s: unfolded pair %zu: parent %u or pinned flag %u is invalid "
				    "(parents come first)", what, u, v[2], v[4]);
			return NULL;
		}
	}
	for (size_t k = 0; k < in->npairs; k++) {
		const uint32_t *v = &in->pairs[MRDEM_FRONT_PAIR_VALUES * k];
		if ((v[2] != NO_GROUP && v[2] >= ng) || v[3] > 1 || (v[3] && v[2] == NO_GROUP)) {
			mrdem_error("%s: pair %zu: group %u or real flag %u is invalid", what, k, v[2],
				    v[3]);
			return NULL;
		}
	}
	if (in->npairs == 0 && (ng || in->nmemory)) {
		mrdem_error("%s: an empty front with %zu unfolded pairs", what, ng);
		return NULL;
	}
	struct mrdem_front *fr = mrdem_front_new();
	fr->p = mrdem_search_grow(fr->p, &fr->cap, in->npairs + 1, sizeof *fr->p);
	fr->g = mrdem_search_grow(fr->g, &fr->gcap, ng + 1, sizeof *fr->g);
	fr->memory = mrdem_search_grow(fr->memory, &fr->memcap, in->nmemory + 1,
				       sizeof *fr->memory);
	for (size_t k = 0; k < in->npairs; k++) {
		const uint32_t *v = &in->pairs[MRDEM_FRONT_PAIR_VALUES * k];
		fr->p[k] = (struct front_pair){v[0], v[1], v[2], v[3]};
	}
	for (size_t u = 0; u < ng; u++) {
		const uint32_t *v = &in->groups[MRDEM_FRONT_GROUP_VALUES * u];
		fr->g[u] = (struct front_group){v[0], v[1], v[2], v[3], v[4], 0};
	}
	if (in->nmemory)
		memcpy(fr->memory, in->memory, in->nmemory * sizeof(uint64_t));
	fr->n = in->npairs;
	fr->ng = ng;
	fr->nmem = in->nmemory;
	return fr;
}

int mrdem_front_fits(const struct mrdem_front *fr, const struct mrdem_tree *ta,
		     const struct mrdem_tree *tb)
{
	for (size_t u = 0; u < fr->ng; u++)
		if (fr->g[u].a >= ta->nnodes || fr->g[u].b >= tb->nnodes)
			return -1;
	for (size_t k = 0; k < fr->n; k++) {
		const struct front_pair *p = &fr->p[k];
		if (p->real ? p->a >= ta->ntris || p->b >= tb->ntris :
			      p->a >= ta->nnodes || p->b >= tb->nnodes)
			return -1;
	}
	return 0;
}
