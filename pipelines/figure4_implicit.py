#!/usr/bin/env python3
"""Paper Figure 4 for implicit Euler, from the runs of implicit.mk: triangle
comparisons per step, per Picard iteration (the paper's layers: the first
iteration's comparisons at the bottom, then the second's, ...) and, where
the run records them (multiscale Picard), per surrogate round summed over
the iterations.

  figure4_implicit.py DIR STEPS OUTDIR METHOD SCENE...

writes for each scene and hierarchy (surrogate within Picard, multiscale
Picard when available) OUTDIR/figure4-implicit-SCENE-HIERARCHY.csv (step,
time, iteration_1 .., later: the iterations past those counted one by one,
total) and OUTDIR/figure4-implicit-SCENE-HIERARCHY-rounds.csv (step, time,
round_0 .., real, other: what the rounds and real do not account for,
total), and prints per layer the mean, share, first and last step as
Markdown."""
import csv
import os
import re
import sys

sys.dont_write_bytecode = True
from runs import load, unavailable  # noqa: E402

DIR, STEPS, OUT, METHOD, SCENES = (sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4],
                                   sys.argv[5:])
# picard_comparisons_iteration_K and _round_R; not the per iteration and
# round cells (picard_comparisons_iteration_K_round_R, ..._K_real)
LAYER = {"iterations": re.compile(r"picard_comparisons_iteration_(\d+)$"),
         "rounds": re.compile(r"picard_comparisons_round_(\d+)$")}


def layers(run, kind):
    """Columns and rows (step, time, layers..., total) of one CSV, or None."""
    rows = run["rows"]
    keys = sorted({k for r in rows for k in r if LAYER[kind].match(k)},
                  key=lambda k: int(LAYER[kind].match(k).group(1)))
    if not keys:
        return None
    if kind == "rounds":
        keys.append("picard_comparisons_real")
    cols = [k[len("picard_comparisons_"):] for k in keys] + \
        ["later" if kind == "iterations" else "other", "total"]
    table = []
    for r in rows:
        v = [int(r.get(k) or 0) for k in keys]
        total = int(r.get("picard_comparisons") or 0)
        table.append([r["step"], r["time"]] + v + [total - sum(v), total])
    return cols, table


def write(name, cols, table):
    with open(os.path.join(OUT, name), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["step", "time"] + cols)
        w.writerows(table)


def markdown(cols, table):
    n = len(table)
    print("| layer | mean per step | share | step %s | step %s |" % (table[0][0], table[-1][0]))
    print("|---|---|---|---|---|")
    total = sum(t[-1] for t in table) or 1
    for i, c in enumerate(cols):
        s = sum(t[2 + i] for t in table)
        print("| %s | %.4g | %.1f %% | %d | %d |" % (c, s / n, 100.0 * s / total,
                                                     table[0][2 + i], table[-1][2 + i]))
    print()


print("# Paper Figure 4, implicit Euler: triangle comparisons per Picard iteration\n")
print("Command: `make -C pipelines figure4-implicit`. The %s kernel's runs of Table 6 (%d"
      " steps, one frame per step): per step the comparisons of Picard iteration 1, 2, ..."
      " (`later`: of the iterations after the last one counted one by one) and, for"
      " multiscale Picard, per surrogate round (`real`: the triangles themselves) summed over"
      " the iterations. CSV and PNG per scene and hierarchy beside this file.\n"
      % (METHOD, STEPS))
for scene in SCENES:
    for h in ("surrogate", "multiscale"):
        run = load(DIR, scene, "implicit-euler", h, METHOD, STEPS)
        print("## %s, %s\n" % (scene, h))
        if not run["available"]:
            print(unavailable([run]) + "\n")
            continue
        for kind in ("iterations", "rounds"):
            got = layers(run, kind)
            if not got:
                continue
            name = "figure4-implicit-%s-%s%s.csv" % (scene, h, "" if kind == "iterations"
                                                     else "-rounds")
            write(name, *got)
            print("Per %s (`%s`):\n" % ("Picard iteration" if kind == "iterations"
                                        else "surrogate round", name))
            markdown(*got)
