#!/usr/bin/env python3
"""A hopper's discharge against Beverloo's law and LIGGGHTS.

A flat-bottomed cylindrical hopper (the open surface of revolution of the
profile [[D/2, 0], [R, 0], [R, H]], a fixed mesh) with a round orifice of
diameter D, R = D/2 + WALL d, is filled with N spheres of diameter d
placed at random at time 0 (`insert` with a count) above a gate: an
analytic plane at z = 0 under the orifice. The spheres settle; at
OPEN seconds the gate moves away downwards at 5 m/s (`motion: {velocity:
[0, 0, -5], start: OPEN}`), and the spheres leave through the orifice
into a `remove` box 1.5 d under it. mrdem-run's per-frame `outflow_mass`
gives the discharge; the mass flow rate W is the least-squares slope of
the removed mass against time from SETTLE seconds after the opening to
the end (steady: the bed stays higher than D). The bulk density rho_b is
measured in the settled bed at the opening (the centres in its core, a
wall layer of 1.5 d and the top 1.5 d left out).

Beverloo: W = C rho_b sqrt(g) (D - k d)^(5/2); C and k are fitted by
least squares on W^(2/5) = (C rho_b sqrt(g))^(2/5) (D - k d), a straight
line in D, and printed beside the published C ~ 0.58, k ~ 1.5.

The same with noisy mesh spheres (80 triangles, vertices pushed out by up
to 10 %; d their volume-equivalent diameter), and with LIGGGHTS on the
same hopper (the STL of `mrdem-mesh export` of the same revolve mesh,
`fix mesh/surface` and `fix wall/gran ... mesh`), the same spheres at the
same starting positions (the mrdem-init frame), the same Hertz material
(E, nu, restitution, friction), dt and gate (a `zplane` wall unfixed at
OPEN), the spheres leaving the box counted with `thermo_modify lost
ignore`. LIGGGHTS's spheres have the diameter 2 (r + eps) at which
mrdem's spheres with halo eps touch, and the density that keeps their mass.

CPU time: process CPU seconds of each run (getrusage of the child, one
OpenMP thread for both codes) over its steps.

Usage: beverloo.py BINDIR OUTDIR [--orifices 4,5,6,8,10] [--mesh-orifices
5,8] [--liggghts-orifices 5,8] [--bed 8] [--wall 4] [--min-window S]
[--max-window S] [--csv]: a Markdown report on stdout (or CSV rows of
every run)."""
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
R_BEAD = 0.0025          # sphere radius, m (d = 5 mm)
RHO = 2500.0             # particle density, kg/m^3
YOUNG, POISSON, REST, FRICTION = 5.0e6, 0.3, 0.5, 0.5
DT = 2.0e-5
EPS = 5.0e-5             # halo of the analytic spheres, the hopper and the gate
MESH_EPS = 1.0e-4        # halo of the mesh spheres
MESH_NOISE = 1.1
GATE_SPEED = 5.0         # m/s, the gate's speed away from the orifice
SETTLE = 0.06            # s after the opening before W is measured
FILL_FRACTION = 0.22     # solid fraction of the random placement
FILL_SETTLE = 0.05       # s after the last sphere reaches the bed before the opening
PACKING = 0.6            # expected solid fraction of the settled bed
EVERY = 250              # steps between frames (5 ms)
C_PUB, K_PUB = 0.58, 1.5


def parse_list(s):
    if s.strip() == "none":
        return []
    v = [float(x) for x in s.replace(",", " ").split()]
    if not v or any(x <= 0 for x in v):
        raise argparse.ArgumentTypeError("a list of positive numbers, got %r" % s)
    return v




def beverloo(d_orifice, d, rho_b, c=C_PUB, k=K_PUB):
    """Beverloo's mass flow rate, kg/s (0 below k d)."""
    return c * rho_b * math.sqrt(G) * max(d_orifice - k * d, 0.0) ** 2.5


