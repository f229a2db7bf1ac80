#!/usr/bin/env bash
# mrdem-run end to end: physics of whole mesh simulations (momentum,
# restitution, rolling), the driver against the tools through pipes,
# flat against surrogate search, a killed run, a blow-up and bad input.
. "$(dirname "$0")/../lib/test-lib.sh"

# frames FILE EXPR: evaluate EXPR over the frames F and contacts records C
# of a stream (tests/lib/checks.py info; math and speed(state) at hand).
frames() {
	checks info "$1" "(lambda F, C: ($2))(of(\"frame\"), of(\"contacts\"))"
}

cat >offset.yaml <<'Y'
shapes:
  ball: {sphere: {triangles: 1280, radius: 1.0}}
particles:
  - {shape: ball, position: [-1.03, 0, 0], velocity: [1.0, 0, 0]}
  - {shape: ball, position: [1.03, 0.3, 0], velocity: [-0.5, 0, 0]}
contact: {model: paper, epsilon: 0.01, stiffness: 1000}
time: {dt: 1.0e-4, steps: 1500, scheme: velocity-verlet}
output: {every: 50}
Y
# head-on: the same spheres on one line
sed 's/\[1.03, 0.3, 0\]/[1.03, 0, 0]/' offset.yaml >headon.yaml
grep -q '\[1.03, 0, 0\]' headon.yaml || { echo "Bail out! headon.yaml not made"; exit 1; }


