#!/usr/bin/env python3
"""A rotating drum's dynamic angle of repose, mrdem against LIGGGHTS.

A closed `revolve` drum (radius R, inner length L, 64 segments, its axis
along y through the origin via its orientation) is filled about half with
spheres of radius 2 mm: a count at time 0 in the drum's cylinder, the
rest poured from a box in its upper half from FILL_FROM to FILL_TO, all
settled by T0. From T0 the drum turns about +y at omega (`motion: rotate`,
`start: T0`); the bed is lifted on the -x side and its free surface
slopes down towards +x.

mrdem runs the scene up to T0 (the fill, mrdem-run) and then, resumed
from that frame, the rotation alone (the CPU time per step is that of the
rotation). LIGGGHTS starts from the very same frame (every sphere's
position and velocity, `create_atoms single` and `set atom`; LIGGGHTS
3.8's `set` has no angular velocity and the contacts' tangential springs
start at zero there, both small in a bed at rest and forgotten long
before the measurement starts), on the same drum (`mrdem-mesh export --format stl-ascii` of the
scene's drum mesh, turned to y with `mesh/surface ... rotate`), turned by
`fix move/mesh ... rotate origin 0 0 0 axis 0 1 0 period 2 pi / omega`,
touched through `fix wall/gran model hertz tangential history mesh`; the
same Hertz material (E, nu, restitution, friction, particles and caps
alike), density, dt and duration. A third run puts noisy mesh spheres
(80 triangles, noise 1.15) of the same size in the same drum at the
faster speed (mrdem only).

The angle. From every frame after the drum has turned SETTLE_ROTATION
radians (1 rad: the bed first turns with the drum, its surface rising
at nearly the drum's rate for about 0.5 rad, then levelling off as it
starts to flow, at its dynamic angle from about 0.9 rad on; drum.mk's
header shows the rise): the principal axis of the bed's cross-section (the x, z of the
free particles' centres, all along the drum's length): for a circular
segment up to a little over half full the major axis of its second
moments lies along the chord, the free surface; angle = atan(-slope) of
that axis, positive when the surface rises on the side the wall lifts.
Beside it, a line fitted to the free surface: in bins one diameter wide
across the middle 60 % of the drum, the highest centre of each bin. The
dynamic angle is the mean over the frames; its spread is their standard
deviation.

Usage: drum.py BINDIR OUTDIR [--quick] [--radius M] [--length M] [--particles N]
[--rotation S] [--omegas W W] [--dt S] [--no-mesh | --mesh-only] [--no-liggghts]
[--json FILE [--reuse]]; a Markdown report on stdout (--help says more)."""
import argparse
import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, HERE)
import mrdem  # noqa: E402
import liggghts  # noqa: E402
from step_time import cpu_run  # noqa: E402

G = 9.81
RADIUS_P = 0.002      # sphere radius, m
DENSITY = 2500.0      # kg/m^3
YOUNG, POISSON, RESTITUTION, FRICTION = 5.0e6, 0.3, 0.5, 0.5
HALO = 1.0e-4         # epsilon_abs of particles and drum, m
SEGMENTS = 64

ap = argparse.ArgumentParser()
ap.add_argument("bin")
ap.add_argument("out")
ap.add_argument("--quick", action="store_true",
                help="a small drum (radius 2.5 cm, 150 spheres), short runs: the test's variant")
ap.add_argument("--radius", type=float, help="drum radius, m (default 0.04; quick 0.025)")
ap.add_argument("--length", type=float, help="drum's inner length, m (default 0.02; quick 0.012)")
ap.add_argument("--particles", type=int, help="spheres in the drum (default 900; quick 150)")
ap.add_argument("--rotation", type=float,
                help="seconds of rotation after the fill (default 2.5; quick 0.5)")
ap.add_argument("--omegas", type=float, nargs=2, help="the two speeds, rad/s")
ap.add_argument("--dt", type=float, default=4.0e-5, help="time step, s (default 4e-5)")
ap.add_argument("--no-mesh", action="store_true", help="skip the mesh-particle run")
ap.add_argument("--mesh-only", action="store_true",
                help="only the mesh-particle run (at the faster speed): a row and the JSON")
ap.add_argument("--no-liggghts", action="store_true", help="skip the LIGGGHTS runs")
ap.add_argument("--json", help="write the figures measured to this file too")
ap.add_argument("--reuse", action="store_true",
                help="analyse the runs already in OUTDIR again (their CPU times from --json)")
args = ap.parse_args()

