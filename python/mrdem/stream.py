"""The mrdem stream reader: framing (gzip or plain content, concatenated
streams, critical/ancillary records, end records) and the payload layouts
of every record type this package knows."""

import gzip
import io
import math
import os
import struct
import time
import zlib

try:  # optional: arrays become numpy arrays
    if os.environ.get("MRDEM_NO_NUMPY"):
        raise ImportError
    import numpy as _np
except ImportError:
    _np = None

MAGIC = b"\x89MRDEM\r\n"
SETUP, MESH, TREE, FRAME, PAIRS, CONTACTS, STATS, META, INDEX, END = range(1, 11)
# The records of an implicit step in progress between the tools: known (so
# critical ones are accepted) and skipped by read().
PICARD, FRONTS, GUESSES = 11, 12, 13
# The patch force models' parameters (after the setup) and a frame's
# contact springs (after the frame); an analytic shape (kind and semi-axes).
CONTACT_MODEL, HISTORY, SHAPE = 14, 15, 16
# The scene's materials, their pair overrides and the planes' materials.
MATERIALS = 17
# A shape that is another (a smaller id) scaled: read() derives it.
SCALED_SHAPE = 18
# A scene's particle insertions and remove regions (after the shapes).
INFLOW, OUTFLOW = 20, 21
# The prescribed motions of moving walls (after the setup).
MOTION = 19
NAMES = {SETUP: "setup", MESH: "mesh", TREE: "tree", FRAME: "frame", PAIRS: "pairs",
         CONTACTS: "contacts", STATS: "stats", META: "meta", INDEX: "index", END: "end",
         PICARD: "picard", FRONTS: "fronts", GUESSES: "guesses",
         CONTACT_MODEL: "contact_model", HISTORY: "history", SHAPE: "shape",
         MATERIALS: "materials",
         SCALED_SHAPE: "scaled_shape",
         MOTION: "motion",
         INFLOW: "inflow", OUTFLOW: "outflow"}
REGION_KINDS = {1: "box", 2: "cylinder", 3: "outside"}
MOTION_KINDS = {1: "velocity", 2: "rotate", 3: "oscillate"}
# Shape kinds: a mesh record's shape is a "mesh", a shape record's one of the
# others; a shape record of kind 3 follows the mesh record of its shape and
# makes that shape "convex" (its mesh is the convex polyhedron).
SHAPE_KINDS = {1: "analytic-sphere", 2: "ellipsoid", 3: "convex"}
CONVEX = 3
ANCILLARY = 1
SCHEMES = ["explicit-euler", "symplectic-euler", "velocity-verlet", "implicit-euler"]
FORCE_MODELS = ["paper", "spring-dashpot", "hooke", "hertz"]
# Column types of version 2 frames: struct code and size.
COLUMN_TYPES = {1: ("I", 4), 2: ("Q", 8), 3: ("d", 8)}
# Version 1 frames: the same columns in this order, without a table.
V1_COLUMNS = [("id", 2, 1), ("shape", 1, 1), ("flags", 1, 1), ("position", 3, 3),
              ("orientation", 3, 4), ("velocity", 3, 3), ("angular_velocity", 3, 3),
              ("density", 3, 1), ("epsilon", 3, 1)]


class StreamError(Exception):
    """A stream that does not follow the format: the message names the
    input, the record and its byte offset."""


def _array(values, width):
    """values (flat) as an (n, width) array, or n-vector when width is 1."""
    if _np is not None:
        a = _np.asarray(values)
        return a if width == 1 else a.reshape(-1, width)
    if width == 1:
        return list(values)
    return [tuple(values[i:i + width]) for i in range(0, len(values), width)]


