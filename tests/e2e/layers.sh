#!/usr/bin/env bash
# The include graph is layered (README "Layout"): a library directory may
# include its own layer and the layers below it, never one above, and the
# three stages of a step (broad, narrow, dynamics) stay independent.
#   util, geom < mesh < tree < scene < broad | narrow | dynamics < sim
#   < formats/stream (the stream codec) < formats/foreign (OBJ, STL, YAML, VTK, JSON)
# Inside narrow: tri (triangle kernels) < search (tree search and fronts),
# analytic (analytic and convex kernels) < contacts (contact assembly).
. "$(dirname "$0")/../lib/test-lib.sh"
cd "$TOP" || exit 1
shopt -s nullglob

# rank DIR: sets R, and S to the stage it belongs to (no subshell: this
# runs for every include).
rank() {
	S=
	case $1 in
	common/util | common/geom) R=0 ;;
	common/mesh | common/shape) R=10 ;;
	common/tree) R=20 ;;
	common/scene) R=30 ;;
	common/broad) R=40 S=broad ;;
	common/dynamics) R=40 S=dynamics ;;
	common/narrow/tri) R=40 S=narrow ;;
	common/narrow/search | common/narrow/analytic) R=41 S=narrow ;;
	common/narrow/contacts) R=42 S=narrow ;;
	common/sim) R=50 ;;
	formats) R=60 ;;
	*) R=90 ;;
	esac
}

# Print one line per include that breaks the layering.
violations() {
	for f in common/*/*.[ch] common/narrow/*/*.[ch] formats/*/*.[ch]; do
		from=${f%/*}
		rank "$from"
		r_from=$R s_from=$S
		sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f" | while IFS= read -r inc; do
			to=${inc%/*}
			rank "$to"
			r_to=$R
			if [ "$r_to" -gt "$r_from" ]; then
				echo "$f includes $inc: $to is above $from"
			elif [ -n "$S" ] && [ -n "$s_from" ] && [ "$S" != "$s_from" ]; then
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
