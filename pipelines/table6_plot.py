#!/usr/bin/env python3
"""Paper Table 6 as a figure: triangle comparisons per implicit Euler step
(all Picard iterations, comparison-based kernel) of flat search, surrogate
within Picard and multiscale Picard per scene, ours beside the paper's,
from the runs of implicit.mk. Writes OUTDIR/table6-comparisons.csv (an
empty cell: a run not made or refused) and prints it as Markdown.

usage: table6_plot.py DIR STEPS FLAT_STEPS OUTDIR"""
import csv
import os
import sys

sys.dont_write_bytecode = True
from runs import fmt, load  # noqa: E402
from scenes import SCENES  # noqa: E402
from table6_paper import PAPER  # noqa: E402

DIR, STEPS, FLAT_STEPS, OUT = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
HIERARCHIES = ("flat", "surrogate", "multiscale")

rows = []
for scene in SCENES:
    for h in HIERARCHIES:
        steps = FLAT_STEPS if h == "flat" else STEPS
        r = load(DIR, scene, "implicit-euler", h, "comparison", steps) if steps else None
        ours = r.mean("picard_comparisons") if r and r["available"] else None
        rows.append((scene, h, steps, ours, PAPER[scene][h][0]))

path = os.path.join(OUT, "table6-comparisons.csv")
with open(path + ".tmp", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["case", "steps", "ours", "paper"])
    for scene, h, steps, ours, paper in rows:
        w.writerow(["%s %s" % (scene, h), steps, "" if ours is None else "%.17g" % ours,
                    "%.17g" % paper])
os.replace(path + ".tmp", path)

print("# Paper Table 6: triangle comparisons per implicit step, ours and the paper's\n")
print("Comparison-based kernel, all Picard iterations of a step, mean over the steps run"
      " (`make -C pipelines table6-plot`; `–`: not run or refused).\n")
print("| scene | hierarchy | steps | ours | paper | ours / paper |")
print("|---|---|---|---|---|---|")
for scene, h, steps, ours, paper in rows:
    print("| %s | %s | %d | %s | %s | %s |" % (scene, h, steps, fmt(ours), fmt(paper),
                                               "–" if ours is None else "%.3g" % (ours / paper)))
