#include "common/dynamics/bind_key.h"

#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"

void mrdem_bind_key_init(struct mrdem_bind_key *k)
{
	memset(k, 0, sizeof *k);
}

void mrdem_bind_key_release(struct mrdem_bind_key *k)
{
	free(k->id);
	free(k->shape);
	free(k->fixed);
	free(k->density);
	free(k->mass);
	free(k->open);
	mrdem_bind_key_init(k);
}

void mrdem_bind_key_forget(struct mrdem_bind_key *k)
{
	k->valid = 0;
}

static int shapes_match(const struct mrdem_bind_key *k, const struct mrdem_scene *s)
{
	if (k->nshapes != s->nshapes)
		return 0;
	for (uint32_t j = 0; j < s->nshapes; j++) {
		const struct mrdem_mesh *m = &s->shapes[j].mesh;
		if (k->open[j] != (m->open != 0) || memcmp(&k->mass[j], &m->mass, sizeof m->mass))
			return 0;
	}
	return 1;
}

int mrdem_bind_key_matches(const struct mrdem_bind_key *k, const struct mrdem_scene *s)
{
	const struct mrdem_particles *p = &s->frame.p;
	size_t n = p->n;
	if (!k->valid || k->n != n || !shapes_match(k, s))
		return 0;
	if (n && (memcmp(k->id, p->id, n * sizeof *p->id) ||
		  memcmp(k->shape, p->shape, n * sizeof *p->shape) ||
		  memcmp(k->density, p->density, n * sizeof *p->density)))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (k->fixed[i] != ((p->flags[i] & MRDEM_PARTICLE_FIXED) != 0))
			return 0;
	return 1;
}

void mrdem_bind_key_take(struct mrdem_bind_key *k, const struct mrdem_scene *s)
{
	const struct mrdem_particles *p = &s->frame.p;
	size_t n = p->n;
	if (n > k->cap) {
		k->id = mrdem_xrealloc(k->id, n * sizeof *k->id);
		k->shape = mrdem_xrealloc(k->shape, n * sizeof *k->shape);
		k->fixed = mrdem_xrealloc(k->fixed, n);
		k->density = mrdem_xrealloc(k->density, n * sizeof *k->density);
		k->cap = n;
	}
	if (s->nshapes > k->shapes_cap) {
		k->mass = mrdem_xrealloc(k->mass, s->nshapes * sizeof *k->mass);
		k->open = mrdem_xrealloc(k->open, s->nshapes);
		k->shapes_cap = s->nshapes;
	}
	k->n = n;
	if (n) {
		memcpy(k->id, p->id, n * sizeof *p->id);
		memcpy(k->shape, p->shape, n * sizeof *p->shape);
		memcpy(k->density, p->density, n * sizeof *p->density);
	}
	for (size_t i = 0; i < n; i++)
		k->fixed[i] = (p->flags[i] & MRDEM_PARTICLE_FIXED) != 0;
	k->nshapes = s->nshapes;
	for (uint32_t j = 0; j < s->nshapes; j++) {
		k->mass[j] = s->shapes[j].mesh.mass;
		k->open[j] = s->shapes[j].mesh.open != 0;
	}
	k->valid = 1;
}
