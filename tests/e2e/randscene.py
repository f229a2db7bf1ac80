#!/usr/bin/env python3
"""Random scene streams for the broad-phase, VTK and statistics tests,
written from docs/stream-format.md with Python's struct and gzip (an
implementation independent of the C writer), with a JSON description of
what was written and the reference candidate pairs computed here from the
definition in docs/broad-phase.md.

usage: randscene.py OUT.mrd OUT.json [--seed S] [--n N] [--frames F]
                    [--planes K] [--contacts [--bad-depth]]
                    [--flavour uniform|clustered|poly] [--no-reference]
"""
import argparse, gzip, json, math, random, struct
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from mrdem_stream import HEADER, PLANE_ID, f64s, finish, record, records, s, with_columns  # noqa: E402


def setup_payload(planes, plane_epsilon, gravity=(0.0, 0.0, -9.81)):
    p = f64s(gravity) + struct.pack("<I", 0) + f64s([1000, 0, 0, plane_epsilon, 1e-4])
    p += struct.pack("<QIQI", 1000, 0, 10, len(planes))
    for pt, n in planes:
        p += f64s(list(pt) + list(n))
    return p


def mesh_payload(ident, shape):
    p = struct.pack("<I", ident) + s(shape["name"])
    p += struct.pack("<III", 1 if shape["open"] else 0, len(shape["verts"]), len(shape["tris"]))
    p += f64s([shape["volume"]] + shape["com"] + shape["inertia"])
    p += f64s([x for v in shape["verts"] for x in v])
    p += struct.pack("<%dI" % (3 * len(shape["tris"])), *[i for t in shape["tris"] for i in t])
    return p


def frame_payload(step, time, parts):
    n = len(parts)
    p = struct.pack("<QdQ", step, time, n)
    p += struct.pack("<%dQ" % n, *[q["id"] for q in parts])
    p += struct.pack("<%dI" % n, *[q["shape"] for q in parts])
    p += struct.pack("<%dI" % n, *[1 if q["fixed"] else 0 for q in parts])
    for key in ("pos", "quat", "vel", "angvel"):
        p += f64s([x for q in parts for x in q[key]])
    p += f64s([q["density"] for q in parts])
    p += f64s([q["eps"] for q in parts])
    return p


def contacts_payload(step, cs):
    p = struct.pack("<QQ", step, len(cs))
    for c in cs:
        p += struct.pack("<QQII", c["a"], c["b"], c["tri_a"], c["tri_b"])
        p += f64s(c["x"] + c["normal"] + [c["dist"], c["depth"]])
    return p


def stats_payload(source, step, values):
    p = s(source) + struct.pack("<QI", step, len(values))
    for name, v in values:
        p += s(name) + f64s([v])
    return p


def octahedron(name, r, com):
    """Vertices at distance r from com. Unit density: volume 4r^3/3,
    inertia about com m r^2 / 5 on the diagonal."""
    dirs = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]
    tris = [(0, 2, 4), (2, 1, 4), (1, 3, 4), (3, 0, 4), (2, 0, 5), (1, 2, 5), (3, 1, 5), (0, 3, 5)]
    vol = 4 * r**3 / 3
    i = vol * r * r / 5
    return {"name": name, "open": False, "volume": vol, "com": list(com),
            "inertia": [i, i, i, 0, 0, 0],
            "verts": [[com[a] + r * d[a] for a in range(3)] for d in dirs], "tris": tris}


def floor_quad(name, half):
    """Open two-triangle square in the xy plane; open meshes are placed by
    their mesh origin (mass properties all zero)."""
    return {"name": name, "open": True, "volume": 0.0, "com": [0.0, 0.0, 0.0],
            "inertia": [0.0] * 6,
            "verts": [[-half, -half, 0.0], [half, -half, 0.0], [half, half, 0.0], [-half, half, 0.0]],
            "tris": [(0, 1, 2), (0, 2, 3)]}


def bound_radius(shape):
    """mrdem_mesh_radius_about(mesh, com), evaluated in the same order."""
    c = shape["com"]
    r2 = 0.0
    for v in shape["verts"]:
        d = (v[0] - c[0]) * (v[0] - c[0]) + (v[1] - c[1]) * (v[1] - c[1]) + (v[2] - c[2]) * (v[2] - c[2])
        if d > r2:
            r2 = d
    return math.sqrt(r2)


def reference_pairs(shapes, parts, planes, plane_epsilon):
    """The definition: sphere pairs that touch (not both fixed), then plane
    pairs of free particles, in frame index order, planes last."""
    rad = [bound_radius(shapes[q["shape"]]) + q["eps"] for q in parts]
    out = []
    for i, qi in enumerate(parts):
        for j in range(i + 1, len(parts)):
            qj = parts[j]
            if qi["fixed"] and qj["fixed"]:
                continue
            dx = qi["pos"][0] - qj["pos"][0]
            dy = qi["pos"][1] - qj["pos"][1]
            dz = qi["pos"][2] - qj["pos"][2]
            r = rad[i] + rad[j]
            if dx * dx + dy * dy + dz * dz <= r * r:
                out.append([qi["id"], qj["id"]])
        if qi["fixed"]:
            continue
        for k, (pt, n) in enumerate(planes):
            d = [qi["pos"][a] - pt[a] for a in range(3)]
            h = d[0] * n[0] + d[1] * n[1] + d[2] * n[2]
            if h <= rad[i] + plane_epsilon:
                out.append([qi["id"], PLANE_ID(k)])
    return out


