#!/usr/bin/env bash
# mrdem-step: one step of every scheme and force model against an
# independent Python reference (stepscene.py), through files and pipes;
# records passed through or dropped; bad input and diverging steps fail
# cleanly without output; the full init | contact | step pipeline.
. "$(dirname "$0")/../lib/test-lib.sh"
GEN=$TOP/tests/e2e/stepscene.py

for scheme in explicit-euler symplectic-euler velocity-verlet; do
	for model in spring spring-dashpot; do
		expect_success "$scheme, $model: the step equals the reference" '
			python3 "$GEN" gen s.mrd s.json --scheme $scheme --model $model &&
			mrdem-step s.mrd -o out.mrd 2>err && python3 "$GEN" check out.mrd s.json'
	done
done

expect_success "--scheme and --dt override the setup, through a pipe" '
	python3 "$GEN" gen s.mrd s.json --scheme explicit-euler &&
	cat s.mrd | mrdem-step --scheme velocity-verlet --dt 2.5e-4 2>err >out.mrd &&
	python3 "$GEN" check out.mrd s.json --scheme velocity-verlet --dt 2.5e-4'

expect_success "the unknown record is passed through with a warning" '
	python3 "$GEN" gen s.mrd s.json && mrdem-step s.mrd -o out.mrd 2>err &&
	assert_grep "unknown ancillary record type 99" err'

expect_success "--no-contacts steps a stream without contacts under gravity alone" '
	python3 "$GEN" gen s.mrd s.json --no-contacts &&
	mrdem-step --no-contacts s.mrd -o out.mrd 2>err && python3 "$GEN" check out.mrd s.json'

expect_success "thread count does not change a bit" '
	python3 "$GEN" gen s.mrd s.json --scheme velocity-verlet &&
	OMP_NUM_THREADS=1 mrdem-step s.mrd -o one.mrd 2>err &&
	OMP_NUM_THREADS=3 mrdem-step s.mrd -o three.mrd 2>err && same_stream one.mrd three.mrd'

expect_success "a frame without contacts is refused, nothing written" '
	rm -f out.mrd &&
	python3 "$GEN" gen s.mrd s.json --no-contacts &&
	{ mrdem-step s.mrd -o out.mrd 2>err; test $? = 1; } &&
	assert_grep "has no contacts record; run mrdem-contact first" err && test ! -e out.mrd'

expect_success "contacts with --no-contacts are refused" '
	rm -f out.mrd &&
	python3 "$GEN" gen s.mrd s.json &&
	{ mrdem-step --no-contacts s.mrd -o out.mrd 2>err; test $? = 1; } &&
	assert_grep "no-contacts given, but the stream carries contacts" err && test ! -e out.mrd'

expect_success "stale contacts (another step) are refused" '
	rm -f out.mrd &&
	python3 "$GEN" gen s.mrd s.json --contact-step 6 &&
	{ mrdem-step s.mrd -o out.mrd 2>err; test $? = 1; } &&
	assert_grep "contacts are for step 6 but the frame is at step 7" err && test ! -e out.mrd'

expect_success "a diverging step names the step and particle and writes nothing" '
	rm -f out.mrd &&
	python3 "$GEN" gen s.mrd s.json --model spring-dashpot &&
	{ mrdem-step --dt 0.5 s.mrd -o out.mrd 2>err; test $? = 1; } &&
	assert_grep "step 7 (t = 0.007 s): " err && assert_grep "particle [0-9]" err &&
	test ! -e out.mrd'

expect_success "the energy bound can be switched off" '
	python3 "$GEN" gen s.mrd s.json --model spring-dashpot &&
	mrdem-step --dt 0.5 --max-energy-growth 0 s.mrd -o out.mrd 2>err'

expect_success "bad options exit 2 with a hint, --help exits 0" '
	mrdem-step --help | grep -q "^usage: mrdem-step" &&
	{ mrdem-step --scheme midpoint s.mrd 2>err; test $? = 2; } &&
	assert_grep "unknown scheme .midpoint." err &&
	{ mrdem-step --scheme explicit-euler --warm-start s.mrd 2>err; test $? = 2; } &&
	assert_grep "implicit-euler only" err &&
	{ mrdem-step --scheme explicit-euler --cold-start s.mrd 2>err; test $? = 2; } &&
	assert_grep "implicit-euler only" err &&
	{ mrdem-step --dt -1 2>err; test $? = 2; } && { mrdem-step --dt abc 2>err; test $? = 2; } &&
	{ mrdem-step --bogus 2>err; test $? = 2; } && assert_grep "try .mrdem-step --help." err'

