#!/usr/bin/env bash
# mrdem-merge: the streams of a parallel run's ranks into the one stream a
# one-rank run writes. The rank streams are made from one-rank runs by
# tests/tools/split_ranks (particles by x slab, pairs by their first free
# particle, the step's stats zeroed), so the merge must give back every
# record of the run but the meta records; then the refusals.
. "$(dirname "$0")/../lib/test-lib.sh"
SPLIT=${MRDEM_BUILD:-$TOP/build}/tests/tools/split_ranks
[ -x "$SPLIT" ] || { echo "Bail out! $SPLIT not built (make $SPLIT)"; exit 1; }
X=$TOP/examples

# Analytic spheres on a floor: spring-dashpot with friction under velocity
# Verlet (the sphere fast path covers it), and hertz with friction, whose
# frames carry springs.
cat >spheres.yaml <<'Y'
shapes:
  ball: {analytic-sphere: {radius: 0.01}}
particles:
  - lattice: {shape: ball, origin: [-0.03, -0.03, 0.0103], count: [4, 4, 3], spacing: 0.0212, jitter: 0.0003, seed: 4, density: 2500, velocity: [0, 0, -0.3]}
planes:
  - {point: [0, 0, 0], normal: [0, 0, 1]}
gravity: [0, 0, -9.81]
contact: {model: spring-dashpot, stiffness: 2000, damping: 20, friction: 0.4, epsilon_abs: 0.0002, plane_epsilon: 0.0002}
time: {dt: 1.0e-4, steps: 80, scheme: velocity-verlet}
output: {every: 20}
Y
sed -e 's/model: spring-dashpot, stiffness: 2000, damping: 20/model: hertz, young: 1.0e7, poisson: 0.3, restitution: 0.4/' \
	-e 's/velocity-verlet/symplectic-euler/' spheres.yaml >hertz.yaml
grep -q hertz hertz.yaml || { echo "Bail out! hertz.yaml not made"; exit 1; }
# Two materials (frames with a material column), the floor of one.
cat >materials.yaml <<'Y'
shapes:
  ball: {analytic-sphere: {radius: 0.01}}
materials:
  glass: {density: 2500, friction: 0.4, restitution: 0.4}
  steel: {density: 7800, friction: 0.2, restitution: 0.6}
particles:
  - lattice: {shape: ball, origin: [-0.03, -0.03, 0.0106], count: [4, 4, 2], spacing: 0.0212, jitter: 0.0003, seed: 4, material: glass, velocity: [0, 0, -0.3]}
  - lattice: {shape: ball, origin: [-0.03, -0.03, 0.053], count: [4, 4, 1], spacing: 0.0212, jitter: 0.0003, seed: 5, material: steel, velocity: [0, 0, -0.3]}
planes:
  - {point: [0, 0, 0], normal: [0, 0, 1], material: steel}
gravity: [0, 0, -9.81]
contact: {model: hooke, stiffness: 2000, tangential: 0.3, restitution: 0.5, friction: 0.3, epsilon_abs: 0.0002, plane_epsilon: 0.0002}
time: {dt: 1.0e-4, steps: 80, scheme: velocity-verlet}
output: {every: 20}
Y

# split_merge RUN N: split RUN.mrd into N rank streams (RUN.N/), merge them
# into RUN.N.mrd and compare with the run's records.
split_merge() {
	rm -rf "$1.$2" && mkdir "$1.$2" && "$SPLIT" "$1.mrd" "$2" "$1.$2" &&
		mrdem-merge "$1.$2" -o "$1.$2.mrd" && same_stream "$1.mrd" "$1.$2.mrd"
}
# merge_test NAME RUN ARGS...: mrdem-run ARGS -o RUN.mrd, then 1, 2 and 3 ranks.
merge_test() {
	local name=$1 run=$2
	shift 2
	expect_success "$name: merged from 1, 2 and 3 ranks as the one-rank run" "
		mrdem-run -q $* -o $run.mrd 2>/dev/null &&
		split_merge $run 1 && split_merge $run 2 && split_merge $run 3"
}