if args.quick:
    R, L = args.radius or 0.025, args.length or 0.012
    N = args.particles or 150
    ROT = args.rotation or 0.5
    OMEGAS = args.omegas or [3.0, 3.0]
    T0, FILL_FROM, FILL_TO = 0.2, 0.05, 0.1
    EVERY = 0.025
else:
    R, L = args.radius or 0.04, args.length or 0.02
    N = args.particles or 900
    ROT = args.rotation or 2.5
    OMEGAS = args.omegas or [0.8, 1.6]
    T0, FILL_FROM, FILL_TO = 0.5, 0.1, 0.3
    EVERY = 0.05
DT = args.dt
SETTLE_ROTATION = 1.0  # radians turned before measuring
if args.quick:
    OMEGAS = OMEGAS[:1]
# the mesh run measures as long as the slower sphere run, at the faster speed
MEASURE = ROT - SETTLE_ROTATION / min(OMEGAS)
if MEASURE <= 0:
    raise SystemExit("drum.py: %g s of rotation at %g rad/s do not turn the drum %g rad: a"
                     " longer --rotation" % (ROT, min(OMEGAS), SETTLE_ROTATION))
PREV = {}
if args.reuse:
    if not args.json or not os.path.exists(args.json):
        raise SystemExit("drum.py: --reuse needs the --json of the runs")
    with open(args.json) as f:
        PREV = json.load(f)["cases"]


def steps(t):
    return int(round(t / DT))


def scene(omega, mesh):
    """The scene: the drum, the fill and the rotation from T0."""
    c = R - RADIUS_P - 2 * HALO - 5e-4          # centres stay this far in
    half = L / 2 - RADIUS_P - 2 * HALO - 2e-4
    # the quick drum is small: noisy grains (bounding radius 1.15 that of
    # the spheres) at the spheres' count would not find room in the fill box
    total = int(round(0.65 * N)) if mesh and args.quick else N
    n0 = int(round(0.6 * total))                # at time 0 in the whole drum
    rate = (total - n0) / (FILL_TO - FILL_FROM)
    bx = 0.6 * R
    grain = ("{sphere: {triangles: 80, radius: %g, noise: 1.15, seed: 2}}" % RADIUS_P if mesh
             else "{analytic-sphere: {radius: %g}}" % RADIUS_P)
    return f"""shapes:
  drum: {{revolve: {{profile: [[0, {-L / 2!r}], [{R!r}, {-L / 2!r}], [{R!r}, {L / 2!r}], [0, {L / 2!r}]], segments: {SEGMENTS}}}}}
  bead: {grain}
particles:
  - {{shape: drum, position: [0, 0, 0], orientation: [0.7071067811865476, 0.7071067811865476, 0, 0],
     fixed: true, epsilon_abs: {HALO!r},
     motion: {{rotate: {{axis: [0, 1, 0], point: [0, 0, 0], omega: {omega!r}}}, start: {T0!r}}}}}
insert:
  - region: {{cylinder: {{point: [0, {-half!r}, 0], axis: [0, 1, 0], radius: {c!r}, length: {2 * half!r}}}}}
    shape: bead
    count: {n0}
    density: {DENSITY!r}
    epsilon_abs: {HALO!r}
    seed: 1
  - region: {{box: {{min: [{-bx!r}, {-half!r}, {0.1 * R!r}], max: [{bx!r}, {half!r}, {0.75 * R!r}]}}}}
    shape: bead
    rate: {rate!r}
    from: {FILL_FROM!r}
    to: {FILL_TO!r}
    density: {DENSITY!r}
    epsilon_abs: {HALO!r}
    seed: 2
gravity: [0, 0, {-G!r}]
contact: {{model: hertz, young: {YOUNG!r}, poisson: {POISSON!r}, restitution: {RESTITUTION!r}, friction: {FRICTION!r}, epsilon_abs: {HALO!r}}}
time: {{dt: {DT!r}, steps: {steps(T0)}, scheme: velocity-verlet}}
output: {{every: {steps(T0)}}}
"""




def principal_angle(xz):
    """atan(-slope) of the major principal axis of the points, degrees."""
    n = len(xz)
    mx = sum(p[0] for p in xz) / n
    mz = sum(p[1] for p in xz) / n
    sxx = sum((p[0] - mx) ** 2 for p in xz) / n
    szz = sum((p[1] - mz) ** 2 for p in xz) / n
    sxz = sum((p[0] - mx) * (p[1] - mz) for p in xz) / n
    phi = 0.5 * math.atan2(2 * sxz, sxx - szz)   # the major axis' direction
    return -math.degrees(phi)


