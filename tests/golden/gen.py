#!/usr/bin/env python3
"""Write the golden sample streams of tests/golden/ from the specification in
docs/stream-format.md. This is an independent implementation of the format
(Python's struct, zlib and gzip), so the C reader is checked against the
document, not against itself. Run from anywhere; outputs are deterministic
(gzip mtime 0). The files are committed; rerun only when the spec changes."""
import gzip, math, os, struct, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
MAGIC = b"\x89MRDEM\r\n"


def header(version=1, flags=0):
    return MAGIC + struct.pack("<II", version, flags)


def record(rtype, payload, flags=0, crc_fix=0):
    head = struct.pack("<IIQ", rtype, flags, len(payload))
    crc = (zlib.crc32(head + payload) ^ crc_fix) & 0xFFFFFFFF
    return head + payload + struct.pack("<I", crc)


def s(text):
    b = text.encode()
    return struct.pack("<I", len(b)) + b


def f64s(*v):
    return struct.pack("<%dd" % len(v), *v)


def setup(planes=((0, 0, -2, 0, 0, 1),)):
    p = f64s(0, 0, -9.81) + struct.pack("<I", 0) + f64s(1000, 0, 0, 0.01, 1e-4)
    p += struct.pack("<QIQI", 1000, 0, 10, len(planes))
    for pl in planes:
        p += f64s(*pl)
    return p


def tetra_mesh(name="tet"):
    # Unit right tetrahedron: volume 1/6, centre of mass (1/4, 1/4, 1/4),
    # inertia about com (unit density): diagonal 1/80, products 1/480.
    v = (0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1)
    t = (0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3)
    p = struct.pack("<I", 0) + s(name) + struct.pack("<III", 0, 4, 4)
    p += f64s(1 / 6, 0.25, 0.25, 0.25, 1 / 80, 1 / 80, 1 / 80, 1 / 480, 1 / 480, 1 / 480)
    p += f64s(*v) + struct.pack("<12I", *t)
    return p


def frame(n=2, step=0, shape=0, pos_override=None):
    p = struct.pack("<QdQ", step, step * 1e-4, n)
    p += struct.pack("<%dQ" % n, *range(n))
    p += struct.pack("<%dI" % n, *([shape] * n))
    p += struct.pack("<%dI" % n, *([0] * n))
    pos = []
    for i in range(n):
        pos += [2.5 * i, 0.0, 0.0]
    if pos_override:
        pos[0] = pos_override
    p += f64s(*pos)
    p += f64s(*([1.0, 0, 0, 0] * n))
    p += f64s(*([0.5, 0, 0] * n))
    p += f64s(*([0, 0, 0.1] * n))
    p += f64s(*([1.0] * n))
    p += f64s(*([0.01] * n))
    return p


def stats():
    return s("gen.py") + struct.pack("<QI", 0, 2) + s("comparisons") + f64s(1234) + s("contacts") + f64s(3)


def pairs():
    return struct.pack("<QQ", 0, 2) + struct.pack("<QQ", 0, 1) + struct.pack("<QQ", 1, 2**64 - 1)


def contacts():
    c = struct.pack("<QQII", 0, 1, 3, 1) + f64s(1.2, 0, 0, -1, 0, 0, 0.012, 0.008)
    return struct.pack("<QQ", 0, 1) + c


def gz(raw):
    return gzip.compress(raw, compresslevel=6, mtime=0)


def write(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


scene = (header() + record(1, setup()) + record(2, tetra_mesh()) + record(4, frame())
         + record(7, stats()) + record(5, pairs()) + record(6, contacts()))
write("good-scene.mrd", gz(scene))
write("good-mesh.mrd", gz(header() + record(2, tetra_mesh())))
write("good-unknown-type.mrd", gz(scene + record(42, b"from the future")))
write("good-concat.mrd", gz(scene) + gz(header() + record(4, frame(step=1))))
write("good-uncompressed.mrd", scene)
write("good-empty.mrd", gz(header()))

write("bad-magic.mrd", gz(b"\x89MRDEX\r\n" + scene[8:]))
write("bad-version.mrd", gz(header(version=2) + scene[16:]))
write("bad-header-flags.mrd", gz(header(flags=1) + scene[16:]))
write("bad-checksum.mrd", gz(header() + record(1, setup()) + record(2, tetra_mesh(), crc_fix=1)))
write("bad-record-flags.mrd", gz(header() + record(1, setup(), flags=4)))
# Valid framing and checksum, but a payload one f64 longer than its layout.
write("bad-length.mrd", gz(header() + record(1, setup() + f64s(0))))
write("bad-truncated-record.mrd", gz(scene[:-40]))
write("bad-truncated-gzip.mrd", gz(scene)[:-30])
write("bad-gzip.mrd", gz(scene)[:40] + bytes(64) + gz(scene)[104:])
write("bad-nan.mrd", gz(header() + record(2, tetra_mesh()) + record(4, frame(pos_override=math.nan))))
write("bad-shape-ref.mrd", gz(header() + record(2, tetra_mesh()) + record(4, frame(shape=3))))
write("bad-empty.mrd", b"")
write("bad-not-a-stream.mrd", gz(b"solid cube\nfacet normal 0 0 1\n"))
