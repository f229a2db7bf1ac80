#!/usr/bin/env bash
# Features together, as a user writes them: two materials and two sizes
# inserted into a closed drum (a revolve solid, fixed) that rotates, with
# a remove box about its centre. The insertions' entries (shape and size,
# material, density) reach the stream, mrdem-info, the Python reader and
# every inserted particle, and survive the removal of others; the drum is
# never removed; the rotating drum lifts the bed on its rising side (the
# centre of mass moves with the sense of rotation, the torque on the drum
# opposes it); in process, through pipes and resumed alike, with
# velocity Verlet, explicit and implicit Euler. Bad material and scale
# keys are refused at their line.
. "$(dirname "$0")/../lib/test-lib.sh"
# Under the sanitizers these runs take minutes: the code they run is
# sanitized by flow.sh, walls.sh, materials.sh and scaled.sh one feature
# at a time, and their physics checked by make check.
[ -n "${MRDEM_ASAN:-}" ] && skip_all "runs of several features at once (each sanitized alone)"

flowcheck() {
	python3 "$TOP/tests/e2e/flowcheck.py" "$@"
}

# the drum: radius 6 cm, 10 cm long, axis y (the revolve axis z turned by
# -90 degrees about x); a bed of 16 at time 0 and 30 more from above
cat >mix.yaml <<'Y'
shapes:
  drum: {revolve: {profile: [[0, -0.05], [0.06, -0.05], [0.06, 0.05], [0, 0.05]], segments: 24}}
  bead: {analytic-sphere: {radius: 0.006}}
materials:
  glass: {density: 2500, friction: 0.4}
  steel: {density: 7800, friction: 0.2, restitution: 0.5}
particles:
  - {shape: drum, position: [0, 0, 0], orientation: [0.7071067811865476, -0.7071067811865476, 0, 0],
     fixed: true, epsilon_abs: 0.0005, material: steel,
     motion: {rotate: {axis: [0, 1, 0], point: [0, 0, 0], omega: 3.0}}}
insert:
  - region: {box: {min: [-0.03, -0.035, -0.05], max: [0.03, 0.035, -0.025]}}
    shapes: [{shape: bead, fraction: 0.5}, {shape: bead, fraction: 0.5, material: steel}]
    material: glass
    scale: {values: [1, 1.5], fractions: [0.6, 0.4]}
    count: 16
    seed: 3
  - region: {box: {min: [-0.035, -0.04, 0.012], max: [0.035, 0.04, 0.04]}}
    shape: bead
    material: glass
    scale: {values: [1, 1.5], fractions: [0.5, 0.5]}
    velocity: [0, 0, -1.5]
    rate: 1000
    to: 0.03
    seed: 7
remove:
  - {box: {min: [-0.02, -0.05, -0.012], max: [0.02, 0.05, 0.01]}}
gravity: [0, 0, -9.81]
contact: {model: hooke, stiffness: 5.0e4, restitution: 0.3, friction: 0.4, epsilon_abs: 0.0003}
time: {dt: 2.5e-5, steps: 16000, scheme: velocity-verlet}
output: {every: 2000}
Y

