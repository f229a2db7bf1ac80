#!/bin/sh
# Print the tests given, the slowest first (the order below, measured with
# prove --timer), then the rest as given: prove -j2 hands each free worker
# the next test, so the long ones start early and the two finish together.
#
#   prove -j2 $(tests/lib/slow_first.sh TEST...)
slow="mechanics pour run vtk stream tree implicit contact init stats refs screenshot
implicit_pipes pairs test_contact_truth step broad pipelines test_tree_search analytic mesh"
for s in $slow; do
	for t in "$@"; do
		case "$t" in */"$s"|*/"$s".sh) echo "$t" ;; esac
	done
done
for t in "$@"; do
	n=$(basename "$t" .sh)
	case " $(echo $slow) " in *" $n "*) ;; *) echo "$t" ;; esac
done
