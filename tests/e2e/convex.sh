#!/usr/bin/env bash
# Convex shapes through the tools: rocks given as a (non-convex) mesh file
# and as points, on a plane, against a mesh, a sphere and each other, go
# through mrdem-init | mrdem-tree | mrdem-pairs | mrdem-contact; mrdem-run
# gives the same bytes in process (features tracked from step to step) and
# --via-pipes (every step cold) and with 1 or 2 threads; the same scene
# with the hulls given as plain meshes gives the very same frames and
# contacts (the tracking never calls a pair apart that the triangle search
# finds in contact); mrdem-info, mrdem-vtk and the Python reader know the
# kind; bad scenes and shape records are refused.
. "$(dirname "$0")/../lib/test-lib.sh"

# rock.obj: an icosahedron with one vertex pushed in (not convex)
python3 - <<'PY'
t = (1 + 5 ** 0.5) / 2
V = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t), (0, -1, -t),
     (0, 1, -t), (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]
F = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4),
     (11, 10, 2), (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9),
     (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]
s = 0.006 / (1 + t * t) ** 0.5
V = [tuple(c * s for c in v) for v in V]
V[0] = tuple(0.3 * c for c in V[0])
with open("rock.obj", "w") as f:
    f.writelines("v %.17g %.17g %.17g\n" % v for v in V)
    f.writelines("f %d %d %d\n" % (a + 1, b + 1, c + 1) for a, b, c in F)
PY

# Every kind of pair in contact from the start, some deep (allow_overlap).
cat >rocks.yaml <<'Y'
shapes:
  rock: {convex: {mesh: rock.obj}}
  chip: {convex: {points: [[0.004, 0, 0], [-0.003, 0.003, 0], [-0.002, -0.004, 0.001], [0, 0.001, 0.005], [0.001, -0.001, -0.004], [0.002, 0.003, -0.002], [0, 0, 0]]}}
  ball: {analytic-sphere: {radius: 0.005}}
  block: {box: {size: [0.03, 0.03, 0.01], divisions: 2}}
particles:
  - {shape: block, position: [0.03, 0, 0.005], fixed: true, epsilon_abs: 0.0002}
  - {shape: rock, position: [0, 0, 0.0053], orientation: [0.9238795, 0.3826834, 0, 0], velocity: [0.05, 0, -0.1], angular_velocity: [0, 3, 1], density: 2500, epsilon_abs: 0.0002}
  - {shape: chip, position: [0.0078, 0.002, 0.0052], velocity: [-0.05, 0, 0], angular_velocity: [2, 0, 0], density: 2500, epsilon_abs: 0.0002}
  - {shape: ball, position: [-0.0104, 0, 0.0055], velocity: [0.1, 0, 0], density: 2500, epsilon_abs: 0.0002}
  - {shape: rock, position: [0.03, 0, 0.0154], velocity: [0, 0, -0.2], angular_velocity: [1, 2, 3], density: 2500, epsilon_abs: 0.0002}
  - {shape: chip, position: [-0.02, 0.02, 0.0045], angular_velocity: [0, 0, 5], density: 2500, epsilon_abs: 0.0002}
  - {shape: chip, position: [-0.0128, 0.02, 0.0045], velocity: [-0.1, 0, 0], density: 2500, epsilon_abs: 0.0002}
planes:
  - {point: [0, 0, 0], normal: [0, 0, 1]}
gravity: [0, 0, -9.81]
contact: {model: hooke, stiffness: 2000, restitution: 0.5, friction: 0.3, plane_epsilon: 0.0002, allow_overlap: true}
time: {dt: 2.0e-5, steps: 40, scheme: velocity-verlet}
output: {every: 20}
Y

cat >pairs.py <<'PY'
import json, subprocess, sys
d = json.loads(subprocess.run(["mrdem-info", "--json", "--full", sys.argv[1]], capture_output=True,
                              text=True, check=True).stdout)
C = [r for r in d["records"] if r["type"] == "contacts"]
S = [r["values"] for r in d["records"] if r["type"] == "stats" and "convex_pairs" in r["values"]]
P = 2**64 - 1
pairs = {(k["a"], k["b"]) for c in C for k in c["list"]}
print(d["counts"]["shape"], d["counts"]["mesh"], d["counts"]["tree"],
      sum(s["convex_pairs"] for s in S), sum(s["convex_apart"] for s in S))
print(" ".join("%d-%s" % (a, "plane" if b == P else b) for a, b in sorted(pairs)))
PY