def surface_angle(xz):
    """atan(-slope) of a line through the highest centre of each bin one
    diameter wide across the middle 60 % of the drum, degrees."""
    d = 2 * RADIUS_P
    top = {}
    for x, z in xz:
        if abs(x) < 0.6 * R:
            k = math.floor(x / d)
            top[k] = max(top.get(k, -1e9), z)
    if len(top) < 3:
        return float("nan")
    pts = [((k + 0.5) * d, z) for k, z in top.items()]
    mx = sum(p[0] for p in pts) / len(pts)
    mz = sum(p[1] for p in pts) / len(pts)
    slope = sum((p[0] - mx) * (p[1] - mz) for p in pts) / sum((p[0] - mx) ** 2 for p in pts)
    return -math.degrees(math.atan(slope))


def mean_sd(v):
    m = sum(v) / len(v)
    return m, math.sqrt(sum((x - m) ** 2 for x in v) / len(v))


def angles(frames, omega):
    """Mean and spread of both angles over the frames (time, [(x, z)])
    after the drum has turned SETTLE_ROTATION radians."""
    t_from = T0 + SETTLE_ROTATION / omega
    use = [xz for t, xz in frames if t >= t_from - 1e-9]
    if not use:
        raise SystemExit("drum.py: no frame after %g s: a longer --rotation" % t_from)
    pa = mean_sd([principal_angle(xz) for xz in use])
    sa = mean_sd([surface_angle(xz) for xz in use])
    return {"principal": pa[0], "principal_sd": pa[1], "surface": sa[0], "surface_sd": sa[1],
            "frames": len(use), "from": t_from}


def mrdem_case(name, omega, mesh, rotation):
    d = os.path.join(args.out, name)
    os.makedirs(d, exist_ok=True)
    yaml = os.path.join(d, name + ".yaml")
    with open(yaml, "w") as f:
        f.write(scene(omega, mesh))
    fill, rot = os.path.join(d, "fill.mrd"), os.path.join(d, name + ".mrd")
    nrot = steps(rotation)
    if name in PREV and PREV[name]["steps"] == nrot:
        fill_cpu, cpu = PREV[name]["fill_cpu"], PREV[name]["cpu"]
    else:
        fill_cpu = cpu_run([os.path.join(args.bin, "mrdem-run"), "-q", yaml, "-o", fill], "drum.py")
        cpu = cpu_run([os.path.join(args.bin, "mrdem-run"), "-q", fill, "--steps", str(nrot),
                       "--every", str(steps(EVERY)), "-o", rot], "drum.py")
    s = mrdem.read(rot)
    frames, counts, masses, wall_w = [], [], [], []
    for fr in s.frames:
        free = [i for i in range(fr.n) if fr["id"][i] != 0]
        frames.append((fr.time, [(fr["position"][i][0], fr["position"][i][2]) for i in free]))
        counts.append(len(free))
        vol = [s.shapes[fr["shape"][i]].volume for i in free]
        masses.append(sum(fr["density"][i] * v for i, v in zip(free, vol)))
        if fr.time >= T0 + SETTLE_ROTATION / omega - 1e-9:
            # angular velocity about the axis of the spheres next to the
            # drum's mantle: (r x v)_y / |r|^2 in the x-z plane
            for i in free:
                x, _, z = fr["position"][i]
                vx, _, vz = fr["velocity"][i]
                r2 = x * x + z * z
                if math.sqrt(r2) > R - 2.5 * RADIUS_P:
                    wall_w.append((z * vx - x * vz) / r2)
    stats = [x.values for x in s.stats if x.source == "mrdem-step"
             and x.values.get("time", 0) >= T0 + SETTLE_ROTATION / omega - 1e-9]
    torque = [v.get("wall_torque_y.0", float("nan")) for v in stats]
    r = angles(frames, omega)
    r.update({"omega": omega, "froude": omega ** 2 * R / G, "particles": counts[0],
              "counts": [min(counts), max(counts)], "mass": [min(masses), max(masses)],
              "cpu": cpu, "fill_cpu": fill_cpu, "steps": nrot, "cpu_per_step": cpu / nrot,
              "wall_omega": sum(wall_w) / len(wall_w) if wall_w else float("nan"),
              "wall_torque_y": sum(torque) / len(torque) if torque else float("nan"),
              "stream": rot, "fill": fill})
    return r


