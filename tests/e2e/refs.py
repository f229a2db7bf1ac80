#!/usr/bin/env python3
"""Bad inputs for tests/e2e/refs.sh: a copy of a stream with one value of
its contacts, history or frame records changed (mrdem_stream.py).

  refs.py WHAT IN OUT

WHAT: tri (contact 0's tri_a 1000000), plane-tri (tri_b 5 on a plane),
plane (b names plane 7), ghost (contact 0's a is id 77), nan (contact 0's
normal NaN), spring (spring 0's a is id 77), fast (particle 0's velocity
1e308), far DIST (contact 0 at distance DIST, depth to match)."""
import os, struct, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import mrdem_stream as m  # noqa: E402

# a contact: a u64, b u64, tri_a u32, tri_b u32, x f64[3], normal f64[3], dist, depth
A, B, TRI_A, TRI_B, NORMAL, DIST = 16, 24, 32, 36, 64, 88


def put(p, at, fmt, *v):
    return p[:at] + struct.pack(fmt, *v) + p[at + struct.calcsize(fmt):]


def main(what, src, dst, arg=None):
    def edit(t, p):
        if t == 6 and what == "tri":
            return put(p, TRI_A, "<I", 1000000)
        if t == 6 and what == "plane-tri":
            return put(p, TRI_B, "<I", 5)
        if t == 6 and what == "plane":
            return put(p, B, "<Q", m.PLANE_ID(7))
        if t == 6 and what == "ghost":
            return put(p, A, "<Q", 77)
        if t == 6 and what == "nan":
            return put(p, NORMAL, "<d", float("nan"))
        if t == 6 and what == "far":
            halo = struct.unpack_from("<d", p, DIST)[0] + struct.unpack_from("<d", p, DIST + 8)[0]
            return put(p, DIST, "<dd", float(arg), halo - float(arg))
        if t == 15 and what == "spring":
            return put(p, A, "<Q", 77)
        if t == 4 and what == "fast":
            return m.set_particle(p, "velocity", 0, [1e308, 0, 0])
        return p
    m.rewrite(src, dst, edit)


if __name__ == "__main__":
    main(*sys.argv[1:])
