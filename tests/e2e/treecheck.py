#!/usr/bin/env python3
"""Independent checks on surrogate trees, for tests/e2e/tree.sh.

  treecheck.py verify INFO.json     re-check every node of every tree in an
                                    `mrdem-info --json --full` dump with its
                                    own point-triangle distance; prints the
                                    number of (node, vertex) pairs checked
  treecheck.py tamper IN OUT MODE   rewrite the first tree record of a stream
                                    (modes: shrink-eps, dup-order, shape-7),
                                    keeping the framing and CRCs valid
"""
import gzip
import json
import struct
import sys
import zlib


def sub(a, b):
    return [a[0] - b[0], a[1] - b[1], a[2] - b[2]]


def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def seg_dist(p, a, b):
    ab = sub(b, a)
    t = dot(sub(p, a), ab) / dot(ab, ab) if dot(ab, ab) > 0 else 0.0
    t = min(1.0, max(0.0, t))
    q = [a[k] + t * ab[k] for k in range(3)]
    return dot(sub(p, q), sub(p, q)) ** 0.5


def point_tri(p, a, b, c):
    """Project onto the plane; inside: the plane distance, else the nearest edge."""
    n = cross(sub(b, a), sub(c, a))
    nn = dot(n, n)
    if nn > 0:
        h = dot(sub(p, a), n) / nn
        q = [p[k] - h * n[k] for k in range(3)]
        inside = all(dot(cross(sub(v1, v0), sub(q, v0)), n) >= 0
                     for v0, v1 in ((a, b), (b, c), (c, a)))
        if inside:
            return abs(h) * nn ** 0.5
    return min(seg_dist(p, a, b), seg_dist(p, b, c), seg_dist(p, c, a))


def f32(x):
    """The float32 a JSON number printed from a float stands for."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def verify(path):
    d = json.load(open(path))
    meshes = {r["id"]: r for r in d["records"] if r["type"] == "mesh"}
    checked = 0
    for tr in (r for r in d["records"] if r["type"] == "tree"):
        m = meshes[tr["shape"]]
        v, t = m["vertex_coords"], m["triangle_vertices"]
        order = tr["triangle_order"]
        assert sorted(order) == list(range(m["triangles"])), "order is not a permutation"
        for i, node in enumerate(tr["node_list"]):
            s = [f32(x) for x in node["triangle"]]
            a, b, c = s[0:3], s[3:6], s[6:9]
            first, count = node["tri_range"]
            for k in range(first, first + count):
                for corner in range(3):
                    vi = t[3 * order[k] + corner]
                    p = v[3 * vi:3 * vi + 3]
                    dist = point_tri(p, a, b, c)
                    # 1e-12: the two distance algorithms' rounding
                    if dist > node["eps"] + 1e-12:
                        print("shape %d node %d: vertex %d at %.17g beyond eps %.17g"
                              % (tr["shape"], i, vi, dist, node["eps"]))
                        return 1
                    checked += 1
    print(checked)
    return 0


def records(raw):
    """(offset of the record header, type, payload) after the 16-byte header."""
    pos, out = 16, []
    while pos < len(raw):
        rtype, flags, length = struct.unpack_from("<IIQ", raw, pos)
        out.append((pos, rtype, raw[pos + 16:pos + 16 + length]))
        pos += 16 + length + 4
    return out


def tamper(src, dst, mode):
    raw = gzip.decompress(open(src, "rb").read())
    for pos, rtype, payload in records(raw):
        if rtype != 3:
            continue
        p = bytearray(payload)
        nnodes, nlevels = struct.unpack_from("<II", p, 16)
        ntris = struct.unpack_from("<I", p, 12)[0]
        tri = 76 + 4 * (nlevels + 1)
        eps = tri + 36 * nnodes
        perm = eps + 4 * nnodes + 16 * nnodes
        if mode == "shrink-eps":   # node 1's halo halved: not conservative
            e = struct.unpack_from("<f", p, eps + 4)[0]
            struct.pack_into("<f", p, eps + 4, e / 2)
        elif mode == "dup-order":  # triangle order no longer a permutation
            struct.pack_into("<I", p, perm, struct.unpack_from("<I", p, perm + 4)[0])
        elif mode == "shape-7":    # tree for a shape that does not exist
            struct.pack_into("<I", p, 0, 7)
        else:
            sys.exit("unknown mode " + mode)
        assert len(p) == perm + 4 * ntris
        head = raw[pos:pos + 16]
        crc = struct.pack("<I", zlib.crc32(head + bytes(p)) & 0xffffffff)
        raw = raw[:pos + 16] + bytes(p) + crc + raw[pos + 16 + len(p) + 4:]
        open(dst, "wb").write(gzip.compress(raw))
        return 0
    sys.exit("no tree record in " + src)


if __name__ == "__main__":
    if sys.argv[1] == "verify":
        sys.exit(verify(sys.argv[2]))
    sys.exit(tamper(sys.argv[2], sys.argv[3], sys.argv[4]))
