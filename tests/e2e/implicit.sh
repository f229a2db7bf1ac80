#!/usr/bin/env bash
# Implicit Euler (Picard iterations, docs/dynamics.md) through mrdem-run:
# flat and surrogate search give the same bits and iteration counts
# (Corollary 5.5), momentum through head-on and oblique collisions, the
# stability against explicit Euler, and the halving retry and its failure.
. "$(dirname "$0")/../lib/test-lib.sh"

# frames.py FILE: every frame's state and the Picard counters of every step
# as JSON text, for exact comparison.
cat >frames.py <<'PY'
import json, subprocess, sys
d = json.loads(subprocess.run(["mrdem-info", "--json", "--full", sys.argv[1]],
                              capture_output=True, text=True, check=True).stdout)
out = []
for r in d["records"]:
    if r["type"] == "frame":
        out.append({k: r[k] for k in r if k not in ("index", "offset", "length")})
    elif r["type"] == "stats" and r.get("source") == "mrdem-step":
        v = r["values"]
        out.append({k: v[k] for k in v if k == "picard_iterations" or k == "picard_retries"})
print(json.dumps(out, sort_keys=True))
PY

# momentum.py FILE: largest change of the total linear and angular momentum
# over the frames (mrdem-stats, from the frames themselves), relative to
# sum m |v| at the start (times 1 m, the radius, for angular momentum).
cat >momentum.py <<'PY'
import csv, math, subprocess, sys
rows = list(csv.DictReader(subprocess.run(["mrdem-stats", sys.argv[1]], capture_output=True,
                                          text=True, check=True).stdout.splitlines()))
def vec(r, name): return [float(r[name + "_" + c]) for c in "xyz"]
def dev(name):
    v0 = vec(rows[0], name)
    return max(math.sqrt(sum((a - b) ** 2 for a, b in zip(vec(r, name), v0))) for r in rows) / ref
ref = float(sys.argv[2])
print("%.3g %.3g %d" % (dev("momentum"), dev("angular_momentum"), len(rows)))
PY

# A small random scene: spheres and boxes of two shapes dropped together on
# an analytic plane next to a fixed box obstacle.
python3 - >rand.yaml <<'PY'
import random
r = random.Random(5)
print("shapes:\n  ball: {sphere: {triangles: 80, radius: 0.5}}\n  brick: {box: {size: [0.8, 0.5, 0.4]}}")
print("  wall: {box: {size: [3, 0.4, 1]}}")
print("particles:\n  - {shape: wall, position: [0, 1.1, 0.5], fixed: true}")
for i in range(5):
    x, y, z = r.uniform(-1.2, 1.2), r.uniform(-0.3, 0.3), 0.6 + 1.1 * i
    shape = "ball" if i % 2 == 0 else "brick"
    print("  - {shape: %s, position: [%.3f, %.3f, %.3f], velocity: [%.2f, %.2f, 0], "
          "angular_velocity: [%.2f, 0, %.2f]}" % (shape, x, y, z, r.uniform(-1, 1),
          r.uniform(0, 1), r.uniform(-3, 3), r.uniform(-3, 3)))
print("planes:\n  - {point: [0, 0, 0], normal: [0, 0.05, 1]}")
print("gravity: [0, 0, -9.81]\ncontact: {model: paper, epsilon: 0.02, stiffness: 1000}")
print("time: {dt: 1.0e-3, steps: 200, scheme: implicit-euler}\noutput: {every: 4}")
PY

expect_success "Corollary 5.5: flat and surrogate implicit runs agree bit for bit, iterations too" '
	mrdem-run rand.yaml --hierarchy flat -o flat.mrd 2>flat.err &&
	mrdem-run rand.yaml --hierarchy surrogate -o surr.mrd 2>surr.err &&
	python3 frames.py flat.mrd >flat.json && python3 frames.py surr.mrd >surr.json &&
	cmp flat.json surr.json && grep -q picard_iterations flat.json &&
	grep "Picard:" flat.err surr.err &&
	n=$(python3 -c "import json; d=json.load(open(\"flat.json\")); print(sum(1 for r in d if r.get(\"picard_iterations\", 0) > 2))") &&
	echo "# steps with more than 2 Picard iterations among the written ones: $n" && [ "$n" -gt 0 ]'