expect_success "the tools' pipeline takes convex rocks with a mesh, a sphere and a plane; a non-convex mesh file becomes its hull, with a warning" '
	mrdem-init rocks.yaml 2>err | mrdem-tree | mrdem-pairs | mrdem-contact >c.mrd &&
	assert_grep "rock.obj. is not convex (volume 4.519.*e-07, its hull.s 4.721.*e-07): the shape is its hull" err &&
	mrdem-step c.mrd >s.mrd &&
	python3 pairs.py c.mrd >p.txt && set -- $(head -1 p.txt) &&
	assert_eq "$1 $2 $3" "3 3 3" "shape, mesh and tree records" &&
	assert_grep "0-4 1-3 1-plane" p.txt'

expect_success "mrdem-run: convex-convex, convex-mesh, convex-sphere and convex-plane contacts; tracking calls pairs apart, and the summary says how" '
	mrdem-run rocks.yaml -o inproc.mrd 2>err &&
	assert_grep "convex pairs: 2 per step, .* apart by closest-feature tracking, .* walk steps per pair" err &&
	python3 pairs.py inproc.mrd >p.txt && cat p.txt &&
	assert_grep "0-4 1-2 1-3 1-plane" p.txt &&
	set -- $(head -1 p.txt) && [ "$4" -gt 0 ] && [ "$5" -gt 0 ] && [ "$5" -lt "$4" ]'

expect_success "mrdem-run: the same bytes in process and --via-pipes, and with 1 or 2 threads" '
	mrdem-run -q rocks.yaml --via-pipes -o pipes.mrd 2>/dev/null &&
	same_stream inproc.mrd pipes.mrd &&
	OMP_NUM_THREADS=1 mrdem-run -q rocks.yaml -o t1.mrd 2>/dev/null &&
	OMP_NUM_THREADS=2 mrdem-run -q rocks.yaml -o t2.mrd 2>/dev/null &&
	same_stream t1.mrd t2.mrd && same_stream inproc.mrd t1.mrd'

cat >same_physics.py <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import mrdem_stream as ms
def kept(path):  # meshes, frames, contacts, springs
    return [(t, p) for t, p in ms.read(path) if t in (2, 4, 6, 15)]
a, b = kept(sys.argv[2]), kept(sys.argv[3])
assert len(a) == len(b), (len(a), len(b))
for k, (x, y) in enumerate(zip(a, b)):
    assert x == y, "record %d (type %d) differs" % (k, x[0])
print(len(a), "records the same,", sum(t == 6 for t, _ in a), "contacts records")
PY

expect_success "the hulls as plain meshes give the very same meshes, frames, contacts and springs" '
	mrdem-init rocks.yaml -o init.mrd 2>/dev/null &&
	mrdem-mesh export --format obj --shape rock init.mrd -o rock-hull.obj &&
	mrdem-mesh export --format obj --shape chip init.mrd -o chip-hull.obj &&
	sed -e "s/rock: {convex: {mesh: rock.obj}}/rock: {mesh: rock-hull.obj}/" \
	    -e "s/chip: {convex: {points: .*\$/chip: {mesh: chip-hull.obj}/" rocks.yaml >meshes.yaml &&
	! grep -q convex meshes.yaml &&
	mrdem-run -q meshes.yaml -o meshes.mrd &&
	python3 same_physics.py "$TOP/tests/lib" inproc.mrd meshes.mrd'

expect_success "mrdem-info describes convex shapes (text and JSON)" '
	mrdem-info init.mrd >info.txt &&
	assert_grep "shape 0 .rock.: 11 vertices, 18 triangles, closed" info.txt &&
	assert_grep "shape 0 .rock.: convex polyhedron (the mesh above), 11 vertices, 25 edges, 16 faces" info.txt &&
	assert_grep "shape 1 .chip.: convex polyhedron (the mesh above), 6 vertices, 12 edges, 8 faces" info.txt &&
	checks assert init.mrd "
