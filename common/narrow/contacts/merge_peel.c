/* The peel's scratch (merge_peel.h), freed at every SIMD level: the peel
 * itself is AVX-512 only (merge_peel_avx512.c). */
#include "common/narrow/contacts/merge_peel.h"

#include <stdlib.h>
#include <string.h>

void mrdem_merge_peel_release(struct mrdem_merge_peel *m)
{
	free(m->x);
	free(m->y);
	free(m->z);
	free(m->dist);
	free(m->key);
	free(m->place);
	free(m->odd);
	memset(m, 0, sizeof *m);
}
