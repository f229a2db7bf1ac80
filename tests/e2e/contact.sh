#!/usr/bin/env bash
# mrdem-contact end to end: two 1,280-triangle icospheres turned so that one
# vertex of each points at the other along x, a known gap apart. The
# closest points are exactly those two vertices, every pair of triangles
# around them (5 x 5: an icosahedron vertex) touches at the same distance,
# and no other pair comes within the halos: one merged contact at the
# centre of the halos' overlap, normal -x (from b to a), distance = gap.
# Also: the three methods and both hierarchies agree, unequal halos move the
# point, a wider gap gives nothing, a plane contact, thread-count
# independence, and bad options fail cleanly.
. "$(dirname "$0")/../lib/test-lib.sh"

# scene.json from: gap, eps_a, eps_b; the first mesh vertex turned to +x on
# particle 0 (at the origin) and to -x on particle 1 (at 2 + gap).
make_scene() { # gap eps_a eps_b [plane]
	python3 - "$@" <<'PY'
import json, math, sys
gap, ea, eb = map(float, sys.argv[1:4])
v = next([float(x) for x in l.split()[1:4]] for l in open("s.obj") if l.startswith("v "))
n = math.sqrt(sum(x * x for x in v)); u = [x / n for x in v]
def turn(u, t):  # unit quaternion taking unit vector u onto t
    c = sum(a * b for a, b in zip(u, t))
    ax = [u[1] * t[2] - u[2] * t[1], u[2] * t[0] - u[0] * t[2], u[0] * t[1] - u[1] * t[0]]
    s = math.sqrt(sum(a * a for a in ax)); ang = math.atan2(s, c)
    return [math.cos(ang / 2)] + [a / s * math.sin(ang / 2) for a in ax]
scene = {"shapes": {"ball": {"mesh": "s.mrd"}},
         "particles": [
             {"shape": "ball", "position": [0, 0, 0], "orientation": turn(u, [1, 0, 0]), "epsilon_abs": ea},
             {"shape": "ball", "position": [2 + gap, 0, 0], "orientation": turn(u, [-1, 0, 0]), "epsilon_abs": eb}],
         "contact": {"model": "paper"}}
if len(sys.argv) > 4:  # only particle 0, its vertex down, gap above the plane z = 0
    scene["particles"] = [{"shape": "ball", "position": [0, 0, 1 + gap],
                           "orientation": turn(u, [0, 0, -1]), "epsilon_abs": ea}]
    scene["planes"] = [{"point": [0, 0, 0], "normal": [0, 0, 1]}]
    scene["contact"] = {"model": "paper", "plane_epsilon": eb, "allow_overlap": True}
json.dump(scene, open("scene.json", "w"))
PY
}

# The contacts and the mrdem-contact stats of the (single) frame as JSON
# records (their list, their values).
contacts_of() { # stream -> c.json, st.json
	checks one "$1" contacts >c.json && checks one "$1" stats mrdem-contact >st.json
}

# Every contact at the expected point, normal, distance and depth.
check_contacts() { # count x y z nx ny nz dist depth [b]
	python3 - "$@" <<'PY'
import json, sys
want_n = int(sys.argv[1]); x, y, z, nx, ny, nz, dist, depth = map(float, sys.argv[2:10])
b = int(sys.argv[10]) if len(sys.argv) > 10 else 1
c = json.load(open("c.json"))["list"]
if len(c) != want_n:
    sys.exit("got %d contacts, want %d: %s" % (len(c), want_n, c[:3]))
for k in c:
    bad = [k["a"] != 0, k["b"] != b,
           max(abs(p - q) for p, q in zip(k["point"], (x, y, z))) > 2e-6,
           # float coordinates (resolution ~6e-8 at radius 1) over a 1e-3 gap
           max(abs(p - q) for p, q in zip(k["normal"], (nx, ny, nz))) > 1e-4,
           abs(k["distance"] - dist) > 2e-6, abs(k["depth"] - depth) > 2e-6]
    if any(bad):
        sys.exit("contact %s, want point (%g %g %g) normal (%g %g %g) distance %g depth %g" %
                 (k, x, y, z, nx, ny, nz, dist, depth))
PY
}
stat_of() { json_get st.json "int(d['values']['$1'])"; }

