#!/usr/bin/env bash
# Moving walls and forces on walls: a belt (a plane moving in its own
# plane) drags a resting sphere until it rolls at the analytic speed, a
# plate rotating about its edge lifts a sphere, a plane oscillating along
# its normal carries a sphere up and down; the walls' poses are the closed
# form of time; the force on a plane under a resting sphere, and on a
# fixed plate under a column of spheres, is their weight and the torque
# its lever; every scheme gives the
# same bytes in process and --via-pipes; a resumed run ends where one long
# run ends; bad motions are refused at their line.
. "$(dirname "$0")/../lib/test-lib.sh"

cat >belt.yaml <<'Y'
shapes:
  ball: {analytic-sphere: {radius: 0.01}}
particles:
  - {shape: ball, position: [0, 0, 0.01038], density: 2500, epsilon_abs: 0.0002}
planes:
  - {point: [0, 0, 0], normal: [0, 0, 1], motion: {velocity: [0.1, 0, 0]}}
gravity: [0, 0, -9.81]
contact: {model: hooke, stiffness: 2.0e4, restitution: 0.5, friction: 0.5, plane_epsilon: 0.0002}
time: {dt: 2.0e-5, steps: 5000, scheme: velocity-verlet}
output: {every: 500}
Y

cat >lift.yaml <<'Y'
shapes:
  ball: {analytic-sphere: {radius: 0.01}}
  plate: {box: {size: [0.1, 0.1, 0.02], divisions: 2}}
particles:
  - {shape: plate, position: [0.05, 0, -0.01], fixed: true, epsilon_abs: 0.0002, motion: {rotate: {axis: [0, 1, 0], point: [0, 0, 0], omega: -1.0}, start: 0.01}}
  - {shape: ball, position: [0.08, 0, 0.01038], density: 2500, epsilon_abs: 0.0002}
gravity: [0, 0, -9.81]
contact: {model: hooke, stiffness: 2.0e4, restitution: 0.5, friction: 0.8, rolling_friction: 0.1, plane_epsilon: 0.0002}
time: {dt: 2.0e-5, steps: 5000, scheme: velocity-verlet}
output: {every: 500}
Y

cat >shake.yaml <<'Y'
shapes:
  ball: {analytic-sphere: {radius: 0.01}}
particles:
  - {shape: ball, position: [0, 0, 0.010395], density: 2500, epsilon_abs: 0.0002}
planes:
  - {point: [0, 0, 0], normal: [0, 0, 1], motion: {oscillate: {direction: [0, 0, 2], amplitude: 0.0005, frequency: 5}}}
gravity: [0, 0, -9.81]
contact: {model: hooke, stiffness: 2.0e4, restitution: 0.5, friction: 0.5, plane_epsilon: 0.0002}
time: {dt: 2.0e-5, steps: 10000, scheme: velocity-verlet}
output: {every: 250}
Y

pyread() { # stream python-expression on s (mrdem.read)
	PYTHONPATH=$TOP/python python3 -c "import math, mrdem, sys; s = mrdem.read(sys.argv[1]); print($2)" "$1"
}

expect_success "a belt drags a resting sphere until it rolls at 2/7 of the belt's speed" '
	mrdem-run -q belt.yaml -o belt.mrd && mrdem-stats belt.mrd >belt.csv &&
	v=$(pyread belt.mrd "s.frames[-1][\"velocity\"][0][0]") &&
	w=$(pyread belt.mrd "s.frames[-1][\"angular_velocity\"][0][1]") &&
	assert_near "$v" 0.028571 0.0009 "sphere speed (2/7 of 0.1 m/s; the lever is r + eps)" &&
	assert_near "$(awk -v v=$v -v w=$w "BEGIN { print v - 0.0102 * w }")" 0.1 0.0005 "contact point speed"'

expect_success "implicit-euler: the belt brings the sphere to the same rolling speed" '
	sed "s/velocity-verlet/implicit-euler/; s/steps: 5000/steps: 1500/" belt.yaml >belt-ie.yaml &&
	mrdem-run -q belt-ie.yaml -o belt-ie.mrd &&
	v=$(pyread belt-ie.mrd "s.frames[-1][\"velocity\"][0][0]") &&
	assert_near "$v" 0.028571 0.0009 "sphere speed"'

expect_success "the force on the belt is the weight, its torque about the plane point (moving with it) the weight times the lever" '
	m=$(awk "BEGIN { print 2500 * 4 / 3 * 3.141592653589793 * 1e-6 }") &&
	python3 -c "import csv; r = [x for x in csv.DictReader(open(\"belt.csv\")) if x[\"step\"] == \"4500\"][0]; print(r[\"plane_force_z.0\"], r[\"plane_torque_y.0\"])" >ft &&
	read fz ty <ft &&
	x=$(pyread belt.mrd "[f for f in s.frames if f.step == 4500][0][\"position\"][0][0] - 0.1 * 4500 * 2e-5") &&
	assert_near "$fz" "$(awk -v m=$m "BEGIN { print -m * 9.81 }")" 1e-6 "plane force z" &&
	assert_near "$ty" "$(awk -v m=$m -v x=$x "BEGIN { print m * 9.81 * x }")" 1e-6 "plane torque y"'