merge_test "pour (hooke, velocity Verlet, springs, planes)" pour "$X/pour.yaml" --steps 400 --every 100
merge_test "fixed mesh block, planes, analytic spheres and ellipsoids" box \
	"$X/grains-in-a-box.yaml" --steps 200 --every 50
merge_test "hopper: a fixed funnel, inflow and outflow" hopper "$X/hopper.yaml" --steps 200 --every 50
merge_test "scaled rocks (hooke with rolling friction)" rocks "$X/sized-rocks.yaml" --steps 100 --every 25
merge_test "drum: a turning fixed mesh, hertz, inflow" drum "$X/drum.yaml" --steps 100 --every 50
merge_test "shaker: moving planes" shaker "$X/shaker.yaml" --steps 200 --every 50
merge_test "materials" materials materials.yaml
merge_test "spheres on the sphere fast path (frames only)" fast spheres.yaml
merge_test "spheres on the general path" general spheres.yaml --general-path
merge_test "hertz spheres with friction" hertz hertz.yaml

# frames STREAM: per frame its particle count and its columns beyond the
# fixed ones (read as stored: the tools refuse a part alone, whose springs
# and contacts name other ranks' particles).
frames() {
	python3 - "$TOP/tests/lib" "$1" <<'PY'
import struct, sys
sys.path.insert(0, sys.argv[1])
import mrdem_stream as m
for t, p in m.read_stored(sys.argv[2]):
    if t != 4:
        continue
    n, ncols = struct.unpack_from("<QI", p, 16)
    pos, names = 28, []
    for _ in range(ncols):
        (ln,) = struct.unpack_from("<I", p, pos)
        names.append(p[pos + 4:pos + 4 + ln].decode())
        pos += 12 + ln
    print(n, " ".join(names[len(m.COLUMNS):]) or "-")
PY
}
expect_success "the parts are honest: their own particles, an order column, zeroed step stats" '
	for k in 0 1 2; do frames pour.3/rank-$k.mrd >f$k || exit 1; done &&
	for k in 0 1 2; do cut -d" " -f1 f$k >n$k; done &&
	paste -d" " n0 n1 n2 | awk "{ if (\$1 + \$2 + \$3 != 500 || !\$1 || !\$2 || !\$3) bad = 1 }
		END { exit bad || NR != 5 }" &&
	assert_eq "$(cut -d" " -f2- f2 | sort -u | tr "\n" ";")" "order;velocity_half angular_velocity_half order;" \
		"extra columns of the parts" &&
	frames pour.3.mrd >merged && assert_eq "$(cut -d" " -f2- merged | sort -u | tr "\n" ";")" \
		"-;velocity_half angular_velocity_half;" "extra columns of the merge" &&
	mrdem-info pour.3/rank-1.mrd 2>/dev/null | grep "from mrdem-step, step 100" >step.txt &&
	assert_grep "energy_total=0 " step.txt'

# holding TYPE LENGTH RUN: how many of RUN's three parts hold a record of
# TYPE longer than LENGTH bytes (tests/lib/mrdem_stream.py lists them).
holding() {
	for k in 0 1 2; do
		python3 "$TOP/tests/lib/mrdem_stream.py" "$3.3/rank-$k.mrd" | awk -v t="$1" -v l="$2" \
			'$1 == t && $2 > l { n++ } END { print (n > 0) }'
	done | awk '{ s += $1 } END { print s }'
}
expect_success "the hertz run's springs and contacts come from more than one part" '
	assert_true "$(holding 15 0 hertz) >= 2" "parts with springs" &&
	assert_true "$(holding 6 16 hertz) >= 2" "parts with contacts" &&
	assert_true "$(holding 5 16 pour) >= 2" "pour: parts with pairs"'

expect_success "mrdem-info, mrdem-stats and mrdem-vtk read the merged stream as the run" '
	mrdem-info pour.3.mrd >/dev/null &&
	mrdem-stats pour.mrd >a.csv && mrdem-stats pour.3.mrd >b.csv && test_cmp a.csv b.csv &&
	mrdem-vtk -o va pour.mrd >/dev/null && mrdem-vtk -o vb pour.3.mrd >/dev/null &&
	diff -r va vb'

