#!/bin/bash
# The run's guards (common/sim/run_guard.h): a run whose energy grows over
# many steps, a particle that moves further than its halo in one step and
# a particle that leaves through a plane each stop mrdem-run with exit 1,
# naming the step and the particle, the output ending with the frame at the
# start of that step (however rarely frames are written), from which a run
# resumes. Steps below the bounds run as before.
. "$(dirname "$0")/../lib/test-lib.sh"

# 18 balls jittered on a floor, dt 2 ms for a stiff contact with explicit
# Euler: the energy grows by half within a hundred steps.
cat >blow.yaml <<'Y'
shapes:
  ball: {sphere: {triangles: 80, radius: 0.5}}
particles:
  - lattice: {shape: ball, origin: [0, 0, 0.6], count: [3, 3, 2], spacing: 1.2, jitter: 0.05, seed: 3}
planes:
  - {point: [0, 0, 0], normal: [0, 0, 1]}
gravity: [0, 0, -9.81]
contact: {model: hooke, stiffness: 1.0e4, restitution: 0.9, epsilon_abs: 0.05, plane_epsilon: 0.05}
time: {dt: 2.0e-3, steps: 2000, scheme: explicit-euler}
output: {every: 100}
Y
# A ball thrown down at 9.5 m/s with a halo of 1 cm at dt 1 ms: it covers
# its halo in one step at 10 m/s (step 31 on).
cat >fall.yaml <<'Y'
shapes:
  ball: {sphere: {triangles: 80, radius: 0.5}}
particles:
  - {shape: ball, position: [0, 0, 5], velocity: [0, 0, -9.5]}
gravity: [0, 0, -9.81]
contact: {model: hooke, stiffness: 1.0e4, restitution: 0.5, epsilon_abs: 0.01}
time: {dt: 1.0e-3, steps: 100, scheme: velocity-verlet}
output: {every: 20}
Y
# A ball on a floor too soft to hold it (kn 1 N/m): it sinks through.
cat >sink.yaml <<'Y'
shapes:
  ball: {sphere: {triangles: 80, radius: 0.5}}
particles:
  - {shape: ball, position: [0, 0, 0.7]}
planes:
  - {point: [0, 0, 0], normal: [0, 0, 1]}
gravity: [0, 0, -9.81]
contact: {model: hooke, stiffness: 1, restitution: 0.5, epsilon_abs: 0.05, plane_epsilon: 0.05}
time: {dt: 1.0e-3, steps: 1000, scheme: velocity-verlet}
output: {every: 100}
Y

# The step named in "error: step N (t = ...)" of err, and the last frame's
# step in the stream.
failed_step() { sed -n "s/.*error: step \([0-9]*\) (t = .*/\1/p" "$1" | head -1; }
last_frame() {
	checks last-step "$1"
}

expect_success "a run whose energy grows over many steps stops, naming the step and a particle" '
	assert_exit 1 mrdem-run -q blow.yaml -o blow.mrd && cat err &&
	assert_grep "error: step [0-9]* (t = .*): the kinetic and gravitational energy grew beyond the total energy by [0-9.e+]* J over the [0-9]* steps since step [0-9]*, more than 1 times the .* fastest particle [0-9]* (" err &&
	assert_grep "error: stopped at step [0-9]* .*the output ends with the frame at its start" err &&
	n=$(failed_step err) && test "$n" -gt 1 && test "$n" -lt 2000 &&
	assert_eq "$(last_frame blow.mrd)" "$n" "last frame written"'

expect_success "... and a run resumes from that frame" '
	n=$(failed_step err) && mrdem-run -q blow.mrd --steps 2 -o more.mrd &&
	assert_eq "$(last_frame more.mrd)" $((n + 2)) "last frame of the resumed run"'

expect_success "--max-energy-growth 0 turns the window off as it does the one-step bound" '
	mrdem-run -q blow.yaml --max-energy-growth 0 --steps 300 -o off.mrd'

expect_success "a particle faster than its halo per step stops the run, naming it and its speed" '
	assert_exit 1 mrdem-run -q fall.yaml -o fall.mrd && cat err &&
	assert_grep "error: step 51 (t = 0.051 s): particle 0 moves 0.01[0-9]* m in one step (speed 10.0[0-9]* m/s), more than its halo 0.01 m" err &&
	assert_eq "$(last_frame fall.mrd)" 51 "last frame written"'

expect_success "... the same through the tools (--via-pipes)" '
	assert_exit 1 mrdem-run -q --via-pipes fall.yaml -o pipes.mrd && cat err &&
	assert_grep "error: step 51 (t = 0.051 s): particle 0 moves" err &&
	assert_eq "$(last_frame pipes.mrd)" 51 "last frame written"'

expect_success "a particle whose centre crosses a plane has left the scene" '
	assert_exit 1 mrdem-run -q sink.yaml -o sink.mrd && cat err &&
	assert_grep "error: step [0-9]* (t = .*): particle 0 left the scene through plane 0: its centre (0, 0, -[0-9.e-]*) is on the plane" err &&
	n=$(failed_step err) && assert_eq "$(last_frame sink.mrd)" "$n" "last frame written"'

expect_success "the same scenes at a small enough time step or with a floor run to the end" '
	sed "s/2.0e-3/1.0e-4/" blow.yaml >fine.yaml &&
	mrdem-run -q fine.yaml --steps 400 -o fine.mrd &&
	sed "s/stiffness: 1,/stiffness: 1.0e4,/" sink.yaml >floor.yaml &&
	mrdem-run -q floor.yaml -o floor.mrd'

done_testing
