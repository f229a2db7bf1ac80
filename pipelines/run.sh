#!/bin/sh
# run.sh BINDIR SCENE.yaml BASE SCHEME HIERARCHY METHOD STEPS: one run of
# the tables (implicit.mk):
#
#   mrdem-run SCENE.yaml -o BASE.mrd --steps STEPS --scheme SCHEME
#             --hierarchy HIERARCHY --method METHOD --log-view
#
# HIERARCHY multiscale is the paper's Alg. 6, --hierarchy multiscale
# --cold-start; multiscale-warm is --hierarchy multiscale --warm-start.
#
# with its standard error (summary, --log-view report) in BASE.log and
# its statistics (mrdem-stats) in BASE.csv; runs.py reads the two. A
# multiscale run that mrdem-run refuses or fails is not an error: BASE.log
# holds the message and there is no BASE.csv (the tables print "not
# available: " and its first line). Any other failure is an error.
set -u
bin=$1 yaml=$2 base=$3 scheme=$4 hierarchy=$5 method=$6 steps=$7
rm -f "$base.csv" "$base.log"
set -- --hierarchy "$hierarchy"
[ "$hierarchy" = multiscale ] && set -- --hierarchy multiscale --cold-start
[ "$hierarchy" = multiscale-warm ] && set -- --hierarchy multiscale --warm-start
if "$bin/mrdem-run" "$yaml" -o "$base.mrd" --steps "$steps" --scheme "$scheme" \
	"$@" --method "$method" --log-view 2>"$base.log.tmp"; then
	"$bin/mrdem-stats" "$base.mrd" -o "$base.csv.tmp" && mv "$base.csv.tmp" "$base.csv" &&
		mv "$base.log.tmp" "$base.log"
elif [ "$hierarchy" != "${hierarchy#multiscale}" ]; then
	rm -f "$base.mrd"
	mv "$base.log.tmp" "$base.log"
	echo "run.sh: $hierarchy $method on $yaml not available: $(grep -m1 . "$base.log")"
else
	cat "$base.log.tmp" >&2
	rm -f "$base.log.tmp"
	echo "run.sh: mrdem-run $yaml --scheme $scheme --hierarchy $hierarchy --method $method failed" >&2
	exit 1
fi