class _Cursor:
    def __init__(self, data, where):
        self.data, self.pos, self.where = data, 0, where

    def take(self, fmt):
        size = struct.calcsize("<" + fmt)
        if self.pos + size > len(self.data):
            raise StreamError("%s: payload too short" % self.where)
        v = struct.unpack_from("<" + fmt, self.data, self.pos)
        self.pos += size
        return v

    def one(self, fmt):
        return self.take(fmt)[0]

    def many(self, code, n):
        return self.take("%d%s" % (n, code)) if n else ()

    def str(self):
        n = self.one("I")
        if self.pos + n > len(self.data):
            raise StreamError("%s: string longer than the payload" % self.where)
        s = self.data[self.pos:self.pos + n].decode("utf-8", "replace")
        self.pos += n
        return s

    def done(self):
        if self.pos != len(self.data):
            raise StreamError("%s: %d unexpected bytes after the payload"
                              % (self.where, len(self.data) - self.pos))


class Shape:
    """A shape: name, kind ("mesh", "analytic-sphere", "ellipsoid" or "convex"),
    vertices (n, 3) in the shape frame, triangles (m, 3) (none for the
    analytic kinds), semi-axes (analytic kinds, else None), volume, centre
    of mass, inertia (xx yy zz xy yz xz, unit density), open."""

    def __init__(self, id_, name, vertices, triangles, volume, com, inertia, open_,
                 kind="mesh", axes=None):
        self.id, self.name, self.kind, self.axes = id_, name, kind, axes
        self.vertices, self.triangles = vertices, triangles
        self.volume, self.com, self.inertia, self.open = volume, com, inertia, open_
        self.has_tree = False
        self.base, self.scale = None, 1.0  # a scaled shape's base id and factor

    def scaled(self, id_, name, scale):
        """This shape scaled by scale, as the C reader derives it: vertices,
        centre of mass and semi-axes times scale, volume scale^3, inertia
        scale^5; its tree is this shape's, scaled."""
        s3, s5 = scale * scale * scale, scale * scale * scale * scale * scale
        if self.axes is not None:  # analytic: mass in closed form from the axes
            out = _analytic(id_, name, self.kind, tuple(x * scale for x in self.axes))
        else:
            if _np is not None and hasattr(self.vertices, "shape"):
                verts = self.vertices * scale
            else:
                verts = [tuple(x * scale for x in row) for row in self.vertices]
            out = Shape(id_, name, verts, self.triangles, self.volume * s3,
                        tuple(x * scale for x in self.com), tuple(x * s5 for x in self.inertia),
                        self.open, self.kind)
        out.has_tree, out.base, out.scale = self.has_tree, self.id, scale
        return out


class Frame:
    """Particle state at one time: step, time and named columns
    (frame["position"], ...); columns this package does not know are kept too."""

    def __init__(self, step, time_, n, columns):
        self.step, self.time, self.n, self.columns = step, time_, n, columns

    def __getitem__(self, name):
        return self.columns[name]

    def __contains__(self, name):
        return name in self.columns

    def __repr__(self):
        return "Frame(step=%d, time=%g, n=%d)" % (self.step, self.time, self.n)


class Contact:
    """Contact points of one frame: a, b (particle ids), tri_a, tri_b, x
    (point), normal, dist, depth as arrays."""

    def __init__(self, step, fields):
        self.step = step
        self.__dict__.update(fields)
        self.n = len(fields["a"])


class Stats:
    """Named values of one tool for one step."""

    def __init__(self, source, step, values):
        self.source, self.step, self.values = source, step, values


class Stream:
    """Everything a stream holds, in order: setup (dict), shapes, frames,
    contacts, pairs (step -> list of (a, b)), stats, meta (list of dicts)."""

    def __init__(self):
        self.setup, self.shapes, self.frames = None, [], []
        self.contacts, self.pairs, self.stats, self.meta = [], {}, [], []
        self.history = {}  # step -> the contact springs of that frame
        # None without materials, else {"materials": [{"name", "density",
        # parameters...}], "pairs": [{"a", "b", parameters...}],
        # "planes": [material index per plane]}
        self.materials = None
        self.inflow, self.outflow = [], []  # insertions, remove regions (dicts)
        self.motions = []  # the prescribed motions of moving walls (dicts)