LIGGGHTS_IN = liggghts.HEADER + """processors 1 1 1
region box block %(lo)r %(hi)r %(ylo)r %(yhi)r %(lo)r %(hi)r units box
create_box 1 box
neighbor %(skin)r bin
neigh_modify delay 0
%(material)s
timestep %(dt)r
fix gravi all gravity %(g)r vector 0 0 -1
fix cad all mesh/surface file drum.stl type 1 rotate axis 1 0 0 angle 90
fix walls all wall/gran model hertz tangential history mesh n_meshes 1 meshes cad
%(atoms)s
fix spin all move/mesh mesh cad rotate origin 0 0 0 axis 0 1 0 period %(period)r
fix integrate all nve/sphere
dump d all custom %(every)d dump.txt id x y z
thermo_style custom step atoms ke
thermo %(every)d
run %(steps)d
"""


def liggghts_case(name, omega, mrd):
    """LIGGGHTS from mrdem's frame at T0: the angles, CPU per step."""
    d = os.path.join(args.out, name)
    os.makedirs(d, exist_ok=True)
    stl = os.path.join(d, "drum.stl")
    subprocess.run([os.path.join(args.bin, "mrdem-mesh"), "export", "--format", "stl-ascii",
                    "--shape", "drum", mrd, "-o", stl], check=True)
    fr = mrdem.read(mrd).frames[-1]
    lines = []
    k, spin = 0, 0.0
    for i in range(fr.n):
        if fr["id"][i] == 0:
            continue
        k += 1
        x, y, z = fr["position"][i]
        v, w = fr["velocity"][i], fr["angular_velocity"][i]
        lines.append("create_atoms 1 single %r %r %r units box" % (x, y, z))
        lines.append("set atom %d diameter %r density %r vx %r vy %r vz %r"
                     % (k, 2 * RADIUS_P, DENSITY, v[0], v[1], v[2]))
        spin = max(spin, math.sqrt(sum(c * c for c in w)))
    nrot = steps(ROT)
    every = steps(EVERY)
    script = LIGGGHTS_IN % {
        "lo": -1.2 * R, "hi": 1.2 * R, "ylo": -L, "yhi": L, "skin": 0.5 * RADIUS_P,
        "material": liggghts.hertz(YOUNG, POISSON, RESTITUTION, FRICTION), "dt": DT, "g": G,
        "atoms": "\n".join(lines), "period": 2 * math.pi / omega, "every": every, "steps": nrot}
    if name in PREV and PREV[name]["steps"] == nrot:
        cpu = PREV[name]["cpu"]
        with open(os.path.join(d, name + ".log")) as f:
            log = f.read()
    else:
        log, cpu = liggghts.run(script, d, name)
    frames, step, atoms = [], None, []
    with open(os.path.join(d, "dump.txt")) as f:
        it = iter(f)
        for line in it:
            if line.startswith("ITEM: TIMESTEP"):
                if step is not None:
                    frames.append((T0 + step * DT, atoms))
                step, atoms = int(next(it)), []
            elif line.startswith("ITEM: ATOMS"):
                continue
            elif line.startswith("ITEM:"):
                next(it)
                if "BOX" in line:
                    next(it), next(it)
            else:
                p = line.split()
                if len(p) == 4:
                    atoms.append((float(p[1]), float(p[3])))
    if step is not None:
        frames.append((T0 + step * DT, atoms))
    r = angles(frames, omega)
    r.update({"omega": omega, "cpu": cpu, "steps": nrot, "cpu_per_step": cpu / nrot,
              "particles": len(frames[-1][1]), "loop": liggghts.loop_seconds(log),
              "spin_dropped": spin})
    return r


cases = {}
if args.mesh_only:
    c = cases["mesh"] = mrdem_case("mesh", OMEGAS[-1], True, SETTLE_ROTATION / OMEGAS[-1] + MEASURE)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"R": R, "L": L, "dt": DT, "T0": T0, "rotation": ROT, "cases": cases}, f,
                      indent=1)
    print("| mrdem, noisy mesh spheres (80 triangles) | %g | %.2g | %d | %.1f +- %.1f |"
          " %.1f +- %.1f | %.3f |" % (OMEGAS[-1], OMEGAS[-1] ** 2 * R / G, c["particles"],
                                      c["principal"], c["principal_sd"], c["surface"],
                                      c["surface_sd"], 1e3 * c["cpu_per_step"]))
    sys.exit(0)
for i, w in enumerate(OMEGAS):
    cases["spheres-%d" % i] = mrdem_case("spheres-%d" % i, w, False, ROT)
have_lg = liggghts.available() and not args.no_liggghts
if have_lg:
    for i, w in enumerate(OMEGAS):
        cases["liggghts-%d" % i] = liggghts_case("liggghts-%d" % i, w,
                                                  cases["spheres-%d" % i]["fill"])
