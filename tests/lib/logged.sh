#!/bin/sh
# prove --exec wrapper for make check: run TEST, pass its TAP on to prove
# and keep a copy in DIR/NAME.log; when TEST fails, the copy is also
# DIR/NAME.failed, which make check prints (prove -Q shows only a summary).
# DIR/times.txt gets a line per test: its wall seconds, CPU seconds (user
# and system of the processes it ran; a loaded machine changes them less)
# and name, to keep tests/lib/slow_first.sh's order and the check's length
# in view (sort -k2 -rn DIR/times.txt).
#
#   prove --exec 'tests/lib/logged.sh DIR' TEST...
dir=$1 test=$2
log=$dir/$(echo "$test" | tr / _).log
start=$(date +%s)
"$test" >"$log" 2>&1
rc=$?
# the second line of `times` (of this shell: not in a subshell) holds the
# children's user and system time, as 1m2.5s
times >"$log.times"
cpu=$(sed -n 2p "$log.times" | awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, a, "m");
	t += 60 * a[1] + a[2] } printf "%.0f", t }')
rm -f "$log.times"
echo "$(( $(date +%s) - start )) $cpu $test" >>"$dir/times.txt"
cat "$log"
if [ $rc != 0 ] || grep -q '^not ok' "$log"; then
	{ echo "=== $test: exit status $rc"; cat "$log"; echo; } >"${log%.log}.failed"
fi
exit $rc
