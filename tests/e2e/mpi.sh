#!/usr/bin/env bash
# mrdem-run-mpi (docs/parallel.md): on 1 to 4 ranks, in brick grids of
# every shape, with 1 and 2 threads, the parts merged by mrdem-merge are
# record for record the stream mrdem-run writes (the broad phase's work
# counters aside: they count a rank's own work, ghosts included); a
# failure on one rank ends every rank with the rank named; --log-view
# reports the ranks; what is not decomposed yet is refused before
# anything is written.
. "$(dirname "$0")/../lib/test-lib.sh"
export PYTHONPATH="$TOP/python${PYTHONPATH:+:$PYTHONPATH}"
command -v mpirun >/dev/null || skip_all "Open MPI is not installed (make deps)"
[ -x "$MRDEM_BIN/mrdem-run-mpi" ] || skip_all "mrdem-run-mpi is not built (make mpi)"
# the runs are small: two cores take any number of ranks, as root too
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
# the test hooks (docs/parallel.md, "Faults"), off unless a test sets them
export MRDEM_MPI_TEST_NAN= MRDEM_MPI_TEST_CUTS= MRDEM_MPI_TEST_LOSE=
# Under the sanitizers: the ranks' memory errors are caught, not their
# leaks (Open MPI's plugins keep allocations to the exit and are unloaded
# before LeakSanitizer could name them; the tools without MPI are checked
# for leaks as everywhere); and the slower runs take the cases that tell
# most (every feature on 2 ranks, failures on 3), the rest being the same code.
RANK_ASAN=${ASAN_OPTIONS:-}
if [ -n "${MRDEM_ASAN:-}" ]; then
	RANK_ASAN="${RANK_ASAN:+$RANK_ASAN:}detect_leaks=0"
	full() { false; }
else
	full() { true; }
fi
SCENES=$TOP/tests/e2e/mpi
WORK=broad_sphere_tests,broad_plane_tests,broad_cells,broad_cell_size

mpi() { # ranks mrdem-run-mpi arguments...
	local n=$1
	shift
	ASAN_OPTIONS=$RANK_ASAN timeout 300 mpirun -np "$n" -x OMP_NUM_THREADS -x ASAN_OPTIONS \
		-x MRDEM_MPI_TEST_NAN -x MRDEM_MPI_TEST_CUTS -x MRDEM_MPI_TEST_LOSE mrdem-run-mpi -q "$@"
}
# The merged parts of a run on n ranks against one.mrd.
ranks_same() { # ranks dir mrdem-run-mpi arguments...
	local n=$1 dir=$2
	shift 2
	rm -rf "$dir" &&
	mpi "$n" "$@" -o "$dir" &&
	mrdem-merge "$dir" -o "$dir.mrd" &&
	python3 "$TOP/tests/lib/mrdem_stream.py" --same one.mrd "$dir.mrd" --except "$WORK"
}

expect_success "mixed shapes, hertz springs, materials, a shaking floor: 1 to 4 ranks equal one (2 under the sanitizers)" '
	mrdem-run -q "$SCENES/mixed.yaml" --steps 3000 --every 500 -o one.mrd &&
	ranks_same 2 r2x "$SCENES/mixed.yaml" --steps 3000 --every 500 --ranks 2,1,1 &&
	{ ! full || {
		ranks_same 3 r3 "$SCENES/mixed.yaml" --steps 3000 --every 500 &&
		ranks_same 1 r1 "$SCENES/mixed.yaml" --steps 3000 --every 500 &&
		ranks_same 2 r2y "$SCENES/mixed.yaml" --steps 3000 --every 500 --ranks 1,2,1 &&
		ranks_same 4 r4 "$SCENES/mixed.yaml" --steps 3000 --every 500 --ranks 2,2,1; }; }'

expect_success "the runs had springs to carry across rank faces" '
	python3 - one.mrd <<"PY"
import sys, mrdem
s = mrdem.read(sys.argv[1])
springs = [len(s.history.get(f.step, [])) for f in s.frames]
assert springs[-1] >= 20 and s.contacts[-1].n >= 40, (springs, [c.n for c in s.contacts])
PY'

if full; then
expect_success "2 threads per rank give the same bits" '
	OMP_NUM_THREADS=2 ranks_same 3 r3t2 "$SCENES/mixed.yaml" --steps 3000 --every 500 --ranks 1,1,3'