expect_success "the implicit run does not depend on the kernel: comparison, iterative, hybrid" '
	for m in comparison iterative hybrid; do
		mrdem-run -q rand.yaml --steps 40 --method $m -o k-$m.mrd &&
		python3 frames.py k-$m.mrd >k-$m.json || exit 1
	done && cmp k-comparison.json k-iterative.json && cmp k-comparison.json k-hybrid.json'

expect_success "the implicit run does not depend on the number of threads" '
	OMP_NUM_THREADS=1 mrdem-run -q rand.yaml --steps 80 -o t1.mrd &&
	OMP_NUM_THREADS=2 mrdem-run -q rand.yaml --steps 80 -o t2.mrd &&
	python3 frames.py t1.mrd >t1.json && python3 frames.py t2.mrd >t2.json && cmp t1.json t2.json'

# The fronts of multiscale Picard, their motion bound and warm start are per
# pair of particles: the run is the same on any number of threads.
expect_success "multiscale Picard, from the roots and warm-started, does not depend on the number of threads" '
	for w in --cold-start "" --warm-start; do
		OMP_NUM_THREADS=1 mrdem-run -q rand.yaml --steps 80 --hierarchy multiscale $w -o m1.mrd &&
		OMP_NUM_THREADS=2 mrdem-run -q rand.yaml --steps 80 --hierarchy multiscale $w -o m2.mrd &&
		python3 frames.py m1.mrd >m1.json && python3 frames.py m2.mrd >m2.json &&
		cmp m1.json m2.json && grep -q picard_iterations m1.json || exit 1
	done'

cp "$TOP/tests/lib/headon.yaml" headon.yaml
# oblique: offset sideways, spring-dashpot with friction, spinning
cat >oblique.yaml <<'Y'
shapes:
  ball: {sphere: {triangles: 80, radius: 1.0}}
particles:
  - {shape: ball, position: [-1.05, 0, 0], velocity: [1.0, 0, 0.1]}
  - {shape: ball, position: [1.05, 0.6, 0], velocity: [-0.5, 0, 0], angular_velocity: [0, 0, 2], density: 2}
gravity: [0, 0, 0]
contact: {epsilon: 0.01, model: spring-dashpot, stiffness: 20000, damping: 20, friction: 0.4}
time: {dt: 1.0e-3, steps: 150, scheme: implicit-euler}
output: {every: 5}
Y

# sum m |v| is about 7.4 kg m/s in both (80-triangle spheres of radius 1,
# volume 3.7 m^3); 7 keeps the test on the strict side.
for s in headon oblique; do
expect_success "$s collision: momentum and angular momentum conserved to 1e-6" '
	mrdem-run '$s'.yaml -o '$s'.mrd 2>err && cat err &&
	read dp dl n <<<"$(python3 momentum.py '$s'.mrd 7)" && echo "# $dp $dl over $n frames" &&
	assert_true "$dp < 1e-6 && $dl < 1e-6" "momentum drift" &&
	mrdem-stats '$s'.mrd >'$s'.csv && c=$(checks column '$s'.csv picard_contacts max) &&
	echo "# most contacts in a final Picard iteration: $c" && assert_true "$c > 0" contacts'
done

# Stiff: the spring model at Ks = 20000; explicit Euler gains energy in the
# contact until the guard stops it at dt = 4 ms.
sed 's/stiffness: 1000}/stiffness: 20000}/; s/steps: 120/steps: 40/' headon.yaml >stiff.yaml
expect_success "stability: explicit Euler blows up where implicit Euler is stable, also at 4x dt" '
	mrdem-run stiff.yaml --scheme explicit-euler --dt 4e-3 -o ex.mrd 2>ex.err; rc=$?
	assert_eq $rc 1 "explicit exit status" && assert_grep "energy grew" ex.err &&
	mrdem-run stiff.yaml --dt 4e-3 -o im1.mrd 2>im1.err &&
	mrdem-run stiff.yaml --dt 16e-3 --steps 10 -o im4.mrd 2>im4.err &&
	cat im1.err im4.err &&
	for f in im1 im4; do
		mrdem-stats $f.mrd >$f.csv &&
		e0=$(checks column $f.csv kinetic first) && e1=$(checks column $f.csv kinetic last) &&
		echo "# $f: kinetic $e0 -> $e1 J, momentum after $(checks column $f.csv momentum_x last)" &&
		assert_true "$e1 <= $e0" "$f: kinetic energy does not grow" &&
		assert_true "$(checks column $f.csv max_overlap max) < 1" "$f: overlap below 1" || exit 1
	done'

