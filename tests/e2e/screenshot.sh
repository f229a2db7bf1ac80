#!/usr/bin/env bash
# docs/paraview/mrdem_screenshot.py under xvfb-run pvpython: nine analytic
# balls dropped into a box of five analytic planes. It draws the frame
# without contacts (an empty contacts file) and a frame with contacts, and
# pvscreenshot.py checks the first: the particles fill the picture and are
# opaque, the planes are drawn, and --opacity 0.5 lets them show through.
# Skipped without pvpython (Debian: python3-paraview) or xvfb-run.
. "$(dirname "$0")/../lib/test-lib.sh"
E=$TOP/tests/e2e
SHOT=$TOP/docs/paraview/mrdem_screenshot.py
PV=$(command -v pvpython || true)
if [ -z "$PV" ] || ! command -v xvfb-run >/dev/null 2>&1; then
	echo "ok 1 # SKIP pvpython or xvfb-run not installed: the screenshot script"
	echo "1..1"
	exit 0
fi

# Debian's ParaView aborts now and then creating its GLX window under Xvfb
# (before drawing anything), so up to 3 starts; the last one's output in shot.log.
shot() { # DIR OUT.png FRAME [options]
	local try rc
	for try in 1 2 3; do
		xvfb-run -a -s "-screen 0 1280x1024x24" "$PV" "$SHOT" "$@" >shot.log 2>&1
		rc=$?
		[ $rc = 0 ] && break
		grep -q "Aborting\|SIGABRT" shot.log || break
	done
	[ $rc = 0 ] || { tail -5 shot.log; return 1; }
}

cat >box.yaml <<'YAML'
shapes:
  ball: {analytic-sphere: {radius: 0.01}}
particles:
  - lattice: {shape: ball, origin: [-0.025, -0.025, 0.02], count: [3, 3, 1], spacing: 0.025,
              jitter: 0.002, seed: 3, density: 2500, epsilon_abs: 0.0002}
planes:
  - {point: [0, 0, 0], normal: [0, 0, 1]}
  - {point: [-0.045, 0, 0], normal: [1, 0, 0]}
  - {point: [0.045, 0, 0], normal: [-1, 0, 0]}
  - {point: [0, -0.045, 0], normal: [0, 1, 0]}
  - {point: [0, 0.045, 0], normal: [0, -1, 0]}
gravity: [0, 0, -9.81]
contact: {model: spring-dashpot, stiffness: 2000, damping: 50, friction: 0.4, plane_epsilon: 0.0002}
time: {dt: 2.0e-5, steps: 6000, scheme: velocity-verlet}
output: {every: 1000}
YAML

expect_success "a run of balls in a box of planes: frame 0 has no contacts, frame 6 has some" '
	mrdem-run box.yaml --general-path -o box.mrd 2>/dev/null && mrdem-vtk -o v box.mrd &&
	test -f v/planes.vtp && test -f v/contacts-000000.vtp &&
	python3 - <<PY
import sys
sys.path.insert(0, "$E")
import vtkcheck
n = [vtkcheck.read_vtp("v/contacts-%06d.vtp" % k)["npoints"] for k in (0, 6)]
assert n[0] == 0 and n[1] > 0, n
PY'
expect_success "the frame without contacts is drawn (an empty contacts file)" '
	shot v planes.png 0 && assert_grep "frame 0 (t = 0 s), 0 contact points" shot.log'
expect_success "the frame with contacts is drawn, with its force arrows" '
	shot v contacts.png 6 && grep -q "frame 6 .*, [1-9][0-9]* contact points" shot.log'
expect_success "opaque particles that fill the picture, the planes drawn around them" '
	mkdir bare && cp v/* bare/ && rm bare/planes.vtp &&
	shot bare bare.png 0 && shot v half.png 0 --opacity 0.5 &&
	"$PV" "$E/pvscreenshot.py" planes.png bare.png half.png'
expect_failure "a frame past the series is refused" 'shot v none.png 7'

done_testing
