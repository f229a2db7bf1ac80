#!/usr/bin/env python3
"""Checks of a run with inflow and outflow (tests/e2e/flow.sh):

  flowcheck.py schedule RUN BASE   every frame holds BASE particles plus what
                                   the inflow record's schedule places by its
                                   step (min(total, floor((s - start) per_step
                                   + 1e-9)), or total from start)
  flowcheck.py apart RUN           in the last frame no two bounding spheres
                                   (bound radius + epsilon) overlap
  flowcheck.py outflow RUN         the particles missing from the last frame
                                   are those mrdem-run's outflow_particles
                                   count, with the mass outflow_mass sums
  flowcheck.py above RUN Z         in the second frame every free particle's
                                   centre is above z = Z
  flowcheck.py last RUN N          the last frame holds N particles
  flowcheck.py stepstats RUN NAMES  mrdem-step's stats records all carry the
                                   comma-separated NAMES of removed_particles,
                                   removed_mass, inserted_particles, no other
  flowcheck.py balance RUN         every frame holds the previous one's
                                   particles plus inflow_particles minus
                                   outflow_particles of its record"""
import math, os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import mrdem  # noqa: E402


def bound(shape):
    if shape.axes is not None:
        return max(shape.axes)
    c = shape.com
    return max(math.dist(v, c) for v in shape.vertices)


def placed(ins, step):
    if step < ins["start_step"]:
        return 0
    if ins["per_step"] == 0:
        return ins["total"]
    return min(ins["total"], math.floor((step - ins["start_step"]) * ins["per_step"] + 1e-9))


def run_records(s):
    return {st.step: st.values for st in s.stats if st.source == "mrdem-run"}


def fail(msg):
    print("flowcheck: " + msg)
    sys.exit(1)


def main(mode, path, *args):
    s = mrdem.read(path)
    F = s.frames
    if mode == "schedule":
        base = int(args[0])
        for f in F:
            want = base + sum(placed(i, f.step) for i in s.inflow)
            if f.n != want:
                fail("step %d: %d particles, the schedule says %d" % (f.step, f.n, want))
    elif mode == "apart":
        f = F[-1]
        r = [bound(s.shapes[k]) + e for k, e in zip(f["shape"], f["epsilon"])]
        x = f["position"]
        for i in range(f.n):
            for j in range(i):
                if math.dist(x[i], x[j]) < r[i] + r[j]:
                    fail("particles %d and %d overlap" % (f["id"][i], f["id"][j]))
    elif mode == "outflow":
        first, last = F[0], F[-1]
        gone = set(first["id"]) - set(last["id"])
        rec = run_records(s)
        count = sum(v["outflow_particles"] for v in rec.values())
        mass = sum(v["outflow_mass"] for v in rec.values())
        want = sum(first["density"][i] * s.shapes[first["shape"][i]].volume
                   for i in range(first.n) if first["id"][i] in gone)
        if not gone or count != len(gone) or abs(mass - want) > 1e-12 * want:
            fail("%d particles gone, %g counted; mass %r, counted %r" % (len(gone), count, want, mass))
    elif mode == "balance":
        rec = run_records(s)
        for a, b in zip(F, F[1:]):
            v = rec[b.step]
            if b.n != a.n + v.get("inflow_particles", 0) - v.get("outflow_particles", 0):
                fail("step %d: %d particles after %d, record %r" % (b.step, b.n, a.n, v))
    elif mode == "above":
        f = F[1]
        low = min(p[2] for p, fl in zip(f["position"], f["flags"]) if not fl & 1)
        if not low > float(args[0]):
            fail("step %d: a free particle at z = %g" % (f.step, low))
    elif mode == "last":
        if F[-1].n != int(args[0]):
            fail("the last frame holds %d particles, not %s" % (F[-1].n, args[0]))
    elif mode == "stepstats":
        want = set(args[0].split(","))
        flow = {"removed_particles", "removed_mass", "inserted_particles"}
        for st in s.stats:
            if st.source == "mrdem-step" and set(st.values) & flow != want:
                fail("step %d: mrdem-step counts %r" % (st.step, set(st.values) & flow))
    else:
        fail("unknown mode " + mode)


if __name__ == "__main__":
    main(*sys.argv[1:])