def _setup(c):
    g = c.take("3d")
    model = c.one("I")
    stiffness, damping, friction, plane_eps, dt = c.take("5d")
    steps, scheme, every, nplanes = c.take("QIQI")
    planes = [(c.take("3d"), c.take("3d")) for _ in range(nplanes)]
    c.done()
    if model >= len(FORCE_MODELS) or scheme >= len(SCHEMES):
        raise StreamError("%s: unknown force model %d or scheme %d" % (c.where, model, scheme))
    return {"gravity": g, "force_model": FORCE_MODELS[model], "stiffness": stiffness,
            "damping": damping, "friction": friction, "plane_epsilon": plane_eps, "dt": dt,
            "steps": steps, "scheme": SCHEMES[scheme], "output_every": every, "planes": planes}


def _mesh(c):
    id_ = c.one("I")
    name = c.str()
    flags, nv, nt = c.take("III")
    volume = c.one("d")
    com, inertia = c.take("3d"), c.take("6d")
    verts = c.many("d", 3 * nv)
    tris = c.many("I", 3 * nt)
    c.done()
    return Shape(id_, name, _array(verts, 3), _array(tris, 3), volume, com, inertia,
                 bool(flags & 1))


def _shape(c):
    """An analytic shape; mass properties in closed form, as the C reader."""
    id_ = c.one("I")
    name = c.str()
    kind = c.one("I")
    axes = c.take("3d")
    c.done()
    if kind not in SHAPE_KINDS:
        raise StreamError("%s: shape '%s': unknown shape kind %d" % (c.where, name, kind))
    if kind == CONVEX:  # marks the mesh before it (read() checks that)
        if any(axes):
            raise StreamError("%s: shape '%s': a convex shape's semi-axes must be zero"
                              % (c.where, name))
        return Shape(id_, name, None, None, 0.0, None, None, False, "convex")
    if not all(x > 0 and math.isfinite(x) for x in axes):
        raise StreamError("%s: shape '%s': bad semi-axes %r" % (c.where, name, axes))
    return _analytic(id_, name, SHAPE_KINDS[kind], axes)


def _analytic(id_, name, kind, axes):
    """An analytic shape of these semi-axes, mass properties in closed form."""
    a, b, cc = axes
    v = 4.0 / 3.0 * math.pi * a * b * cc
    inertia = (v * (b * b + cc * cc) / 5, v * (a * a + cc * cc) / 5, v * (a * a + b * b) / 5,
               0.0, 0.0, 0.0)
    return Shape(id_, name, _array([], 3), _array([], 3), v, (0.0, 0.0, 0.0), inertia, False,
                 kind, tuple(axes))


def _frame(c, version):
    step, time_, n = c.take("QdQ")
    if version == 1:
        table = V1_COLUMNS
    else:
        table = [(c.str(),) + c.take("II") for _ in range(c.one("I"))]
    columns = {}
    for name, ctype, k in table:
        if ctype not in COLUMN_TYPES:
            raise StreamError("%s: column '%s' of unknown type %d" % (c.where, name, ctype))
        columns[name] = _array(c.many(COLUMN_TYPES[ctype][0], n * k), k)
    c.done()
    return Frame(step, time_, n, columns)


def _contacts(c):
    step, n = c.take("QQ")
    rows = [c.take("QQII8d") for _ in range(n)]
    c.done()
    cols = list(zip(*rows)) if rows else [()] * 12
    flat = lambda i, k: [v for r in rows for v in r[i:i + k]]
    return Contact(step, {"a": _array(cols[0], 1), "b": _array(cols[1], 1),
                          "tri_a": _array(cols[2], 1), "tri_b": _array(cols[3], 1),
                          "x": _array(flat(4, 3), 3), "normal": _array(flat(7, 3), 3),
                          "dist": _array(cols[10], 1), "depth": _array(cols[11], 1)})


def _stats(c):
    source = c.str()
    step, n = c.take("QI")
    values = {}
    for _ in range(n):
        name = c.str()
        values[name] = c.one("d")
    c.done()
    return Stats(source, step, values)


def _meta(c):
    tool, version = c.str(), c.str()
    values = {}
    for _ in range(c.one("I")):
        k = c.str()
        values[k] = c.str()
    c.done()
    return {"tool": tool, "version": version, "values": values}


