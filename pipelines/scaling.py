#!/usr/bin/env python3
"""Scaling with the mesh resolution: the particle-particle scene of Table 4
with spheres of T triangles (scenes.py particle-particle-T), explicit Euler,
flat against surrogate search (hybrid kernel), one thread: per step the
triangle comparisons (from the stats records) and the contact detection wall
time (mrdem-run's summary). Flat compares all T^2 triangle pairs; the
surrogate trees should grow about linearly in T (paper Sec. 4-5).

usage: scaling.py BINDIR OUTDIR STEPS T...   writes OUTDIR/scaling.csv, prints Markdown
"""
import csv
import math
import os
import sys

sys.dont_write_bytecode = True  # nothing written beside the scripts
import scenes  # noqa: E402
from runs import explicit, mean_of  # noqa: E402

BIN, OUT, STEPS = sys.argv[1], sys.argv[2], int(sys.argv[3])
SIZES = [int(t) for t in sys.argv[4:]]
HIERARCHIES = ("flat", "surrogate")


def run(triangles, hierarchy):
    name = "particle-particle-%d" % triangles
    yaml = os.path.join(OUT, name + ".yaml")
    with open(yaml, "w") as f:
        f.write(scenes.scene(name, STEPS))
    out = os.path.join(OUT, "%s-%s.mrd" % (name, hierarchy))
    ms, rows = explicit(BIN, yaml, out, STEPS, ["--hierarchy", hierarchy, "--method", "hybrid"],
                        dict(os.environ, OMP_NUM_THREADS="1"))
    return {"comparisons": mean_of(rows, "comparisons"),
            "sphere_pruned": mean_of(rows, "sphere_pruned"), "ms": ms}


res = {(t, h): run(t, h) for t in SIZES for h in HIERARCHIES}
cols = ["triangles", "flat_comparisons", "surrogate_comparisons", "flat_sphere_pruned",
        "flat_ms", "surrogate_ms", "comparison_reduction", "speedup"]
with open(os.path.join(OUT, "scaling.csv.tmp"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(cols)
    for t in SIZES:
        fl, su = res[t, "flat"], res[t, "surrogate"]
        w.writerow([t, "%.17g" % fl["comparisons"], "%.17g" % su["comparisons"],
                    "%.17g" % fl["sphere_pruned"], "%.6g" % fl["ms"], "%.6g" % su["ms"],
                    "%.6g" % (fl["comparisons"] / su["comparisons"]),
                    "%.6g" % (fl["ms"] / su["ms"])])
os.replace(os.path.join(OUT, "scaling.csv.tmp"), os.path.join(OUT, "scaling.csv"))

print("# Scaling with the mesh resolution: two spheres of T triangles in contact\n")
print("Command: `make -C pipelines scaling` (SCALING_TRIANGLES, SCALING_STEPS). "
      "Explicit Euler, %d steps in contact, hybrid kernel, one thread (OMP_NUM_THREADS=1); "
      "means per step. Detection: wall time of broad and narrow phase.\n" % STEPS)
print("| triangles | comparisons, flat | comparisons, surrogate | reduction |"
      " detection ms, flat | detection ms, surrogate | speed-up |")
print("|---|---|---|---|---|---|---|")
for t in SIZES:
    fl, su = res[t, "flat"], res[t, "surrogate"]
    print("| %d | %.3g | %.3g | %.0fx | %.3g | %.3g | %.0fx |" % (
        t, fl["comparisons"], su["comparisons"], fl["comparisons"] / su["comparisons"],
        fl["ms"], su["ms"], fl["ms"] / su["ms"]))
if len(SIZES) > 1:
    a, b = SIZES[0], SIZES[-1]
    slope = lambda h, k: (math.log(res[b, h][k] / res[a, h][k]) / math.log(b / a))
    print("\nGrowth exponents from T = %d to %d (comparisons ~ T^p): flat p = %.2f, "
          "surrogate p = %.2f; detection time: flat %.2f, surrogate %.2f." % (
              a, b, slope("flat", "comparisons"), slope("surrogate", "comparisons"),
              slope("flat", "ms"), slope("surrogate", "ms")))
