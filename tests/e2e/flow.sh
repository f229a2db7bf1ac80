#!/usr/bin/env bash
# Inflow and outflow (docs/scene.md "insert", "remove"; docs/dynamics.md
# "Inflow and outflow"): particles falling through a remove box disappear
# and are counted with their exact mass; an insertion places exactly its
# closed-form schedule, never overlapping, the same particles in process,
# through pipes and on resume, with every scheme; a region that cannot take
# the particles stops the run naming the insertion; bad input is refused at
# its line.
. "$(dirname "$0")/../lib/test-lib.sh"

flowcheck() {
	python3 "$TOP/tests/e2e/flowcheck.py" "$@"
}

# six beads at different heights above a remove box
cat >drop.yaml <<'Y'
shapes:
  bead: {analytic-sphere: {radius: 0.01}}
particles:
  - {shape: bead, position: [0.00, 0, 0.02], density: 2500}
  - {shape: bead, position: [0.05, 0, 0.04], density: 2600}
  - {shape: bead, position: [0.10, 0, 0.06], density: 2700}
  - {shape: bead, position: [0.15, 0, 0.08], density: 2800}
  - {shape: bead, position: [0.20, 0, 0.10], density: 2900}
  - {shape: bead, position: [0.25, 0, 0.50], density: 3000}
remove:
  - {box: {min: [-1, -1, -1], max: [1, 1, 0]}}
gravity: [0, 0, -9.81]
contact: {model: hooke, stiffness: 2.0e5, restitution: 0.3, epsilon_abs: 0.0005}
time: {dt: 1.0e-4, steps: 1500, scheme: velocity-verlet}
output: {every: 100}
Y

expect_success "outflow: beads falling through a remove box disappear, counted with their mass" '
	mrdem-run -q drop.yaml -o drop.mrd &&
	flowcheck outflow drop.mrd && flowcheck balance drop.mrd && flowcheck last drop.mrd 1 &&
	flowcheck stepstats drop.mrd removed_particles,removed_mass'

# a rate from 1 ms to 11 ms in steps of 0.1 ms: 0.5 per step, 50 in all,
# and five of two sizes at once at the start; no gravity, at rest
cat >rain.yaml <<'Y'
shapes:
  small: {analytic-sphere: {radius: 0.005}}
  large: {analytic-sphere: {radius: 0.01}}
insert:
  - region: {box: {min: [-0.1, -0.1, 0], max: [0.1, 0.1, 0.2]}}
    shape: small
    rate: 5000
    from: 0.001
    to: 0.011
    seed: 11
  - region: {cylinder: {point: [0, 0, 0.3], axis: [0, 0, 1], radius: 0.1, length: 0.1}}
    shapes: [{shape: small, fraction: 0.4}, {shape: large, fraction: 0.6}]
    count: 5
    mass: 0.01
    orientation: [1, 0, 0, 0]
    velocity: [0, 0, 0]
gravity: [0, 0, 0]
contact: {model: hooke, stiffness: 2.0e5, restitution: 0.3, epsilon_abs: 0.0005}
time: {dt: 1.0e-4, steps: 130, scheme: velocity-verlet}
output: {every: 7}
Y

expect_success "inflow: mrdem-init places what is due at step 0" '
	mrdem-init rain.yaml -o rain0.mrd &&
	flowcheck last rain0.mrd 5 &&
	mrdem-info rain0.mrd >rain0.txt &&
	assert_grep "insert\[0\]: 50 particle(s), ids 0..49, 0.5 per step of 0.0001 s from step 10" rain0.txt &&
	assert_grep "insert\[1\]: 5 particle(s), ids 50..54, all at step 0" rain0.txt'

expect_success "inflow: a rate places exactly the closed-form count by each frame, none overlapping" '
	mrdem-run -q rain.yaml -o rain.mrd &&
	flowcheck schedule rain.mrd 0 && flowcheck apart rain.mrd && flowcheck balance rain.mrd &&
	flowcheck last rain.mrd 55 && flowcheck stepstats rain.mrd inserted_particles'

expect_success "inflow and outflow: --via-pipes gives the very same bytes" '
	sed "s/steps: 130/steps: 40/" rain.yaml >rain40.yaml &&
	mrdem-run -q rain40.yaml -o in40.mrd && mrdem-run -q --via-pipes rain40.yaml -o p40.mrd &&
	same_stream in40.mrd p40.mrd &&
	sed "s/steps: 1500/steps: 40/; s/0.02\], density: 2500/0.002], velocity: [0, 0, -1], density: 2500/" \
		drop.yaml >drop40.yaml &&
	mrdem-run -q drop40.yaml -o din.mrd && mrdem-run -q --via-pipes drop40.yaml -o dp.mrd &&
	same_stream din.mrd dp.mrd && flowcheck outflow dp.mrd'

