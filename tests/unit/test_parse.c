/* Command-line parsing shared by the tools (common/util/parse.h): whole
 * numbers in a range say the range in one wording, and an option that
 * takes a value is refused the second time it is given. */
#include <getopt.h>
#include <stdint.h>
#include <string.h>

#include "common/util/error.h"
#include "common/util/parse.h"
#include "tests/lib/tap.h"

static void test_u64_range(void)
{
	uint64_t v = 7;
	tap_ok(mrdem_parse_u64_range("--n", "1", 1, 10, &v) == 0 && v == 1, "1 in 1..10");
	tap_ok(mrdem_parse_u64_range("--n", "10", 1, 10, &v) == 0 && v == 10, "10 in 1..10");
	tap_ok(mrdem_parse_u64_range("--n", "18446744073709551615", 1, UINT64_MAX, &v) == 0 &&
		       v == UINT64_MAX,
	       "2^64 - 1 in 1..2^64 - 1");
	static const char *const bad[] = {"0", "11", "-1", "+5", "", "3x", "1e3",
					  "18446744073709551616"};
	for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
		v = 7;
		tap_capture_begin();
		int rc = mrdem_parse_u64_range("--n", bad[k], 1, 10, &v);
		const char *err = tap_capture_end();
		char want[64];
		snprintf(want, sizeof want, "--n: '%s' is not a whole number in 1..10", bad[k]);
		tap_ok(rc == -1 && v == 7 && strstr(err, want), "'%s' refused: %s", bad[k], err);
	}
}

/* argv through mrdem_getopt_once, as the tools loop: -1 at the first
 * option it refuses ('?'), else 0. */
static int parse(int argc, char **argv, const char **err)
{
	static const struct option opts[] = {
		{"frame", required_argument, NULL, 'F'},
		{"output", required_argument, NULL, 'o'},
		{"json", no_argument, NULL, 'j'},
		{"tol", required_argument, NULL, 256},
		{"max", required_argument, NULL, 256}, /* shares tol's value */
		{NULL, 0, NULL, 0},
	};
	struct mrdem_opts_seen seen = {{0}};
	int c, li, rc = 0;
	optind = 0; /* glibc: start afresh */
	tap_capture_begin();
	while (!rc && (c = mrdem_getopt_once(argc, argv, "o:x:j", opts, &li, &seen)) != -1)
		rc = c == '?' ? -1 : 0;
	*err = tap_capture_end();
	return rc;
}

static void test_once(void)
{
	const char *err;
	int rc;
	char *a1[] = {"t", "--frame", "1", "--frame", "2", NULL};
	rc = parse(5, a1, &err);
	tap_ok(rc == -1 && strstr(err, "option '--frame' given twice"),
	       "--frame twice");
	char *a2[] = {"t", "--frame=1", "--frame=1", NULL};
	rc = parse(3, a2, &err);
	tap_ok(rc == -1 && strstr(err, "'--frame' given twice"),
	       "--frame=V twice, the same value");
	char *a3[] = {"t", "-o", "a", "--output", "b", NULL};
	rc = parse(5, a3, &err);
	tap_ok(rc == -1 && strstr(err, "'--output' given twice"),
	       "-o then --output: one option");
	char *a4[] = {"t", "-x", "a", "-x", "b", NULL};
	rc = parse(5, a4, &err);
	tap_ok(rc == -1 && strstr(err, "option '-x' given twice"),
	       "a short option without a long name, twice");
	char *a5[] = {"t", "--json", "--json", "--frame", "1", "-o", "a", NULL};
	rc = parse(7, a5, &err);
	tap_ok(rc == 0 && !*err, "a flag may repeat; other options once each");
	char *a6[] = {"t", "--tol", "1", "--max", "2", NULL};
	rc = parse(5, a6, &err);
	tap_ok(rc == 0, "two options sharing a value are two options");
	char *a7[] = {"t", "--tol", "1", "--max", "2", "--tol", "3", NULL};
	rc = parse(7, a7, &err);
	tap_ok(rc == -1 && strstr(err, "'--tol' given twice"),
	       "... each given once");
}

int main(void)
{
	mrdem_set_progname("test_parse");
	test_u64_range();
	test_once();
	return tap_done();
}
