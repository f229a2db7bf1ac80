#!/usr/bin/env python3
"""Writer of hand-made mrdem streams, format version 2 (docs/stream-format.md),
for the tests' inputs; reading goes through the project's Python package
(python/mrdem), so the tests exercise it. As a command (--help):

  mrdem_stream.py FILE         one line per record of FILE (gzip): TYPE
                               LENGTH; exit 1 on any framing or checksum problem
  mrdem_stream.py --same A B [--except NAME,...]
                               exit 0 when streams A and B hold the same
                               records (meta, index and end aside; stats
                               without the values named), else say where
                               they differ and exit 1
  mrdem_stream.py --set IN OUT COLUMN PARTICLE VALUE[,VALUE...]
                               copy IN to OUT with that particle's column
                               set in every frame
  mrdem_stream.py --pick OUT FILE:TYPE...
                               write OUT from the first record of TYPE
                               (mesh, tree, ...) of each FILE, in that order

Frames are handled in the fixed column order of this build (id, shape,
flags, position, orientation, velocity, angular_velocity, density,
epsilon): with_columns() adds the column table a version 2 frame carries,
records() strips it again."""
import argparse, contextlib, gzip, os, struct, sys, zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import mrdem  # noqa: E402  (the project's reader: python/mrdem)

MAGIC = b"\x89MRDEM\r\n"
HEADER = MAGIC + struct.pack("<II", 2, 0)
PLANE_ID = lambda k: 2**64 - 1 - k
ANCILLARY = {7, 8, 9}  # stats, meta, index
META, INDEX, END = 8, 9, 10
# the critical types (picard, fronts, guesses, contact_model, history,
# shape, materials, scaled_shape, motion, inflow, outflow too)
CRITICAL = {1, 2, 3, 4, 5, 6, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21}
COLUMNS = [("id", 2, 1), ("shape", 1, 1), ("flags", 1, 1), ("position", 3, 3),
           ("orientation", 3, 4), ("velocity", 3, 3), ("angular_velocity", 3, 3),
           ("density", 3, 1), ("epsilon", 3, 1)]


def s(text):
    """A length-prefixed string."""
    b = text.encode()
    return struct.pack("<I", len(b)) + b


COLUMN_TABLE = struct.pack("<I", len(COLUMNS)) + b"".join(
    s(n) + struct.pack("<II", t, k) for n, t, k in COLUMNS)


def record(rtype, payload, flags=None):
    """One framed record: header (with the type's class flag), payload, CRC-32."""
    if flags is None:
        flags = 0 if rtype in CRITICAL else 1
    head = struct.pack("<IIQ", rtype, flags, len(payload))
    return head + payload + struct.pack("<I", zlib.crc32(head + payload) & 0xFFFFFFFF)


def with_columns(fixed):
    """A version 2 frame payload from step, time, n and the fixed columns."""
    return fixed[:24] + COLUMN_TABLE + fixed[24:]


def finish(stream):
    """Close a stream (HEADER + records) with its end record."""
    count = sum(1 for _ in _walk(stream))
    return stream + record(END, struct.pack("<QQ", count, 0))


def f64s(v):
    """A sequence of little-endian doubles."""
    return struct.pack("<%dd" % len(v), *v)


def _walk(data):
    pos = 0
    while pos < len(data):
        if data[pos:pos + 8] == MAGIC:
            version, flags = struct.unpack_from("<II", data, pos + 8)
            if version != 2 or flags:
                raise ValueError("bad header at %d" % pos)
            pos += 16
            continue
        rtype, flags, length = struct.unpack_from("<IIQ", data, pos)
        payload = data[pos + 16:pos + 16 + length]
        (crc,) = struct.unpack_from("<I", data, pos + 16 + length)
        if len(payload) != length or zlib.crc32(data[pos:pos + 16 + length]) != crc or flags & ~1:
            raise ValueError("bad record at byte %d" % pos)
        yield rtype, payload
        pos += 20 + length


def records(data, everything=False):
    """(type, payload) of each record, read by the project's Python package
    (python/mrdem); frames in the fixed column order, without the columns
    after the fixed ones (velocity_half, angular_velocity_half of a
    synchronised Verlet frame). Meta, index and end records are left out
    unless everything is set."""
    for rtype, _flags, payload, _version in mrdem.records(bytes(data)):
        if rtype in (META, INDEX, END) and not everything:
            continue
        if rtype == 4:
            payload = _fixed_columns(payload)
        yield rtype, payload