class Hopper:
    """The geometry and schedule of one run: orifice D = n_orifice d."""

    def __init__(self, n_orifice, args, mesh=False):
        self.mesh = mesh
        self.r = R_BEAD
        self.d = 2 * R_BEAD
        self.eps = MESH_EPS if mesh else EPS
        self.bound = R_BEAD * (MESH_NOISE if mesh else 1.0)
        d = self.d
        self.n_orifice = n_orifice
        self.D = n_orifice * d
        self.R = self.D / 2 + args.wall * d
        self.n = max(50, round(PACKING * self.R ** 2 * args.bed * d / (d ** 3 / 6)))
        # the random placement: a cylinder clear of the wall and the gate
        self.r_in = self.R - self.bound - 2 * self.eps - 2e-4
        self.z_in = self.bound + 2 * self.eps + 2e-4
        vol = self.n * math.pi * d ** 3 / 6
        self.h_in = vol / (FILL_FRACTION * math.pi * self.r_in ** 2)
        self.H = self.z_in + self.h_in + d
        v0 = 0.5
        fall = (-v0 + math.sqrt(v0 * v0 + 2 * G * (self.z_in + self.h_in))) / G
        self.open = round((fall + FILL_SETTLE) / (EVERY * DT)) * EVERY * DT
        w = beverloo(self.D, d, PACKING * RHO)
        want = min(0.4 * self.n, 300) * RHO * math.pi * d ** 3 / 6
        window = min(max(want / w if w > 0 else args.max_window, args.min_window), args.max_window)
        self.end = self.open + SETTLE + window
        self.steps = math.ceil(self.end / DT / EVERY) * EVERY
        self.fill_steps = round(self.open / DT)

    def profile(self):
        return [[self.D / 2, 0.0], [self.R, 0.0], [self.R, self.H]]

    def divisions(self):
        return max(1, round(self.H / (4 * self.d)))

    def scene(self, seed=1):
        if self.mesh:
            bead = "{sphere: {triangles: 80, radius: %r, noise: %r, seed: 2}}" % (self.r, MESH_NOISE)
        else:
            bead = "{analytic-sphere: {radius: %r}}" % self.r
        prof = ", ".join("[%r, %r]" % tuple(p) for p in self.profile())
        return f"""shapes:
  bead: {bead}
  hopper: {{revolve: {{profile: [{prof}], segments: 64, divisions: {self.divisions()}}}}}
particles:
  - {{shape: hopper, position: [0, 0, 0], fixed: true, epsilon_abs: {EPS!r}}}
planes:
  - {{point: [0, 0, 0], normal: [0, 0, 1], motion: {{velocity: [0, 0, {-GATE_SPEED!r}], start: {self.open!r}}}}}
insert:
  - region: {{cylinder: {{point: [0, 0, {self.z_in!r}], axis: [0, 0, 1], radius: {self.r_in!r}, length: {self.h_in!r}}}}}
    shape: bead
    count: {self.n}
    density: {RHO!r}
    velocity: [0, 0, -0.5]
    seed: {seed}
    epsilon_abs: {self.eps!r}
remove:
  - {{box: {{min: [-1, -1, -1], max: [1, 1, {-1.5 * self.d!r}]}}}}
gravity: [0, 0, {-G!r}]
contact: {{model: hertz, young: {YOUNG!r}, poisson: {POISSON!r}, restitution: {REST!r}, friction: {FRICTION!r}, epsilon_abs: {EPS!r}, plane_epsilon: {EPS!r}}}
time: {{dt: {DT!r}, steps: {self.steps}, scheme: velocity-verlet}}
output: {{every: {EVERY}}}
"""


def rate(times, masses, t0):
    """Least-squares slope of the cumulative removed mass against time from
    t0 on, and the slopes of the window's two halves."""
    pts = [(t, m) for t, m in zip(times, masses) if t >= t0 - 1e-12]

    def slope(p):
        if len(p) < 2:
            return float("nan")
        n = len(p)
        mt = sum(t for t, _ in p) / n
        mm = sum(m for _, m in p) / n
        return sum((t - mt) * (m - mm) for t, m in p) / sum((t - mt) ** 2 for t, _ in p)

    h = len(pts) // 2
    return slope(pts), slope(pts[:h + 1]), slope(pts[h:])


