#!/bin/sh
# prove --exec wrapper for make check: run TEST, pass its TAP on to prove
# and keep a copy in DIR/NAME.log; when TEST fails, the copy is also
# DIR/NAME.failed, which make check prints (prove -Q shows only a summary).
#
#   prove --exec 'tests/lib/logged.sh DIR' TEST...
dir=$1 test=$2
log=$dir/$(echo "$test" | tr / _).log
"$test" >"$log" 2>&1
rc=$?
cat "$log"
if [ $rc != 0 ] || grep -q '^not ok' "$log"; then
	{ echo "=== $test: exit status $rc"; cat "$log"; echo; } >"${log%.log}.failed"
fi
exit $rc
