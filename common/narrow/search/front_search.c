#include "common/narrow/search/front_search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/narrow/search/front_private.h"
#include "common/narrow/search/search_scratch.h"
#include "common/util/error.h"

/* Slots of an iteration's tests that carry no kernel result (from
 * NO_RESULT up): a pair its bounding spheres separate; a group that may not
 * narrow in this iteration (not tested); a pair certified apart (not
 * tested). */
#define SPHERE_SEPARATE UINT32_MAX
#define HELD_SLOT (UINT32_MAX - 1)
#define FAR_SLOT (UINT32_MAX - 2)
#define NO_RESULT FAR_SLOT

/* Motion bound: a pair found apart with both halos widened by a margin
 * stays apart while b moves less than the margin relative to a, so it is
 * not tested again until then. The margin, as a fraction of the two
 * particles' halos: larger certifies fewer pairs (those within the margin
 * are tested every iteration) but lasts longer. On Table 6's scenes 0.05
 * to 0.25 differ by less than 10 % in comparisons per step (fewest near
 * 0.1), 1.0 costs up to 45 % more (docs/dynamics.md). */
#define MOTION_MARGIN 0.1
/* Allowance for float rounding of the mapped coordinates and the kernels,
 * relative to the coordinates' magnitude (float epsilon is 6e-8). */
#define MOTION_ROUNDING 1e-5

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
	free(fr->live);
	free(fr->order);
	free(fr->livep);
	free(fr->orderp);
	free(fr->fresh);
	free(fr);
}

void mrdem_front_reset(struct mrdem_front *fr)
{
	fr->n = fr->ng = fr->nmem = fr->uncertified = 0;
	fr->certified = fr->live_ok = fr->fresh_ok = 0;
}

void mrdem_front_new_step(struct mrdem_front *fr)
{
	fr->nmem = 0;
	for (size_t u = 0; u < fr->ng && fr->pins; u++)
		fr->g[u].pinned = 0;
	fr->pins = 0;
}

size_t mrdem_front_size(const struct mrdem_front *fr)
{
	return fr->n;
}

const char *const mrdem_front_count_names[MRDEM_FRONT_COUNTS] = {
	"unfolds", "narrows", "pinned", "guesses", "size", "skipped", "certificates",
};

void mrdem_front_counts_fields(struct mrdem_front_counts *c, uint64_t *v[MRDEM_FRONT_COUNTS])
{
	uint64_t *p[MRDEM_FRONT_COUNTS] = { &c->unfolds, &c->narrows, &c->pinned, &c->guesses,
					    &c->size, &c->skipped, &c->certificates };
	memcpy(v, p, sizeof p);
}

void mrdem_front_counts_add(struct mrdem_front_counts *dst, const struct mrdem_front_counts *src)
{
	struct mrdem_front_counts s = *src;
	uint64_t *d[MRDEM_FRONT_COUNTS], *v[MRDEM_FRONT_COUNTS];
	mrdem_front_counts_fields(dst, d);
	mrdem_front_counts_fields(&s, v);
	for (int k = 0; k < MRDEM_FRONT_COUNTS; k++)
		*d[k] += *v[k];
}

/* Pairs [first, end) of the next front are new: uncertified, listed. */
static void add_fresh(struct mrdem_front *fr, size_t first, size_t end)
{
	fr->uncertified += end - first;
	if (fr->nfresh && fr->fresh[2 * fr->nfresh - 1] == first) {
		fr->fresh[2 * fr->nfresh - 1] = (uint32_t)end;
		return;
	}
	fr->fresh = mrdem_search_grow(fr->fresh, &fr->freshcap, 2 * (fr->nfresh + 1),
				      sizeof *fr->fresh);
	fr->fresh[2 * fr->nfresh] = (uint32_t)first;
	fr->fresh[2 * fr->nfresh + 1] = (uint32_t)end;
	fr->nfresh++;
}

