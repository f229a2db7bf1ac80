#!/usr/bin/env python3
"""Write the known stream that tests/e2e/stats.sh and tests/expect/stats-known.md
check mrdem-stats against: usage: known_scene.py OUT.mrd

One octahedron (r = 0.5, volume 1/6, I = m r^2 / 5) of density 3: m = 1/2.
Frame at step 0: v = (3, 4, 0), w = (0, 0, 2), z = 2; a fixed particle
moving fast is left out. Frame at step 10: v = (0, 0, -1). Stats records
for steps 10 and 5 (no frame) from two sources, one reusing a name.
"""
import gzip
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
import randscene as R  # noqa: E402


def part(i, vel, w, fixed=False):
    return {"id": i, "shape": 0, "fixed": fixed, "pos": [1.0, -1.0, 2.0], "quat": [0.6, 0.8, 0.0, 0.0],
            "vel": vel, "angvel": w, "density": 3.0, "eps": 0.01}


def known_stream():
    oct_ = R.octahedron("ball", 0.5, [0.0, 0.0, 0.0])
    # the plane that the contacts of step 10 name
    s = R.HEADER + R.record(1, R.setup_payload([((0.0, 0.0, 1.5), (0.0, 0.0, 1.0))], 0.01, (0.0, 0.0, -9.81)))
    s += R.record(2, R.mesh_payload(0, oct_))
    s += R.record(4, R.with_columns(R.frame_payload(0, 0.0, [part(7, [3.0, 4.0, 0.0], [0.0, 0.0, 2.0]),
                                                              part(8, [100.0, 0, 0], [0, 0, 50.0], fixed=True)])))
    s += R.record(6, R.contacts_payload(0, []))
    s += R.record(4, R.with_columns(R.frame_payload(10, 0.25, [part(7, [0.0, 0.0, -1.0], [0.0, 0.0, 0.0])])))
    s += R.record(6, R.contacts_payload(10, [{"a": 7, "b": 2**64 - 1, "tri_a": 1, "tri_b": 2**32 - 1,
                                              "x": [0.0] * 3, "normal": [0, 0, 1.0], "dist": 0.0, "depth": 0.01}] * 2))
    s += R.record(7, R.stats_payload("mrdem-contact", 10, [("comparisons_level0", 64.0), ("fallbacks", 1.0)]))
    s += R.record(7, R.stats_payload("mrdem-contact", 5, [("comparisons_level0", 8.0)]))
    s += R.record(7, R.stats_payload("mrdem-step", 5, [("fallbacks", 2.0)]))
    return gzip.compress(R.finish(s))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    open(sys.argv[1], "wb").write(known_stream())
