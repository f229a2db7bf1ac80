#!/usr/bin/env python3
"""A heap's static angle of repose: grains poured at a steady rate from a
small cylinder above the centre onto a floor (an analytic plane with the
grains' own friction and rolling resistance: insertions name no material,
so the floor's parameters are the grains'), left to settle, the angle
read from the settled heap's surface. Two heaps of mrdem: (a) analytic
spheres with rolling resistance, (b) noisy mesh spheres without it;
LIGGGHTS 3.8 runs (a) on the same floor, grains, contact law, dt and
feed (its grains of radius R + EPS, where mrdem's halos touch, at the
density that gives mrdem's mass).

The angle (heap_angle): the particles' distance rho from the axis of the
feed and the height of their tops (z + radius); in bins of one grain
diameter along rho, the highest top of each bin is the heap's surface
there. The surface is fitted, least squares, by a line h(rho) over the
bins between the top and the toe: bins whose surface lies between 20 %
and 80 % of the heap's height H (from the highest top), from the axis out to
the first bin that falls below 10 % of H (beyond it lies the toe, grains
that rolled or bounced away), H and the surface measured above the
first layer (one diameter). The angle is atan of minus the slope; grains
that spread into one layer (H under a diameter) have the angle 0.

  heap.py report BIN DIR COUNT               the Markdown report on stdout
  heap.py scene KIND COUNT [ROLLING]         a scene (YAML) on stdout
  heap.py angle RUN.MRD                      the settled angle (degrees) of a run
  heap.py check RUN.MRD COUNT                prints the checks of tests/e2e/heap.sh
  heap.py liggghts DIR COUNT                 LIGGGHTS's heap (a): angle, grains, CPU s, steps

KIND is spheres or mesh; COUNT the grains poured. The feed takes COUNT /
RATE seconds, then SETTLE seconds pass; dt = 5e-5 s."""
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, HERE)
import mrdem  # noqa: E402
from step_time import cpu_run  # noqa: E402

R = 0.005             # grain radius (m): the analytic sphere's, the mesh's inner radius
EPS = 0.00025         # each grain's halo (m): grains touch 2 (R + EPS) apart
RHO = 2500.0          # kg/m^3
YOUNG, POISSON, REST = 1.0e7, 0.3, 0.3
FRICTION = 0.5
ROLLING = 0.1         # rolling_friction of (a)
NOISE = 1.15          # mesh grains: vertices between R and 1.15 R
RATE = 400.0          # grains per second
SETTLE = 0.5          # s after the feed
DT = 5.0e-5
FEED = {"radius": 0.02, "bottom": 0.07, "length": 0.04, "speed": 1.0}
DOMAIN = 0.25         # grains beyond |x|, |y| = DOMAIN are removed
G = 9.81


def duration(count):
    return count / RATE + SETTLE


def steps(count):
    return int(round(duration(count) / DT))


