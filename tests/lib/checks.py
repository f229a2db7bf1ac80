#!/usr/bin/env python3
"""Named checks for the shell tests (tests/e2e/*.sh): what several of them
ask of a stream or a table, written once.

    python3 "$TOP/tests/lib/checks.py" NAME ARGS...

  info STREAM EXPR     print EXPR evaluated on the stream's full description
                       (mrdem-info --json --full): d is the document, of(TYPE...)
                       its records of those types in order, each without its
                       place in the file (index, offset, length); math and
                       speed(state) (the magnitude of its velocity) at hand
  records STREAM TYPE...
                       the records of those types as JSON, as of() gives them
  lists STREAM TYPE    the "list" of every record of TYPE (pairs, contacts)
                       as JSON: one list per record
  last-step STREAM     the largest step of the stream's frames
  column CSV NAME HOW  HOW (max, min, sum, first, last) of the non-empty cells
                       of column NAME of a table (mrdem-stats output)

A stream named '-' is read from standard input. Values print as Python
prints them (True, [1, 2]), as tests/lib/test-lib.sh's json_get does.
"""
import csv
import json
import math
import subprocess
import sys

PLACE = ("index", "offset", "length")


def describe(stream):
    """The document of mrdem-info --json --full STREAM."""
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


def info(stream, expr):
    d = describe(stream)
    print(eval(expr, {"d": d, "of": lambda *types: of(d, types), "math": math, "speed": speed}))


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


CHECKS = {"info": info, "records": records, "lists": lists, "last-step": last_step, "column": column}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in CHECKS:
        sys.exit(__doc__)
    CHECKS[sys.argv[1]](*sys.argv[2:])
