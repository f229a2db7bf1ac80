#include "common/narrow/contacts/particle_contacts.h"

#include <math.h>
#include <stddef.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/narrow/contacts/merge.h"
#include "common/scene/id_index.h"
#include "common/geom/vec3.h"
#include "common/geom/xform.h"
#include "common/tree/tree.h"
#include "common/util/error.h"
#include "common/util/hash.h"
#include "common/util/stages.h"
#include "common/util/simd.h"
#include "common/util/threads.h"

/* One pair to examine: particle ia with particle ib, or with analytic
 * plane `plane`, and its front (multiscale); then the thread that took
 * it and where its contacts and guesses are in that thread's output. */
struct pair_job {
	size_t ia, ib;             /* frame indices; ib: only with a particle */
	int with_plane;
	uint32_t plane;
	struct mrdem_front *front;
	int settle;                /* the front kept across calls: settled at the pose */
	struct mrdem_feature_pair *track; /* two convex shapes: the warm start kept */
	int worker;
	size_t first, n, gfirst, gn;
};

/* Scratch of one thread. */
struct worker {
	struct mrdem_tri_batch *batch;
	struct mrdem_analytic_scratch *analytic;
	struct mrdem_tree_search *search;
	struct mrdem_tri_hits hits, guesses;
	/* the merged contacts (and guesses) of the pairs this thread took in
	 * one call, each pair's a slice (struct pair_job), so memory follows the
	 * contacts found, not a worst case per pair */
	struct mrdem_contacts out, gout;
	struct mrdem_merge_scratch merge;
	float *mapped;
	size_t mapped_cap;
	/* exact_points: the hits' triangles side by side, index pairs, results */
	float *ex_a, *ex_b;
	uint32_t *ex_pairs;
	struct mrdem_tri_result *ex_res;
	size_t ex_cap;
	struct mrdem_contact_counts cnt;
	/* wall time of this thread in one call: particle pairs' searches
	 * (kernels included), their contact points, plane pairs */
	double search_s, points_s, plane_s;
};

/* Float triangles of one shape in mesh order (paper remark 2). */
struct soup {
	const struct mrdem_mesh *mesh; /* the mesh it was made from */
	float *v;
	uint32_t *vertex_tri;          /* a triangle using each vertex */
};

/* The closest features of each convex pair in the last call, by particle
 * ids: the warm start of the next (open addressing, rebuilt per call with
 * the call's pairs only). */
struct convex_entry {
	uint64_t a, b;
	struct mrdem_feature_pair fp;
	int full;
};
struct convex_cache {
	struct convex_entry *e;
	size_t cap; /* a power of two, or 0 */
};

struct mrdem_contact_finder {
	int nworkers;
	double work_s; /* the last call's pair seconds, all threads together */
	struct convex_cache convex;
	struct worker *w;
	uint32_t nsoups;
	struct soup *soups;
	struct mrdem_id_index index;
	struct mrdem_front_store *kept; /* keep_fronts: the fronts of the last call */
	struct pair_job *jobs;      /* the pairs of the call, kept for the next */
	size_t jobs_cap;
	struct mrdem_stage_log log; /* since the last mrdem_contact_finder_take_log */
};

struct mrdem_contact_finder *mrdem_contact_finder_new(void)
{
	struct mrdem_contact_finder *f = mrdem_xcalloc(1, sizeof *f);
	f->nworkers = omp_get_max_threads();
	f->work_s = INFINITY; /* unknown: the first call shares its pairs out */
	f->w = mrdem_xcalloc(f->nworkers, sizeof *f->w);
	for (int t = 0; t < f->nworkers; t++) {
		f->w[t].batch = mrdem_tri_batch_new();
		f->w[t].analytic = mrdem_analytic_scratch_new();
		f->w[t].search = mrdem_tree_search_new();
		mrdem_tri_hits_init(&f->w[t].hits);
		mrdem_tri_hits_init(&f->w[t].guesses);
		mrdem_contacts_init(&f->w[t].out);
		mrdem_contacts_init(&f->w[t].gout);
	}
	mrdem_id_index_init(&f->index);
	return f;
}

static void release_soups(struct mrdem_contact_finder *f)
{
	for (uint32_t i = 0; i < f->nsoups; i++) {
		free(f->soups[i].v);
		free(f->soups[i].vertex_tri);
	}
	free(f->soups);
	f->soups = NULL;
	f->nsoups = 0;
}