expect_success "inflow: a run resumed in the middle of an insertion inserts the same particles" '
	sed "s/steps: 130/steps: 50/" rain.yaml >rain50.yaml &&
	mrdem-run -q rain50.yaml -o part.mrd && mrdem-run -q part.mrd --steps 80 -o rest.mrd &&
	assert_eq "$(checks info rest.mrd "of(\"frame\")[-1][\"step\"], of(\"frame\")[-1][\"state\"]")" \
		"$(checks info rain.mrd "of(\"frame\")[-1][\"step\"], of(\"frame\")[-1][\"state\"]")" resumed'

expect_success "inflow and outflow: implicit-euler, in process and through pipes alike" '
	sed "s/scheme: velocity-verlet/scheme: implicit-euler/; s/steps: 130/steps: 25/; s/every: 7/every: 5/" \
		rain.yaml >rain_ie.yaml &&
	mrdem-run -q rain_ie.yaml -o ie.mrd && mrdem-run -q --via-pipes rain_ie.yaml -o iep.mrd &&
	same_stream ie.mrd iep.mrd && flowcheck schedule ie.mrd 0'

for scheme in explicit-euler symplectic-euler; do
	expect_success "inflow and outflow: $scheme" "
		sed 's/scheme: velocity-verlet/scheme: $scheme/' rain.yaml >rain_$scheme.yaml &&
		mrdem-run -q rain_$scheme.yaml -o r_$scheme.mrd && flowcheck schedule r_$scheme.mrd 0 &&
		sed 's/scheme: velocity-verlet/scheme: $scheme/' drop.yaml >drop_$scheme.yaml &&
		mrdem-run -q drop_$scheme.yaml -o d_$scheme.mrd && flowcheck outflow d_$scheme.mrd"
done

# noisy mesh rocks rained on a fixed open mesh floor, the region reaching
# below it: no rock is placed within its reach of the floor's triangles
cat >rocks.yaml <<'Y'
shapes:
  rock: {sphere: {triangles: 80, radius: 0.01, noise: 1.2, seed: 3}}
  floor: {plane: {size: [0.3, 0.3], divisions: [4, 4]}}
particles:
  - {shape: floor, position: [0, 0, 0], fixed: true, epsilon_abs: 0.0005}
insert:
  - region: {box: {min: [-0.1, -0.1, -0.01], max: [0.1, 0.1, 0.1]}}
    shape: rock
    density: 2500
    rate: 2000
    to: 0.02
    seed: 5
remove:
  - {outside: {min: [-0.15, -0.15, -0.05], max: [0.15, 0.15, 0.3]}}
gravity: [0, 0, -9.81]
contact: {model: hooke, stiffness: 2.0e5, restitution: 0.3, friction: 0.5, epsilon_abs: 0.0005}
time: {dt: 2.0e-5, steps: 1000, scheme: velocity-verlet}
output: {every: 250}
Y

expect_success "inflow of mesh particles: clear of a fixed mesh, the schedule kept, the same through pipes" '
	mrdem-run -q rocks.yaml -o rocks.mrd && flowcheck schedule rocks.mrd 1 &&
	flowcheck above rocks.mrd 0.0105 &&
	sed "s/steps: 1000/steps: 30/; s/every: 250/every: 10/; s/rate: 2000/rate: 20000/" rocks.yaml >rocks30.yaml &&
	mrdem-run -q rocks30.yaml -o r30.mrd && mrdem-run -q --via-pipes rocks30.yaml -o r30p.mrd &&
	same_stream r30.mrd r30p.mrd && flowcheck schedule r30p.mrd 1'

# a hopper-like loop: a stream in at the top, out at the bottom
cat >loop.yaml <<'Y'
shapes:
  bead: {analytic-sphere: {radius: 0.01}}
insert:
  - region: {box: {min: [-0.05, -0.05, 0.3], max: [0.05, 0.05, 0.4]}}
    shape: bead
    density: 2500
    velocity: [0, 0, -2]
    rate: 500
    to: 1
remove:
  - {box: {min: [-1, -1, -1], max: [1, 1, 0]}}
  - {outside: {min: [-0.5, -0.5, -2], max: [0.5, 0.5, 1]}}
gravity: [0, 0, -9.81]
contact: {model: hooke, stiffness: 2.0e5, restitution: 0.3, friction: 0.5, epsilon_abs: 0.0005}
time: {dt: 1.0e-4, steps: 4000, scheme: velocity-verlet}
output: {every: 500}
Y

