#!/usr/bin/env bash
# Materials (docs/scene.md "materials", docs/dynamics.md "Materials"): one
# material gives the bits of none with every force model; per pair
# restitution and friction against the law; mrdem-info and the Python
# reader; the tools (--via-pipes, implicit Euler), resume and the sphere
# fast path. Bad scenes: tests/yaml/bad-material-*.yaml (tests/e2e/init.sh).
. "$(dirname "$0")/../lib/test-lib.sh"
M="$TOP/tests/e2e/materials.py"

# Balls rolling, sliding and resting on a plane and on each other: springs
# in the history, friction, rolling and twisting resistance at work.
cat >base.yaml <<'Y'
shapes:
  ball: {sphere: {triangles: 320, radius: 0.1}}
particles:
  - {shape: ball, position: [0, 0, 0.103], velocity: [1, 0, 0], angular_velocity: [0, 3, 0]MAT}
  - lattice: {shape: ball, origin: [0.3, 0, 0.1035], count: [2, 1, 1], spacing: 0.2035, density: 2000MAT}
planes:
  - {point: [0, 0, 0], normal: [0, 0, 1]PMAT}
gravity: [0, 0, -9.81]
CONTACT
time: {dt: 1.0e-5, steps: 3000}
output: {every: 500}
Y
HOOKE="model: hooke, stiffness: 1.0e5, restitution: 0.6, rolling_friction: 0.05, twisting_friction: 0.02"
HERTZ="model: hertz, young: 1.0e8, poisson: 0.25, restitution: 0.6, rolling_friction: 0.05"
PAPER="model: paper, stiffness: 1.0e5"
DASHPOT="model: spring-dashpot, stiffness: 1.0e5, damping: 20"
for model in "$HOOKE" "$HERTZ" "$PAPER" "$DASHPOT"; do
	name=$(echo "$model" | sed 's/model: \([a-z-]*\).*/\1/')
	contact="contact: {$model, friction: 0.4, epsilon_abs: 0.002, plane_epsilon: 0.002}"
	expect_success "$name: a scene in one material gives the frames and springs of no materials, bit for bit" "
		sed -e 's/PMAT//; s/MAT//; s/^CONTACT/$contact/' base.yaml >none-$name.yaml &&
		sed -e 's/PMAT/, material: glass/; s/MAT/, material: glass/' \
		    -e 's/^CONTACT/$contact\nmaterials: {glass: {density: 1}}/' base.yaml >one-$name.yaml &&
		mrdem-run -q none-$name.yaml -o none-$name.mrd && mrdem-run -q one-$name.yaml -o one-$name.mrd &&
		python3 '$M' same none-$name.mrd one-$name.mrd"
done

expect_success "hertz, implicit Euler with multiscale guesses: one material gives the bits of none, through the tools too" '
	mrdem-run -q none-hertz.yaml --scheme implicit-euler --hierarchy multiscale --steps 20 --every 5 -o msn.mrd &&
	mrdem-run -q one-hertz.yaml --scheme implicit-euler --hierarchy multiscale --steps 20 --every 5 -o ms1.mrd &&
	python3 "$M" same msn.mrd ms1.mrd &&
	mrdem-run -q one-hertz.yaml --scheme implicit-euler --hierarchy multiscale --steps 20 --every 5 \
		--via-pipes -o ms1p.mrd &&
	same_stream ms1.mrd ms1p.mrd'

# Two balls thrown at a plane without gravity: steel on rubber takes the
# pair's restitution, glass on rubber the smaller of the two.
cat >bounce.yaml <<'Y'
shapes:
  ball: {analytic-sphere: {radius: 0.1}}
materials:
  steel: {density: 7800, restitution: 0.9}
  glass: {density: 2500, restitution: 0.95}
  rubber: {density: 1000, restitution: 0.5, friction: 0.6}
material_pairs:
  - {materials: [rubber, steel], restitution: 0.7}
particles:
  - {shape: ball, material: steel, position: [0, 0, 0.12], velocity: [0, 0, -1]}
  - {shape: ball, material: glass, position: [1, 0, 0.12], velocity: [0, 0, -1]}
planes:
  - {point: [0, 0, 0], normal: [0, 0, 1], material: rubber}
gravity: [0, 0, 0]
contact: {model: hooke, stiffness: 1.0e6, restitution: 0.3, epsilon_abs: 0.001}
time: {dt: 1.0e-5, steps: 6000}
output: {every: 1000}
Y
expect_success "hooke: a ball leaves a plane at the pair's restitution (0.7), or the smaller of two (0.5)" '
	mrdem-run -q bounce.yaml -o bounce.mrd && python3 "$M" rebound bounce.mrd 0.7 0.5'

