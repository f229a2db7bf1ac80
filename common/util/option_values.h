/* Options that take several numbers on a command line ("--size X Y Z",
 * "--divisions NX [NY]"), beside getopt_long and mrdem_getopt_once
 * (common/util/parse.h). */
#ifndef MRDEM_UTIL_OPTION_VALUES_H
#define MRDEM_UTIL_OPTION_VALUES_H

/* Call right after getopt_long returned an option with a value: vals[0] =
 * optarg, then the words that follow it while they are numbers, up to max
 * values in all (optind moves past them), so "--size 2 --divisions 3"
 * reads one size. "--size=2" gives one value only. Returns the number of
 * values in vals. */
int mrdem_getopt_values(int argc, char **argv, int max, const char **vals);

#endif
