#!/usr/bin/env bash
# The include graph is layered (README "Layout"): a library directory may
# include its own layer and the layers below it, never one above, and the
# three stages of a step (broad, narrow, dynamics) stay independent.
#   util, geom < mesh, shape < tree < scene < broad | narrow | dynamics
#   < parallel (an MPI run's decomposition, without MPI) < sim
#   < formats/stream (the stream codec) < formats/foreign (OBJ, STL, YAML, VTK, JSON)
# Inside narrow: tri (triangle kernels) < search (tree search and fronts),
# analytic (analytic and convex kernels) < contacts (contact assembly).
. "$(dirname "$0")/../lib/test-lib.sh"
cd "$TOP" || exit 1
shopt -s nullglob

# rank DIR: sets R, and S to the stage it belongs to (no subshell: this
# runs for every include). A folder it does not know gets no rank (R
# empty): a new folder must be placed here before it can be included.
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
	common/parallel) R=45 ;;
	common/sim) R=50 ;;
	formats/stream) R=60 ;;
	formats/foreign) R=70 ;;
	*) R= ;;
	esac
}

# Print one line per include that breaks the layering.
violations() {
	for f in common/*/*.[ch] common/narrow/*/*.[ch] formats/*/*.[ch]; do
		from=${f%/*}
		rank "$from"
		r_from=$R s_from=$S
		if [ -z "$r_from" ]; then
			echo "$f: $from is not a known layer"
			continue
		fi
		sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f" | while IFS= read -r inc; do
			to=${inc%/*}
			rank "$to"
			r_to=$R
			if [ -z "$r_to" ]; then
				echo "$f includes $inc: $to is not a known layer"
			elif [ "$r_to" -gt "$r_from" ]; then
				echo "$f includes $inc: $to is above $from"
			elif [ -n "$S" ] && [ -n "$s_from" ] && [ "$S" != "$s_from" ]; then
				echo "$f includes $inc: $to and $from are independent stages"
			fi
		done
	done
}

expect_success "the checker sees violations planted in a copy of the tree" '
	mkdir -p "$T/plant/common/mesh" "$T/plant/formats/stream" "$T/plant/formats/wire" &&
	cd "$T/plant" &&
	printf "#include \"common/sim/simulation.h\"\n" >common/mesh/x.c &&
	printf "#include \"formats/foreign/json.h\"\n" >formats/stream/y.c &&
	printf "#include \"common/extra/z.h\"\n" >common/mesh/z.c &&
	printf "#include \"common/util/error.h\"\n" >formats/wire/w.c &&
	out=$(violations) && echo "$out" >out &&
	assert_grep "x.c includes common/sim/simulation.h: common/sim is above common/mesh" out &&
	assert_grep "y.c includes formats/foreign/json.h: formats/foreign is above formats/stream" out &&
	assert_grep "z.c includes common/extra/z.h: common/extra is not a known layer" out &&
	assert_grep "w.c: formats/wire is not a known layer" out &&
	assert_eq "$(wc -l <out)" 4 "violation lines"'
expect_success "no library include goes up a layer" '
	out=$(violations); [ -z "$out" ] || { echo "$out"; false; }'
done_testing
