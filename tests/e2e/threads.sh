#!/usr/bin/env bash
# The tools' thread teams (common/util/threads.c): OMP_NUM_THREADS threads
# whatever the load, idle threads sleeping unless the user chose how they
# wait, the count in mrdem-run's summary, and results independent of it.
. "$(dirname "$0")/../lib/test-lib.sh"
unset OMP_WAIT_POLICY GOMP_SPINCOUNT OMP_DYNAMIC

# libgomp prints the wait it initialised with (OMP_DISPLAY_ENV=verbose);
# another runtime prints nothing of it, and the wait tests are skipped.
spincount() { # [VAR=value...]: the spin count of mrdem-info's runtime
	env "$@" OMP_DISPLAY_ENV=verbose mrdem-info --help 2>&1 >/dev/null |
		sed -n "s/^ *GOMP_SPINCOUNT = '\([0-9]*\)'.*/\1/p"
}

if [ -n "$(spincount)" ]; then
	expect_success "no policy given: idle threads do not spin (libgomp's spin count 0)" '
		assert_eq "$(spincount)" 0 "spin count"'

	expect_success "the user's OMP_WAIT_POLICY or GOMP_SPINCOUNT wins" '
		assert_eq "$(spincount OMP_WAIT_POLICY=active)" 30000000000 "active" &&
		assert_eq "$(spincount GOMP_SPINCOUNT=1000)" 1000 "GOMP_SPINCOUNT"'
fi

expect_success "the summary says how many threads ran: OMP_NUM_THREADS, fixed teams by default" '
	OMP_NUM_THREADS=3 mrdem-run "$TOP/examples/two-spheres.yaml" --steps 5 -o a.mrd 2>sum &&
	assert_grep "^  threads: 3$" sum &&
	OMP_NUM_THREADS=3 OMP_DYNAMIC=true mrdem-run "$TOP/examples/two-spheres.yaml" --steps 5 \
		-o b.mrd 2>sum &&
	assert_grep "^  threads: 3 at most (OMP_DYNAMIC: teams sized to the idle cores)$" sum'

expect_success "arguments survive the tool starting itself again (spaces, quotes, empty)" '
	mrdem-run -q "$TOP/examples/two-spheres.yaml" --steps 5 -o "a b'"'"'c.mrd" &&
	OMP_WAIT_POLICY=passive mrdem-run -q "$TOP/examples/two-spheres.yaml" --steps 5 -o ref.mrd &&
	same_stream ref.mrd "a b'"'"'c.mrd" &&
	assert_exit 1 mrdem-run "" -o x.mrd && assert_grep "error: : cannot open" err && test ! -e x.mrd'

expect_success "64 spheres: 1, 2 and 3 threads give the same bytes" '
	for n in 1 2 3; do
		OMP_NUM_THREADS=$n mrdem-run -q "$TOP/bench/threads64.yaml" --steps 30 --every 10 \
			-o t$n.mrd || exit 1
	done &&
	same_stream t1.mrd t2.mrd && same_stream t1.mrd t3.mrd'

done_testing
