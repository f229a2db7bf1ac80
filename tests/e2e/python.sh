#!/usr/bin/env bash
# The Python package (python/mrdem): every golden stream read or refused
# as the format says, values equal mrdem-info's, frames of a run followed
# while it is written, the same values with and without numpy.
. "$(dirname "$0")/../lib/test-lib.sh"
G=$TOP/tests/golden
export PYTHONPATH=$TOP/python

# Streams whose damage is in the meaning of values, not in their framing or
# layout: the package reads them (mrdem-info refuses them).
semantic="bad-nan.mrd bad-shape-ref.mrd bad-missing-column.mrd"

expect_success "golden streams: good ones read, framing and layout damage is a StreamError" '
	python3 - "$G" "$semantic" <<PY
import glob, os, sys, mrdem
bad = []
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.mrd"))):
    name = os.path.basename(f)
    refuse = name.startswith("bad-") and name not in sys.argv[2].split()
    try:
        mrdem.read(f)
        if refuse:
            bad.append(name + ": read")
    except mrdem.StreamError as e:
        if not refuse:
            bad.append("%s: %s" % (name, e))
assert not bad, bad
PY'

expect_success "a run read by the package equals mrdem-info --json --full" '
	mrdem-run -q "$TOP/examples/two-spheres.yaml" --steps 1000 --every 100 -o run.mrd &&
	mrdem-info --json --full run.mrd >run.json &&
	python3 - <<PY
import json, mrdem
d = json.load(open("run.json"))["records"]
s = mrdem.read("run.mrd")
F = [r for r in d if r["type"] == "frame"]
assert len(s.frames) == len(F) == 11, len(s.frames)
for f, r in zip(s.frames, F):
    assert f.step == r["step"] and f.time == r["time"]
    for i, p in enumerate(r["state"]):
        assert list(f["position"][i]) == p["position"] and list(f["orientation"][i]) == p["orientation"]
        assert list(f["velocity"][i]) == p["velocity"] and f["id"][i] == p["id"]
C = [r for r in d if r["type"] == "contacts"]
assert [c.n for c in s.contacts] == [r["contacts"] for r in C]
assert sum(c.n for c in s.contacts) > 0
st = [r for r in d if r["type"] == "stats"]
assert [x.values for x in s.stats] == [r["values"] for r in st]
assert s.meta[0]["tool"] == "mrdem-run" and "two-spheres" in s.meta[0]["values"]["scene_file"]
assert s.shapes[0].has_tree and len(s.shapes[0].triangles) == 1280
assert s.setup["scheme"] == "explicit-euler"
PY'

expect_success "frames(follow=True) reads a run while it is written, to its end record" '
	(sleep 0.5; mrdem-run -q "$TOP/examples/two-spheres.yaml" --steps 2000 --every 100 -o live.mrd) &
	python3 - <<PY
import os, signal, time, mrdem
signal.alarm(120)  # a reader that never sees the end fails instead of hanging
while not os.path.exists("live.mrd"):
    time.sleep(0.05)
n = sum(1 for f in mrdem.frames("live.mrd", follow=True, poll=0.05))
assert n == 21, n
PY
	wait'

expect_success "a version 1 stream reads too" '
	python3 -c "