def _name(path):
    """What messages call the input path: a file name (str or os.PathLike)
    as given, the stream's bytes (bytes, bytearray, memoryview) by their
    type and length, never their content; TypeError for anything else."""
    if isinstance(path, (bytes, bytearray, memoryview)):
        return "<%s of %s bytes>" % (type(path).__name__, format(memoryview(path).nbytes, ","))
    if isinstance(path, (str, os.PathLike)):
        return path
    raise TypeError("mrdem: expected a file name or the stream's bytes, got %s"
                    % type(path).__name__)


class _Source:
    """Uncompressed stream content from a file or a growing file: gzip
    members one after another (or plain content), read as it arrives."""

    def __init__(self, path, follow, poll):
        name = _name(path)
        if isinstance(path, (bytes, bytearray, memoryview)):  # stream content in memory
            self.f = io.BytesIO(path)
        else:
            self.f = open(path, "rb")
        self.path, self.follow, self.poll = name, follow, poll
        self.buf, self.z, self.gzip, self.eof = b"", None, None, False

    def _more(self):
        chunk = self.f.read(1 << 16)
        if not chunk:
            return False
        if self.gzip is None:
            self.gzip = chunk[:2] == b"\x1f\x8b"
        if not self.gzip:
            self.buf += chunk
            return True
        data = chunk
        while data:
            if self.z is None:
                self.z = zlib.decompressobj(16 + zlib.MAX_WBITS)
            try:
                self.buf += self.z.decompress(data)
            except zlib.error as e:
                raise StreamError("%s: corrupt compressed data: %s" % (self.path, e))
            data = self.z.unused_data
            if self.z.eof:
                if data and data[:2] != b"\x1f\x8b" and len(data) >= 2:
                    raise StreamError("%s: unexpected bytes after the end of the gzip data"
                                      % self.path)
                self.z = None
        return True

    def need(self, n):
        """At least n bytes buffered: True, or False at the end of input."""
        while len(self.buf) < n:
            if self._more():
                continue
            if not self.follow:
                return False
            time.sleep(self.poll)
        return True

    def take(self, n):
        out, self.buf = self.buf[:n], self.buf[n:]
        return out


def records(path, follow=False, poll=0.5):
    """Yield (type, flags, payload, version) of every record of path (a
    file name, or the stream's bytes), end records included; follow=True
    waits for more data until the end record of the stream arrives (a run
    still being written), and stops there."""
    src = _Source(path, follow, poll)
    path = src.path  # the name for messages (the bytes' type and length)
    index, offset, version, ended = 0, 0, None, True
    try:
        while True:
            if not src.need(16):
                if version is None and not src.buf:
                    raise StreamError("%s: empty input (not an mrdem stream)" % path)
                if src.buf:
                    raise StreamError("%s: truncated stream at byte %d" % (path, offset))
                if not ended and version != 1:
                    raise StreamError("%s: incomplete stream: no end record" % path)
                return
            if src.buf[:8] == MAGIC:
                head = src.take(16)
                version, flags = struct.unpack_from("<II", head, 8)
                if version not in (1, 2):
                    raise StreamError("%s: unsupported stream version %d" % (path, version))
                if flags:
                    raise StreamError("%s: reserved header flags set (corrupt stream)" % path)
                index, ended, offset = 0, False, offset + 16
                if not follow and version == 2 and not src.need(1):
                    raise StreamError("%s: incomplete stream: no end record" % path)
                continue
            if version is None:
                raise StreamError("%s: not an mrdem stream (bad magic at byte 0)" % path)
            if ended:
                raise StreamError("%s: record after the end record at byte %d" % (path, offset))
            rtype, flags, length = struct.unpack_from("<IIQ", src.buf)
            if not src.need(16 + length + 4):
                raise StreamError("%s: truncated stream: record %d at byte %d is incomplete"
                                  % (path, index, offset))
            raw = src.take(16 + length + 4)
            (crc,) = struct.unpack_from("<I", raw, 16 + length)
            if zlib.crc32(raw[:16 + length]) & 0xFFFFFFFF != crc:
                raise StreamError("%s: record %d at byte %d: checksum mismatch"
                                  % (path, index, offset))
            known_class = ANCILLARY if rtype in (STATS, META, INDEX) else 0
            if flags & ~ANCILLARY or (version == 1 and flags):
                raise StreamError("%s: record %d at byte %d: reserved flags set (corrupt record)"
                                  % (path, index, offset))
            if version == 2 and rtype in NAMES and flags != known_class:
                raise StreamError("%s: record %d at byte %d: %s record of the wrong class"
                                  % (path, index, offset, NAMES[rtype]))
            if version == 2 and rtype not in NAMES and not flags:
                raise StreamError("%s: record %d at byte %d: unknown critical record type %d"
                                  % (path, index, offset, rtype))
            ended = rtype == END and version == 2
            if ended and struct.unpack_from("<Q", raw, 16)[0] != index:
                raise StreamError("%s: the end record counts %d records, the stream holds %d"
                                  % (path, struct.unpack_from("<Q", raw, 16)[0], index))
            yield rtype, flags, raw[16:16 + length], version
            index, offset = index + 1, offset + len(raw)
            if ended and follow:
                return  # the followed stream is complete
    finally:
        src.f.close()


