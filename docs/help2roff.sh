#!/bin/sh
# Write a tool's man page (roff) from its --help text, so the pages never
# drift from the tools:
#   NAME         the tool and the first sentence of its description
#   SYNOPSIS     the usage lines
#   DESCRIPTION  the rest of the help, verbatim (no-fill)
#   COMMANDS     for a tool with a "Commands:" list, each command's --help
#   EXIT STATUS  the help's "Exit status:" paragraph
#   SEE ALSO     the other tools
#
#   docs/help2roff.sh BIN/TOOL VERSION [OTHER-TOOL...] >TOOL.1
set -eu
tool=$1 version=$2
shift 2
name=$(basename "$tool")
help=$("$tool" --help)

# roff-safe text: backslashes, leading dots/quotes, and minus signs
esc() {
	sed -e 's/\\/\\e/g' -e 's/^\([.'\'']\)/\\\&\1/' -e 's/-/\\-/g'
}
# every paragraph but the usage and the exit status, verbatim
body() {
	awk 'p == 0 && /^$/ { p = 1; next } p == 0 { next }
	     /^Exit status:/ { x = 1 } x && /^$/ { x = 0; next } !x' | esc
}
# one command's --help: its usage lines, then its body
section() {
	printf '.SS %s\n.nf\n' "$1"
	printf '%s\n' "$2" | awk '/^$/ { exit } { print }' | esc
	printf '\n'
	printf '%s\n' "$2" | body
	printf '.fi\n'
}

summary=$(printf '%s\n' "$help" | awk 'p == 1 && /^$/ { exit } p == 1 { printf "%s ", $0 }
	p == 0 && /^$/ { p = 1 }' | sed -e 's/\. .*/./' -e 's/ *$//')
commands=$(printf '%s\n' "$help" | awk '/^Commands:/ { c = 1; next } c && /^$/ { exit }
	c { print $1 }')

printf '.TH %s 1 "" "mrdem %s" "mrdem manual"\n' "$(printf '%s' "$name" | tr a-z A-Z | esc)" "$version"
printf '.SH NAME\n%s \\- %s\n' "$(printf '%s' "$name" | esc)" "$(printf '%s' "$summary" | esc)"
printf '.SH SYNOPSIS\n.nf\n'
printf '%s\n' "$help" | awk '/^$/ { exit } { sub(/^usage: /, ""); sub(/^       /, ""); print }' | esc
printf '.fi\n.SH DESCRIPTION\n.nf\n'
printf '%s\n' "$help" | body
printf '.fi\n'
if [ -n "$commands" ]; then
	printf '.SH COMMANDS\n'
	for c in $commands; do
		section "$c" "$("$tool" "$c" --help)"
	done
fi
printf '.SH EXIT STATUS\n'
printf '%s\n' "$help" | awk '/^Exit status:/ { x = 1; sub(/^Exit status: */, "") } x && /^$/ { exit } x' | esc
printf '.SH SEE ALSO\n'
sep=
for o in "$@"; do
	[ "$o" = "$name" ] && continue
	printf '%s\\fB%s\\fR(1)' "$sep" "$(printf '%s' "$o" | esc)"
	sep=',
'
done
printf '\n.PP\nThe documentation under share/doc/mrdem (README.md, docs/*.md).\n'
