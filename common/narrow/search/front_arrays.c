/* The front as arrays, as the fronts record holds them: saved, loaded
 * with its structure checked, and checked against the trees. */
#include "common/narrow/search/front_search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/narrow/search/front_private.h"
#include "common/narrow/search/search_scratch.h"
#include "common/util/error.h"

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
		v[0] = p->a, v[1] = p->b, v[2] = p->group, v[3] = p->real, v[4] = p->standing;
	}
	for (size_t u = 0; u < fr->ng; u++) {
		const struct front_group *g = &fr->g[u];
		uint32_t *v = &out->groups[MRDEM_FRONT_GROUP_VALUES * u];
		v[0] = g->a, v[1] = g->b, v[2] = g->group, v[3] = g->members, v[4] = g->pinned;
	}
	if (fr->nmem)
		memcpy(out->memory, fr->memory, fr->nmem * sizeof(uint64_t));
	out->certified = fr->certified;
	out->cert_eps = fr->cert_eps;
	out->radius_b = fr->radius_b;
	memcpy(out->cert, fr->cert.r, sizeof fr->cert.r);
	memcpy(out->cert + 9, fr->cert.t, sizeof fr->cert.t);
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
		if ((v[2] != NO_GROUP && v[2] >= ng) || v[3] > 1 || (v[3] && v[2] == NO_GROUP) ||
		    v[4] > NEAR) {
			mrdem_error("%s: pair %zu: group %u, real flag %u or standing %u is invalid",
				    what, k, v[2], v[3], v[4]);
			return NULL;
		}
	}
	for (int k = 0; k < 12; k++)
		if (!isfinite(in->cert[k])) {
			mrdem_error("%s: the certificate pose is not finite", what);
			return NULL;
		}
	if (in->certified > 1 || !(in->cert_eps >= 0) || !(in->radius_b >= 0) ||
	    !isfinite(in->radius_b)) {
		mrdem_error("%s: certificate flag %d, halos %g or radius %g is invalid", what,
			    in->certified, in->cert_eps, in->radius_b);
		return NULL;
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
		fr->p[k] = (struct front_pair){v[0], v[1], v[2], (uint16_t)v[3], (uint16_t)v[4]};
		fr->uncertified += v[4] == UNCERTIFIED;
	}
	for (size_t u = 0; u < ng; u++) {
		const uint32_t *v = &in->groups[MRDEM_FRONT_GROUP_VALUES * u];
		fr->g[u] = (struct front_group){v[0], v[1], v[2], v[3], v[4], 0};
		fr->pins += v[4] != 0;
	}
	if (in->nmemory)
		memcpy(fr->memory, in->memory, in->nmemory * sizeof(uint64_t));
	fr->n = in->npairs;
	fr->ng = ng;
	fr->nmem = in->nmemory;
	fr->certified = in->certified;
	fr->cert_eps = in->cert_eps;
	fr->radius_b = in->radius_b;
	memcpy(fr->cert.r, in->cert, sizeof fr->cert.r);
	memcpy(fr->cert.t, in->cert + 9, sizeof fr->cert.t);
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
