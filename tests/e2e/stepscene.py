#!/usr/bin/env python3
"""Streams for the mrdem-step tests and an independent reference for one
step, written from docs/stream-format.md and docs/dynamics.md with Python's
struct and gzip (no code shared with the C library).

  stepscene.py gen OUT.mrd EXPECT.json [--scheme S] [--model M] [--no-contacts]
                                       [--contact-step N] [--dt DT]
  stepscene.py check OUT.mrd EXPECT.json [--dt DT] [--scheme S]

gen writes setup, two ball shapes (octahedra: isotropic inertia), a stats
record of another tool, a frame at step 7 with four balls (one fixed and
moving) touching each other and an analytic plane, a pairs record, the
contacts of that frame in closed form, and a record of an unknown type.
It stores the frame, the contacts and the parameters in EXPECT.json.
check reads mrdem-step's output, recomputes the step from EXPECT.json (with
the --dt / --scheme overrides given to mrdem-step) and compares: records
passed through or dropped, the new frame, the stats record."""
import argparse, gzip, json, math, os, struct, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from mrdem_stream import HEADER, PLANE_ID, f64s, finish, record, records, s, with_columns  # noqa: E402

SCHEMES = ["explicit-euler", "symplectic-euler", "velocity-verlet"]
MODELS = ["spring", "spring-dashpot"]


OLD_STATS = s("mrdem-contact") + struct.pack("<QI", 7, 1) + s("comparisons") + f64s([42.0])


