#!/usr/bin/env bash
# The Makefile: plain `make` builds the tools whatever optional packages
# are installed (bench/fcl.mk defines rules of its own when FCL is found).
. "$(dirname "$0")/../lib/test-lib.sh"

# A stand-in fcl.pc makes pkg-config find FCL on any machine.
mkdir pc && cat >pc/fcl.pc <<'PC'
Name: fcl
Description: stand-in for the Makefile test
Version: 0.7.0
Libs: -lfcl
Cflags:
PC

expect_success "with FCL found, plain make builds the tools, not the FCL benchmark objects" '
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL PKG_CONFIG_PATH=$T/pc make -n -C "$TOP" BUILD="$T/b" BIN="$T/bin" >plan.txt 2>&1 &&
	assert_grep "$T/bin/mrdem-info" plan.txt &&
	! grep -q fcl_ plan.txt'

expect_success "with FCL found, make bench links the FCL comparison" '
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL PKG_CONFIG_PATH=$T/pc make -n -C "$TOP" BUILD="$T/b" BIN="$T/bin" bench >plan.txt 2>&1 &&
	assert_grep "fcl_tri.o" plan.txt'

# The measured figures all come from one machine: every description of it
# in README.md and docs/ must name the same CPU.
expect_success "README and docs describe the benchmark machine alike" '
	cat "$TOP/README.md" "$TOP"/docs/*.md | tr -s "\n " "  " |
		grep -oiE "[0-9]+-core [A-Za-z]+( [A-Za-z]+)?( machine)?|xeon|intel|ryzen|graviton|apple m[0-9]" |
		sort -u >machines.txt &&
	assert_eq "$(cat machines.txt)" "2-core AMD EPYC machine" machines'

# A Markdown table ends at its first line that is not a row: a row after a
# paragraph (or a header without its |---| line) renders as loose text.
expect_success "README and docs: every table row is inside its table" '
	python3 - "$TOP/README.md" "$TOP"/docs/*.md <<PY
import re, sys
bad = []
for name in sys.argv[1:]:
    lines = open(name, encoding="utf-8").read().split("\n")
    fence = False
    for n, line in enumerate(lines):
        if line.startswith("\`\`\`"):
            fence = not fence
        if fence or not line.startswith("|") or (n and lines[n - 1].startswith("|")):
            continue
        after = lines[n + 1] if n + 1 < len(lines) else ""
        if (n and lines[n - 1].strip()) or not re.fullmatch(r"\|( *:?-+:? *\|)+", after.strip()):
            bad.append("%s:%d: a row outside a table: %s" % (name, n + 1, line[:60]))
assert not bad, "\n".join(bad)
PY
'

done_testing
