#!/usr/bin/env bash
# mrdem-pairs: brute and grid give exactly the pairs of the definition
# (computed independently by randscene.py) on random scenes, through files
# and pipes; records pass through; bad input fails cleanly.
. "$(dirname "$0")/../lib/test-lib.sh"
G=$TOP/tests/golden
GEN=$TOP/tests/e2e/randscene.py

# Pairs lists of every pairs record of a stream, as JSON, via mrdem-info.
pairs_of() { # stream -> stdout
	checks lists "$1" pairs
}
# Compare with the reference pairs of the generator's JSON.
same_as_reference() { # pairs.json scene.json
	python3 - "$1" "$2" <<'PY'
import json, sys
got = json.load(open(sys.argv[1]))
want = [f["pairs"] for f in json.load(open(sys.argv[2]))["frames"]]
if got != want:
    for k, (g, w) in enumerate(zip(got, want)):
        if g != w:
            print("frame %d: got %d pairs, want %d; first difference:" % (k, len(g), len(w)),
                  next(((a, b) for a, b in zip(g, w) if a != b), "length"))
    print("frames: got %d, want %d" % (len(got), len(want)))
    sys.exit(1)
if sum(len(w) for w in want) < 20:
    print("scene too sparse to be a test"); sys.exit(1)
PY
}

for flavour in uniform clustered poly; do
	for seed in 1; do
		expect_success "$flavour scene $seed: every method equals the reference pairs" '
			python3 "$GEN" s.mrd s.json --seed $seed --n 300 --frames 2 --planes 2 --flavour $flavour &&
			for m in grid brute sap mr mmr; do
				mrdem-pairs --broad $m -o $m.mrd s.mrd && pairs_of $m.mrd >$m.json &&
				same_as_reference $m.json s.json || { echo "method $m"; exit 1; }
			done &&
			mrdem-pairs --method brute s.mrd -o brute2.mrd && same_stream brute.mrd brute2.mrd'
	done
done

expect_success "through pipes with the default method" '
	python3 "$GEN" s.mrd s.json --seed 7 --n 400 --frames 3 --planes 1 --flavour clustered &&
	cat s.mrd | mrdem-pairs | checks lists - pairs >p.json &&
	same_as_reference p.json s.json'

expect_success "threaded (3,000 particles): same output for 1, 2 and 3 threads and both methods" '
	python3 "$GEN" big.mrd big.json --seed 8 --n 3000 --flavour clustered --no-reference &&
	OMP_NUM_THREADS=1 mrdem-pairs big.mrd -o one.mrd && OMP_NUM_THREADS=2 mrdem-pairs big.mrd -o two.mrd &&
	OMP_NUM_THREADS=3 mrdem-pairs big.mrd -o three.mrd && same_stream one.mrd two.mrd && same_stream one.mrd three.mrd &&
	OMP_NUM_THREADS=2 mrdem-pairs --method brute big.mrd -o brute.mrd &&
	pairs_of one.mrd >one.json && pairs_of brute.mrd >brute.json && cmp one.json brute.json &&
	[ "$(wc -c <one.json)" -gt 10000 ]'

expect_success "every input record passes through; pairs and stats follow each frame" '
	python3 "$GEN" s.mrd s.json --seed 3 --n 50 --frames 2 --contacts &&
	mrdem-pairs s.mrd -o p.mrd && mrdem-info --json p.mrd >p.info &&
	assert_eq "$(json_get p.info "\" \".join(r[\"type\"] for r in d[\"records\"])")" \
		"meta setup mesh mesh mesh mesh frame pairs stats contacts stats frame pairs stats contacts stats index end" types'

expect_success "pair statistics: counts agree with the list, sources named" '
	python3 "$GEN" s.mrd s.json --seed 4 --n 200 --planes 2 &&
	mrdem-pairs --method brute s.mrd -o p.mrd && mrdem-info --json --full p.mrd >p.info &&
	python3 - p.info <<PY
import json, sys
d = json.load(open(sys.argv[1]))
pairs = [r for r in d["records"] if r["type"] == "pairs"][0]["list"]
st = [r for r in d["records"] if r["type"] == "stats" and r["source"] == "mrdem-pairs"][0]["values"]
planes = sum(1 for a, b in pairs if b >= 2**64 - 2**32)
assert st["broad_pairs"] == len(pairs) - planes, st
assert st["broad_plane_pairs"] == planes, st
PY'

