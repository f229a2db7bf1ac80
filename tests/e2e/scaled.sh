#!/usr/bin/env bash
# Sized shapes (docs/scene.md "scale", docs/stream-format.md "18
# scaled_shape"): a shape scaled on a particle or a lattice is the shape
# of that size, natively built (the same trajectory); the stream carries it
# as a scaled_shape record, which every tool, the driver through pipes, a
# resumed run and the Python reader take; only base trees are built.
. "$(dirname "$0")/../lib/test-lib.sh"
export PYTHONPATH="$TOP/python${PYTHONPATH:+:$PYTHONPATH}"

frames() {
	checks info "$1" "(lambda F, C: ($2))(of(\"frame\"), of(\"contacts\"))"
}

# Mesh balls of radius 0.4 and analytic ones of 0.5, scaled on particles
# and on a lattice, all touching or about to.
cat >scene.yaml <<'Y'
shapes:
  ball: {sphere: {triangles: 320, radius: 0.4, noise: 1.05, seed: 3}}
  orb: {analytic-sphere: {radius: 0.5}}
  brick: {box: {size: [0.4, 0.3, 0.2]}}
particles:
  - {shape: ball, scale: 2.5, position: [-1.08, 0, 0], velocity: [2, 0, 0]}
  - {shape: ball, scale: 2.5, position: [1.08, 0.2, 0], velocity: [-2, 0, 0]}
  - {shape: orb, scale: 0.5, position: [0, 1.6, 0], velocity: [0, -3, 0]}
  - {shape: brick, scale: 3, position: [0, -2.2, 0], fixed: true}
  - lattice: {shape: ball, scale: 0.5, origin: [-0.5, -1.47, 0], count: [3, 1, 1], spacing: 0.45,
              velocity: [0, -1, 0]}
gravity: [0, 0, 0]
contact: {model: paper, epsilon: 0.02, stiffness: 1000}
time: {dt: 1.0e-3, steps: 40, scheme: velocity-verlet}
output: {every: 10}
Y

