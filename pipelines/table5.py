#!/usr/bin/env python3
"""Paper Table 5 from the implicit runs of implicit.mk: mean Picard
iterations per step, surrogate within Picard (checked equal, step by step,
to flat when flat was run: Corollary 5.5) and multiscale Picard, comparison
and hybrid kernels, particle-particle and particle-on-plane.

  table5.py DIR STEPS FLAT_STEPS   (FLAT_STEPS 0: flat not run)"""
import sys

sys.dont_write_bytecode = True
from runs import load, unavailable  # noqa: E402
from scenes import SCENES  # noqa: E402

DIR, STEPS, FLAT_STEPS = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
METHODS = ("comparison", "hybrid")
# Noble & Weinzierl, Table 5: (scene, method) -> mean Picard iterations.
PAPER = {
    "surrogate": {("particle-particle", "comparison"): 4.6, ("particle-particle", "hybrid"): 4.9,
                  ("particle-on-plane", "comparison"): 7.1, ("particle-on-plane", "hybrid"): 7.1},
    "multiscale": {("particle-particle", "comparison"): 6.2, ("particle-particle", "hybrid"): 6.2,
                   ("particle-on-plane", "comparison"): 13.0,
                   ("particle-on-plane", "hybrid"): 13.1},
}
CASES = [(s, m) for s in SCENES for m in METHODS]
run = lambda scene, h, m, n: load(DIR, scene, "implicit-euler", h, m, n)


def check_flat():
    """Corollary 5.5: flat and surrogate search give the same contacts, so
    the same Picard iterations in every step."""
    if not FLAT_STEPS:
        return "flat not run (FLAT_STEPS=0): not checked."
    n = min(STEPS, FLAT_STEPS)
    for scene, m in CASES:
        f = run(scene, "flat", m, FLAT_STEPS).column("picard_iterations")[:n]
        s = run(scene, "surrogate", m, STEPS).column("picard_iterations")[:n]
        if f != s:
            step = next(i for i in range(n) if f[i] != s[i])
            sys.exit("table5.py: %s, %s kernel: flat and surrogate search differ in Picard "
                     "iterations at step %d (%s against %s), against Corollary 5.5"
                     % (scene, m, step, f[step], s[step]))
    return ("flat search gives the same Picard iterations as surrogate in each of the first %d"
            " steps of every scene and kernel (Corollary 5.5): checked." % n)


def row(label, cells):
    print("| %s | %s |" % (label, " | ".join(cells)))


print("# Paper Table 5: mean Picard iterations per implicit Euler step\n")
print("Command: `make -C pipelines table5`. Implicit Euler (Picard iterations), %d steps from"
      " the start of contact, the scenes of Table 4; `paper` rows: Noble & Weinzierl,"
      " Table 5 (100 steps).\n" % STEPS)
row("method", ["%s, %s" % (s, m) for s, m in CASES])
print("|---" * (len(CASES) + 1) + "|")
for h, label in (("surrogate", "flat/surrogate within Picard"), ("multiscale", "multiscale Picard")):
    rs = [run(s, h, m, STEPS) for s, m in CASES]
    na = unavailable(rs)
    if na:
        row(label, [na] + [""] * (len(CASES) - 1))
    else:
        row(label, ["%.2f" % r.mean("picard_iterations") for r in rs])
    row(label + " (paper)", ["%.1f" % PAPER[h][c] for c in CASES])
rs = [run(s, "surrogate", m, STEPS) for s, m in CASES]
row("retries (surrogate runs)", ["%d" % sum(r.column("picard_retries")) for r in rs])
row("most iterations in a step", ["%d" % max(r.column("picard_iterations")) for r in rs])
print()
print("Retries: steps whose Picard iterations failed and were redone as two half steps"
      " (their iterations count in full).")
print(check_flat())
