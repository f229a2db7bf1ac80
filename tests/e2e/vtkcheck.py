#!/usr/bin/env python3
"""Check mrdem-vtk output against the scene randscene.py wrote, reading the
files with xml.etree and an independent base64 decoder (VTK's inline
"binary" format: a base64 UInt64 byte count, then the base64 data).

usage: vtkcheck.py DIR SCENE.json        validate DIR against the scene
       vtkcheck.py --same DIR1 DIR2      the two outputs hold equal arrays
"""
import base64, json, math, os, struct, sys
import xml.etree.ElementTree as ET

FMT = {"Float32": "f", "Float64": "d", "Int32": "i", "UInt32": "I", "Int64": "q", "UInt64": "Q",
       "UInt8": "B"}


def fail(msg):
    print(msg)
    sys.exit(1)


def array_values(el):
    t = el.get("type")
    text = el.text or ""
    if el.get("format") == "ascii":
        if t == "Float32":  # the nearest float32, as a VTK reader stores it
            return [struct.unpack("<f", struct.pack("<f", float(x)))[0] for x in text.split()]
        conv = float if t.startswith("Float") else int
        return [conv(x) for x in text.split()]
    if el.get("format") != "binary":
        fail("unexpected format %r" % el.get("format"))
    text = "".join(text.split())
    nbytes = struct.unpack("<Q", base64.b64decode(text[:12]))[0]
    data = base64.b64decode(text[12:])
    size = struct.calcsize("<" + FMT[t])
    if len(data) != nbytes or nbytes % size:
        fail("%s: header says %d bytes, data has %d" % (el.get("Name"), nbytes, len(data)))
    return list(struct.unpack("<%d%s" % (nbytes // size, FMT[t]), data))


def read_vtp(path):
    root = ET.parse(path).getroot()
    if root.tag != "VTKFile" or root.get("type") != "PolyData":
        fail("%s: not a PolyData VTKFile" % path)
    if root.get("byte_order") != "LittleEndian" or root.get("header_type") != "UInt64":
        fail("%s: byte order / header type" % path)
    poly = root.find("PolyData")
    piece = poly.find("Piece")
    out = {"npoints": int(piece.get("NumberOfPoints")), "npolys": int(piece.get("NumberOfPolys")),
           "nverts": int(piece.get("NumberOfVerts")), "arrays": {}}
    for section in ("FieldData",):
        for el in poly.find(section):
            out["arrays"][section + "/" + el.get("Name")] = (el, array_values(el))
    for section in ("PointData", "CellData", "Points", "Polys", "Verts"):
        sec = piece.find(section)
        if sec is None:
            continue
        for el in sec:
            out["arrays"][section + "/" + el.get("Name")] = (el, array_values(el))
    for key, (el, vals) in out["arrays"].items():
        if el.get("type").startswith("Float") and not all(math.isfinite(v) for v in vals):
            fail("%s: %s has non-finite values" % (path, key))
    return out


def values(v, key, ncomp, count):
    if key not in v["arrays"]:
        fail("missing array %s" % key)
    el, vals = v["arrays"][key]
    if int(el.get("NumberOfComponents", "1")) != ncomp or len(vals) != ncomp * count:
        fail("%s: %d values of %s components, want %d x %d" % (key, len(vals),
             el.get("NumberOfComponents", "1"), count, ncomp))
    return vals


def rotation(q):
    n = math.sqrt(sum(x * x for x in q))
    w, x, y, z = (c / n for c in q)
    return [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]


def close(a, b, tol):
    return abs(a - b) <= tol * max(1.0, abs(b))


def check_frame(path, scene, fr):
    v = read_vtp(path)
    shapes, parts = scene["shapes"], fr["particles"]
    npts = sum(len(shapes[p["shape"]]["verts"]) for p in parts)
    ntri = sum(len(shapes[p["shape"]]["tris"]) for p in parts)
    if v["npoints"] != npts or v["npolys"] != ntri:
        fail("%s: %d points %d polys, want %d and %d" % (path, v["npoints"], v["npolys"], npts, ntri))
    pts = values(v, "Points/Points", 3, npts)
    conn = values(v, "Polys/connectivity", 1, 3 * ntri)
    offs = values(v, "Polys/offsets", 1, ntri)
    ids = values(v, "CellData/particle_id", 1, ntri)
    vel = values(v, "CellData/velocity", 3, ntri)
    ang = values(v, "CellData/angular_velocity", 3, ntri)
    fixed = values(v, "CellData/fixed", 1, ntri)
    tri = values(v, "CellData/triangle", 1, ntri)
    shp = values(v, "CellData/shape", 1, ntri)
    if values(v, "FieldData/TIME", 1, 1) != [fr["time"]] or values(v, "FieldData/STEP", 1, 1) != [fr["step"]]:
        fail("%s: TIME/STEP field data" % path)
    if offs != [3 * (k + 1) for k in range(ntri)]:
        fail("%s: offsets" % path)
    base = cell = 0
    for p in parts:
        sh = shapes[p["shape"]]
        R = rotation(p["quat"])
        for k, vert in enumerate(sh["verts"]):
            loc = [vert[a] - sh["com"][a] for a in range(3)]
            want = [sum(R[r][c] * loc[c] for c in range(3)) + p["pos"][r] for r in range(3)]
            got = pts[3 * (base + k):3 * (base + k) + 3]
            if not all(close(g, w, 1e-6) for g, w in zip(got, want)):
                fail("%s: particle %d vertex %d at %s, want %s" % (path, p["id"], k, got, want))
        for t, tr in enumerate(sh["tris"]):
            if conn[3 * cell:3 * cell + 3] != [base + i for i in tr]:
                fail("%s: connectivity of particle %d triangle %d" % (path, p["id"], t))
            if (ids[cell] != p["id"] or tri[cell] != t or shp[cell] != p["shape"]
                    or fixed[cell] != (1 if p["fixed"] else 0)
                    or vel[3 * cell:3 * cell + 3] != p["vel"] or ang[3 * cell:3 * cell + 3] != p["angvel"]):
                fail("%s: cell data of particle %d triangle %d" % (path, p["id"], t))
            cell += 1
        base += len(sh["verts"])


def check_contacts(path, fr):
    v = read_vtp(path)
    cs = fr["contacts"]
    n = len(cs)
    if v["npoints"] != n or v["nverts"] != n or v["npolys"] != 0:
        fail("%s: %d points %d verts, want %d" % (path, v["npoints"], v["nverts"], n))
    checks = {"Points/Points": (3, lambda c: c["x"]), "PointData/normal": (3, lambda c: c["normal"]),
              "PointData/dist": (1, lambda c: [c["dist"]]), "PointData/depth": (1, lambda c: [c["depth"]]),
              "PointData/particle_a": (1, lambda c: [c["a"]]), "PointData/particle_b": (1, lambda c: [c["b"]]),
              "PointData/plane": (1, lambda c: [2**64 - 1 - c["b"] if c["b"] >= 2**64 - 2**32 else -1]),
              "PointData/tri_a": (1, lambda c: [-1 if c["tri_a"] == 2**32 - 1 else c["tri_a"]]),
              "PointData/tri_b": (1, lambda c: [-1 if c["tri_b"] == 2**32 - 1 else c["tri_b"]]),
              "Verts/connectivity": (1, None), "Verts/offsets": (1, None)}
    for key, (ncomp, get) in checks.items():
        got = values(v, key, ncomp, n)
        if get is None:
            want = list(range(n)) if key.endswith("connectivity") else list(range(1, n + 1))
        else:
            want = [x for c in cs for x in get(c)]
        if got != want:
            fail("%s: %s = %s, want %s" % (path, key, got[:6], want[:6]))


def check_pvd(d, scene):
    root = ET.parse(os.path.join(d, "series.pvd")).getroot()
    if root.get("type") != "Collection":
        fail("series.pvd is not a Collection")
    got = [(float(e.get("timestep")), int(e.get("part")), e.get("file")) for e in root.iter("DataSet")]
    want = []
    for k, fr in enumerate(scene["frames"]):
        want.append((fr["time"], 0, "frame-%06d.vtp" % k))
        if "contacts" in fr:
            want.append((fr["time"], 1, "contacts-%06d.vtp" % k))
    if got != want:
        fail("series.pvd lists %s, want %s" % (got, want))
    for _, _, f in got:
        if not os.path.exists(os.path.join(d, f)):
            fail("series.pvd names missing file %s" % f)


def same(d1, d2):
    files = sorted(f for f in os.listdir(d1) if f.endswith(".vtp"))
    if files != sorted(f for f in os.listdir(d2) if f.endswith(".vtp")) or not files:
        fail("different file sets")
    for f in files:
        a, b = read_vtp(os.path.join(d1, f)), read_vtp(os.path.join(d2, f))
        if a["arrays"].keys() != b["arrays"].keys():
            fail("%s: different arrays" % f)
        for k in a["arrays"]:
            if a["arrays"][k][1] != b["arrays"][k][1]:
                fail("%s: %s differs" % (f, k))


def main():
    if sys.argv[1] == "--same":
        same(sys.argv[2], sys.argv[3])
        return
    d, scene = sys.argv[1], json.load(open(sys.argv[2]))
    for k, fr in enumerate(scene["frames"]):
        check_frame(os.path.join(d, "frame-%06d.vtp" % k), scene, fr)
        if "contacts" in fr:
            check_contacts(os.path.join(d, "contacts-%06d.vtp" % k), fr)
    check_pvd(d, scene)


if __name__ == "__main__":
    main()
