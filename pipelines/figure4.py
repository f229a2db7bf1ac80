#!/usr/bin/env python3
"""Paper Figure 4 from Table 4's surrogate runs: triangle comparisons per
level of the surrogate search (round K, K = 0 the roots, then the real
triangles) per step, from mrdem-contact's stats records.

  figure4.py BINDIR T4DIR OUTDIR METHOD SCENE...

writes OUTDIR/figure4-SCENE.csv (step, time, round_0.., real, total) and
prints per level the mean, first and last per step as Markdown."""
import csv
import io
import os
import subprocess
import sys

BIN, T4, OUT, METHOD, SCENES = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]


def levels(scene):
    mrd = os.path.join(T4, "%s-surrogate-%s.mrd" % (scene, METHOD))
    text = subprocess.run([os.path.join(BIN, "mrdem-stats"), mrd], capture_output=True,
                          text=True, check=True).stdout
    rows = [r for r in csv.DictReader(io.StringIO(text)) if r["comparisons"]]
    rounds = sorted((k for k in rows[0] if k.startswith("comparisons_round_")),
                    key=lambda k: int(k.rsplit("_", 1)[1]))
    cols = [k[len("comparisons_"):] for k in rounds] + ["real", "total"]
    table = [[r["step"], r["time"]] +
             [int(float(r[k] or 0)) for k in rounds + ["comparisons_real", "comparisons"]]
             for r in rows]
    for t in table:  # the levels add up to all comparisons
        assert sum(t[2:-1]) == t[-1], (scene, t)
    with open(os.path.join(OUT, "figure4-%s.csv" % scene), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["step", "time"] + cols)
        w.writerows(table)
    return cols, table


print("# Paper Figure 4: triangle comparisons per surrogate level and step\n")
print("Command: `make -C pipelines figure4`. Table 4's runs (surrogate search, %s kernel,"
      " explicit Euler, one frame per step); round 0 compares the roots, `real` the"
      " triangles themselves.\n" % METHOD)
for scene in SCENES:
    cols, table = levels(scene)
    n = len(table)
    print("## %s: steps %s to %s\n" % (scene, table[0][0], table[-1][0]))
    print("| level | mean per step | share | step %s | step %s |" % (table[0][0], table[-1][0]))
    print("|---|---|---|---|---|")
    total = sum(t[-1] for t in table) or 1
    for i, c in enumerate(cols):
        s = sum(t[2 + i] for t in table)
        print("| %s | %.4g | %.1f %% | %d | %d |" % (c, s / n, 100.0 * s / total,
                                                     table[0][2 + i], table[-1][2 + i]))
    print()