for scheme in explicit-euler symplectic-euler; do
	expect_success "$scheme, broad phase sap and mr: 2 and 4 ranks equal one" '
		mrdem-run -q "$SCENES/mixed.yaml" --steps 1500 --every 500 --scheme '$scheme' -o one.mrd &&
		ranks_same 2 s2 "$SCENES/mixed.yaml" --steps 1500 --every 500 --scheme '$scheme' --broad sap &&
		ranks_same 4 s4 "$SCENES/mixed.yaml" --steps 1500 --every 500 --scheme '$scheme' --broad mr'
done
fi

expect_success "inflow and outflow: fed, removed, counted per frame alike on 2, 3 and 4 ranks" '
	mrdem-run -q "$SCENES/flow.yaml" -o one.mrd &&
	ranks_same 2 f2 "$SCENES/flow.yaml" &&
	ranks_same 3 f3 "$SCENES/flow.yaml" --ranks 3,1,1 &&
	ranks_same 4 f4 "$SCENES/flow.yaml" &&
	python3 - one.mrd <<"PY"
import sys, mrdem
s = mrdem.read(sys.argv[1])
runs = [st.values for st in s.stats if st.source == "mrdem-run"]
assert sum(v["outflow_particles"] for v in runs) >= 30 and sum(v["inflow_particles"] for v in runs) >= 150, runs
PY'

if full; then
expect_success "cuts moved at random at every rebuild change no bit" '
	mrdem-run -q "$SCENES/mixed.yaml" --steps 3000 --every 500 -o one.mrd &&
	MRDEM_MPI_TEST_CUTS=5 ranks_same 3 cut3 "$SCENES/mixed.yaml" --steps 3000 --every 500 &&
	MRDEM_MPI_TEST_CUTS=9 ranks_same 4 cut4 "$SCENES/mixed.yaml" --steps 3000 --every 500 --ranks 2,2,1'

expect_success "a boulder larger than a rank box on beads of three ranks, a slab across all" '
	mrdem-run -q "$SCENES/big.yaml" --steps 2500 --every 500 -o one.mrd &&
	ranks_same 4 b4 "$SCENES/big.yaml" --steps 2500 --every 500 --ranks 2,2,1 &&
	python3 - one.mrd <<"PY"
import sys, mrdem
s = mrdem.read(sys.argv[1])
c = [c for c in s.contacts if c.step == 2000][0]
touched = set(x for a, b in zip(c.a, c.b) for x in (a, b) if 1 in (a, b)) - {1}
assert len(touched) >= 3, touched
PY'
fi

expect_success "4 ranks, merged, resumed on 2 ranks and on 1: the uninterrupted one-rank run" '
	mrdem-run -q "$SCENES/mixed.yaml" --steps 3000 --every 500 -o full.mrd &&
	rm -rf h4 && mpi 4 "$SCENES/mixed.yaml" --steps 1500 --every 500 -o h4 &&
	mrdem-merge h4 -o h4.mrd &&
	mrdem-run -q h4.mrd --steps 1500 --every 500 -o one.mrd &&
	ranks_same 2 c2 h4.mrd --steps 1500 --every 500 &&
	ranks_same 1 c1 h4.mrd --steps 1500 --every 500 &&
	python3 - full.mrd c2.mrd <<"PY"
import sys, mrdem
a, b = (mrdem.read(p).frames[-1] for p in sys.argv[1:])
assert a.step == b.step == 3000 and sorted(a.columns) == sorted(b.columns), (a, b)
for k in a.columns:
    assert list(a[k]) == list(b[k]), k
PY'

expect_success "a rank directory in place of a stream: resumed on 3 ranks and by mrdem-run, drawn by mrdem-vtk" '
	mrdem-run -q h4.mrd --steps 500 --every 500 -o one.mrd &&
	mkdir -p tmpd &&
	TMPDIR=$PWD/tmpd mrdem-run -q h4 --steps 500 --every 500 -o fromdir.mrd &&
	same_stream one.mrd fromdir.mrd &&
	TMPDIR=$PWD/tmpd ranks_same 3 d3 h4 --steps 500 --every 500 &&
	TMPDIR=$PWD/tmpd mrdem-vtk h4 -o vdir && mrdem-vtk h4.mrd -o vmerged && diff -r vdir vmerged &&
	test -z "$(ls tmpd)"'

