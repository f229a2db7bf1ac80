#!/usr/bin/env bash
# mrdem-stats: exact energies and momenta of known frames, contacts and
# stats columns, row order, Markdown, errors.
. "$(dirname "$0")/../lib/test-lib.sh"
G=$TOP/tests/golden
E=$TOP/tests/e2e

# Value of column $2 in row $3 (0-based, after the header) of CSV file $1
# (mrdem-stats quotes nothing: no cell holds a comma). awk, not python:
# it runs for every cell checked.
csv() {
	awk -F, -v col="$2" -v row="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; if (!c) exit 1; next }
		NR == row + 2 { print $c; found = 1; exit }
		END { exit !found }' "$1"
}

# The known stream: tests/lib/known_scene.py says what it holds.
known() { python3 "$TOP/tests/lib/known_scene.py" known.mrd; }

expect_success "known particle: exact kinetic, rotational and potential energy, momenta" '
	known && mrdem-stats known.mrd >k.csv &&
	assert_eq "$(csv k.csv step 0)" 0 && assert_eq "$(csv k.csv time 0)" 0 &&
	assert_eq "$(csv k.csv kinetic_translational 0)" 6.25 "1/2 m v^2" &&
	assert_near "$(csv k.csv kinetic_rotational 0)" 0.05 1e-15 "1/2 w I w" &&
	assert_near "$(csv k.csv kinetic 0)" 6.3 1e-14 kinetic &&
	assert_near "$(csv k.csv potential_gravity 0)" 9.81 1e-14 "m g z" &&
	assert_eq "$(csv k.csv momentum_x 0)" 1.5 && assert_eq "$(csv k.csv momentum_y 0)" 2 &&
	assert_eq "$(csv k.csv momentum_z 0)" 0 &&
	assert_near "$(csv k.csv angular_momentum_x 0)" -4 1e-14 "(x cross m v)_x" &&
	assert_near "$(csv k.csv angular_momentum_y 0)" 3 1e-14 &&
	assert_near "$(csv k.csv angular_momentum_z 0)" 3.55 1e-14 "3.5 + I w = 0.05" &&
	assert_eq "$(csv k.csv contacts 0)" 0 contacts'

expect_success "rows sorted by step; stats-only step has empty energy cells" '
	known && mrdem-stats known.mrd >k.csv &&
	assert_eq "$(cut -d, -f1 k.csv | tr "\n" " ")" "step 0 5 10 " steps &&
	assert_eq "$(csv k.csv kinetic 1)" "" "no frame at step 5" &&
	assert_eq "$(csv k.csv time 2)" 0.25 && assert_eq "$(csv k.csv kinetic_translational 2)" 0.25 &&
	assert_eq "$(csv k.csv contacts 2)" 2 "contacts of step 10"'

expect_success "stats columns: union of names, first-appearance order, clashes qualified" '
	known && mrdem-stats known.mrd >k.csv &&
	assert_eq "$(head -1 k.csv | cut -d, -f14-)" "comparisons_level0,mrdem-contact:fallbacks,mrdem-step:fallbacks" header &&
	assert_eq "$(csv k.csv comparisons_level0 1)" 8 && assert_eq "$(csv k.csv comparisons_level0 2)" 64 &&
	assert_eq "$(csv k.csv mrdem-step:fallbacks 1)" 2 && assert_eq "$(csv k.csv mrdem-step:fallbacks 2)" "" &&
	assert_eq "$(csv k.csv mrdem-contact:fallbacks 2)" 1'

expect_success "golden scene: two tetrahedra (m = 1/6, v = 0.5, w = 0.1, Izz = 1/80)" '
	mrdem-stats -o g.csv "$G/good-scene.mrd" &&
	assert_eq "$(csv g.csv kinetic_translational 0)" 0.041666666666666664 "2 x 1/2 (1/6) 0.25" &&
	assert_near "$(csv g.csv kinetic_rotational 0)" 1.25e-4 1e-18 &&
	assert_near "$(csv g.csv momentum_x 0)" 0.16666666666666666 1e-16 &&
	assert_near "$(csv g.csv angular_momentum_z 0)" 0.0025 1e-17 &&
	assert_eq "$(csv g.csv contacts 0)" 1 && assert_eq "$(csv g.csv comparisons 0)" 1234 &&
	assert_eq "$(csv g.csv gen.py:contacts 0)" 3'

