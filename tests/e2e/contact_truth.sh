#!/usr/bin/env bash
# The patch force models (spring-dashpot, hooke, hertz) on the meshes that
# are not smooth spheres, through the tools: two noisy spheres of the
# paper's kind just inside and just outside their halos, a coarse box as a
# wall just out of reach above a ball, and a ball dropped onto a coarse box.
# They find the records the paper's model finds (those of the exact mesh
# distance), store no more energy than the exact overlap allows, and do
# not throw anything. (The exact distance against a reference of its own, on many
# more shapes: build/tests/test_contact_truth.)
. "$(dirname "$0")/../lib/test-lib.sh"

# The pair of noisy spheres, b at x = $1 from a (halos 0.0125 and 0.0374).
noisy() { # x contact-mapping
	cat >n.yaml <<Y
shapes:
  a: {sphere: {triangles: 1224, radius: 0.45, noise: 1.4, seed: 2}}
  b: {sphere: {triangles: 1280, radius: 0.5, noise: 1.3, seed: 7}}
particles:
  - {shape: a, position: [0, 0, 0]}
  - {shape: b, position: [$1, 0, 0]}
gravity: [0, 0, 0]
contact: {$2}
time: {dt: 1.0e-5, steps: 1}
Y
	mrdem-init n.yaml | mrdem-tree | mrdem-pairs | mrdem-contact >c.mrd &&
		mrdem-step c.mrd >n.mrd && mrdem-info --json c.mrd >c.json &&
		mrdem-info --json n.mrd >n.json
}
# records, deepest record and the step's contact energy
summary() {
	python3 - c.json n.json <<'PY'
import json, sys
R = json.load(open(sys.argv[1]))["records"]
c = [r for r in R if r["type"] == "contacts"][0]
R = json.load(open(sys.argv[2]))["records"]
e = [r for r in R if r["type"] == "stats" and r["source"] == "mrdem-step"][0]["values"]
print(c["contacts"], c.get("max_depth", 0), e["energy_contact"])
PY
}

PAPER="model: paper, stiffness: 1000"
HOOKE="model: hooke, stiffness: 1.0e6, restitution: 0.5"
expect_success "noisy spheres just inside the halos: every model finds the paper's records, hooke stores at most kn depth^2 / 2" '
	noisy 1.1135 "$PAPER" && read n d e < <(summary) && test "$n" -ge 1 &&
	for model in "$HOOKE" "model: spring-dashpot, stiffness: 1.0e6, damping: 10" \
		"model: hertz, young: 1.0e8, poisson: 0.3, restitution: 0.5"; do
		noisy 1.1135 "$model" && read n2 d2 e2 < <(summary) &&
		assert_eq "$n2 $d2" "$n $d" "$model: records, deepest" || return 1
	done &&
	noisy 1.1135 "$HOOKE" && read n2 d2 e2 < <(summary) &&
	echo "# $n records, deepest $d m, hooke stores $e2 J" &&
	awk -v e="$e2" -v d="$d" "BEGIN { exit !(e > 0 && e <= 0.5e6 * d * d * (1 + 1e-9)) }"'

expect_success "noisy spheres just outside the halos: no record for any model" '
	for model in "$PAPER" "$HOOKE"; do
		noisy 1.13 "$model" && read n d e < <(summary) && assert_eq "$n" 0 "$model: records" ||
			return 1
	done'

# A fixed 2 x 2 x 0.2 m box, 0.28 m above a ball of 320 triangles (halos
# 0.006 and 0.028): out of reach, nothing happens.
cat >wall.yaml <<'Y'
shapes:
  ball: {sphere: {triangles: 320, radius: 0.3}}
  slab: {box: {size: [2, 2, 0.2]}}
particles:
  - {shape: ball, position: [0, 0, 0], density: 1000}
  - {shape: slab, position: [0.1, -0.2, 0.68], fixed: true}
gravity: [0, 0, 0]
contact: {model: hooke, stiffness: 1.0e6, restitution: 0.5, friction: 0.3}
time: {dt: 1.0e-4, steps: 100, scheme: velocity-verlet}
output: {every: 50}
Y
expect_success "a coarse box wall out of reach above a ball: no contact, the ball stays at rest" '
	mrdem-run -q wall.yaml -o wall.mrd && mrdem-stats wall.mrd >wall.csv &&
	python3 - wall.csv <<PY
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert all(float(r["contacts"] or 0) == 0 for r in rows), [r["contacts"] for r in rows]
assert all(float(r["kinetic"]) == 0 for r in rows), [r["kinetic"] for r in rows]
PY'

# A ball dropped 0.2 m onto a fixed 2 x 2 x 0.6 m box of 2 x 2 quads a
# face: it bounces lower than it fell (restitution 0.5).
cat >drop.yaml <<'Y'
shapes:
  ball: {sphere: {triangles: 320, radius: 0.3}}
  block: {box: {size: [2, 2, 0.6], divisions: 2}}
particles:
  - {shape: ball, position: [0.05, 0.02, 0.806], density: 1000}
  - {shape: block, position: [0, 0, 0], fixed: true}
gravity: [0, 0, -9.81]
contact: {model: hooke, stiffness: 1.0e6, restitution: 0.5, friction: 0.3}
time: {dt: 1.0e-4, steps: 6000, scheme: velocity-verlet}
output: {every: 20}
Y
expect_success "a ball dropped 0.2 m onto a coarse box bounces lower than it fell" '
	mrdem-run -q drop.yaml -o drop.mrd &&
	PYTHONPATH="$TOP/python" python3 - drop.mrd <<PY
import sys, mrdem
s = mrdem.read(sys.argv[1])
z = [f["position"][0][2] for f in s.frames]
v = [f["velocity"][0][2] for f in s.frames]
low = z.index(min(z))
top = max(z[low:])
print("# lowest %.4f m, then up to %.4f m (dropped from %.4f m)" % (z[low], top, z[0]))
assert z[low] > 0.6, "the ball went into the box"
assert top < z[0], "it rose above where it was dropped"
assert any(x > 0 for x in v[low:]), "it did not bounce"
PY'

done_testing