void mrdem_contact_finder_free(struct mrdem_contact_finder *f)
{
	if (!f)
		return;
	for (int t = 0; t < f->nworkers; t++) {
		mrdem_tri_batch_free(f->w[t].batch);
		mrdem_analytic_scratch_free(f->w[t].analytic);
		mrdem_tree_search_free(f->w[t].search);
		mrdem_tri_hits_release(&f->w[t].hits);
		mrdem_tri_hits_release(&f->w[t].guesses);
		mrdem_contacts_release(&f->w[t].out);
		mrdem_contacts_release(&f->w[t].gout);
		mrdem_merge_scratch_release(&f->w[t].merge);
		free(f->w[t].mapped);
		free(f->w[t].ex_a);
		free(f->w[t].ex_b);
		free(f->w[t].ex_pairs);
		free(f->w[t].ex_res);
	}
	free(f->w);
	free(f->jobs);
	mrdem_front_store_free(f->kept);
	release_soups(f);
	mrdem_id_index_release(&f->index);
	free(f->convex.e);
	free(f);
}

/* (Re)build the float soups when the scene's shapes changed. */
static void prepare_soups(struct mrdem_contact_finder *f, const struct mrdem_scene *s)
{
	int same = f->nsoups == s->nshapes;
	for (uint32_t i = 0; same && i < s->nshapes; i++)
		same = f->soups[i].mesh == &s->shapes[i].mesh;
	if (same)
		return;
	release_soups(f);
	f->nsoups = s->nshapes;
	f->soups = mrdem_xcalloc(s->nshapes ? s->nshapes : 1, sizeof *f->soups);
	for (uint32_t i = 0; i < s->nshapes; i++) {
		const struct mrdem_mesh *m = &s->shapes[i].mesh;
		struct soup *p = &f->soups[i];
		p->mesh = m;
		p->v = mrdem_xmalloc_array(9 * (size_t)m->ntris, sizeof *p->v);
		p->vertex_tri = mrdem_xmalloc_array(m->nverts ? m->nverts : 1, sizeof *p->vertex_tri);
		for (uint32_t v = 0; v < m->nverts; v++)
			p->vertex_tri[v] = UINT32_MAX;
		for (uint32_t t = 0; t < m->ntris; t++)
			for (int c = 0; c < 3; c++) {
				uint32_t v = m->tris[3 * t + c];
				if (p->vertex_tri[v] == UINT32_MAX)
					p->vertex_tri[v] = t;
				for (int k = 0; k < 3; k++)
					p->v[9 * (size_t)t + 3 * c + k] = (float)m->verts[3 * v + k];
			}
	}
}

/* The closest points and distance of every hit of w->hits (mesh triangle
 * indices of a's soup and of b's, b mapped by x) anew from the
 * comparison kernel, so that contact points, and so forces, do not depend
 * on the kernel that found the hits: the iterative kernel stops at a
 * point of the closest set, which between nearly parallel faces is not
 * unique. Hits the comparison kernel finds apart (the iterative method
 * alone decides unconverged pairs without certificate) are dropped. Not
 * counted as comparisons: the search's work is what the paper counts. */
static void exact_points(struct worker *w, const float *soup_a, const float *soup_b,
			 const struct mrdem_xform *x, float ea, float eb,
			 const struct mrdem_narrow_opts *o)
{
	size_t n = w->hits.n;
	if (!n)
		return;
	if (n > w->ex_cap) {
		w->ex_a = mrdem_xrealloc(w->ex_a, 9 * n * sizeof *w->ex_a);
		w->ex_b = mrdem_xrealloc(w->ex_b, 9 * n * sizeof *w->ex_b);
		w->ex_pairs = mrdem_xrealloc(w->ex_pairs, 2 * n * sizeof *w->ex_pairs);
		w->ex_res = mrdem_xrealloc(w->ex_res, n * sizeof *w->ex_res);
		w->ex_cap = n;
	}
	for (size_t i = 0; i < n; i++) {
		const struct mrdem_tri_hit *h = &w->hits.h[i];
		memcpy(&w->ex_a[9 * i], &soup_a[9 * (size_t)h->ta], 9 * sizeof(float));
		xform_apply_tris(x, &soup_b[9 * (size_t)h->tb], &w->ex_b[9 * i], 1);
		w->ex_pairs[2 * i] = w->ex_pairs[2 * i + 1] = (uint32_t)i;
	}
	struct mrdem_tri_set A = {w->ex_a, (uint32_t)n, NULL, ea}, B = {w->ex_b, (uint32_t)n, NULL, eb};
	struct mrdem_narrow_opts exact = *o;
	exact.method = MRDEM_NARROW_COMPARISON;
	struct mrdem_narrow_counts uncounted = {0};
	mrdem_tri_pairs_test(w->batch, &A, &B, w->ex_pairs, n, &exact, w->ex_res, &uncounted);
	size_t kept = 0;
	for (size_t i = 0; i < n; i++) {
		const struct mrdem_tri_result *r = &w->ex_res[i];
		if (r->status != MRDEM_TRI_CONTACT)
			continue;
		struct mrdem_tri_hit *h = &w->hits.h[kept++];
		*h = w->hits.h[i];
		memcpy(h->pa, r->pa, sizeof h->pa);
		memcpy(h->pb, r->pb, sizeof h->pb);
		h->dist = r->dist;
	}
	w->hits.n = kept;
}

