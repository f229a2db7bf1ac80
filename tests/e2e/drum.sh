#!/usr/bin/env bash
# A rotating drum (pipelines/drum.py --quick, examples/drum.yaml): a closed
# revolve drum turning about a horizontal axis (motion: rotate) with 150
# analytic spheres in it. The bed turns with the drum (the spheres next to
# its mantle move about the axis at nearly its omega), its free surface
# rises on the side the wall lifts and stands at an angle within broad
# bounds, no sphere is lost or gained, and the torque the bed exerts on the
# drum opposes the rotation. With liggghts the same drum from the same
# bed in LIGGGHTS: the same sign, an angle within broad bounds of ours.
. "$(dirname "$0")/../lib/test-lib.sh"
# Under the sanitizers these runs take minutes: the code they run is
# sanitized by flow.sh, walls.sh, materials.sh and scaled.sh one feature
# at a time, and their physics checked by make check.
[ -n "${MRDEM_ASAN:-}" ] && skip_all "runs of several features at once (each sanitized alone)"

# A make of its own: no jobserver or flags of a make that runs the tests.
pmake() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$TOP/pipelines" OUT="$T/out" "$@"
}
get() { # python expression on d (drum.json)
	json_get out/drum/drum.json "$1"
}

expect_success "make -C pipelines drum DRUM_QUICK=1: a report of the small drum" '
	pmake drum DRUM_QUICK=1 DRUM_MESH=0 >log &&
	assert_grep "^| mrdem, spheres | 3 | " out/drum/drum.md &&
	assert_grep "dynamic angle of repose" out/drum/drum.md'

expect_success "no sphere is lost or gained and the mass is kept while the drum turns" '
	n=$(get "d[\"cases\"][\"spheres-0\"][\"particles\"]") &&
	assert_true "$n >= 145 && $n <= 150" "spheres in the drum ($n)" &&
	assert_eq "$(get "d[\"cases\"][\"spheres-0\"][\"counts\"]")" "[$n, $n]" "spheres per frame" &&
	assert_true "$(get "(lambda m: abs(m[1] - m[0]) / m[0])(d[\"cases\"][\"spheres-0\"][\"mass\"])") < 1e-12" \
		"mass change"'

expect_success "the bed turns with the drum: spheres at the mantle move about the axis near omega" '
	w=$(get "d[\"cases\"][\"spheres-0\"][\"wall_omega\"]") &&
	assert_true "$w > 0.6 * 3 && $w < 1.1 * 3" "mean angular velocity at the mantle ($w rad/s, drum 3)"'

expect_success "the free surface rises on the lifted side, at an angle within broad bounds" '
	a=$(get "d[\"cases\"][\"spheres-0\"][\"principal\"]") &&
	s=$(get "d[\"cases\"][\"spheres-0\"][\"surface\"]") &&
	assert_true "$a > 20 && $a < 55" "angle of the principal axis ($a deg)" &&
	assert_true "$s > 20 && $s < 55" "angle of the free surface ($s deg)"'

expect_success "the bed pushes back on the drum: its torque about the axis opposes the rotation" '
	q=$(get "d[\"cases\"][\"spheres-0\"][\"wall_torque_y\"]") &&
	assert_true "$q < 0" "mean wall_torque_y.0 ($q N m)"'

if command -v "${LIGGGHTS:-liggghts}" >/dev/null 2>&1; then
	expect_success "LIGGGHTS on the same drum from the same bed: the same sign, within broad bounds" '
		a=$(get "d[\"cases\"][\"spheres-0\"][\"principal\"]") &&
		l=$(get "d[\"cases\"][\"liggghts-0\"][\"principal\"]") &&
		assert_eq "$(get "d[\"cases\"][\"liggghts-0\"][\"particles\"]")" \
			"$(get "d[\"cases\"][\"spheres-0\"][\"particles\"]")" "LIGGGHTS atoms" &&
		assert_true "$l > 20 && $l < 55 && $a - $l < 8 && $l - $a < 8" \
			"angles: mrdem $a, LIGGGHTS $l deg" &&
		assert_grep "^| LIGGGHTS, spheres | 3 | " out/drum/drum.md'
else
	skip_test "LIGGGHTS on the same drum" "liggghts not installed"
	expect_success "without liggghts the report says the comparison was skipped" '
		assert_grep "LIGGGHTS comparison skipped" out/drum/drum.md'
fi

expect_success "examples/drum.yaml cut to its fill: the grains placed, the drum at rest" '
	sed "s/steps: [0-9]*,/steps: 50,/; s/every: [0-9]*/every: 50/" "$TOP/examples/drum.yaml" >ex.yaml &&
	grep -q "steps: 50," ex.yaml && mrdem-run -q ex.yaml -o ex.mrd &&
	checks info ex.mrd "len(of(\"frame\")[-1][\"state\"]) > 100" >res && assert_eq "$(cat res)" True "grains"'

done_testing