expect_success "running twice replaces the pairs instead of adding more" '
	python3 "$GEN" s.mrd s.json --seed 5 --n 80 &&
	mrdem-pairs s.mrd | mrdem-pairs --method brute >twice.mrd &&
	mrdem-info --json twice.mrd >t.info &&
	assert_eq "$(json_get t.info "d[\"counts\"][\"pairs\"]")" 1 pairs &&
	assert_eq "$(json_get t.info "sum(1 for r in d[\"records\"] if r[\"type\"]==\"stats\" and r[\"source\"]==\"mrdem-pairs\")")" 1 stats'

expect_success "golden scene: two tetrahedra 2.5 apart are no pair" '
	mrdem-pairs "$G/good-scene.mrd" -o p.mrd && mrdem-info --json --full p.mrd >p.info &&
	assert_eq "$(json_get p.info "[r[\"list\"] for r in d[\"records\"] if r[\"type\"]==\"pairs\"]")" "[[]]"'

expect_success "--help prints usage to stdout" 'mrdem-pairs --help | grep -q "usage: mrdem-pairs"'
expect_failure "unknown method is refused" 'mrdem-pairs --method octree "$G/good-scene.mrd" -o x.mrd'
expect_failure "a stream without frames is an error" 'mrdem-pairs "$G/good-mesh.mrd" -o x.mrd'
expect_success "truncated input: exit 1, message, no output file" '
	mrdem-pairs "$G/bad-truncated-record.mrd" -o x.mrd 2>err.txt; rc=$?
	assert_eq $rc 1 "exit status" && assert_grep "truncated" err.txt && [ ! -e x.mrd ]'
expect_success "NaN position: exit 1, names the record, no output" '
	mrdem-pairs "$G/bad-nan.mrd" -o x.mrd 2>err.txt; rc=$?
	assert_eq $rc 1 "exit status" && assert_grep "record" err.txt && [ ! -e x.mrd ]'

# Frames the reader refuses (docs/stream-format.md, "frame"): every tool
# names the file and the record; mrdem-pairs writes nothing, mrdem-info
# does not call the stream valid.
SET="python3 $TOP/tests/lib/mrdem_stream.py --set"
bad_frame() { # name column particle value message
	col=$2 at=$3 value=$4 msg=$5
	expect_success "$1: exit 1, file and record named, no output" '
		python3 "$GEN" s.mrd s.json --seed 9 --n 30 --planes 2 --no-reference &&
		first=$(checks info s.mrd "of(\"frame\")[0][\"state\"][0][\"id\"]") &&
		$SET s.mrd bad.mrd $col $at "$(eval echo "$value")" && rm -f x.mrd* || exit 1
		mrdem-pairs bad.mrd -o x.mrd 2>err.txt; rc=$?; cat err.txt
		assert_eq $rc 1 "exit status" && assert_grep "bad.mrd: record [0-9]* (frame)" err.txt &&
		assert_grep "$msg" err.txt && [ ! -e x.mrd ] && ! ls x.mrd* 2>/dev/null || exit 1
		cat bad.mrd | mrdem-pairs >y.mrd 2>err.txt; rc=$?
		assert_eq $rc 1 "exit status, pipe" && assert_grep "<stdin>: record [0-9]* (frame)" err.txt || exit 1
		mrdem-info bad.mrd >/dev/null 2>err.txt; rc=$?
		assert_eq $rc 1 "mrdem-info exit status" && assert_grep "$msg" err.txt'
}
bad_frame "a duplicated particle id" id 3 '$first' "particles 0 and 3 share the id"
bad_frame "a particle id in the plane range" id 1 18446744073709551611 \
	"particle 1 has id 18446744073709551611, in the range reserved for analytic planes"
bad_frame "a negative halo" epsilon 2 -1 "particle 2 (id [0-9]*): epsilon is -1"
bad_frame "an infinite halo" epsilon 2 inf "particle 2 (id [0-9]*): epsilon is not finite"

expect_success "a bad --broad or --method names the option and the methods, exit 2" '
	mrdem-pairs --broad foo "$G/good-scene.mrd" -o x.mrd 2>err.txt; rc=$?
	assert_eq $rc 2 "exit status" && assert_grep "^mrdem-pairs: error: --broad: .foo. is not sap, mr, mmr, grid or brute$" err.txt &&
	mrdem-pairs --method foo "$G/good-scene.mrd" -o x.mrd 2>err.txt; rc=$?
	assert_eq $rc 2 "exit status" && assert_grep "^mrdem-pairs: error: --method: .foo. is not sap" err.txt &&
	[ ! -e x.mrd ]'
expect_success "an output in a missing directory: the path given is named, not a temporary" '
	mrdem-pairs "$G/good-scene.mrd" -o nodir/x.mrd 2>err.txt; rc=$?
	assert_eq $rc 1 "exit status" && assert_grep "error: nodir/x.mrd: cannot create" err.txt &&
	! grep -q tmp err.txt'

if command -v mrdem-init >/dev/null 2>&1; then
	expect_success "mrdem-init | mrdem-pairs: a lattice of touching balls" '
		cat >lat.yaml <<YAML
shapes:
  ball: {sphere: {triangles: 80, radius: 1.0}}
particles:
  - lattice: {shape: ball, origin: [0, 0, 0], count: [4, 3, 2], spacing: [2, 2, 2]}
contact: {model: paper, epsilon: 0.01, allow_overlap: true}
YAML
		mrdem-init lat.yaml | mrdem-pairs | mrdem-info --json --full >l.info &&
		assert_eq "$(json_get l.info "[len(r[\"list\"]) for r in d[\"records\"] if r[\"type\"]==\"pairs\"]")" "[46]" "face neighbours of a 4x3x2 lattice"'
else
	echo "ok $((_n += 1)) # SKIP mrdem-init not built"
fi

# 4,000 analytic spheres on top of each other: 8 million pairs. Under a
# 250 MB address space the pair list cannot grow, and the message says
# which structure asked for how much (ASan reserves more than that): the
# method's candidate pairs or the pair list they become.
if [ -z "${MRDEM_ASAN:-}" ]; then
	expect_success "an allocation failure names the structure and the count that asked for it" '
		printf "shapes:\n  ball: {analytic-sphere: {radius: 1.0}}\nparticles:\n  - lattice: {shape: ball, count: [20, 20, 10], spacing: [0.001, 0.001, 0.001]}\ncontact: {model: paper, allow_overlap: true}\n" >lump.yaml &&
		mrdem-init lump.yaml -o lump.mrd &&
		(ulimit -v 250000 && OMP_NUM_THREADS=1 mrdem-pairs lump.mrd -o out.mrd) 2>err; rc=$?
		assert_eq $rc 1 "exit status" && test ! -e out.mrd &&
		assert_grep "^mrdem-pairs: error: out of memory allocating [0-9]* bytes for [0-9]* [a-z ]*pairs of 16 bytes$" err'
else
	echo "ok $((_n += 1)) # SKIP address-space limit under ASan"
fi

done_testing