expect_success "mrdem-init writes one scaled_shape record per (shape, scale), after their bases" '
	mrdem-init scene.yaml -o s.mrd &&
	assert_eq "$(checks info s.mrd "[(r[\"type\"], r.get(\"name\"), r.get(\"base\"), r.get(\"scale\")) for r in of(\"mesh\", \"shape\", \"scaled_shape\")]")" \
		"[('"'"'mesh'"'"', '"'"'ball'"'"', None, None), ('"'"'shape'"'"', '"'"'orb'"'"', None, None), ('"'"'mesh'"'"', '"'"'brick'"'"', None, None), ('"'"'scaled_shape'"'"', '"'"'ball*2.5'"'"', 0, 2.5), ('"'"'scaled_shape'"'"', '"'"'orb*0.5'"'"', 1, 0.5), ('"'"'scaled_shape'"'"', '"'"'brick*3'"'"', 2, 3), ('"'"'scaled_shape'"'"', '"'"'ball*0.5'"'"', 0, 0.5)]" records &&
	mrdem-info s.mrd >info.txt &&
	assert_grep "shape 3 is shape 0 scaled by 2.5:" info.txt &&
	assert_grep "shape 4 .orb\*0.5.: analytic sphere, radius 0.25" info.txt'

expect_success "a relative epsilon is of the scaled diameter" '
	python3 - s.mrd <<"PY"
import math, sys, mrdem
s = mrdem.read(sys.argv[1])
f = s.frames[-1]
for i in range(f.n):
    sh = s.shapes[f["shape"][i]]
    if sh.axes is not None:
        d = 2 * max(sh.axes)
    else:
        d = 2 * max(math.dist(v, sh.com) for v in sh.vertices)
    assert abs(f["epsilon"][i] - 0.02 * d) <= 1e-12 * d, (i, f["epsilon"][i], d)
PY'

for scheme in explicit-euler symplectic-euler velocity-verlet implicit-euler; do
	expect_success "$scheme: --via-pipes gives the in-process bytes with scaled shapes" '
		sed "s/velocity-verlet/'$scheme'/" scene.yaml >'$scheme'.yaml &&
		mrdem-run -q '$scheme'.yaml -o in.mrd &&
		mrdem-run -q '$scheme'.yaml --via-pipes -o pipes.mrd &&
		same_stream in.mrd pipes.mrd &&
		assert_eq "$(frames in.mrd "sum(c[\"contacts\"] for c in C) > 0")" True contacts'
done

expect_success "implicit-euler, multiscale search (fronts of scaled trees): --via-pipes gives the in-process bytes" '
	grep -v orb implicit-euler.yaml >meshes.yaml &&
	mrdem-run -q meshes.yaml --hierarchy multiscale -o in.mrd &&
	mrdem-run -q meshes.yaml --hierarchy multiscale --via-pipes -o pipes.mrd &&
	same_stream in.mrd pipes.mrd'

# Scaled analytic spheres are spheres of their radius to the fast path.
cat >spheres.yaml <<'Y'
shapes:
  orb: {analytic-sphere: {radius: 0.5}}
particles:
  - lattice: {shape: orb, scale: 0.2, origin: [0, 0, 0.3], count: [4, 4, 4], spacing: 0.25, jitter: 0.02, seed: 3}
  - lattice: {shape: orb, origin: [0, 0, 2], count: [2, 2, 1], spacing: 1.2}
planes:
  - {point: [0, 0, 0], normal: [0, 0, 1]}
gravity: [0, 0, -9.81]
contact: {model: spring-dashpot, stiffness: 1.0e5, damping: 10, friction: 0.3}
time: {dt: 1.0e-4, steps: 400, scheme: velocity-verlet}
output: {every: 100}
Y
expect_success "--fast-spheres runs scaled analytic spheres as the general path does" '
	mrdem-run -q spheres.yaml --fast-spheres -o fast.mrd &&
	mrdem-run -q spheres.yaml -o general.mrd &&
	assert_eq "$(checks info fast.mrd "len(of(\"scaled_shape\"))")" 1 "scaled shapes" &&
	python3 - fast.mrd general.mrd <<"PY"
import sys, mrdem
a, b = (mrdem.read(p).frames[-1] for p in sys.argv[1:3])
d = max(abs(x - y) for r, s in zip(a["position"], b["position"]) for x, y in zip(r, s))
assert d < 1e-9, d
PY'

expect_success "a run resumed from its output ends where one long run ends" '
	mrdem-run -q scene.yaml --steps 20 --every 10 -o first.mrd &&
	mrdem-run -q first.mrd --steps 20 --every 10 -o second.mrd &&
	mrdem-run -q scene.yaml --steps 40 --every 10 -o long.mrd &&
	assert_eq "$(frames second.mrd "F[-1][\"step\"], F[-1][\"state\"]")" \
		"$(frames long.mrd "F[-1][\"step\"], F[-1][\"state\"]")" resumed &&
	assert_eq "$(checks info second.mrd "len(of(\"scaled_shape\"))")" 4 "scaled shapes carried on"'

expect_success "mrdem-tree builds and writes base trees only; the scaled trees verify conservative" '
	mrdem-tree --verify -v s.mrd -o t.mrd 2>tree.err &&
	assert_eq "$(checks info t.mrd "[r[\"shape\"] for r in of(\"tree\")]")" "[0, 2]" "trees of shapes" &&
	assert_grep "2 tree(s) built" tree.err &&
	assert_grep "shape 3 .ball\*2.5.: .* verified conservative" tree.err &&
	assert_grep "shape 6 .ball\*0.5.: .* verified conservative" tree.err &&
	mrdem-tree --verify t.mrd -o t2.mrd 2>/dev/null && same_stream t.mrd t2.mrd &&
	mrdem-run -q t.mrd --steps 10 --every 10 -o tr.mrd &&
	mrdem-run -q scene.yaml --steps 10 --every 10 -o sr.mrd &&
	assert_eq "$(frames tr.mrd "F[-1][\"state\"]")" "$(frames sr.mrd "F[-1][\"state\"]")" "trees from the stream"'

# The same collision with radius-2 balls built natively and made of radius
# 0.8 ones (analytic: 1 scaled by 2), scaled by 2.5: the same trajectory.
collision() { # shape-line scale
	cat <<Y
shapes:
  b: $1
particles:
  - {shape: b, scale: $2, position: [-2.03, 0, 0], velocity: [1.0, 0, 0]}
  - {shape: b, scale: $2, position: [2.03, 0.4, 0], velocity: [-0.5, 0, 0], angular_velocity: [0, 0, 1]}
gravity: [0, 0, 0]
contact: {model: spring-dashpot, epsilon_abs: 0.04, stiffness: 1.0e4, damping: 5, friction: 0.3}
time: {dt: 2.0e-4, steps: 800, scheme: velocity-verlet}
output: {every: 100}
Y
}
gap='"max(abs(a - b) for fa, fb in zip(F, G) for pa, pb in zip(fa[\"state\"], fb[\"state\"]) for k in (\"position\", \"velocity\", \"angular_velocity\") for a, b in zip(pa[k], pb[k]))"'
for kind in "analytic-sphere: {radius: R}" "sphere: {triangles: 1280, radius: R}"; do
	expect_success "${kind%%:*}: a collision at scale 2.5 follows the natively built radius-2 one to 1e-12" '
		collision "{'"${kind/R/2.0}"'}" 1 >native.yaml &&
		collision "{'"${kind/R/0.8}"'}" 2.5 >scaled.yaml &&
		mrdem-run -q native.yaml -o native.mrd && mrdem-run -q scaled.yaml -o scaled.mrd &&
		python3 - native.mrd scaled.mrd <<"PY"
import sys, mrdem
F, G = (mrdem.read(p).frames for p in sys.argv[1:3])
assert len(F) == len(G) == 9
d = max(abs(a - b) for fa, fb in zip(F, G)
        for k in ("position", "velocity", "angular_velocity")
        for ra, rb in zip(fa[k], fb[k]) for a, b in zip(ra, rb))
v = abs(F[-1]["velocity"][0][0] - 1.0)
print("largest difference %.3g, velocity change %.3g" % (d, v))
assert v > 0.1, "no collision"
assert d < 1e-12, d
PY'
done

# Two touching noisy balls, natively of radius 1 and of 0.4 scaled by 2.5:
# the tools find the same contacts (pairs of triangles, points, distances).
touching() { # shape-line scale
	cat <<Y
shapes:
  b: $1
particles:
  - {shape: b, scale: $2, position: [-1.005, 0, 0]}
  - {shape: b, scale: $2, position: [1.005, 0.3, 0.1], orientation: [0.9, 0.3, 0.3, 0.1]}
contact: {model: paper, epsilon_abs: 0.02, stiffness: 1000, allow_overlap: true}
Y
}
expect_success "contacts of scaled noisy balls are those of natively built ones, to 1e-12" '
	touching "{sphere: {triangles: 1280, radius: 1.0, noise: 1.02, seed: 2}}" 1 >tn.yaml &&
	touching "{sphere: {triangles: 1280, radius: 0.4, noise: 1.02, seed: 2}}" 2.5 >ts.yaml &&
	for x in tn ts; do
		mrdem-init $x.yaml | mrdem-tree | mrdem-pairs | mrdem-contact >$x.mrd || return 1
	done &&
	python3 - tn.mrd ts.mrd <<"PY"
import sys, mrdem
a, b = (mrdem.read(p).contacts[-1] for p in sys.argv[1:3])
ka = sorted(zip(a.a, a.b, a.tri_a, a.tri_b, map(tuple, a.x), a.dist))
kb = sorted(zip(b.a, b.b, b.tri_a, b.tri_b, map(tuple, b.x), b.dist))
assert a.n > 5 and [k[:4] for k in ka] == [k[:4] for k in kb], (a.n, b.n)
d = max(max(max(abs(p - q) for p, q in zip(u[4], v[4])), abs(u[5] - v[5])) for u, v in zip(ka, kb))
assert d < 1e-12, d
PY'

expect_success "mrdem-vtk draws scaled shapes at their size" '
	mrdem-vtk --ascii s.mrd -o vtk &&
	python3 - s.mrd vtk <<"PY"
import math, re, sys, mrdem
s = mrdem.read(sys.argv[1])
for sh in s.shapes:
    text = open("%s/shape-%03d.vtp" % (sys.argv[2], sh.id)).read()
    pts = re.search(r"Name=\"Points\"[^>]*>([^<]*)<", text).group(1).split()
    r = max(math.hypot(*map(float, pts[k:k + 3])) for k in range(0, len(pts), 3))
    want = max(sh.axes) if sh.axes is not None else \
        max(math.dist(v, sh.com) for v in sh.vertices)
    # analytic kinds are drawn as a tessellation on their surface
    assert abs(r - want) <= 1e-9 * want, (sh.name, r, want)
PY'

expect_success "the Python reader derives scaled shapes from their bases, as mrdem-info does" '
	mrdem-info --json --full s.mrd >s.json &&
	python3 - s.mrd s.json <<"PY"
import json, sys, mrdem
s = mrdem.read(sys.argv[1])
for r in json.load(open(sys.argv[2]))["records"]:
    if r["type"] == "scaled_shape":
        x = s.shapes[r["id"]]
        assert (x.name, x.base, x.scale) == (r["name"], r["base"], r["scale"]), r["name"]
        assert x.volume == r["volume"] and list(x.inertia) == r["inertia"], r["name"]
        assert list(x.com) == r["com"], r["name"]
b, x = s.shapes[0], s.shapes[3]
assert (x.name, x.base, x.scale, x.kind) == ("ball*2.5", 0, 2.5, "mesh")
assert abs(x.volume - b.volume * 2.5 ** 3) <= 1e-15 * x.volume
assert abs(x.inertia[0] - b.inertia[0] * 2.5 ** 5) <= 1e-15 * x.inertia[0]
assert max(abs(p - 2.5 * q) for u, v in zip(x.vertices, b.vertices) for p, q in zip(u, v)) == 0
o = s.shapes[4]
assert o.kind == "analytic-sphere" and tuple(o.axes) == (0.25, 0.25, 0.25)
PY'

bad_scene "scale 0" 'shapes:\n  b: {analytic-sphere: {radius: 1}}\nparticles:\n  - {shape: b, scale: 0, position: [0, 0, 0]}\n' \
	"bad.yaml:4:23: particles\[0\].scale: must be positive, got 0"
bad_scene "negative scale on a lattice" 'shapes:\n  b: {analytic-sphere: {radius: 1}}\nparticles:\n  - lattice: {shape: b, scale: -2, origin: [0, 0, 0], count: [2, 1, 1], spacing: 3}\n' \
	"bad.yaml:4:.*particles\[0\].lattice.scale: must be positive, got -2"
bad_scene "scale nan" 'shapes:\n  b: {analytic-sphere: {radius: 1}}\nparticles:\n  - {shape: b, scale: .nan, position: [0, 0, 0]}\n' \
	"bad.yaml:4:23: particles\[0\].scale: not a finite number"
bad_scene "scale beyond double precision" 'shapes:\n  b: {analytic-sphere: {radius: 1}}\nparticles:\n  - {shape: b, scale: 1e200, position: [0, 0, 0]}\n' \
	"bad.yaml:4:23: particles\[0\].scale: scale 1e+200 of shape .b. gives a size, volume or inertia beyond double precision"
bad_scene "a scaled shape name is no shape name" 'shapes:\n  b: {analytic-sphere: {radius: 1}}\nparticles:\n  - {shape: b, scale: 2, position: [0, 0, 0]}\n  - {shape: b*2, position: [5, 0, 0]}\n' \
	"bad.yaml:5:.*particles\[1\].shape: unknown shape .b\*2. (defined: b)"

# edit IN OUT OFFSET FORMAT VALUE: the first scaled_shape record's payload
# changed at OFFSET (negative: from its end).
edit() {
	python3 - "$@" <<"PY"
import gzip, os, struct, sys
sys.path.insert(0, os.path.join(os.environ["TOP"], "tests", "lib"))
import mrdem_stream as ms
src, dst, off, fmt, value = sys.argv[1:6]
data = gzip.decompress(open(src, "rb").read())
out, done = ms.HEADER, False
for t, payload in ms._walk(data[16:]):
    if t in (ms.INDEX, ms.END):
        continue
    if t == 18 and not done:
        p = bytearray(payload)
        struct.pack_into("<" + fmt, p, int(off) % len(p), float(value) if fmt == "d" else int(value))
        payload, done = bytes(p), True
    out += ms.record(t, payload)
open(dst, "wb").write(gzip.compress(ms.finish(out)))
PY
}
for c in "-8 d 0:scale 0 is not a finite factor > 0" "-8 d -1:scale -1 is not a finite factor > 0" \
	"-12 I 3:base shape 3 is not a smaller id" "0 I 9:shape id 9 out of order"; do
	set -- ${c%%:*}
	expect_success "a scaled_shape record with $1 $2 $3 is refused: ${c#*:}" '
		edit s.mrd bad.mrd '"$1 $2 $3"' &&
		assert_exit 1 mrdem-info bad.mrd >/dev/null &&
		assert_grep "record 5 (scaled_shape) at byte [0-9]*: .*'"${c#*:}"'" err'
done

done_testing
