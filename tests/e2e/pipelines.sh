#!/usr/bin/env bash
# pipelines/: the energy target on short runs of the examples, into a
# scratch OUT, with the tools of MRDEM_BIN (nothing built, nothing written
# under the source tree): its CSV columns and rows, the plot skipped in one
# line without gnuplot, a PNG with it.
. "$(dirname "$0")/../lib/test-lib.sh"

# A make of its own: no jobserver or flags of a make that runs the tests.
pmake() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$TOP/pipelines" \
		OUT="$T/out" ENERGY_STEPS=200 ENERGY_EVERY=20 "$@"
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
		for s in two-spheres sphere-on-plane; do
			assert_grep "^plot: .*/energy-$s.png" log &&
			assert_eq "$(head -c 8 out/energy-$s.png | od -An -tx1 | tr -d " \n")" \
				89504e470d0a1a0a "$s PNG signature" || exit 1
		done'
else
	_n=$((_n + 1))
	echo "ok $_n - energy with gnuplot: a PNG per example # skip gnuplot not installed"
fi

expect_success "nothing written under the source tree" '
	find "$TOP/pipelines" -newer stamp >new && test ! -s new || { cat new; false; }
'

done_testing