/* The contact decision of two convex shapes: 1 when they are further
 * apart than their halos (widened by a margin above the float kernels'
 * rounding, so that the triangle search never finds a contact the
 * decision ruled out), by the distance of the closest features tracked
 * from *fp (NULL: a cold start, nothing kept). */
static int convex_apart(struct worker *w, const struct mrdem_shape *sa,
			const struct mrdem_shape *sb, const struct mrdem_xform *x, double halos,
			struct mrdem_feature_pair *fp)
{
	struct mrdem_feature_pair cold = {0};
	struct mrdem_convex_result r;
	mrdem_convex_distance(sa->convex, sb->convex, x, fp ? fp : &cold, &r);
	w->cnt.convex.pairs++;
	w->cnt.convex.steps += (uint64_t)r.steps;
	w->cnt.convex.fallbacks += (uint64_t)r.fallback;
	double margin = 1e-5 * (sa->convex->radius + sb->convex->radius);
	if (r.dist <= halos + margin)
		return 0;
	w->cnt.convex.apart++;
	return 1;
}

/* The hits of a front kept across calls, settled at pose x: the
 * surrogate search's (Lemma 5.7), sorted, with the comparison kernel's
 * points. Returns 0 when it did not settle (the front back at the roots,
 * for the next call): the caller searches from the roots. */
static int settled_front(struct worker *w, struct mrdem_front *front, const struct mrdem_shape *sa,
			 const struct mrdem_shape *sb, float ea, float eb,
			 const struct mrdem_xform *x, const struct mrdem_contact_opts *o)
{
	struct mrdem_search_side A = {sa->tree, ea}, B = {sb->tree, eb};
	if (mrdem_front_settle(w->search, front, &A, &B, x, &o->narrow, &w->hits, &w->guesses,
			       &w->cnt.search, &w->cnt.front) > 0)
		return 1;
	mrdem_front_reset(front);
	return 0;
}

/* Contacts of job j's particles into w->out, and with a front
 * (multiscale) its guesses into w->gout. */
