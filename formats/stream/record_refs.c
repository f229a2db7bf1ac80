#include "formats/stream/record_refs.h"

#include <stdint.h>
#include <stdio.h>

#include "common/scene/id_index.h"
#include "formats/stream/records.h"

/* Plane id b names plane k of the setup: k, or -1 when b is no plane id. */
static long plane_of(uint64_t b)
{
	return mrdem_is_plane_id(b) ? (long)mrdem_plane_index(b) : -1;
}

/* What is wrong with side `side` ("a" or "b") of a record naming particle
 * or plane id, with triangle tri, into why; 0 when nothing. The particle's
 * frame index in *at (MRDEM_NO_INDEX for a plane). */
static int side_problem(const struct mrdem_scene *s, const struct mrdem_id_index *ix,
			const char *side, uint64_t id, int plane_ok, const uint32_t *tri,
			size_t *at, char *why, size_t n)
{
	*at = MRDEM_NO_INDEX;
	long k = plane_of(id);
	if (k >= 0) {
		if (!plane_ok)
			snprintf(why, n, "%s = %llu is a plane id (plane %ld); a plane is always b",
				 side, (unsigned long long)id, k);
		else if ((unsigned long)k >= s->setup.nplanes)
			snprintf(why, n, "%s = %llu names plane %ld, but the setup has %u plane(s)",
				 side, (unsigned long long)id, k, s->setup.nplanes);
		else if (tri && *tri != UINT32_MAX)
			snprintf(why, n, "tri_%s is %u on plane %ld (a plane has no triangles: "
				 "4294967295)", side, *tri, k);
		else
			return 0;
		return -1;
	}
	*at = mrdem_id_index_find(ix, id);
	if (*at == MRDEM_NO_INDEX) {
		snprintf(why, n, "particle %s = %llu is not in the frame of step %llu "
			 "(%zu particles)", side, (unsigned long long)id,
			 (unsigned long long)s->frame.step, s->frame.p.n);
		return -1;
	}
	if (!tri || *tri == UINT32_MAX)
		return 0;
	const struct mrdem_shape *sh = &s->shapes[s->frame.p.shape[*at]];
	uint32_t ntris = sh->kind == MRDEM_SHAPE_MESH ? sh->mesh.ntris : 0;
	if (*tri < ntris)
		return 0;
	snprintf(why, n, "tri_%s is %u, but shape %u '%s' of particle %llu has %u triangles "
		 "(4294967295 for none)", side, *tri, sh->id, sh->name,
		 (unsigned long long)id, ntris);
	return -1;
}

/* A contact exists where the halos overlap (mrdem_contact_reach). 1 with
 * why when it is beyond. */
static int beyond_halos(const struct mrdem_scene *s, const struct mrdem_contact *k, size_t ia,
			size_t ib, char *why, size_t n)
{
	const struct mrdem_particles *p = &s->frame.p;
	if (k->dist <= mrdem_contact_reach(s, ia, ib))
		return 0;
	double eb = ib == MRDEM_NO_INDEX ? s->setup.plane_epsilon : p->eps[ib];
	snprintf(why, n, "dist %.9g exceeds eps_a + eps_b = %.9g + %.9g = %.9g", k->dist,
		 p->eps[ia], eb, p->eps[ia] + eb);
	return 1;
}

int mrdem_contacts_check_refs(const struct mrdem_scene *s, int frame,
			      const struct mrdem_contacts *c, const struct mrdem_record *rec,
			      const char *src)
{
	if (!frame || c->step != s->frame.step || !c->n)
		return 0;
	struct mrdem_id_index ix;
	mrdem_id_index_init(&ix);
	int rc = mrdem_id_index_build(&ix, &s->frame.p);
	char why[320];
	for (size_t i = 0; rc == 0 && i < c->n; i++) {
		const struct mrdem_contact *k = &c->c[i];
		size_t ia, ib;
		if (side_problem(s, &ix, "a", k->a, 0, &k->tri_a, &ia, why, sizeof why) ||
		    side_problem(s, &ix, "b", k->b, 1, &k->tri_b, &ib, why, sizeof why))
			rc = mrdem_record_error(rec, src, "contact %zu (particles %llu and %llu): %s",
						i, (unsigned long long)k->a,
						(unsigned long long)k->b, why);
		else if (k->a == k->b)
			rc = mrdem_record_error(rec, src, "contact %zu pairs particle %llu with "
						"itself", i, (unsigned long long)k->a);
		else if (beyond_halos(s, k, ia, ib, why, sizeof why))
			rc = mrdem_record_error(rec, src, "contact %zu (particles %llu and %llu): a "
						"contact record beyond the halos: %s", i,
						(unsigned long long)k->a, (unsigned long long)k->b,
						why);
	}
	mrdem_id_index_release(&ix);
	return rc;
}

int mrdem_contacts_record_check(const struct mrdem_scene *s, int frame,
				const struct mrdem_record *rec, const char *src)
{
	struct mrdem_contacts c;
	if (mrdem_decode_contacts(rec, src, &c))
		return -1;
	int rc = mrdem_contacts_check_refs(s, frame, &c, rec, src);
	mrdem_contacts_release(&c);
	return rc;
}

int mrdem_history_check_refs(const struct mrdem_scene *s, const struct mrdem_history *h,
			     const struct mrdem_record *rec, const char *src)
{
	if (!h->n)
		return 0;
	struct mrdem_id_index ix;
	mrdem_id_index_init(&ix);
	int rc = mrdem_id_index_build(&ix, &s->frame.p);
	char why[320];
	for (size_t i = 0; rc == 0 && i < h->n; i++) {
		const struct mrdem_spring *sp = &h->s[i];
		size_t ia, ib;
		if (side_problem(s, &ix, "a", sp->a, 0, NULL, &ia, why, sizeof why) ||
		    side_problem(s, &ix, "b", sp->b, 1, NULL, &ib, why, sizeof why))
			rc = mrdem_record_error(rec, src, "spring %zu (particles %llu and %llu): %s",
						i, (unsigned long long)sp->a,
						(unsigned long long)sp->b, why);
		else if (sp->a == sp->b)
			rc = mrdem_record_error(rec, src, "spring %zu pairs particle %llu with "
						"itself", i, (unsigned long long)sp->a);
	}
	mrdem_id_index_release(&ix);
	return rc;
}
