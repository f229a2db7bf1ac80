#!/usr/bin/env python3
"""Checks of tests/e2e/materials.sh on the streams it runs (python/mrdem):

  materials.py same NONE.mrd ONE.mrd      the frames and springs of a scene
                                          without materials and of the same
                                          scene in one material are the same
                                          bits (the material column aside)
  materials.py rebound RUN.mrd E [E...]   particle i, thrown at a plane
                                          without gravity, leaves it at E_i
                                          times its speed (hooke: exact but for the time step)
  materials.py slide RUN.mrd MU [MU...]   particle i, sliding on a plane,
                                          decelerates at MU_i g
  materials.py reader RUN.mrd             the Python reader's materials"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import mrdem  # noqa: E402

COLUMNS = ("id", "shape", "flags", "position", "orientation", "velocity", "angular_velocity",
           "density", "epsilon")


def same(a, b):
    a, b = mrdem.read(a), mrdem.read(b)
    assert len(a.frames) == len(b.frames) > 1, (len(a.frames), len(b.frames))
    for fa, fb in zip(a.frames, b.frames):
        for col in COLUMNS:
            assert repr(fa[col]) == repr(fb[col]), (fa.step, col)
        assert "material" in fb and "material" not in fa
        assert list(fb["material"]) == [0] * fb.n
    assert repr(a.history) == repr(b.history)
    assert a.materials is None and len(b.materials["materials"]) == 1


def rebound(path, *want):
    s = mrdem.read(path)
    first, last = s.frames[0], s.frames[-1]
    for i, e in enumerate(want):
        v0, v1 = first["velocity"][i][2], last["velocity"][i][2]
        assert v0 < 0 < v1, (i, v0, v1)
        assert abs(-v1 / v0 - float(e)) < 1e-3, (i, -v1 / v0, e)


def slide(path, *mu):
    s = mrdem.read(path)
    a, b = s.frames[2], s.frames[8]  # both balls still slide (t < 2 v0 / (7 mu g))
    for i, m in enumerate(mu):
        acc = (b["velocity"][i][0] - a["velocity"][i][0]) / (b.time - a.time)
        want = -float(m) * 9.81
        assert abs(acc / want - 1) < 2e-3, (i, acc, want)


def reader(path):
    m = mrdem.read(path).materials
    names = [x["name"] for x in m["materials"]]
    assert names == ["steel", "rubber", "wood"], names
    assert m["materials"][0]["density"] == 7800 and m["materials"][2]["friction"] == 0.4
    assert m["pairs"] == [{"a": 0, "b": 2, "friction": 0.2}], m["pairs"]
    assert m["planes"] == [2], m["planes"]
    f = mrdem.read(path).frames[-1]
    assert list(f["material"]) == [0, 1], f["material"]
    assert list(f["density"]) == [7800, 1100]


if __name__ == "__main__":
    {"same": same, "rebound": rebound, "slide": slide, "reader": reader}[sys.argv[1]](*sys.argv[2:])