def read(path, everything=False):
    """The records() of the stream in file path, as a list."""
    with open(path, "rb") as f:
        return list(records(f.read(), everything))


def read_stored(path):
    """(type, payload) of each record of the stream in file path as stored
    (frames with all their columns), meta, index and end records left out."""
    with open(path, "rb") as f:
        return [(t, p) for t, _f, p, _v in mrdem.records(f.read()) if t not in (META, INDEX, END)]


def write(path, recs):
    """Write (type, payload) records, framed, as a complete gzip stream."""
    with open(path, "wb") as f:
        f.write(gzip.compress(finish(HEADER + b"".join(record(t, p) for t, p in recs))))


def _fixed_columns(payload):
    """A frame payload with the fixed columns only, in the fixed order."""
    if payload[24:24 + len(COLUMN_TABLE)] == COLUMN_TABLE:
        return payload[:24] + payload[24 + len(COLUMN_TABLE):]
    (n,) = struct.unpack_from("<Q", payload, 16)
    (ncols,) = struct.unpack_from("<I", payload, 24)
    pos, cols = 28, []
    for _ in range(ncols):
        (ln,) = struct.unpack_from("<I", payload, pos)
        name = payload[pos + 4:pos + 4 + ln].decode()
        t, k = struct.unpack_from("<II", payload, pos + 4 + ln)
        cols.append((name, t, k))
        pos += 12 + ln
    if cols[:len(COLUMNS)] != COLUMNS:
        raise ValueError("frame columns differ from this helper's fixed order")
    size = sum(n * k * (4 if t == 1 else 8) for _name, t, k in COLUMNS)
    return payload[:24] + payload[pos:pos + size]


@contextlib.contextmanager
def named(path):
    """A StreamError of the bytes read from file path names that file."""
    try:
        yield
    except mrdem.StreamError as e:
        text = str(e)
        if text.startswith("<") and ">: " in text:
            raise mrdem.StreamError(path + text[text.index(">: ") + 1:]) from None
        raise


STATS = 7


def _without(payload, names):
    """A stats record's payload as (source, step, values) less the values
    named in names."""
    st = mrdem.stream._stats(mrdem.stream._Cursor(payload, "stats"))
    return (st.source, st.step, sorted((k, v) for k, v in st.values.items() if k not in names))


def same_content(a, b, except_names=()):
    """Whether two streams hold the same records, meta records aside (they
    name the command line, which differs in its file names) and the index
    (its compressed offsets move with the meta records) and the end record
    (its count too; the reader checks it); stats records compared without
    the values named in except_names."""
    def content(path):
        with open(path, "rb") as f:
            data = f.read()
        with named(path):  # frames as written: columns beyond the fixed ones too
            return [(t, _without(p, except_names) if t == STATS and except_names else p)
                    for t, _f, p, _v in mrdem.records(bytes(data))
                    if t not in (META, INDEX, END)]
    ra, rb = content(a), content(b)
    for k, (x, y) in enumerate(zip(ra, rb)):
        if x != y:
            print("%s and %s differ in record %d (types %d, %d)" % (a, b, k, x[0], y[0]))
            return False
    if len(ra) != len(rb):
        print("%s has %d records, %s %d" % (a, len(ra), b, len(rb)))
        return False
    return True


def rewrite(src, dst, edit):
    """Copy the stream in file src to file dst, each record's (type, payload)
    (as records() gives them: frames in the fixed column order) through
    edit(type, payload) -> the new payload, or None to drop the record."""
    out = HEADER
    for rtype, payload in records(open(src, "rb").read()):
        payload = edit(rtype, payload)
        if payload is not None:
            out += record(rtype, with_columns(payload) if rtype == 4 else payload)
    with open(dst, "wb") as fh:
        fh.write(gzip.compress(finish(out), compresslevel=1, mtime=0))


def set_particle(payload, column, i, values):
    """A frame payload (fixed column order) with particle i's column set to
    values (a sequence of its components)."""
    (n,) = struct.unpack_from("<Q", payload, 16)
    pos = 24
    for name, ctype, k in COLUMNS:
        code = {1: "I", 2: "Q", 3: "d"}[ctype]
        size = struct.calcsize(code) * k
        if name == column:
            at = pos + i * size
            return payload[:at] + struct.pack("<%d%s" % (k, code), *values) + payload[at + size:]
        pos += n * size
    raise KeyError(column)