static void particle_pair(struct worker *w, const struct mrdem_scene *s,
			  const struct mrdem_contact_finder *f, const struct mrdem_contact_opts *o,
			  const struct pair_job *j)
{
	size_t ia = j->ia, ib = j->ib;
	struct mrdem_front *front = j->front;
	struct mrdem_feature_pair *track = j->track;
	struct mrdem_contacts *out = &w->out, *guess = &w->gout;
	const struct mrdem_particles *p = &s->frame.p;
	const struct mrdem_shape *sa = &s->shapes[p->shape[ia]], *sb = &s->shapes[p->shape[ib]];
	if (sa->kind != MRDEM_SHAPE_MESH || sb->kind != MRDEM_SHAPE_MESH) {
		/* the kernels of analytic kinds (their dispatch table) */
		double t0 = mrdem_clock();
		size_t first = out->n;
		w->cnt.particle_pairs++;
		mrdem_analytic_pair(w->analytic, s, ia, ib, o->hierarchy == MRDEM_HIERARCHY_SURROGATE,
				    out, &w->cnt.analytic);
		w->cnt.hits += out->n - first;
		if (o->merge && (sa->kind == MRDEM_SHAPE_MESH || sb->kind == MRDEM_SHAPE_MESH))
			mrdem_merge_close(&w->merge, out, first, 0.5 * (p->eps[ia] + p->eps[ib]));
		w->search_s += mrdem_clock() - t0;
		return;
	}
	struct mrdem_xform x;
	xform_relative(&x, &p->pos[3 * ia], &p->quat[4 * ia], sa->mesh.mass.com, &p->pos[3 * ib],
		       &p->quat[4 * ib], sb->mesh.mass.com);
	float ea = (float)p->eps[ia], eb = (float)p->eps[ib];
	double t0 = mrdem_clock();
	int exact_done = o->narrow.method == MRDEM_NARROW_COMPARISON; /* its points are these */
	int unsorted = 0; /* hits not (yet) in (ta, tb) order */
	w->hits.n = w->guesses.n = 0;
	w->cnt.particle_pairs++;
	int settle = front && j->settle;
	if (sa->convex && sb->convex && (!front || settle) &&
	    convex_apart(w, sa, sb, &x, (double)ea + (double)eb, track)) {
		w->search_s += mrdem_clock() - t0;
		return;
	}
	if (front && !settle) {
		struct mrdem_search_side A = {sa->tree, ea}, B = {sb->tree, eb};
		mrdem_front_search(w->search, front, &A, &B, &x, &o->narrow, &w->hits, &w->guesses,
				   &w->cnt.search, &w->cnt.front);
		exact_done = 1; /* its hits have the comparison kernel's points */
	} else if (settle && settled_front(w, front, sa, sb, ea, eb, &x, o)) {
		exact_done = 1; /* sorted, with the comparison kernel's points */
	} else if (o->hierarchy == MRDEM_HIERARCHY_SURROGATE) {
		/* its last round takes the contacts' points from the comparison
		 * kernel in passing: exact_points' work, without its gather */
		struct mrdem_search_side A = {sa->tree, ea}, B = {sb->tree, eb};
		struct mrdem_narrow_opts exact = o->narrow;
		exact.exact_contacts = 1;
		/* sorted by the merge, where its result depends on the order */
		mrdem_tree_search_unsorted(w->search, &A, &B, &x, &exact, &w->hits,
					   &w->cnt.search);
		exact_done = 1;
		unsorted = 1;
	} else {
		size_t need = 9 * (size_t)sb->mesh.ntris;
		if (w->mapped_cap < need) {
			w->mapped = mrdem_xrealloc(w->mapped, need * sizeof *w->mapped);
			w->mapped_cap = need;
		}
		xform_apply_tris(&x, f->soups[p->shape[ib]].v, w->mapped, sb->mesh.ntris);
		struct mrdem_tri_set A = {f->soups[p->shape[ia]].v, sa->mesh.ntris, NULL, ea};
		struct mrdem_tri_set B = {w->mapped, sb->mesh.ntris, NULL, eb};
		mrdem_tri_all_pairs(w->batch, &A, &B, &o->narrow, &w->hits, &w->cnt.search.real);
	}
	double t1 = mrdem_clock();
	w->cnt.hits += w->hits.n;
	if (!exact_done)
		exact_points(w, f->soups[p->shape[ia]].v, f->soups[p->shape[ib]].v, &x, ea, eb,
			     &o->narrow);
	struct mrdem_hit_frame hf;
	mrdem_hit_frame_init(&hf, s, ia, ib, &x, f->soups[p->shape[ib]].v, NULL, NULL);
	mrdem_hits_to_contacts(&hf, &w->hits, o->merge ? &w->merge : NULL,
			       0.5 * (p->eps[ia] + p->eps[ib]), o->narrow.simd,
			       unsorted ? w->search : NULL, out);
	if (front && !settle) {
		mrdem_hit_frame_init(&hf, s, ia, ib, &x, NULL, sa->tree, sb->tree);
		mrdem_hits_to_contacts(&hf, &w->guesses, NULL, 0, o->narrow.simd, NULL, guess);
	}
	w->search_s += t1 - t0;
	w->points_s += mrdem_clock() - t1;
}

/* Particle ia against analytic plane k: every vertex within reach of the
 * plane is a contact (the distance from a triangle to a plane is smallest
 * at a vertex), sorted by vertex. Below the plane the distance is negative
 * and the depth larger than both halos. */
