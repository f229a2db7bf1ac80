#!/usr/bin/env bash
# Implicit Euler through the tools (docs/dynamics.md, "Through the tools"):
# mrdem-step runs one Picard iteration per call, mrdem-contact
# --hierarchy multiscale one front search, the picard, fronts and guesses
# records carry the step between them, and mrdem-run --via-pipes gives the
# in-process bytes for every hierarchy, warm (the default) and cold start
# and retries included.
. "$(dirname "$0")/../lib/test-lib.sh"

# Two touching balls, a brick resting on a tilted plane and a fixed box: a
# contact in the first step, node pairs that unfold and guess.
cat >scene.yaml <<'Y'
shapes:
  ball: {sphere: {triangles: 80, radius: 0.5}}
  brick: {box: {size: [0.8, 0.5, 0.4]}}
particles:
  - {shape: ball, position: [0, 0, 1.0], velocity: [0.3, 0, 0]}
  - {shape: ball, position: [1.005, 0.1, 1.0], velocity: [-0.3, 0, 0], angular_velocity: [0, 0, 2]}
  - {shape: brick, position: [-1.2, 0, 0.21], angular_velocity: [0, 0, 1]}
  - {shape: brick, position: [1.2, -1.2, 0.5], fixed: true}
planes:
  - {point: [0, 0, 0], normal: [0, 0.05, 1]}
gravity: [0, 0, -9.81]
contact: {model: paper, epsilon: 0.02, stiffness: 1000, allow_overlap: true}
time: {dt: 1.0e-3, steps: 4, scheme: implicit-euler}
output: {every: 2}
Y

# edit.py IN OUT TYPE OFFSET FORMAT VALUE: put VALUE (struct FORMAT) at
# byte OFFSET of the first record of TYPE (a negative offset counts from the
# payload's end), or drop every record of TYPE with "drop"; checksums and
# the end record made anew.
cat >edit.py <<'PY'
import gzip, os, struct, sys
sys.path.insert(0, os.path.join(os.environ["TOP"], "tests", "lib"))
import mrdem_stream as ms
src, dst, rtype = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = gzip.decompress(open(src, "rb").read())
out, done = ms.HEADER, False
for t, payload in ms._walk(data[16:]):
    if t in (ms.INDEX, ms.END):
        continue
    if t == rtype and sys.argv[4] == "drop":
        continue
    if t == rtype and not done:
        p = bytearray(payload)
        off = int(sys.argv[4]) % len(p)
        value = float(sys.argv[6]) if sys.argv[5] in "fd" else int(sys.argv[6])
        struct.pack_into("<" + sys.argv[5], p, off, value)
        payload, done = bytes(p), True
    out += ms.record(t, payload)
open(dst, "wb").write(gzip.compress(ms.finish(out)))
PY
edit() { python3 edit.py "$@"; }

for h in flat surrogate multiscale "multiscale --cold-start"; do
	expect_success "--via-pipes gives the in-process bytes: --hierarchy $h" '
		mrdem-run -q scene.yaml --hierarchy '"$h"' -o in.mrd 2>in.err &&
		mrdem-run -q scene.yaml --hierarchy '"$h"' --via-pipes -o pipes.mrd 2>pipes.err &&
		same_stream in.mrd pipes.mrd &&
		mrdem-stats pipes.mrd >s.csv &&
		assert_true "$(checks column s.csv picard_iterations max) > 1" "most Picard iterations in a step" &&
		assert_true "$(checks column s.csv picard_contacts max) > 0" "most Picard contacts"'
done

# Stiff springs at a large dt: attempts diverge and are retried as halves.
sed "s/stiffness: 1000/stiffness: 20000/; s/dt: 1.0e-3, steps: 120/dt: 16.0e-3, steps: 4/; s/every: 5/every: 1/" \
	"$TOP/tests/lib/headon.yaml" >stiff.yaml
expect_success "--via-pipes: halved retries give the in-process bytes, reported by mrdem-step" '
	mrdem-run -q stiff.yaml -o in.mrd 2>in.err &&
	mrdem-run -q stiff.yaml --via-pipes -o pipes.mrd 2>pipes.err &&
	same_stream in.mrd pipes.mrd &&
	assert_grep "mrdem-run: warning: step 2 .*retrying as two steps of 0.008 s" in.err &&
	assert_grep "mrdem-step: warning: step 2 .*retrying as two steps of 0.008 s" pipes.err &&
	mrdem-stats pipes.mrd | grep -q picard_retries'

expect_success "--via-pipes: a step that fails names the step, the tool and writes no frame for it" '
	mrdem-run -q stiff.yaml --picard-retries 0 --via-pipes -o fail.mrd 2>err; rc=$?
	assert_eq $rc 1 "exit status" && assert_grep "step 2 .*did not converge" err &&
	assert_grep "via-pipes: mrdem-step failed (exit status 1)" err &&
	assert_eq "$(checks last-step fail.mrd)" 2'

