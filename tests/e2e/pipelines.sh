#!/usr/bin/env bash
# pipelines/: the energy target on short runs of the examples, into a
# scratch OUT, with the tools of MRDEM_BIN (nothing built, nothing written
# under the source tree): its CSV columns and rows, the plot skipped in one
# line without gnuplot, a PNG with it. Tables 5, 6 and 8 and the implicit
# Figure 4 on runs of a few steps: their rows, the flat/surrogate check, a
# multiscale row either measured or "not available: " and mrdem-run's error;
# pour-peers on 1,000 steps of free fall, both codes' beds equal (LIGGGHTS
# where installed), skipped in a line without it, a bad size refused;
# every script of pipelines/ compiles.
. "$(dirname "$0")/../lib/test-lib.sh"

# A make of its own: no jobserver or flags of a make that runs the tests.
pmake() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$TOP/pipelines" \
		OUT="$T/out" ENERGY_STEPS=200 ENERGY_EVERY=20 "$@"
}
# plotted LOG NAME: LOG says out/NAME.png was drawn, and that file is a PNG.
plotted() {
	assert_grep "^plot: .*/$2.png" "$1" &&
	assert_eq "$(head -c 8 "out/$2.png" | od -An -tx1 | tr -d " \n")" 89504e470d0a1a0a \
		"$2 PNG signature"
}
touch stamp
cols=step,time,kinetic,gravity,contact,total,momentum_x,momentum_y,momentum_z,angular_momentum_x,angular_momentum_y,angular_momentum_z

expect_success "energy without gnuplot: CSV of every frame, the plot skipped in one line, status 0" '
	pmake energy GNUPLOT=no-such-gnuplot >log &&
	for s in two-spheres sphere-on-plane; do
		assert_eq "$(head -1 out/energy-$s.csv)" "$cols" "$s header" &&
		assert_eq "$(sed 1d out/energy-$s.csv | wc -l)" 11 "$s frames" &&
		assert_eq "$(sed -n "\$s/,.*//p" out/energy-$s.csv)" 200 "$s last step" &&
		assert_eq "$(grep -c "^plot .*/energy-$s.png skipped: no-such-gnuplot not installed" log)" 1 &&
		test ! -e out/energy-$s.png || exit 1
	done &&
	assert_grep "^| total | " log
'

expect_success "energy: kinetic and gravitational energy add up to the total of the start in free fall" '
	python3 - out/energy-sphere-on-plane.csv <<PY
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
t0 = float(rows[0]["total"])
assert t0 > 0 and float(rows[0]["kinetic"]) == 0, rows[0]
for r in rows[:-1]:  # free fall: explicit Euler gains a little
    assert abs(float(r["total"]) - t0) < 1e-3 * t0, r
PY'

if command -v gnuplot >/dev/null 2>&1; then
	expect_success "energy with gnuplot: a PNG per example" '
		pmake energy >log &&
		for s in two-spheres sphere-on-plane; do plotted log energy-$s || exit 1; done'
else
	skip_test "energy with gnuplot: a PNG per example" "gnuplot not installed"
fi

