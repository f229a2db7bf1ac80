#!/usr/bin/env bash
# The explicit search that remembers (mrdem-run --warm-start): each mesh
# pair's search starts at its front of the last step, and finds the very
# contacts of the search from the roots (--cold-start, the paper's Alg. 5)
# at every step, record for record: colliding, rotating and sliding mesh
# particles, moving walls, particles inserted and removed; on one thread
# and two. Only the search's work counters differ (what it compared).
. "$(dirname "$0")/../lib/test-lib.sh"

# the counters of the search's work: all the rest must be the same
WORK=comparisons,comparisons_real,iterative,fallbacks,unconverged,intersecting,undecided
WORK=$WORK,pruned,sphere_pruned,$(seq -s, -f comparisons_round_%g 0 15)
for k in unfolds narrows pinned guesses size skipped certificates; do
	WORK=$WORK,front_$k
done

# two lumpy, stretched bodies collide off centre, spinning
cat >collide.yaml <<'Y'
shapes:
  lump: {sphere: {triangles: 320, radius: 1.0, noise: 1.15, stretch: 1.3, seed: 4}}
  egg: {sphere: {triangles: 500, radius: 0.7, noise: 1.1, stretch: 1.6, stretch_axis: z, seed: 5}}
particles:
  - {shape: lump, position: [-1.1, 0, 0], velocity: [2.0, 0, 0], angular_velocity: [0, 0, 9]}
  - {shape: egg, position: [1.0, 0.4, 0], velocity: [-2.0, 0, 0], angular_velocity: [7, 3, 0]}
  - {shape: egg, position: [3.0, -0.2, 0.2], velocity: [-1.0, 0, 0], angular_velocity: [0, 5, 0]}
contact: {model: hooke, stiffness: 1.0e4, restitution: 0.5, friction: 0.4, epsilon: 0.01}
time: {dt: 2.0e-4, steps: 600, scheme: velocity-verlet}
Y
# a box slides and a ball rolls on a fixed mesh floor; a fixed paddle turns
# through them (a moving wall)
cat >slide.yaml <<'Y'
shapes:
  floor: {plane: {size: [8, 8], divisions: [4, 4]}}
  brick: {box: {size: [0.8, 0.5, 0.3], divisions: 2}}
  ball: {sphere: {triangles: 320, radius: 0.3}}
  paddle: {box: {size: [1.6, 0.2, 0.6]}}
particles:
  - {shape: floor, position: [0, 0, 0], fixed: true, epsilon_abs: 0.01}
  - {shape: brick, position: [-1.5, 0, 0.165], velocity: [1.5, 0, 0], density: 1000}
  - {shape: ball, position: [0.5, -1.0, 0.315], velocity: [0, 1.5, 0], angular_velocity: [-5, 0, 0], density: 1000}
  - {shape: paddle, position: [0, 0, 0.45], fixed: true, motion: {rotate: {axis: [0, 0, 1], point: [0, 0, 0], omega: 3}}}
gravity: [0, 0, -9.81]
contact: {model: hooke, stiffness: 1.0e5, restitution: 0.3, friction: 0.3, epsilon_abs: 0.01}
time: {dt: 2.0e-4, steps: 600, scheme: velocity-verlet}
Y
# mesh beads poured onto a fixed mesh floor, a remove box at one side
cat >flow.yaml <<'Y'
shapes:
  floor: {plane: {size: [0.3, 0.3], divisions: [3, 3]}}
  bead: {sphere: {triangles: 80, radius: 0.01}}
particles:
  - {shape: floor, position: [0, 0, 0], fixed: true, epsilon_abs: 0.0005}
insert:
  - {region: {box: {min: [-0.03, -0.03, 0.02], max: [0.03, 0.03, 0.06]}}, shape: bead, count: 12, density: 2500, velocity: [0.4, 0, -0.3], seed: 2}
  - {region: {box: {min: [-0.05, -0.05, 0.08], max: [0.05, 0.05, 0.12]}}, shape: bead, count: 10, time: 0.02, density: 2500, seed: 3}
remove:
  - {box: {min: [0.06, -1, -1], max: [1, 1, 1]}}
gravity: [0, 0, -9.81]
contact: {model: hooke, stiffness: 2.0e4, restitution: 0.3, friction: 0.5, epsilon_abs: 0.0005}
time: {dt: 5.0e-5, steps: 1000, scheme: velocity-verlet}
Y

# name threads start: run one scene, every frame written
run() {
	OMP_NUM_THREADS=$2 mrdem-run -q $1.yaml --every 1 --$3-start -o $1.$3.$2.mrd
}
# the sum of a stats column over a stream
total() { # file column
	mrdem-stats "$1" >"$1.csv" && python3 - "$1.csv" "$2" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(sum(float(r[sys.argv[2]]) for r in rows if r.get(sys.argv[2]) not in (None, "")))
PY
}

for scene in collide slide flow; do
	expect_success "$scene: fronts kept give the contacts of the search from the roots, every step" "
		run $scene 1 cold && run $scene 1 warm &&
		python3 \"\$TOP/tests/lib/mrdem_stream.py\" --same $scene.cold.1.mrd $scene.warm.1.mrd \
			--except \"\$WORK\" &&
		assert_true \"\$(total $scene.cold.1.mrd contacts) > 0\" contacts &&
		assert_true \"\$(total $scene.warm.1.mrd front_skipped) > 0\" 'pairs skipped by the motion bound'"
	expect_success "$scene: fronts kept on two threads write the bytes of one thread" "
		run $scene 2 warm &&
		python3 \"\$TOP/tests/lib/mrdem_stream.py\" --same $scene.warm.1.mrd $scene.warm.2.mrd"
done

expect_success "the cold search is the default, and writes no front counters" '
	mrdem-run -q collide.yaml --every 1 -o collide.default.mrd &&
	same_stream collide.cold.1.mrd collide.default.mrd &&
	! mrdem-stats collide.default.mrd | head -1 | grep -q front_'

expect_success "--warm-start: refused where there are no fronts to keep, or the search runs apart" '
	assert_exit 2 mrdem-run -q collide.yaml --warm-start --hierarchy flat -o x.mrd &&
	assert_grep "hierarchy flat has none" err &&
	assert_exit 2 mrdem-run -q collide.yaml --cold-start --scheme implicit-euler -o x.mrd &&
	assert_grep "apply to the search of an explicit scheme" err &&
	assert_exit 2 mrdem-run -q collide.yaml --warm-start --via-pipes -o x.mrd &&
	assert_grep "warm-start keeps the fronts" err &&
	assert_exit 2 mrdem-run -q collide.yaml --surrogate-damping 0.5 -o x.mrd &&
	printf "shapes:\n  b: {analytic-sphere: {radius: 1}}\nparticles:\n  - {shape: b, position: [0, 0, 0]}\ntime: {dt: 1.0e-3, steps: 2, scheme: velocity-verlet}\n" >fast.yaml &&
	assert_exit 2 mrdem-run -q fast.yaml --fast-spheres --warm-start -o x.mrd &&
	assert_grep "warm-start" err &&
	if [ -x "$MRDEM_BIN/mrdem-run-mpi" ]; then
		assert_exit 2 mrdem-run-mpi -q collide.yaml --warm-start -o x.d &&
		assert_grep "searches from the roots every step" err && ! test -e x.d
	fi &&
	! test -e x.mrd'

done_testing