expect_success "continuous inflow and outflow keep running, every particle accounted for" '
	mrdem-run -q loop.yaml -o loop.mrd && flowcheck balance loop.mrd &&
	checks info loop.mrd "sum(r[\"values\"].get(\"outflow_particles\", 0) for r in of(\"stats\")) > 100" >out &&
	assert_eq "$(cat out)" True "particles out"'

expect_success "examples/hopper.yaml cut to 0.2 s: grains fed in, the first ones out, all accounted for" '
	sed "s/steps: 20000/steps: 5000/; s/every: 1250/every: 1000/" "$TOP/examples/hopper.yaml" >hop.yaml &&
	grep -q "steps: 5000" hop.yaml && mrdem-run -q hop.yaml -o hop.mrd && flowcheck balance hop.mrd &&
	checks info hop.mrd "sum(r[\"values\"].get(\"outflow_particles\", 0) for r in of(\"stats\"))" >out &&
	assert_true "$(cat out) > 0" "grains out"'

cat >full.yaml <<'Y'
shapes:
  bead: {analytic-sphere: {radius: 0.01}}
insert:
  - {region: {box: {min: [0, 0, 0], max: [0.03, 0.03, 0.03]}}, shape: bead, count: 50}
contact: {model: hooke, stiffness: 2.0e5, restitution: 0.3, epsilon_abs: 0.0005}
time: {dt: 1.0e-4, steps: 10}
Y

expect_success "a region that cannot take the particles due at time 0 is refused at its line" '
	assert_exit 1 mrdem-init full.yaml -o full.mrd && ! test -e full.mrd &&
	assert_grep "insert\[0\] placed [0-9]* of the 50 particles due at this step" err &&
	assert_grep "full.yaml:4:5: insert\[0\]: cannot place the 50 particles due at time 0" err'

expect_success "a rate the region cannot take stops the run at that step, the frames before kept" '
	sed "s/count: 50/rate: 50000, from: 0.0002, to: 0.001/" full.yaml >fast.yaml &&
	assert_exit 1 mrdem-run -q fast.yaml -o fast.mrd &&
	assert_grep "insert\[0\] placed [0-9]* of the 5 particles due at this step" err &&
	assert_grep "stopped at step" err && test -e fast.mrd'

expect_success "an insertion on the sphere fast path is refused" '
	sed "s/model: hooke, stiffness: 2.0e5, restitution: 0.3,/model: spring-dashpot, stiffness: 2.0e5, damping: 10,/" \
		drop.yaml >sd.yaml &&
	assert_exit 1 mrdem-run -q --fast-spheres sd.yaml -o sd.mrd &&
	assert_grep "particles enter or leave it" err'

cat >badflow.py <<'PY'
import struct, sys
sys.path.insert(0, sys.argv[1])
import mrdem_stream as ms
def region(kind, a, b, r):
    return struct.pack("<I", kind) + ms.f64s(a) + ms.f64s(b) + ms.f64s([r])
box = region(1, [0, 0, 0], [1, 1, 1], 0)
def insertion(reg=box, fraction=1.0, first=10, total=5, shape=0, material=0):
    return (reg + struct.pack("<I", 1) + struct.pack("<II", shape, material)
            + ms.f64s([fraction, 2500, 0.001])
            + ms.f64s([0] * 6) + struct.pack("<I", 1) + ms.f64s([1, 0, 0, 0])
            + struct.pack("<QQQQ", 0, first, total, 0) + ms.f64s([0.5, 1e-3]))
def inflow(*ins):
    return ms.record(20, struct.pack("<I", len(ins)) + b"".join(ins))
def outflow(*regs):
    return ms.record(21, struct.pack("<I", len(regs)) + b"".join(regs))
src = [(t, p) for t, p in ms.records(open(sys.argv[2], "rb").read()) if t in (1, 14, 16)]
head = b"".join(ms.record(t, p) for t, p in src)
bad = {"kind": outflow(region(9, [0, 0, 0], [1, 1, 1], 0)),
       "minmax": outflow(region(1, [0, 2, 0], [1, 1, 1], 0)),
       "radius": outflow(region(2, [0, 0, 0], [0, 0, 1], 0)),
       "none": outflow(),
       "fraction": inflow(insertion(fraction=0.5)),
       "shape": inflow(insertion(shape=4)),
       "material": inflow(insertion(material=3)),
       "outside": inflow(insertion(reg=region(3, [0, 0, 0], [1, 1, 1], 0))),
       "ids": inflow(insertion(), insertion(first=12)),
       "short": ms.record(20, struct.pack("<I", 1) + box)}
