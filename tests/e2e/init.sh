#!/bin/bash
# mrdem-init end to end: every shipped example through mrdem-info --json,
# the example scene of docs/scene.md in flow, block and JSON style,
# relative mesh files, standard input, and every YAML error class under
# tests/yaml/bad-*.yaml
# (each names its expected "LINE:COL: message" on its first line).
. "$(dirname "$0")/../lib/test-lib.sh"
EX=$TOP/examples

expect_success "two-spheres: init, info" '
	mrdem-init "$EX/two-spheres.yaml" -o two.mrd && mrdem-info --json --full two.mrd >two.json'
expect_success "two-spheres: one 1280-triangle sphere, two approaching particles" '
	checks assert two.json "
assert d[\"complete\"] and d[\"counts\"][\"setup\"] == 1 and d[\"counts\"][\"mesh\"] == 1
m = of(\"mesh\")[0]
assert m[\"triangles\"] == 1280 and m[\"closed\"] and m[\"name\"] == \"ball\"
s = state()
assert [p[\"id\"] for p in s] == [0, 1]
assert s[0][\"position\"] == [-1.05, 0, 0] and s[1][\"position\"] == [1.05, 0, 0]
assert s[0][\"velocity\"] == [0.5, 0, 0] and s[1][\"velocity\"] == [-0.5, 0, 0]
for p in s:
    assert p[\"epsilon\"] == 0.01 * (2 * m[\"radius\"]), p
    assert p[\"density\"] == 1 and p[\"orientation\"] == [1, 0, 0, 0] and not p[\"fixed\"]
assert near(m[\"radius\"], 1.0)
st = of(\"setup\")[0]
assert st[\"stiffness\"] == 1000 and st[\"gravity\"] == [0, 0, 0] and st[\"dt\"] == 1e-4
assert st[\"steps\"] == 2000 and st[\"scheme\"] == \"explicit-euler\" and st[\"output_every\"] == 20
assert st[\"force_model\"] == \"paper\"
"'

expect_success "sphere-on-plane: init, info" '
	mrdem-init "$EX/sphere-on-plane.yaml" -o sop.mrd && mrdem-info --json --full sop.mrd >sop.json'
expect_success "sphere-on-plane: fixed tilted plane mesh with absolute halo, sphere above" '
	checks assert sop.json "
ball, slope = of(\"mesh\")
assert ball[\"triangles\"] == 1280 and ball[\"closed\"]
assert slope[\"name\"] == \"slope\" and not slope[\"closed\"] and slope[\"triangles\"] == 2 * 16 * 16
lo, hi = slope[\"bbox\"]
t = math.radians(15)
assert near(hi[2], 10 * math.sin(t), 1e-9) and near(hi[1], 10 * math.cos(t), 1e-9)
plane, s = state()
assert plane[\"fixed\"] and plane[\"shape\"] == 1 and plane[\"epsilon\"] == 0.01
assert not s[\"fixed\"] and s[\"position\"] == [0, 0, 2.5] and s[\"epsilon\"] == 0.02 * ball[\"radius\"]
st = of(\"setup\")[0]
assert st[\"gravity\"] == [0, 0, -9.81]
assert st[\"force_model\"] == \"hooke\" and st[\"scheme\"] == \"velocity-verlet\"
assert st[\"stiffness\"] == 1e6 and of(\"contact_model\")[0][\"restitution\"] == 0.5 and st[\"friction\"] == 0.3
"'

# mrdem-info names the parameters each model reads: hooke's damping comes
# from the restitution, zeta = -ln e / sqrt(pi^2 + ln^2 e) = 0.2155 at 0.5;
# only spring-dashpot reads the setup's damping.
expect_success "mrdem-info: hooke's damping is the restitution's, not the setup's unused 0" '
	mrdem-info sop.mrd >sop.txt &&
	assert_grep "contact model hooke, stiffness kn 1e+06 N/m, damping from the restitution," sop.txt &&
	assert_grep "hooke: restitution 0.5 (damping ratio 0.2155), kt/kn" sop.txt &&
	! grep -q "damping 0" sop.txt &&
	checks assert sop.json "
st, cm = of(\"setup\")[0], of(\"contact_model\")[0]
assert \"damping\" not in st, st
zeta = -math.log(0.5) / math.sqrt(math.pi ** 2 + math.log(0.5) ** 2)
assert near(cm[\"damping_ratio\"], zeta), cm
assert \"young\" not in cm and \"poisson\" not in cm and cm[\"tangential\"] == 2 / 7, cm
"'
expect_success "mrdem-info: spring-dashpot names its damping, paper none, hertz derives both" '
	mrdem-init "$EX/grains-in-a-box.yaml" | mrdem-info >gb.txt &&
	assert_grep "contact model spring-dashpot, stiffness kn 2000 N/m, damping gamma_n 50 1/s," gb.txt &&
	mrdem-init "$EX/grains-in-a-box.yaml" | mrdem-info --json >gb.json &&
	checks assert gb.json "assert of(\"setup\")[0][\"damping\"] == 50" &&
	mrdem-info two.mrd >two.txt &&
	assert_grep "contact model paper, stiffness Ks 1000, no damping," two.txt &&
	sed "s/^contact: .*/contact: {model: hertz, young: 1.0e7, restitution: 0.4, plane_epsilon: 0.0002}/" \
		"$EX/grains-in-a-box.yaml" >hz.yaml &&
	mrdem-init hz.yaml -o hz.mrd && mrdem-info hz.mrd >hz.txt &&
	assert_grep "contact model hertz, stiffness from Young.s modulus, damping from the restitution," hz.txt &&
	assert_grep "hertz: restitution 0.4 (damping ratio 0.28), Young" hz.txt &&
	mrdem-info --json hz.mrd >hz.json &&
	checks assert hz.json "
st, cm = of(\"setup\")[0], of(\"contact_model\")[0]
assert \"stiffness\" not in st and \"damping\" not in st, st
assert near(cm[\"damping_ratio\"], 0.2800, 1e-4) and cm[\"young\"] == 1e7 and \"tangential\" not in cm, cm
"'

expect_success "lattice-24576: init, info" '
	mrdem-init "$EX/lattice-24576.yaml" -o lat.mrd && mrdem-info --json --full lat.mrd >lat.json'
expect_success "lattice-24576: one shape, 24,576 particles on the 32x32x24 grid" '
	checks assert lat.json "
assert d[\"counts\"][\"mesh\"] == 1
m = of(\"mesh\")[0]
assert m[\"triangles\"] == 1224 and m[\"closed\"]
s = state()
assert len(s) == 24576
eps = 0.01 * (2 * m[\"radius\"])
for n, p in enumerate(s):
    i, j, k = n % 32, n // 32 % 32, n // 1024
    assert p[\"id\"] == n and p[\"position\"] == [i * 2.03, j * 2.03, k * 2.03], p
    assert p[\"epsilon\"] == eps and p[\"orientation\"] == [1, 0, 0, 0] and p[\"velocity\"] == [0, 0, 0]
# neighbours barely overlap: surface gap along an axis is below the two halos
lo, hi = m[\"bbox\"]
gap = 2.03 - (hi[0] - lo[0])
assert 0 < gap < 2 * eps and 2.03 * math.sqrt(2) - (hi[0] - lo[0]) > 2 * eps, gap
"'

expect_success "rocks: mesh file found beside the scene from another directory" '
	(cd / && mrdem-init "$EX/rocks.yaml" -o "$T/rocks.mrd") && mrdem-info --json --full rocks.mrd >rocks.json'
# A mesh path is named as given and as resolved against the scene's
# directory; anything but a regular file is refused before it is opened (a
# FIFO without a writer would block open() for ever; timeout only guards
# the test against that hang).
expect_success "a missing mesh file is named as given and as resolved" '
	mkdir -p sub && printf "shapes:\n  rock: {mesh: nothere.obj}\nparticles:\n  - {shape: rock, position: [0, 0, 0]}\ncontact: {model: paper}\n" >sub/m.yaml &&
	for t in mrdem-init mrdem-run; do
		assert_exit 1 $t sub/m.yaml -o out.mrd &&
		assert_grep "^$t: error: sub/m.yaml:2:16: shapes.rock: mesh file .nothere.obj. (resolved against the scene.s directory: .sub/nothere.obj.): No such file or directory" err &&
		test ! -e out.mrd && test "$(wc -l <err)" = 1 || return 1
	done'
expect_success "a mesh path that is a FIFO, a directory or a device is refused, naming it" '
	mkdir -p sub && mkfifo sub/fifo.obj && mkdir -p sub/dir.obj &&
	for f in fifo.obj:"a FIFO" dir.obj:"a directory" /dev/null:"a device"; do
		printf "shapes:\n  r: {mesh: ${f%%:*}}\nparticles:\n  - {shape: r, position: [0, 0, 0]}\ncontact: {model: paper}\n" >sub/f.yaml &&
		for t in mrdem-init mrdem-run; do
			timeout 60 $t sub/f.yaml -o out.mrd 2>err; rc=$?
			assert_eq $rc 1 "$t exit status ($f)" &&
			assert_grep "sub/f.yaml:2:13: shapes.r: mesh file .*${f%%:*}.* is ${f#*:}, not a regular file" err &&
			test ! -e out.mrd || return 1
		done
	done &&
	printf "shapes:\n  r: {convex: {mesh: fifo.obj}}\nparticles:\n  - {shape: r, position: [0, 0, 0]}\ncontact: {model: paper}\n" >sub/c.yaml &&
	timeout 60 mrdem-init sub/c.yaml -o out.mrd 2>err; assert_eq $? 1 "convex exit status" &&
	assert_grep "sub/c.yaml:2:.*shapes.r: mesh file .fifo.obj. (resolved against the scene.s directory: .sub/fifo.obj.) is a FIFO, not a regular file" err'
expect_success "rocks: jittered, rotated lattice of the OBJ rock above an analytic floor" '
	checks assert rocks.json "
m = of(\"mesh\")[0]
assert m[\"name\"] == \"rock\" and m[\"triangles\"] == 80 and m[\"closed\"]
s = state()
assert len(s) == 48
for n, p in enumerate(s):
    g = [3.0 * (n % 4), 3.0 * (n // 4 % 4), 2 + 3.0 * (n // 16)]
    assert all(abs(p[\"position\"][a] - g[a]) <= 0.2 for a in range(3)), p
    q = p[\"orientation\"]
    assert near(sum(x * x for x in q), 1.0, 1e-14) and q != [1, 0, 0, 0]
    assert p[\"density\"] == 2.6
assert len(set(tuple(p[\"orientation\"]) for p in s)) == 48
st = of(\"setup\")[0]
assert st[\"planes\"] == [{\"point\": [0, 0, 0], \"normal\": [0, 0, 1]}]
assert st[\"scheme\"] == \"symplectic-euler\"
"'
expect_success "rocks: the same scene and seed give the same stream contents" '
	mrdem-init "$EX/rocks.yaml" -o rocks2.mrd &&
	same_stream rocks.mrd rocks2.mrd'

expect_success "scene from standard input" '
	mrdem-init - <"$EX/two-spheres.yaml" -o stdin.mrd && mrdem-info --json --full stdin.mrd >stdin.json &&
	checks assert stdin.json "assert len(state()) == 2"'

# The example scene of docs/scene.md, verbatim, with rock.stl written here as
# ASCII STL from examples/rock.obj by an independent converter.
python3 - "$EX/rock.obj" rock.stl <<'EOF'
import sys
v, out = [], ["solid rock"]
for line in open(sys.argv[1]):
    w = line.split()
    if w and w[0] == "v": v.append(w[1:4])
    if w and w[0] == "f":
        out.append(" facet normal 0 0 0\n  outer loop")
        out += ["   vertex " + " ".join(v[int(i) - 1]) for i in w[1:4]]
        out.append("  endloop\n endfacet")
open(sys.argv[2], "w").write("\n".join(out + ["endsolid rock"]) + "\n")
EOF
cat >example.yaml <<'EOF'
shapes:
  ball: {sphere: {triangles: 1280, radius: 1.0}}        # also: noise, stretch, seed
  rock: {mesh: rock.stl}                                 # OBJ/STL file or a mesh stream
particles:
  - {shape: ball, position: [-1.1, 0, 0], velocity: [1, 0, 0], density: 1.0}
  - {shape: ball, position: [1.1, 0, 0], orientation: [1, 0, 0, 0], angular_velocity: [0, 0, 0]}
  - lattice: {shape: ball, origin: [0, 0, 5], count: [4, 4, 4], spacing: [2.1, 2.1, 2.1]}
planes:
  - {point: [0, 0, -2], normal: [0, 0.26, 0.97]}
gravity: [0, 0, -9.81]
contact: {model: paper, epsilon: 0.01, stiffness: 1000}
time: {dt: 1.0e-4, steps: 1000, scheme: explicit-euler}
output: {every: 10}
EOF
cat >example-block.yaml <<'EOF'
output:
  every: 10
time:
  scheme: explicit-euler
  steps: 1000
  dt: 0.0001
particles:
  - shape: ball
    position: [-1.1, 0, 0]
    velocity: [1, 0, 0]
    density: 1.0
  - shape: ball
    position:
      - 1.1
      - 0
      - 0
  - lattice:
      shape: ball
      origin: [0, 0, 5]
      count: [4, 4, 4]
      spacing: 2.1
shapes:
  ball:
    sphere:
      triangles: 1280
  rock:
    mesh: rock.stl
contact:
  model: paper
  stiffness: 1000
gravity: [0, 0, -9.81]
planes:
  - point: [0, 0, -2]
    normal: [0, 0.26, 0.97]
EOF
expect_success "the example of docs/scene.md: flow style" '
	mrdem-init example.yaml -o example.mrd && mrdem-info --json --full example.mrd >example.json &&
	checks assert example.json "
ball, rock = of(\"mesh\")
assert ball[\"name\"] == \"ball\" and rock[\"name\"] == \"rock\" and rock[\"triangles\"] == 80
s = state()
assert len(s) == 2 + 64 and [p[\"id\"] for p in s] == list(range(66))
assert s[0][\"velocity\"] == [1, 0, 0] and s[1][\"position\"] == [1.1, 0, 0]
for n, p in enumerate(s[2:]):
    assert p[\"position\"] == [n % 4 * 2.1, n // 4 % 4 * 2.1, 5 + n // 16 * 2.1], (n, p)
    assert p[\"epsilon\"] == 0.01 * (2 * ball[\"radius\"])
st = of(\"setup\")[0]
nn = math.hypot(0.26, 0.97)
assert st[\"planes\"][0][\"normal\"] == [0, 0.26 / nn, 0.97 / nn]
assert st[\"gravity\"] == [0, 0, -9.81] and st[\"dt\"] == 1e-4 and st[\"output_every\"] == 10
"'
expect_success "the example of docs/scene.md: block style, keys reordered, gives the same stream" '
	mrdem-init example-block.yaml -o example-block.mrd && same_stream example.mrd example-block.mrd'

# Open mesh files need open: true and a fixed particle.
printf 'v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3\nf 1 3 4\n' >sheet.obj
cat >sheet.yaml <<'EOF'
shapes:
  sheet: {mesh: sheet.obj, open: true}
  ball: {sphere: {triangles: 80, radius: 0.2}}
particles:
  - {shape: sheet, position: [0, 0, 0], fixed: true}
  - {shape: ball, position: [0.5, 0.5, 0.5]}
contact: {model: paper}
EOF
expect_success "open mesh file with open: true on a fixed particle" '
	mrdem-init sheet.yaml -o sheet.mrd && mrdem-info --json --full sheet.mrd >sheet.json &&
	checks assert sheet.json "
sheet = of(\"mesh\")[0]
assert not sheet[\"closed\"] and sheet[\"triangles\"] == 2
p = state()[0]
assert p[\"fixed\"] and p[\"epsilon\"] == 0.01
"'
sed 's/, open: true//' sheet.yaml >sheet-closed.yaml
expect_failure "open mesh file without open: true is rejected at its line" '
	mrdem-init sheet-closed.yaml -o x.mrd 2>err; rc=$?; cat err
	[ ! -e x.mrd ] && grep -qF "sheet-closed.yaml:2:17: shapes.sheet: cannot load mesh file '\''sheet.obj'\''" err &&
	exit $rc'

# Mesh streams as shapes: mrdem-init output holds one mesh per shape.
cat >from-stream.yaml <<'EOF'
shapes:
  ball: {mesh: two.mrd}
  slope: {mesh: sop.mrd, shape: slope, open: true}
particles:
  - {shape: ball, position: [0, 0, 3]}
  - {shape: slope, position: [0, 0, 0], fixed: true}
contact: {model: paper}
EOF
expect_success "shapes taken from mesh streams (one mesh, or picked by name)" '
	mrdem-init from-stream.yaml -o fs.mrd && mrdem-info --json --full fs.mrd >fs.json &&
	checks assert fs.json "
ball, slope = of(\"mesh\")
assert ball[\"triangles\"] == 1280 and ball[\"closed\"] and slope[\"triangles\"] == 512
assert not slope[\"closed\"]
"'

# Trees built offline by mrdem-tree come with their mesh: mrdem-init keeps
# them, so nothing downstream rebuilds them. Non-default build parameters
# (leaf 4, seed 5) tell the stored tree from a rebuilt one.
mrdem-mesh sphere --triangles 320 --noise 1.3 --seed 7 -o plain.mrd &&
	mrdem-tree --leaf 4 --seed 5 -o treed.mrd plain.mrd
mrdem-mesh sphere --triangles 320 --noise 1.3 --seed 8 -o other.mrd
cat >treed.yaml <<'EOF2'
shapes:
  rock: {mesh: treed.mrd}
  ball: {sphere: {triangles: 80}}
particles:
  - {shape: rock, position: [0, 0, 0], velocity: [1, 0, 0]}
  - {shape: ball, position: [3, 0, 0]}
contact: {model: paper}
EOF2
tree_params='
def trees(): return {t["shape"]: t for t in of("tree")}
rock = trees()[0]
assert rock["name"] == "rock" and rock["triangles"] == 320, rock
assert rock["params"]["leaf"] == 4 and rock["params"]["seed"] == 5, rock["params"]'
expect_success "a mesh stream's stored tree goes into the mrdem-init output" '
	mrdem-init treed.yaml -o treed-init.mrd && mrdem-info --json treed-init.mrd >ti.json &&
	mrdem-info --json treed.mrd >t0.json &&
	checks assert ti.json "$tree_params
assert d[\"counts\"][\"tree\"] == 1, d[\"counts\"]" &&
	built="[of(\"tree\")[0][k] for k in (\"nodes\", \"levels\", \"params\", \"level_stats\", \"root\")]" &&
	assert_eq "$(checks info ti.json "$built")" "$(checks info t0.json "$built")" "the stored tree"'
expect_success "mrdem-info names where the stored tree came from" '
	mrdem-info treed-init.mrd >ti.txt && assert_grep "tree rock: treed.mrd (tree record of shape" ti.txt'
expect_success "mrdem-run of the scene keeps the stored tree (no rebuild)" '
	mrdem-run -q --steps 2 --every 1 treed.yaml -o run.mrd && mrdem-info --json run.mrd >run.json &&
	checks assert run.json "$tree_params
assert len(of(\"tree\")) == 2 and trees()[1][\"params\"][\"leaf\"] == 8
"'
python3 "$TOP/tests/lib/mrdem_stream.py" --pick swapped.mrd other.mrd:mesh treed.mrd:tree
sed 's/treed.mrd/swapped.mrd/' treed.yaml >swapped.yaml
expect_success "a stored tree of another mesh is refused, naming file, shape and fingerprints" '
	assert_exit 1 mrdem-init swapped.yaml -o x.mrd && [ ! -e x.mrd ] && {
	grep -qF "swapped.mrd: tree record of shape '\''sphere'\'': the tree was built for another mesh (mesh fingerprint" err &&
	grep -qF "swapped.yaml:2:16: shapes.rock: cannot load mesh file '\''swapped.mrd'\''" err || { cat err; false; }; }'

# Sizes are checked against memory before anything is allocated: 10^9
# particles (the limit itself) need about 272 GB. ulimit -v makes the
# budget the same everywhere (not under ASan, whose shadow memory needs
# more address space than that).
cat >huge.yaml <<'EOF2'
shapes: {ball: {sphere: {triangles: 80}}}
particles:
  - lattice: {shape: ball, count: [1000, 1000, 1000], spacing: 1.1}
EOF2
expect_failure "a lattice beyond memory is refused at its line before allocating" '
	[ -n "${MRDEM_ASAN:-}" ] || ulimit -v 2000000
	mrdem-init huge.yaml -o x.mrd 2>err; rc=$?; cat err
	[ ! -e x.mrd ] && [ $rc = 1 ] &&
	grep -qF "huge.yaml:3:37: particles[0].lattice.count: 1000000000 particles in the scene need about 272 GB of memory, more than the " err &&
	exit $rc'

# A plane normal of huge or tiny components: its length over- or
# underflows, yet it has a direction (it was stored as the zero vector).
cat >normals.yaml <<'EOF2'
shapes: {ball: {sphere: {triangles: 80}}}
particles: [{shape: ball, position: [0, 0, 5]}]
planes:
  - {point: [0, 0, 0], normal: [1e200, 1e200, 0]}
  - {point: [0, 0, 0], normal: [0, 0, 1e-320]}
contact: {model: paper, allow_overlap: true}
EOF2
expect_success "plane normals of huge or tiny components are normalised, not zeroed" '
	mrdem-init normals.yaml -o normals.mrd && mrdem-info --json normals.mrd >normals.json &&
	checks assert normals.json "
a, b = of(\"setup\")[0][\"planes\"]
assert near(a[\"normal\"][0], math.sqrt(0.5)) and a[\"normal\"][0] == a[\"normal\"][1] and a[\"normal\"][2] == 0, a
assert b[\"normal\"] == [0, 0, 1], b
"'

expect_failure "usage error without a scene" 'mrdem-init'
expect_success "--help prints usage to stdout" 'mrdem-init --help | grep -q "usage: mrdem-init"'
expect_failure "missing scene file" 'mrdem-init no-such.yaml -o x.mrd 2>err; rc=$?; cat err
	[ ! -e x.mrd ] && grep -q "no-such.yaml: cannot open" err && exit $rc'

# Every error class: exit status 1, "FILE:LINE:COL: message", no output.
for f in "$TOP"/tests/yaml/bad-*.yaml; do
	expect_success "rejects $(basename "$f"): $(sed -n '1s/^# expect: //p' "$f" | cut -c1-60)" '
		want=$(sed -n "1s/^# expect: //p" "$f")
		[ -n "$want" ] || { echo "no expectation in $f"; exit 1; }
		rm -f out.mrd*
		mrdem-init "$f" -o out.mrd 2>err
		rc=$?
		cat err
		[ $rc = 1 ] || { echo "exit status $rc, want 1"; exit 1; }
		grep -qF -- "mrdem-init: error: $f:$want" err || { echo "want: $f:$want"; exit 1; }
		! ls out.mrd* 2>/dev/null'
done

done_testing