expect_success "icosphere mesh and its vertices" '
	mrdem-mesh sphere --triangles 1280 -o s.mrd && mrdem-mesh export --format obj s.mrd -o s.obj &&
	assert_eq "$(grep -c "^v " s.obj)" 642 vertices'

for method in hybrid comparison iterative; do
	expect_success "$method: one contact at the halo overlap centre, normal from b to a" '
		make_scene 0.001 0.001 0.001 && mrdem-init scene.json -o scene.mrd &&
		mrdem-contact --method $method scene.mrd -o out.mrd && contacts_of out.mrd &&
		check_contacts 1 1.0005 0 0 -1 0 0 0.001 0.001 &&
		hits=$(stat_of hits) && assert_eq "$(stat_of comparisons)" 1638400 comparisons &&
		if [ $method = iterative ]; then
			# alone it may stop short of the shared corner on some pairs
			[ "$hits" -ge 1 ] && [ "$hits" -le 25 ]
		else
			assert_eq "$hits" 25 "touching triangle pairs (5 x 5 around the vertices)"
		fi'
done

expect_success "without merging: the 25 triangle pairs, all at the same point" '
	make_scene 0.001 0.001 0.001 && mrdem-init scene.json -o scene.mrd &&
	mrdem-contact --no-merge scene.mrd -o out.mrd && contacts_of out.mrd &&
	check_contacts 25 1.0005 0 0 -1 0 0 0.001 0.001'

expect_success "surrogate trees give the flat search's contact with fewer comparisons" '
	make_scene 0.001 0.001 0.001 && mrdem-init scene.json -o scene.mrd &&
	mrdem-tree scene.mrd -o tree.mrd && mrdem-contact --hierarchy surrogate tree.mrd -o out.mrd &&
	contacts_of out.mrd && check_contacts 1 1.0005 0 0 -1 0 0 0.001 0.001 &&
	assert_eq "$(stat_of hits)" 25 hits && [ "$(stat_of comparisons)" -lt 1638400 ]'

expect_success "unequal halos: the point moves to the middle of the overlap" '
	make_scene 0.002 0.002 0.0005 && mrdem-init scene.json -o scene.mrd &&
	mrdem-contact scene.mrd -o out.mrd && contacts_of out.mrd &&
	check_contacts 1 1.00175 0 0 -1 0 0 0.002 0.0005'

expect_success "a gap beyond both halos: no contact, every pair still compared" '
	make_scene 0.0021 0.001 0.001 && mrdem-init scene.json -o scene.mrd &&
	mrdem-contact scene.mrd -o out.mrd && contacts_of out.mrd && check_contacts 0 0 0 0 0 0 0 0 0 &&
	assert_eq "$(stat_of comparisons)" 1638400 comparisons'

expect_success "vertex above a plane: one contact, plane normal" '
	make_scene 0.001 0.001 0.001 plane && mrdem-init scene.json -o scene.mrd &&
	mrdem-contact scene.mrd -o out.mrd && contacts_of out.mrd &&
	check_contacts 1 0 0 0.0005 0 0 1 0.001 0.001 18446744073709551615'

expect_success "records pass through; same bytes for 1 and 2 threads" '
	cat >lat.yaml <<EOF &&
shapes: {ball: {sphere: {triangles: 320}}}
particles:
  - lattice: {shape: ball, origin: [0, 0, 0], count: [3, 2, 2], spacing: [2.002, 2.003, 2.001], epsilon_abs: 0.004}