def bulk_density(h, pos, mass):
    """Mass per volume of the centres POS (of particles of MASS) in the
    bed's core: farther than 1.5 d from the wall, above 1.5 d and below the
    top 1.5 d."""
    zs = sorted(p[2] for p in pos)
    top = zs[int(0.98 * (len(zs) - 1))]
    z0, z1, rc = 1.5 * h.d, top - 1.5 * h.d, h.R - 1.5 * h.d
    if z1 <= z0 or rc <= 0:
        return float("nan")
    m = mass * sum(1 for p in pos if z0 <= p[2] <= z1 and math.hypot(p[0], p[1]) <= rc)
    return m / (math.pi * rc * rc * (z1 - z0))


def cached(work, tag, scene, run):
    """RUN()'s result, or the one kept in WORK from a run of the same
    SCENE (a report with more orifices reuses the runs it has)."""
    keep = os.path.join(work, tag + ".json")
    if os.path.exists(keep):
        with open(keep) as f:
            old = json.load(f)
        if old.get("text") == scene:
            return old["result"]
    r = run()
    with open(keep + ".tmp", "w") as f:
        json.dump({"text": scene, "result": r}, f)
    os.replace(keep + ".tmp", keep)
    return r


def run_mrdem(args, h, tag):
    work = os.path.join(args.out, tag)
    os.makedirs(work, exist_ok=True)
    yaml = os.path.join(work, tag + ".yaml")
    with open(yaml, "w") as f:
        f.write(h.scene())
    return cached(work, tag, h.scene(), lambda: measure_mrdem(args, h, tag, work, yaml))


def measure_mrdem(args, h, tag, work, yaml):
    out = os.path.join(work, tag + ".mrd")
    cpu = cpu_run([os.path.join(args.bin, "mrdem-run"), "-q", yaml, "-o", out], "beverloo")
    s = mrdem.read(out)
    vol = {i: sh.volume for i, sh in enumerate(s.shapes)}
    stats = {st.step: st.values for st in s.stats if st.source == "mrdem-run"}
    times, cum, total, count = [], [], 0.0, 0
    for f in s.frames:
        total += stats.get(f.step, {}).get("outflow_mass", 0.0) or 0.0
        count += int(stats.get(f.step, {}).get("outflow_particles", 0) or 0)
        times.append(f.time)
        cum.append(total)
    bead = next(i for i, sh in enumerate(s.shapes) if sh.name == "bead")
    opening = min(s.frames, key=lambda f: abs(f.time - h.open))
    m_one = RHO * vol[bead]
    rho_b = bulk_density(h, [p for p, k in zip(opening["position"], opening["shape"]) if k == bead],
                         m_one)
    w, w1, w2 = rate(times, cum, h.open + SETTLE)
    d_eq = (6 * vol[bead] / math.pi) ** (1 / 3)
    last = s.frames[-1]
    return {"code": "mrdem", "kind": "mesh" if h.mesh else "analytic", "n_orifice": h.n_orifice,
            "D": h.D, "d": d_eq, "n": h.n, "W": w, "W_first": w1, "W_second": w2,
            "rho_b": rho_b, "out": count,
            "left": sum(1 for k in last["shape"] if k == bead), "steps": h.steps,
            "cpu": cpu, "cpu_step": cpu / h.steps, "scene": yaml, "open": h.open,
            "window": h.end - h.open - SETTLE, "inserted": h.n}