expect_success "head-on collision: the spheres touch, then separate" '
	mrdem-run -q headon.yaml -o h.mrd &&
	assert_eq "$(frames h.mrd "max(c[\"contacts\"] for c in C) > 0")" True touched &&
	assert_eq "$(frames h.mrd "F[-1][\"state\"][1][\"position\"][0] - F[-1][\"state\"][0][\"position\"][0] > 2.1")" True separated'

expect_success "head-on collision: velocity Verlet restores the relative speed within 2 %" '
	r=$(frames h.mrd "(F[-1][\"state\"][1][\"velocity\"][0] - F[-1][\"state\"][0][\"velocity\"][0]) / 1.5") &&
	echo "restitution $r" && assert_near "$r" 1.0 0.02 restitution'

expect_success "off-centre collision: it spins the spheres, momentum and angular momentum kept to 1e-6" '
	mrdem-run -q offset.yaml -o o.mrd &&
	mrdem-stats o.mrd >o.csv && assert_true "$(checks column o.csv kinetic_rotational last) > 1e-3" spin &&
	for q in momentum_x momentum_y angular_momentum_z; do
		a=$(checks column o.csv $q first) && b=$(checks column o.csv $q last) &&
		assert_near "$b" "$a" "$(awk -v a="$a" "BEGIN { a = a < 0 ? -a : a; print 1e-6 * (a > 1e-3 ? a : 1e-3) }")" $q ||
			return 1
	done'

# A 5,120-triangle ball on a 20 degree analytic incline with Coulomb
# friction rolls: acceleration (5/7) g sin(theta) = 2.397 m/s^2.
incline() { # friction damping
	python3 - "$1" "$2" <<'PY'
import math, sys
th = math.radians(20); n = (0, math.sin(th), math.cos(th)); d = 1.015
print("""shapes:
  ball: {sphere: {triangles: 5120, radius: 1.0}}
particles:
  - {shape: ball, position: [0, %.12f, %.12f], epsilon_abs: 0.01, density: 1000}
planes:
  - {point: [0, 0, 0], normal: [0, %.12f, %.12f]}
gravity: [0, 0, -9.81]
contact: {model: spring-dashpot, stiffness: 1.0e7, damping: %s, friction: %s, plane_epsilon: 0.01}
time: {dt: 2.0e-5, steps: 20000, scheme: velocity-verlet}
output: {every: 500}""" % (d * n[1], d * n[2], n[1], n[2], sys.argv[2], sys.argv[1]))
PY
}
ACC='(lambda t, v: sum((x - sum(t)/len(t)) * (y - sum(v)/len(v)) for x, y in zip(t, v)) / sum((x - sum(t)/len(t))**2 for x in t))([f["time"] for f in F[8:]], [speed(f["state"][0]) for f in F[8:]])'

expect_success "ball rolling down a 20 degree incline, friction 0.5: a within 5 % of (5/7) g sin(theta)" '
	incline 0.5 20 >roll.yaml && mrdem-run -q roll.yaml -o roll.mrd &&
	a=$(frames roll.mrd "$ACC") && echo "a = $a" &&
	assert_near "$a" 2.3966 0.1198 acceleration'

expect_success "without friction it slides: a = g sin(theta), clearly above rolling" '
	incline 0 20 >slide.yaml && mrdem-run -q slide.yaml -o slide.mrd &&
	a=$(frames slide.mrd "$ACC") && echo "a = $a" &&
	assert_near "$a" 3.3552 0.1 acceleration'

# A sphere dropped on a plane tilted by 15 degrees about x (uphill is +y):
# a fixed mesh of two triangles, as in the paper, or an analytic plane.
drop() { # mesh|analytic
	python3 - "$1" <<'PY'
import math, sys
t = math.radians(15); n = (0, -math.sin(t), math.cos(t)); h = 1.25
plane = ("  slope: {plane: {size: [20, 20], divisions: [1, 1], tilt: 15}}\n", "  - {shape: slope, position: [0, 0, 0], fixed: true, epsilon_abs: 0.01}\n", "")
if sys.argv[1] == "analytic":
    plane = ("", "", "planes:\n  - {point: [0, 0, 0], normal: [0, %.12f, %.12f]}\n" % (n[1], n[2]))
print("""shapes:
  ball: {sphere: {triangles: 1280, radius: 1.0}}
%sparticles:
%s  - {shape: ball, position: [0, %.12f, %.12f], epsilon: 0.01}
%sgravity: [0, 0, -9.81]
contact: {model: paper, stiffness: 1000, plane_epsilon: 0.01}
time: {dt: 1.0e-4, steps: 7000, scheme: symplectic-euler}
output: {every: 100}""" % (plane[0], plane[1], h * n[1], h * n[2], plane[2]))
PY
}
for kind in mesh analytic; do
	expect_success "sphere dropped on a tilted plane ($kind) bounces and moves down-slope" '
		drop '$kind' >drop.yaml && mrdem-run -q drop.yaml -o drop.mrd &&
		b=$(frames drop.mrd "len(F[-1][\"state\"]) - 1") &&
		n="(0, -math.sin(math.radians(15)), math.cos(math.radians(15)))" &&
		vn="[sum(a * c for a, c in zip(f[\"state\"][$b][\"velocity\"], $n)) for f in F]" &&
		assert_eq "$(frames drop.mrd "min($vn) < -1 and any(v > 0.5 for v in $vn[$vn.index(min($vn)):])")" True bounced &&
		assert_eq "$(frames drop.mrd "F[-1][\"state\"][$b][\"position\"][1] < -0.05")" True down-slope &&
		assert_eq "$(frames drop.mrd "max(c[\"contacts\"] for c in C) > 0")" True contacts'
done

expect_success "--via-pipes: mrdem-pairs | mrdem-contact | mrdem-step give the very same bytes" '
	sed "s/1.03,/1.005,/" offset.yaml >touching.yaml &&
	mrdem-run touching.yaml --steps 40 --every 10 -o inproc.mrd 2>inproc.err &&
	mrdem-run touching.yaml --steps 40 --every 10 --via-pipes -o pipes.mrd 2>pipes.err &&
	same_stream inproc.mrd pipes.mrd &&
	assert_eq "$(frames pipes.mrd "sum(c[\"contacts\"] for c in C) > 0")" True contacts &&
	grep "energy (" inproc.err >inproc.energy && grep "energy (" pipes.err >pipes.energy &&
	test_cmp inproc.energy pipes.energy &&
	assert_grep "comparisons in the tools.* stats records (mrdem-stats pipes.mrd)" pipes.err'

expect_success "dynamic teams (OMP_DYNAMIC=true) give the bytes of fixed ones (the default)" '
	OMP_DYNAMIC=true OMP_NUM_THREADS=2 mrdem-run -q touching.yaml --steps 20 --every 5 -o dyn.mrd &&
	OMP_DYNAMIC=false OMP_NUM_THREADS=2 mrdem-run -q touching.yaml --steps 20 --every 5 -o fixed.mrd &&
	same_stream dyn.mrd fixed.mrd'

expect_success "--via-pipes works in TMPDIR and leaves it empty" '
	mkdir tmp-pipes &&
	TMPDIR=$T/tmp-pipes mrdem-run -q touching.yaml --steps 3 --via-pipes -o p3.mrd &&
	mrdem-run -q touching.yaml --steps 3 -o i3.mrd && same_stream i3.mrd p3.mrd &&
	assert_eq "$(ls -A tmp-pipes)" "" "left in TMPDIR" &&
	assert_exit 1 env TMPDIR=$T/no-such-dir mrdem-run -q touching.yaml --steps 3 --via-pipes -o x.mrd &&
	assert_grep "cannot create a temporary directory in $T/no-such-dir" err'

expect_success "--via-pipes runs the tools without a shell: quotes and spaces in paths are fine" '
	d="$T/bin '"'"'q'"'"' \$x" && mkdir "$d" "$d/tmp" &&
	for t in mrdem-run mrdem-pairs mrdem-contact mrdem-step; do cp "$MRDEM_BIN/$t" "$d/" || exit 1; done &&
	TMPDIR="$d/tmp" "$d/mrdem-run" -q touching.yaml --steps 3 --via-pipes -o q3.mrd &&
	same_stream i3.mrd q3.mrd && assert_eq "$(ls -A "$d/tmp")" "" "left in TMPDIR"'

expect_success "--via-pipes: a failing tool is named, its exit status given" '
	d="$T/badbin" && mkdir "$d" && cp "$MRDEM_BIN/mrdem-run" "$MRDEM_BIN/mrdem-pairs" "$MRDEM_BIN/mrdem-contact" "$d/" &&
	printf "#!/bin/sh\nexit 3\n" >"$d/mrdem-step" && chmod +x "$d/mrdem-step" &&
	assert_exit 1 "$d/mrdem-run" -q touching.yaml --steps 3 --via-pipes -o b3.mrd &&
	assert_grep "mrdem-step failed (exit status 3)" err'

expect_success "--via-pipes: a detection that fails half-way stops the step beside it, reported once" '
	d="$T/badcontact" && mkdir "$d" && cp "$MRDEM_BIN/mrdem-run" "$MRDEM_BIN/mrdem-pairs" "$MRDEM_BIN/mrdem-step" "$d/" &&
	printf "#!/bin/sh\nhead -c 3000\nexit 4\n" >"$d/mrdem-contact" && chmod +x "$d/mrdem-contact" &&
	assert_exit 1 "$d/mrdem-run" -q touching.yaml --steps 3 --via-pipes -o c3.mrd &&
	assert_grep "mrdem-contact failed (exit status 4)" err &&
	! grep -q "mrdem-step" err'

expect_success "--via-pipes: the tools write stored streams and wait passively, unless the user chose a policy" '
	d="$T/envbin" && mkdir "$d" && cp "$MRDEM_BIN/mrdem-run" "$MRDEM_BIN/mrdem-contact" "$MRDEM_BIN/mrdem-step" "$d/" &&
	printf "#!/bin/sh\necho \"\$MRDEM_STREAM_LEVEL \$OMP_WAIT_POLICY\" >>\"%s\"\nexec \"%s\" \"\$@\"\n" \
		"$T/env.txt" "$MRDEM_BIN/mrdem-pairs" >"$d/mrdem-pairs" && chmod +x "$d/mrdem-pairs" &&
	env -u OMP_WAIT_POLICY MRDEM_STREAM_LEVEL=9 "$d/mrdem-run" -q touching.yaml --steps 3 --via-pipes -o e3.mrd &&
	same_stream i3.mrd e3.mrd &&
	assert_eq "$(sort -u "$T/env.txt")" "0 passive" "tool environment" &&
	rm "$T/env.txt" &&
	OMP_WAIT_POLICY=active "$d/mrdem-run" -q touching.yaml --steps 2 --via-pipes -o e2.mrd &&
	assert_eq "$(sort -u "$T/env.txt")" "0 active" "tool environment, policy given"'

expect_success "flat and surrogate search give the same trajectory (Lemma 5.1)" '
	mrdem-run -q offset.yaml --steps 400 --every 100 --hierarchy flat -o flat.mrd &&
	mrdem-run -q offset.yaml --steps 400 --every 100 --hierarchy surrogate -o surr.mrd &&
	frames flat.mrd "[f[\"state\"] for f in F], [c.get(\"list\") for c in C]" >flat.txt &&
	frames surr.mrd "[f[\"state\"] for f in F], [c.get(\"list\") for c in C]" >surr.txt &&
	cmp flat.txt surr.txt'

expect_success "a run resumed from its output's last frame ends where one long run ends" '
	mrdem-run -q headon.yaml --steps 300 --every 100 -o first.mrd &&
	mrdem-run -q first.mrd --steps 300 --every 100 -o second.mrd &&
	mrdem-run -q headon.yaml --steps 600 --every 100 -o long.mrd &&
	assert_eq "$(frames second.mrd "F[-1][\"step\"], F[-1][\"state\"]")" \
		"$(frames long.mrd "F[-1][\"step\"], F[-1][\"state\"]")" resumed'

# A resumed run's last step number must fit in 64 bits: the frames of a
# 10-step run moved to end 4 steps before 2^64 - 1.
expect_success "a resumed run whose step counter would wrap is refused, naming file and option" '
	mrdem-run -q headon.yaml --steps 10 --every 100 -o s10.mrd &&
	python3 -c "import struct, sys; sys.path.insert(0, \"$TOP/tests/lib\"); import mrdem_stream as m
m.rewrite(\"s10.mrd\", \"late.mrd\", lambda t, p: struct.pack(\"<Q\", struct.unpack_from(\"<Q\", p)[0] + 2**64 - 15) + p[8:] if t == 4 else p)" &&
	assert_exit 1 mrdem-run -q late.mrd -o lx.mrd &&
	assert_grep "error: late.mrd: resuming at step 18446744073709551611, 10 more steps (time.steps of its setup record) would pass the largest step number 18446744073709551615; give --steps 4 or fewer" err &&
	assert_exit 2 mrdem-run -q late.mrd --steps 5 -o lx.mrd &&
	assert_grep "late.mrd: resuming at step 18446744073709551611, 5 more steps (--steps) would pass" err &&
	assert_exit 2 mrdem-run -q late.mrd --steps 18446744073709551614 --via-pipes -o lx.mrd &&
	test ! -e lx.mrd &&
	mrdem-run -q late.mrd --steps 4 -o lx.mrd &&
	assert_eq "$(frames lx.mrd "F[-1][\"step\"]")" 18446744073709551615 "last step" && rm lx.mrd'

expect_success "a killed run keeps every flushed frame" '
	mrdem-run -q headon.yaml --steps 100000000 --every 10 -o killed.mrd & pid=$!
	for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.5; [ -s killed.mrd ] && break; done
	sleep 1; kill -9 $pid; wait $pid 2>/dev/null
	mrdem-info --json killed.mrd >k.json 2>k.err; rc=$?
	assert_eq $rc 1 "exit status" && grep -Eq "truncated stream|incomplete stream" k.err &&
	assert_eq "$(json_get k.json "d[\"counts\"][\"frame\"] >= 2")" True frames &&
	last=$(json_get k.json "[r[\"step\"] for r in d[\"records\"] if r[\"type\"] == \"frame\"][-1]") &&
	mrdem-run -q killed.mrd --steps 5 --every 5 -o resumed.mrd 2>r.err &&
	assert_grep "resuming from step $last" r.err && assert_grep "complete frame" r.err &&
	assert_eq "$(frames resumed.mrd "F[-1][\"step\"]")" $((last + 5)) "last step"'

for sig in INT TERM; do
expect_success "SIG$sig ends a run cleanly: complete stream, message, exit 128+signal" '
	mrdem-run -q headon.yaml --steps 100000000 --every 1000 -o sig.mrd 2>sig.err & pid=$!
	for i in $(seq 120); do sleep 0.5; [ -s sig.mrd ] && break; done
	sleep 0.5; kill -'$sig' $pid; wait $pid; rc=$?
	want=$([ '$sig' = INT ] && echo 130 || echo 143)
	assert_eq $rc $want "exit status" && assert_grep "interrupted by SIG'$sig'" sig.err &&
	mrdem-info sig.mrd >sig.txt && assert_grep "end of stream 1" sig.txt'
done

# (at dt 0.5 the first step moves the particles 25 halos: stopped at once,
# with no output; at 0.01 the energy bound stops it at the contact)
expect_success "a blow-up stops with the step and particle named, and no NaN frame" '
	mrdem-run -q headon.yaml --scheme symplectic-euler --dt 0.01 --steps 50 -o blow.mrd 2>err.txt; rc=$?
	assert_eq $rc 1 "exit status" && assert_grep "step [0-9]" err.txt &&
	assert_grep "particle" err.txt && cat err.txt &&
	mrdem-info blow.mrd >/dev/null'

expect_success "a bad scene is refused with file:line:col and writes nothing" '
	printf "shapes:\n  ball: {sphere: {triangles: 80}}\nparticles:\n  - {shape: rock}\n" >bad.yaml
	mrdem-run bad.yaml -o bad.mrd 2>err.txt; rc=$?
	assert_eq $rc 1 "exit status" && assert_grep "bad.yaml:4:" err.txt && [ ! -e bad.mrd ]'

expect_success "a YAML scene by another name: the suffix it needs is named, nothing written" '
	cp headon.yaml headon.txt
	mrdem-run -q headon.txt -o x.mrd 2>err.txt; rc=$?; cat err.txt
	assert_eq $rc 1 "exit status" && assert_grep "headon.txt: a YAML scene needs the suffix .yaml or .yml" err.txt &&
	[ ! -e x.mrd ] && mrdem-run --help | grep -q "named \*.yaml or \*.yml"'

# Bad input that is only seen once the output is open: no output file, an
# older file at that path untouched, one message that names the input.
SET="python3 $TOP/tests/lib/mrdem_stream.py --set"
expect_success "a frame the reader refuses (negative halo, shared id): file and record named, no output" '
	mrdem-run -q headon.yaml --steps 0 -o s.mrd &&
	$SET s.mrd negeps.mrd epsilon 1 -1 && $SET s.mrd dup.mrd id 1 "$(frames s.mrd "F[0][\"state\"][0][\"id\"]")" &&
	for how in --general-path --via-pipes; do
		for f in negeps dup; do
			echo older >o.mrd
			mrdem-run $how $f.mrd -o o.mrd 2>err.txt; rc=$?; cat err.txt
			assert_eq $rc 1 "$how $f: exit status" && assert_grep "$f.mrd: record [0-9]* (frame)" err.txt &&
			assert_eq "$(cat o.mrd)" older "$how $f: the older o.mrd" &&
			assert_eq "$(grep -c error err.txt)" 1 "$how $f: messages" &&
			! grep -Eq "incomplete stream|/tmp/" err.txt && ! ls o.mrd.* 2>/dev/null || exit 1
			case $f in
			negeps) assert_grep "particle 1 (id [0-9]*): epsilon is -1" err.txt ;;
			dup) assert_grep "particles 0 and 1 share the id" err.txt ;;
			esac || exit 1
		done
	done'
# Density 0 is valid for contact detection, not for a step: mrdem-run
# and mrdem-step refuse it as they read, naming stream and record, on every
# path. An orientation that is no rotation (the zero quaternion, a norm far
# from 1) is refused by every tool as the frame is read (the sphere fast
# path once carried a zero quaternion on; detection tools sheared shapes).
expect_success "a frame no step can take (density 0) or no tool can (no rotation): file, record and particle named" '
	mrdem-run -q headon.yaml --steps 0 -o s.mrd && $SET s.mrd dens.mrd density 1 0 &&
	$SET s.mrd quat.mrd orientation 1 0,0,0,0 && $SET s.mrd norm.mrd orientation 1 0.5,0.5,0.5,0 &&
	mrdem-pairs dens.mrd | mrdem-contact >dc.mrd &&
	! mrdem-step dc.mrd -o x.mrd 2>err.txt && cat err.txt && [ ! -e x.mrd ] &&
	assert_eq "$(grep -c error err.txt)" 1 "mrdem-step density: messages" &&
	assert_grep "^mrdem-step: error: dc.mrd: record [0-9]* (frame) at byte [0-9]*: particle 1 (id 1): density 0;" err.txt &&
	for tool in mrdem-pairs mrdem-contact mrdem-step mrdem-info mrdem-stats; do
		for f in quat norm; do
			! $tool $f.mrd >x.out 2>err.txt && cat err.txt &&
			assert_eq "$(grep -c error err.txt)" 1 "$tool $f: messages" &&
			assert_grep "^$tool: error: $f.mrd: record [0-9]* (frame) at byte [0-9]*: particle 1 (id 1): orientation" err.txt || exit 1
		done
	done &&
	assert_grep "has norm 0.866025: not a unit quaternion" err.txt &&
	printf "%s\n" "shapes: {b: {analytic-sphere: {radius: 0.01}}}" \
		"contact: {model: spring-dashpot, stiffness: 1000}" "time: {scheme: velocity-verlet}" \
		"particles: [{shape: b, position: [0, 0, 0]}, {shape: b, position: [0.03, 0, 0]}]" >fs.yaml &&
	mrdem-init fs.yaml -o fs.mrd && $SET fs.mrd fsquat.mrd orientation 1 0,0,0,0 &&
	$SET fs.mrd fsdens.mrd density 1 0 &&
	for run in "--general-path dens" "--via-pipes dens" "--general-path quat" "--via-pipes quat" \
		   " fsquat" " fsdens"; do
		set -- $run; how=${2:+$1}; f=${2:-$1}
		echo older >o.mrd
		mrdem-run -q $how --steps 2 $f.mrd -o o.mrd 2>err.txt; rc=$?; cat err.txt
		assert_eq $rc 1 "$run: exit status" &&
		assert_grep "^mrdem-run: error: $f.mrd: record [0-9]* (frame) at byte [0-9]*: particle 1 (id 1): " err.txt &&
		assert_eq "$(grep -c error err.txt)" 1 "$run: messages" &&
		assert_eq "$(cat o.mrd)" older "$run: the older o.mrd" && ! ls o.mrd.* 2>/dev/null || exit 1
		case $f in
		*dens) assert_grep "density 0; a free particle needs a positive density" err.txt ;;
		*quat) assert_grep "orientation \[0, 0, 0, 0\] is the zero quaternion" err.txt ;;
		esac || exit 1
	done'