import mrdem
s = mrdem.read(\"$G/v1-scene.mrd\")
assert s.frames[0][\"position\"][1][0] == 2.5 and s.shapes[0].name == \"tet\""'

expect_success "numpy arrays (when numpy is installed) hold the values of the plain lists" '
	if ! python3 -c "import numpy" 2>/dev/null; then echo "numpy not installed: plain lists only"; exit 0; fi
	python3 - <<PY
import subprocess, sys, json
code = "import mrdem, json; s = mrdem.read(\"run.mrd\"); f = s.frames[-1]; print(json.dumps([list(map(list, f[\"position\"])), list(map(int, f[\"id\"]))]))"
a = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
b = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                   env=dict(__import__("os").environ, MRDEM_NO_NUMPY="1")).stdout
assert a == b and a, (a, b)
PY'

# The stream given as bytes: read as from its file; a message names the
# bytes by type and length, never by their content.
expect_success "the stream as bytes: the same records, messages name its type and length" '
	python3 - "$G" <<PY
import os, sys, mrdem
g = lambda name: os.path.join(sys.argv[1], name)
data = open(g("good-concat.mrd"), "rb").read()
for b in (data, bytearray(data), memoryview(data)):
    assert list(mrdem.records(b)) == list(mrdem.records(g("good-concat.mrd")))
    assert len(list(mrdem.frames(b))) == len(mrdem.read(b).frames) == 2
for f in (mrdem.read, lambda b: list(mrdem.frames(b)), lambda b: list(mrdem.records(b))):
    for b, name in ((b"x" * 12345, "bytes of 12,345"), (bytearray(b"x" * 20), "bytearray of 20")):
        try:
            f(b)
            raise AssertionError("read: %r" % b[:20])
        except mrdem.StreamError as e:
            assert str(e) == "<%s bytes>: not an mrdem stream (bad magic at byte 0)" % name, e
    for bad in ("bad-checksum.mrd", "bad-magic.mrd", "bad-empty.mrd"):
        b = open(g(bad), "rb").read()
        try:
            f(b)
            raise AssertionError("read: " + bad)
        except mrdem.StreamError as e:
            want = "<bytes of %s bytes>" % format(len(b), ",")
            assert str(e).startswith(want + ": ") and len(str(e)) < 120, e
for bad in (12, None):
    try:
        mrdem.read(bad)
        raise AssertionError("read: %r" % bad)
    except TypeError as e:
        want = "mrdem: expected a file name or the stream\x27s bytes, got "
        assert str(e) == want + type(bad).__name__, e
PY'

# Free fall with velocity Verlet (exact for a constant force): the frames'
# velocity is g t at their time, the half-step velocity the run resumes
# from g (t - dt/2), and a run resumed from a frame goes on bit for bit.
cat >fall.yaml <<'Y'
shapes: {ball: {sphere: {triangles: 80, radius: 0.5}}}
particles: [{shape: ball, position: [0, 0, 100]}, {shape: ball, position: [5, 0, 100], fixed: true}]
gravity: [0, 0, -10]
contact: {model: hooke, stiffness: 1.0e6, restitution: 0.5}
time: {dt: 1.0e-3, steps: 400}
output: {every: 100}
Y
expect_success "velocity Verlet frames: f[\"velocity\"] at the frame's time, velocity_half half a step back" '
	mrdem-run -q fall.yaml -o fall.mrd && mrdem-run -q fall.yaml --steps 200 -o f1.mrd &&
	mrdem-run -q f1.mrd --steps 200 -o f2.mrd &&
	python3 - <<PY
import mrdem
s = mrdem.read("fall.mrd")
assert s.setup["scheme"] == "velocity-verlet", s.setup["scheme"]
for f in s.frames[1:]:
    vz, hz = f["velocity"][0][2], f["velocity_half"][0][2]
    assert abs(vz + 10 * f.time) < 1e-9 and abs(hz + 10 * (f.time - 5e-4)) < 1e-9, (f.time, vz, hz)
    assert f["flags"][0] == 2 and f["velocity"][1] == (0, 0, 0), f["flags"]
print("# %d frames: v = g t, half-step v = g (t - dt/2)" % (len(s.frames) - 1))
a, b = s.frames[-1], mrdem.read("f2.mrd").frames[-1]
assert a.step == b.step == 400
for col in ("position", "velocity", "angular_velocity", "velocity_half", "angular_velocity_half"):
    assert list(a[col]) == list(b[col]), col
PY'

expect_success "a frame with velocity_half but not angular_velocity_half is refused by the next step" '
	python3 - <<PY &&
import sys
sys.path.insert(0, "$TOP/tests/lib")
import mrdem_stream as ms
ms.write("onehalf.mrd", [(t, p.replace(b"angular_velocity_half", b"angular_velocity_halg"))
                         for t, p in ms.read_stored("f1.mrd")])
PY
	assert_exit 1 mrdem-run -q onehalf.mrd --steps 1 -o x.mrd &&
	assert_grep "frame of step 200: column velocity_half without angular_velocity_half" err && test ! -e x.mrd &&
	assert_exit 1 mrdem-step onehalf.mrd -o y.mrd &&
	assert_grep "column velocity_half without angular_velocity_half" err && test ! -e y.mrd'

done_testing
