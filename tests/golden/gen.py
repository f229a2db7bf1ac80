#!/usr/bin/env python3
"""Write the golden sample streams (format version 2) of tests/golden/ from
the specification in docs/stream-format.md. This is an independent implementation of the format
(Python's struct, zlib and gzip), so the C reader is checked against the
document, not against itself. Run from anywhere; outputs are deterministic
(gzip mtime 0). The files are committed; rerun only when the spec changes.
Usage: gen.py [OUTDIR]"""
import gzip, math, os, struct, sys, zlib

# Into this folder, or the folder given (tests/e2e/stream.sh regenerates
# into a scratch folder and compares byte for byte).
HERE = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
MAGIC = b"\x89MRDEM\r\n"


ANCILLARY = {7, 8, 9}  # stats, meta, index; the rest are critical


def header(version=2, flags=0):
    return MAGIC + struct.pack("<II", version, flags)


def record(rtype, payload, flags=None, crc_fix=0):
    if flags is None:
        flags = 1 if rtype in ANCILLARY else 0
    head = struct.pack("<IIQ", rtype, flags, len(payload))
    crc = (zlib.crc32(head + payload) ^ crc_fix) & 0xFFFFFFFF
    return head + payload + struct.pack("<I", crc)


def s(text):
    b = text.encode()
    return struct.pack("<I", len(b)) + b


def f64s(*v):
    return struct.pack("<%dd" % len(v), *v)


def setup_with(planes=((0, 0, -2, 0, 0, 1),), model=0, scheme=0):
    p = f64s(0, 0, -9.81) + struct.pack("<I", model) + f64s(1000, 0, 0, 0.01, 1e-4)
    p += struct.pack("<QIQI", 1000, scheme, 10, len(planes))
    for pl in planes:
        p += f64s(*pl)
    return p


def setup(planes=((0, 0, -2, 0, 0, 1),)):
    return setup_with(planes)


def tetra_mesh(name="tet"):
    # Unit right tetrahedron: volume 1/6, centre of mass (1/4, 1/4, 1/4),
    # inertia about com (unit density): diagonal 1/80, products 1/480.
    v = (0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1)
    t = (0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3)
    p = struct.pack("<I", 0) + s(name) + struct.pack("<III", 0, 4, 4)
    p += f64s(1 / 6, 0.25, 0.25, 0.25, 1 / 80, 1 / 80, 1 / 80, 1 / 480, 1 / 480, 1 / 480)
    p += f64s(*v) + struct.pack("<12I", *t)
    return p


COLUMNS = [("id", 2, 1), ("shape", 1, 1), ("flags", 1, 1), ("position", 3, 3),
           ("orientation", 3, 4), ("velocity", 3, 3), ("angular_velocity", 3, 3),
           ("density", 3, 1), ("epsilon", 3, 1)]


def frame(n=2, step=0, shape=0, pos_override=None, extra=None, v1=False, drop=None):
    """A frame: self-describing columns (version 2) or the fixed layout of
    version 1; extra is (name, type, components, payload bytes); drop leaves
    a column out."""
    pos = []
    for i in range(n):
        pos += [2.5 * i, 0.0, 0.0]
    if pos_override:
        pos[0] = pos_override
    data = {
        "id": struct.pack("<%dQ" % n, *range(n)),
        "shape": struct.pack("<%dI" % n, *([shape] * n)),
        "flags": struct.pack("<%dI" % n, *([0] * n)),
        "position": f64s(*pos),
        "orientation": f64s(*([1.0, 0, 0, 0] * n)),
        "velocity": f64s(*([0.5, 0, 0] * n)),
        "angular_velocity": f64s(*([0, 0, 0.1] * n)),
        "density": f64s(*([1.0] * n)),
        "epsilon": f64s(*([0.01] * n)),
    }
    cols = [c for c in COLUMNS if c[0] != drop]
    p = struct.pack("<QdQ", step, step * 1e-4, n)
    if not v1:
        p += struct.pack("<I", len(cols) + (1 if extra else 0))
        for name, t, k in cols + ([extra[:3]] if extra else []):
            p += s(name) + struct.pack("<II", t, k)
    p += b"".join(data[c[0]] for c in cols)
    if extra:
        p += extra[3]
    return p


