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
	assert_eq "$(json_get s.json "d[\"records\"][3][\"state\"][1][\"position\"]")" "[2.5, 0, 0]" &&
	assert_eq "$(json_get s.json "d[\"records\"][5][\"list\"][1][1]")" 18446744073709551615 plane-id &&
	assert_eq "$(json_get s.json "d[\"records\"][6][\"list\"][0][\"depth\"]")" 0.008 depth &&
	assert_eq "$(json_get s.json "d[\"counts\"][\"frame\"]")" 1'

expect_success "truncated stream: complete records are still described" '
	mrdem-info --json "$G/bad-truncated-record.mrd" >t.json 2>/dev/null; rc=$?
	assert_eq $rc 1 &&
	assert_eq "$(json_get t.json "len(d[\"records\"])")" 6 records &&
	assert_eq "$(json_get t.json "d[\"complete\"]")" False'

expect_success "streams read from a pipe and from zcat output" '
	cat "$G/good-scene.mrd" | mrdem-info >a.txt &&
	zcat "$G/good-scene.mrd" | mrdem-info >b.txt &&
	assert_grep "8 records: 1 setup 1 mesh 1 frame 1 pairs 1 contacts 1 stats 1 meta 1 end" a.txt &&
	cmp a.txt b.txt'

expect_success "a record type from a newer version survives the whole pipeline" '
	mrdem-tree "$G/good-unknown-type.mrd" 2>/dev/null | mrdem-pairs 2>/dev/null |
		mrdem-contact 2>/dev/null | mrdem-step 2>/dev/null | mrdem-info --json >u.json 2>/dev/null &&
	assert_eq "$(json_get u.json "d[\"counts\"][\"unknown\"], d[\"counts\"][\"frame\"], d[\"counts\"][\"tree\"]")" "1 1 1"'

expect_success "a version 1 stream upgrades to version 2 with the same content" '
	mrdem-info --upgrade "$G/v1-scene.mrd" -o up.mrd && mrdem-info --json --full up.mrd >up.json &&
	mrdem-info --json --full "$G/good-scene.mrd" >g.json &&
	assert_eq "$(json_get up.json "[r[\"state\"] for r in d[\"records\"] if r[\"type\"] == \"frame\"]")" \
		"$(json_get g.json "[r[\"state\"] for r in d[\"records\"] if r[\"type\"] == \"frame\"]")" state &&
	assert_eq "$(json_get up.json "d[\"records\"][0][\"values\"][\"command\"].startswith(\"mrdem-info --upgrade\")")" True'

expect_success "a frame column this build does not know passes through mrdem-step unchanged" '
	mrdem-step --no-contacts "$G/good-extra-column.mrd" -o x.mrd &&
	python3 -c "
import sys; sys.path.insert(0, \"$TOP/tests/lib\"); import mrdem_stream as m
f = [p for t, p in m._walk(__import__(\"gzip\").decompress(open(\"x.mrd\", \"rb\").read())) if t == 4][0]
assert m.s(\"temperature\") in f and f.endswith(m.f64s([300, 310])), f[-40:]"'

expect_success "concatenated streams: each is stepped alone, output concatenated" '
	mrdem-step "$G/good-scene.mrd" -o one.mrd &&
	cat "$G/good-scene.mrd" "$G/good-scene.mrd" | mrdem-step -o c.mrd &&
	mrdem-info c.mrd >c.txt && assert_grep "stream 2 (concatenated)" c.txt &&
	assert_grep "end of stream 2" c.txt && cat one.mrd one.mrd >twice.mrd && same_stream c.mrd twice.mrd'

expect_success "--frame N reads through the frame index: damage before frame N does not matter" '
	mrdem-run -q "$TOP/examples/two-spheres.yaml" --steps 200 --every 20 -o r.mrd &&
	mrdem-info --json --full r.mrd >r.json &&
	python3 -c "
import json
v = [r for r in json.load(open(\"r.json\"))[\"records\"] if r[\"type\"] == \"index\"][0][\"list\"]
a, b = v[2][\"compressed_offset\"], v[3][\"compressed_offset\"]
d = bytearray(open(\"r.mrd\", \"rb\").read()); d[(a + b) // 2] ^= 0xff
open(\"bad.mrd\", \"wb\").write(d)" &&
	! mrdem-info bad.mrd >/dev/null 2>&1 &&
	mrdem-info --frame 8 bad.mrd >f8.txt && assert_grep "read through the frame index" f8.txt &&
	assert_grep "step 160," f8.txt && mrdem-info --frame 8 r.mrd | cmp - f8.txt &&
	zcat r.mrd | mrdem-info --frame 8 - >seq.txt && assert_grep "read in sequence" seq.txt &&
	assert_eq "$(tail -1 seq.txt)" "$(tail -1 f8.txt)" "frame 8 in sequence" &&
	! mrdem-info --frame 11 r.mrd 2>e.txt && assert_grep "no frame 11" e.txt'

expect_success "tests/golden/gen.py reproduces the committed golden files byte for byte" '
	mkdir regen && python3 "$G/gen.py" regen &&
	for f in "$G"/*.mrd; do cmp "$f" "regen/${f##*/}" || exit 1; done &&
	assert_eq "$(ls regen | wc -l)" "$(ls "$G"/*.mrd | wc -l)" "file count"'

expect_success "--follow describes a run while it is written, to its end record" '
	(sleep 0.5; mrdem-run -q "$TOP/examples/two-spheres.yaml" --steps 2000 --every 200 -o live.mrd) &
	for i in $(seq 50); do [ -e live.mrd ] && break; sleep 0.1; done
	timeout 120 mrdem-info --follow live.mrd >live.txt; rc=$?; wait
	assert_eq $rc 0 "exit status" && assert_grep "end of stream 1" live.txt &&
	assert_eq "$(grep -c "^record .*: frame" live.txt)" 11 frames'
expect_failure "--follow with --frame is a usage error" 'mrdem-info --follow --frame 1 x.mrd'
expect_success "names from the input cannot forge lines of mrdem-info: control bytes escaped, UTF-8 kept" '
	mrdem-mesh box --name "$(printf "x\npicard\033[31mkügel")" | mrdem-tree >named.mrd &&
	mrdem-info named.mrd >out.txt && ! grep -q "^picard" out.txt &&
	assert_grep "shape 0 .x\\\\x0apicard\\\\x1b\[31mkügel.: 8 vertices" out.txt &&
	assert_grep "tree of shape 0 .x\\\\x0apicard\\\\x1b\[31mkügel.: 12 triangles" out.txt'
expect_success "--follow on a pipe stops at its end: a cut stream fails, nothing waits" '
	head -c 300 "$G/good-scene.mrd" >cut.mrd &&
	cat cut.mrd | timeout 20 mrdem-info --follow >/dev/null 2>err; assert_eq $? 1 "exit status" &&
	assert_grep "truncated stream" err &&
	timeout 20 mrdem-stats --follow </dev/null 2>err; assert_eq $? 1 "exit status" &&
	assert_grep "empty input" err &&
	cat "$G/good-scene.mrd" | timeout 20 mrdem-info --follow >out.txt && assert_grep "end of stream" out.txt'

expect_failure "bad option is rejected" 'mrdem-info --frobnicate'
expect_success "MRDEM_STREAM_LEVEL: stored and level 9 streams hold the same records" '
	mrdem-run -q "$TOP/examples/two-spheres.yaml" --steps 20 -o l1.mrd &&
	MRDEM_STREAM_LEVEL=0 mrdem-run -q "$TOP/examples/two-spheres.yaml" --steps 20 -o l0.mrd &&
	MRDEM_STREAM_LEVEL=9 mrdem-run -q "$TOP/examples/two-spheres.yaml" --steps 20 -o l9.mrd &&
	same_stream l1.mrd l0.mrd && same_stream l1.mrd l9.mrd &&
	test $(stat -c %s l0.mrd) -gt $(stat -c %s l1.mrd) &&
	test $(stat -c %s l9.mrd) -lt $(stat -c %s l1.mrd) &&
	mrdem-info --frame 1 l0.mrd | grep -q "step 20, time 0.002"'
expect_success "a bad MRDEM_STREAM_LEVEL is an error naming it, and writes nothing" '
	MRDEM_STREAM_LEVEL=fast mrdem-run -q "$TOP/examples/two-spheres.yaml" --steps 2 \
		-o badlevel.mrd 2>e; assert_eq $? 1 &&
	assert_grep "MRDEM_STREAM_LEVEL is .fast.: give a zlib level" e && test ! -e badlevel.mrd'
expect_success "--help prints usage" 'mrdem-info --help | grep -q "usage: mrdem-info"'
expect_success "missing file gives a clear error and exit 1" '
	mrdem-info nosuch.mrd 2>e; assert_eq $? 1 && assert_grep "nosuch.mrd: cannot open" e'

# The tests' stream helper as a command: its modes, and wrong arguments as
# usage errors (not a file named --help).
expect_success "tests/lib/mrdem_stream.py: --help lists its modes, FILE and --same work, bad arguments are usage errors" '
	M=$TOP/tests/lib/mrdem_stream.py &&
	python3 "$M" --help >help.txt && assert_grep "^usage: mrdem_stream.py FILE" help.txt &&
	assert_grep "^  FILE  *print one line per record" help.txt &&
	assert_grep "^  --same A B  *exit 0 when" help.txt &&
	python3 "$M" "$G/good-scene.mrd" >recs.txt &&
	assert_eq "$(head -2 recs.txt | tr "\n" " ")" "8 58 1 140 " "first records" &&
	python3 "$M" --same "$G/good-scene.mrd" "$G/good-scene.mrd" &&
	assert_exit 1 python3 "$M" --same "$G/good-scene.mrd" "$G/good-mesh.mrd" >/dev/null &&
	assert_exit 1 python3 "$M" "$G/bad-checksum.mrd" >/dev/null &&
	assert_eq "$(cat err)" "mrdem_stream.py: $G/bad-checksum.mrd: record 1 at byte 176: checksum mismatch" &&
	for args in "" "--same a" "a --same b c" "--bogus a"; do
		assert_exit 2 python3 "$M" $args && assert_grep "^usage: mrdem_stream.py" err &&
			! grep -q Traceback err || exit 1
	done
'

done_testing
