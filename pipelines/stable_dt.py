#!/usr/bin/env python3
"""Largest stable time step per scheme on the paper's two scenes (Table 4's,
scenes.py, run through the whole collision): dt doubles from 1e-4 s while
the run completes (no energy guard, no Picard failure after the default
retries) and, for the stable column, while the energy error stays within
the bound. Usage: stable_dt.py BINDIR OUTDIR [--bound X] [--scenes A,B]
[--schemes A,B]; Markdown on stdout."""
import argparse
import csv
import io
import math
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True
from scenes import scene as scene_text  # noqa: E402

DT0 = 1e-4
SCHEMES = ["explicit-euler", "symplectic-euler", "velocity-verlet", "implicit-euler"]
FRAMES = 50  # written frames per run: the energy error is their largest

# Table 4's scenes (scenes.py), run through the whole contact: the spheres
# part after about 25 ms, the ball bounces on the slope about 4 times in
# 0.5 s. Durations in seconds; time.* is set per run.
DURATION = {"particle-particle": 0.1, "particle-on-plane": 0.5}
SCENES = {name: (DURATION[name], scene_text(name, 1)) for name in DURATION}
# Largest dt tried: at least this many steps over the scene's duration.
STEPS_MIN = 6

ap = argparse.ArgumentParser()
ap.add_argument("bin")
ap.add_argument("out")
ap.add_argument("--bound", type=float, default=0.1, help="largest energy error (relative)")
ap.add_argument("--scenes", default=",".join(SCENES))
ap.add_argument("--schemes", default=",".join(SCHEMES))
args = ap.parse_args()
BIN, OUT, BOUND = args.bin, args.out, args.bound
for x, known in [(x, SCENES) for x in args.scenes.split(",")] + \
        [(x, SCHEMES) for x in args.schemes.split(",")]:
    if x not in known:
        ap.error("unknown scene or scheme '%s'" % x)


def run(scene, scheme, dt):
    """One run; its outcome, energy error, end drift, retries, smallest sub-step."""
    duration, text = SCENES[scene]
    yaml = os.path.join(OUT, scene + ".yaml")
    with open(yaml, "w") as f:
        f.write(text)
    steps = math.ceil(duration / dt - 1e-9)
    out = os.path.join(OUT, "%s-%s-%g.mrd" % (scene, scheme, dt))
    p = subprocess.run([os.path.join(BIN, "mrdem-run"), yaml, "-o", out, "--scheme", scheme,
                        "--dt", repr(dt), "--steps", str(steps),
                        "--every", str(max(1, steps // FRAMES))],
                       capture_output=True, text=True)
    with open(out + ".log", "w") as f:
        f.write(p.stderr)
    r = {"steps": steps, "ok": p.returncode == 0, "why": "", "err": None, "drift": None,
         "retries": 0, "substep": None}
    if p.returncode != 0:
        m = re.search(r"error: (step \d+ \(t = [^)]*\)): (.*)", p.stderr)
        what = m.group(2) if m else p.stderr.strip().splitlines()[-1]
        r["why"] = ("%s: %s" % (m.group(1), "energy window guard" if " over the " in what and
                                "energy grew" in what else
                                "energy guard" if "energy grew" in what else
                                "speed guard" if "more than its halo" in what else
                                "bounds guard" if "left the scene" in what else
                                "Picard failed" if "Picard" in what else what[:60])
                    if m else what[:80])
        return r
    csvtext = subprocess.run([os.path.join(BIN, "mrdem-stats"), out], capture_output=True,
                             text=True, check=True).stdout
    e = [float(x["energy_total"]) for x in csv.DictReader(io.StringIO(csvtext))
         if x["energy_total"]]
    r["err"] = max(abs(x - e[0]) for x in e) / abs(e[0])
    r["drift"] = (e[-1] - e[0]) / abs(e[0])
    r["retries"] = len(re.findall(r"retrying as two steps", p.stderr))
    sub = [float(x) for x in re.findall(r"retrying as two steps of ([0-9.e+-]+) s", p.stderr)]
    r["substep"] = min(sub) if sub else None
    return r


def fmt(x):
    return "%.3g" % x


print("# Largest stable time step per scheme\n")
print("Command: `make -C pipelines stable-dt`. Table 4's scenes (spheres of 1,280 triangles,"
      " spring model, Ks = 1000, no friction; particle-particle over 0.1 s, particle-on-plane"
      " over 0.5 s), every scheme with its default options (implicit Euler: Picard"
      " tolerance 0.01, up to 4 halvings of a step). dt doubles from %g s. A run *completes*"
      " when neither the energy guard nor the Picard iterations stop it; the *energy error* is"
      " the largest |E(t) - E(0)| / |E(0)| over %d written frames, E = kinetic +"
      " gravitational (zero at the plane's centre) + contact energy. *Stable*: completes with"
      " an energy error of at most %g %%, at this dt and every smaller one. The doubling"
      " stops at %d steps per run (*cap*).\n" % (DT0, FRAMES, 100 * BOUND, STEPS_MIN))
rows = []
summary = []
for scene in args.scenes.split(","):
    duration = SCENES[scene][0]
    for scheme in args.schemes.split(","):
        stable = completes = None
        within = True
        dt = DT0
        while duration / dt >= STEPS_MIN - 1e-9:
            r = run(scene, scheme, dt)
            rows.append((scene, scheme, dt, r))
            if not r["ok"]:
                break
            completes = dt, r
            within = within and r["err"] <= BOUND
            if within:
                stable = dt, r
            dt *= 2
        capped = r["ok"]
        summary.append((scene, scheme, stable, completes, capped))

print("| scene | scheme | largest stable dt, s | its energy error | largest dt that completes, s"
      " | its energy error | first failure |")
print("|---|---|---|---|---|---|---|")
for scene, scheme, stable, completes, capped in summary:
    fail = next((r["why"] + " at dt = %g" % dt for s, sc, dt, r in rows
                 if s == scene and sc == scheme and not r["ok"]),
                "none up to dt = %g (%d steps)" % (completes[0], completes[1]["steps"])
                if capped else "")
    print("| %s | %s | %s | %s | %s%s | %s | %s |" % (
        scene, scheme, fmt(stable[0]) if stable else "< %g" % DT0,
        "%.3g" % stable[1]["err"] if stable else "–",
        fmt(completes[0]) if completes else "< %g" % DT0, " (cap)" if capped else "",
        "%.3g" % completes[1]["err"] if completes else "–", fail))
print()
print("Every run (drift: at the last written frame with statistics; retries: failed Picard"
      " attempts that were halved; sub-step: the smallest step they came down to):\n")
print("| scene | scheme | dt, s | steps | outcome | energy error | drift | Picard retries |"
      " smallest sub-step, s |")
print("|---|---|---|---|---|---|---|---|---|")
for scene, scheme, dt, r in rows:
    print("| %s | %s | %g | %d | %s | %s | %s | %s | %s |" % (
        scene, scheme, dt, r["steps"], "completes" if r["ok"] else r["why"],
        fmt(r["err"]) if r["ok"] else "–", "%+.3g" % r["drift"] if r["ok"] else "–",
        r["retries"] if scheme == "implicit-euler" and r["ok"] else "",
        fmt(r["substep"]) if r["substep"] else ""))