def _region(c):
    kind = c.one("I")
    if kind not in REGION_KINDS:
        raise StreamError("%s: unknown region kind %d" % (c.where, kind))
    a, b, radius = c.take("3d"), c.take("3d"), c.one("d")
    r = {"kind": REGION_KINDS[kind]}
    if kind == 2:
        r.update(point=a, end=b, radius=radius)
    else:
        r.update(min=a, max=b)
    return r


def _inflow(c):
    out = []
    for _ in range(c.one("I")):
        d = {"region": _region(c), "shapes": []}
        for _ in range(c.one("I")):
            shape, material, fraction, density, eps = c.take("2I3d")
            d["shapes"].append({"shape": shape, "material": material, "fraction": fraction,
                                "density": density, "epsilon": eps})
        d["velocity"], d["angular_velocity"] = c.take("3d"), c.take("3d")
        rnd, quat = c.one("I"), c.take("4d")
        d["orientation"] = "random" if rnd else quat
        (d["seed"], d["first_id"], d["total"], d["start_step"], d["per_step"],
         d["dt"]) = c.take("QQQQdd")
        out.append(d)
    c.done()
    return out


def _outflow(c):
    out = [_region(c) for _ in range(c.one("I"))]
    c.done()
    return out


def _decode(rtype, payload, version, where):
    c = _Cursor(payload, where)
    if rtype == SETUP:
        return _setup(c)
    if rtype == MESH:
        return _mesh(c)
    if rtype == SHAPE:
        return _shape(c)
    if rtype == SCALED_SHAPE:
        id_ = c.one("I")
        name = c.str()
        base, scale = c.one("I"), c.one("d")
        c.done()
        if base >= id_ or not (scale > 0 and math.isfinite(scale)):
            raise StreamError("%s: scaled shape %d '%s': base %d or scale %r is bad"
                              % (c.where, id_, name, base, scale))
        return id_, name, base, scale
    if rtype == FRAME:
        return _frame(c, version)
    if rtype == CONTACTS:
        return _contacts(c)
    if rtype == PAIRS:
        step, n = c.take("QQ")
        p = c.many("Q", 2 * n)
        c.done()
        return step, list(zip(p[0::2], p[1::2]))
    if rtype == STATS:
        return _stats(c)
    if rtype == META:
        return _meta(c)
    if rtype == CONTACT_MODEL:
        c.one("I")
        params = _params(c)
        c.done()
        return params
    if rtype == MATERIALS:
        return _materials(c)
    if rtype == INFLOW:
        return _inflow(c)
    if rtype == OUTFLOW:
        return _outflow(c)
    if rtype == HISTORY:
        step, n = c.take("QQ")
        # springs of 88 bytes, or of 96 with the twisting torque
        twist = n > 0 and (len(payload) - 16) // n == 96
        springs = []
        for _ in range(n):
            a, b = c.take("QQ")
            springs.append({"a": a, "b": b, "anchor": c.take("3d"), "shear": c.take("3d"),
                            "roll": c.take("3d"), "twist": c.one("d") if twist else 0.0})
        c.done()
        return step, springs
    if rtype == MOTION:
        return _motion(c)
    return None


