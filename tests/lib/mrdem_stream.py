#!/usr/bin/env python3
"""Independent reader and writer of the mrdem stream (docs/stream-format.md),
used by the tests to check the C tools against the document and to build
inputs for them. Usage: mrdem_stream.py FILE  -> prints one line per
record: TYPE LENGTH, and exits 1 on any framing or checksum problem."""
import gzip, struct, sys, zlib

MAGIC = b"\x89MRDEM\r\n"
HEADER = MAGIC + struct.pack("<II", 1, 0)
PLANE_ID = lambda k: 2**64 - 1 - k


def record(rtype, payload):
    """One framed record: header, payload, CRC-32."""
    head = struct.pack("<IIQ", rtype, 0, len(payload))
    return head + payload + struct.pack("<I", zlib.crc32(head + payload) & 0xFFFFFFFF)


def s(text):
    """A length-prefixed string."""
    b = text.encode()
    return struct.pack("<I", len(b)) + b


def f64s(v):
    """A sequence of little-endian doubles."""
    return struct.pack("<%dd" % len(v), *v)


def records(data):
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    pos = 0
    while pos < len(data):
        if data[pos:pos + 8] == MAGIC:
            version, flags = struct.unpack_from("<II", data, pos + 8)
            if version != 1 or flags:
                raise ValueError("bad header at %d" % pos)
            pos += 16
            continue
        rtype, flags, length = struct.unpack_from("<IIQ", data, pos)
        payload = data[pos + 16:pos + 16 + length]
        (crc,) = struct.unpack_from("<I", data, pos + 16 + length)
        if len(payload) != length or zlib.crc32(data[pos:pos + 16 + length]) != crc or flags:
            raise ValueError("bad record at byte %d" % pos)
        yield rtype, payload
        pos += 20 + length


if __name__ == "__main__":
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    if data[:2] != b"\x1f\x8b":
        sys.exit("not gzip")
    for rtype, payload in records(data):
        print(rtype, len(payload))
