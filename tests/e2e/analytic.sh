#!/usr/bin/env bash
# Analytic shapes (analytic-sphere, ellipsoid) through the tools: a scene
# mixing them with a mesh and planes goes through mrdem-init | mrdem-tree |
# mrdem-pairs | mrdem-contact | mrdem-step, mrdem-run gives the same bytes
# in process and --via-pipes, mrdem-info, mrdem-vtk and the Python reader
# describe the shapes, and bad scenes and shape records are refused.
. "$(dirname "$0")/../lib/test-lib.sh"

# Every kind of pair in contact from the start, some deep (allow_overlap).
cat >mixed.yaml <<'Y'
shapes:
  ball: {analytic-sphere: {radius: 0.01}}
  grain: {ellipsoid: {axes: [0.015, 0.01, 0.006]}}
  block: {box: {size: [0.05, 0.05, 0.02], divisions: 2}}
particles:
  - {shape: block, position: [0, 0, 0.01], fixed: true, epsilon_abs: 0.0002}
  - {shape: ball, position: [0.005, 0, 0.0303], velocity: [0, 0, -0.2], density: 2500, epsilon_abs: 0.0002}
  - {shape: ball, position: [0.025, 0.001, 0.0303], density: 2500, epsilon_abs: 0.0002}
  - {shape: grain, position: [-0.01, 0.0, 0.0263], orientation: [0.9238795, 0, 0.3826834, 0], velocity: [0, 0, -0.1], density: 2500, epsilon_abs: 0.0002}
  - {shape: ball, position: [0.05, 0.05, 0.0101], density: 2500, epsilon_abs: 0.0002}
  - {shape: grain, position: [-0.05, -0.05, 0.0061], density: 2500, epsilon_abs: 0.0002}
  - {shape: grain, position: [-0.0198, -0.05, 0.0061], density: 2500, epsilon_abs: 0.0002}
planes:
  - {point: [0, 0, 0], normal: [0, 0, 1]}
gravity: [0, 0, -9.81]
contact: {model: spring-dashpot, stiffness: 2000, damping: 50, friction: 0.4, plane_epsilon: 0.0002, allow_overlap: true}
time: {dt: 2.0e-5, steps: 200, scheme: velocity-verlet}
output: {every: 20}
Y


cat >kinds.py <<'PY'
import collections, json, subprocess, sys
d = json.loads(subprocess.run(["mrdem-info", "--json", sys.argv[1]], capture_output=True,
                              text=True, check=True).stdout)
C = [r for r in d["records"] if r["type"] == "contacts"]
print(d["counts"]["shape"], d["counts"]["mesh"], d["counts"]["tree"], sum(c["contacts"] for c in C))
PY

expect_success "the tools' pipeline takes a scene of spheres, ellipsoids, a mesh and a plane" '
	mrdem-init mixed.yaml | mrdem-tree | mrdem-pairs | mrdem-contact >c.mrd &&
	mrdem-step c.mrd >s.mrd &&
	set -- $(python3 kinds.py c.mrd) &&
	assert_eq "$1 $2 $3" "2 1 1" "shape, mesh and tree records" &&
	[ "$4" -ge 5 ] || { echo "only $4 contacts"; false; }'

expect_success "contacts of every kind of pair: sphere-mesh, ellipsoid-mesh, sphere-sphere, sphere-ellipsoid, ellipsoid-ellipsoid, sphere-plane" '
	checks assert c.mrd "