static void plane_pair(struct worker *w, const struct mrdem_scene *s,
		       const struct mrdem_contact_finder *f, size_t ia, uint32_t k,
		       const struct mrdem_contact_opts *o, struct mrdem_contacts *out)
{
	const struct mrdem_particles *p = &s->frame.p;
	const struct mrdem_mesh *m = &s->shapes[p->shape[ia]].mesh;
	const struct mrdem_plane *pl = &s->setup.planes[k];
	double ea = p->eps[ia], ep = s->setup.plane_epsilon, reach = ea + ep, r[9];
	double t0 = mrdem_clock();
	if (s->shapes[p->shape[ia]].kind != MRDEM_SHAPE_MESH) { /* closed form */
		size_t before = out->n;
		w->cnt.plane_pairs++;
		w->cnt.plane_tests++;
		mrdem_analytic_plane(s, ia, k, out);
		w->cnt.hits += out->n - before;
		w->plane_s += mrdem_clock() - t0;
		return;
	}
	quat_to_matrix(&p->quat[4 * ia], r);
	size_t first = out->n;
	w->cnt.plane_pairs++;
	w->cnt.plane_tests += m->nverts;
	for (uint32_t v = 0; v < m->nverts; v++) {
		double rel[3], xw[3];
		vec3_sub(rel, &m->verts[3 * v], m->mass.com);
		mat3_apply(xw, r, rel);
		vec3_add(xw, xw, &p->pos[3 * ia]);
		double d[3];
		vec3_sub(d, xw, pl->point);
		double dist = vec3_dot(d, pl->normal);
		if (dist > reach)
			continue;
		w->cnt.hits++;
		struct mrdem_contact *c = mrdem_contacts_push(out);
		c->a = p->id[ia];
		c->b = MRDEM_PLANE_ID(k);
		c->tri_a = f->soups[p->shape[ia]].vertex_tri[v];
		c->tri_b = UINT32_MAX;
		vec3_axpy(c->x, xw, -0.5 * (dist + ea - ep), pl->normal);
		vec3_copy(c->normal, pl->normal);
		c->dist = dist;
		c->depth = ea + ep - dist;
	}
	if (o->merge)
		mrdem_merge_close(&w->merge, out, first, 0.5 * (ea + ep));
	w->plane_s += mrdem_clock() - t0;
}

/* Room for one more job in f->jobs (n of them so far). */
static struct pair_job *push_job(struct mrdem_contact_finder *f, size_t n)
{
	if (n == f->jobs_cap) {
		f->jobs_cap = f->jobs_cap ? 2 * f->jobs_cap : 64;
		f->jobs = mrdem_xrealloc(f->jobs, f->jobs_cap * sizeof *f->jobs);
	}
	struct pair_job *j = &f->jobs[n];
	*j = (struct pair_job){0};
	return j;
}

static void push_pair(struct mrdem_contact_finder *f, size_t *n, size_t a, size_t b)
{
	struct pair_job *j = push_job(f, (*n)++);
	j->ia = a;
	j->ib = b;
}

static void push_plane(struct mrdem_contact_finder *f, size_t *n, size_t a, uint32_t k)
{
	struct pair_job *j = push_job(f, (*n)++);
	j->ia = a;
	j->with_plane = 1;
	j->plane = k;
}

/* Every pair of particles that are not both fixed, and every particle
 * that is not fixed with every plane. */
static size_t collect_all(struct mrdem_contact_finder *f, const struct mrdem_scene *s)
{
	const struct mrdem_particles *p = &s->frame.p;
	size_t n = 0;
	for (size_t a = 0; a < p->n; a++) {
		int fa = p->flags[a] & MRDEM_PARTICLE_FIXED;
		for (size_t b = a + 1; b < p->n; b++)
			if (!fa || !(p->flags[b] & MRDEM_PARTICLE_FIXED))
				push_pair(f, &n, a, b);
		for (uint32_t k = 0; k < s->setup.nplanes && !fa; k++)
			push_plane(f, &n, a, k);
	}
	return n;
}

/* The listed pairs by particle ids (a plane's: MRDEM_PLANE_ID). */
static int collect_listed(struct mrdem_contact_finder *f, const struct mrdem_scene *s,
			  const struct mrdem_pairs *pairs, size_t *njobs)
{
	const struct mrdem_particles *p = &s->frame.p;
	size_t n = 0;
	if (mrdem_id_index_build(&f->index, p))
		return -1;
	for (size_t i = 0; i < pairs->n; i++) {
		uint64_t ida = pairs->p[i].a, idb = pairs->p[i].b;
		size_t a = mrdem_id_index_find(&f->index, ida), b = MRDEM_NO_INDEX;
		if (a != MRDEM_NO_INDEX && mrdem_is_plane_id(idb)) {
			uint32_t k = mrdem_plane_index(idb);
			if (k >= s->setup.nplanes)
				return mrdem_error("pair %zu refers to plane %llu, but the setup "
						   "has %u planes", i, (unsigned long long)k,
						   s->setup.nplanes);
			push_plane(f, &n, a, k);
			continue;
		}
		if (a != MRDEM_NO_INDEX)
			b = mrdem_id_index_find(&f->index, idb);
		if (a == MRDEM_NO_INDEX || b == MRDEM_NO_INDEX)
			return mrdem_error("pair %zu refers to particle %llu, which the frame (step "
					   "%llu) does not have", i,
					   (unsigned long long)(a == MRDEM_NO_INDEX ? ida : idb),
					   (unsigned long long)s->frame.step);
		if (a == b)
			return mrdem_error("pair %zu pairs particle %llu with itself", i,
					   (unsigned long long)ida);
		push_pair(f, &n, a, b);
	}
	*njobs = n;
	return 0;
}

