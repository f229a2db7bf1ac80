#!/usr/bin/env python3
"""Check mrdem-vtk output against the scene randscene.py wrote, reading the
files with xml.etree and independent decoders of VTK's inline "binary"
format (a base64 UInt64 byte count, then the base64 data) and of its
appended raw data compressed by vtkZLibDataCompressor (per array: UInt64
block count, block size, partial last block size, compressed block sizes,
then the blocks, each a zlib stream), with Python's zlib and struct.

usage: vtkcheck.py DIR SCENE.json           validate DIR (instances when it
                                            holds shape files, else surfaces)
       vtkcheck.py --info DIR INFO.json     validate DIR against the stream as
                                            mrdem-info --json --full dumps it
       vtkcheck.py --same DIR1 DIR2         the two outputs hold equal arrays
       vtkcheck.py --transform INST SURF    every shape vertex moved by an
                                            instance's orientation and position
                                            is the vertex --surfaces wrote
"""
import base64, json, math, os, struct, sys, zlib
import xml.etree.ElementTree as ET

FMT = {"Float32": "f", "Float64": "d", "Int32": "i", "UInt32": "I", "Int64": "q", "UInt64": "Q",
       "UInt8": "B"}


def fail(msg):
    print(msg)
    sys.exit(1)


def appended_values(el, app, path):
    """Decode one array of the appended section; returns (values, end)."""
    t, off = el.get("type"), int(el.get("offset"))
    if off + 24 > len(app):
        fail("%s: %s: offset %d beyond the appended data" % (path, el.get("Name"), off))
    nb, bs, last = struct.unpack_from("<3Q", app, off)
    sizes = struct.unpack_from("<%dQ" % nb, app, off + 24)
    pos, data = off + 24 + 8 * nb, b""
    for k, zs in enumerate(sizes):
        block = zlib.decompress(app[pos:pos + zs])
        want = last if k == nb - 1 and last else bs
        if len(block) != want:
            fail("%s: %s: block %d holds %d bytes, the header says %d" % (path, el.get("Name"), k, len(block), want))
        data += block
        pos += zs
    size = struct.calcsize("<" + FMT[t])
    if len(data) % size:
        fail("%s: %s: %d bytes" % (path, el.get("Name"), len(data)))
    return list(struct.unpack("<%d%s" % (len(data) // size, FMT[t]), data)), pos


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


TRAILER = b"\n  </AppendedData>\n</VTKFile>\n"


def read_vtp(path):
    raw = open(path, "rb").read()
    app = None
    at = raw.find(b"<AppendedData")
    if at >= 0:  # raw binary is no XML: parse the part before it
        head = raw[:at]
        if not raw[at:].startswith(b'<AppendedData encoding="raw">\n   _') or not raw.endswith(TRAILER):
            fail("%s: AppendedData framing" % path)
        app = raw[raw.index(b"_", at) + 1:len(raw) - len(TRAILER)]
        raw = head + b"</VTKFile>\n"
    root = ET.fromstring(raw)
    if root.tag != "VTKFile" or root.get("type") != "PolyData":
        fail("%s: not a PolyData VTKFile" % path)
    if root.get("byte_order") != "LittleEndian" or root.get("header_type") != "UInt64":
        fail("%s: byte order / header type" % path)
    if (app is not None) != (root.get("compressor") == "vtkZLibDataCompressor"):
        fail("%s: compressor attribute without compressed appended data, or the reverse" % path)
    poly = root.find("PolyData")
    piece = poly.find("Piece")
    out = {"npoints": int(piece.get("NumberOfPoints")), "npolys": int(piece.get("NumberOfPolys")),
           "nverts": int(piece.get("NumberOfVerts")), "arrays": {}, "format": set()}
    end = 0  # appended arrays must tile the section in document order

    def add(key, el):
        nonlocal end
        out["format"].add(el.get("format"))
        if el.get("format") == "appended":
            if app is None or int(el.get("offset")) != end:
                fail("%s: %s at offset %s, the previous array ends at %d" % (path, key, el.get("offset"), end))
            vals, end = appended_values(el, app, path)
        else:
            vals = array_values(el)
        out["arrays"][key] = (el, vals)

    for section in ("FieldData",):
        sec = poly.find(section)
        for el in (sec if sec is not None else []):
            add(section + "/" + el.get("Name"), el)
    for section in ("PointData", "CellData", "Points", "Polys", "Verts"):
        sec = piece.find(section)
        if sec is None:
            continue
        for el in sec:
            add(section + "/" + el.get("Name"), el)
    if app is not None and end != len(app):
        fail("%s: %d bytes of appended data, the arrays use %d" % (path, len(app), end))
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


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def check_shape(path, k, sh):
    """The shape frame: vertex - com exactly (Float64), the mesh's triangles."""
    v = read_vtp(path)
    nv, nt = len(sh["verts"]), len(sh["tris"])
    if v["npoints"] != nv or v["npolys"] != nt or v["nverts"] != 0:
        fail("%s: %d points %d polys, want %d and %d" % (path, v["npoints"], v["npolys"], nv, nt))
    if v["arrays"]["Points/Points"][0].get("type") != "Float64":
        fail("%s: shape points are not Float64" % path)
    want = [vert[a] - sh["com"][a] for vert in sh["verts"] for a in range(3)]
    if values(v, "Points/Points", 3, nv) != want:
        fail("%s: vertices are not the mesh's relative to its centre of mass" % path)
    if values(v, "Polys/connectivity", 1, 3 * nt) != [i for t in sh["tris"] for i in t]:
        fail("%s: connectivity" % path)
    if values(v, "Polys/offsets", 1, nt) != [3 * (t + 1) for t in range(nt)]:
        fail("%s: offsets" % path)
    if values(v, "FieldData/SHAPE", 1, 1) != [k]:
        fail("%s: SHAPE field data" % path)


def check_instances(path, scene, fr):
    """One point per particle; real arrays equal the scene's values, exactly
    for Float64 and as the nearest float32 for Float32."""
    v = read_vtp(path)
    parts = fr["particles"]
    n = len(parts)
    if v["npoints"] != n or v["nverts"] != n or v["npolys"] != 0:
        fail("%s: %d points %d verts, want %d" % (path, v["npoints"], v["nverts"], n))
    if values(v, "FieldData/TIME", 1, 1) != [fr["time"]] or values(v, "FieldData/STEP", 1, 1) != [fr["step"]]:
        fail("%s: TIME/STEP field data" % path)
    real = v["arrays"]["Points/Points"][0].get("type")
    rnd = (lambda x: x) if real == "Float64" else f32
    checks = {"Points/Points": (3, "pos"), "PointData/orientation": (4, "quat"),
              "PointData/velocity": (3, "vel"), "PointData/angular_velocity": (3, "angvel")}
    for key, (ncomp, name) in checks.items():
        if v["arrays"].get(key, (ET.Element("x"),))[0].get("type") != real:
            fail("%s: %s is not %s like the points" % (path, key, real))
        want = [rnd(x) for p in parts for x in p[name]]
        if values(v, key, ncomp, n) != want:
            fail("%s: %s = %s, want %s" % (path, key, values(v, key, ncomp, n)[:8], want[:8]))
    ints = {"PointData/particle_id": [p["id"] for p in parts], "PointData/shape": [p["shape"] for p in parts],
            "PointData/fixed": [1 if p["fixed"] else 0 for p in parts],
            "Verts/connectivity": list(range(n)), "Verts/offsets": list(range(1, n + 1))}
    if "contacts" in fr:
        count = {p["id"]: 0 for p in parts}
        for c in fr["contacts"]:
            for e in (c["a"], c["b"]):
                if e in count:
                    count[e] += 1
        ints["PointData/contacts"] = [count[p["id"]] for p in parts]
    elif "PointData/contacts" in v["arrays"]:
        fail("%s: contacts array without contacts" % path)
    for key, want in ints.items():
        if values(v, key, 1, n) != want:
            fail("%s: %s = %s, want %s" % (path, key, values(v, key, 1, n)[:8], want[:8]))


def transform(inst_dir, surf_dir):
    """R(q) v + x of every shape vertex v and instance (q, x) against the
    surfaces output, frame by frame, in single precision tolerance."""
    frames = sorted(f for f in os.listdir(inst_dir) if f.startswith("frame-"))
    if not frames or frames != sorted(f for f in os.listdir(surf_dir) if f.startswith("frame-")):
        fail("different or no frame files")
    shapes = {}
    checked = 0
    for f in frames:
        inst, surf = read_vtp(os.path.join(inst_dir, f)), read_vtp(os.path.join(surf_dir, f))
        n = inst["npoints"]
        pos = values(inst, "Points/Points", 3, n)
        quat = values(inst, "PointData/orientation", 4, n)
        shp = values(inst, "PointData/shape", 1, n)
        spts = values(surf, "Points/Points", 3, surf["npoints"])
        base = 0
        for i in range(n):
            k = shp[i]
            if k not in shapes:
                sv = read_vtp(os.path.join(inst_dir, "shape-%03d.vtp" % k))
                shapes[k] = values(sv, "Points/Points", 3, sv["npoints"])
            loc = shapes[k]
            R = rotation(quat[4 * i:4 * i + 4])
            for j in range(len(loc) // 3):
                want = [sum(R[r][c] * loc[3 * j + c] for c in range(3)) + pos[3 * i + r] for r in range(3)]
                got = spts[3 * (base + j):3 * (base + j) + 3]
                if not all(close(g, w, 1e-5) for g, w in zip(got, want)):
                    fail("%s: instance %d vertex %d: %s from the instance, --surfaces has %s" % (f, i, j, want, got))
                checked += 1
            base += len(loc) // 3
        if base != surf["npoints"]:
            fail("%s: the instances' shapes have %d vertices, --surfaces %d" % (f, base, surf["npoints"]))
    print("vtkcheck: %d transformed vertices agree" % checked)


def check_contacts(path, fr):
    v = read_vtp(path)
    cs = fr["contacts"]
    n = len(cs)
    if v["npoints"] != n or v["nverts"] != n or v["npolys"] != 0:
        fail("%s: %d points %d verts, want %d" % (path, v["npoints"], v["nverts"], n))
    checks = {"Points/Points": (3, lambda c: c["x"]), "PointData/normal": (3, lambda c: c["normal"]),
              "PointData/overlap": (3, lambda c: [c["depth"] * x for x in c["normal"]]),
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


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def check_planes(d, scene):
    """planes.vtp (docs/output.md): one polygon per plane that is not
    wholly behind the others, in the plane, on the free side of every other
    plane, counter-clockwise seen from its free side, and covering the
    shadow on the plane of every particle's box (centre +- bounding radius
    + halo, every frame) where that shadow is in front of the other planes."""
    planes = scene.get("planes", [])
    path = os.path.join(d, "planes.vtp")
    if not planes or not any(fr["particles"] for fr in scene["frames"]):
        if os.path.exists(path):
            fail("planes.vtp without planes or particles")
        return
    v = read_vtp(path)
    n = v["npolys"]
    idx = values(v, "CellData/plane", 1, n)
    normals = values(v, "CellData/normal", 3, n)
    pts = values(v, "Points/Points", 3, v["npoints"])
    conn = values(v, "Polys/connectivity", 1, v["npoints"])
    ends = values(v, "Polys/offsets", 1, n)
    if conn != list(range(v["npoints"])) or ends != sorted(ends) or (ends and ends[-1] != v["npoints"]):
        fail("%s: connectivity or offsets" % path)
    if idx != sorted(set(idx)) or any(not 0 <= k < len(planes) for k in idx):
        fail("%s: plane indices %s" % (path, idx))
    radius = [max(math.sqrt(sum((x - c) ** 2 for x, c in zip(vx, sh["com"]))) for vx in sh["verts"])
              for sh in scene["shapes"]]
    boxes = [[[p["pos"][a] + s * (radius[p["shape"]] + p["eps"]) for a in range(3)]
              for s in (-1, 1)] for fr in scene["frames"] for p in fr["particles"]]
    scale = max(1.0, max(abs(x) for b in boxes for c in b for x in c))
    tol = 1e-9 * scale
    for j, k in enumerate(idx):
        point, normal = planes[k]
        if normals[3 * j:3 * j + 3] != normal:
            fail("%s: polygon %d: normal %s, want %s" % (path, j, normals[3 * j:3 * j + 3], normal))
        lo = ends[j - 1] if j else 0
        poly = [pts[3 * i:3 * i + 3] for i in range(lo, ends[j])]
        if len(poly) < 3:
            fail("%s: polygon %d has %d corners" % (path, j, len(poly)))
        rel = lambda x, q: [a - b for a, b in zip(x, q)]
        for x in poly:
            if abs(dot(rel(x, point), normal)) > tol:
                fail("%s: plane %d: corner %s is not in the plane" % (path, k, x))
            for q, (p2, n2) in enumerate(planes):
                if q != k and dot(rel(x, p2), n2) < -tol:
                    fail("%s: plane %d: corner %s lies behind plane %d" % (path, k, x, q))
        # Newell's normal of the polygon, along the plane's
        nw = [0.0, 0.0, 0.0]
        for a, b in zip(poly, poly[1:] + poly[:1]):
            nw[0] += (a[1] - b[1]) * (a[2] + b[2])
            nw[1] += (a[2] - b[2]) * (a[0] + b[0])
            nw[2] += (a[0] - b[0]) * (a[1] + b[1])
        if dot(nw, normal) <= 0:
            fail("%s: plane %d: the polygon turns clockwise seen from the free side" % (path, k))
        # every particle box's shadow in front of the other planes lies inside
        for b in boxes:
            for c in range(8):
                x = [b[c >> a & 1][a] for a in range(3)]
                foot = [x[a] - dot(rel(x, point), normal) * normal[a] for a in range(3)]
                if any(q != k and dot(rel(foot, p2), n2) < tol for q, (p2, n2) in enumerate(planes)):
                    continue
                for a, e in zip(poly, poly[1:] + poly[:1]):
                    edge, to = rel(e, a), rel(foot, a)
                    cr = [edge[1] * to[2] - edge[2] * to[1], edge[2] * to[0] - edge[0] * to[2],
                          edge[0] * to[1] - edge[1] * to[0]]
                    if dot(cr, normal) < -tol * scale:
                        fail("%s: plane %d: the shadow %s of a particle lies outside its polygon"
                             % (path, k, foot))
    drawn = set(idx)
    for k, (point, normal) in enumerate(planes):
        if k in drawn:
            continue
        # a plane left out must lie behind the others wherever a box is
        for b in boxes:
            for c in range(8):
                x = [b[c >> a & 1][a] for a in range(3)]
                foot = [x[a] - dot([u - w for u, w in zip(x, point)], normal) * normal[a] for a in range(3)]
                if all(dot([u - w for u, w in zip(foot, p2)], n2) > tol
                       for q, (p2, n2) in enumerate(planes) if q != k):
                    fail("%s: plane %d is not drawn, but a particle's shadow on it is in front "
                         "of the others" % (path, k))


def check_pvd(d, scene, name="series.pvd", parts=(0, 1)):
    root = ET.parse(os.path.join(d, name)).getroot()
    if root.get("type") != "Collection":
        fail("%s is not a Collection" % name)
    got = [(float(e.get("timestep")), int(e.get("part")), e.get("file")) for e in root.iter("DataSet")]
    want = []
    for k, fr in enumerate(scene["frames"]):
        want.append((fr["time"], 0, "frame-%06d.vtp" % k))
        if "contacts" in fr and 1 in parts:
            want.append((fr["time"], 1, "contacts-%06d.vtp" % k))
        if 1 in parts and os.path.exists(os.path.join(d, "planes.vtp")):
            want.append((fr["time"], 2, "planes.vtp"))
    if got != want:
        fail("%s lists %s, want %s" % (name, got, want))
    for _, _, f in got:
        if not os.path.exists(os.path.join(d, f)):
            fail("%s names missing file %s" % (name, f))


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


def scene_from_info(info):
    """The scene as randscene.py describes it, from mrdem-info --json --full
    (the first input stream)."""
    scene = {"shapes": [], "frames": []}
    for r in info["records"]:
        if r["stream"] != 0:
            continue
        if r["type"] == "setup":
            scene["planes"] = [[p["point"], p["normal"]] for p in r["planes"]]
        if r["type"] == "mesh":
            v = r["vertex_coords"]
            t = r["triangle_vertices"]
            scene["shapes"].append({"verts": [v[k:k + 3] for k in range(0, len(v), 3)],
                                    "tris": [t[k:k + 3] for k in range(0, len(t), 3)], "com": r["com"]})
        elif r["type"] == "frame":
            scene["frames"].append({"step": r["step"], "time": r["time"], "particles": [
                {"id": q["id"], "shape": q["shape"], "fixed": q["fixed"], "pos": q["position"], "eps": q["epsilon"],
                 "quat": q["orientation"], "vel": q["velocity"], "angvel": q["angular_velocity"]}
                for q in r["state"]]})
        elif r["type"] == "contacts" and scene["frames"] and r["step"] == scene["frames"][-1]["step"]:
            fr = scene["frames"][-1]
            fr.setdefault("contacts", []).extend(
                {"a": c["a"], "b": c["b"], "x": c["point"], "normal": c["normal"], "dist": c["distance"],
                 "depth": c["depth"], "tri_a": 2**32 - 1 if c["tri_a"] in (None, -1) else c["tri_a"],
                 "tri_b": 2**32 - 1 if c["tri_b"] in (None, -1) else c["tri_b"]} for c in r["list"])
    return scene


def main():
    if sys.argv[1] == "--same":
        same(sys.argv[2], sys.argv[3])
        return
    if sys.argv[1] == "--transform":
        transform(sys.argv[2], sys.argv[3])
        return
    if sys.argv[1] == "--info":
        d, scene = sys.argv[2], scene_from_info(json.load(open(sys.argv[3])))
        if not any(c for fr in scene["frames"] for c in fr.get("contacts", [])):
            fail("%s: the run has no contact points (the test would check none)" % sys.argv[3])
    else:
        d, scene = sys.argv[1], json.load(open(sys.argv[2]))
    instances = os.path.exists(os.path.join(d, "shape-000.vtp"))
    if instances:
        for k, sh in enumerate(scene["shapes"]):
            check_shape(os.path.join(d, "shape-%03d.vtp" % k), k, sh)
        if os.path.exists(os.path.join(d, "shape-%03d.vtp" % len(scene["shapes"]))):
            fail("more shape files than shapes")
    elif os.path.exists(os.path.join(d, "particles.pvd")):
        fail("particles.pvd without shape files")
    for k, fr in enumerate(scene["frames"]):
        (check_instances if instances else check_frame)(os.path.join(d, "frame-%06d.vtp" % k), scene, fr)
        if "contacts" in fr:
            check_contacts(os.path.join(d, "contacts-%06d.vtp" % k), fr)
    check_planes(d, scene)
    check_pvd(d, scene)
    if instances:
        check_pvd(d, scene, "particles.pvd", (0,))


if __name__ == "__main__":
    main()
