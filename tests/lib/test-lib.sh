# Shell test library: source it from tests/e2e/*.sh, which print TAP.
#
#   . "$(dirname "$0")/../lib/test-lib.sh"
#   expect_success "mesh writes a stream" 'mrdem-mesh sphere -o s.mrd'
#   expect_failure "bad magic is rejected" 'mrdem-info tests/golden/bad-magic.mrd'
#   expect_success "stats table" 'mrdem-stats --markdown s.mrd >out && test_cmp "$X/s.md" out'
#   done_testing
#
# A script's tests run in one scratch directory ($T, removed at exit), with
# bin/ on PATH: a test sees the files the tests before it wrote.
# expect_failure only accepts a normal non-zero exit: death by a signal
# (segfault, abort, sanitizer trap) is a failure, as in git's test_must_fail.

set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
MRDEM_BIN=${MRDEM_BIN:-$TOP/bin}
PATH=$MRDEM_BIN:$PATH
export PATH TOP MRDEM_BIN
# Fixed team sizes (OMP_NUM_THREADS as given, the tools' default too), so
# thread-count tests test what they say whatever the caller's environment.
OMP_DYNAMIC=${OMP_DYNAMIC:-false}
# Idle threads sleep instead of spinning at each barrier: on a machine with
# fewer free cores than threads a spinning thread steals the core its
# partner needs (ten times the CPU time for the same records). The tools
# default to it too, but set here they need not start themselves again
# to set it (common/util/threads.c).
OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
export OMP_DYNAMIC OMP_WAIT_POLICY
T=$(mktemp -d "${TMPDIR:-/tmp}/mrdem-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
# python3 as the interpreter itself, resolved once (make check resolves it
# for every test: MRDEM_PYTHON): a version manager's shim in front of it
# (pyenv's runs bash and pyenv on each call) costs more than most checks.
MRDEM_PYTHON=${MRDEM_PYTHON:-$(python3 -c 'import sys; print(sys.executable)')}
export MRDEM_PYTHON
mkdir "$T/.python" && ln -s "$MRDEM_PYTHON" "$T/.python/python3" && PATH=$T/.python:$PATH
_n=0
_failed=0

_report() { # status name
	_n=$((_n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $_n - $2"
	else
		_failed=$((_failed + 1))
		echo "not ok $_n - $2"
		[ -s "$T/.out" ] && sed 's/^/# /' "$T/.out" | tail -20
	fi
}

# MRDEM_TEST_TIMES=1: each test's CPU seconds (its children's user + system)
# as a TAP comment, to find where a script spends its time.
_cpu() { # -> $T/.cpu$1 (times must run in this shell to see its children)
	times >"$T/.times"
	awk 'NR == 2 { gsub(/[ms]/, " "); print $1 * 60 + $2 + $3 * 60 + $4 }' "$T/.times" >"$T/.cpu$1"
}
_timed() { # name script
	[ -n "${MRDEM_TEST_TIMES:-}" ] && _cpu 0
	( eval "$2" ) >"$T/.out" 2>&1
	local rc=$?
	[ -n "${MRDEM_TEST_TIMES:-}" ] && _cpu 1 &&
		echo "# $(cat "$T/.cpu0" "$T/.cpu1" | awk 'NR == 1 { a = $1 } NR == 2 { printf "%.2f", $1 - a }') s CPU: $1"
	return $rc
}

expect_success() { # name script
	_timed "$1" "$2"
	_report $? "$1"
}

expect_failure() { # name script: must exit 1..125, not by a signal
	_timed "$1" "$2"
	rc=$?
	if [ $rc -ge 1 ] && [ $rc -le 125 ]; then _report 0 "$1"; else
		echo "# exit status $rc" >>"$T/.out"; _report 1 "$1"; fi
}

# Value assertions for use inside test scripts.
assert_eq() { # got want [what]
	[ "$1" = "$2" ] || { echo "${3:-value}: got '$1', want '$2'"; return 1; }
}
assert_near() { # got want tol [what]
	awk -v g="$1" -v w="$2" -v t="$3" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= t) }' ||
		{ echo "${4:-value}: got $1, want $2 +- $3"; return 1; }
}
assert_true() { # awk-expression [what]: e.g. assert_true "$a < 1e-6 && $b > 0" drift
	awk "BEGIN { exit !($1) }" || { echo "${2:-condition} does not hold: $1"; return 1; }
}
assert_grep() { # pattern file
	grep -q -- "$1" "$2" || { echo "'$1' not found in $2:"; head -5 "$2"; return 1; }
}
# Two streams hold the same records, their meta, index and end records aside
# (those name the command, whose file names differ, and its offsets).
same_stream() { # a.mrd b.mrd
	python3 "$TOP/tests/lib/mrdem_stream.py" --same "$1" "$2"
}
# Compare an actual output with the expected one (a file under
# tests/expect/, which reads as the specification); on a mismatch print a
# unified diff, expected -> actual (git's test_cmp).
test_cmp() { # expected actual
	diff -u -- "$1" "$2"
}
# Run a command with its standard error in ./err; it must exit with status
# want. Chains stay honest: in "a && b 2>err; [ $? = 1 ] && c" the status
# of a is lost.
assert_exit() { # want command [args...]
	local want=$1 rc
	shift
	"$@" 2>err
	rc=$?
	[ "$rc" = "$want" ] || { echo "$*: exit status $rc, want $want"; head -5 err; return 1; }
}
# The named checks of tests/lib/checks.py (records of a stream, columns of
# a table): checks NAME ARGS...
checks() {
	python3 "$TOP/tests/lib/checks.py" "$@"
}
# Read a value from JSON with python3 (present on every dev and CI machine).
json_get() { # file python-expression-on-d
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

# A test that mrdem-init refuses the scene YAML (printf format) with exit
# status 1, a message matching MESSAGE (with file:line) and no output.
bad_scene() { # name yaml message
	expect_success "bad scene refused: $1" "
		printf '$2' >bad.yaml &&
		assert_exit 1 mrdem-init bad.yaml -o out.mrd 2>err &&
		! test -e out.mrd && assert_grep '$3' err"
}

# A test not run here, counted as TAP's skip with the reason.
skip_test() { # name reason
	_n=$((_n + 1))
	echo "ok $_n - $1 # skip $2"
}

# Skip the whole script (TAP "1..0 # SKIP"), saying why.
skip_all() { # reason
	echo "1..0 # SKIP $1"
	exit 0
}

done_testing() {
	echo "1..$_n"
	[ $_failed = 0 ]
}