/* The call's jobs into f->jobs (its room kept between calls: a list of
 * this size is a large request for malloc, which consolidates its free
 * chunks first, every Picard iteration). */
static int collect_jobs(struct mrdem_contact_finder *f, const struct mrdem_scene *s,
			const struct mrdem_pairs *pairs, size_t *njobs)
{
	if (pairs)
		return collect_listed(f, s, pairs, njobs);
	*njobs = collect_all(f, s);
	return 0;
}

/* The call's times and work into f->log. Parallel stages: the threads'
 * wall seconds summed and divided by the threads of the loop (the mean
 * thread), so that they add up to at most the loop's wall time. */
static void account(struct mrdem_contact_finder *f, int threads, size_t contacts, double collate_s,
		    double wall)
{
	struct mrdem_stage_log *l = &f->log;
	struct mrdem_narrow_counts all = {0};
	uint64_t particle_pairs = 0, plane_pairs = 0, hits = 0;
	double search = 0, points = 0, plane = 0;
	for (int t = 0; t < f->nworkers; t++) {
		const struct worker *w = &f->w[t];
		mrdem_search_counts_total(&w->cnt.search, &all);
		particle_pairs += w->cnt.particle_pairs;
		plane_pairs += w->cnt.plane_pairs;
		hits += w->cnt.hits;
		search += w->search_s;
		points += w->points_s;
		plane += w->plane_s;
	}
	f->work_s = search + points + plane;
	double per = 1.0 / threads;
	l->seconds[MRDEM_STAGE_SEARCH] += per * (search - all.kernel_s);
	l->seconds[MRDEM_STAGE_KERNELS] += per * (all.kernel_s - all.fallback_s + plane);
	l->seconds[MRDEM_STAGE_FALLBACK] += per * all.fallback_s;
	l->seconds[MRDEM_STAGE_MERGE] += per * points + collate_s;
	l->seconds[MRDEM_STAGE_PARALLEL] += wall - per * (search + plane + points) - collate_s;
	l->calls[MRDEM_STAGE_PARALLEL]++;
	l->calls[MRDEM_STAGE_SEARCH] += particle_pairs;
	l->calls[MRDEM_STAGE_KERNELS] += all.kernel_calls + plane_pairs;
	l->calls[MRDEM_STAGE_FALLBACK] += all.fallback_blocks;
	l->calls[MRDEM_STAGE_MERGE] += particle_pairs;
	l->pairs += particle_pairs + plane_pairs;
	l->comparisons += all.comparisons;
	l->hits += hits;
	l->contacts += contacts;
}

void mrdem_contact_finder_take_log(struct mrdem_contact_finder *f, struct mrdem_stage_log *into)
{
	mrdem_stage_log_add(into, &f->log);
	memset(&f->log, 0, sizeof f->log);
}

static struct convex_entry *convex_slot(const struct convex_cache *c, uint64_t a, uint64_t b)
{
	size_t i = mrdem_mix64(a * 0x9e3779b97f4a7c15ULL ^ b) & (c->cap - 1);
	while (c->e[i].full && (c->e[i].a != a || c->e[i].b != b))
		i = (i + 1) & (c->cap - 1);
	return &c->e[i];
}

/* Each job of two convex shapes gets its entry in a new cache holding
 * this call's pairs, with the features the old one kept for the pair
 * (cold when none, or for a pair listed twice). */