expect_success "a NaN on rank 1 ends every rank at that step, rank 1 named" '
	rm -rf nan &&
	MRDEM_MPI_TEST_NAN=1:700 assert_exit 1 mpi 3 "$SCENES/mixed.yaml" --steps 3000 --every 500 -o nan &&
	assert_grep "rank 1: error: step 700 .*non-finite" err &&
	test "$(grep -c "error:" err)" = 2 &&
	mrdem-merge nan -o nan.mrd &&
	test "$(python3 -c "import mrdem; print(mrdem.read(\"nan.mrd\").frames[-1].step)")" = 700'

expect_success "a spring lost in an exchange is an error, named once, at that step" '
	rm -rf lose &&
	MRDEM_MPI_TEST_LOSE=1 assert_exit 1 mpi 3 "$SCENES/mixed.yaml" --steps 3000 --every 500 -o lose &&
	assert_grep "rank 0: error: after step \([0-9]*\) an exchange left the ranks.* pairs with [0-9]* springs, not the [0-9]* before it" err &&
	step=$(sed -n "s/.*after step \([0-9]*\) an exchange.*/\1/p" err) &&
	assert_grep "rank 0: error: stopped at step $step " err &&
	test "$(grep -c "error:" err)" = 2 && mrdem-merge lose -o lose.mrd'

TIMES=time_broad,time_search,time_kernels,time_fallback,time_merge,time_parallel,time_forces
TIMES=$TIMES,time_integrate,time_output,time_output_wait,time_exchange,time_step
expect_success "--log-view on 2 ranks: the mean rank's stages with the exchange, the ranks' figures; the parts merge to the one-rank stream but for the times" '
	mrdem-run -q "$SCENES/mixed.yaml" --steps 600 --every 200 --log-view -o one-lv.mrd 2>/dev/null &&
	rm -rf lv && mpi 2 "$SCENES/mixed.yaml" --steps 600 --every 200 --ranks 2,1,1 --log-view -o lv 2>log &&
	assert_grep "^exchange  *1201 " log && assert_grep "^broad  *601 " log &&
	assert_grep "^integrate  *600 " log && assert_grep "^busy .*(the loop less exchange)" log &&
	assert_grep "^2 ranks, grid 2x1x1\." log &&
	assert_grep "^particles owned per rank at the end: [0-9]* to [0-9]* (mean [0-9.]*)" log &&
	assert_grep "^ghosts per rank: [0-9.]* on average" log &&
	assert_grep "^bytes sent per step: [0-9]* in all, [0-9.]* per particle" log &&
	assert_grep "^imbalance (max/mean): work .* [0-9.]* after the last" log &&
	test "$(grep -c "performance log" log)" = 1 &&
	mrdem-merge lv -o lv.mrd &&
	python3 "$TOP/tests/lib/mrdem_stream.py" --same one-lv.mrd lv.mrd --except "$WORK,$TIMES"'

expect_success "refused before anything is written: implicit Euler, no directory, a wrong grid" '
	rm -rf x && assert_exit 1 mpi 2 "$SCENES/mixed.yaml" --scheme implicit-euler -o x &&
	assert_grep "implicit-euler is not decomposed" err && ! test -e x/rank-0.mrd &&
	assert_exit 1 mpi 2 "$SCENES/mixed.yaml" && assert_grep "give -o DIR" err &&
	assert_exit 1 mpi 2 "$SCENES/mixed.yaml" --ranks 3,1,1 -o x && assert_grep "do not make 2 ranks" err &&
	assert_exit 2 mpi 2 "$SCENES/mixed.yaml" --ranks 2,1 -o x && assert_grep "is not X,Y,Z" err &&
	! test -e x/rank-0.mrd'

expect_success "a start whose overlaps would throw the particles apart: refused once, no part written" '
	cat >deep.yaml <<"Y" &&
shapes:
  ball: {analytic-sphere: {radius: 0.01}}
particles:
  - {shape: ball, position: [0, 0, 0]}
  - {shape: ball, position: [0.0195, 0, 0]}
  - {shape: ball, position: [0.1, 0, 0]}
gravity: [0, 0, 0]
contact: {model: hooke, stiffness: 1.0e5, restitution: 0.5, epsilon_abs: 0.001}
time: {dt: 1.0e-5, steps: 10}
Y
	rm -rf deep && assert_exit 1 mpi 2 deep.yaml -o deep &&
	assert_grep "rank 0: error: deep.yaml: 1 initial overlap(s) deeper than 0.5 of the halos; deepest: particle 0 and particle 1" err &&
	test "$(grep -c "error:" err)" = 1 && ! test -e deep/rank-0.mrd && ! test -e deep/rank-1.mrd'

expect_success "a directory with the part of a larger run is refused, its files kept" '
	rm -rf old && mkdir old && echo keep >old/rank-2.mrd &&
	assert_exit 1 mpi 2 "$SCENES/mixed.yaml" --steps 10 -o old &&
	assert_grep "a part of a run on more ranks" err && test "$(cat old/rank-2.mrd)" = keep &&
	! test -e old/rank-0.mrd'

done_testing
