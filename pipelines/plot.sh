#!/bin/sh
# plot.sh SCRIPT PNG CSV [TITLE]: draw CSV into PNG with the gnuplot script
# SCRIPT (gnuplot -c, ARG1..ARG3 = PNG CSV TITLE). Without gnuplot ($GNUPLOT,
# default gnuplot) say so in one line and succeed: the CSV is the result.
# gnuplot's warnings (a constant curve's empty range) are shown on failure.
g=${GNUPLOT:-gnuplot}
if ! command -v "$g" >/dev/null 2>&1; then
	echo "plot $2 skipped: $g not installed (data in $3)"
	exit 0
fi
if "$g" -c "$1" "$2.tmp" "$3" "${4:-}" 2>"$2.log"; then
	rm -f "$2.log"
	mv "$2.tmp" "$2" && echo "plot: $2"
else
	cat "$2.log" >&2
	rm -f "$2.tmp" "$2.log"
	echo "plot $2 failed" >&2
	exit 1
fi