static void bind_convex(struct mrdem_contact_finder *f, const struct mrdem_scene *s,
			struct pair_job *jobs, size_t njobs)
{
	const struct mrdem_particles *p = &s->frame.p;
	size_t n = 0;
	for (size_t i = 0; i < njobs; i++)
		n += !jobs[i].with_plane && s->shapes[p->shape[jobs[i].ia]].convex &&
		     s->shapes[p->shape[jobs[i].ib]].convex;
	struct convex_cache fresh = {NULL, 16};
	while (fresh.cap < 2 * n)
		fresh.cap *= 2;
	fresh.e = n ? mrdem_xcalloc(fresh.cap, sizeof *fresh.e) : NULL;
	for (size_t i = 0; n && i < njobs; i++) {
		struct pair_job *j = &jobs[i];
		if (j->with_plane || !s->shapes[p->shape[j->ia]].convex ||
		    !s->shapes[p->shape[j->ib]].convex)
			continue;
		uint64_t a = p->id[j->ia], b = p->id[j->ib];
		struct convex_entry *e = convex_slot(&fresh, a, b);
		if (e->full)
			continue; /* listed twice: the second starts cold */
		*e = (struct convex_entry){.a = a, .b = b, .full = 1};
		if (f->convex.e) {
			const struct convex_entry *old = convex_slot(&f->convex, a, b);
			if (old->full)
				e->fp = old->fp;
		}
		j->track = &e->fp;
	}
	free(f->convex.e);
	f->convex = fresh;
	if (!n)
		f->convex.cap = 0;
}

/* keep_fronts: each job of two meshes gets its front of the last call
 * (one at the roots when it had none); fronts of pairs this call does not
 * list are dropped, so that they follow the pairs, not every pair ever
 * listed. */
static void claim_kept(struct mrdem_contact_finder *f, const struct mrdem_scene *s,
		       struct pair_job *jobs, size_t njobs)
{
	const struct mrdem_particles *p = &s->frame.p;
	if (!f->kept)
		f->kept = mrdem_front_store_new();
	mrdem_front_store_new_step(f->kept, 1);
	for (size_t i = 0; i < njobs; i++) {
		struct pair_job *j = &jobs[i];
		if (j->with_plane || s->shapes[p->shape[j->ia]].kind != MRDEM_SHAPE_MESH ||
		    s->shapes[p->shape[j->ib]].kind != MRDEM_SHAPE_MESH)
			continue;
		j->front = mrdem_front_store_claim(f->kept, s, j->ia, j->ib);
		j->settle = 1;
	}
}

/* The slices of the jobs, in job order, into out. */
static void collate(const struct mrdem_contact_finder *f, const struct pair_job *jobs, size_t njobs,
		    int guesses, struct mrdem_contacts *out)
{
	out->n = 0;
	for (size_t i = 0; i < njobs; i++) {
		const struct worker *w = &f->w[jobs[i].worker];
		const struct mrdem_contacts *from = guesses ? &w->gout : &w->out;
		size_t first = guesses ? jobs[i].gfirst : jobs[i].first;
		size_t n = guesses ? jobs[i].gn : jobs[i].n;
		for (size_t k = 0; k < n; k++)
			*mrdem_contacts_push(out) = from->c[first + k];
	}
}

/* Job j on worker t's scratch. */
static void run_job(struct mrdem_contact_finder *f, const struct mrdem_scene *s,
		    const struct mrdem_contact_opts *o, struct pair_job *j, int t)
{
	struct worker *w = &f->w[t];
	j->worker = t;
	j->first = w->out.n;
	j->gfirst = w->gout.n;
	if (j->with_plane)
		plane_pair(w, s, f, j->ia, j->plane, o, &w->out);
	else
		particle_pair(w, s, f, o, j);
	j->n = w->out.n - j->first;
	j->gn = w->gout.n - j->gfirst;
}