LIGGGHTS_IN = liggghts.HEADER + """hard_particles yes
read_data {tag}.data
neighbor {skin!r} bin
neigh_modify delay 0
fix m1 all property/global youngsModulus peratomtype {young!r}
fix m2 all property/global poissonsRatio peratomtype {poisson!r}
fix m3 all property/global coefficientRestitution peratomtypepair 1 {rest!r}
fix m4 all property/global coefficientFriction peratomtypepair 1 {friction!r}
pair_style gran model hertz tangential history
pair_coeff * *
timestep {dt!r}
fix gravi all gravity {g!r} vector 0.0 0.0 -1.0
fix hopper all mesh/surface file hopper.stl type 1
fix walls all wall/gran model hertz tangential history mesh n_meshes 1 meshes hopper
fix gate all wall/gran model hertz tangential history primitive type 1 zplane 0.0
fix integrate all nve/sphere
velocity all set 0.0 0.0 -0.5 units box
thermo_style custom step atoms ke
thermo_modify lost ignore norm no
thermo {every}
run {fill}
unfix gate
run {discharge}
"""


def run_liggghts(args, h, tag):
    """The same hopper in LIGGGHTS: its W, CPU time per step."""
    work = os.path.join(args.out, tag)
    os.makedirs(work, exist_ok=True)
    yaml = os.path.join(work, tag + ".yaml")
    with open(yaml, "w") as f:
        f.write(h.scene())
    return cached(work, tag, h.scene() + LIGGGHTS_IN,
                  lambda: measure_liggghts(args, h, tag, work, yaml))


def measure_liggghts(args, h, tag, work, yaml):
    init = os.path.join(work, tag + "-init.mrd")
    subprocess.run([os.path.join(args.bin, "mrdem-init"), yaml, "-o", init], check=True)
    prof = [str(x) for p in h.profile() for x in p]
    mesh = subprocess.run([os.path.join(args.bin, "mrdem-mesh"), "revolve", "--open", "--profile",
                           *prof, "--segments", "64", "--divisions", str(h.divisions())],
                          check=True, stdout=subprocess.PIPE).stdout
    subprocess.run([os.path.join(args.bin, "mrdem-mesh"), "export", "--format", "stl-ascii",
                    "-o", os.path.join(work, "hopper.stl")], input=mesh, check=True)
    s = mrdem.read(init)
    f0 = s.frames[0]
    bead = next(i for i, sh in enumerate(s.shapes) if sh.name == "bead")
    pos = [p for p, k in zip(f0["position"], f0["shape"]) if k == bead]
    vol = s.shapes[bead].volume
    m_one = RHO * vol
    rl = h.r + h.eps
    rho_l = m_one / (4 / 3 * math.pi * rl ** 3)
    zlo = -1.5 * h.d
    lines = ["LIGGGHTS data file: %s" % tag, "", "%d atoms" % len(pos), "1 atom types", "",
             "%r %r xlo xhi" % (-h.R - h.d, h.R + h.d), "%r %r ylo yhi" % (-h.R - h.d, h.R + h.d),
             "%r %r zlo zhi" % (zlo, h.H + 2 * h.d), "", "Atoms", ""]
    for i, p in enumerate(pos):
        lines.append("%d 1 %r %r %r %r %r" % (i + 1, 2 * rl, rho_l, p[0], p[1], p[2]))
    with open(os.path.join(work, tag + ".data"), "w") as f:
        f.write("\n".join(lines) + "\n")
    script = LIGGGHTS_IN.format(tag=tag, skin=0.5 * h.r, young=YOUNG, poisson=POISSON, rest=REST,
                                friction=FRICTION, dt=DT, g=G, every=EVERY, fill=h.fill_steps,
                                discharge=h.steps - h.fill_steps)
    log, cpu = liggghts.run(script, work, tag)
    rows = liggghts.thermo(log, 3)
    seen, times, cum = set(), [], []
    for r in rows:
        if r[0] in seen:  # the second run repeats the first's last row
            continue
        seen.add(r[0])
        times.append(r[0] * DT)
        cum.append((len(pos) - r[1]) * m_one)
    w, w1, w2 = rate(times, cum, h.open + SETTLE)
    return {"code": "LIGGGHTS", "kind": "analytic", "n_orifice": h.n_orifice, "D": h.D, "d": h.d,
            "n": len(pos), "W": w, "W_first": w1, "W_second": w2, "rho_b": float("nan"),
            "out": round(cum[-1] / m_one), "left": len(pos) - round(cum[-1] / m_one),
            "steps": h.steps,
            "cpu": cpu, "cpu_step": cpu / h.steps, "scene": os.path.join(work, tag + ".in"),
            "open": h.open, "window": h.end - h.open - SETTLE, "inserted": len(pos)}


