#!/usr/bin/env python3
"""Paper Table 4 from mrdem-run: per scene, hierarchy and kernel, the mean
per step of triangle comparisons, iterative comparisons and fallbacks (from
the stats records) and of contact detection wall time (mrdem-run's
summary). Usage: table4.py BINDIR OUTDIR."""
import os
import sys

sys.dont_write_bytecode = True  # nothing written beside the scripts
import scenes  # noqa: E402
from runs import explicit, mean_of  # noqa: E402

BIN, OUT = sys.argv[1], sys.argv[2]
STEPS = 100

# Noble & Weinzierl, Table 4 (explicit Euler, hybrid kernels for runtime).
PAPER = {
    ("particle-particle", "flat"): (1.50e6, 1.87),
    ("particle-particle", "surrogate"): (8.20e3, 1.80e-2),
    ("particle-on-plane", "flat"): (6.27e5, None),
    ("particle-on-plane", "surrogate"): (5.27e3, None),
}

SCENES = {name: scenes.scene(name, STEPS) for name in scenes.SCENES}  # explicit Euler


def run(scene, hierarchy, method):
    yaml = os.path.join(OUT, scene + ".yaml")
    with open(yaml, "w") as f:
        f.write(SCENES[scene])
    out = os.path.join(OUT, "%s-%s-%s.mrd" % (scene, hierarchy, method))
    ms, rows = explicit(BIN, yaml, out, STEPS, ["--hierarchy", hierarchy, "--method", method])
    mean = lambda k: mean_of(rows, k)
    return {"comparisons": mean("comparisons"), "iterative": mean("iterative"),
            "fallbacks": mean("fallbacks"), "contacts": mean("contacts"), "ms": ms}


def fmt(x):
    return "–" if x is None else "%.3g" % x


print("# Paper Table 4: explicit time stepping, %d steps in the contact phase\n" % STEPS)
print("Command: `make -C pipelines table4`. Per step means. Paper: Broadwell 2.4 GHz,"
      " one core; ours: this machine, all cores (`OMP_NUM_THREADS` to change).\n")
print("| scene | search | kernel | comparisons | iterative | fallbacks | contacts |"
      " detection ms | paper comparisons | paper s (hybrid) |")
print("|---|---|---|---|---|---|---|---|---|---|")
res = {}
for scene in SCENES:
    for hierarchy in ("flat", "surrogate"):
        for method in ("comparison", "hybrid"):
            r = res[scene, hierarchy, method] = run(scene, hierarchy, method)
            pc, ps = PAPER[scene, hierarchy]
            print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                scene, hierarchy, method, fmt(r["comparisons"]), fmt(r["iterative"]),
                fmt(r["fallbacks"]), fmt(r["contacts"]), fmt(r["ms"]), fmt(pc),
                fmt(ps) if method == "hybrid" else ""))
print()
print("| scene | reduction of comparisons (flat / surrogate) | paper | wall-time speed-up,"
      " hybrid | paper |")
print("|---|---|---|---|---|")
for scene in SCENES:
    f, s = res[scene, "flat", "hybrid"], res[scene, "surrogate", "hybrid"]
    pf, ps = PAPER[scene, "flat"], PAPER[scene, "surrogate"]
    print("| %s | %.0fx | %.0fx | %.0fx | %s |" % (
        scene, f["comparisons"] / s["comparisons"], pf[0] / ps[0], f["ms"] / s["ms"],
        "%.0fx" % (pf[1] / ps[1]) if pf[1] else "–"))