s = of(\"shape\")
assert [x[\"kind\"] for x in s] == [\"convex\", \"convex\", \"analytic-sphere\"], s
assert (s[1][\"vertices\"], s[1][\"edges\"], s[1][\"faces\"]) == (6, 12, 8), s[1]"'

expect_success "mrdem-vtk draws a convex shape as its hull" '
	mrdem-vtk -o vtk inproc.mrd &&
	assert_grep "NumberOfPolys=\"18\"" vtk/shape-000.vtp &&
	assert_grep "NumberOfPolys=\"8\"" vtk/shape-001.vtp'

expect_success "the Python reader knows the convex kind" '
	PYTHONPATH=$TOP/python python3 -c "
import mrdem
s = mrdem.read(\"init.mrd\")
assert [x.kind for x in s.shapes] == [\"convex\", \"convex\", \"analytic-sphere\", \"mesh\"], s.shapes
assert len(s.shapes[0].triangles) == 18 and len(s.shapes[1].vertices) == 6
print(s.shapes[0].volume)"'

bad_scene "missing file" 'shapes:\n  r: {convex: {mesh: nothere.obj}}\n' 'bad.yaml:2:.*mesh file .nothere.obj.: No such file or directory'
bad_scene "three points" 'shapes:\n  r: {convex: {points: [[0, 0, 0], [1, 0, 0], [0, 1, 0]]}}\n' '3 points, a convex hull needs at least 4'
bad_scene "three points, its line" 'shapes:\n  r: {convex: {points: [[0, 0, 0], [1, 0, 0], [0, 1, 0]]}}\n' 'bad.yaml:2:15: shapes.r.convex.points: no convex polyhedron'
bad_scene "coplanar points" 'shapes:\n  r: {convex: {points: [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0], [2, 3, 0]]}}\n' 'shapes.r.convex.points: all points are coplanar'
bad_scene "non-finite point" 'shapes:\n  r: {convex: {points: [[0, 0, 0], [1, 0, 0], [0, 1, .nan], [0, 0, 1]]}}\n' 'bad.yaml:2:.*points\[2\]\[2\]'
bad_scene "not a point" 'shapes:\n  r: {convex: {points: [[0, 0, 0], [1, 0]]}}\n' 'bad.yaml:2:.*points\[1\]: expected 3 numbers'
bad_scene "mesh and points" 'shapes:\n  r: {convex: {mesh: rock.obj, points: [[0, 0, 0]]}}\n' 'bad.yaml:2:.*points'
bad_scene "neither" 'shapes:\n  r: {convex: {}}\n' 'bad.yaml:2:.*give the polyhedron as .mesh.'
bad_scene "convex and mesh" 'shapes:\n  r: {convex: {mesh: rock.obj}, mesh: rock.obj}\n' 'not both'

cat >badconvex.py <<'PY'
import gzip, struct, sys
sys.path.insert(0, sys.argv[1])
import mrdem_stream as ms
def mesh_of(path):
    (payload,) = [p for t, p in ms.read(path) if t == 2]
    (n,) = struct.unpack_from("<I", payload, 4)
    return ms.record(2, payload), payload[8:8 + n].decode()
def shape(kind, axes, id_, name):
    return ms.record(16, struct.pack("<I", id_) + ms.s(name) + struct.pack("<I", kind) + ms.f64s(axes))
box, bname = mesh_of("box.mrd")
noisy, nname = mesh_of("noisy.mrd")
bad = {"noncon": noisy + shape(3, [0, 0, 0], 0, nname),
       "orphan": shape(3, [0, 0, 0], 0, "b"),
       "axes": box + shape(3, [1, 0, 0], 0, bname),
       "other": box + shape(3, [0, 0, 0], 0, "other")}
for name, recs in bad.items():
    open("bad-" + name + ".mrd", "wb").write(gzip.compress(ms.finish(ms.HEADER + recs)))
good = box + shape(3, [0, 0, 0], 0, bname)
open("good-box.mrd", "wb").write(gzip.compress(ms.finish(ms.HEADER + good)))
PY

expect_success "convex shape records are checked: after their mesh, a convex mesh, zero semi-axes" '
	mrdem-mesh box --size 1 2 3 --divisions 2 -o box.mrd && mrdem-mesh sphere --triangles 80 --noise 1.3 -o noisy.mrd &&
	python3 badconvex.py "$TOP/tests/lib" &&
	mrdem-info good-box.mrd | grep -q "convex polyhedron (the mesh above), 20 vertices, 24 edges, 6 faces" &&
	for k in noncon:"not convex: at edge" orphan:"does not follow the mesh record" \
		 axes:"semi-axes are reserved and must be zero" other:"does not follow the mesh record"; do
		f=bad-${k%%:*}.mrd m=${k#*:}
		assert_exit 1 mrdem-info "$f" >/dev/null 2>err && assert_grep "$m" err &&
		assert_grep "record [01] (shape)" err || return 1
	done'

done_testing