# The loop of docs/dynamics.md by hand, one Picard iteration per pipe.
begin() { # hierarchy -> it.mrd: the frame of step 0 begun
	mrdem-init scene.yaml | mrdem-tree | mrdem-pairs |
		mrdem-contact --hierarchy "$(case $1 in multiscale) echo surrogate ;; *) echo $1 ;; esac)" |
		mrdem-step -o it.mrd
}
expect_success "one Picard iteration per tool: the loop ends at the frame mrdem-run writes" '
	begin multiscale && mrdem-info it.mrd >info &&
	assert_grep "implicit step 0 .* in progress: attempt at dt 0.001 s after 0 halving(s), iteration 1" info &&
	k=0 && while mrdem-info it.mrd | grep -q ": picard ("; do
		mrdem-pairs it.mrd | mrdem-contact --hierarchy multiscale | mrdem-step -o next.mrd &&
		mv next.mrd it.mrd && k=$((k + 1)) && [ $k -lt 60 ] || exit 1
	done && echo "# $k iterations" && [ $k -gt 1 ] &&
	mrdem-info it.mrd >info && assert_grep "fronts of 1 particle pair" info &&
	mrdem-run -q scene.yaml --hierarchy multiscale --steps 1 -o one.mrd &&
	checks same-last it.mrd one.mrd frame && checks same-last it.mrd one.mrd stats mrdem-step'

expect_success "the loop that mrdem-step --help prints finishes the step" '
	begin surrogate &&
	mrdem-step --help | sed -n "/^  while mrdem-info/,/done\$/p" >loop.sh &&
	test "$(wc -l <loop.sh)" -eq 3 &&
	timeout 120 sh loop.sh && mrdem-info it.mrd >info &&
	! grep -q ": picard (" info && assert_grep "frame index: 1 frame(s), steps 1 \.\. 1" info'

expect_success "mrdem-contact --hierarchy multiscale needs a step in progress" '
	mrdem-init scene.yaml | mrdem-tree >s0.mrd &&
	assert_exit 1 mrdem-contact --hierarchy multiscale s0.mrd -o x.mrd &&
	assert_grep "has no picard record" err && test ! -e x.mrd'

expect_success "an explicit scheme refuses a step in progress; Picard options need implicit-euler" '
	begin surrogate &&
	assert_exit 1 mrdem-step --scheme explicit-euler it.mrd -o x.mrd &&
	assert_grep "an implicit step in progress (picard record)" err &&
	assert_exit 2 mrdem-step --scheme velocity-verlet --picard-tol 0.1 it.mrd -o x.mrd &&
	assert_grep "implicit-euler only" err &&
	assert_exit 2 mrdem-step --picard-max 0 it.mrd -o x.mrd &&
	assert_grep "picard-max: .0. is not a whole number in 1\.\.1000000" err &&
	test ! -e x.mrd'

expect_success "the Picard options of a step in progress cannot change" '
	begin surrogate && mrdem-pairs it.mrd | mrdem-contact >c.mrd &&
	assert_exit 1 mrdem-step --picard-tol 0.5 c.mrd -o x.mrd &&
	assert_grep "began with other Picard options (tolerance 0.01" err &&
	assert_exit 1 mrdem-step --dt 2e-3 c.mrd -o x.mrd && assert_grep "has dt 0.001 s" err &&
	mrdem-step --picard-tol 0.01 c.mrd -o ok.mrd && test ! -e x.mrd'

expect_success "an iteration needs the search stats, and guesses with fronts" '
	begin multiscale && mrdem-pairs it.mrd | mrdem-contact --hierarchy multiscale >c.mrd &&
	edit c.mrd nostats.mrd 7 drop &&
	assert_exit 1 mrdem-step nostats.mrd -o x.mrd &&
	assert_grep "no stats record of mrdem-contact" err &&
	edit c.mrd noguess.mrd 13 drop &&
	assert_exit 1 mrdem-step noguess.mrd -o x.mrd &&
	assert_grep "fronts but no guesses" err && test ! -e x.mrd'

expect_success "a damaged picard record is named and nothing is written" '
	begin surrogate &&
	edit it.mrd nan.mrd 11 -$((29 * 8 * 4)) d nan &&
	assert_exit 1 mrdem-step nan.mrd -o x.mrd &&
	assert_grep "record [0-9]* (picard) at byte [0-9]*: particle 0: value 0 of array 0 is not finite" err &&
	edit it.mrd tol.mrd 11 28 d -1 &&
	assert_exit 1 mrdem-step tol.mrd -o x.mrd && assert_grep "Picard tolerance -1 is not positive" err &&
	test ! -e x.mrd'

expect_success "a fronts record that does not fit the trees is refused" '
	begin multiscale && mrdem-pairs it.mrd | mrdem-contact --hierarchy multiscale | mrdem-step -o it2.mrd &&
	mrdem-info it2.mrd | grep -q "fronts of 1 particle pair" &&
	edit it2.mrd far.mrd 12 40 I 99999 &&
	mrdem-pairs far.mrd | mrdem-contact --hierarchy multiscale -o x.mrd 2>err; rc=$?
	assert_eq $rc 1 "exit status" && assert_grep "refers to nodes or triangles that their shapes" err &&
	edit it2.mrd group.mrd 12 48 I 77777 &&
	assert_exit 1 mrdem-step group.mrd -o x.mrd &&
	assert_grep "(fronts) at byte [0-9]*: front 0 (particles 0 and 1): pair 0: group 77777" err &&
	test ! -e x.mrd'

done_testing
