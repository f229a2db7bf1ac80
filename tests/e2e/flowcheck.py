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
                                   outflow_particles of its record
  flowcheck.py kinds RUN [all]     the fixed particles of the first frame are
                                   in every frame, fixed; each particle keeps
                                   its shape, material, density and epsilon
                                   from frame to frame, and an inserted one
                                   has those of an entry of its insertion;
                                   with all, every entry is drawn at least once
  flowcheck.py drum RUN R L        every free particle of every frame lies
                                   in the cylinder of radius R, |y| <= L/2,
                                   about the y axis (bounding sphere, less
                                   1 mm of overlap)
  flowcheck.py centroid RUN        prints the x of the free particles' centre
                                   of mass in the last frame
  flowcheck.py torque RUN NAME     prints the mean of mrdem-step's stat NAME
                                   over the frames of the second half"""
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
    elif mode == "kinds":
        kinds(s, F, args[:1] == ("all",))
    elif mode == "drum":
        R, L = float(args[0]), float(args[1])
        for f in F:
            for i in range(f.n):
                if f["flags"][i] & 1:
                    continue
                x, y, z = f["position"][i]
                b = bound(s.shapes[f["shape"][i]]) - 1e-3
                if math.hypot(x, z) + b > R or abs(y) + b > L / 2:
                    fail("step %d: particle %d at [%g, %g, %g] is out of the drum"
                         % (f.step, f["id"][i], x, y, z))
    elif mode == "centroid":
        f = F[-1]
        m = [f["density"][i] * s.shapes[f["shape"][i]].volume if not f["flags"][i] & 1 else 0
             for i in range(f.n)]
        print("%.9g" % (sum(mi * p[0] for mi, p in zip(m, f["position"])) / sum(m)))
    elif mode == "torque":
        steps = {st.step: st.values for st in s.stats if st.source == "mrdem-step"}
        v = [steps[f.step][args[0]] for f in F[len(F) // 2:] if f.step in steps]
        print("%.9g" % (sum(v) / len(v)))
    else:
        fail("unknown mode " + mode)


def kinds(s, F, every_entry):
    """Particles keep their kind through frames, removals and insertions."""
    fixed = {f_id for f_id, fl in zip(F[0]["id"], F[0]["flags"]) if fl & 1}
    seen, drawn = {}, set()
    entry = lambda e: (e["shape"], e["material"], e["density"], e["epsilon"])
    for f in F:
        ids = dict(zip(f["id"], f["flags"]))
        for i in fixed:
            if not ids.get(i, 0) & 1:
                fail("step %d: fixed particle %d is gone or free" % (f.step, i))
        mat = f["material"] if "material" in f else [0] * f.n
        for i in range(f.n):
            k = (f["shape"][i], mat[i], f["density"][i], f["epsilon"][i])
            pid = f["id"][i]
            if seen.setdefault(pid, k) != k:
                fail("step %d: particle %d was %r, is %r" % (f.step, pid, seen[pid], k))
            for n, ins in enumerate(s.inflow):
                if ins["first_id"] <= pid < ins["first_id"] + ins["total"]:
                    kinds_of = [entry(e) for e in ins["shapes"]]
                    if k not in kinds_of:
                        fail("particle %d of insert[%d] is %r, none of %r"
                             % (pid, n, k, kinds_of))
                    drawn.add((n, k))
    for n, ins in enumerate(s.inflow):
        for e in ins["shapes"]:
            if every_entry and (n, entry(e)) not in drawn:
                fail("insert[%d]: entry %r never drawn" % (n, e))


if __name__ == "__main__":
    main(*sys.argv[1:])