expect_success "every pipelines/*.py compiles" '
	python3 -c "import sys; [compile(open(f).read(), f, \"exec\") for f in sys.argv[1:]]" \
		"$TOP"/pipelines/*.py
'

# Tables 5, 6, 8 and figure4-implicit share their runs: 3 steps, flat 1,
# scales 1 and 2 (Table 7 differs from 8 only in the scenes it names).
expect_success "tables 5, 6, 8 and figure4-implicit on short runs" '
	pmake IMPLICIT_STEPS=3 FLAT_STEPS=1 SCALES="1 2" GNUPLOT=no-such-gnuplot \
		table5 table6 table8 figure4-implicit table6-plot >tables.log
'

expect_success "tables 5, 6, 8 and figure4-implicit: every Markdown row as wide as its header" '
	python3 - out/table5/table5.md out/table6/table6.md out/table8/table8.md \
		out/figure4-implicit/figure4-implicit.md <<PY
import sys
for name in sys.argv[1:]:
    width = None
    for n, line in enumerate(open(name), 1):
        if not line.startswith("|"):
            width = None
            continue
        cells = line.rstrip("\n").count("|") - 1
        width = width or cells
        assert cells == width, "%s:%d: %d cells, header %d: %s" % (name, n, cells, width, line)
PY
'

# A multiscale cell: numbers, or the row "not available: " with the first
# line of mrdem-run's error (while --hierarchy multiscale is refused).
multiscale_ok() { # FILE ROW-PREFIX
	grep "^$2" "$1" >ms || { echo "no row $2 in $1"; return 1; }
	grep -q "^$2 [0-9]" ms || grep -q "^$2 not available: mrdem-run: error: " ms ||
		{ cat ms; return 1; }
}

expect_success "table 5: surrogate iterations, checked against flat, multiscale row" '
	md=out/table5/table5.md &&
	assert_grep "^| flat/surrogate within Picard | [0-9.]* | [0-9.]* | [0-9.]* | [0-9.]* |\$" $md &&
	assert_grep "^| multiscale Picard (paper) | 6.2 | 6.2 | 13.0 | 13.1 |" $md &&
	assert_grep "in each of the first 1 steps of every scene and kernel (Corollary 5.5): checked" $md &&
	multiscale_ok $md "| multiscale Picard |"
'

expect_success "table 6: flat, surrogate, multiscale and warm-started rows per scene and kernel, the warm saving" '
	md=out/table6/table6.md &&
	for s in particle-particle particle-on-plane; do
		for m in comparison hybrid; do
			assert_grep "^| $s | flat | $m | 1 | [0-9]" $md &&
			assert_grep "^| $s | surrogate | $m | 3 | [0-9]" $md &&
			multiscale_ok $md "| $s | multiscale | $m |" &&
			multiscale_ok $md "| $s | multiscale-warm | $m |" &&
			multiscale_ok $md "| $s | $m | [0-9.]* | [0-9.]* | [0-9.e+]* | [0-9.e+]* | -*[0-9]* % |" ||
				exit 1
		done
		assert_grep "^| $s | surrogate | [0-9.]* | [0-9.]* | [0-9.]*x |" $md &&
		multiscale_ok $md "| $s | multiscale | [0-9.]* |" &&
		multiscale_ok $md "| $s | multiscale-warm | [0-9.]* |" || exit 1
	done
'

expect_success "table 8: scales 1 and 2 of 80 and 320 triangles, cold and warm, the growth" '
	md=out/table8/table8.md &&
	assert_grep "^| surrogate | 1 | 80 | [0-9.]* | [0-9]" $md &&
	assert_grep "^| surrogate | 2 | 320 | [0-9.]* | [0-9]" $md &&
	multiscale_ok $md "| multiscale | 2 | 320 |" &&
	multiscale_ok $md "| multiscale-warm | 2 | 320 |" &&
	multiscale_ok $md "| 2 | 320 | [0-9.]* | [0-9.]* | [0-9.e+]* | [0-9.e+]* | -*[0-9]* % |" &&
	assert_grep "^| surrogate | [0-9.]*x | [0-9.]*x | [0-9.]*x | \(yes\|no\) |" $md
'

expect_success "step-cpu: CPU time per step and ratio to explicit Euler for every run of both scenes" '
	pmake IMPLICIT_STEPS=3 CPU_REPS=2 step-cpu >cpu.log &&
	md=out/step-cpu/step-cpu.md &&
	v="-*[0-9.]* ± [0-9.]*" &&
	for s in particle-particle particle-on-plane; do
		assert_grep "^| $s | explicit Euler, surrogate | $v | \(1.00x\|–\) |" $md &&
		assert_grep "^| $s | implicit, surrogate within Picard | $v | \(-*[0-9.]*x\|–\) |" $md &&
		for h in "from the roots (--cold-start, paper Alg. 6)" "warm-started (the default)"; do
			assert_grep "^| $s | implicit, multiscale $h | $v | \(-*[0-9.]*x | <= 3x: \(yes\|no\)\|– | not measured: raise IMPLICIT_STEPS or CPU_REPS\) |\$" $md ||
				exit 1
		done
	done
'

expect_success "threads: per-step times of 1 and 2 default threads, in process and through pipes, and the goals" '
	pmake threads TH_COUNT=2-2-1 TH_STEPS=1 TH_POUR_STEPS=2 TH_SMALL_STEPS=2 TH_REPS=1 >th.log &&
	md=out/threads/threads.md && v="-*[0-9.]*" && r="\($v""x | \(>=\|<=\) 1.[0-9]x: \(yes\|no\)\|– | not measured: raise the steps or TH_REPS\) |\$" &&
	for s in "lattice-2-2-1 | 1 | in process" "lattice-2-2-1 | 2 | in process" \
		"lattice-2-2-1 | 1 | --via-pipes" "lattice-2-2-1 | 2 | --via-pipes" \
		"pour.yaml, first 2 steps | 1 | in process" "pour.yaml, first 2 steps | 2 | in process" \
		"threads64.yaml | 1 | in process" "threads64.yaml | 2 | in process"; do
		assert_grep "^| $s | $v | $v |\$" $md || exit 1
	done &&
	assert_grep "^| wall, 1 thread / 2 threads, lattice-2-2-1 | $r" $md &&
	assert_grep "^| wall, 1 thread / 2 threads, pour.yaml, first 2 steps | $r" $md &&
	assert_grep "^| wall, --via-pipes / in process, 2 threads | $r" $md &&
	assert_grep "^| CPU, 2 threads / 1 thread, threads64.yaml | $r" $md &&
	assert_grep "OMP_DYNAMIC, OMP_WAIT_POLICY and GOMP_SPINCOUNT unset" $md &&
	assert_grep "Load average (1, 5, 15 min) at the start [0-9.]* [0-9.]* [0-9.]*, at the end" $md
'

expect_success "figure4-implicit: comparisons per Picard iteration per step, the plot skipped" '
	f=out/figure4-implicit/figure4-implicit-particle-particle-surrogate.csv &&
	head -1 $f | grep -q "^step,time,iteration_1,.*,later,total\$" &&
	assert_eq "$(sed 1d $f | wc -l)" 3 "steps" &&
	python3 - $f <<PY &&
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    v = [int(x) for k, x in r.items() if k not in ("step", "time", "total")]
    assert sum(v) == int(r["total"]) and int(r["total"]) > 0, r
PY
	assert_grep "^plot .*/figure4-implicit-particle-particle-surrogate.png skipped" tables.log