import gzip
for name, rec in bad.items():
    open("bad-" + name + ".mrd", "wb").write(gzip.compress(ms.finish(ms.HEADER + head + rec)))
PY

expect_success "bad inflow and outflow records are refused, naming the record" '
	mrdem-init rain.yaml -o rainhead.mrd && python3 badflow.py "$TOP/tests/lib" rainhead.mrd &&
	for k in kind:"(outflow).*remove\[0\]: unknown region kind" \
		 minmax:"remove\[0\]: min is above max" radius:"remove\[0\]: the radius is not positive" \
		 none:"0 remove regions" fraction:"(inflow).*insert\[0\]: the fractions do not sum to 1" \
		 shape:"insert\[0\]: shape 4 of 2 is not in the scene" \
		 material:"insert\[0\]: material 3 of 0 is not in the scene" \
		 outside:"insert\[0\]: particles are inserted into a box or cylinder" \
		 ids:"insert\[0\] and insert\[1\] share particle ids" short:"record 4 (inflow)"; do
		f=bad-${k%%:*}.mrd m=${k#*:}
		assert_exit 1 mrdem-info "$f" >/dev/null 2>err && assert_grep "$m" err || return 1
	done'

head="shapes:\n  b: {analytic-sphere: {radius: 0.01}}\n  open: {plane: {size: [1, 1]}}\ncontact: {model: hooke, stiffness: 1, restitution: 0.5}\n"
ins="insert:\n  - {region: {box: {min: [0, 0, 0], max: [1, 1, 1]}}, shape: b"
bad_scene "a negative rate" "$head$ins, rate: -5, to: 1}\n" "bad.yaml:6:.*insert\[0\].rate: must be positive"
bad_scene "count 0" "$head$ins, count: 0}\n" "bad.yaml:6:.*insert\[0\].count: must be at least 1"
bad_scene "a rate without an end" "$head$ins, rate: 5}\n" "bad.yaml:6:.*insert\[0\].*to"
bad_scene "count beside rate" "$head$ins, count: 3, rate: 5, to: 1}\n" "bad.yaml:6:.*insert\[0\]"
bad_scene "an unknown shape" "${head}insert:\n  - {region: {box: {min: [0, 0, 0], max: [1, 1, 1]}}, shape: nope, count: 1}\n" \
	"bad.yaml:6:.*insert\[0\]: unknown shape .nope."
bad_scene "an open shape" "${head}insert:\n  - {region: {box: {min: [0, 0, 0], max: [1, 1, 1]}}, shape: open, count: 1}\n" \
	"bad.yaml:6:.*open mesh"
bad_scene "fractions that do not sum to 1" \
	"${head}insert:\n  - {region: {box: {min: [0, 0, 0], max: [1, 1, 1]}}, count: 1, shapes: [{shape: b, fraction: 0.5}, {shape: b, fraction: 0.2}]}\n" \
	"bad.yaml:6:.*insert\[0\].shapes: the fractions sum to 0.7"
bad_scene "a box with min above max" "${head}insert:\n  - {region: {box: {min: [0, 2, 0], max: [1, 1, 1]}}, shape: b, count: 1}\n" \
	"bad.yaml:6:.*insert\[0\].region.box: min .* is above max"
bad_scene "a cylinder of radius 0" \
	"${head}remove:\n  - {cylinder: {point: [0, 0, 0], axis: [0, 0, 1], radius: 0, length: 1}}\n" \
	"bad.yaml:6:.*remove\[0\].cylinder.radius: must be positive"
bad_scene "an insertion region outside the domain" \
	"${head}remove:\n  - {outside: {min: [-1, -1, -1], max: [0.5, 0.5, 0.5]}}\ninsert:\n  - {region: {box: {min: [2, 2, 2], max: [3, 3, 3]}}, shape: b, count: 1}\n" \
	"bad.yaml:8:.*insert\[0\].region: lies wholly in remove\[0\]"
bad_scene "an insertion region behind a plane" \
	"${head}planes:\n  - {point: [0, 0, 5], normal: [0, 0, 1]}\n$ins, count: 1}\n" \
	"bad.yaml:8:.*insert\[0\].region: lies behind planes\[0\]"
bad_scene "insertion outside a box" \
	"${head}insert:\n  - {region: {outside: {min: [0, 0, 0], max: [1, 1, 1]}}, shape: b, count: 1}\n" \
	"bad.yaml:6:.*insert\[0\].region.*outside"
bad_scene "an empty remove list" "${head}particles:\n  - {shape: b, position: [0, 0, 0]}\nremove: []\n" \
	"bad.yaml:7:.*remove: the list is empty"

done_testing