# ---- vector helpers
def add(a, b): return [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
def sub(a, b): return [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
def mul(a, k): return [a[0] * k, a[1] * k, a[2] * k]
def dot(a, b): return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
def norm(a): return math.sqrt(dot(a, a))
def cross(a, b): return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def quat_advance(q, w, dt):
    """q <- exp(dt w / 2) q, renormalised."""
    wn = norm(w)
    if wn > 0:
        h = 0.5 * wn * dt
        c, k = math.cos(h), math.sin(h) / wn
        d = [c, w[0] * k, w[1] * k, w[2] * k]
        q = [d[0] * q[0] - d[1] * q[1] - d[2] * q[2] - d[3] * q[3],
             d[0] * q[1] + d[1] * q[0] + d[2] * q[3] - d[3] * q[2],
             d[0] * q[2] - d[1] * q[3] + d[2] * q[0] + d[3] * q[1],
             d[0] * q[3] + d[1] * q[2] - d[2] * q[1] + d[3] * q[0]]
    n = math.sqrt(sum(x * x for x in q))
    return [x / n for x in q]


def octahedron(name, r):
    dirs = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]
    tris = [(0, 2, 4), (2, 1, 4), (1, 3, 4), (3, 0, 4), (2, 0, 5), (1, 2, 5), (3, 1, 5), (0, 3, 5)]
    vol = 4 * r**3 / 3
    i = vol * r * r / 5
    return {"name": name, "r": r, "volume": vol, "inertia": i,
            "verts": [[r * d[a] for a in range(3)] for d in dirs], "tris": tris}


def mesh_payload(ident, sh):
    p = struct.pack("<I", ident) + s(sh["name"]) + struct.pack("<III", 0, 6, 8)
    p += f64s([sh["volume"], 0, 0, 0, sh["inertia"], sh["inertia"], sh["inertia"], 0, 0, 0])
    p += f64s([x for v in sh["verts"] for x in v])
    p += struct.pack("<24I", *[i for t in sh["tris"] for i in t])
    return p


def setup_payload(d):
    p = f64s(d["gravity"]) + struct.pack("<I", MODELS.index(d["model"]))
    p += f64s([d["stiffness"], d["damping"], d["friction"], d["plane_epsilon"], d["dt"]])
    p += struct.pack("<QIQI", 100, SCHEMES.index(d["scheme"]), 10, len(d["planes"]))
    for pt, n in d["planes"]:
        p += f64s(pt + n)
    return p


def frame_payload(step, time, parts):
    n = len(parts)
    p = struct.pack("<QdQ", step, time, n)
    p += struct.pack("<%dQ" % n, *[q["id"] for q in parts])
    p += struct.pack("<%dI" % n, *[q["shape"] for q in parts])
    p += struct.pack("<%dI" % n, *[q["flags"] for q in parts])
    for key in ("pos", "quat", "vel", "angvel"):
        p += f64s([x for q in parts for x in q[key]])
    p += f64s([q["density"] for q in parts])
    p += f64s([q["eps"] for q in parts])
    return p


def decode_frame(b):
    step, time, n = struct.unpack_from("<QdQ", b, 0)
    o = 24
    ids = struct.unpack_from("<%dQ" % n, b, o); o += 8 * n
    shape = struct.unpack_from("<%dI" % n, b, o); o += 4 * n
    flags = struct.unpack_from("<%dI" % n, b, o); o += 4 * n
    parts = [{"id": ids[i], "shape": shape[i], "flags": flags[i]} for i in range(n)]
    for key, dim in (("pos", 3), ("quat", 4), ("vel", 3), ("angvel", 3), ("density", 1), ("eps", 1)):
        v = struct.unpack_from("<%dd" % (dim * n), b, o); o += 8 * dim * n
        for i in range(n):
            parts[i][key] = list(v[dim * i:dim * i + dim]) if dim > 1 else v[i]
    return step, time, parts


def decode_stats(b):
    (ln,) = struct.unpack_from("<I", b, 0)
    source = b[4:4 + ln].decode()
    o = 4 + ln
    step, n = struct.unpack_from("<QI", b, o); o += 12
    vals = {}
    for _ in range(n):
        (ln,) = struct.unpack_from("<I", b, o)
        name = b[o + 4:o + 4 + ln].decode(); o += 4 + ln
        (vals[name],) = struct.unpack_from("<d", b, o); o += 8
    return source, step, vals


def ball_contact(pa, ra, pb, rb):
    d = sub(pa["pos"], pb["pos"])
    ln = norm(d)
    dist = max(ln - ra - rb, 0.0)
    eps = pa["eps"] + pb["eps"]
    assert dist < eps, "scene balls must touch"
    n = mul(d, 1 / ln)
    return {"a": pa["id"], "b": pb["id"], "tri_a": 0xFFFFFFFF, "tri_b": 0xFFFFFFFF,
            "x": add(pb["pos"], mul(n, rb + 0.5 * dist)), "normal": n, "dist": dist, "depth": eps - dist}


def plane_contact(pa, ra, plane, k, peps):
    pt, n = plane
    h = dot(sub(pa["pos"], pt), n)
    dist = max(h - ra, 0.0)
    eps = pa["eps"] + peps
    assert dist < eps, "scene ball must touch the plane"
    return {"a": pa["id"], "b": PLANE_ID(k), "tri_a": 0xFFFFFFFF, "tri_b": 0xFFFFFFFF,
            "x": sub(pa["pos"], mul(n, ra + 0.5 * dist)), "normal": list(n), "dist": dist,
            "depth": eps - dist}


def gen(a):
    shapes = [octahedron("ball", 1.0), octahedron("pebble", 0.6)]
    c = math.cos(0.3)
    d = {"gravity": [0.0, 0.5, -9.81], "model": a.model, "scheme": a.scheme, "dt": 1e-3,
         "stiffness": 1000.0 if a.model == "spring" else 2e4, "damping": 30.0, "friction": 0.4,
         "plane_epsilon": 0.01, "planes": [[[0.0, 0.0, -1.0], [0.0, math.sin(0.3), c]]]}
    ball = lambda i, sh, pos, vel, w, rho, flags=0: {
        "id": i, "shape": sh, "flags": flags, "pos": pos, "quat": quat_advance([1.0, 0, 0, 0], [0.3, -0.2, 0.6], i),
        "vel": vel, "angvel": w, "density": rho, "eps": 0.02}
    parts = [ball(5, 0, [0.0, 0.0, 0.0], [0.4, -0.1, -0.3], [0.5, 1.0, -0.2], 1.5),
             ball(9, 1, [1.2, 1.0, 0.5], [-0.2, 0.1, 0.0], [0.0, 0.0, 2.0], 2.5),
             ball(20, 1, [1.5, 1.95, -0.5], [0.0, -0.3, 0.1], [0.1, 0.2, 0.3], 1.0, 1),
             ball(3, 0, [4.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0], 1.0)]
    # put ball 9 exactly into ball 5's halo, the fixed pebble into 9's, ball 5 onto the plane
    def place(p, q, rp, rq, dist):
        u = sub(p["pos"], q["pos"])
        p["pos"] = add(q["pos"], mul(u, (rp + rq + dist) / norm(u)))
    pl = d["planes"][0]
    h = dot(sub(parts[0]["pos"], pl[0]), pl[1])
    parts[0]["pos"] = add(parts[0]["pos"], mul(pl[1], 1.0 + 0.015 - h))
    place(parts[1], parts[0], 0.6, 1.0, 0.013)
    place(parts[2], parts[1], 0.6, 0.6, 0.025)
    contacts = [ball_contact(parts[1], 0.6, parts[0], 1.0),
                plane_contact(parts[0], 1.0, pl, 0, d["plane_epsilon"]),
                ball_contact(parts[2], 0.6, parts[1], 0.6)]
    step, time = 7, 7e-3
    out = HEADER
    out += record(1, setup_payload(d))
    for k, sh in enumerate(shapes):
        out += record(2, mesh_payload(k, sh))
    out += record(7, OLD_STATS)
    out += record(4, with_columns(frame_payload(step, time, parts)))
    out += record(5, struct.pack("<QQ", step, 1) + struct.pack("<QQ", 5, 9))
    if not a.no_contacts:
        cstep = step if a.contact_step is None else a.contact_step
        p = struct.pack("<QQ", cstep, len(contacts))
        for ct in contacts:
            p += struct.pack("<QQII", ct["a"], ct["b"], ct["tri_a"], ct["tri_b"])
            p += f64s(ct["x"] + ct["normal"] + [ct["dist"], ct["depth"]])
        out += record(6, p)
    out += record(99, b"future record")
    with open(a.out, "wb") as f:
        f.write(gzip.compress(finish(out)))
    doc = {"setup": d, "shapes": shapes, "step": step, "time": time, "particles": parts,
           "contacts": [] if a.no_contacts else contacts}
    with open(a.json, "w") as f:
        json.dump(doc, f)


def reference(doc, scheme, dt):
    """One step of docs/dynamics.md for isotropic bodies."""
    d, parts, shapes = doc["setup"], doc["particles"], doc["shapes"]
    idx = {p["id"]: i for i, p in enumerate(parts)}
    n = len(parts)
    free = [not (p["flags"] & 1) for p in parts]
    mass = [p["density"] * shapes[p["shape"]]["volume"] if free[i] else 0.0 for i, p in enumerate(parts)]
    inert = [p["density"] * shapes[p["shape"]]["inertia"] if free[i] else 0.0 for i, p in enumerate(parts)]
    F = [mul(d["gravity"], mass[i]) for i in range(n)]
    T = [[0.0, 0.0, 0.0] for _ in range(n)]
    econt = 0.0
    for ct in doc["contacts"]:
        ia = idx[ct["a"]]
        ib = idx.get(ct["b"])
        inv = (1 / mass[ia] if free[ia] else 0) + (1 / mass[ib] if ib is not None and free[ib] else 0)
        meff = 1 / inv
        x, nrm = ct["x"], ct["normal"]
        va = add(parts[ia]["vel"], cross(parts[ia]["angvel"], sub(x, parts[ia]["pos"])))
        vb = [0.0] * 3 if ib is None else add(parts[ib]["vel"], cross(parts[ib]["angvel"], sub(x, parts[ib]["pos"])))
        vrel = sub(va, vb)
        vn = dot(vrel, nrm)
        epssum = ct["depth"] + ct["dist"]
        if d["model"] == "spring":
            k = d["stiffness"] * math.sqrt(meff) / epssum
            fn = k * ct["depth"]
        else:
            k = d["stiffness"]
            fn = max(k * ct["depth"] - d["damping"] * meff * vn, 0.0)
        econt += 0.5 * k * ct["depth"] ** 2
        f = mul(nrm, fn)
        vt = sub(vrel, mul(nrm, vn))
        if d["friction"] > 0 and fn > 0 and norm(vt) > 0:
            ft = min(d["friction"] * fn, 2 * math.sqrt(k * meff) * norm(vt))
            f = sub(f, mul(vt, ft / norm(vt)))
        F[ia] = add(F[ia], f)
        T[ia] = add(T[ia], cross(sub(x, parts[ia]["pos"]), f))
        if ib is not None:
            F[ib] = sub(F[ib], f)
            T[ib] = sub(T[ib], cross(sub(x, parts[ib]["pos"]), f))
    # energies of the state the step starts from
    e = {"energy_translational": 0.0, "energy_rotational": 0.0, "energy_gravity": 0.0,
         "momentum": [0.0] * 3, "angular_momentum": [0.0] * 3}
    for i, p in enumerate(parts):
        if not free[i]:
            continue
        e["energy_translational"] += 0.5 * mass[i] * dot(p["vel"], p["vel"])
        e["energy_rotational"] += 0.5 * inert[i] * dot(p["angvel"], p["angvel"])
        e["energy_gravity"] -= mass[i] * dot(d["gravity"], p["pos"])
        e["momentum"] = add(e["momentum"], mul(p["vel"], mass[i]))
        e["angular_momentum"] = add(e["angular_momentum"],
                                    add(cross(p["pos"], mul(p["vel"], mass[i])), mul(p["angvel"], inert[i])))
    e["energy_contact"] = econt
    out = []
    for i, p in enumerate(parts):
        q = dict(p)
        x, v, w, qu = p["pos"], p["vel"], p["angvel"], p["quat"]
        if not free[i]:
            q["pos"], q["quat"] = add(x, mul(v, dt)), quat_advance(qu, w, dt)
        elif scheme == "explicit-euler":
            q["pos"], q["quat"] = add(x, mul(v, dt)), quat_advance(qu, w, dt)
            q["vel"] = add(v, mul(F[i], dt / mass[i]))
            q["angvel"] = add(w, mul(T[i], dt / inert[i]))
        else:
            h = dt if scheme == "symplectic-euler" else 0.5 * dt
            q["vel"] = add(v, mul(F[i], h / mass[i]))
            q["angvel"] = add(w, mul(T[i], h / inert[i]))
            q["pos"], q["quat"] = add(x, mul(q["vel"], dt)), quat_advance(qu, q["angvel"], dt)
            if scheme == "velocity-verlet":
                q["flags"] = p["flags"] | 2
        out.append(q)
    return out, e


def close(got, want, what, tol=1e-12):
    g = got if isinstance(got, list) else [got]
    w = want if isinstance(want, list) else [want]
    for a, b in zip(g, w):
        if not abs(a - b) <= tol * (1 + abs(b)):
            sys.exit("%s: got %r, want %r" % (what, got, want))


def check(a):
    doc = json.load(open(a.json))
    scheme = a.scheme or doc["setup"]["scheme"]
    dt = a.dt or doc["setup"]["dt"]
    want, e = reference(doc, scheme, dt)
    recs = list(records(open(a.out, "rb").read()))
    types = [t for t, _ in recs]
    if types != [1, 2, 2, 7, 4, 7, 99]:
        sys.exit("record types %r, want setup, 2 mesh, the old stats, the new frame, "
                 "mrdem-step's stats and the unknown record (pairs and contacts dropped)" % types)
    if recs[6][1] != b"future record" or recs[3][1] != OLD_STATS:
        sys.exit("records not passed through unchanged")
    step, time, parts = decode_frame(recs[4][1])
    if step != doc["step"] + 1:
        sys.exit("frame step %d, want %d" % (step, doc["step"] + 1))
    close(time, doc["time"] + dt, "time")
    for g, w in zip(parts, want):
        for key in ("id", "shape", "flags", "density", "eps"):
            if g[key] != w[key]:
                sys.exit("particle %d: %s %r, want %r" % (w["id"], key, g[key], w[key]))
        for key in ("pos", "quat", "vel", "angvel"):
            close(g[key], w[key], "particle %d %s" % (w["id"], key))
    source, sstep, vals = decode_stats(recs[5][1])
    if source != "mrdem-step" or sstep != doc["step"]:
        sys.exit("stats record from %r for step %d" % (source, sstep))
    for name in ("energy_translational", "energy_rotational", "energy_gravity", "energy_contact"):
        close(vals[name], e[name], name)
    close(vals["energy_total"], e["energy_translational"] + e["energy_rotational"] +
          e["energy_gravity"] + e["energy_contact"], "energy_total")
    close([vals["momentum_" + c] for c in "xyz"], e["momentum"], "momentum")
    close([vals["angular_momentum_" + c] for c in "xyz"], e["angular_momentum"], "angular momentum")
    close(vals["time"], doc["time"], "stats time")
    close(vals["dt"], dt, "stats dt")
    nplane = sum(1 for ct in doc["contacts"] if ct["b"] >= 2**64 - 2**32)
    if vals["contacts"] != len(doc["contacts"]) or vals["contacts_plane"] != nplane:
        sys.exit("stats contacts %r / plane %r" % (vals["contacts"], vals["contacts_plane"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["gen", "check"])
    ap.add_argument("out")
    ap.add_argument("json")
    ap.add_argument("--scheme", choices=SCHEMES)
    ap.add_argument("--model", choices=MODELS, default="spring-dashpot")
    ap.add_argument("--no-contacts", action="store_true")
    ap.add_argument("--contact-step", type=int)
    ap.add_argument("--dt", type=float)
    a = ap.parse_args()
    if a.mode == "gen":
        a.scheme = a.scheme or "symplectic-euler"
        gen(a)
    else:
        check(a)


if __name__ == "__main__":
    main()
