#include "common/util/threads.h"

#include <omp.h>
#include <stdlib.h>

void mrdem_threads_init(void)
{
	if (!getenv("OMP_DYNAMIC"))
		omp_set_dynamic(1);
}