if not args.no_mesh:
    cases["mesh"] = mrdem_case("mesh", OMEGAS[-1], True,
                               SETTLE_ROTATION / OMEGAS[-1] + MEASURE)

if args.json:
    with open(args.json, "w") as f:
        json.dump({"R": R, "L": L, "dt": DT, "T0": T0, "rotation": ROT, "cases": cases}, f,
                  indent=1)

cmd = "make -C pipelines drum" + (" (quick: drum.py --quick)" if args.quick else "")
print("## Rotating drum: dynamic angle of repose\n")
print("Command: `%s`. Drum: a closed `revolve` cylinder, radius %g m, inner length %g m"
      " (end caps included), %d segments, axis along y, turning about +y from t = %g s."
      " Spheres: radius %g m, density %g kg/m^3, %d of them (%d%% of the drum's volume"
      " packed at 0.6). Hertz: E = %g Pa, nu = %g, restitution %g, friction %g (spheres and"
      " drum alike, no rolling friction), dt = %g s, velocity Verlet in mrdem, %g s of"
      " rotation (the mesh spheres: as long after the drum has turned as many radians)."
      " Angles from the frames every %g s once the drum has turned %g rad;"
      " mean +- standard deviation over the frames (drum.py's header: the bed's principal"
      " axis; the free surface's highest centres per bin). CPU: one thread"
      " (OMP_NUM_THREADS=1), process CPU seconds of the rotation run alone over its steps.\n"
      % (cmd, R, L, SEGMENTS, T0, RADIUS_P, DENSITY, N,
         round(100 * N * 4 / 3 * math.pi * RADIUS_P ** 3 / 0.6 / (math.pi * R * R * L)),
         YOUNG, POISSON, RESTITUTION, FRICTION, DT, ROT, EVERY, SETTLE_ROTATION))
print("| run | omega, rad/s | Froude omega^2 R / g | particles | angle (principal axis), deg |"
      " angle (free surface), deg | CPU per step, ms |")
print("|---|---|---|---|---|---|---|")
for i, w in enumerate(OMEGAS):
    rows = [("mrdem, spheres", cases["spheres-%d" % i])]
    if have_lg:
        rows.append(("LIGGGHTS, spheres", cases["liggghts-%d" % i]))
    if not args.no_mesh and i == len(OMEGAS) - 1:
        rows.append(("mrdem, noisy mesh spheres (80 triangles)", cases["mesh"]))
    for label, c in rows:
        print("| %s | %g | %.2g | %d | %.1f +- %.1f | %.1f +- %.1f | %.3f |" % (
            label, w, w * w * R / G, c["particles"], c["principal"], c["principal_sd"],
            c["surface"], c["surface_sd"], 1e3 * c["cpu_per_step"]))
print()
for i, w in enumerate(OMEGAS):
    c = cases["spheres-%d" % i]
    if have_lg:
        lg = cases["liggghts-%d" % i]
        diff = c["principal"] - lg["principal"]
        print("- omega = %g rad/s: mrdem - LIGGGHTS = %+.1f deg (principal axis; goal: within 2"
              " deg: %s), %+.1f deg (free surface), over %d frames each from t = %.2f s (the"
              " +- above is the spread from frame to frame, not the error of the mean); CPU per"
              " step mrdem / LIGGGHTS = %.2f." % (
                  w, diff, "met" if abs(diff) <= 2 else "NOT met", c["surface"] - lg["surface"],
                  c["frames"], c["from"], c["cpu_per_step"] / lg["cpu_per_step"]))
    print("- omega = %g rad/s, mrdem: spheres next to the mantle turn at %.2f rad/s about the"
          " axis (the drum: %g); mean torque on the drum about y %.3g N m (opposing the"
          " rotation when negative); particles %d..%d, mass %.6g..%.6g kg over the run." % (
              w, c["wall_omega"], w, c["wall_torque_y"], c["counts"][0], c["counts"][1],
              c["mass"][0], c["mass"][1]))
if not args.no_mesh:
    c, s = cases["mesh"], cases["spheres-%d" % (len(OMEGAS) - 1)]
    print("- noisy mesh spheres at omega = %g rad/s: %.1f deg, %+.1f deg from the analytic"
          " spheres (a larger angle is expected from interlocking shapes)." % (
              OMEGAS[-1], c["principal"], c["principal"] - s["principal"]))
if not have_lg:
    print("- LIGGGHTS comparison skipped: `%s` is not installed (or --no-liggghts)."
          % liggghts.PROGRAM)
