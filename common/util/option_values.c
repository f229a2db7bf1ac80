#include "common/util/option_values.h"

#include <getopt.h>
#include <stdlib.h>

static int is_number(const char *s)
{
	char *end;
	if (!*s)
		return 0;
	strtod(s, &end);
	return !*end;
}

int mrdem_getopt_values(int argc, char **argv, int max, const char **vals)
{
	int n = 0;
	if (max < 1)
		return 0;
	vals[n++] = optarg;
	/* "--opt=V" (optarg inside the option's word) gives one value only */
	if (optarg == argv[optind - 1])
		while (n < max && optind < argc && is_number(argv[optind]))
			vals[n++] = argv[optind++];
	return n;
}