def scene(kind, count, rolling):
    """The scene of a heap of COUNT grains of KIND, with rolling friction ROLLING."""
    if kind == "spheres":
        shape = "{analytic-sphere: {radius: %g}}" % R
    else:
        shape = "{sphere: {triangles: 80, radius: %g, noise: %g, seed: 2}}" % (R, NOISE)
    n = steps(count)
    every = max(1, n // 20)
    roll = ", rolling_friction: %g" % rolling if rolling else ""
    return """# a heap of %(count)d %(kind)s poured onto a rough floor (pipelines/heap.py)
shapes:
  grain: %(shape)s
planes:
  - {point: [0, 0, 0], normal: [0, 0, 1]}
insert:
  - region: {cylinder: {point: [0, 0, %(bottom)g], axis: [0, 0, 1], radius: %(fr)g, length: %(fl)g}}
    shape: grain
    density: %(rho)g
    velocity: [0, 0, -%(speed)g]
    rate: %(rate)g
    to: %(to).10g
    seed: 1
    epsilon_abs: %(eps)g
remove:
  - {outside: {min: [-%(dom)g, -%(dom)g, -0.05], max: [%(dom)g, %(dom)g, 0.5]}}
gravity: [0, 0, -%(g)g]
contact: {model: hertz, young: %(young)g, poisson: %(nu)g, restitution: %(e)g, friction: %(mu)g%(roll)s, epsilon_abs: %(eps)g, plane_epsilon: %(eps)g}
time: {dt: %(dt)g, steps: %(n)d, scheme: velocity-verlet}
output: {every: %(every)d}
""" % {"count": count, "kind": kind, "shape": shape, "rho": RHO,
       "bottom": FEED["bottom"], "fr": FEED["radius"], "fl": FEED["length"],
       "speed": FEED["speed"], "rate": RATE, "to": count / RATE + DT / 2, "eps": EPS,
       "dom": DOMAIN, "g": G, "young": YOUNG, "nu": POISSON, "e": REST, "mu": FRICTION,
       "roll": roll, "dt": DT, "n": n, "every": every}


def heap_angle(points, radius):
    """The angle of repose (degrees) of a heap of grains at POINTS ((x, y, z)
    of the centres) of bounding radius RADIUS about the z axis, and the
    heap's height and the fitted range of rho: see the module's text."""
    width = 2 * radius
    tops = {}
    for x, y, z in points:
        b = int(math.hypot(x, y) / width)
        tops[b] = max(tops.get(b, -1e300), z + radius)
    if not tops:
        return float("nan"), 0.0, (0.0, 0.0)
    height = max(tops.values())
    rise = height - width
    bins = []
    for b in range(max(tops) + 1):
        h = tops.get(b)
        if h is None or h - width < 0.1 * rise:
            break
        if 0.2 * rise <= h - width <= 0.8 * rise:
            bins.append(((b + 0.5) * width, h))
    if rise < width:  # one layer spread over the floor: no heap
        return 0.0, height, (0.0, 0.0)
    if len(bins) < 2:
        return float("nan"), height, (0.0, 0.0)
    mx = sum(r for r, _ in bins) / len(bins)
    my = sum(h for _, h in bins) / len(bins)
    sxy = sum((r - mx) * (h - my) for r, h in bins)
    sxx = sum((r - mx) ** 2 for r, _ in bins)
    return math.degrees(math.atan(-sxy / sxx)), height, (bins[0][0], bins[-1][0])


def free_points(frame):
    """Centres of the free particles of FRAME."""
    return [tuple(p) for p, fl in zip(frame["position"], frame["flags"]) if not int(fl) & 1]


def run_angle(path):
    s = mrdem.read(path)
    f = s.frames[-1]
    return heap_angle(free_points(f), R * (NOISE if s.shapes[0].kind == "mesh" else 1.0)
                      + EPS), f.n


def run_mrdem(bindir, workdir, kind, count, rolling):
    """Run a heap; its stream's path and the run's process CPU seconds."""
    os.makedirs(workdir, exist_ok=True)
    yaml = os.path.join(workdir, "heap.yaml")
    with open(yaml, "w") as f:
        f.write(scene(kind, count, rolling))
    out = os.path.join(workdir, "heap.mrd")
    return out, cpu_run([os.path.join(bindir, "mrdem-run"), "-q", yaml, "-o", out], "heap.py")


LIGGGHTS_IN = """# a heap of %(count)d spheres poured onto a rough floor (pipelines/heap.py)
units si
atom_style granular
atom_modify map array
boundary f f f
newton off
communicate single vel yes
region domain block -%(dom)g %(dom)g -%(dom)g %(dom)g -0.05 0.5 units box
create_box 2 domain
neighbor %(skin)g bin
neigh_modify delay 0
fix m1 all property/global youngsModulus peratomtype %(young)g %(young)g
fix m2 all property/global poissonsRatio peratomtype %(nu)g %(nu)g
fix m3 all property/global coefficientRestitution peratomtypepair 2 %(e)g %(e)g %(e)g %(e)g
fix m4 all property/global coefficientFriction peratomtypepair 2 %(mu)g %(mu)g %(mu)g %(mu)g
fix m5 all property/global coefficientRollingFriction peratomtypepair 2 %(mr)g %(mr)g %(mr)g %(mr)g
fix m6 all property/global coefficientRollingViscousDamping peratomtypepair 2 0.3 0.3 0.3 0.3
pair_style gran model hertz tangential history rolling_friction epsd
pair_coeff * *
timestep %(dt)g
fix gravi all gravity %(g)g vector 0.0 0.0 -1.0
fix floor all wall/gran model hertz tangential history rolling_friction epsd primitive type 2 zplane 0.0
fix pts all particletemplate/sphere 15485863 atom_type 1 density constant %(rhol).10g radius constant %(rl)g
fix pdd all particledistribution/discrete 32452843 1 pts 1.0
region feed cylinder z 0 0 %(fr)g %(bottom)g %(top)g units box
fix ins all insert/rate/region seed 49979687 distributiontemplate pdd nparticles %(count)d particlerate %(rate)g insert_every %(every)d overlapcheck yes maxattempt 1000 vel constant 0 0 -%(speed)g region feed
fix integrate all nve/sphere
compute ke all ke
thermo_style custom step atoms c_ke
thermo_modify lost ignore norm no
thermo %(thermo)d
run %(n)d
write_dump all custom %(dump)s id x y z radius
"""


def liggghts_script(count, dump):
    """LIGGGHTS 3.8's heap (a): its grains' contact radius R + EPS (where
    mrdem's halos touch) at the density that gives mrdem's mass."""
    rl = R + EPS
    n = steps(count)
    return LIGGGHTS_IN % {
        "count": count, "dom": DOMAIN, "skin": R, "young": YOUNG, "nu": POISSON, "e": REST,
        "mu": FRICTION, "mr": ROLLING, "dt": DT, "g": G,
        "rhol": RHO * (R / rl) ** 3, "rl": rl, "fr": FEED["radius"], "bottom": FEED["bottom"],
        "top": FEED["bottom"] + FEED["length"], "every": 200, "rate": RATE,
        "speed": FEED["speed"], "thermo": max(1, n // 20), "n": n, "dump": dump}


def liggghts_angle(workdir, count):
    import liggghts
    log, cpu = liggghts.run(liggghts_script(count, "heap.dump"), workdir, "heap")
    pts = []
    with open(os.path.join(workdir, "heap.dump")) as f:
        lines = f.read().splitlines()
    i = lines.index(next(l for l in lines if l.startswith("ITEM: ATOMS")))
    for line in lines[i + 1:]:
        _, x, y, z, _ = map(float, line.split())
        pts.append((x, y, z))
    return heap_angle(pts, R + EPS), len(pts), cpu, steps(count)


def report(bindir, workdir, count):
    import liggghts
    rows = []
    for label, kind, rolling in (("(a) analytic spheres, rolling friction %g" % ROLLING,
                                  "spheres", ROLLING),
                                 ("(b) noisy mesh spheres (80 triangles, noise %g), no rolling "
                                  "friction" % NOISE, "mesh", 0.0)):
        path, cpu = run_mrdem(bindir, os.path.join(workdir, kind), kind, count, rolling)
        (angle, height, span), n = run_angle(path)
        rows.append(("mrdem", label, angle, height, span, n, cpu / steps(count)))
    if liggghts.available():
        (angle, height, span), n, cpu, nst = liggghts_angle(os.path.join(workdir, "liggghts"),
                                                            count)
        rows.insert(1, ("LIGGGHTS 3.8", rows[0][1], angle, height, span, n, cpu / nst))
        peer = "LIGGGHTS %.1f degrees against mrdem's %.1f: a difference of %.1f degrees." % (
            angle, rows[0][2], rows[0][2] - angle)
    else:
        peer = "LIGGGHTS is not installed here: the comparison was skipped."
    print("# Heap: static angle of repose\n")
    print("Command: `make -C pipelines heap HEAP_COUNT=%d`. %d grains of radius %g m "
          "(density %g kg/m^3, halos %g m) poured at %g per second from a cylinder of radius "
          "%g m, %g to %g m above a floor (an analytic plane), at %g m/s downwards, then %g s "
          "to settle; dt %g s, %d steps, velocity Verlet. Hertz: E = %g Pa, nu = %g, "
          "restitution %g, friction %g, between grains and with the floor alike. The angle is fitted to the highest grain "
          "of each radial bin of one diameter, between 20 %% and 80 %% of the heap's height "
          "(pipelines/heap.py). CPU time: process CPU seconds of the whole run over its steps, "
          "one OpenMP thread for both codes. Load average at the end: %s.\n"
          % (count, count, R, RHO, EPS, RATE, FEED["radius"], FEED["bottom"],
             FEED["bottom"] + FEED["length"], FEED["speed"], SETTLE, DT, steps(count), YOUNG,
             POISSON, REST, FRICTION,
             " ".join("%.2f" % x for x in os.getloadavg())))
    print("| code | grains | angle (degrees) | height (m) | fitted rho (m) | grains left | "
          "CPU ms per step |")
    print("|---" * 7 + "|")
    for code, label, angle, height, span, n, cpu in rows:
        print("| %s | %s | %.1f | %.4f | %.3f-%.3f | %d | %.3f |"
              % (code, label, angle, height, span[0], span[1], n, 1e3 * cpu))
    print("\n%s In DEM a heap of spheres grows steeper with rolling resistance and with "
          "sliding friction (Zhou et al., Powder Technol. 125 (2002) 45-54); the angle also "
          "depends on the heap's size, base and pouring, so the reference for (a) is "
          "LIGGGHTS on the same heap.\n" % peer)


def check(path, count):
    """The checks of tests/e2e/heap.sh, printed as NAME VALUE lines."""
    s = mrdem.read(path)
    st = [x.values for x in s.stats if x.source == "mrdem-step"]
    (angle, height, _), n = run_angle(path)
    f = s.frames[-1]
    weight = sum(rho * s.shapes[int(sh)].volume * G
                 for sh, rho, fl in zip(f["shape"], f["density"], f["flags"]) if not int(fl) & 1)
    feed_end = count / RATE
    ke_feed = max(x["energy_kinetic"] for x in st if x["time"] <= feed_end + 1e-9)
    run = [x.values for x in s.stats if x.source == "mrdem-run"]
    print("inserted %d" % sum(x.get("inflow_particles", 0) for x in run))
    print("removed %d" % sum(x.get("outflow_particles", 0) for x in run))
    print("angle %.6g" % angle)
    print("height %.6g" % height)
    print("count %d" % n)
    print("ke_ratio %.6g" % (st[-1]["energy_kinetic"] / ke_feed))
    # the force the floor receives from the grains points down
    print("floor_ratio %.6g" % (-st[-1]["plane_force_z.0"] / weight))


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "report" and len(argv) == 5:
        report(argv[2], argv[3], int(argv[4]))
    elif cmd == "scene" and len(argv) in (4, 5):
        sys.stdout.write(scene(argv[2], int(argv[3]), float(argv[4]) if len(argv) == 5 else 0))
    elif cmd == "angle" and len(argv) == 3:
        (angle, height, span), n = run_angle(argv[2])
        print("%.3f %.5f %.4f %.4f %d" % (angle, height, span[0], span[1], n))
    elif cmd == "check" and len(argv) == 4:
        check(argv[2], int(argv[3]))
    elif cmd == "liggghts" and len(argv) == 4:
        print(liggghts_angle(argv[2], int(argv[3])))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