/* A new node pair at the end of the next front. */
static void emit(struct mrdem_front *fr, size_t *nq, uint32_t a, uint32_t b, uint32_t group)
{
	fr->q = mrdem_search_grow(fr->q, &fr->qcap, *nq + 1, sizeof *fr->q);
	fr->q[(*nq)++] = (struct front_pair){a, b, group, 0, UNCERTIFIED};
	add_fresh(fr, *nq - 1, *nq);
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
	fr->pins += g->pinned;
	uint32_t ca = ta->child_count[a], cb = tb->child_count[b];
	uint16_t real = !ca && !cb;
	uint32_t fa, na, fb, nb;
	if (real) {
		fa = ta->tri_first[a], na = ta->tri_count[a];
		fb = tb->tri_first[b], nb = tb->tri_count[b];
	} else {
		fa = ca ? ta->child_first[a] : a, na = ca ? ca : 1;
		fb = cb ? tb->child_first[b] : b, nb = cb ? cb : 1;
	}
	size_t first = *nq, members = (size_t)na * nb;
	fr->q = mrdem_search_grow(fr->q, &fr->qcap, first + members + 1, sizeof *fr->q);
	struct front_pair *out = &fr->q[first];
	for (uint32_t p = fa; p < fa + na; p++)
		for (uint32_t q = fb; q < fb + nb; q++)
			*out++ = (struct front_pair){p, q, v, real, UNCERTIFIED};
	*nq = first + members;
	add_fresh(fr, first, *nq);
	fr->g[v].members = (uint32_t)members;
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
	return (struct front_pair){g->a, g->b, g->group, 0, UNCERTIFIED};
}

/* Per group scratch: whether it may not narrow in this iteration (it or a
 * group beneath it is pinned, or a real pair beneath it touches), where its
 * test result is, and the group it narrows into (itself, an ancestor, or
 * NO_GROUP). Parents precede their groups. */
enum { HELD, SLOT, DEST, PER_GROUP };

/* A group that holds a pinned group, or a real pair in contact, holds its
 * ancestors too. */
static void propagate_held(const struct mrdem_front *fr, uint32_t *t)
{
	for (size_t u = fr->ng; u-- > 0;)
		if (t[PER_GROUP * u + HELD] && fr->g[u].group != NO_GROUP)
			t[PER_GROUP * fr->g[u].group + HELD] = 1;
}

/* The nnode node pairs of s->cur, sorted by round (round r from start[r]),
 * in one call of the kernels, and their work counted by round as if each
 * round were a call of its own: a call per round pads each to a whole
 * vector group (MRDEM_TRI_LANES pairs), most of them empty for the few
 * pairs of a round, and the kernels' lanes do not depend on each other.
 * Node pairs never fall back (mrdem_search_surrogate_opts): a call counts
 * a comparison (and, for the iterative kernel, an iterative pair) per
 * pair and an unconverged one per undecided result. The call's own count
 * and time go to its first round. */
static void test_node_pairs(struct mrdem_tree_search *s, const struct mrdem_tri_set *na,
			    const struct mrdem_tri_set *nb, size_t nnode,
			    const size_t start[MRDEM_SEARCH_ROUNDS + 1],
			    const struct mrdem_narrow_opts *surrogate, struct mrdem_tri_result *res,
			    struct mrdem_search_counts *cnt)
{
	struct mrdem_narrow_counts all = {0};
	mrdem_tri_pairs_test(s->batch, na, nb, s->cur, nnode, surrogate, res, &all);
	int first = -1;
	for (int r = 0; r < MRDEM_SEARCH_ROUNDS; r++) {
		if (start[r + 1] == start[r])
			continue;
		struct mrdem_narrow_counts *c = &cnt->round[r];
		uint64_t m = start[r + 1] - start[r];
		c->comparisons += m;
		c->iterative += all.iterative ? m : 0;
		for (size_t k = start[r]; k < start[r + 1]; k++)
			c->unconverged += res[k].status == MRDEM_TRI_UNDECIDED;
		if (first < 0)
			first = r;
	}
	cnt->round[first].kernel_calls += all.kernel_calls;
	cnt->round[first].kernel_s += all.kernel_s;
}

/* One iteration on a front: what its steps share. n, ng: the front's
 * pairs and groups as the iteration found them; nres: results so far. */
struct front_iter {
	struct mrdem_tree_search *s;
	struct mrdem_front *fr;
	const struct mrdem_search_side *a, *b;
	const struct mrdem_xform *xb;
	const struct mrdem_narrow_opts *o;
	struct mrdem_search_counts *cnt;
	struct mrdem_front_counts *fc;
	float reach;
	size_t n, ng, nres;
};

