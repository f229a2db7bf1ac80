#!/usr/bin/env bash
# The sphere fast path under hooke and hertz (docs/dynamics.md, "Analytic
# spheres: the fast path"): mrdem-run takes it by itself for a pile of
# analytic spheres with friction, rolling and twisting resistance, and
# materials; its frames and springs (history records) equal the general
# path's to 1e-12; a run resumed from either path's output goes on alike
# on the other.
. "$(dirname "$0")/../lib/test-lib.sh"

# 48 balls of two sizes dropped on a floor between two walls: contacts
# form, slide, roll and break within the run.
cat >pile.yaml <<'Y'
shapes:
  ball: {analytic-sphere: {radius: 0.01}}
  big: {analytic-sphere: {radius: 0.013}}
particles:
  - lattice: {shape: ball, origin: [-0.03, -0.03, 0.012], count: [4, 4, 3], spacing: 0.0205, jitter: 0.0003, seed: 3, density: 2500, epsilon_abs: 0.0002, velocity: [0.05, 0, 0]MAT}
  - {shape: big, position: [0, 0, 0.09], density: 2000, epsilon_abs: 0.0002, angular_velocity: [0, 0, 20]MAT2}
planes:
  - {point: [0, 0, 0], normal: [0, 0, 1]}
  - {point: [-0.05, 0, 0], normal: [1, 0, 0]}
  - {point: [0.05, 0, 0], normal: [-1, 0, 0]}
gravity: [0, 0, -9.81]
CONTACT
time: {dt: 2.0e-5, steps: 1500, scheme: velocity-verlet}
output: {every: 250}
Y
HOOKE="model: hooke, stiffness: 2000, tangential: 0.2857, restitution: 0.5"
HERTZ="model: hertz, young: 5.0e6, poisson: 0.3, restitution: 0.5"
REST="friction: 0.4, rolling_friction: 0.05, twisting_friction: 0.05, plane_epsilon: 0.0002"

# Frames (position, velocity, angular velocity, orientation) and springs
# of two streams: the same steps and pairs, values within 1e-12 of the
# largest of their kind, springs within 1e-10: the fast path turns a
# sphere with its scalar inertia, and a sliding spring s' = r (s + g) - g
# loses the digits of the dashpot's share g where it is the larger
# (tests/unit/test_sphere_fast.c).
cat >framediff.py <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import mrdem
a, b = mrdem.read(sys.argv[2]), mrdem.read(sys.argv[3])
def flat(x):
    return [c for v in x for c in (v if isinstance(v, (list, tuple)) else [v])]
def rel(xs, ys):
    m = max([abs(x) for x in xs] + [1e-300])
    return max([abs(x - y) for x, y in zip(xs, ys)] + [0.0]) / m
assert [f.step for f in a.frames] == [f.step for f in b.frames], "frames differ"
assert sorted(a.history) == sorted(b.history), "histories at different steps"
worst, worst_springs, springs = 0.0, 0.0, 0
for fa, fb in zip(a.frames, b.frames):
    assert list(fa["flags"]) == list(fb["flags"])
    for k in ("position", "velocity", "angular_velocity", "orientation"):
        worst = max(worst, rel(flat(fa[k]), flat(fb[k])))
for step in a.history:
    ha, hb = a.history[step], b.history[step]
    assert [(s["a"], s["b"]) for s in ha] == [(s["a"], s["b"]) for s in hb], "spring pairs differ"
    springs += len(ha)
    for k in ("shear", "roll", "anchor"):
        worst_springs = max(worst_springs, rel(flat([s[k] for s in ha]), flat([s[k] for s in hb])))
    worst_springs = max(worst_springs, rel([s["twist"] for s in ha], [s["twist"] for s in hb]))
print(len(a.frames), springs, worst, worst_springs)
assert springs > 0, "no springs"
assert worst < 1e-12 and worst_springs < 1e-10, (worst, worst_springs)
PY

for model in "$HOOKE" "$HERTZ"; do
	name=$(echo "$model" | sed 's/model: \([a-z]*\).*/\1/')
	expect_success "$name: mrdem-run takes the fast path by itself; frames equal --general-path's to 1e-12, springs to 1e-10" "
		sed -e 's/MAT2//; s/MAT//; s/^CONTACT/contact: {$model, $REST}/' pile.yaml >$name.yaml &&
		mrdem-run $name.yaml -o $name-fast.mrd 2>$name.err &&
		assert_grep 'sphere fast path' $name.err && assert_grep 'chosen for this scene' $name.err &&
		mrdem-run -q $name.yaml --general-path -o $name-general.mrd &&
		python3 framediff.py '$TOP/python' $name-fast.mrd $name-general.mrd"
done

expect_success "hertz: a run resumed from the fast path's output on the general path (and back) goes on alike" '
	mrdem-run -q hertz-fast.mrd --general-path --steps 500 -o fg.mrd &&
	mrdem-run -q hertz-general.mrd --general-path --steps 500 -o gg.mrd &&
	python3 framediff.py "$TOP/python" fg.mrd gg.mrd &&
	mrdem-run -q hertz-general.mrd --steps 500 -o gf.mrd 2>gf.err &&
	python3 framediff.py "$TOP/python" gf.mrd gg.mrd'

expect_success "hertz with two materials (per pair law): the fast path equals the general path" '
	sed -e "s/MAT2/, material: soft/; s/MAT/, material: hard/" \
	    -e "s/^CONTACT/contact: {$HERTZ, $REST}\nmaterials: {hard: {density: 2500, friction: 0.3}, soft: {density: 2000, young: 2.0e6, restitution: 0.8}}/" \
	    pile.yaml >mat.yaml &&
	mrdem-run mat.yaml -o mat-fast.mrd 2>mat.err && assert_grep "sphere fast path" mat.err &&
	mrdem-run -q mat.yaml --general-path -o mat-general.mrd &&
	python3 framediff.py "$TOP/python" mat-fast.mrd mat-general.mrd'

done_testing