'

expect_success "table6-plot: the comparisons of every scene and hierarchy beside the paper's, the plot skipped" '
	python3 - out/table6/table6-comparisons.csv <<PY &&
import csv, sys
rows = {r["case"]: r for r in csv.DictReader(open(sys.argv[1]))}
paper = {"particle-particle flat": 6.89e8, "particle-on-plane multiscale": 3.50e6}
assert len(rows) == 6, rows
for case, want in paper.items():
    assert float(rows[case]["paper"]) == want, rows[case]
for s in ("particle-particle", "particle-on-plane"):
    f, su = rows[s + " flat"], rows[s + " surrogate"]
    assert f["steps"] == "1" and su["steps"] == "3", (f, su)
    assert float(f["ours"]) > float(su["ours"]) > 0, (f, su)
PY
	assert_grep "^plot .*/table6-comparisons.png skipped: no-such-gnuplot not installed" tables.log
'

# Flat search compares every pair of triangles: T^2 per step, exactly.
expect_success "table 9: every run of both lattices, the paper beside the unrotated one" '
	pmake table9 T9_COUNT=2-1-1 T9_STEPS=1 >t9.log && md=out/table9/table9.md &&
	for s in lattice-2-1-1 lattice-rotated-2-1-1; do
		for h in surrogate multiscale multiscale-warm; do for m in comparison hybrid; do
			assert_grep "^| $s | implicit-euler | $h | $m | 1 | [0-9.]* | [0-9]" $md || exit 1
		done; done
		assert_grep "^| $s | explicit-euler | surrogate | hybrid | 1 | – | [0-9]" $md || exit 1
	done &&
	grep -q "peak MB" $md'

# The paper's figures are for 24,576 particles: per particle beside ours.
expect_success "table 9: per particle, ours and the paper's, its peak memory beside ours" '
	python3 - out/table9/table9.md <<PY
import sys
tables = [[]]  # the Markdown tables, each a list of rows of cells
for l in open(sys.argv[1]):
    if l.startswith("|"):
        tables[-1].append([c.strip() for c in l.rstrip("\n").strip("|").split(" | ")])
    elif tables[-1]:
        tables.append([])
head, rows = tables[0][0], tables[0][2:]
assert len(rows) == 14 and all(len(r) == len(head) for r in rows), (head, rows)
# The second table: the figures of the paper as it gives them.
assert ["multiscale", "comparison", "9.08e+05", "–", "230", "0.116"] in tables[1], tables[1]
assert ["surrogate", "hybrid", "2.49e+06", "292", "377", "0.19"] in tables[1], tables[1]
cell = lambda r, name: r[head.index(name)]
num = lambda s: None if s == "–" else float(s)
near = lambda got, want: abs(got - want) <= 1e-2 * want  # both in 3 digits
# (comparisons, fallbacks, total, per comp) of the paper, for 24,576 particles.
paper = {("surrogate", "comparison"): (2.49e6, None, 4.70e2, 2.37e-1),
         ("surrogate", "hybrid"): (2.49e6, 2.92e2, 3.77e2, 1.90e-1),
         ("multiscale", "comparison"): (9.08e5, None, 2.30e2, 1.16e-1),
         ("multiscale", "hybrid"): (1.06e6, 1.09e2, 2.13e2, 1.07e-1)}