# Two balls sliding on a wooden plane: steel by the pair's friction 0.2,
# rubber by the smaller of 0.6 and 0.4.
cat >slide.yaml <<'Y'
shapes:
  ball: {analytic-sphere: {radius: 0.05}}
materials:
  steel: {density: 7800, friction: 0.5}
  rubber: {density: 1100, friction: 0.6}
  wood: {density: 700, friction: 0.4}
material_pairs:
  - {materials: [wood, steel], friction: 0.2}
particles:
  - {shape: ball, material: steel, position: [0, 0, 0.05196], velocity: [2, 0, 0]}
  - {shape: ball, material: rubber, position: [0, 1, 0.05196], velocity: [2, 0, 0]}
planes:
  - {point: [0, 0, 0], normal: [0, 0, 1], material: wood}
gravity: [0, 0, -9.81]
contact: {model: hooke, stiffness: 1.0e6, restitution: 0.5, epsilon_abs: 0.001, plane_epsilon: 0.001}
time: {dt: 1.0e-5, steps: 9000}
output: {every: 1000}
Y
expect_success "hooke: balls slide to a stop at mu g, mu of their pair with the plane (0.2, 0.4)" '
	mrdem-run -q slide.yaml -o slide.mrd && python3 "$M" slide slide.mrd 0.2 0.4'
expect_success "the Python reader reads the materials record and column; densities from the materials" '
	python3 "$M" reader slide.mrd'
expect_success "mrdem-info describes the materials record, as text and JSON" '
	mrdem-info slide.mrd >info.txt &&
	assert_grep "3 material(s), 1 pair override(s)" info.txt &&
	assert_grep "material 0 .steel.: density 7800, stiffness 1e+06, friction 0.5, restitution 0.5" info.txt &&
	assert_grep "pair \[.steel., .wood.\], friction 0.2" info.txt &&
	assert_grep "plane 0: material .wood." info.txt &&
	mrdem-info --json --full slide.mrd >info.json &&
	checks assert info.json "
m = of(\"materials\")[0]
assert [x[\"name\"] for x in m[\"materials\"]] == [\"steel\", \"rubber\", \"wood\"]
assert m[\"pairs\"] == [{\"a\": \"steel\", \"b\": \"wood\", \"friction\": 0.2}]
assert m[\"plane_materials\"] == [2]
assert [p[\"material\"] for p in state()] == [0, 1]
"'

# a process per tool and step: under the sanitizers, whose start is slow, fewer steps
PIPE_STEPS="--steps 300 --every 100"
[ -z "${MRDEM_ASAN:-}" ] || PIPE_STEPS="--steps 60 --every 20"
expect_success "--via-pipes gives the bytes of the run in process, explicit and implicit Euler" '
	mrdem-run -q slide.yaml $PIPE_STEPS --general-path -o inproc.mrd &&
	mrdem-run -q slide.yaml $PIPE_STEPS --via-pipes -o pipes.mrd &&
	same_stream inproc.mrd pipes.mrd &&
	sed "s/steps: 9000}/steps: 9000, scheme: implicit-euler}/" slide.yaml >implicit.yaml &&
	mrdem-run -q implicit.yaml --steps 30 --every 10 -o iin.mrd &&
	mrdem-run -q implicit.yaml --steps 30 --every 10 --via-pipes -o ipipes.mrd &&
	same_stream iin.mrd ipipes.mrd'
expect_success "implicit Euler: the pair friction decelerates the steel ball too" '
	mrdem-run -q implicit.yaml -o implicit.mrd &&
	checks info implicit.mrd "of(\"frame\")[-1][\"state\"][0][\"velocity\"][0] < 2 - 0.2 * 9.81 * 0.08"'
expect_success "a run resumed from its output ends where one long run ends, materials and all" '
	mrdem-run -q slide.yaml --steps 300 --every 100 -o first.mrd &&
	mrdem-run -q first.mrd --steps 300 --every 100 -o second.mrd &&
	mrdem-run -q slide.yaml --steps 600 --every 100 -o long.mrd &&
	assert_eq "$(checks info second.mrd "of(\"frame\")[-1][\"step\"], of(\"frame\")[-1][\"state\"]")" \
		"$(checks info long.mrd "of(\"frame\")[-1][\"step\"], of(\"frame\")[-1][\"state\"]")" resumed'
expect_success "the sphere fast path takes a scene with materials by itself (tests/e2e/fast_springs.sh compares it)" '
	mrdem-run slide.yaml --steps 10 -o fast.mrd 2>err && assert_grep "sphere fast path" err'
done_testing