cat >column.yaml <<'Y'
shapes:
  ball: {analytic-sphere: {radius: 0.01}}
  plate: {box: {size: [0.1, 0.1, 0.02], divisions: 2}}
particles:
  - {shape: plate, position: [0, 0, -0.01], fixed: true, epsilon_abs: 0.0002}
  - {shape: ball, position: [0.02, 0, 0.01038], density: 2500, epsilon_abs: 0.0002}
  - {shape: ball, position: [0.02, 0, 0.03078], density: 2500, epsilon_abs: 0.0002}
  - {shape: ball, position: [0.02, 0, 0.05118], density: 2500, epsilon_abs: 0.0002}
gravity: [0, 0, -9.81]
contact: {model: hooke, stiffness: 2.0e4, restitution: 0.3, friction: 0.5, plane_epsilon: 0.0002}
time: {dt: 2.0e-5, steps: 9001, scheme: velocity-verlet}
output: {every: 1000}
Y

expect_success "a resting column of three spheres presses a fixed plate with its weight, off centre by its lever" '
	mrdem-run -q column.yaml -o column.mrd && mrdem-stats column.mrd >column.csv &&
	python3 -c "import csv; r = [x for x in csv.DictReader(open(\"column.csv\")) if x[\"step\"] == \"9000\"][0]; print(r[\"wall_force_z.0\"], r[\"wall_torque_y.0\"], r[\"wall_force_x.0\"])" >ft &&
	read fz ty fx <ft &&
	w=$(awk "BEGIN { print 3 * 2500 * 4 / 3 * 3.141592653589793 * 1e-6 * 9.81 }") &&
	assert_near "$fz" "-$w" 1e-6 "force on the plate" &&
	assert_near "$ty" "$(awk -v w=$w "BEGIN { print 0.02 * w }")" 1e-7 "torque about its centre (lever 0.02 m along x)" &&
	assert_near "$fx" 0 1e-9 "no sideways force"'

expect_success "a plate rotating about its edge lifts a sphere; its pose is the closed form of time" '
	mrdem-run -q lift.yaml -o lift.mrd &&
	z=$(pyread lift.mrd "s.frames[-1][\"position\"][1][2]") &&
	assert_true "$z > 0.0170" "the sphere lifted from 0.0104 m by 0.08 sin(0.09) m" &&
	pyread lift.mrd "max(abs(f[\"orientation\"][0][2] + math.sin(0.5 * max(f.time - 0.01, 0))) for f in s.frames)" >dq &&
	assert_true "$(cat dq) < 1e-12" "orientation off the closed form" &&
	pyread lift.mrd "max(abs(f[\"position\"][0][2] - 0.05 * math.sin(max(f.time - 0.01, 0)) + 0.01 * math.cos(max(f.time - 0.01, 0))) for f in s.frames)" >dz &&
	assert_true "$(cat dz) < 1e-12" "position off the closed form"'

expect_success "a plane oscillating along its normal carries a resting sphere with it" '
	mrdem-run -q shake.yaml -o shake.mrd &&
	pyread shake.mrd "max(abs(f[\"position\"][0][2] - 0.0103948 - 0.0005 * math.sin(2 * math.pi * 5 * f.time)) for f in s.frames)" >dev &&
	assert_true "$(cat dev) < 5e-5" "the sphere follows the plate (0.5 mm amplitude)"'

expect_success "mrdem-vtk draws a moving plane where it is at each frame's time" '
	mrdem-vtk --ascii -o shake-vtk shake.mrd &&
	! test -e shake-vtk/planes.vtp &&
	assert_grep "part=\"2\" file=\"planes-000004.vtp\"" shake-vtk/series.pvd &&
	for k in 0 1 2 3 4; do
		z=$(grep -A1 "Name=\"Points\"" shake-vtk/planes-00000$k.vtp | tail -1 | cut -d" " -f3) &&
		t=$(pyread shake.mrd "s.frames[$k].time") &&
		assert_near "$z" "$(awk -v t=$t "BEGIN { printf \"%.17g\", 0.0005 * sin(2 * 3.141592653589793 * 5 * t) }")" 1e-12 "plane z at frame $k" || return 1
	done'

expect_success "a fixed wall does not drift over 20,000 steps" '
	sed "s/steps: 5000/steps: 20000/; s/every: 500/every: 20000/; /shape: ball/d" lift.yaml >long.yaml &&
	mrdem-run -q long.yaml -o long.mrd &&
	pyread long.mrd "abs(s.frames[-1][\"orientation\"][0][2] + math.sin(0.5 * (s.frames[-1].time - 0.01)))" >d &&
	assert_true "$(cat d) < 1e-15" drift'