expect_success "-o - writes the stream to standard output" '
	mrdem-merge pour.2 -o - >out.mrd && same_stream pour.mrd out.mrd &&
	mrdem-merge pour.2 >out2.mrd && same_stream pour.mrd out2.mrd'

# refused DIR MESSAGE: mrdem-merge DIR exits 1 naming the problem, and
# writes nothing.
refused() {
	assert_exit 1 mrdem-merge "$1" -o refused.mrd && ! test -e refused.mrd && assert_grep "$2" err
}

expect_success "a missing part is refused, naming it" '
	cp -r pour.3 miss && rm miss/rank-1.mrd &&
	refused miss "miss: part rank-1.mrd is missing (the run has 3 ranks"'

expect_success "an extra part is refused, naming it" '
	cp -r pour.2 extra && cp extra/rank-0.mrd extra/rank-2.mrd &&
	refused extra "extra: part rank-2.mrd is not one of the run.s 2" &&
	rm extra/rank-2.mrd && cp extra/rank-0.mrd extra/rank-01.mrd &&
	refused extra "extra: part rank-01.mrd is not one of the run.s 2"'

expect_success "parts of different runs are refused: run id, number of ranks" '
	mkdir runs other && "$SPLIT" --run aaaa pour.mrd 2 runs && "$SPLIT" --run bbbb pour.mrd 2 other &&
	cp other/rank-1.mrd runs/ && refused runs "runs/rank-1.mrd: run .bbbb. in its meta record, but runs/rank-0.mrd has .aaaa." &&
	rm -rf runs && mkdir runs && "$SPLIT" pour.mrd 2 runs && cp pour.3/rank-1.mrd runs/ &&
	refused runs "runs/rank-1.mrd: ranks .3. in its meta record, but runs/rank-0.mrd has .2."'

expect_success "parts of different scenes are refused at the first header record that differs" '
	cp -r pour.2 scenes && cp box.2/rank-1.mrd scenes/ &&
	refused scenes "scenes/rank-1.mrd: record 1 (setup) .*differs from the header record 0 of scenes/rank-0.mrd"'

expect_success "parts with fewer frames than the others are refused" '
	mkdir short cut && "$SPLIT" pour.mrd 2 short && "$SPLIT" --frames 3 pour.mrd 2 cut &&
	cp cut/rank-1.mrd short/ && refused short "short: short/rank-0.mrd has more frames than short/rank-1.mrd" &&
	"$SPLIT" --frames 3 pour.mrd 2 short && mrdem-merge short -o three.mrd &&
	assert_eq "$(mrdem-info three.mrd | grep -c ": frame (")" 3 "frames of the merge"'

expect_success "an order column that is no permutation, or none, is refused" '
	mkdir bad none && "$SPLIT" --bad-order pour.mrd 2 bad && "$SPLIT" --no-order pour.mrd 2 none &&
	refused bad "bad/rank-1.mrd: the frame of step 0: particle 1 (id [0-9]*) has order [0-9]*, which another particle has too" &&
	refused none "none/rank-0.mrd: the frame of step 0 has no .order. column"'

expect_success "an implicit-euler run is refused: its step stats are the ranks' alone" '
	mrdem-run -q spheres.yaml --general-path --scheme implicit-euler --steps 2 --every 1 -o imp.mrd 2>/dev/null &&
	mkdir imp && "$SPLIT" imp.mrd 2 imp &&
	refused imp "imp: the mrdem-step stats of step 0 cannot be computed afresh"'

expect_success "usage: no directory, two, an unknown option (exit 2)" '
	assert_exit 2 mrdem-merge && assert_exit 2 mrdem-merge pour.2 pour.3 &&
	assert_exit 2 mrdem-merge --bogus pour.2 && mrdem-merge --help | grep -q "usage: mrdem-merge"'

done_testing