def _params(c):
    """Named f64 parameters: a count, then name and value each."""
    params = {}
    for _ in range(c.one("I")):
        name = c.str()
        params[name] = c.one("d")
    return params


def _materials(c):
    mats = []
    for _ in range(c.one("I")):
        m = {"name": c.str(), "density": c.one("d")}
        m.update(_params(c))
        mats.append(m)
    pairs = []
    for _ in range(c.one("I")):
        a, b = c.take("II")
        p = {"a": a, "b": b}
        p.update(_params(c))
        pairs.append(p)
    planes = list(c.many("I", c.one("I")))
    c.done()
    return {"materials": mats, "pairs": pairs, "planes": planes}


def _motion(c):
    """The motions of moving walls: a dict per wall (target: particle id or
    plane id 2**64 - 1 - k, kind, start, reference pose, parameters)."""
    out = []
    for _ in range(c.one("I")):
        target, kind = c.take("QI")
        if kind not in MOTION_KINDS:
            raise StreamError("%s: motion of %d: unknown kind %d" % (c.where, target, kind))
        m = {"target": target, "kind": MOTION_KINDS[kind], "start": c.one("d"),
             "position": c.take("3d"), "orientation": c.take("4d"), "normal": c.take("3d"),
             "direction": c.take("3d"), "point": c.take("3d")}
        m["omega"], m["amplitude"], m["frequency"] = c.take("3d")
        out.append(m)
    c.done()
    return out


def frames(path, follow=False, poll=0.5):
    """Yield the frames of a stream one by one (follow: of a growing file)."""
    name = _name(path)
    for k, (rtype, _flags, payload, version) in enumerate(records(path, follow, poll)):
        if rtype == FRAME:
            yield _decode(rtype, payload, version, "%s: record %d" % (name, k))


def read(path):
    """The whole stream. Framing, checksums and payload layouts are checked
    (StreamError); the meaning of values (finite numbers, shape references)
    is mrdem-info's to check. The last stream of a concatenation gives setup
    and shapes; frames, contacts, pairs and stats of all are kept."""
    s, name = Stream(), _name(path)
    for k, (rtype, _flags, payload, version) in enumerate(records(path)):
        v = _decode(rtype, payload, version, "%s: record %d" % (name, k))
        if rtype == SETUP:
            s.setup = v
        elif rtype == SHAPE and v.kind == "convex":
            last = s.shapes[-1] if s.shapes else None
            if not last or last.id != v.id or last.name != v.name or last.kind != "mesh":
                raise StreamError("%s: record %d: convex shape %d '%s' does not follow the "
                                  "mesh record of its shape" % (name, k, v.id, v.name))
            last.kind = "convex"
        elif rtype in (MESH, SHAPE):
            if v.id == 0:
                s.shapes = []
            s.shapes.append(v)
        elif rtype == SCALED_SHAPE:
            id_, sname, base, scale = v
            if id_ != len(s.shapes) or s.shapes[base].base is not None:
                raise StreamError("%s: record %d: scaled shape %d '%s' is out of order or "
                                  "its base %d is scaled" % (name, k, id_, sname, base))
            s.shapes.append(s.shapes[base].scaled(id_, sname, scale))
        elif rtype == TREE and s.shapes:
            s.shapes[-1].has_tree = True
            for sh in s.shapes:  # shapes scaled from it take its tree
                if sh.base == s.shapes[-1].id:
                    sh.has_tree = True
        elif rtype == FRAME:
            s.frames.append(v)
        elif rtype == CONTACTS:
            s.contacts.append(v)
        elif rtype == PAIRS:
            s.pairs[v[0]] = v[1]
        elif rtype == STATS:
            s.stats.append(v)
        elif rtype == CONTACT_MODEL:
            s.setup.update(v)
        elif rtype == HISTORY:
            s.history[v[0]] = v[1]
        elif rtype == MATERIALS:
            s.materials = v
        elif rtype == MOTION:
            s.motions = v
        elif rtype == META:
            s.meta.append(v)
        elif rtype == INFLOW:
            s.inflow = v
        elif rtype == OUTFLOW:
            s.outflow = v
    return s