for scheme in velocity-verlet explicit-euler symplectic-euler implicit-euler; do
	expect_success "$scheme: moving plane and moving fixed box give the same bytes in process and --via-pipes" "
		sed 's/scheme: velocity-verlet/scheme: $scheme/' lift.yaml >l-$scheme.yaml &&
		printf 'planes:\n  - {point: [0, 0, -0.05], normal: [0, 0, 1], motion: {oscillate: {direction: [0, 0, 1], amplitude: 0.001, frequency: 2}}}\n' >>l-$scheme.yaml &&
		mrdem-run -q l-$scheme.yaml --steps 60 --every 20 -o in-$scheme.mrd &&
		mrdem-run -q l-$scheme.yaml --steps 60 --every 20 --via-pipes -o vp-$scheme.mrd &&
		same_stream in-$scheme.mrd vp-$scheme.mrd"
done

expect_success "a resumed run with moving walls ends where one long run ends" '
	mrdem-run -q l-velocity-verlet.yaml --steps 40 --every 20 -o long40.mrd &&
	mrdem-run -q l-velocity-verlet.yaml --steps 20 --every 20 -o first.mrd &&
	mrdem-run -q first.mrd --steps 20 -o second.mrd &&
	checks info second.mrd "of(\"frame\")[-1:]" >resumed.txt &&
	checks info long40.mrd "of(\"frame\")[-1:]" >long.txt &&
	cmp resumed.txt long.txt'

expect_success "the tools carry the motion record: init | pairs | contact | step steps the walls" '
	mrdem-init lift.yaml | mrdem-tree | mrdem-pairs | mrdem-contact | mrdem-step >one.mrd &&
	mrdem-info one.mrd >info.txt &&
	assert_grep "particle 0: rotate -1 rad/s about axis \[0 1 0\] through \[0 0 0\] from t = 0.01 s" info.txt &&
	assert_grep "wall_force_z.0" info.txt'

expect_success "mrdem-run --fast-spheres refuses moving walls" '
	sed "s/model: hooke, stiffness: 2.0e4, restitution: 0.5/model: spring-dashpot, stiffness: 2.0e4, damping: 10/" belt.yaml >dashpot.yaml &&
	assert_exit 1 mrdem-run dashpot.yaml --fast-spheres --steps 2 -o fast.mrd &&
	assert_grep "moving walls" err'

expect_success "a motion record that is bad is refused, naming the record" '
	mrdem-init lift.yaml -o lift-init.mrd &&
	for edit in "p[:12] + struct.pack(\"<I\", 7) + p[16:]" "p[:-8] + struct.pack(\"<d\", -1)" "p[:4] + struct.pack(\"<Q\", 2**64 - 3) + p[12:]"; do
		python3 -c "import struct, sys; sys.path.insert(0, \"$TOP/tests/lib\"); import mrdem_stream as m
m.rewrite(\"lift-init.mrd\", \"bad.mrd\", lambda t, p: $edit if t == 19 else p)" &&
		assert_exit 1 mrdem-info bad.mrd >/dev/null && assert_grep "record 2 (motion)" err || return 1
	done &&
	python3 -c "import struct, sys; sys.path.insert(0, \"$TOP/tests/lib\"); import mrdem_stream as m
m.rewrite(\"lift-init.mrd\", \"bad.mrd\", lambda t, p: p[:4] + struct.pack(\"<Q\", 5) + p[12:] if t == 19 else p)" &&
	assert_exit 1 mrdem-info bad.mrd >/dev/null && assert_grep "record 5 (frame).*1 of the 1 moving particles of the motion record are not in the frame" err'

expect_success "examples/shaker.yaml runs, its floor's force in the stats" '
	mrdem-run -q "$TOP/examples/shaker.yaml" --steps 100 --every 50 -o shaker-ex.mrd &&
	mrdem-stats shaker-ex.mrd | head -1 | grep -q "plane_force_z.0"'

bad_scene "a motion on a free particle" 'shapes:\n  b: {analytic-sphere: {radius: 1}}\nparticles:\n  - {shape: b, position: [0, 0, 0], motion: {velocity: [1, 0, 0]}}\n' \
	'bad.yaml:4:.*particles\[0\].motion: only a fixed particle'
bad_scene "a rotation about the zero axis" 'planes:\n  - point: [0, 0, 0]\n    normal: [0, 0, 1]\n    motion: {rotate: {axis: [0, 0, 0], omega: 1}}\n' \
	'bad.yaml:4:.*planes\[0\].motion.rotate.axis: the zero vector has no direction'
bad_scene "a negative amplitude" 'planes:\n  - {point: [0, 0, 0], normal: [0, 0, 1], motion: {oscillate: {direction: [0, 0, 1], amplitude: -1, frequency: 1}}}\n' \
	'bad.yaml:2:.*amplitude'
bad_scene "two motions at once" 'planes:\n  - {point: [0, 0, 0], normal: [0, 0, 1], motion: {velocity: [1, 0, 0], rotate: {axis: [0, 0, 1], omega: 1}}}\n' \
	'bad.yaml:2:.*motion'
bad_scene "a motion without a kind" 'planes:\n  - {point: [0, 0, 0], normal: [0, 0, 1], motion: {start: 1}}\n' \
	'bad.yaml:2:.*give one of velocity, rotate or oscillate'

done_testing