cols = ("paper comparisons/particle", "paper fallbacks/particle", "paper total/particle",
        "paper per comp")
for r in rows:
    ours = num(cell(r, "comparisons"))
    assert near(num(cell(r, "comparisons/particle")), ours / 2), r
    assert near(num(cell(r, "step µs/particle")), 1e3 * num(cell(r, "step ms")) / 2), r
    p = paper.get((r[2], r[3])) if r[0] == "lattice-2-1-1" and r[1] == "implicit-euler" else None
    if p is None:
        none = [cell(r, c) for c in cols + ("paper peak MB", "paper bytes/particle")]
        assert none == ["–"] * 6, r
        continue
    for c, want, n in zip(cols, p, (24576, 24576, 24576, 1)):
        assert (cell(r, c) == "–") if want is None else near(num(cell(r, c)), want / n), (c, r)
    assert cell(r, "paper peak MB") == "3.96e+03", r  # 3.87 GiB
    assert cell(r, "paper bytes/particle") == "1.69e+05", r
PY
'

# bad_t9 VARIABLES MESSAGE: make table9 VARIABLES stops at once, before any
# run or table, with MESSAGE in one line (a small lattice beside a wrong
# step count: a make that took it would run seconds, not the full lattice).
bad_t9() {
	expect_success "table 9: $1 refused in one line, nothing written" "
		assert_exit 2 pmake table9 $1 OUT=\"\$T/bad\" &&
		assert_eq \"\$(wc -l <err)\" 1 'lines of the error' &&
		assert_grep \"$2\" err && test ! -e bad"
}
bad_t9 "T9_COUNT=4-4-3 T9_STEPS=0" "^table9.mk:[0-9]*: \*\*\* T9_STEPS must be a positive integer, got '0'\.  Stop\.\$"
bad_t9 "T9_COUNT=2-1-1 T9_STEPS=1.5" "T9_STEPS must be a positive integer, got '1.5'"
bad_t9 "T9_COUNT=4-4" "^implicit.mk:[0-9]*: \*\*\* T9_COUNT must be X-Y-Z, three positive integers (spheres along x, y and z), got '4-4'\.  Stop\.\$"
bad_t9 "T9_COUNT=4-0-3" "T9_COUNT must be X-Y-Z, .* got '4-0-3'"
bad_t9 "T9_COUNT=4--4-3" "T9_COUNT must be X-Y-Z, .* got '4--4-3'"
bad_t9 "T9_COUNT=2-1-1 T9_FLAT_STEPS=-1" "T9_FLAT_STEPS must be a non-negative integer (0: no flat runs), got '-1'"
bad_t9 "T9_COUNT=2-1-1 IMPLICIT_STEPS=0" "^implicit.mk:[0-9]*: \*\*\* IMPLICIT_STEPS must be a positive integer, got '0'\.  Stop\.\$"
bad_t9 "T9_COUNT=2-1-1 MODEL_REPS=x" "MODEL_REPS must be a positive integer, got 'x'"
bad_t9 "T9_COUNT=2-1-1 SCALING_STEPS=" "SCALING_STEPS must be a positive integer, got ''"
bad_t9 "T9_COUNT=2-1-1 CPU_REPS=-3" "CPU_REPS must be a positive integer, got '-3'"
bad_t9 "T9_COUNT=2-1-1 TH_COUNT=0-1-1" "^threads.mk:[0-9]*: \*\*\* TH_COUNT must be X-Y-Z, three positive integers (spheres along x, y and z), got '0-1-1'\.  Stop\.\$"
bad_t9 "T9_COUNT=2-1-1 TH_STEPS=0" "TH_STEPS must be a positive integer, got '0'"
bad_t9 "T9_COUNT=2-1-1 TH_REPS=x" "TH_REPS must be a positive integer, got 'x'"
bad_t9 "T9_COUNT=2-1-1 FLAT_STEPS=x" "^implicit.mk:[0-9]*: \*\*\* FLAT_STEPS must be a non-negative integer (0: no flat runs), got 'x'"
bad_t9 "T9_COUNT=2-1-1 SCALE_STEPS=0" "SCALE_STEPS must be a positive integer, got '0'"
bad_t9 "T9_COUNT=2-1-1 SCALING_TRIANGLES='80 x'" "SCALING_TRIANGLES must be a list of positive integers (triangles per sphere), got '80 x'"
bad_t9 "T9_COUNT=2-1-1 ENERGY_STEPS=-1" "ENERGY_STEPS must be a non-negative integer (or empty), got '-1'"
bad_t9 "T9_COUNT=2-1-1 ENERGY_EVERY=0" "ENERGY_EVERY must be a positive integer (or empty), got '0'"

