#!/bin/sh
# Print the tests given, the slowest first (the order below: CPU seconds
# of each, as build/check/times.txt has them after make check), then the
# rest as given: prove -j2 hands each free worker the next test, so the
# long ones start early and the two workers finish together.
#
#   prove -j2 $(tests/lib/slow_first.sh TEST...)
slow="mpi mechanics overlap mix beverloo heap vtk run scaled screenshot init materials pairs pipelines
flow walls install contact implicit_pipes merge drum stream mesh test_tree_search analytic cli
test_narrow_kernels contact_truth"
for s in $slow; do
	for t in "$@"; do
		case "$t" in */"$s"|*/"$s".sh) echo "$t" ;; esac
	done
done
for t in "$@"; do
	n=$(basename "$t" .sh)
	case " $(echo $slow) " in *" $n "*) ;; *) echo "$t" ;; esac
done
