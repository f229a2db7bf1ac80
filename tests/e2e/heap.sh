#!/usr/bin/env bash
# A heap poured onto a floor (pipelines/heap.py, examples/heap.yaml): 600
# analytic spheres with rolling friction settle into a heap whose every
# grain stays, whose kinetic energy dies away and whose weight the floor
# carries, at an angle of repose between broad bounds, steeper than that
# of 300 spheres without rolling friction (which roll away) and within 5
# degrees of LIGGGHTS's (when installed; measured 1.1); a small pour of noisy mesh grains keeps its count and
# settles too.
. "$(dirname "$0")/../lib/test-lib.sh"
# Under the sanitizers these runs take minutes: the code they run is
# sanitized by flow.sh, walls.sh and mix.sh, their physics checked by make check.
[ -n "${MRDEM_ASAN:-}" ] && skip_all "validation-sized runs (physics checked by make check)"

heap() {
	python3 "$TOP/pipelines/heap.py" "$@"
}
value() { # name file
	awk -v n="$1" '$1 == n { print $2 }' "$2"
}
export OMP_NUM_THREADS=1

expect_success "spheres with rolling friction: every grain in, settled, the floor carries the weight" '
	heap scene spheres 600 0.1 >roll.yaml && mrdem-run -q roll.yaml -o roll.mrd &&
	heap check roll.mrd 600 >roll.txt && cat roll.txt &&
	assert_eq "$(value inserted roll.txt)" 600 inserted &&
	assert_eq "$(value removed roll.txt)" 0 removed &&
	assert_eq "$(value count roll.txt)" 600 "grains in the last frame" &&
	assert_true "$(value ke_ratio roll.txt) < 0.01" "kinetic energy at the end over its peak during the feed" &&
	assert_near "$(value floor_ratio roll.txt)" 1 0.02 "force on the floor over the grains'"'"' weight"'

expect_success "spheres with rolling friction: a heap with an angle of repose between 10 and 35 degrees" '
	assert_true "$(value height roll.txt) > 0.03" "heap height (m)" &&
	assert_true "$(value angle roll.txt) > 10 && $(value angle roll.txt) < 35" "angle of repose (degrees)"'

expect_success "spheres without rolling friction roll away: a smaller angle, or none" '
	heap scene spheres 300 >free.yaml && mrdem-run -q free.yaml -o free.mrd &&
	heap check free.mrd 300 >free.txt && cat free.txt &&
	assert_eq "$(( $(value count free.txt) + $(value removed free.txt) ))" 300 "grains left and removed" &&
	assert_true "$(value angle free.txt) < $(value angle roll.txt) - 5" "angle without rolling friction"'

if command -v "${LIGGGHTS:-liggghts}" >/dev/null 2>&1; then
	expect_success "LIGGGHTS pours the same spheres into a heap of about the same angle" '
		(cd "$TOP/pipelines" && python3 heap.py liggghts "$T/lig" 600) >lig.txt && cat lig.txt &&
		angle=$(python3 -c "import ast; print(ast.literal_eval(open(\"lig.txt\").read())[0][0])") &&
		assert_near "$(value angle roll.txt)" "$angle" 5 "mrdem'"'"'s angle against LIGGGHTS'"'"'s"'
else
	skip_test "LIGGGHTS's heap" "liggghts is not installed"
fi

expect_success "noisy mesh grains: every grain accounted for, the pour settling" '
	heap scene mesh 40 >mesh.yaml && mrdem-run -q mesh.yaml -o mesh.mrd &&
	heap check mesh.mrd 40 >mesh.txt && cat mesh.txt &&
	assert_eq "$(value inserted mesh.txt)" 40 inserted &&
	assert_eq "$(( $(value count mesh.txt) + $(value removed mesh.txt) ))" 40 "grains left and removed" &&
	assert_true "$(value ke_ratio mesh.txt) < 0.05" "kinetic energy at the end over its peak during the feed"'

expect_success "make -C pipelines heap: a report of both heaps (LIGGGHTS beside when installed)" '
	make -s -C "$TOP/pipelines" heap MRDEM_BIN="$MRDEM_BIN" OUT="$T/pl" HEAP_COUNT=20 >make.txt &&
	assert_grep "^| mrdem | (a) analytic spheres" "$T/pl/heap/heap.md" &&
	assert_grep "^| mrdem | (b) noisy mesh spheres" "$T/pl/heap/heap.md" &&
	if command -v "${LIGGGHTS:-liggghts}" >/dev/null; then
		assert_grep "^| LIGGGHTS 3.8 | (a)" "$T/pl/heap/heap.md"
	else
		assert_grep "comparison was skipped" "$T/pl/heap/heap.md"
	fi'

expect_success "make -C pipelines heap refuses a HEAP_COUNT that is not a positive integer" '
	assert_exit 2 make -s -C "$TOP/pipelines" heap MRDEM_BIN="$MRDEM_BIN" OUT="$T/pl" HEAP_COUNT=0 &&
	assert_grep "HEAP_COUNT must be a positive integer, got .0." err'

done_testing