def random_quat(rng):
    q = [rng.gauss(0, 1) for _ in range(4)]
    n = math.sqrt(sum(x * x for x in q))
    return [x / n for x in q]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("json")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--frames", type=int, default=1)
    ap.add_argument("--planes", type=int, default=1)
    ap.add_argument("--contacts", action="store_true")
    ap.add_argument("--bad-depth", action="store_true",
                    help="contacts whose depth is not eps_a + eps_b - dist")
    ap.add_argument("--flavour", default="uniform", choices=["uniform", "clustered", "poly"])
    ap.add_argument("--no-reference", action="store_true", help="skip the O(n^2) reference pairs")
    a = ap.parse_args()
    rng = random.Random(a.seed)

    shapes = [octahedron("small", 0.5, [0.0, 0.0, 0.0]),
              octahedron("offset", 0.8, [0.3, -0.2, 0.1]),
              octahedron("big", 2.0 if a.flavour == "poly" else 1.0, [0.0, 0.0, 0.0])]
    box = 1.5 * a.n ** (1 / 3)
    shapes.append(floor_quad("floor", box))
    plane_epsilon = 0.05
    planes = []
    for k in range(a.planes):
        n = [rng.gauss(0, 1) for _ in range(3)]
        ln = math.sqrt(sum(x * x for x in n))
        planes.append(([rng.uniform(-box, box), 0.0, 0.0], [x / ln for x in n]))

    stream = HEADER
    stream += record(1, setup_payload(planes, plane_epsilon))
    for k, sh in enumerate(shapes):
        stream += record(2, mesh_payload(k, sh))

    centres = [[rng.uniform(-box, box) for _ in range(3)] for _ in range(4)]
    doc = {"shapes": shapes, "planes": [[list(p), list(n)] for p, n in planes],
           "plane_epsilon": plane_epsilon, "frames": []}
    for f in range(a.frames):
        parts = []
        for i in range(a.n):
            if a.flavour == "clustered":
                c = centres[rng.randrange(4)]
                pos = [c[k] + rng.gauss(0, 0.8) for k in range(3)]
            else:
                pos = [rng.uniform(-box, box) for _ in range(3)]
            parts.append({"id": 3 * (a.n - i) + 11, "shape": rng.randrange(3), "fixed": rng.random() < 0.1,
                          "pos": pos, "quat": random_quat(rng),
                          "vel": [rng.uniform(-1, 1) for _ in range(3)],
                          "angvel": [rng.uniform(-2, 2) for _ in range(3)],
                          "density": rng.uniform(500, 3000), "eps": rng.uniform(0, 0.1)})
        parts.append({"id": 1, "shape": 3, "fixed": True, "pos": [0.0, 0.0, -box - 0.5],
                      "quat": [1.0, 0.0, 0.0, 0.0], "vel": [0.0] * 3, "angvel": [0.0] * 3,
                      "density": 1.0, "eps": 0.01})
        step, time = 10 * f, 10 * f * 1e-4
        stream += record(4, with_columns(frame_payload(step, time, parts)))
        fr = {"step": step, "time": time, "particles": parts,
              "pairs": None if a.no_reference else reference_pairs(shapes, parts, planes, plane_epsilon)}
        if a.contacts:
            cs = []
            for k in range(rng.randrange(1, 6)):
                n = [rng.gauss(0, 1) for _ in range(3)]
                ln = math.sqrt(sum(x * x for x in n))
                # depth = eps_a + eps_b - dist, as for a frame's own contacts,
                # within the halos (readers refuse a record beyond them)
                eps_b = plane_epsilon if k == 0 else parts[k + 1]["eps"]
                dist = 0.2 * k * (parts[k]["eps"] + eps_b)
                cs.append({"a": parts[k]["id"], "b": PLANE_ID(0) if k == 0 else parts[k + 1]["id"],
                           "tri_a": k, "tri_b": 0xFFFFFFFF if k == 0 else 7 - k,
                           "x": [rng.uniform(-box, box) for _ in range(3)],
                           "normal": [x / ln for x in n], "dist": dist,
                           "depth": parts[k]["eps"] + eps_b - dist + (0.5 if a.bad_depth else 0)})
            stream += record(6, contacts_payload(step, cs))
            fr["contacts"] = cs
        stream += record(7, stats_payload("randscene", step, [("level0", 2.0 * f), ("level1", 3.0)]))
        doc["frames"].append(fr)

    with open(a.out, "wb") as fh:
        fh.write(gzip.compress(finish(stream), compresslevel=1, mtime=0))
    with open(a.json, "w") as fh:
        json.dump(doc, fh)


if __name__ == "__main__":
    main()