expect_success "mrdem-init: one scaled shape per size, shared; each entry's material and density" '
	mrdem-init mix.yaml -o mix0.mrd && mrdem-info mix0.mrd >mix0.txt &&
	assert_grep "shape 2 is shape 1 scaled by 1.5" mix0.txt &&
	test "$(grep -c "scaled_shape (" mix0.txt)" = 1 &&
	assert_grep "shape 1 .bead.: fraction 0.3, density 2500, epsilon 0.0003, material 0 .glass." mix0.txt &&
	assert_grep "shape 2 .bead\*1.5.: fraction 0.2, density 7800, epsilon 0.0003, material 1 .steel." mix0.txt &&
	assert_grep "shape 2 .bead\*1.5.: fraction 0.5, density 2500, epsilon 0.0003, material 0 .glass." mix0.txt &&
	flowcheck last mix0.mrd 17 &&
	checks info mix0.mrd "[(e[\"shape\"], e[\"material\"]) for e in of(\"inflow\")[0][\"insert\"][0][\"shapes\"]]" >got &&
	assert_eq "$(cat got)" "[(1, 0), (2, 0), (1, 1), (2, 1)]" "inflow entries (mrdem-info --json)" &&
	python3 -c "import sys; sys.path.insert(0, sys.argv[1]); import mrdem
s = mrdem.read(\"mix0.mrd\")
print([(e[\"shape\"], e[\"material\"]) for e in s.inflow[0][\"shapes\"]])" "$TOP/python" >got &&
	assert_eq "$(cat got)" "[(1, 0), (2, 0), (1, 1), (2, 1)]" "inflow entries (Python reader)"'

# the same drum turning either way and at rest: 0.4 s each
for w in 3.0 -3.0 0.0; do
	sed "s/omega: 3.0/omega: $w/" mix.yaml >mix_$w.yaml
done
expect_success "a rotating drum filled by insertion: kinds kept through removals, the drum kept, all accounted for" '
	for w in 3.0 -3.0 0.0; do
		mrdem-run -q mix_$w.yaml -o mix_$w.mrd && flowcheck kinds mix_$w.mrd all &&
		flowcheck drum mix_$w.mrd 0.06 0.1 && flowcheck balance mix_$w.mrd || return 1
	done &&
	checks info mix_3.0.mrd "sum(r[\"values\"].get(\"outflow_particles\", 0) for r in of(\"stats\"))" >out &&
	assert_true "$(cat out) > 0" "particles removed"'

expect_success "the drum lifts the bed on its rising side; the torque on the drum opposes its rotation" '
	for w in 3.0 -3.0 0.0; do
		flowcheck centroid mix_$w.mrd >x_$w && flowcheck torque mix_$w.mrd wall_torque_y.0 >t_$w || return 1
	done &&
	assert_true "$(cat x_3.0) < $(cat x_0.0) - 0.005" "centre of mass, omega +3 (x $(cat x_3.0), at rest $(cat x_0.0))" &&
	assert_true "$(cat x_-3.0) > $(cat x_0.0) + 0.003" "centre of mass, omega -3 (x $(cat x_-3.0), at rest $(cat x_0.0))" &&
	assert_true "$(cat t_3.0) < 0 && $(cat t_-3.0) > 0" "torque (+3: $(cat t_3.0), -3: $(cat t_-3.0))"'

expect_success "frames carry each particle material after removals: mrdem-info and the Python reader agree" '
	checks info mix_3.0.mrd "sorted((p[\"id\"], p[\"shape\"], p[\"material\"]) for p in of(\"frame\")[-1][\"state\"])" >a &&
	python3 -c "import sys; sys.path.insert(0, sys.argv[1]); import mrdem
f = mrdem.read(\"mix_3.0.mrd\").frames[-1]
print(sorted(zip(f[\"id\"], f[\"shape\"], f[\"material\"])))" "$TOP/python" >b &&
	test_cmp a b && grep -q ", 2, 1)" a && grep -q ", 2, 0)" a && grep -q ", 1, 1)" a'

cut() { # scheme steps every
	sed "s/scheme: velocity-verlet/scheme: $1/; s/steps: 16000/steps: $2/; s/every: 2000/every: $3/" mix.yaml
}

expect_success "--via-pipes gives the very same bytes (insertions, a removal, the turning drum)" '
	cut velocity-verlet 400 100 >p.yaml &&
	mrdem-run -q p.yaml -o p_in.mrd && mrdem-run -q --via-pipes p.yaml -o p_pipe.mrd &&
	same_stream p_in.mrd p_pipe.mrd && flowcheck kinds p_pipe.mrd &&
	checks info p_pipe.mrd "sum(r[\"values\"].get(\"outflow_particles\", 0) for r in of(\"stats\"))" >out &&
	assert_true "$(cat out) > 0" "particles removed"'

expect_success "a run resumed in the middle inserts and removes the same particles" '
	cut velocity-verlet 3000 500 >r.yaml && cut velocity-verlet 1500 500 >r1.yaml &&
	mrdem-run -q r.yaml -o whole.mrd && mrdem-run -q r1.yaml -o part.mrd &&
	mrdem-run -q part.mrd --steps 1500 -o rest.mrd &&
	assert_eq "$(checks info rest.mrd "of(\"frame\")[-1][\"step\"], of(\"frame\")[-1][\"state\"]")" \
		"$(checks info whole.mrd "of(\"frame\")[-1][\"step\"], of(\"frame\")[-1][\"state\"]")" resumed'

expect_success "explicit Euler: in process and through pipes alike, kinds kept" '
	cut explicit-euler 200 50 >e.yaml &&
	mrdem-run -q e.yaml -o e_in.mrd && mrdem-run -q --via-pipes e.yaml -o e_pipe.mrd &&
	same_stream e_in.mrd e_pipe.mrd && flowcheck kinds e_in.mrd && flowcheck balance e_in.mrd &&
	cut explicit-euler 4000 1000 >e4.yaml && mrdem-run -q e4.yaml -o e4.mrd &&
	flowcheck kinds e4.mrd && flowcheck drum e4.mrd 0.06 0.1'

expect_success "implicit Euler: in process, through pipes and resumed alike, kinds kept" '
	cut implicit-euler 100 25 >i.yaml && cut implicit-euler 50 25 >i1.yaml &&
	mrdem-run -q i.yaml -o i_in.mrd && mrdem-run -q --via-pipes i.yaml -o i_pipe.mrd &&
	same_stream i_in.mrd i_pipe.mrd && flowcheck kinds i_in.mrd && flowcheck balance i_in.mrd &&
	mrdem-run -q i1.yaml -o i_part.mrd && mrdem-run -q i_part.mrd --steps 50 -o i_rest.mrd &&
	assert_eq "$(checks info i_rest.mrd "of(\"frame\")[-1][\"state\"]")" \
		"$(checks info i_in.mrd "of(\"frame\")[-1][\"state\"]")" resumed'

head="shapes:\n  b: {analytic-sphere: {radius: 0.01}}\nmaterials:\n  glass: {density: 2500}\ncontact: {model: hooke, stiffness: 1, restitution: 0.5}\n"
ins="insert:\n  - {region: {box: {min: [0, 0, 0], max: [1, 1, 1]}}, shape: b, count: 1"
mix="insert:\n  - {region: {box: {min: [0, 0, 0], max: [1, 1, 1]}}, count: 1, shapes: [{shape: b, fraction: 1"
bad_scene "an insertion of an unknown material" "$head$ins, material: nope}\n" \
	"bad.yaml:7:.*insert\[0\].material: unknown material .nope. (defined: glass)"
bad_scene "a shapes entry of an unknown material" "$head$mix, material: nope}]}\n" \
	"bad.yaml:7:.*insert\[0\].shapes\[0\].material: unknown material .nope."
bad_scene "an insertion material without materials" \
	"shapes:\n  b: {analytic-sphere: {radius: 0.01}}\ncontact: {model: hooke, stiffness: 1, restitution: 0.5}\n$ins, material: glass}\n" \
	"bad.yaml:5:.*insert\[0\].material: unknown material .glass. (the scene defines no materials)"
bad_scene "an insertion of scale 0" "$head$ins, scale: 0}\n" "bad.yaml:7:.*insert\[0\].scale: must be positive"
bad_scene "a shapes entry of a negative scale" "$head$mix, scale: -1}]}\n" \
	"bad.yaml:7:.*insert\[0\].shapes\[0\].scale: must be positive"
bad_scene "a scale beyond double precision" "$head$ins, scale: 1e200}\n" \
	"bad.yaml:7:.*insert\[0\].scale: scale 1e+200 of shape .b. gives a size"
bad_scene "scale fractions that do not sum to 1" "$head$ins, scale: {values: [1, 2], fractions: [0.5, 0.6]}}\n" \
	"bad.yaml:7:.*insert\[0\].scale.fractions: the fractions sum to 1.1, not 1"
bad_scene "scale values and fractions of different lengths" "$head$ins, scale: {values: [1, 2], fractions: [1]}}\n" \
	"bad.yaml:7:.*insert\[0\].scale.fractions: 1 fractions for 2 values"
bad_scene "a scale value of 0" "$head$ins, scale: {values: [1, 0], fractions: [0.5, 0.5]}}\n" \
	"bad.yaml:7:.*insert\[0\].scale.values\[1\]: must be positive"
bad_scene "a scale distribution without fractions" "$head$ins, scale: {values: [1, 2]}}\n" \
	"bad.yaml:7:.*insert\[0\].scale: missing key .fractions."
bad_scene "an empty scale distribution" "$head$ins, scale: {values: [], fractions: []}}\n" \
	"bad.yaml:7:.*insert\[0\].scale.values: the list is empty"
bad_scene "a scale that is a list" "$head$ins, scale: [1, 2]}\n" \
	"bad.yaml:7:.*insert\[0\].scale: expected a number > 0 or {values"

done_testing
