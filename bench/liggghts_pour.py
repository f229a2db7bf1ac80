#!/usr/bin/env python3
"""The everyday DEM job against LIGGGHTS: 343 spheres (contact radius
5 mm, density 2500) in a jittered 7 x 7 x 7 lattice poured into a box of
five planes, Hertz with E 1e8, nu 0.3, e 0.5, mu 0.5, dt 2e-5, one
thread each, in one sitting. mrdem's spheres are analytic, radius 4.95 mm
with a halo of 0.05 mm (plane halo 0.05 mm), so they touch at 5 mm as
LIGGGHTS's do. Prints the wall seconds of mrdem-run (the sphere fast
path it takes by itself; --general too: the general path) and of
LIGGGHTS's loop.

  bench/liggghts_pour.py BIN WORKDIR [--steps N] [--general]
"""
import argparse
import os
import random
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pipelines"))
import liggghts  # noqa: E402

R, EPS, HALF, SPACING = 0.00495, 0.00005, 0.05, 0.012
YOUNG, NU, E, MU, DT, RHO = 1.0e8, 0.3, 0.5, 0.5, 2.0e-5, 2500.0


def positions():
    rng = random.Random(3)
    out = []
    for z in range(7):
        for y in range(7):
            for x in range(7):
                out.append(((x - 3) * SPACING + rng.uniform(-1e-3, 1e-3),
                            (y - 3) * SPACING + rng.uniform(-1e-3, 1e-3),
                            0.01 + z * SPACING))
    return out


def scene(steps):
    lines = ["shapes:", "  ball: {analytic-sphere: {radius: %r}}" % R, "particles:"]
    for p in positions():
        lines.append("  - {shape: ball, position: [%r, %r, %r], density: %r, epsilon_abs: %r}"
                     % (p[0], p[1], p[2], RHO, EPS))
    lines += ["planes:", "  - {point: [0, 0, 0], normal: [0, 0, 1]}"]
    for a, n in (("x", "[1, 0, 0]"), ("x", "[-1, 0, 0]"), ("y", "[0, 1, 0]"), ("y", "[0, -1, 0]")):
        sign = -1 if "-" not in n else 1
        pt = "[%r, 0, 0]" % (sign * HALF) if a == "x" else "[0, %r, 0]" % (sign * HALF)
        lines.append("  - {point: %s, normal: %s}" % (pt, n))
    lines += ["gravity: [0, 0, -9.81]",
              "contact: {model: hertz, young: %r, poisson: %r, restitution: %r, friction: %r, "
              "plane_epsilon: %r}" % (YOUNG, NU, E, MU, EPS),
              "time: {dt: %r, steps: %d, scheme: velocity-verlet}" % (DT, steps),
              "output: {every: %d}" % steps]
    return "\n".join(lines) + "\n"


def liggghts_in(steps):
    atoms = []
    for k, p in enumerate(positions(), 1):
        atoms.append("create_atoms 1 single %r %r %r units box" % p)
        atoms.append("set atom %d diameter %r density %r" % (k, 2 * (R + EPS), RHO))
    walls = ["fix w%d all wall/gran model hertz tangential history primitive type 1 %s"
             % (k, w) for k, w in enumerate(("zplane 0.0", "xplane %r" % -HALF, "xplane %r" % HALF,
                                             "yplane %r" % -HALF, "yplane %r" % HALF))]
    return liggghts.HEADER + """processors 1 1 1
region box block %(lo)r %(hi)r %(lo)r %(hi)r -0.01 0.2 units box
create_box 1 box
neighbor 0.0005 bin
neigh_modify delay 0
fix m1 all property/global youngsModulus peratomtype %(young)r
fix m2 all property/global poissonsRatio peratomtype %(nu)r
fix m3 all property/global coefficientRestitution peratomtypepair 1 %(e)r
fix m4 all property/global coefficientFriction peratomtypepair 1 %(mu)r
pair_style gran model hertz tangential history
pair_coeff * *
timestep %(dt)r
fix gravi all gravity 9.81 vector 0 0 -1
%(walls)s
%(atoms)s
fix integrate all nve/sphere
thermo_style custom step atoms ke
thermo %(steps)d
run %(steps)d
""" % {"lo": -HALF, "hi": HALF, "young": YOUNG, "nu": NU, "e": E, "mu": MU, "dt": DT,
       "walls": "\n".join(walls), "atoms": "\n".join(atoms), "steps": steps}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("workdir")
    ap.add_argument("--steps", type=int, default=50000)
    ap.add_argument("--general", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    path = os.path.join(a.workdir, "pour343.yaml")
    with open(path, "w") as f:
        f.write(scene(a.steps))
    env = dict(os.environ, OMP_NUM_THREADS="1")
    runs = [("mrdem (sphere fast path)", [])] + ([("mrdem --general-path", ["--general-path"])]
                                                 if a.general else [])
    for name, opt in runs:
        t0 = time.time()
        subprocess.run([os.path.join(a.bin, "mrdem-run"), "-q", path, "-o",
                        os.path.join(a.workdir, "pour343.mrd")] + opt, check=True, env=env)
        print("%-26s %d steps: %.2f s wall" % (name, a.steps, time.time() - t0), flush=True)
    if liggghts.available():
        t0 = time.time()
        log, cpu = liggghts.run(liggghts_in(a.steps), a.workdir, "pour343")
        print("%-26s %d steps: %.2f s wall (loop %.2f s, CPU %.2f s)"
              % ("LIGGGHTS", a.steps, time.time() - t0, liggghts.loop_seconds(log), cpu))
    else:
        print("LIGGGHTS: not installed, skipped")


if __name__ == "__main__":
    main()
