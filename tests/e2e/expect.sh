#!/usr/bin/env bash
# Text outputs read as specifications: mrdem-info (text and JSON) of every
# golden stream, mrdem-stats tables, every tool's --help and an OBJ export
# equal the files under tests/expect/ (tests/lib/expect_outputs.sh writes
# them; `make expect` regenerates tests/expect for review with git diff).
. "$(dirname "$0")/../lib/test-lib.sh"
X=$TOP/tests/expect

expect_success "the outputs are written" '"$TOP/tests/lib/expect_outputs.sh" out'
for f in $(cd out && find . -type f | sed "s|^\./||" | LC_ALL=C sort); do
	expect_success "$f as specified (tests/expect/$f)" 'test_cmp "$X/$f" "out/$f"'
done
expect_success "every file under tests/expect is still written (none stale)" '
	for f in $(cd "$X" && find . -type f | sed "s|^\./||"); do
		[ -e "out/$f" ] || { echo "tests/expect/$f: no longer written (make expect)"; exit 1; }
	done'

done_testing