def pick(parser, out, sources):
    """Write out from the first record of each FILE:TYPE of sources."""
    codes = {v: k for k, v in mrdem.stream.NAMES.items()}
    if not sources:
        parser.error("--pick: give OUT and at least one FILE:TYPE")
    recs = []
    for source in sources:
        path, _, name = source.rpartition(":")
        if not path or name not in codes:
            parser.error("--pick: '%s' is not FILE:TYPE (a record name)" % source)
        found = [p for t, p in read_stored(path) if t == codes[name]]
        if not found:
            raise ValueError("%s: no %s record" % (path, name))
        recs.append((codes[name], found[0]))
    write(out, recs)


USAGE = """mrdem_stream.py FILE
       mrdem_stream.py --same A B [--except NAME,...]
       mrdem_stream.py --set IN OUT COLUMN PARTICLE VALUE[,VALUE...]
       mrdem_stream.py --pick OUT FILE:TYPE...
       mrdem_stream.py --help"""
MODES = """modes:
  FILE          print one line per record of FILE (a gzip stream): its type
                and payload length; exit 1 on any framing or checksum problem
  --same A B    exit 0 when streams A and B hold the same records, meta, index
                and end records aside (they name the command line); else
                print where they differ and exit 1
  --set IN OUT COLUMN PARTICLE VALUE[,VALUE...]
                copy IN to OUT with particle PARTICLE's column COLUMN (a
                frame column: id, eps, position, ...) set to the values in
                every frame (a test's bad input)
  --pick OUT FILE:TYPE...
                write OUT from the first record of type TYPE (a record
                name: mesh, tree, ...) of each FILE, in that order (records
                of different streams put together: a test's bad input)

Imported (tests/e2e/*.py and *.sh), the module writes hand-made streams:
record(), with_columns(), finish(), f64s(), s(), rewrite(), set_particle(),
write() and reads them: records(), read(), read_stored()."""


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="mrdem_stream.py", usage=USAGE, epilog=MODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="List the records of an mrdem stream, compare two streams or write one with a "
                    "particle's column changed, "
                    "reading them with the project's Python package (python/mrdem).")
    parser.add_argument("file", nargs="?", metavar="FILE", help="the stream to list")
    parser.add_argument("--same", nargs=2, metavar=("A", "B"),
                        help="compare streams A and B (status 0: the same records)")
    parser.add_argument("--except", dest="except_names", metavar="NAME,...", default="",
                        help="with --same: stats values of these names are not compared")
    parser.add_argument("--pick", nargs="+", metavar=("OUT", "FILE:TYPE"),
                        help="write OUT from the first record of TYPE of each FILE")
    parser.add_argument("--set", nargs=5, metavar=("IN", "OUT", "COLUMN", "PARTICLE", "VALUES"),
                        help="copy IN to OUT with a particle's frame column set")
    args = parser.parse_args(argv)
    if sum(x is not None for x in (args.file, args.same, args.set, args.pick)) != 1:
        parser.error("give one of FILE, --same A B, --set IN OUT COLUMN PARTICLE VALUES "
                     "or --pick OUT FILE:TYPE...")
    try:
        if args.same:
            names = tuple(n for n in args.except_names.split(",") if n)
            return 0 if same_content(*args.same, except_names=names) else 1
        if args.set:
            src, dst, column, i, values = args.set
            kinds = dict((n, t) for n, t, _k in COLUMNS)
            if column not in kinds:
                parser.error("--set: no frame column '%s'" % column)
            values = [int(v) if kinds[column] != 3 else float(v) for v in values.split(",")]
            rewrite(src, dst,
                    lambda t, p: set_particle(p, column, int(i), values) if t == 4 else p)
            return 0
        if args.pick:
            pick(parser, args.pick[0], args.pick[1:])
            return 0
        with open(args.file, "rb") as f:
            data = f.read()
        if data[:2] != b"\x1f\x8b":
            sys.exit("mrdem_stream.py: %s: not gzip" % args.file)
        with named(args.file):
            for rtype, payload in records(data, everything=True):
                print(rtype, len(payload))
    except (OSError, ValueError, mrdem.StreamError) as e:
        sys.exit("mrdem_stream.py: %s" % e)
    return 0


if __name__ == "__main__":
    sys.exit(main())