expect_success "a capped step is retried with half the time step, each retry reported" '
	mrdem-run stiff.yaml --dt 16e-3 --steps 10 --every 1 --picard-max 6 -o retry.mrd 2>retry.err &&
	cat retry.err && assert_grep "retrying as two steps of 0.008 s" retry.err &&
	mrdem-stats retry.mrd >retry.csv && assert_true "$(checks column retry.csv picard_retries sum) > 0" retries'

expect_success "without retries the run stops naming the step and particles; no unconverged frame" '
	mrdem-run stiff.yaml --dt 16e-3 --steps 10 --every 1 --picard-max 4 --picard-retries 0 -o fail.mrd 2>fail.err; rc=$?
	cat fail.err && assert_eq $rc 1 "exit status" &&
	assert_grep "step [0-9]* (t = .*did not converge.*particle(s) [0-9]" fail.err &&
	step=$(sed -n "s/.*error: step \([0-9]*\) (t = .*did not converge.*/\1/p" fail.err) &&
	last=$(checks last-step fail.mrd) &&
	assert_eq "$last" "$step" "last frame written is the start of the failed step"'

# Multiscale Picard (Alg. 6): Lemma 5.7 and the warm start are checked step
# by step in tests/unit/test_picard_multiscale.c; here the tool.
expect_success "multiscale: the random scene runs, its fronts unfold and guess, counters in the stats" '
	mrdem-run rand.yaml --hierarchy multiscale -o ms.mrd 2>ms.err &&
	assert_grep "Picard: .* iterations per step" ms.err &&
	mrdem-stats ms.mrd >ms.csv &&
	unfolds=$(checks column ms.csv picard_unfolds sum) && guesses=$(checks column ms.csv picard_guesses sum) &&
	real=$(checks column ms.csv picard_comparisons_real sum) &&
	echo "# unfolds $unfolds guesses $guesses narrows $(checks column ms.csv picard_narrows sum)" &&
	assert_true "$unfolds > 0 && $guesses > 0 && $real > 0" "unfolds, guesses, comparisons" &&
	head -1 ms.csv | grep -q "picard_comparisons_iteration_1_round_"'

expect_success "multiscale frames hold the contacts a surrogate search of them finds" '
	mrdem-contact --hierarchy surrogate ms.mrd -o re.mrd && same_stream ms.mrd re.mrd &&
	assert_true "$(checks info ms.mrd "sum(r[\"contacts\"] for r in of(\"contacts\"))") > 0" contacts'

expect_success "multiscale with an explicit scheme, and multiscale options without it, are usage errors" '
	assert_exit 2 mrdem-run rand.yaml --scheme explicit-euler --hierarchy multiscale -o x.mrd &&
	assert_grep "multiscale fuses the search into the Picard loop" err &&
	assert_exit 2 mrdem-run rand.yaml --warm-start -o x.mrd &&
	assert_grep "apply to the search of an explicit scheme or to --hierarchy multiscale" err &&
	assert_exit 2 mrdem-run rand.yaml --hierarchy surrogate --cold-start -o x.mrd &&
	assert_grep "implicit-euler with the surrogate hierarchy" err &&
	assert_exit 2 mrdem-run rand.yaml --surrogate-damping 0.5 -o x.mrd &&
	assert_grep "surrogate-damping applies to --hierarchy multiscale only" err &&
	assert_exit 2 mrdem-run rand.yaml --hierarchy multiscale --surrogate-damping 1.5 -o x.mrd &&
	assert_grep "surrogate-damping: .1.5. must be at most 1" err &&
	test ! -e x.mrd'

done_testing
