#!/usr/bin/env python3
"""Pours against LIGGGHTS by wall time: spheres of contact radius 5 mm
(density 2500) on a jittered lattice, the same initial positions in both
codes, poured into a box of five planes under gravity; Hertz with E 1e8,
nu 0.3, e 0.5, mu 0.5 between spheres and with the planes, dt 2e-5,
velocity Verlet (LIGGGHTS: nve/sphere). mrdem's spheres are analytic,
radius 4.95 mm with a halo of 0.05 mm (plane halo 0.05 mm), so they touch
at 5 mm as LIGGGHTS's do; mrdem-run takes its sphere fast path by
itself. Both codes on one thread, one after the other, each timed from
its start to its exit (reading the scene and writing the last state
included); LIGGGHTS's loop time beside. The bed: its bulk packing
fraction (the share of fixed random points inside a sphere, in the box
three radii from the walls, from one radius above the floor to three
below the top of the bed) and its top, from each code's last positions.

  pour_peers.py report BIN DIR [SIZE:SECONDS ...]   the Markdown report on stdout
  pour_peers.py scene SIZE SECONDS                  mrdem's scene (YAML) on stdout
  pour_peers.py liggghts SIZE SECONDS               LIGGGHTS's input on stdout

SIZE is 343 or 10000 (the lattices below); the default report pours 343
spheres for 0.45 s and 10,000 for 0.3 s."""
import math
import os
import random
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, HERE)
import liggghts  # noqa: E402

R, EPS = 0.00495, 0.00005          # mrdem's sphere and halo: contact radius R + EPS
RC = R + EPS
YOUNG, NU, REST, MU = 1.0e8, 0.3, 0.5, 0.5
DT, RHO, G = 2.0e-5, 2500.0, 9.81
SPACING, JITTER, FLOOR = 0.012, 0.001, 0.01
# spheres -> lattice counts (x, y, z) and the box's half width
LATTICES = {343: ((7, 7, 7), 0.05), 10000: ((25, 25, 16), 0.155)}
DEFAULT = ((343, 0.45), (10000, 0.3))


def positions(size):
    """The initial centres: a lattice of SPACING, jittered in x and y."""
    (nx, ny, nz), _ = LATTICES[size]
    rng = random.Random(3)
    out = []
    for z in range(nz):
        for y in range(ny):
            for x in range(nx):
                out.append(((x - (nx - 1) / 2) * SPACING + rng.uniform(-JITTER, JITTER),
                            (y - (ny - 1) / 2) * SPACING + rng.uniform(-JITTER, JITTER),
                            FLOOR + z * SPACING))
    return out


def steps(seconds):
    return int(round(seconds / DT))


def walls(half):
    """The five planes: (axis, coordinate, inward normal)."""
    return (("z", 0.0, (0, 0, 1)), ("x", -half, (1, 0, 0)), ("x", half, (-1, 0, 0)),
            ("y", -half, (0, 1, 0)), ("y", half, (0, -1, 0)))


def scene(size, seconds):
    half = LATTICES[size][1]
    n = steps(seconds)
    lines = ["# %d spheres poured into a box (pipelines/pour_peers.py)" % size, "shapes:",
             "  ball: {analytic-sphere: {radius: %r}}" % R, "particles:"]
    for p in positions(size):
        lines.append("  - {shape: ball, position: [%r, %r, %r], density: %r, epsilon_abs: %r}"
                     % (p[0], p[1], p[2], RHO, EPS))
    lines.append("planes:")
    for axis, c, normal in walls(half):
        point = [0.0, 0.0, 0.0]
        point["xyz".index(axis)] = c
        lines.append("  - {point: [%r, %r, %r], normal: [%d, %d, %d]}" % (tuple(point) + normal))
    lines += ["gravity: [0, 0, -%r]" % G,
              "contact: {model: hertz, young: %r, poisson: %r, restitution: %r, friction: %r, "
              "plane_epsilon: %r}" % (YOUNG, NU, REST, MU, EPS),
              "time: {dt: %r, steps: %d, scheme: velocity-verlet}" % (DT, n),
              "output: {every: %d}" % n]
    return "\n".join(lines) + "\n"


