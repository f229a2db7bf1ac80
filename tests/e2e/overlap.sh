#!/bin/bash
# Initial overlaps: mrdem-init and mrdem-run report a start whose particles
# lie deep inside each other's halos (or across a plane), refuse it when its
# contact energy exceeds the scene's kinetic and potential energy unless
# --allow-overlap or contact.allow_overlap says so, and let touching starts
# (every shipped example) through silently.
. "$(dirname "$0")/../lib/test-lib.sh"

# Balls of radius 0.5 with halos of 0.05 m (0.1 m per pair): OFFSET is the
# gap between the surfaces of particles 0 and 1 (0.02: depth 0.08, 0.8 of
# the halos), Z the height of particle 2 over the floor plane, V the speed
# of particle 0, KEY extra contact keys.
scene() { # offset z v [key]
	cat <<EOT
shapes:
  ball: {sphere: {triangles: 320, radius: 0.5}}
particles:
  - {shape: ball, position: [0, 0, 1], velocity: [$3, 0, 0]}
  - {shape: ball, position: [$(echo "1 + $1" | bc -l), 0, 1]}
  - {shape: ball, position: [3, 0, $2]}
planes:
  - {point: [0, 0, 0], normal: [0, 0, 1]}
gravity: [0, 0, -9.81]
contact: {model: hooke, stiffness: 1.0e5, restitution: 0.5, epsilon_abs: 0.05, plane_epsilon: 0.05${4:+, $4}}
time: {dt: 1.0e-4, steps: 20, scheme: velocity-verlet}
output: {every: 10}
EOT
}

expect_success "a deep pair is refused by mrdem-init, naming both ids, the depth and the energies; no output" '
	scene 0.02 2 0 >deep.yaml &&
	assert_exit 1 mrdem-init deep.yaml -o out.mrd && cat err && ! test -e out.mrd &&
	assert_grep "deep.yaml: 1 initial overlap(s) deeper than 0.5 of the halos; deepest: particle 0 and particle 1, depth 0.08 m (0.8 of their halos); contact energy [0-9.e+]* J against [0-9.]* J of kinetic + potential" err &&
	assert_grep "allow-overlap" err'

expect_success "... and by mrdem-run, before any output" '
	scene 0.02 2 0 >deep.yaml &&
	assert_exit 1 mrdem-run deep.yaml -o out.mrd && cat err && ! test -e out.mrd &&
	assert_grep "deepest: particle 0 and particle 1" err'

expect_success "a particle across a plane, centre on the free side, is refused naming the plane" '
	scene 0.5 0.45 0 >plane.yaml &&
	assert_exit 1 mrdem-init plane.yaml -o out.mrd && cat err && ! test -e out.mrd &&
	assert_grep "deepest: particle 2 and plane 0, depth 0.1[0-9]* m" err'

expect_success "two overlaps are counted as pairs, however many contact records each has" '
	scene 0.02 0.45 0 >two.yaml &&
	assert_exit 1 mrdem-init two.yaml -o out.mrd && cat err &&
	assert_grep ": 2 initial overlap(s) deeper" err'

expect_success "--allow-overlap and contact.allow_overlap start it: mrdem-init does not search, mrdem-run reports a warning" '
	scene 0.02 2 0 >deep.yaml && scene 0.02 2 0 "allow_overlap: true" >key.yaml &&
	mrdem-init --allow-overlap deep.yaml -o a.mrd 2>a.err && cat a.err && ! test -s a.err &&
	mrdem-init key.yaml -o k.mrd 2>k.err && ! test -s k.err &&
	mrdem-run --allow-overlap deep.yaml -o r.mrd 2>r.err && cat r.err &&
	assert_grep "warning: deep.yaml: 1 initial overlap" r.err &&
	assert_grep "^  start: [0-9]* contact(s), contact energy [1-9][0-9.e+]* J against 0 J kinetic and [0-9.]* J potential" r.err &&
	mrdem-run key.yaml -o rk.mrd 2>rk.err && assert_grep "warning: key.yaml" rk.err'

expect_success "a deep overlap with less energy than the motion is reported, not refused" '
	scene 0.02 2 60 >fast.yaml &&
	mrdem-init fast.yaml -o f.mrd 2>f.err && cat f.err &&
	assert_grep "warning: fast.yaml: 1 initial overlap(s) deeper than 0.5" f.err'

expect_success "touching (depth 0.3 of the halos) passes silently; the summary names the start" '
	scene 0.07 2 0 >touch.yaml &&
	mrdem-init touch.yaml -o t.mrd 2>t.err && ! test -s t.err &&
	mrdem-run touch.yaml -o r.mrd 2>r.err && cat r.err && ! grep -q warning r.err &&
	assert_grep "^  start: [1-9][0-9]* contact(s), contact energy [1-9][0-9.e+-]* J against 0 J kinetic and [0-9.]* J potential (gravity above the lowest particle); 0 overlap(s) deeper than 0.5 of the halos" r.err'

expect_success "contact.allow_overlap must be a boolean" '
	scene 0.02 2 0 "allow_overlap: 3" >bad.yaml &&
	assert_exit 1 mrdem-init bad.yaml -o out.mrd && cat err && ! test -e out.mrd &&
	assert_grep "bad.yaml:[0-9]*:[0-9]*: .*allow_overlap" err'

# Every shipped scene starts touching at most: none is refused or warned.
for f in "$TOP"/examples/*.yaml; do
	expect_success "$(basename "$f") starts without overlaps" "
		mrdem-init '$f' -o ex.mrd 2>ex.err && cat ex.err && ! grep -q overlap ex.err"
done

done_testing