c = of(\"contacts\")[0][\"list\"]
pairs = {(k[\"a\"], k[\"b\"]) for k in c}
want = {(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (5, 6), (4, plane(0)), (5, plane(0)), (6, plane(0))}
assert want <= pairs, sorted(pairs)
assert all(k[\"tri_b\"] == 4294967295 for k in c), c"'

expect_success "mrdem-info describes the analytic shapes (text and JSON)" '
	mrdem-init mixed.yaml >i.mrd &&
	mrdem-info i.mrd >info.txt &&
	assert_grep "shape 0 .ball.: analytic sphere, radius 0.01" info.txt &&
	assert_grep "shape 1 .grain.: ellipsoid, semi-axes 0.015 0.01 0.006" info.txt &&
	checks assert i.mrd "
s = of(\"shape\")
assert s[0][\"kind\"] == \"analytic-sphere\" and s[0][\"radius\"] == 0.01, s[0]
assert s[1][\"kind\"] == \"ellipsoid\" and s[1][\"axes\"] == [0.015, 0.01, 0.006], s[1]
assert abs(s[1][\"volume\"] - 4 / 3 * math.pi * 0.015 * 0.01 * 0.006) < 1e-20"'

expect_success "mrdem-run: the same bytes in process and --via-pipes" '
	mrdem-run -q mixed.yaml --steps 60 --every 20 -o inproc.mrd &&
	mrdem-run -q mixed.yaml --steps 60 --every 20 --via-pipes -o pipes.mrd &&
	same_stream inproc.mrd pipes.mrd'

expect_success "mrdem-run: flat and surrogate search give the same contacts" '
	mrdem-run -q mixed.yaml --steps 60 --every 20 --hierarchy flat -o flat.mrd &&
	checks lists flat.mrd contacts >flat.txt && checks lists inproc.mrd contacts >surr.txt &&
	cmp flat.txt surr.txt'

expect_success "results do not depend on the number of threads" '
	OMP_NUM_THREADS=1 mrdem-run -q mixed.yaml --steps 60 --every 20 -o t1.mrd &&
	OMP_NUM_THREADS=2 mrdem-run -q mixed.yaml --steps 60 --every 20 -o t2.mrd &&
	same_stream t1.mrd t2.mrd'

expect_success "implicit Euler takes analytic shapes; its multiscale search refuses them before any output" '
	mrdem-run -q mixed.yaml --scheme implicit-euler --steps 10 --every 10 -o imp.mrd &&
	assert_exit 1 mrdem-run -q mixed.yaml --scheme implicit-euler --hierarchy multiscale \
		--steps 2 -o ms.mrd 2>err && ! test -e ms.mrd &&
	assert_grep "analytic shapes have none" err'

expect_success "mrdem-vtk draws analytic shapes as tessellated instances" '
	mrdem-vtk -o vtk inproc.mrd &&
	assert_grep "NumberOfPolys=\"320\"" vtk/shape-000.vtp &&
	assert_grep "NumberOfPolys=\"320\"" vtk/shape-001.vtp &&
	assert_grep "NumberOfPolys=\"48\"" vtk/shape-002.vtp &&
	mrdem-vtk --surfaces -o surf inproc.mrd && ls surf/frame-000000.vtp'

expect_success "the Python reader reads shape records" '
	PYTHONPATH=$TOP/python python3 -c "
import mrdem
s = mrdem.read(\"i.mrd\")
assert [x.kind for x in s.shapes] == [\"analytic-sphere\", \"ellipsoid\", \"mesh\"], s.shapes
assert s.shapes[1].axes == (0.015, 0.01, 0.006) and len(s.shapes[0].triangles) == 0
print(s.shapes[0].volume)"'

expect_success "mrdem-tree builds trees for meshes only, and passes a stream of analytic shapes" '
	printf "shapes:\n  b: {analytic-sphere: {radius: 1}}\nparticles:\n  - {shape: b, position: [0, 0, 0]}\ncontact: {model: paper}\n" >only.yaml &&
	mrdem-init only.yaml | mrdem-tree >only.mrd &&
	set -- $(python3 kinds.py only.mrd) && assert_eq "$1 $2 $3" "1 0 0"'

cat >pile.yaml <<'Y'
shapes:
  ball: {analytic-sphere: {radius: 0.01}}
  big: {analytic-sphere: {radius: 0.013}}
particles:
  - lattice: {shape: ball, origin: [-0.03, -0.03, 0.012], count: [4, 4, 3], spacing: 0.0205, jitter: 0.0003, seed: 3, density: 2500, epsilon_abs: 0.0002, velocity: [0.05, 0, 0]}
  - {shape: big, position: [0, 0, 0.09], density: 2000, epsilon_abs: 0.0002}
planes:
  - {point: [0, 0, 0], normal: [0, 0, 1]}
  - {point: [-0.05, 0, 0], normal: [1, 0, 0]}
  - {point: [0.05, 0, 0], normal: [-1, 0, 0]}
gravity: [0, 0, -9.81]
contact: {model: spring-dashpot, stiffness: 2000, damping: 50, friction: 0.4, plane_epsilon: 0.0002}
time: {dt: 2.0e-5, steps: 1000, scheme: velocity-verlet}
output: {every: 250}
Y

cat >framediff.py <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import mrdem
a, b = mrdem.read(sys.argv[2]), mrdem.read(sys.argv[3])
def flat(x):
    return [c for v in x for c in (v if isinstance(v, (list, tuple)) else [v])]
assert [f.step for f in a.frames] == [f.step for f in b.frames], "frames differ"
worst = 0.0
for fa, fb in zip(a.frames, b.frames):
    assert list(fa["flags"]) == list(fb["flags"])
    for k in ("position", "velocity", "orientation"):
        worst = max([worst] + [abs(p - q) for p, q in zip(flat(fa[k]), flat(fb[k]))])
print(len(a.frames), worst)
assert worst < 1e-12, worst
PY

expect_success "mrdem-run --fast-spheres: the general path's frames to rounding, frames only" '
	mrdem-run -q pile.yaml --fast-spheres -o fast.mrd &&
	mrdem-run -q pile.yaml --general-path -o general.mrd &&
	python3 framediff.py "$TOP/python" fast.mrd general.mrd &&
	set -- $(python3 kinds.py fast.mrd) && assert_eq "$1 $2 $4" "2 0 0" "shapes, meshes, contacts" &&
	set -- $(python3 kinds.py general.mrd) && [ "$4" -gt 0 ] || { echo "general: $*"; false; }'

expect_success "a scene of analytic spheres takes the fast path by itself, says so; options that need records do not" '
	mrdem-run pile.yaml -o auto.mrd 2>auto.err && python3 framediff.py "$TOP/python" auto.mrd fast.mrd &&
	set -- $(python3 kinds.py auto.mrd) && assert_eq "$4" 0 "contacts" &&
	assert_grep "sphere fast path" auto.err && assert_grep "chosen for this scene" auto.err &&
	mrdem-run pile.yaml --max-energy-growth 2 -o g1.mrd 2>g1.err &&
	mrdem-run pile.yaml --hierarchy flat -o g2.mrd 2>g2.err &&
	for e in g1.err g2.err; do ! grep -q "sphere fast path" $e || exit 1; done &&
	set -- $(python3 kinds.py g1.mrd) && [ "$4" -gt 0 ] &&
	mrdem-run -q mixed.yaml --steps 10 -o m.mrd && set -- $(python3 kinds.py m.mrd) && [ "$4" -gt 0 ]'

expect_success "mrdem-run --fast-spheres refuses what it does not cover, writing nothing" '
	assert_exit 1 mrdem-run -q mixed.yaml --fast-spheres -o no1.mrd && ! test -e no1.mrd &&
	assert_grep "does not cover this scene: shape .grain. is ellipsoid" err &&
	assert_exit 1 mrdem-run -q pile.yaml --fast-spheres --scheme symplectic-euler -o no2.mrd &&
	! test -e no2.mrd && assert_grep "not velocity-verlet" err &&
	assert_exit 2 mrdem-run -q pile.yaml --fast-spheres --via-pipes -o no3.mrd &&
	assert_exit 2 mrdem-run -q pile.yaml --fast-spheres --hierarchy flat -o no4.mrd &&
	assert_exit 2 mrdem-run -q pile.yaml --fast-spheres --max-energy-growth 2 -o no5.mrd &&
	assert_exit 2 mrdem-run -q pile.yaml --fast-spheres --general-path -o no6.mrd &&
	! test -e no3.mrd && ! test -e no4.mrd && ! test -e no5.mrd && ! test -e no6.mrd'

expect_success "the shipped example: grains fall into the box and stay inside" '
	mrdem-run -q "$TOP/examples/grains-in-a-box.yaml" --steps 4000 --every 2000 -o box.mrd &&
	PYTHONPATH=$TOP/python python3 -c "
import mrdem
s = mrdem.read(\"box.mrd\")
f0, f1 = s.frames[0], s.frames[-1]
z0 = [p[2] for p in f0[\"position\"]][1:]
z1 = [p[2] for p in f1[\"position\"]][1:]
assert all(a < b for a, b in zip(z1, z0)), \"not falling\"
assert all(-0.06 < p[0] < 0.06 and -0.06 < p[1] < 0.06 and p[2] > 0 for p in f1[\"position\"])
print(min(z1), max(z1))" &&
	set -- $(python3 kinds.py box.mrd) && [ "$4" -gt 0 ] || { echo "no contacts: $*"; false; }'

bad_scene "negative radius" 'shapes:\n  b: {analytic-sphere: {radius: -1}}\n' 'bad.yaml:2:.*radius: must be positive'
bad_scene "missing radius" 'shapes:\n  b: {analytic-sphere: {}}\n' 'bad.yaml:2:.*radius'
bad_scene "two axes" 'shapes:\n  g: {ellipsoid: {axes: [1, 2]}}\n' 'bad.yaml:2:.*axes'
bad_scene "zero axis" 'shapes:\n  g: {ellipsoid: {axes: [1, 0, 2]}}\n' 'bad.yaml:2:.*must be positive'
bad_scene "unknown key" 'shapes:\n  g: {ellipsoid: {axes: [1, 1, 2], radius: 1}}\n' 'bad.yaml:2:.*radius'
bad_scene "two shapes in one" 'shapes:\n  g: {ellipsoid: {axes: [1, 1, 2]}, analytic-sphere: {radius: 1}}\n' 'not both'

cat >badshape.py <<'PY'
import struct, sys
sys.path.insert(0, sys.argv[1])
import mrdem_stream as ms
def shape(kind, axes, id_=0):
    return ms.record(16, struct.pack("<I", id_) + ms.s("b") + struct.pack("<I", kind) + ms.f64s(axes))
bad = {"kind": shape(7, [1, 1, 1]), "axes": shape(2, [1, -1, 1]),
       "sphere": shape(1, [1, 2, 1]), "order": shape(2, [1, 1, 1], 3),
       "short": ms.record(16, struct.pack("<I", 0) + ms.s("b") + struct.pack("<I", 2))}
import gzip
for name, rec in bad.items():
    open("bad-" + name + ".mrd", "wb").write(gzip.compress(ms.finish(ms.HEADER + rec)))
PY

expect_success "bad shape records are refused, naming the record" '
	python3 badshape.py "$TOP/tests/lib" &&
	for k in kind:"unknown shape kind 7" axes:"bad semi-axes" sphere:"bad semi-axes" \
		 order:"shape id 3 out of order" short:"record 0 (shape)"; do
		f=bad-${k%%:*}.mrd m=${k#*:}
		assert_exit 1 mrdem-info "$f" >/dev/null 2>err && assert_grep "$m" err || return 1
	done'

done_testing