def same(a, b):
    """Two orifice diameters in particle diameters, equal up to rounding."""
    return abs(a - b) < 1e-6 * max(abs(a), abs(b), 1.0)


def fit(rows):
    """C and k of W = C rho_b sqrt(g) (D - k d)^(5/2) by least squares on
    W^(2/5) against D, rho_b the mean measured bulk density; (C, k) or None."""
    pts = [(r["D"], r["W"] ** 0.4) for r in rows if r["W"] > 0]
    if len(pts) < 2:
        return None
    n = len(pts)
    mx = sum(x for x, _ in pts) / n
    my = sum(y for _, y in pts) / n
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    if sxx == 0:
        return None
    a = sum((x - mx) * (y - my) for x, y in pts) / sxx
    b = my - a * mx
    rho_b = sum(r["rho_b"] for r in rows) / len(rows)
    d = rows[0]["d"]
    return a ** 2.5 / (rho_b * math.sqrt(G)), -b / (a * d), rho_b


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bin")
    ap.add_argument("out")
    ap.add_argument("--orifices", type=parse_list, default=parse_list("4,5,6,8,10"),
                    help="orifice diameters of the analytic spheres, in particle diameters")
    ap.add_argument("--mesh-orifices", type=parse_list, default=parse_list("5,8"),
                    help="the same for the noisy mesh spheres ('none' for none)")
    ap.add_argument("--liggghts-orifices", type=parse_list, default=parse_list("5,8"),
                    help="the same for LIGGGHTS")
    ap.add_argument("--bed", type=float, default=8.0, help="settled bed height, in d")
    ap.add_argument("--wall", type=float, default=4.0,
                    help="distance from the orifice's edge to the wall, in d")
    ap.add_argument("--min-window", type=float, default=0.1, help="s, shortest measurement")
    ap.add_argument("--max-window", type=float, default=0.3, help="s, longest measurement")
    ap.add_argument("--csv", action="store_true")
    ap.add_argument("--command", default="", help="the command line to name in the report")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)

    rows = []
    for n in args.orifices:
        rows.append(run_mrdem(args, Hopper(n, args), "analytic-%g" % n))
    for n in args.mesh_orifices:
        rows.append(run_mrdem(args, Hopper(n, args, mesh=True), "mesh-%g" % n))
    have = liggghts.available()
    if have:
        for n in args.liggghts_orifices:
            rows.append(run_liggghts(args, Hopper(n, args), "liggghts-%g" % n))

    if args.csv:
        keys = ["code", "kind", "n_orifice", "D", "d", "n", "W", "W_first", "W_second", "rho_b",
                "out", "left", "steps", "cpu", "cpu_step"]
        print(",".join(keys))
        for r in rows:
            print(",".join(repr(r[k]) if isinstance(r[k], float) else str(r[k]) for k in keys))
        return

    p = print
    p("# Hopper discharge against Beverloo's law and LIGGGHTS\n")
    if args.command:
        p("Made by `%s`.\n" % args.command)
    h0 = Hopper(args.orifices[0], args)
    p("A flat-bottomed cylindrical hopper (revolve profile [[D/2, 0], [R, 0], [R, H]], "
      "64 segments, a fixed mesh), R = D/2 + %g d, filled with spheres of d = %g mm "
      "(%g kg/m^3; Hertz E = %g Pa, nu = %g, restitution %g, friction %g, walls alike) "
      "placed at random at t = 0 for a settled bed about %g d high; a gate plane under the "
      "orifice moves away at %g m/s at the opening; the spheres are removed 1.5 d under the "
      "orifice. dt = %g s, velocity Verlet, frames every %g s. W is the least-squares slope "
      "of the removed mass from %g s after the opening to the end (the window); rho_b is "
      "measured in the settled bed's core. Scenes: `%s/*/*.yaml`.\n"
      % (args.wall, 1000 * h0.d, RHO, YOUNG, POISSON, REST, FRICTION, args.bed, GATE_SPEED,
         DT, EVERY * DT, SETTLE, args.out))
    p("| code | spheres | D/d | N | opening (s) | window (s) | out | W (kg/s) | W 1st/2nd half "
      "| rho_b (kg/m^3) | Beverloo C=0.58 k=1.5 (kg/s) | W / Beverloo | CPU s | CPU ms/step |")
    p("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        rb = r["rho_b"]
        if rb != rb:  # LIGGGHTS: mrdem's on the same orifice
            rb = next((a["rho_b"] for a in rows if a["code"] == "mrdem" and a["kind"] == "analytic"
                       and same(a["n_orifice"], r["n_orifice"])), PACKING * RHO)
        wb = beverloo(r["D"], r["d"], rb)
        p("| %s | %s | %g | %d | %.2f | %.2f | %d | %.4f | %.4f / %.4f | %s | %.4f | %.2f | %.1f "
          "| %.2f |" % (r["code"], r["kind"], r["n_orifice"], r["n"], r["open"], r["window"],
                        r["out"], r["W"], r["W_first"], r["W_second"],
                        "%.0f" % r["rho_b"] if r["rho_b"] == r["rho_b"] else "-", wb,
                        r["W"] / wb if wb > 0 else float("nan"), r["cpu"], 1000 * r["cpu_step"]))
    p("")
    p("The Beverloo column uses the measured rho_b of mrdem's run (LIGGGHTS: that of mrdem's "
      "analytic run on the same orifice, else %g rho).\n" % PACKING)
    p("## Beverloo fit\n")
    p("| spheres | orifices | C | k | rho_b (kg/m^3) |")
    p("|---|---|---|---|---|")
    for kind in ("analytic", "mesh"):
        sel = [r for r in rows if r["code"] == "mrdem" and r["kind"] == kind]
        f = fit(sel)
        if f:
            names = ", ".join("%g" % r["n_orifice"] for r in sel)
            p("| mrdem %s | %s | %.3f | %.2f | %.0f |" % (kind, names, f[0], f[1], f[2]))
        elif sel:
            p("| mrdem %s | %s | (fewer than two orifices) | | |"
              % (kind, ", ".join("%g" % r["n_orifice"] for r in sel)))
    p("| published (Beverloo et al. 1961; Nedderman 1992) | | ~0.58 | ~1.5 | |")
    p("")
    if not have:
        p("LIGGGHTS (`%s`) is not installed here: the comparison with it was skipped.\n"
          % liggghts.PROGRAM)
    else:
        p("## mrdem beside LIGGGHTS (analytic spheres, the same hopper)\n")
        p("| D/d | W mrdem (kg/s) | W LIGGGHTS (kg/s) | ratio | CPU ms/step mrdem | "
          "CPU ms/step LIGGGHTS |")
        p("|---|---|---|---|---|---|")
        for n in args.liggghts_orifices:
            a = [r for r in rows if r["code"] == "mrdem" and r["kind"] == "analytic"
                 and same(r["n_orifice"], n)]
            lg = [r for r in rows if r["code"] == "LIGGGHTS" and same(r["n_orifice"], n)]
            if lg:
                wm = "%.4f" % a[0]["W"] if a else "-"
                ratio = "%.2f" % (a[0]["W"] / lg[0]["W"]) if a and lg[0]["W"] > 0 else "-"
                cm = "%.2f" % (1000 * a[0]["cpu_step"]) if a else "-"
                p("| %g | %s | %.4f | %s | %s | %.2f |" % (n, wm, lg[0]["W"], ratio, cm,
                                                        1000 * lg[0]["cpu_step"]))
        p("")
        p("CPU time per step is the process CPU seconds of the whole run (setup included) "
          "over its steps, one OpenMP thread each, measured in this run on this machine.\n")


if __name__ == "__main__":
    main()