expect_success "table 9: table9.py and scenes.py refuse a wrong lattice or step count in one line" '
	assert_exit 1 python3 "$TOP/pipelines/table9.py" out/implicit 4-4-3 0 0 &&
	assert_eq "$(cat err)" "table9.py: STEPS must be a positive integer, got '"'0'"'" &&
	assert_exit 1 python3 "$TOP/pipelines/scenes.py" --write sc particle-particle lattice-4-4 &&
	assert_eq "$(cat err)" "scenes.py: unknown scene '"'lattice-4-4'"'" && test ! -e sc
'

expect_success "scaling: flat comparisons are T^2, the surrogate search fewer, the plot skipped" '
	pmake scaling SCALING_TRIANGLES="80 320" SCALING_STEPS=3 GNUPLOT=no-such-gnuplot >scaling.log &&
	python3 - out/scaling/scaling.csv <<PY &&
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [int(r["triangles"]) for r in rows] == [80, 320], rows
for r in rows:
    t = int(r["triangles"])
    assert float(r["flat_comparisons"]) == t * t and float(r["flat_sphere_pruned"]) == 0, r
    assert 0 < float(r["surrogate_comparisons"]) < float(r["flat_comparisons"]), r
    assert float(r["comparison_reduction"]) > 1 and float(r["flat_ms"]) > 0, r
PY
	assert_grep "^| 320 | 1.02e+05 | " scaling.log &&
	assert_grep "flat p = 2.00" scaling.log &&
	assert_grep "^plot .*/scaling.png skipped: no-such-gnuplot not installed" scaling.log
'
if command -v gnuplot >/dev/null 2>&1; then
	expect_success "scaling and table6-plot with gnuplot: PNGs" '
		pmake scaling table6-plot SCALING_TRIANGLES="80 320" SCALING_STEPS=3 IMPLICIT_STEPS=3 \
			FLAT_STEPS=1 >plots.log &&
		plotted plots.log scaling/scaling && plotted plots.log table6/table6-comparisons'
else
	skip_test "scaling and table6-plot with gnuplot: PNGs" "gnuplot not installed"
fi

# pour-peers on 343 spheres for 0.02 s (1,000 steps): the lowest layer
# starts 5 mm above the floor and falls 2 mm, so both codes are in free
# fall from the same positions: the bed's top is 0.087 m - g t^2 / 2 =
# 0.0850 m in each, and the packing the same.
if command -v "${LIGGGHTS:-liggghts}" >/dev/null 2>&1; then
	expect_success "pour-peers: both codes from the same positions, wall times, ratio, bed" '
		PYTHONDONTWRITEBYTECODE=1 pmake pour-peers POUR_PEERS_RUNS=343:0.02 >pp.log &&
		row=$(grep "^| 343 | 0.02 s (1000) |" out/pour-peers/pour-peers.md) &&
		echo "$row" | grep -q "| \*\*[0-9.]*x\*\* |" &&
		bed=$(echo "$row" | awk -F"|" "{print \$8 \"|\" \$9}" | tr -d " ") &&
		pack=${bed%%|*} && top=${bed#*|} &&
		assert_eq "${pack%/*}" "${pack#*/}" "packing mrdem / LIGGGHTS" &&
		assert_eq "$top" "0.0850/0.0850" "bed top mrdem / LIGGGHTS"'
else
	echo "ok $((_n += 1)) # skip pour-peers against LIGGGHTS: liggghts is not installed"
fi

expect_success "pour-peers without LIGGGHTS: mrdem alone and a line saying so; a bad size refused" '
	PYTHONDONTWRITEBYTECODE=1 LIGGGHTS=no-such-liggghts pmake pour-peers \
		POUR_PEERS_RUNS=343:0.002 >pp2.log &&
	assert_grep "^LIGGGHTS (.no-such-liggghts.) is not installed here: the comparison was skipped" \
		out/pour-peers/pour-peers.md &&
	assert_grep "^| 343 | 0.002 s (100) | .* | skipped |" out/pour-peers/pour-peers.md &&
	rm out/pour-peers/pour-peers.md &&
	! PYTHONDONTWRITEBYTECODE=1 pmake pour-peers POUR_PEERS_RUNS=500:1 >pp3.log 2>&1 &&
	assert_grep "500:1.: SIZE must be one of 343, 10000" pp3.log &&
	test ! -e out/pour-peers/pour-peers.md
'

expect_success "nothing written under the source tree" '
	find "$TOP/pipelines" -newer stamp >new && test ! -s new || { cat new; false; }
'

done_testing
