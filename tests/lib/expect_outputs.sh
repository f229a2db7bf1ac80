#!/usr/bin/env bash
# Write every text output that tests/expect/ specifies into DIR:
#
#   info/NAME.txt, info/NAME.json   mrdem-info and mrdem-info --json of
#                                   each golden stream (tests/golden/NAME.mrd)
#   stats/NAME.csv, stats/NAME.md   mrdem-stats and mrdem-stats --markdown
#                                   of each golden stream with frames or stats
#   stats-known.md                  mrdem-stats --markdown of the known
#                                   scene (tests/lib/known_scene.py)
#   help/TOOL.txt                   TOOL --help of every tool, and
#                                   help/mrdem-mesh-COMMAND.txt of its commands
#   box-1x2x3.obj                   OBJ export of a box
#
# A command that exits non-zero or writes to standard error has its status
# and its standard error in FILE.err beside its output. Streams are named
# relative to tests/golden (mrdem-info prints the name it was given), and
# the golden streams' meta records are fixed, so nothing here depends on the
# machine, the build's revision or the thread count.
#
#   make expect                           regenerate tests/expect (git diff)
#   tests/lib/expect_outputs.sh DIR       write them elsewhere (tests/e2e/expect.sh)
#
# Tools are taken from MRDEM_BIN (default bin/).
set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=$(mkdir -p "$1" && cd "$1" && pwd) || exit 1
PATH=${MRDEM_BIN:-$TOP/bin}:$PATH
export LC_ALL=C

# run OUTPUT COMMAND...: standard output to OUTPUT; status and standard
# error to OUTPUT.err when the command fails or complains.
run() {
	local out=$1 rc
	shift
	"$@" >"$out" 2>"$out.err.tmp"
	rc=$?
	if [ $rc != 0 ] || [ -s "$out.err.tmp" ]; then
		{ echo "exit status $rc"; cat "$out.err.tmp"; } >"$out.err"
	fi
	rm -f "$out.err.tmp"
}

mkdir -p "$OUT/info" "$OUT/stats" "$OUT/help" || exit 1
cd "$TOP/tests/golden" || exit 1
for f in *.mrd; do
	name=${f%.mrd}
	run "$OUT/info/$name.txt" mrdem-info "$f"
	run "$OUT/info/$name.json" mrdem-info --json "$f"
	case "$name" in good-*)
		if mrdem-stats "$f" >/dev/null 2>&1; then
			run "$OUT/stats/$name.csv" mrdem-stats "$f"
			run "$OUT/stats/$name.md" mrdem-stats --markdown "$f"
		fi ;;
	esac
done

for tool in "$TOP"/tools/mrdem-*.c; do
	tool=$(basename "$tool" .c)
	run "$OUT/help/$tool.txt" "$tool" --help
done
for cmd in sphere box plane cylinder import export; do
	run "$OUT/help/mrdem-mesh-$cmd.txt" mrdem-mesh "$cmd" --help
done

scratch=$(mktemp -d "${TMPDIR:-/tmp}/mrdem-expect.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
cd "$scratch" || exit 1
python3 "$TOP/tests/lib/known_scene.py" known.mrd &&
	run "$OUT/stats-known.md" mrdem-stats --markdown known.mrd
mrdem-mesh box --size 1 2 3 --name crate -o box.mrd &&
	run "$OUT/box-1x2x3.obj" mrdem-mesh export --format obj box.mrd
