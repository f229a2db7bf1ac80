#!/usr/bin/env bash
# mrdem-tree through real files and pipes: trees land after their meshes,
# mrdem-info reports them, an independent Python re-check of every epsilon,
# determinism across thread counts, --verify on damaged trees, bad input.
. "$(dirname "$0")/../lib/test-lib.sh"

check=$TOP/tests/e2e/treecheck.py
# Evaluate a Python expression on the first tree record (t) of a stream.
tree() { # stream expr
	checks info "$1" "(lambda t: ($2))(of(\"tree\")[0])"
}

expect_success "mesh | tree | info: one tree record right after the mesh" '
	mrdem-mesh sphere --triangles 320 | mrdem-tree | cat >t.mrd &&
	mrdem-info --json t.mrd >t.json &&
	assert_eq "$(json_get t.json "[r[\"type\"] for r in d[\"records\"]]")" "['\''meta'\'', '\''meta'\'', '\''mesh'\'', '\''tree'\'', '\''end'\'']" &&
	assert_eq "$(tree t.mrd "t[\"triangles\"], t[\"levels\"], t[\"level_stats\"][0][\"nodes\"]")" \
		"(320, 4, 1)" &&
	assert_eq "$(tree t.mrd "sum(l[\"triangles\"] for l in t[\"level_stats\"])")" 320 &&
	assert_eq "$(tree t.mrd "sum(l[\"nodes\"] for l in t[\"level_stats\"]) == t[\"nodes\"]")" True'

expect_success "text summary names levels, eps and the root halo" '
	mrdem-mesh sphere --triangles 80 | mrdem-tree >t.mrd && mrdem-info t.mrd >info.txt &&
	assert_grep "tree of shape 0 .sphere.: 80 triangles" info.txt &&
	assert_grep "level 1: 8 nodes" info.txt &&
	assert_grep "root: longest edge d .*% of the bounding sphere (radius 1)" info.txt'

expect_success "every epsilon re-checked by an independent distance (Python), 3 shapes" '
	for a in "--triangles 80" "--triangles 320 --stretch 2.6" "--triangles 320 --noise 1.5 --seed 4"; do
		mrdem-mesh sphere $a | mrdem-tree -o t.mrd &&
		mrdem-info --json --full t.mrd >full.json &&
		n=$(python3 "$check" verify full.json) || { echo "$n"; exit 1; }
		[ "$n" -gt 600 ] || { echo "only $n checks"; exit 1; }
	done'

expect_success "--full lists every node with triangle, eps, children and range" '
	mrdem-mesh sphere --triangles 80 | mrdem-tree -o t.mrd &&
	mrdem-info --json --full t.mrd >full.json &&
	assert_eq "$(json_get full.json "len(d[\"records\"][3][\"node_list\"]) == d[\"records\"][3][\"nodes\"]")" True &&
	assert_eq "$(json_get full.json "d[\"records\"][3][\"node_list\"][0][\"children\"]")" "[1, 8]" &&
	assert_eq "$(json_get full.json "d[\"records\"][3][\"node_list\"][0][\"tri_range\"]")" "[0, 80]" &&
	assert_eq "$(json_get full.json "len(d[\"records\"][3][\"node_list\"][5][\"triangle\"])")" 9'

expect_success "paper Table 1 bounds: halo <= 135 % at stretch 1.0, <= 37 % at 2.6" '
	mrdem-mesh sphere --triangles 1280 --radius 0.5 | mrdem-tree -o a.mrd &&
	mrdem-mesh sphere --triangles 1280 --radius 0.5 --stretch 2.6 | mrdem-tree -o b.mrd &&
	assert_eq "$(tree a.mrd "0 < t[\"root\"][\"halo_ratio\"] <= 1.35")" True &&
	assert_eq "$(tree b.mrd "0 < t[\"root\"][\"halo_ratio\"] <= 0.37")" True &&
	assert_near "$(tree b.mrd "t[\"root\"][\"sphere_radius\"]")" 1.3 1e-12 "r_sphere"'

expect_success "byte-identical output for 1 and 2 threads; --verify passes" '
	mrdem-mesh sphere --triangles 1280 --noise 1.5 --seed 3 -o s.mrd &&
	OMP_NUM_THREADS=1 mrdem-tree s.mrd -o one.mrd &&
	OMP_NUM_THREADS=2 mrdem-tree --verify s.mrd -o two.mrd &&
	same_stream one.mrd two.mrd'

expect_success "trees in the input are kept; --rebuild with the same seed reproduces them" '
	mrdem-mesh sphere --triangles 320 | mrdem-tree -o t.mrd &&
	mrdem-tree -v t.mrd -o again.mrd 2>err && same_stream t.mrd again.mrd &&
	assert_grep "0 tree(s) built, 1 kept" err &&
	mrdem-tree --rebuild t.mrd -o same.mrd && same_stream t.mrd same.mrd &&
	mrdem-tree --rebuild --seed 2 t.mrd -o other.mrd && ! same_stream t.mrd other.mrd >/dev/null &&
	assert_eq "$(checks info other.mrd "d[\"counts\"][\"tree\"]")" 1'

expect_success "tree options with every tree kept (no --rebuild) exit 2 and write nothing" '
	mrdem-mesh sphere --triangles 80 | mrdem-tree -o t.mrd && rm -f x.mrd &&
	for o in "--fanout 4" "--leaf 2" "--seed 2" "--iters 10" --no-refine; do
		assert_exit 2 mrdem-tree $o t.mrd -o x.mrd &&
		assert_grep "t.mrd: every shape has its tree already, so the tree options shape nothing; --rebuild" err &&
		test ! -e x.mrd || exit 1
	done &&
	mrdem-tree --verify t.mrd -o x.mrd && mrdem-tree --leaf 2 --rebuild t.mrd -o y.mrd &&
	printf "shapes:\n  ball: {analytic-sphere: {radius: 0.5}}\nparticles:\n  - {shape: ball, position: [0, 0, 0]}\ncontact: {model: paper}\ntime: {dt: 1.0e-4, steps: 1}\n" >an.yaml &&
	mrdem-init an.yaml -o an.mrd && mrdem-tree an.mrd -o x2.mrd && rm -f x2.mrd &&
	assert_exit 2 mrdem-tree --leaf 2 an.mrd -o x2.mrd && test ! -e x2.mrd &&
	assert_grep "an.mrd: no shape has a mesh to build a tree for (analytic shapes need none)" err'

expect_success "--no-refine gives the plain functional (6) surrogates, still conservative" '
	mrdem-mesh sphere --triangles 320 --radius 0.5 --stretch 2.6 | mrdem-tree --no-refine --verify -o t.mrd &&
	assert_eq "$(tree t.mrd "t[\"params\"][\"refine\"]")" False &&
	assert_eq "$(tree t.mrd "t[\"root\"][\"halo_ratio\"] > 0.9")" True'

expect_success "options reach the build: fanout 4, leaf 2" '
	mrdem-mesh sphere --triangles 80 | mrdem-tree --fanout 4 --leaf 2 --verify -o t.mrd &&
	assert_eq "$(tree t.mrd "t[\"params\"][\"fanout\"], t[\"params\"][\"leaf\"], t[\"level_stats\"][1][\"nodes\"]")" "(4, 2, 4)"'

expect_success "a box, an open plane and a cylinder get conservative trees" '
	mrdem-mesh box --size 2 1 0.5 --divisions 3 | mrdem-tree --verify -o b.mrd &&
	mrdem-mesh plane --open --divisions 8 --tilt 15 | mrdem-tree --verify -o p.mrd &&
	mrdem-mesh cylinder --segments 40 | mrdem-tree --verify -o c.mrd &&
	for f in b p c; do mrdem-info --json --full $f.mrd >$f.json &&
		python3 "$check" verify $f.json >/dev/null || exit 1; done'

# ---- damage

expect_success "--verify rejects a tree whose eps was halved, and writes nothing" '
	mrdem-mesh sphere --triangles 320 | mrdem-tree -o t.mrd &&
	python3 "$check" tamper t.mrd bad.mrd shrink-eps &&
	mrdem-tree t.mrd --verify -o ok.mrd &&
	assert_exit 1 mrdem-tree bad.mrd --verify -o out.mrd &&
	assert_grep "not conservative" err && [ ! -e out.mrd ]'

expect_failure "a tree record that is not a permutation is rejected by mrdem-info" '
	mrdem-mesh sphere --triangles 80 | mrdem-tree -o t.mrd &&
	python3 "$check" tamper t.mrd bad.mrd dup-order &&
	mrdem-info bad.mrd'

expect_success "a tree for a missing shape is rejected with the record named" '
	mrdem-mesh sphere --triangles 80 | mrdem-tree -o t.mrd &&
	python3 "$check" tamper t.mrd bad.mrd shape-7 &&
	assert_exit 1 mrdem-tree bad.mrd -o out.mrd &&
	assert_grep "record [0-9]* (tree)" err && [ ! -e out.mrd ]'

expect_success "garbage input: exit 1, message, no output file" '
	echo "not a stream" >junk && assert_exit 1 mrdem-tree junk -o out.mrd &&
	assert_grep "junk" err && [ ! -e out.mrd ]'

expect_success "bad options: exit 2, hint on stderr, nothing on stdout" '
	assert_exit 2 mrdem-tree --fanout 1 </dev/null >out && [ ! -s out ] && assert_grep "fanout" err &&
	assert_exit 2 mrdem-tree --leaf x </dev/null >out && [ ! -s out ] && assert_grep "leaf" err &&
	assert_exit 2 mrdem-tree --alpha-area nan </dev/null >out && [ ! -s out ] && assert_grep "alpha" err &&
	assert_exit 2 mrdem-tree --bogus </dev/null >out && [ ! -s out ] && assert_grep "help" err'

expect_success "--help prints usage to stdout" '
	mrdem-tree --help >out && assert_grep "usage: mrdem-tree" out && assert_grep "alpha-area" out'

done_testing