expect_success "a scene that fails its first step leaves no output, an older file untouched" '
	sed "s/1.03,/1.005,/" headon.yaml >close.yaml &&
	for how in --general-path --via-pipes; do
		echo older >o.mrd
		mrdem-run -q $how --allow-overlap --steps 2 --dt 10 close.yaml -o o.mrd 2>err.txt; rc=$?; cat err.txt
		assert_eq $rc 1 "$how: exit status" && assert_grep "step 0 .*the energy grew" err.txt &&
		assert_grep "stopped at step 0 .*no output written" err.txt &&
		assert_eq "$(cat o.mrd)" older "$how: the older o.mrd" && ! ls o.mrd.* 2>/dev/null || exit 1
	done &&
	rm o.mrd && ! mrdem-run -q --allow-overlap --steps 2 --dt 10 close.yaml -o o.mrd 2>/dev/null && [ ! -e o.mrd ]'

expect_success "options are checked" '
	mrdem-run headon.yaml --steps x -o x.mrd 2>e1; r1=$?
	mrdem-run headon.yaml --hierarchy multiscale -o x.mrd 2>e3; r3=$?
	mrdem-run headon.yaml --picard-max 5 -o x.mrd 2>e5; r5=$?
	mrdem-run headon.yaml --scheme implicit-euler --picard-tol 0 -o x.mrd 2>e6; r6=$?
	mrdem-run headon.yaml --method comparison --threshold 3 -o x.mrd 2>e7; r7=$?
	assert_eq "$r1 $r3 $r5 $r6 $r7" "2 2 2 2 2" && assert_grep "steps" e1 &&
	assert_grep "multiscale fuses the search into the Picard loop of implicit-euler" e3 &&
	assert_grep "apply to implicit-euler only" e5 && assert_grep "picard-tol" e6 &&
	assert_grep "does not run" e7 && [ ! -e x.mrd ]'

expect_success "the summary states the memory the scene added per particle and per contact" '
	python3 "$TOP/pipelines/scenes.py" --write . lattice-8-8-6 >/dev/null &&
	OMP_NUM_THREADS=1 mrdem-run lattice-8-8-6/scene.yaml --steps 1 -o /dev/null 2>sum &&
	assert_grep "peak resident memory: [0-9.]* MB, [0-9.]* MB above the [0-9.]* MB before the scene: [0-9]* bytes per particle, or [0-9]* per contact (992 at most in a step)" sum'

expect_success "--help lists every contact option, --no-merge too" '
	mrdem-run --help >h && grep -q "usage: mrdem-run" h && grep -q -- "--no-merge" h'

expect_success "--method comparison --via-pipes: mrdem-contact gets no iterative-kernel options, same bytes" '
	sed "s/1.03,/1.005,/" offset.yaml >touching.yaml &&
	mrdem-run -q touching.yaml --steps 20 --every 10 --method comparison -o a.mrd &&
	mrdem-run -q touching.yaml --steps 20 --every 10 --method comparison --via-pipes -o b.mrd &&
	same_stream a.mrd b.mrd'


done_testing
