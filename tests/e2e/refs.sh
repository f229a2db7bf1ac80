#!/usr/bin/env bash
# Records name particles, planes and triangles that must exist in the frame
# they follow, and frames hold energies a double can: every reader refuses
# a record that breaks this, naming the record and the value, and no tool
# passes one on (formats/stream/record_refs.h).
. "$(dirname "$0")/../lib/test-lib.sh"
BAD="python3 $TOP/tests/e2e/refs.py"
READERS="mrdem-info mrdem-step mrdem-vtk mrdem-stats mrdem-pairs"

# Two 80-triangle balls 0.01 m apart (halos 0.02 each) and a ball resting
# in the halo of a plane; friction keeps springs in a history record.
cat >pair.yaml <<'YAML'
shapes:
  ball: {sphere: {triangles: 80, radius: 1.0}}
particles:
  - {shape: ball, position: [-1.005, 0, 0], velocity: [1.0, 0.2, 0]}
  - {shape: ball, position: [1.005, 0, 0]}
gravity: [0, 0, 0]
contact: {model: hooke, epsilon: 0.01, stiffness: 1000, restitution: 0.5, friction: 0.3}
time: {dt: 1.0e-3, steps: 1, scheme: velocity-verlet}
YAML
sed 's/^  - {shape: ball, position: \[1.005, 0, 0\]}$//; s/\[-1.005, 0, 0\]/[0, 0, 1.005]/' pair.yaml >plane.yaml
echo 'planes: [{point: [0, 0, 0], normal: [0, 0, 1]}]' >>plane.yaml
mrdem-init pair.yaml | mrdem-pairs | mrdem-contact -o pair.mrd &&
	mrdem-step pair.mrd -o stepped.mrd &&
	mrdem-init plane.yaml | mrdem-pairs | mrdem-contact -o plane.mrd || exit 1

expect_success "the unchanged streams pass every reader" '
	for t in $READERS; do $t pair.mrd >/dev/null || return 1; done &&
	mrdem-info stepped.mrd | grep -q "1 contact springs" &&
	mrdem-info plane.mrd | grep -q "1 plane(s)" && mrdem-step plane.mrd >/dev/null'

# (what to change, its stream, the message)
while read -r what in msg; do
	expect_success "$what: every reader refuses it, naming record and value, writing nothing" '
		$BAD $what $in bad.mrd &&
		for t in $READERS; do
			o="-o out" && [ $t != mrdem-info ] || o=
			rm -rf out && assert_exit 1 $t bad.mrd $o >/dev/null &&
			assert_grep "bad.mrd: record [0-9]* (" err && assert_grep "$msg" err &&
			test ! -e out || { echo "($t)"; return 1; }
		done'
done <<'CASES'
tri pair.mrd contact 0 (particles 0 and 1): tri_a is 1000000, but shape 0 .ball. of particle 0 has 80 triangles
ghost pair.mrd contact 0 (particles 77 and 1): particle a = 77 is not in the frame of step 0 (2 particles)
nan pair.mrd contact 0 (particles 0 and 1): normal \[nan, 0, 0\] is not finite
plane plane.mrd contact 0 (particles 0 and 18446744073709551608): b = 18446744073709551608 names plane 7, but the setup has 1 plane(s)
plane-tri plane.mrd contact 0 (particles 0 and 18446744073709551615): tri_b is 5 on plane 0
spring stepped.mrd spring 0 (particles 77 and 1): particle a = 77 is not in the frame of step 1
fast pair.mrd particle 0 (id 0): its translational kinetic energy is not finite (mass 3.65871 kg, position \[-1.005, 0, 0\] m, velocity \[1e+308, 0, 0\] m/s
CASES

expect_success "a bad contacts record that a tool replaces is no input of it: mrdem-contact redoes it" '
	$BAD tri pair.mrd bad.mrd && mrdem-contact bad.mrd -o redo.mrd && mrdem-stats redo.mrd >/dev/null &&
	mrdem-info redo.mrd | grep -q "step 0: 1 contacts"'

# Halos 0.02 + 0.02: a record at 0.05 claims a contact that is not there;
# one a float's rounding beyond 0.04 is the kernels' measure of one.
expect_success "a contact record beyond the halos is refused by every reader" '
	$BAD far pair.mrd bad.mrd 0.05 &&
	for t in $READERS; do
		o="-o out" && [ $t != mrdem-info ] || o=
		rm -rf out && assert_exit 1 $t bad.mrd $o >/dev/null &&
		assert_grep "bad.mrd: record [0-9]* (contacts) at byte [0-9]*: contact 0 (particles 0 and 1): a contact record beyond the halos: dist 0.05 exceeds eps_a + eps_b = 0.02 + 0.02 = 0.04" err &&
		test ! -e out || { echo "($t)"; return 1; }
	done &&
	$BAD far pair.mrd edge.mrd 0.0400001 && mrdem-step edge.mrd >/dev/null'

expect_success "a scene whose velocity carries an infinite energy is refused at its line" '
	sed "s/velocity: \[1.0, 0.2, 0\]/velocity: [1.0e308, 0, 0]/" pair.yaml >fast.yaml &&
	for t in mrdem-init mrdem-run; do
		rm -f out.mrd && assert_exit 1 $t fast.yaml -o out.mrd &&
		assert_grep "fast.yaml:4:5: particles\[0\]: particle 0: its translational kinetic energy is not finite" err &&
		test ! -e out.mrd || return 1
	done'

done_testing
