#!/usr/bin/env bash
# pipelines/mpi.mk on small scenes, into a scratch OUT with the tools of
# MRDEM_BIN: the report's rows, and on a 4 x 4 x 4 lattice cut between two
# layers the figures geometry fixes (one layer of 16 ghosts a rank, the 16
# axis pairs across the cut of 144, no imbalance); the model's times
# against its formula worked by hand; bad settings refused before a run.
. "$(dirname "$0")/../lib/test-lib.sh"
command -v mpirun >/dev/null || skip_all "Open MPI is not installed (make deps)"
[ -x "$MRDEM_BIN/mrdem-run-mpi" ] || skip_all "mrdem-run-mpi is not built (make mpi)"
# a timing pipeline: tests/e2e/mpi.sh runs the ranks under the sanitizers
[ -z "${MRDEM_ASAN:-}" ] || skip_all "the benchmark pipeline times runs; mpi.sh sanitizes them"

# A make of its own: no jobserver or flags of a make that runs the tests.
pmake() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$TOP/pipelines" OUT="$T/out" \
		MB_LATTICE=4-4-4 MB_POUR=4-4-3 MB_POUR_STEPS=5 MB_REPS=1 "$@"
}
touch stamp

# The loop times are differences of two runs: on scenes this small, noise
# can make one negative.
expect_success "mpi: four configurations of both scenes, their ratios, the model" '
	pmake mpi >mpi.log && md=out/mpi/mpi.md && v="-\?[0-9.]*" &&
	for c in "mrdem-run, 1 thread" "mrdem-run-mpi, 1 rank x 1 thread" \
		"mrdem-run-mpi, 2 ranks x 1 thread" "mrdem-run, 1 rank x 2 threads"; do
		assert_eq "$(grep -c "^| $c | $v | $v | $v | $v |\$" $md)" 2 "$c" || exit 1
	done &&
	assert_grep "^## lattice-4-4-4: 64 particles, 2 steps\$" $md &&
	assert_grep "^## pour-4-4-3: 48 particles, 5 steps\$" $md &&
	assert_grep "^| 1 rank of mrdem-run-mpi / mrdem-run (1 thread) | \($v""x\|n/a\) | <= 1.05: \(yes\|no\) |\$" $md &&
	assert_grep "kernels: \(generic\|avx2\|avx512\) " $md &&
	assert_grep "^| lattice-4-4-4 (measured now) | 1000 | 1e+08 | " $md &&
	cmp $md mpi.log
'

expect_success "mpi: the lattice cut between two layers: 16 ghosts a rank, 16 of 144 pairs across" '
	j=$(ls out/mpi/lattice-4-4-4-*.json) &&
	assert_eq "$(json_get $j "[r[\"ghosts_avg\"] for r in d[\"runs\"] if r[\"ranks\"] == 2]")" "[16.0]" &&
	assert_eq "$(json_get $j "[(r[\"cross_pairs\"], r[\"last_pairs\"], r[\"owned\"]) for r in d[\"runs\"] if r[\"ranks\"] == 2]")" \
		"[(16, 144, [32, 32])]" &&
	md=out/mpi/mpi.md &&
	assert_grep "^| ghost layers across a shared face (k) | 1.00 |\$" $md &&
	assert_grep "^| pairs across ranks (computed twice), share of all pairs | 0.1111 |\$" $md &&
	assert_grep "^| redundant pairs per ghost, in an owned particle.s pairs (r) | 0.222 |\$" $md &&
	assert_eq "$(grep -c "^| owned particles, most / mean (imbalance) | 1.0000 |\$" $md)" 2
'

expect_success "model: ghosts, compute and messages as the formula gives them by hand" '
	PYTHONPATH="$TOP/pipelines" python3 -B - <<PY
from mpi import predict
# 1000 ranks (10 a side, 1.8 shared faces an axis), 1000 particles a rank
# (10 layers), 1 ghost layer: (10 + 1.8)^3 - 1000 ghosts
f = {"c": 1e-6, "k": 1.0, "r": 0.5, "b": 100.0}
g, comp, comm, e = predict(f, 1000, 1000, False)
ghosts = 11.8 ** 3 - 1000
assert abs(g - ghosts / 1000) < 1e-12, g
assert abs(comp - 1e-6 * (1000 + 0.5 * ghosts)) < 1e-15, comp
# 1 exchange of 2 all-to-alls of 999 messages, 5 allreduces of 2 x 10
# rounds, at 2 us; the ghosts bytes at 12.5 GB/s
want = (2 * 999 + 5 * 2 * 10) * 2e-6 + 100 * ghosts / 12.5e9
assert abs(comm - want) < 1e-15, (comm, want)
assert abs(e - 1e-3 / (comp + comm)) < 1e-12, e
_, _, comm, _ = predict(f, 1000, 1000, True)
assert abs(comm - ((26 + 5 * 2 * 10) * 2e-6 + 100 * ghosts / 12.5e9)) < 1e-15, comm
assert predict(f, 1000, 1, False) == (0.0, 1e-3, 0.0, 1.0)
PY
'

expect_success "model: the table of docs/parallel.md" '
	pmake mpi-model >model.log &&
	assert_grep "^| scene | ranks | particles | ghosts / owned | compute s per step | all-to-all ms | efficiency | neighbour ms | efficiency |\$" model.log &&
	assert_eq "$(grep -c "^| [^|]* | 1 | [^|]* | 0.000 | [^|]* | 0 | 100.0 % | 0 | 100.0 % |\$" model.log)" 4
'

bad_mb() { # make arguments, error message
	expect_success "mpi refuses $1 before any run" "
		assert_exit 2 pmake mpi $1 &&
		assert_grep \"$2\" err && test ! -e out/mpi/mpi.md.tmp"
}
bad_mb "MB_LATTICE=4-4" "^mpi.mk:[0-9]*: \*\*\* MB_LATTICE must be X-Y-Z, three positive integers (spheres along x, y and z), got '4-4'\.  Stop\.\$"
bad_mb "MB_POUR=0-1-1" "MB_POUR must be X-Y-Z, three positive integers (grains along x, y and z), got '0-1-1'"
bad_mb "MB_POUR_STEPS=0" "MB_POUR_STEPS must be a positive integer, got '0'"
bad_mb "MB_REPS=x" "MB_REPS must be a positive integer, got 'x'"

expect_success "mpi.py: a failing run is reported with its command and error, exit 1" '
	assert_exit 1 python3 "$TOP/pipelines/mpi.py" measure "$MRDEM_BIN" no-such-dir 1 1 &&
	assert_grep "^mpi.py: .*mrdem-run no-such-dir/scene.yaml .* failed (exit 1):" err &&
	assert_grep "no-such-dir/scene.yaml" err &&
	assert_exit 1 python3 "$TOP/pipelines/mpi.py" measure &&
	assert_grep "^usage: mpi.py measure BIN DIR STEPS REPS" err
'

expect_success "nothing written under the source tree" '
	find "$TOP/pipelines" -newer stamp >new && test ! -s new || { cat new; false; }
'

done_testing