def stats():
    return s("gen.py") + struct.pack("<QI", 0, 2) + s("comparisons") + f64s(1234) + s("contacts") + f64s(3)


def pairs():
    return struct.pack("<QQ", 0, 2) + struct.pack("<QQ", 0, 1) + struct.pack("<QQ", 1, 2**64 - 1)


def contacts():
    c = struct.pack("<QQII", 0, 1, 3, 1) + f64s(1.2, 0, 0, -1, 0, 0, 0.012, 0.008)
    return struct.pack("<QQ", 0, 1) + c


def meta():
    return s("gen.py") + s("golden") + struct.pack("<I", 1) + s("command") + s("tests/golden/gen.py")


def end(count, index_at=0):
    return struct.pack("<QQ", count, index_at)


def stream(*records_, version=2):
    """A complete stream: header, the records, and the end record."""
    body = b"".join(records_)
    if version == 2:
        body += record(10, end(len(records_)))
    return header(version) + body


def gz(raw):
    return gzip.compress(raw, compresslevel=6, mtime=0)


def write(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


body = [record(8, meta()), record(1, setup()), record(2, tetra_mesh()), record(4, frame()),
        record(7, stats()), record(5, pairs()), record(6, contacts())]
scene = stream(*body)
write("good-scene.mrd", gz(scene))
write("good-mesh.mrd", gz(stream(record(2, tetra_mesh()))))
write("good-unknown-type.mrd", gz(stream(*body, record(42, b"from the future", flags=1))))
write("good-extra-column.mrd", gz(stream(record(1, setup()), record(2, tetra_mesh()),
                                         record(4, frame(extra=("temperature", 3, 1, f64s(300, 310)))))))
write("good-concat.mrd", gz(scene) + gz(stream(record(2, tetra_mesh()), record(4, frame(step=1)))))
write("good-uncompressed.mrd", scene)
write("good-empty.mrd", gz(stream()))
write("v1-scene.mrd", gz(header(1) + record(1, setup(), flags=0) + record(2, tetra_mesh())
                        + record(4, frame(v1=True)) + record(7, stats(), flags=0)))

write("bad-magic.mrd", gz(b"\x89MRDEX\r\n" + scene[8:]))
write("bad-version.mrd", gz(header(version=3) + scene[16:]))
write("bad-header-flags.mrd", gz(header(flags=1) + scene[16:]))
write("bad-checksum.mrd", gz(stream(record(1, setup()), record(2, tetra_mesh(), crc_fix=1))))
write("bad-record-flags.mrd", gz(stream(record(1, setup(), flags=4))))
write("bad-critical-marked-ancillary.mrd", gz(stream(record(1, setup(), flags=1))))
write("bad-unknown-critical.mrd", gz(stream(record(1, setup()), record(42, b"must understand", flags=0))))
# Valid framing and checksum, but a payload one f64 longer than its layout.
write("bad-length.mrd", gz(stream(record(1, setup() + f64s(0)))))
write("bad-truncated-record.mrd", gz(scene[:-80]))
write("bad-no-end.mrd", gz(header() + b"".join(body)))
write("bad-end-count.mrd", gz(header() + b"".join(body) + record(10, end(3))))
write("bad-truncated-gzip.mrd", gz(scene)[:-30])
write("bad-gzip.mrd", gz(scene)[:40] + bytes(64) + gz(scene)[104:])
write("bad-trailing-bytes.mrd", gz(scene) + b"appended junk")
write("bad-nan.mrd", gz(stream(record(2, tetra_mesh()), record(4, frame(pos_override=math.nan)))))
write("bad-shape-ref.mrd", gz(stream(record(2, tetra_mesh()), record(4, frame(shape=3)))))
write("bad-missing-column.mrd", gz(stream(record(2, tetra_mesh()), record(4, frame(drop="epsilon")))))
# Enums out of range in a checksum-valid setup record: 2^31 and 2^32 - 1.
write("bad-scheme-2p31.mrd", gz(stream(record(1, setup_with(scheme=2**31)))))
write("bad-force-model-max.mrd", gz(stream(record(1, setup_with(model=2**32 - 1)))))
write("bad-empty.mrd", b"")
write("bad-not-a-stream.mrd", gz(b"solid cube\nfacet normal 0 0 1\n"))