expect_success "--markdown: header, alignment row, 6 significant digits (tests/expect/stats-known.md)" '
	known && mrdem-stats --markdown known.mrd >k.md &&
	test_cmp "$TOP/tests/expect/stats-known.md" k.md'

expect_success "through pipes after mrdem-pairs: one row per frame with broad-phase columns" '
	python3 "$E/randscene.py" s.mrd s.json --seed 2 --n 60 --frames 3 &&
	cat s.mrd | mrdem-pairs | mrdem-stats - >p.csv &&
	assert_eq "$(wc -l <p.csv)" 4 rows && assert_grep "broad_pairs" p.csv && assert_grep "level1" p.csv &&
	python3 - p.csv s.json <<PY
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
frames = json.load(open(sys.argv[2]))["frames"]
for r, f in zip(rows, frames):
    planes = sum(1 for a, b in f["pairs"] if b >= 2**64 - 2**32)
    assert int(r["step"]) == f["step"] and float(r["broad_pairs"]) == len(f["pairs"]) - planes, r
PY'

expect_success "truncated input (a run still being written): the complete frames, a message, exit 1" '
	mrdem-stats -o t.csv "$G/bad-truncated-record.mrd" 2>err.txt; rc=$?
	assert_eq $rc 1 "exit status" && assert_grep "truncated" err.txt &&
	assert_eq "$(wc -l <t.csv)" 2 "header and the one complete frame"'
expect_success "--follow tabulates a run while it is written: the rows of the finished table" '
	(sleep 0.5; mrdem-run -q "$TOP/examples/two-spheres.yaml" --steps 2000 --every 200 -o live.mrd) &
	for i in $(seq 50); do [ -e live.mrd ] && break; sleep 0.1; done
	timeout 120 mrdem-stats --follow live.mrd >live.csv 2>live.err; rc=$?; wait
	assert_eq $rc 0 "exit status" && mrdem-stats live.mrd >final.csv &&
	python3 - <<PY
import csv
live, final = list(csv.DictReader(open("live.csv"))), list(csv.DictReader(open("final.csv")))
assert len(live) == len(final) == 11, (len(live), len(final))
for a, b in zip(live, final):
    assert all(a[k] == b[k] for k in a), (a, b)
PY'
expect_failure "--follow writes to standard output only" 'mrdem-stats --follow -o x.csv "$G/good-scene.mrd"'
expect_failure "nothing to tabulate" 'mrdem-stats "$G/good-mesh.mrd"'
expect_success "--help prints usage" 'mrdem-stats --help | grep -q "usage: mrdem-stats"'
expect_failure "two inputs" 'mrdem-stats "$G/good-scene.mrd" "$G/good-scene.mrd"'

# A ball bouncing under gravity with velocity Verlet: mrdem-run writes
# frames with velocities synchronised with their positions, so the kinetic
# energy of a frame is the one the step's stats record reports for it.
expect_success "velocity Verlet: a frame's kinetic energy is the step's energy_kinetic" '
	mrdem-run -q "$TOP/examples/sphere-on-plane.yaml" --steps 3000 --every 100 -o vv.mrd &&
	mrdem-info --json vv.mrd | grep -q "\"scheme\": \"velocity-verlet\"" &&
	mrdem-stats vv.mrd >vv.csv &&
	python3 - vv.csv <<PY
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["energy_kinetic"] and r["kinetic"]]
assert len(rows) >= 30, len(rows)
worst = max(abs(float(r["kinetic"]) - float(r["energy_kinetic"])) /
            max(float(r["energy_kinetic"]), 1e-300) for r in rows)
print("# %d rows: largest relative difference %.3g" % (len(rows), worst))
assert worst < 1e-12, worst
PY'

done_testing