def liggghts_input(size, seconds, dump):
    half = LATTICES[size][1]
    top = FLOOR + LATTICES[size][0][2] * SPACING + 0.05
    atoms = ["create_atoms 1 single %r %r %r units box" % p for p in positions(size)]
    prims = ["fix w%d all wall/gran model hertz tangential history primitive type 1 %splane %r"
             % (k, axis, c) for k, (axis, c, _) in enumerate(walls(half))]
    return liggghts.HEADER + """processors 1 1 1
region box block %(lo)r %(hi)r %(lo)r %(hi)r -0.01 %(top)r units box
create_box 1 box
neighbor 0.0005 bin
neigh_modify delay 0
%(material)s
timestep %(dt)r
fix gravi all gravity %(g)r vector 0 0 -1
%(walls)s
%(atoms)s
set group all diameter %(d)r density %(rho)r
fix integrate all nve/sphere
thermo_style custom step atoms ke
thermo %(n)d
run %(n)d
write_dump all custom %(dump)s id x y z
""" % {"lo": -half, "hi": half, "top": top, "material": liggghts.hertz(YOUNG, NU, REST, MU),
       "dt": DT, "g": G, "walls": "\n".join(prims), "atoms": "\n".join(atoms), "d": 2 * RC,
       "rho": RHO, "n": steps(seconds), "dump": dump}


def bed(pos, half):
    """Bulk packing fraction and top of the bed of spheres of contact
    radius RC centred at POS in the box of half width HALF."""
    r = RC
    cells = {}
    for p in pos:
        cells.setdefault(tuple(int(math.floor(c / (2 * r))) for c in p), []).append(p)
    top = max(p[2] for p in pos) + r
    lo, hi = -half + 3 * r, half - 3 * r
    rng = random.Random(1)
    inside, points = 0, 20000
    near = [(a, b, c) for a in (-1, 0, 1) for b in (-1, 0, 1) for c in (-1, 0, 1)]
    for _ in range(points):
        x = (rng.uniform(lo, hi), rng.uniform(lo, hi), rng.uniform(r, max(r, top - 3 * r)))
        key = tuple(int(math.floor(c / (2 * r))) for c in x)
        inside += any(math.dist(x, q) < r for d in near
                      for q in cells.get(tuple(k + e for k, e in zip(key, d)), []))
    return inside / points, top