contact: {model: paper, allow_overlap: true}
EOF
	mrdem-init lat.yaml -o lat.mrd &&
	OMP_NUM_THREADS=1 mrdem-contact lat.mrd -o one.mrd && OMP_NUM_THREADS=2 mrdem-contact lat.mrd -o two.mrd &&
	same_stream one.mrd two.mrd && contacts_of one.mrd &&
	[ "$(json_get c.json "len(d[\"list\"])")" -ge 4 ] &&
	checks types lat.mrd >in.txt && checks types one.mrd >out.txt &&
	# mrdem-contact adds its meta record and, after the frame, contacts and stats
	{ head -1 in.txt && echo meta && sed 1d in.txt | grep -vx -e index -e end &&
		printf "contacts\nstats\nindex\nend\n"; } >want.txt &&
	test_cmp want.txt out.txt'

expect_failure "unknown method" 'mrdem-contact --method magic scene.mrd -o x.mrd'
expect_failure "zero iterations" 'mrdem-contact --iterations 0 scene.mrd -o x.mrd'
expect_failure "negative threshold" 'mrdem-contact --threshold -1 scene.mrd -o x.mrd'
expect_success "--iterations with --method comparison is refused (it would be ignored)" '
	mrdem-contact --method comparison --iterations 7 scene.mrd -o x.mrd 2>e; r=$?
	assert_eq "$r" 2 && assert_grep "does not run" e && [ ! -e x.mrd ]'
expect_success "--no-merge is in --help" 'mrdem-contact --help | grep -q -- "--no-merge"'
# Memory follows the contacts found: the paper's lattice (1,224-triangle
# spheres whose axis neighbours' halos overlap) at 768 and 3,072 particles.
# Keeping every pair's unmerged hits cost about 120 KB per particle; now a
# particle adds under 2 KB. ASan holds freed blocks in quarantine: 28 KB
# there, so its bound is 64 KB.
sed "s/count: \[32, 32, 24\]/count: [8, 8, 12]/" "$TOP/examples/lattice-24576.yaml" >lat768.yaml
sed "s/count: \[32, 32, 24\]/count: [16, 16, 12]/" "$TOP/examples/lattice-24576.yaml" >lat3072.yaml
cat >rss.py <<'PY'
import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
expect_success "peak memory grows with the contacts, not with a worst case per pair" '
	mrdem-init lat768.yaml | mrdem-tree | mrdem-pairs >s768.mrd &&
	mrdem-init lat3072.yaml | mrdem-tree | mrdem-pairs >s3072.mrd &&
	a=$(OMP_NUM_THREADS=1 python3 rss.py mrdem-contact s768.mrd -o c768.mrd) &&
	b=$(OMP_NUM_THREADS=1 python3 rss.py mrdem-contact s3072.mrd -o c3072.mrd) &&
	n=$(checks info c3072.mrd "sum(r[\"contacts\"] for r in of(\"contacts\"))") &&
	echo "# peak RSS $a KB at 768 particles, $b KB at 3072; $n contacts" && [ "$n" -gt 3000 ] &&
	bound=16 && if [ -n "${MRDEM_ASAN:-}" ]; then bound=64; fi &&
	assert_true "($b - $a) / 2304.0 < $bound" "peak RSS per particle added (KB)"'

# Merging (remark 1) against a reference: the unmerged points of each pair
# (--no-merge), grouped greedily in list order by a first-member seed within
# half the two halos, the deepest kept. Hundreds of points per pair, so the
# finder's cell grid is used, not its plain scan.
cat >merge.yaml <<'Y'
shapes:
  ball: {sphere: {triangles: 5120, radius: 1.0}}
particles:
  - {shape: ball, position: [0, 0, 0]}
  - {shape: ball, position: [2.02, 0.3, 0.1], orientation: [0.9233805168766388, 0.10259783520851541, 0.3077935056255462, 0.20519567041703082]}
planes:
  - {point: [0, 0, -1.01], normal: [0, 0.1, 0.99498743710662]}
contact: {model: paper, epsilon: 0.03, plane_epsilon: 0.03, allow_overlap: true}
Y
cat >merge.py <<'PY'
import json, subprocess, sys
def contacts(path):
    d = json.loads(subprocess.run(["mrdem-info", "--json", "--full", path], capture_output=True,
                                  text=True, check=True).stdout)
    return [c for r in d["records"] if r["type"] == "contacts" for c in r["list"]]
raw, merged = contacts(sys.argv[1]), contacts(sys.argv[2])
out, i = [], 0
while i < len(raw):
    j = i
    while j < len(raw) and (raw[j]["a"], raw[j]["b"]) == (raw[i]["a"], raw[i]["b"]):
        j += 1
    r = 0.5 * (raw[i]["depth"] + raw[i]["distance"])  # half of eps_a + eps_b
    groups, seeds = [], []
    for c in raw[i:j]:
        g = next((k for k, s in enumerate(seeds)
                  if sum((a - b) ** 2 for a, b in zip(c["point"], s)) < r * r), None)
        if g is None:
            seeds.append(c["point"]); groups.append(c)
        elif c["distance"] < groups[g]["distance"]:
            groups[g] = c
    print("# pair %s-%s: %d points, %d groups" % (raw[i]["a"], raw[i]["b"], j - i, len(groups)))
    out += groups
    i = j
assert max(len(raw) - len(out), 0) > 0 and len(raw) >= 100
assert [c["point"] for c in out] == [c["point"] for c in merged], "merged points differ"
PY
expect_success "merging matches a greedy reference on hundreds of points per pair" '
	mrdem-init merge.yaml | mrdem-tree | mrdem-pairs >m.mrd &&
	mrdem-contact --no-merge m.mrd -o raw.mrd && mrdem-contact m.mrd -o merged.mrd &&
	python3 merge.py raw.mrd merged.mrd'

# The kernel is a speed choice: every hit's points come from the comparison
# kernel, so between the nearly parallel faces of these spheres the three
# methods (and both hierarchies) give the same contacts, bit for bit.
cat >contacts_of.py <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import mrdem_stream as ms
for t, p in ms.read(sys.argv[2]):
    if t == 6:
        sys.stdout.buffer.write(p)
PY
expect_success "comparison, iterative and hybrid give the same contact points, flat and surrogate" '
	for h in flat surrogate; do for m in comparison iterative hybrid; do
		mrdem-contact --hierarchy $h --method $m m.mrd -o k.mrd &&
		python3 contacts_of.py "$TOP/tests/lib" k.mrd >k-$h-$m.bin || exit 1
	done; done &&
	for f in k-*.bin; do cmp k-flat-comparison.bin $f || exit 1; done &&
	test -s k-flat-comparison.bin'

# A pairs record names each pair once; its order is free (mrdem-pairs
# writes frame-index order, not id order). edit_pairs.py IN OUT HOW: the
# pairs of every record with the first pair again (dup), the second pair
# reversed again (swap) or the list reversed (reverse).
cat >edit_pairs.py <<'PY'
import struct, sys
sys.path.insert(0, sys.argv[1])
import mrdem_stream as ms
def edit(t, p):
    if t != 5:
        return p
    step, n = struct.unpack_from("<QQ", p)
    q = [struct.unpack_from("<QQ", p, 16 + 16 * i) for i in range(n)]
    how = sys.argv[4]
    if how == "dup":
        q.insert(2, q[0])
    elif how == "swap":
        q.append(q[1][::-1])
    else:
        q.reverse()
    return struct.pack("<QQ", step, len(q)) + b"".join(struct.pack("<QQ", *x) for x in q)
ms.rewrite(sys.argv[2], sys.argv[3], edit)
PY
# sorted 88-byte contacts of a stream, hex, one a line
cat >contact_set.py <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import mrdem_stream as ms
for t, p in ms.read(sys.argv[2]):
    if t == 6:
        print("\n".join(sorted(p[16 + 88 * i:16 + 88 * (i + 1)].hex() for i in range((len(p) - 16) // 88))))
PY
expect_success "a pairs record naming a pair twice (either order) is refused: file, record, pairs named, no output" '
	python3 "$TOP/tests/e2e/randscene.py" r.mrd r.json --seed 2 --n 40 --planes 1 --no-reference &&
	mrdem-pairs r.mrd -o p.mrd || exit 1
	for how in dup swap; do
		python3 edit_pairs.py "$TOP/tests/lib" p.mrd $how.mrd $how &&
		{ mrdem-contact $how.mrd -o x.mrd 2>err.txt; rc=$?; cat err.txt; } &&
		assert_eq $rc 1 "$how: exit status" && assert_grep "$how.mrd: record [0-9]* (pairs)" err.txt &&
		assert_grep "pairs [0-9]* and [0-9]* are the same pair" err.txt && [ ! -e x.mrd ] &&
		assert_exit 1 mrdem-info $how.mrd || exit 1
	done'
expect_success "pairs in another order give the same contacts" '
	python3 edit_pairs.py "$TOP/tests/lib" p.mrd rev.mrd reverse &&
	mrdem-contact p.mrd -o c1.mrd && mrdem-contact rev.mrd -o c2.mrd &&
	python3 contact_set.py "$TOP/tests/lib" c1.mrd >c1.txt && python3 contact_set.py "$TOP/tests/lib" c2.mrd >c2.txt &&
	[ -s c1.txt ] && cmp c1.txt c2.txt'

expect_failure "missing input" 'mrdem-contact nothing-here.mrd -o x.mrd'
expect_success "no partial output after a failure" '
	! mrdem-contact --iterations 0 scene.mrd -o x.mrd 2>/dev/null; [ ! -e x.mrd ]'

done_testing
