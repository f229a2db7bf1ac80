#!/usr/bin/env bash
# The include graph is layered (README "Layout"): a library directory may
# include its own layer and the layers below it, never one above, and the
# three stages of a step (broad, narrow, dynamics) stay independent.
#   util, geom < mesh < tree < scene < broad | narrow | dynamics < sim
#   < formats/stream (the stream codec) < formats/foreign (OBJ, STL, YAML, VTK, JSON)
. "$(dirname "$0")/../lib/test-lib.sh"
cd "$TOP" || exit 1
shopt -s nullglob

# rank DIR: sets R (no subshell: this runs for every include).
rank() {
	case $1 in
	common/util | common/geom) R=0 ;;
	common/mesh | common/shape) R=1 ;;
	common/tree) R=2 ;;
	common/scene) R=3 ;;
	common/broad | common/narrow | common/dynamics) R=4 ;;
	common/sim) R=5 ;;
	formats) R=6 ;;
	*) R=9 ;;
	esac
}

# Print one line per include that breaks the layering.
violations() {
	for f in common/*/*.[ch] formats/*/*.[ch]; do
		from=${f%/*}
		rank "$from"
		r_from=$R
		sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f" | while IFS= read -r inc; do
			to=${inc%/*}
			rank "$to"
			r_to=$R
			if [ "$r_to" -gt "$r_from" ]; then
				echo "$f includes $inc: $to is above $from"
			elif [ "$r_to" -eq "$r_from" ] && [ "$to" != "$from" ] && [ "$r_from" -eq 4 ]; then
				echo "$f includes $inc: $to and $from are independent stages"
			fi
		done
	done
}

expect_success "the checker sees a violation planted in a copy of the tree" '
	mkdir -p "$T/plant/common/mesh" && cd "$T/plant" &&
	printf "#include \"common/sim/simulation.h\"\n" >common/mesh/x.c &&
	out=$(violations) && assert_grep "x.c includes common/sim" <(echo "$out")'
expect_success "no library include goes up a layer" '
	out=$(violations); [ -z "$out" ] || { echo "$out"; false; }'
done_testing
