#!/usr/bin/env python3
"""Named checks for the shell tests (tests/e2e/*.sh): what several of them
ask of a stream or a table, written once.

    python3 "$TOP/tests/lib/checks.py" NAME ARGS...

  info STREAM EXPR     print EXPR evaluated on the stream's full description
                       (mrdem-info --json --full): d is the document, of(TYPE...)
                       its records of those types in order, each without its
                       place in the file (index, offset, length); math,
                       speed(state) (the magnitude of its velocity), state()
                       (the particles of the first frame), near(a, b, tol)
                       and plane(k) (the id of plane k) at hand
  assert STREAM CODE...
                       run each CODE (Python statements, assert ...) with the
                       names info gives; exit 1 at the first failed assert
  one STREAM TYPE [SOURCE]
                       the record of TYPE (of that SOURCE: stats) as JSON; exit
                       1 unless the stream holds exactly one
  types STREAM         the type of each record, one a line
  same-last A B TYPE [SOURCE]
                       exit 0 when the last records of TYPE (of that SOURCE:
                       stats) of streams A and B hold the same bytes (frames
                       in the fixed column order of tests/lib/mrdem_stream.py)
  records STREAM TYPE...
                       the records of those types as JSON, as of() gives them
  lists STREAM TYPE    the "list" of every record of TYPE (pairs, contacts)
                       as JSON: one list per record
  last-step STREAM     the largest step of the stream's frames
  column CSV NAME HOW  HOW (max, min, sum, first, last) of the non-empty cells
                       of column NAME of a table (mrdem-stats output)

A stream named '-' is read from standard input; one whose name ends in
.json is the description mrdem-info --json wrote there. Values print as Python
prints them (True, [1, 2]), as tests/lib/test-lib.sh's json_get does.
"""
import csv
import json
import math
import subprocess
import sys
import traceback

import mrdem_stream

PLACE = ("index", "offset", "length")


def describe(stream):
    """The document of mrdem-info --json --full STREAM."""
    if stream.endswith(".json"):
        with open(stream) as f:
            return json.load(f)
    data = sys.stdin.buffer.read() if stream == "-" else None
    out = subprocess.run(["mrdem-info", "--json", "--full", stream], input=data,
                         stdout=subprocess.PIPE, check=True).stdout
    return json.loads(out)


def of(d, types):
    """The records of the given types, in order, without their place in the file."""
    return [{k: v for k, v in r.items() if k not in PLACE}
            for r in d["records"] if r["type"] in types]


def speed(state):
    """The magnitude of a particle state's velocity."""
    return math.sqrt(sum(x * x for x in state["velocity"]))


def near(a, b, tol=1e-12):
    return abs(a - b) <= tol


def names(d):
    """The names info and assert evaluate with, on the document d."""
    return {"d": d, "of": lambda *types: of(d, types), "math": math, "speed": speed,
            "state": lambda: of(d, ("frame",))[0]["state"], "near": near,
            "plane": lambda k: 2**64 - 1 - k}


def info(stream, expr):
    print(eval(expr, names(describe(stream))))


def assert_(stream, *code):
    env = names(describe(stream))
    for c in code:
        try:
            exec(compile(c, "<check>", "exec"), env)
        except AssertionError as e:
            at = [f.lineno for f in traceback.extract_tb(e.__traceback__) if f.filename == "<check>"][-1]
            sys.exit("%s: assertion failed: %s%s" % (stream, c.splitlines()[at - 1].strip(),
                                                     ": " + str(e) if str(e) else ""))


def of_source(d, rtype, source):
    return [r for r in of(d, (rtype,)) if source is None or r.get("source") == source]


def one(stream, rtype, source=None):
    found = of_source(describe(stream), rtype, source)
    if len(found) != 1:
        sys.exit("%s: %d %s records%s, want one" % (stream, len(found), rtype,
                                                    " of " + source if source else ""))
    print(json.dumps(found[0]))


def types(stream):
    for r in describe(stream)["records"]:
        print(r["type"])


def same_last(a, b, rtype, source=None):
    code = {v: k for k, v in mrdem_stream.mrdem.stream.NAMES.items()}[rtype]
    start = mrdem_stream.s(source) if source else b""

    def last(path):
        found = [p for t, p in mrdem_stream.read(path) if t == code and p.startswith(start)]
        if not found:
            sys.exit("%s: no %s record%s" % (path, rtype, " of " + source if source else ""))
        return found[-1]
    if last(a) != last(b):
        sys.exit("%s and %s: the last %s records%s differ" % (a, b, rtype, " of " + source if source else ""))


def records(stream, *types):
    print(json.dumps(of(describe(stream), types)))


def lists(stream, rtype):
    print(json.dumps([r["list"] for r in of(describe(stream), (rtype,))]))


def last_step(stream):
    print(max(r["step"] for r in of(describe(stream), ("frame",))))


def column(table, name, how):
    with open(table) as f:
        cells = [float(r[name]) for r in csv.DictReader(f) if r.get(name)]
    if not cells:
        sys.exit("%s: no values in column %s" % (table, name))
    pick = {"max": max, "min": min, "sum": sum, "first": lambda c: c[0], "last": lambda c: c[-1]}
    print(repr(pick[how](cells)))


CHECKS = {"info": info, "assert": assert_, "one": one, "types": types, "same-last": same_last,
          "records": records, "lists": lists, "last-step": last_step, "column": column}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in CHECKS:
        sys.exit(__doc__)
    CHECKS[sys.argv[1]](*sys.argv[2:])
