#!/bin/sh
# Print the tests given, the slowest first (the order below: CPU seconds
# of each, as /usr/bin/time measures them), then the rest as given: prove
# -j2 hands each free worker the next test, so the long ones start early
# and the two workers finish together.
#
#   prove -j2 $(tests/lib/slow_first.sh TEST...)
slow="mechanics beverloo mix heap flow run init vtk screenshot pairs contact expect implicit_pipes pipelines
mesh stream test_tree_search analytic cli overlap test_narrow_kernels contact_truth"
for s in $slow; do
	for t in "$@"; do
		case "$t" in */"$s"|*/"$s".sh) echo "$t" ;; esac
	done
done
for t in "$@"; do
	n=$(basename "$t" .sh)
	case " $(echo $slow) " in *" $n "*) ;; *) echo "$t" ;; esac
done
