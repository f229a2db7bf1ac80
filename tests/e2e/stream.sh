#!/usr/bin/env bash
# Golden streams (written by tests/golden/gen.py from the spec) are accepted
# or rejected with the documented message; mrdem-info reports values.
. "$(dirname "$0")/../lib/test-lib.sh"
G=$TOP/tests/golden

while read -r file want msg; do
	case "$file" in '#'*|'') continue ;; esac
	expect_success "golden $file: exit $want, message" '
		mrdem-info "$G/$file" >out.txt 2>err.txt; rc=$?
		assert_eq $rc $want "exit status" &&
		if [ "$msg" = - ]; then [ ! -s err.txt ] || { cat err.txt; false; }
		else assert_grep "$msg" err.txt; fi'
	expect_success "golden $file: --json still valid on stdout" '
		mrdem-info --json "$G/$file" >out.json 2>/dev/null
		[ ! -s out.json ] || python3 -m json.tool out.json >/dev/null'
done <"$G/expect.txt"

expect_success "info --json reports the tetrahedron's exact mass properties" '
	mrdem-info --json "$G/good-mesh.mrd" >m.json &&
	assert_near "$(json_get m.json "d[\"records\"][0][\"volume\"]")" 0.16666666666666666 1e-15 volume &&
	assert_eq "$(json_get m.json "d[\"records\"][0][\"triangles\"]")" 4 triangles &&
	assert_eq "$(json_get m.json "d[\"records\"][0][\"closed\"]")" True closed'

expect_success "info --json --full dumps particle states, pairs and contacts" '
	mrdem-info --json --full "$G/good-scene.mrd" >s.json &&
	assert_eq "$(json_get s.json "d[\"records\"][2][\"state\"][1][\"position\"]")" "[2.5, 0, 0]" &&
	assert_eq "$(json_get s.json "d[\"records\"][4][\"list\"][1][1]")" 18446744073709551615 plane-id &&
	assert_eq "$(json_get s.json "d[\"records\"][5][\"list\"][0][\"depth\"]")" 0.008 depth &&
	assert_eq "$(json_get s.json "d[\"counts\"][\"frame\"]")" 1'

expect_success "truncated stream: complete records are still described" '
	mrdem-info --json "$G/bad-truncated-record.mrd" >t.json 2>/dev/null; rc=$?
	assert_eq $rc 1 &&
	assert_eq "$(json_get t.json "len(d[\"records\"])")" 5 records &&
	assert_eq "$(json_get t.json "d[\"complete\"]")" False'

expect_success "streams read from a pipe and from zcat output" '
	cat "$G/good-scene.mrd" | mrdem-info >a.txt &&
	zcat "$G/good-scene.mrd" | mrdem-info >b.txt &&
	assert_grep "6 records: 1 setup 1 mesh 1 frame 1 pairs 1 contacts 1 stats" a.txt &&
	cmp a.txt b.txt'

expect_success "a record type from a newer version survives the whole pipeline" '
	mrdem-tree "$G/good-unknown-type.mrd" 2>/dev/null | mrdem-pairs 2>/dev/null |
		mrdem-contact 2>/dev/null | mrdem-step 2>/dev/null | mrdem-info --json >u.json 2>/dev/null &&
	assert_eq "$(json_get u.json "d[\"counts\"][\"unknown\"], d[\"counts\"][\"frame\"], d[\"counts\"][\"tree\"]")" "1 1 1"'

expect_failure "bad option is rejected" 'mrdem-info --frobnicate'
expect_success "--help prints usage" 'mrdem-info --help | grep -q "usage: mrdem-info"'
expect_success "missing file gives a clear error and exit 1" '
	mrdem-info nosuch.mrd 2>e; assert_eq $? 1 && assert_grep "nosuch.mrd: cannot open" e'

done_testing
