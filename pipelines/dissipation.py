#!/usr/bin/env python3
"""Numerical dissipation of implicit Euler: the relative loss of kinetic
energy through one head-on collision of two spheres (80 triangles, the
spring model, no friction, no gravity; the pair of tests/e2e/implicit.sh)
against dt, beside the linear-oscillator prediction and the energy change
of explicit Euler and velocity Verlet. Usage: dissipation.py BINDIR OUTDIR
[--csv]; a Markdown table (or CSV) on stdout."""
import argparse
import csv
import io
import json
import math
import os
import subprocess

DTS = [1e-4, 2e-4, 4e-4, 8e-4, 1.6e-3, 3.2e-3]
DURATION = 0.1  # approach (40 ms), contact (25 ms) and separation
SCHEMES = ["implicit-euler", "explicit-euler", "velocity-verlet"]
SCENE = """shapes:
  ball: {sphere: {triangles: 80, radius: 1.0}}
particles:
  - {shape: ball, position: [-1.05, 0, 0], velocity: [1.0, 0, 0]}
  - {shape: ball, position: [1.05, 0, 0], velocity: [-0.5, 0, 0], density: 2}
gravity: [0, 0, 0]
contact: {model: paper, epsilon: 0.01, stiffness: 1000}
time: {dt: 1.0e-4, steps: 1, scheme: implicit-euler}
"""

ap = argparse.ArgumentParser()
ap.add_argument("bin")
ap.add_argument("out")
ap.add_argument("--csv", action="store_true", help="CSV instead of Markdown")
args = ap.parse_args()


def tool(name, *argv):
    return subprocess.run([os.path.join(args.bin, name), *argv], capture_output=True,
                          text=True, check=True).stdout


yaml = os.path.join(args.out, "headon.yaml")
with open(yaml, "w") as f:
    f.write(SCENE)


def omega(path):
    """Contact frequency of the pair: the spring k = Ks sqrt(m_eff) / (eps_a +
    eps_b) (docs/dynamics.md) on the effective mass."""
    d = json.loads(tool("mrdem-info", "--json", "--full", path))
    rec = d["records"]
    vol = {r["id"]: r["volume"] for r in rec if r["type"] == "mesh"}
    ks = next(r["stiffness"] for r in rec if r["type"] == "setup")
    a, b = next(r for r in rec if r["type"] == "frame")["state"]
    ma, mb = a["density"] * vol[a["shape"]], b["density"] * vol[b["shape"]]
    meff = 1 / (1 / ma + 1 / mb)
    return math.sqrt(ks * math.sqrt(meff) / (a["epsilon"] + b["epsilon"]) / meff)


def change(scheme, dt):
    """Relative kinetic energy change through the collision, and whether
    the spheres are apart at the end."""
    steps = math.ceil(DURATION / dt - 1e-9)
    out = os.path.join(args.out, "headon-%s-%g.mrd" % (scheme, dt))
    # the energy guards off: the change of energy is what this measures,
    # explicit Euler's gain at the larger dt included
    subprocess.run([os.path.join(args.bin, "mrdem-run"), "-q", yaml, "-o", out, "--scheme",
                    scheme, "--dt", repr(dt), "--steps", str(steps), "--every", str(steps),
                    "--max-energy-growth", "0"], check=True)
    rows = list(csv.DictReader(io.StringIO(tool("mrdem-stats", out))))
    k0, k1 = float(rows[0]["kinetic"]), float(rows[-1]["kinetic"])
    return (k1 - k0) / k0, int(rows[-1]["contacts"] or 0) == 0, out


w = None
table = []
for dt in DTS:
    row = {"dt": dt}
    for s in SCHEMES:
        row[s], apart, out = change(s, dt)
        if not apart:
            raise SystemExit("dissipation.py: %s at dt = %g: still in contact after %g s"
                             % (s, dt, DURATION))
        w = w or omega(out)
    # Implicit Euler on x'' = -w^2 x multiplies the energy by 1 / (1 + (w
    # dt)^2) per step and turns by atan(w dt) per step: half a period of
    # contact takes pi / atan(w dt) steps.
    h = w * dt
    row["omega_dt"] = h
    row["model"] = 1 - (1 + h * h) ** (-math.pi / math.atan(h))
    table.append(row)

if args.csv:
    print("dt,omega_dt,implicit_loss,model_loss,explicit_euler_change,velocity_verlet_change")
    for r in table:
        print("%g,%.6g,%.6g,%.6g,%.6g,%.6g" % (r["dt"], r["omega_dt"], -r["implicit-euler"],
              r["model"], r["explicit-euler"], r["velocity-verlet"]))
else:
    print("Command: `make -C pipelines dissipation`. omega = %.1f rad/s, contact time"
          " pi / omega = %.1f ms.\n" % (w, 1e3 * math.pi / w))
    print("| dt, s | omega dt | implicit Euler: kinetic energy lost | linear oscillator:"
          " 1 - (1 + (omega dt)^2)^(-pi / atan(omega dt)) | explicit Euler: change |"
          " velocity Verlet: change |")
    print("|---|---|---|---|---|---|")
    for r in table:
        print("| %g | %.4f | %.4f | %.4f | %+.4f | %+.5f |" % (
            r["dt"], r["omega_dt"], -r["implicit-euler"], r["model"], r["explicit-euler"],
            r["velocity-verlet"]))