static int find(struct mrdem_contact_finder *f, const struct mrdem_scene *s,
		const struct mrdem_pairs *pairs, const struct mrdem_contact_opts *o,
		struct mrdem_front_store *fronts, struct mrdem_contacts *out,
		struct mrdem_contacts *guesses, struct mrdem_contact_counts *cnt)
{
	if (mrdem_narrow_opts_check(&o->narrow))
		return -1;
	struct mrdem_contact_opts ro = *o;
	/* Only meshes have trees: analytic shapes need none. */
	if (ro.hierarchy == MRDEM_HIERARCHY_AUTO) {
		ro.hierarchy = MRDEM_HIERARCHY_SURROGATE;
		for (uint32_t i = 0; i < s->nshapes; i++)
			if (s->shapes[i].kind == MRDEM_SHAPE_MESH && !s->shapes[i].tree)
				ro.hierarchy = MRDEM_HIERARCHY_FLAT;
	}
	o = &ro;
	if (o->hierarchy == MRDEM_HIERARCHY_MULTISCALE && mrdem_scene_has_analytic(s))
		return mrdem_error("the multiscale hierarchy searches fronts of two surrogate "
				   "trees; analytic shapes have none: use the flat or surrogate "
				   "hierarchy with them");
	if (o->hierarchy != MRDEM_HIERARCHY_FLAT)
		for (uint32_t i = 0; i < s->nshapes; i++)
			if (s->shapes[i].kind == MRDEM_SHAPE_MESH && !s->shapes[i].tree)
				return mrdem_error("shape %u '%s' has no surrogate tree (run mrdem-tree "
						   "first, or use the flat hierarchy)",
						   i, s->shapes[i].name);
	double t_start = mrdem_clock();
	prepare_soups(f, s);
	size_t njobs = 0;
	if (collect_jobs(f, s, pairs, &njobs))
		return -1;
	struct pair_job *jobs = f->jobs;
	if (!fronts)
		bind_convex(f, s, jobs, njobs);
	if (!fronts && o->keep_fronts && o->hierarchy == MRDEM_HIERARCHY_SURROGATE)
		claim_kept(f, s, jobs, njobs);
	if (fronts)
		for (size_t i = 0; i < njobs; i++)
			if (!jobs[i].with_plane && mrdem_front_store_bind(fronts, s, jobs[i].ia,
									  jobs[i].ib, &jobs[i].front))
				return -1;
	for (int t = 0; t < f->nworkers; t++) {
		memset(&f->w[t].cnt, 0, sizeof f->w[t].cnt);
		f->w[t].search_s = f->w[t].points_s = f->w[t].plane_s = 0;
		f->w[t].out.n = f->w[t].gout.n = 0;
	}
	/* Enough pairs to share out: each worker's scratch is its own. One
	 * thread runs them without entering OpenMP (threads.h: a region of
	 * one thread still costs a system call), and so do pairs whose work
	 * the last call found too little to pay for waking a thread (the
	 * pairs change little from one step to the next). */
	int threads = njobs > 1 && f->work_s >= MRDEM_PARALLEL_MIN_SECONDS ? f->nworkers : 1;
	int team = 1;
	if (threads == 1) {
		for (size_t i = 0; i < njobs; i++)
			run_job(f, s, o, &jobs[i], 0);
	} else {
#pragma omp parallel num_threads(threads)
		{
#pragma omp master
			team = omp_get_num_threads();
#pragma omp for schedule(dynamic, 1)
			for (size_t i = 0; i < njobs; i++)
				run_job(f, s, o, &jobs[i], omp_get_thread_num());
		}
	}
	double t0 = mrdem_clock();
	collate(f, jobs, njobs, 0, out);
	out->step = s->frame.step;
	if (guesses) {
		collate(f, jobs, njobs, 1, guesses);
		guesses->step = s->frame.step;
	}
	double t1 = mrdem_clock();
	account(f, team, out->n, t1 - t0, t1 - t_start);
	if (cnt) {
		memset(cnt, 0, sizeof *cnt);
		for (int t = 0; t < f->nworkers; t++) {
			const struct mrdem_contact_counts *c = &f->w[t].cnt;
			mrdem_search_counts_add(&cnt->search, &c->search);
			mrdem_front_counts_add(&cnt->front, &c->front);
			mrdem_analytic_counts_add(&cnt->analytic, &c->analytic);
			mrdem_convex_counts_add(&cnt->convex, &c->convex);
			cnt->particle_pairs += c->particle_pairs;
			cnt->plane_pairs += c->plane_pairs;
			cnt->plane_tests += c->plane_tests;
			cnt->hits += c->hits;
		}
		cnt->contacts = out->n;
	}
	return 0;
}

int mrdem_find_contacts(struct mrdem_contact_finder *f, const struct mrdem_scene *s,
			const struct mrdem_pairs *pairs, const struct mrdem_contact_opts *o,
			struct mrdem_contacts *out, struct mrdem_contact_counts *cnt)
{
	if (o->hierarchy == MRDEM_HIERARCHY_MULTISCALE)
		return mrdem_error("the multiscale hierarchy (Alg. 6) searches within the Picard "
				   "loop of implicit Euler: use mrdem-run --scheme implicit-euler "
				   "--hierarchy multiscale, or flat/surrogate here");
	return find(f, s, pairs, o, NULL, out, NULL, cnt);
}

int mrdem_find_contacts_multiscale(struct mrdem_contact_finder *f, const struct mrdem_scene *s,
				   const struct mrdem_pairs *pairs,
				   const struct mrdem_contact_opts *o,
				   struct mrdem_front_store *fronts, struct mrdem_contacts *out,
				   struct mrdem_contacts *guesses,
				   struct mrdem_contact_counts *cnt)
{
	struct mrdem_contact_opts ro = *o;
	ro.hierarchy = MRDEM_HIERARCHY_MULTISCALE;
	return find(f, s, pairs, &ro, fronts, out, guesses, cnt);
}
