#!/usr/bin/env bash
# The command-line contract of every tool in bin/: --help prints the usage
# with the exit statuses on standard output and exits 0; usage errors
# (unknown option, bad option value, an option given twice, too many
# arguments) exit 2 with nothing on standard output; other errors exit 1.
. "$(dirname "$0")/../lib/test-lib.sh"

tools=$(cd "$MRDEM_BIN" && ls mrdem-*)
expect_success "bin/ holds the tools" '[ $(echo $tools | wc -w) -ge 10 ]'

for t in $tools; do
	expect_success "$t --help: exit 0, usage and exit statuses on stdout" '
		'$t' --help >out 2>err </dev/null && [ ! -s err ] &&
		assert_grep "^usage: '$t'" out &&
		tr "\n" " " <out >flat && assert_grep "Exit status: 0 success.*, 1 error (.*), 2 usage error (" flat'
	expect_success "$t: an unknown option exits 2, says so, writes nothing on stdout" '
		assert_exit 2 '$t' --no-such-option >out </dev/null && [ ! -s out ] &&
		assert_grep "no-such-option" err'
	expect_success "$t: too many arguments exit 2" '
		assert_exit 2 '$t' a b c >out </dev/null && [ ! -s out ]'
	expect_success "$t: an option given twice exits 2, names it, writes nothing" '
		case '$t' in
		mrdem-mesh) assert_exit 2 mrdem-mesh sphere -o a.mrd -o b.mrd >out ;;
		*) assert_exit 2 '$t' -o a.mrd -o b.mrd missing.mrd >out </dev/null ;;
		esac && [ ! -s out ] && assert_grep "given twice" err && test ! -e a.mrd && test ! -e b.mrd'
	expect_success "$t: a missing input file exits 1" '
		case '$t' in
		mrdem-mesh) assert_exit 1 mrdem-mesh import missing.obj -o out.mrd ;;
		mrdem-vtk) assert_exit 1 mrdem-vtk -o out missing.mrd ;;
		*) assert_exit 1 '$t' missing.mrd >out ;;
		esac && assert_grep "missing" err'
done

# A bad value of an option each tool takes.
while read -r t args; do
	expect_success "$t $args: a bad option value exits 2" '
		assert_exit 2 '"$t $args"' >out </dev/null && [ ! -s out ]'
done <<'EOF2'
mrdem-mesh sphere --radius abc
mrdem-info --frame 1 --frame 2 missing.mrd
mrdem-info --frame=1 --frame=1 missing.mrd
mrdem-run --steps 1 --steps=2 missing.yaml
mrdem-run --picard-max 3 --picard-max 3 missing.yaml
mrdem-step --picard-tol 0.1 --picard-tol 0.2 missing.mrd
mrdem-tree --fanout 4 --fanout 8 missing.mrd
mrdem-contact --method tri --method tri missing.mrd
mrdem-pairs --broad grid --method sap missing.mrd
mrdem-tree --leaf x
mrdem-pairs --method nearest
mrdem-contact --iterations x
mrdem-step --dt abc
mrdem-run --steps x missing.yaml
mrdem-info --full
EOF2

# Numbers out of range are refused in one wording, naming the option and
# the value as given: "--OPT: 'V' is not a whole number in LO..HI", "...
# must be positive", "... must not be negative", "... must be at most X".
while IFS="|" read -r want cmd; do
	expect_success "$cmd: says $want" '
		assert_exit 2 '"$cmd"' >out </dev/null && [ ! -s out ] &&
		assert_grep "error: $want\$" err'
done <<'EOF2'
--picard-max: '0' is not a whole number in 1..1000000|mrdem-run --picard-max 0 missing.yaml
--picard-max: '0' is not a whole number in 1..1000000|mrdem-step --picard-max 0 missing.mrd
--picard-max: '-1' is not a whole number in 1..1000000|mrdem-step --picard-max -1 missing.mrd
--every: '0' is not a whole number in 1..18446744073709551615|mrdem-run --every 0 missing.yaml
--dt: '0' must be positive|mrdem-step --dt 0 missing.mrd
--dt: '0' must be positive|mrdem-run --dt 0 missing.yaml
--max-energy-growth: '-1' must not be negative|mrdem-step --max-energy-growth -1 missing.mrd
--max-energy-growth: '-1' must not be negative|mrdem-run --max-energy-growth -1 missing.yaml
--surrogate-damping: '2' must be at most 1|mrdem-step --surrogate-damping 2 missing.mrd
EOF2

done_testing