expect_success "Picard options with an explicit scheme of the setup exit 2 and write nothing" '
	mrdem-init "$TOP/examples/two-spheres.yaml" | mrdem-pairs | mrdem-contact >ex.mrd && rm -f out.mrd &&
	for o in "--picard-tol 0.1" "--picard-max 3" --cold-start "--surrogate-damping 0.5"; do
		assert_exit 2 mrdem-step $o ex.mrd -o out.mrd &&
		assert_grep "ex.mrd: the Picard options apply to implicit-euler only, but the frame of record [0-9]* is stepped with the setup.s scheme explicit-euler" err &&
		test ! -e out.mrd || exit 1
	done &&
	mrdem-step --scheme implicit-euler --picard-tol 0.1 ex.mrd -o out.mrd'

expect_success "--no-contacts with implicit-euler exits 2, given or from the setup" '
	mrdem-init "$TOP/examples/two-spheres.yaml" -o in.mrd && rm -f x.mrd &&
	assert_exit 2 mrdem-step --scheme implicit-euler --no-contacts in.mrd -o x.mrd &&
	assert_grep "no-contacts steps explicit schemes only" err &&
	sed "s/scheme: explicit-euler/scheme: implicit-euler/" "$TOP/examples/two-spheres.yaml" >imp.yaml &&
	mrdem-init imp.yaml -o imp.mrd && assert_exit 2 mrdem-step --no-contacts imp.mrd -o x.mrd &&
	assert_grep "imp.mrd: --no-contacts steps explicit schemes only" err && test ! -e x.mrd'

expect_success "a bad stream fails with status 1" '
	rm -f out.mrd &&
	{ mrdem-step "$TOP/tests/golden/bad-checksum.mrd" -o out.mrd 2>err; test $? = 1; } &&
	test ! -e out.mrd && { mrdem-step "$TOP/tests/golden/good-mesh.mrd" -o out.mrd 2>err; test $? = 1; } &&
	assert_grep "no frame to step" err'

# The step counter is 64 bits: a frame at its largest value has no next.
expect_success "a frame at step 2^64 - 1 is not stepped (the counter would wrap); one before is" '
	python3 "$GEN" gen s.mrd s.json --no-contacts &&
	for last in 1 2; do
		python3 -c "import struct, sys; sys.path.insert(0, \"$TOP/tests/lib\"); import mrdem_stream as m
m.rewrite(\"s.mrd\", \"late$last.mrd\", lambda t, p: struct.pack(\"<Q\", 2**64 - $last) + p[8:] if t == 4 else p)" || return 1
	done &&
	assert_exit 1 mrdem-step --no-contacts late1.mrd -o out.mrd &&
	assert_grep "step 18446744073709551615: the frame is at the largest step number" err &&
	test ! -e out.mrd &&
	mrdem-step --no-contacts late2.mrd | mrdem-info | grep -q "^  step 18446744073709551615, "'

# The whole chain on the paper's head-on example, once the other tools exist.
if command -v mrdem-init >/dev/null && command -v mrdem-contact >/dev/null; then
	expect_success "init | contact | step | info: the frame advances by one step" '
		mrdem-init "$TOP/examples/two-spheres.yaml" | mrdem-pairs | mrdem-contact | mrdem-step |
			mrdem-info --json >info.json &&
		python3 -c "
import json, sys
d = json.load(open(\"info.json\"))
fr = [r for r in d[\"records\"] if r[\"type\"] == \"frame\"]
st = [r for r in d[\"records\"] if r[\"type\"] == \"stats\" and r.get(\"source\") == \"mrdem-step\"]
assert len(fr) == 1 and fr[0][\"step\"] == 1 and abs(fr[0][\"time\"] - 1e-4) < 1e-15, fr
assert len(st) == 1 and d[\"counts\"][\"contacts\"] == 0 and d[\"counts\"][\"pairs\"] == 0, d[\"counts\"]
"'
else
	skip_test "init | contact | step | info: the frame advances by one step" "mrdem-init or mrdem-contact not built yet"
fi

done_testing