/* Test the m items idx[] of the iteration it (item(), or ps[j] for idx[j]
 * where ps is given) with the kernels' options o, both halos of every
 * pair widened by inflate / 2: the
 * bounding spheres, then the kernels. Node pairs go sorted by round
 * (counted per round) after the *nres results already in s->res, real
 * pairs in list order into s->res2; slot[k] becomes where item k's result
 * is, or SPHERE_SEPARATE. */
static void test_items(const struct front_iter *it, const uint32_t *idx,
		       const struct front_pair *ps, size_t m, const struct mrdem_narrow_opts *o,
		       float inflate, size_t *nres)
{
	struct mrdem_tree_search *s = it->s;
	const struct mrdem_front *fr = it->fr;
	const struct mrdem_search_side *a = it->a, *b = it->b;
	const struct mrdem_xform *xb = it->xb;
	struct mrdem_search_counts *cnt = it->cnt;
	size_t n = it->n;
	float reach = it->reach + inflate;
	const struct mrdem_tree *ta = a->tree, *tb = b->tree;
	size_t start[MRDEM_SEARCH_ROUNDS + 1] = {0}, nnode = 0, nreal = 0;
	s->real = mrdem_search_grow(s->real, &s->real_cap, 2 * m + 2, sizeof *s->real);
	for (size_t j = 0; j < m; j++) {
		uint32_t k = idx[j];
		struct front_pair p = ps ? ps[j] : item(fr, n, k);
		int apart;
		if (p.real) {
			uint32_t leaf = fr->g[p.group].b;
			if (s->leaf_stamp[leaf] != s->stamp) /* mapped once per call */
				mrdem_search_map_leaf(s, tb, xb, leaf);
			apart = mrdem_spheres_apart(&ta->soup_sphere[4 * (size_t)p.a],
						    &s->tsph_b[4 * (size_t)p.b], reach);
		} else {
			if (s->node_stamp[p.b] != s->stamp)
				mrdem_search_map_node(s, tb, xb, p.b);
			apart = mrdem_spheres_apart(&ta->node_sphere[4 * (size_t)p.a],
						    &s->nsph_b[4 * (size_t)p.b], reach);
		}
		if (apart) {
			s->slot[k] = SPHERE_SEPARATE;
			cnt->sphere_pruned++;
		} else if (p.real) {
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
	for (size_t j = 0; j < m && nnode; j++) {
		uint32_t k = idx[j];
		struct front_pair p = ps ? ps[j] : item(fr, n, k);
		if (s->slot[k] == SPHERE_SEPARATE || p.real)
			continue;
		size_t at = fill[round_of(ta, tb, p.a, p.b)]++;
		s->cur[2 * at] = p.a;
		s->cur[2 * at + 1] = p.b;
		s->slot[k] = (uint32_t)(*nres + at);
	}

	const float *eps_a = s->eps_a, *eps_b = s->eps_b;
	if (inflate > 0 && nnode) {
		s->wide_a = mrdem_search_grow(s->wide_a, &s->wide_a_cap, ta->nnodes, sizeof *s->wide_a);
		s->wide_b = mrdem_search_grow(s->wide_b, &s->wide_b_cap, tb->nnodes, sizeof *s->wide_b);
		for (uint32_t i = 0; i < ta->nnodes; i++)
			s->wide_a[i] = s->eps_a[i] + 0.5f * inflate;
		for (uint32_t i = 0; i < tb->nnodes; i++)
			s->wide_b[i] = s->eps_b[i] + 0.5f * inflate;
		eps_a = s->wide_a, eps_b = s->wide_b;
	}
	struct mrdem_tri_set na = {ta->tri, ta->nnodes, eps_a, 0};
	struct mrdem_tri_set nb = {s->node_b, tb->nnodes, eps_b, 0};
	struct mrdem_narrow_opts surrogate = mrdem_search_surrogate_opts(o);
	s->res = mrdem_search_grow(s->res, &s->res_cap, *nres + nnode + 1, sizeof *s->res);
	if (nnode)
		test_node_pairs(s, &na, &nb, nnode, start, &surrogate, &s->res[*nres], cnt);
	*nres += nnode;
	if (nreal) {
		struct mrdem_tri_set ra = {ta->soup, ta->ntris, NULL, a->eps + 0.5f * inflate};
		struct mrdem_tri_set rb = {s->soup_b, tb->ntris, NULL, b->eps + 0.5f * inflate};
		s->res2 = mrdem_search_grow(s->res2, &s->res2_cap, nreal + 1, sizeof *s->res2);
		mrdem_tri_pairs_test(s->batch, &ra, &rb, s->real, nreal, o, s->res2, &cnt->real);
	}
}

/* Whether item k's result says apart (for real pairs: its slot indexes
 * s->res2, else s->res). */
static int found_apart(const struct mrdem_tree_search *s, uint32_t at, int real)
{
	if (at == SPHERE_SEPARATE)
		return 1;
	if (at >= NO_RESULT)
		return 0;
	return (real ? s->res2[at] : s->res[at]).status == MRDEM_TRI_SEPARATE;
}

/* Radius about b's origin of all b's tree holds: node and leaf spheres. */
static double tree_radius(const struct mrdem_tree *t)
{
	double r = 0;
	const float *sph[2] = {t->node_sphere, t->soup_sphere};
	uint32_t count[2] = {t->nnodes, t->ntris};
	for (int k = 0; k < 2; k++)
		for (uint32_t i = 0; i < count[k]; i++) {
			const float *c = &sph[k][4 * (size_t)i];
			double d = sqrt((double)c[0] * c[0] + (double)c[1] * c[1] + (double)c[2] * c[2]);
			r = fmax(r, d + c[3]);
		}
	return r;
}

/* How far any point within radius of b's origin moved between poses x and
 * c: |(R - Rc) p + t - tc| <= |R - Rc|_F |p| + |t - tc|. */
static double motion(const struct mrdem_xform *x, const struct mrdem_xform *c, double radius)
{
	double dr = 0, dt = 0;
	for (int k = 0; k < 9; k++)
		dr += (x->r[k] - c->r[k]) * (x->r[k] - c->r[k]);
	for (int k = 0; k < 3; k++)
		dt += (x->t[k] - c->t[k]) * (x->t[k] - c->t[k]);
	return sqrt(dr) * radius + sqrt(dt);
}

/* The certificate for this iteration: a new one at pose xb (every pair
 * uncertified) when b moved more than the margin since the last one, or
 * the halos changed. Returns how much to widen the halos (both together)
 * when testing uncertified pairs: the margin, plus the motion since the
 * certificate, plus rounding, so that a pair apart so widened stays apart
 * at every pose within the margin of the certificate pose. */
static float certify(struct mrdem_front *fr, const struct mrdem_tree *tb,
		     const struct mrdem_xform *xb, float halos, struct mrdem_front_counts *fc)
{
	double margin = MOTION_MARGIN * halos;
	double d = fr->certified && fr->cert_eps == halos ? motion(xb, &fr->cert, fr->radius_b) :
							      INFINITY;
	if (!(d <= margin)) {
		fr->cert = *xb;
		fr->cert_eps = halos;
		fr->radius_b = tree_radius(tb);
		fr->certified = 1;
		for (size_t k = 0; k < fr->n; k++)
			fr->p[k].standing = UNCERTIFIED;
		fr->uncertified = fr->n;
		fr->live_ok = fr->fresh_ok = 0;
		fc->certificates++;
		d = 0;
	}
	double t = sqrt(xb->t[0] * xb->t[0] + xb->t[1] * xb->t[1] + xb->t[2] * xb->t[2]);
	return (float)(margin + d + MOTION_ROUNDING * (fr->radius_b + t));
}

/* The next front, built in q (nq pairs), becomes the front. The old one is
 * freed rather than kept for the next rebuild: a pair's front can hold
 * thousands of pairs (a lattice of spheres in contact: 5,400 each), and
 * rebuilds are rare once the fronts settle, so a spare copy per particle
 * pair would double the memory of every front for little. */
static void adopt_next(struct mrdem_front *fr, size_t nq)
{
	free(fr->p);
	/* q grew by doubling: give back the slack beyond a quarter */
	if (fr->qcap > nq + nq / 4 + 16) {
		fr->qcap = nq + 1;
		fr->q = mrdem_xrealloc(fr->q, fr->qcap * sizeof *fr->q);
	}
	fr->p = fr->q, fr->cap = fr->qcap, fr->n = nq;
	fr->q = NULL, fr->qcap = 0;
	fr->fresh_ok = 1;
}

/* A rebuild of the next front starts: every pair kept was certified in
 * this iteration (the uncertified ones are tested first), so the new ones
 * (emit, unfold) are the uncertified ones, and add_fresh lists them. */
static void start_next(struct mrdem_front *fr)
{
	fr->uncertified = fr->nfresh = 0;
	fr->live_ok = 0;
}

/* Pairs [from, k) of the front copied to the next one as they are. */
static void copy_run(struct mrdem_front *fr, size_t *nq, size_t from, size_t k)
{
	fr->q = mrdem_search_grow(fr->q, &fr->qcap, *nq + (k - from) + 1, sizeof *fr->q);
	if (k > from)
		memcpy(&fr->q[*nq], &fr->p[from], (k - from) * sizeof *fr->q);
	*nq += k - from;
}

/* The next front when pairs unfold and no group narrows: the live pairs
 * with unfold[k] set replaced by their members where they stood, the
 * pairs between them copied in runs, and the groups unchanged but for the
 * new ones: the general rebuild's result, without looking at the pairs
 * certified apart. */
static void unfold_in_place(struct mrdem_front *fr, const struct mrdem_tree *ta,
			    const struct mrdem_tree *tb, const uint32_t *live, size_t nlive,
			    const uint32_t *unfold_k, struct mrdem_front_counts *fc)
{
	size_t nq = 0, from = 0;
	start_next(fr);
	for (size_t j = 0; j <= nlive; j++) {
		size_t k = j < nlive ? live[j] : fr->n;
		if (j < nlive && !unfold_k[k])
			continue;
		copy_run(fr, &nq, from, k);
		if (j < nlive)
			unfold(fr, &nq, ta, tb, fr->p[k].a, fr->p[k].b, fr->p[k].group, fc);
		from = k + 1;
	}
	adopt_next(fr, nq);
}

/* The live list: the pairs not certified apart, in front order, and
 * among them the real ones in the order of their mesh triangles. */
static void list_live(struct mrdem_tree_search *s, struct mrdem_front *fr,
		      const struct mrdem_tree *ta, const struct mrdem_tree *tb)
{
	size_t n = fr->n, m = 0;
	fr->live = mrdem_search_grow(fr->live, &fr->livecap, n + 1, sizeof *fr->live);
	fr->nlive = 0;
	for (size_t k = 0; k < n; k++)
		if (fr->p[k].standing != FAR) {
			fr->live[fr->nlive++] = (uint32_t)k;
			m += fr->p[k].real;
		}
	fr->live_ok = 1;
	fr->livep = mrdem_search_grow(fr->livep, &fr->livepcap, fr->nlive + 1, sizeof *fr->livep);
	for (size_t j = 0; j < fr->nlive; j++)
		fr->livep[j] = fr->p[fr->live[j]];
	s->keys = mrdem_search_grow(s->keys, &s->keys_cap, 2 * m + 1, sizeof *s->keys);
	m = 0;
	for (size_t j = 0; j < fr->nlive; j++) {
		const struct front_pair *p = &fr->p[fr->live[j]];
		if (p->real)
			s->keys[m++] = (struct mrdem_hit_key){
				(uint64_t)ta->perm[p->a] << 32 | tb->perm[p->b], fr->live[j]};
	}
	const struct mrdem_hit_key *sorted = mrdem_search_sort_keys(s, m);
	fr->order = mrdem_search_grow(fr->order, &fr->ordercap, m + 1, sizeof *fr->order);
	fr->orderp = mrdem_search_grow(fr->orderp, &fr->orderpcap, m + 1, sizeof *fr->orderp);
	for (size_t j = 0; j < m; j++) {
		fr->order[j] = sorted[j].i;
		fr->orderp[j] = fr->p[sorted[j].i];
	}
	fr->norder = m;
}

/* The live real pairs in contact at this iterate (s->res2) as hits, in
 * the flat search's order, with the closest points and distance of the
 * comparison kernel, so that contact points, and so forces, do not depend
 * on the kernel that found them: the iterative kernel stops at a point of
 * the closest set, which between nearly parallel faces is not unique.
 * Those the comparison kernel finds apart (the iterative method alone
 * decides unconverged pairs without certificate) are dropped. Not counted
 * as comparisons: the search's work is what the paper counts.
 *
 * merged: the pairs were tested by a hybrid without its fallback, and the
 * undecided ones are compared here with the contacts, in one pass rather
 * than two (a contact found by the fallback was compared twice); their
 * results become the hybrid's (s->res2), counted as its fallbacks. */
static void add_real_hits(struct mrdem_tree_search *s, const struct mrdem_front *fr,
			  const struct mrdem_search_side *a, const struct mrdem_search_side *b,
			  const struct mrdem_narrow_opts *o, int merged, struct mrdem_tri_hits *hits,
			  struct mrdem_narrow_counts *cnt)
{
	const struct mrdem_tree *ta = a->tree, *tb = b->tree;
	int compared = o->method == MRDEM_NARROW_COMPARISON; /* its points are these */
	size_t m = 0, nr = fr->norder;
	/* the pairs to compare, then where their results are in s->res2 */
	s->real = mrdem_search_grow(s->real, &s->real_cap, 3 * nr + 1, sizeof *s->real);
	for (size_t j = 0; j < nr; j++) {
		const struct front_pair *p = &fr->orderp[j];
		uint32_t at = s->slot[fr->order[j]];
		if (at >= NO_RESULT)
			continue;
		int32_t status = s->res2[at].status;
		if (compared) {
			if (status == MRDEM_TRI_CONTACT)
				mrdem_search_add_hit(hits, ta->perm[p->a], tb->perm[p->b], &s->res2[at]);
		} else if (status == MRDEM_TRI_CONTACT || (merged && status == MRDEM_TRI_UNDECIDED)) {
			s->real[2 * m] = p->a;
			s->real[2 * m + 1] = p->b;
			s->real[2 * nr + m] = at;
			m++;
		}
	}
	if (!m)
		return;
	struct mrdem_tri_set ra = {ta->soup, ta->ntris, NULL, a->eps};
	struct mrdem_tri_set rb = {s->soup_b, tb->ntris, NULL, b->eps};
	struct mrdem_narrow_opts exact = *o;
	exact.method = MRDEM_NARROW_COMPARISON;
	struct mrdem_narrow_counts uncounted = {0};
	s->exact = mrdem_search_grow(s->exact, &s->exact_cap, m, sizeof *s->exact);
	mrdem_tri_pairs_test(s->batch, &ra, &rb, s->real, m, &exact, s->exact, &uncounted);
	uint64_t fallbacks = 0;
	for (size_t i = 0; i < m; i++) {
		const struct mrdem_tri_result *x = &s->exact[i];
		struct mrdem_tri_result *r = &s->res2[s->real[2 * nr + i]];
		if (r->status == MRDEM_TRI_UNDECIDED) {
			*r = *x;
			fallbacks++;
		}
		if (x->status == MRDEM_TRI_CONTACT)
			mrdem_search_add_hit(hits, ta->perm[s->real[2 * i]], tb->perm[s->real[2 * i + 1]],
					     x);
	}
	if (fallbacks) {
		/* what the hybrid's spill would have counted */
		cnt->fallbacks += fallbacks;
		cnt->unconverged -= fallbacks;
		cnt->fallback_blocks++;
	}
}

/* Uncertified pairs first, with widened halos: those apart are FAR until
 * the next certificate, the others NEAR. Real pairs only when their
 * kernel certifies SEPARATE (the iterative method alone decides
 * unconverged pairs by an uncertified iterate). */
static void test_uncertified(struct front_iter *it, float inflate)
{
	struct mrdem_tree_search *s = it->s;
	struct mrdem_front *fr = it->fr;
	uint32_t *idx = s->items;
	size_t m = 0;
	int real_certifies = it->o->method != MRDEM_NARROW_ITERATIVE;
	size_t runs = fr->fresh_ok ? fr->nfresh : 1;
	for (size_t r = 0; r < runs; r++) {
		size_t from = fr->fresh_ok ? fr->fresh[2 * r] : 0;
		size_t end = fr->fresh_ok ? fr->fresh[2 * r + 1] : it->n;
		for (size_t k = from; k < end; k++)
			if (fr->p[k].standing == UNCERTIFIED) {
				if (fr->p[k].real && !real_certifies)
					fr->p[k].standing = NEAR;
				else
					idx[m++] = (uint32_t)k;
			}
	}
	test_items(it, idx, NULL, m, it->o, inflate, &it->nres);
	for (size_t j = 0; j < m; j++)
		fr->p[idx[j]].standing =
			found_apart(s, s->slot[idx[j]], fr->p[idx[j]].real) ? FAR : NEAR;
	fr->uncertified = fr->nfresh = 0;
	fr->fresh_ok = 1;
	fr->live_ok = 0;
}

/* Then the front's node pairs, and with them (one call of the kernels)
 * every unfolded pair that may narrow: if it separates at this iterate,
 * no real pair beneath can touch (conservative halos), whatever the
 * surrogates below report, and everything beneath narrows back into it.
 * One with a pinned group or a real contact beneath cannot narrow (the
 * contact proves it is not separate), so it is not tested (HELD in the
 * tally t). */
static void test_nodes(struct front_iter *it, uint32_t *t)
{
	struct mrdem_tree_search *s = it->s;
	struct mrdem_front *fr = it->fr;
	size_t n = it->n, ng = it->ng, m = 0;
	uint32_t *idx = s->items;
	s->item_pairs = mrdem_search_grow(s->item_pairs, &s->item_pairs_cap, fr->nlive + ng + 1,
					  sizeof(struct front_pair));
	struct front_pair *ps = s->item_pairs;
	for (size_t u = 0; u < ng; u++)
		t[PER_GROUP * u + HELD] = fr->g[u].pinned;
	for (size_t j = 0; j < fr->norder; j++) {
		uint32_t k = fr->order[j];
		if (s->slot[k] < NO_RESULT && s->res2[s->slot[k]].status == MRDEM_TRI_CONTACT)
			t[PER_GROUP * fr->orderp[j].group + HELD] = 1;
	}
	propagate_held(fr, t);
	for (size_t j = 0; j < fr->nlive; j++)
		if (!fr->livep[j].real) {
			ps[m] = fr->livep[j];
			idx[m++] = fr->live[j];
		}
	for (size_t u = 0; u < ng; u++)
		if (t[PER_GROUP * u + HELD]) {
			s->slot[n + u] = HELD_SLOT;
		} else {
			ps[m] = item(fr, n, n + u);
			idx[m++] = (uint32_t)(n + u);
		}
	test_items(it, idx, ps, m, it->o, 0, &it->nres);
}

/* Groups first, parents before children: the topmost separate one takes
 * everything beneath it (DEST in t). Its members are certified apart, so
 * their surrogates neither guess nor unfold. Returns whether any
 * narrows. */
static int find_narrowing(const struct front_iter *it, uint32_t *t)
{
	const struct mrdem_front *fr = it->fr;
	int narrowing = 0;
	for (size_t u = 0; u < it->ng; u++) {
		uint32_t at = it->s->slot[it->n + u], parent = fr->g[u].group;
		int apart = found_apart(it->s, at, 0);
		uint32_t above = parent == NO_GROUP ? NO_GROUP : t[PER_GROUP * parent + DEST];
		t[PER_GROUP * u + DEST] = above != NO_GROUP ? above : apart ? (uint32_t)u : NO_GROUP;
		narrowing |= t[PER_GROUP * u + DEST] != NO_GROUP;
	}
	return narrowing;
}

/* Then the live pairs (FAR ones are apart): guesses and unfolding (slot[k]
 * becomes 1 for a pair that unfolds, else 0); real contacts are
 * add_real_hits'. Returns whether any unfolds. */
static int take_live(struct front_iter *it, const uint32_t *t, struct mrdem_tri_hits *guesses)
{
	struct mrdem_tree_search *s = it->s;
	const struct mrdem_front *fr = it->fr;
	int reshaped = 0;
	size_t gfirst = guesses->n;
	for (size_t j = 0; j < fr->nlive; j++) {
		uint32_t k = fr->live[j];
		struct front_pair p = fr->livep[j];
		uint32_t at = s->slot[k];
		s->slot[k] = 0;
		if (at >= NO_RESULT || p.real)
			continue;
		const struct mrdem_tri_result *r = &s->res[at];
		if (r->status == MRDEM_TRI_SEPARATE) {
			it->cnt->pruned++;
		} else if (p.group == NO_GROUP || t[PER_GROUP * p.group + DEST] == NO_GROUP) {
			if (r->status == MRDEM_TRI_CONTACT)
				mrdem_search_add_hit(guesses, p.a, p.b, r);
			s->slot[k] = 1;
			reshaped = 1;
		}
	}
	it->fc->skipped += it->n - fr->nlive;
	it->fc->guesses += guesses->n - gfirst;
	return reshaped;
}

/* The next front, in the order of this one: a narrowed group becomes its
 * pair where its first member was, an unfolded pair its members. */
static void reshape(struct front_iter *it, uint32_t *t)
{
	struct mrdem_tree_search *s = it->s;
	struct mrdem_front *fr = it->fr;
	const struct mrdem_tree *ta = it->a->tree, *tb = it->b->tree;
	size_t n = it->n, nq = 0, from = 0;
	start_next(fr);
	for (size_t k = 0; k < n; k++) {
		const struct front_pair *p = &fr->p[k];
		uint32_t d = p->group == NO_GROUP ? NO_GROUP : t[PER_GROUP * p->group + DEST];
		int unfolds = d == NO_GROUP && p->standing != FAR && s->slot[k];
		if (d == NO_GROUP && !unfolds)
			continue; /* kept as it is, with the run it is in */
		copy_run(fr, &nq, from, k);
		from = k + 1;
		if (unfolds) {
			unfold(fr, &nq, ta, tb, p->a, p->b, p->group, it->fc);
			continue;
		}
		struct front_group *g = &fr->g[d];
		if (!g->dead) {
			g->dead = 1;
			emit(fr, &nq, g->a, g->b, g->group);
			remember(fr, node_key(g->a, g->b));
		}
	}
	copy_run(fr, &nq, from, n);
	for (size_t u = 0; u < it->ng; u++)
		if (t[PER_GROUP * u + DEST] != NO_GROUP) {
			fr->g[u].dead = 1;
			it->fc->narrows++;
		}
	s->tally = mrdem_search_grow(s->tally, &s->tally_cap, fr->ng + 1, sizeof *s->tally);
	compact_groups(fr, s->tally, nq);
	adopt_next(fr, nq);
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
		fr->p[fr->n++] = (struct front_pair){0, 0, NO_GROUP, 0, UNCERTIFIED};
		fr->uncertified = 1;
		fr->live_ok = fr->fresh_ok = 0;
	}
	struct front_iter it = {s, fr, a, b, xb, o, cnt, fc, 0, fr->n, fr->ng, 0};
	it.reach = mrdem_search_prepare(s, a, b, o->simd);
	float inflate = certify(fr, tb, xb, a->eps + b->eps, fc);
	size_t n = fr->n, ng = fr->ng;
	fc->size += n;
	s->slot = mrdem_search_grow(s->slot, &s->slot_cap, n + ng, sizeof *s->slot);
	s->items = mrdem_search_grow(s->items, &s->items_cap, n + ng, sizeof *s->items);
	if (fr->uncertified)
		test_uncertified(&it, inflate);
	if (!fr->live_ok)
		list_live(s, fr, ta, tb);
	/* Then the front's other pairs with the true halos, its real pairs
	 * first (in the order of their triangles): their contacts decide
	 * which unfolded pairs may narrow, and become hits (add_real_hits). */
	int merged = o->method == MRDEM_NARROW_HYBRID && o->fallback;
	struct mrdem_narrow_opts real_opts = *o;
	real_opts.fallback = !merged && o->fallback;
	it.nres = 0;
	test_items(&it, fr->order, fr->orderp, fr->norder, &real_opts, 0, &it.nres);
	add_real_hits(s, fr, a, b, o, merged, hits, &cnt->real);
	s->tally = mrdem_search_grow(s->tally, &s->tally_cap, PER_GROUP * ng + 1, sizeof *s->tally);
	uint32_t *t = s->tally;
	test_nodes(&it, t);
	int narrowing = find_narrowing(&it, t);
	int reshaped = take_live(&it, t, guesses);
	/* Unchanged when nothing unfolded or narrowed. */
	if (!reshaped && !narrowing)
		return;
	if (!narrowing)
		unfold_in_place(fr, ta, tb, fr->live, fr->nlive, s->slot, fc);
	else
		reshape(&it, t);
}