def run_mrdem(bindir, workdir, size, seconds):
    """Wall seconds of mrdem-run on the pour and its last positions."""
    import mrdem
    yaml = os.path.join(workdir, "pour%d.yaml" % size)
    out = os.path.join(workdir, "pour%d.mrd" % size)
    with open(yaml, "w") as f:
        f.write(scene(size, seconds))
    t0 = time.time()
    p = subprocess.run([os.path.join(bindir, "mrdem-run"), "-q", yaml, "-o", out],
                       stderr=subprocess.PIPE, text=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
    wall = time.time() - t0
    if p.returncode:
        raise SystemExit("pour_peers.py: mrdem-run %s failed:\n%s" % (yaml, p.stderr[-3000:]))
    return wall, [tuple(x) for x in mrdem.read(out).frames[-1]["position"]]


def run_liggghts(workdir, size, seconds):
    """Wall seconds of LIGGGHTS on the pour, its loop seconds and its last positions."""
    dump = "pour%d.dump" % size
    t0 = time.time()
    log, _ = liggghts.run(liggghts_input(size, seconds, dump), workdir, "pour%d" % size)
    wall = time.time() - t0
    with open(os.path.join(workdir, dump)) as f:
        lines = f.read().splitlines()
    i = next(k for k, l in enumerate(lines) if l.startswith("ITEM: ATOMS"))
    pos = [tuple(map(float, l.split()[1:4])) for l in lines[i + 1:]]
    return wall, liggghts.loop_seconds(log), pos


def parse_runs(args):
    """SIZE:SECONDS arguments -> [(size, seconds)], or the default."""
    runs = []
    for a in args:
        size, _, seconds = a.partition(":")
        if not size.isdigit() or int(size) not in LATTICES:
            raise SystemExit("pour_peers.py: '%s': SIZE must be one of %s" % (
                a, ", ".join(map(str, sorted(LATTICES)))))
        try:
            t = float(seconds)
        except ValueError:
            t = -1.0
        if not (t > 0 and steps(t) > 0):
            raise SystemExit("pour_peers.py: '%s': SECONDS must be at least one step (%g s)"
                             % (a, DT))
        runs.append((int(size), t))
    return runs or list(DEFAULT)


def report(bindir, workdir, runs):
    have = liggghts.available()
    rows = []
    for size, seconds in runs:
        os.makedirs(workdir, exist_ok=True)
        half = LATTICES[size][1]
        mw, mpos = run_mrdem(bindir, workdir, size, seconds)
        row = {"size": size, "seconds": seconds, "mrdem": mw, "mbed": bed(mpos, half),
               "mn": len(mpos)}
        if have:
            lw, loop, lpos = run_liggghts(workdir, size, seconds)
            row.update(liggghts=lw, loop=loop, lbed=bed(lpos, half), ln=len(lpos))
        rows.append(row)
    print("# Pours: mrdem against LIGGGHTS by wall time\n")
    print("Command: `make -C pipelines pour-peers` (pipelines/pour_peers.py). Spheres of "
          "contact radius %g m (mrdem: analytic, %g m + a %g m halo), density %g kg/m^3, on "
          "a lattice of spacing %g m jittered by up to %g m in x and y, the same initial "
          "positions in both codes, poured into a box of five planes; Hertz E = %g Pa, "
          "nu = %g, restitution %g, friction %g (spheres and planes alike), dt %g s, one "
          "thread each, one code after the other. Wall: the whole process, from start to "
          "exit. Bed: bulk packing fraction (random points three radii from the walls, "
          "from one radius above the floor to three under the bed's top) and the top of "
          "the bed. Load average at the end: %s.\n"
          % (RC, R, EPS, RHO, SPACING, JITTER, YOUNG, NU, REST, MU, DT,
             " ".join("%.2f" % x for x in os.getloadavg())))
    if not have:
        print("LIGGGHTS (`%s`) is not installed here: the comparison was skipped; mrdem's "
              "runs alone.\n" % liggghts.PROGRAM)
    print("| spheres | simulated (steps) | box (m) | mrdem wall (s) | LIGGGHTS wall (s) "
          "(loop) | mrdem / LIGGGHTS | packing mrdem / LIGGGHTS | bed top (m) mrdem / "
          "LIGGGHTS |")
    print("|---" * 8 + "|")
    for r in rows:
        box = "%.2f x %.2f" % ((2 * LATTICES[r["size"]][1],) * 2)
        head = "| %d | %g s (%d) | %s | %.2f " % (r["size"], r["seconds"], steps(r["seconds"]),
                                                 box, r["mrdem"])
        if have:
            print(head + "| %.2f (%.2f) | **%.2fx** | %.3f / %.3f | %.4f / %.4f |" % (
                r["liggghts"], r["loop"], r["mrdem"] / r["liggghts"], r["mbed"][0],
                r["lbed"][0], r["mbed"][1], r["lbed"][1]))
        else:
            print(head + "| skipped | | %.3f / | %.4f / |" % (r["mbed"][0], r["mbed"][1]))
    lost = ["%d: mrdem %d, LIGGGHTS %d" % (r["size"], r["mn"], r.get("ln", r["mn"]))
            for r in rows if r["mn"] != r["size"] or r.get("ln", r["size"]) != r["size"]]
    if lost:
        print("\nSpheres left at the end (a sphere leaving the box is lost): " + "; ".join(lost))


def main(argv):
    if len(argv) >= 3 and argv[0] == "report":
        report(argv[1], argv[2], parse_runs(argv[3:]))
    elif len(argv) == 3 and argv[0] in ("scene", "liggghts"):
        (size, seconds), = parse_runs([argv[1] + ":" + argv[2]])
        sys.stdout.write(scene(size, seconds) if argv[0] == "scene"
                         else liggghts_input(size, seconds, "pour%d.dump" % size))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
