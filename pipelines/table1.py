#!/usr/bin/env python3
"""Markdown version of the paper's Table 1 from the results of table1.mk.

Usage: table1.py DIR  (DIR holds N-ETA-plain.json / N-ETA-refined.json from
`mrdem-info --json` and the matching mrdem-tree -v logs)."""
import json
import math
import os
import re
import sys

# Noble & Weinzierl, Table 1: (d_kmax, eps_kmax) per |T| and eta_r; r_sphere = eta_r / 2
PAPER = {
    1.0: {80: (0.09, 0.49), 320: (0.09, 0.50), 1280: (0.08, 0.52)},
    1.2: {80: (0.10, 0.55), 320: (0.10, 0.56), 1280: (0.10, 0.56)},
    1.4: {80: (0.34, 0.54), 320: (0.12, 0.65), 1280: (0.11, 0.66)},
    1.8: {80: (0.14, 0.84), 320: (0.89, 0.53), 1280: (1.35, 0.51)},
    2.6: {80: (1.54, 0.58), 320: (2.24, 0.51), 1280: (2.36, 0.52)},
}


def sphere(r):
    return 4.0 / 3.0 * math.pi * r ** 3


def paper_ratio(d, eps, r):
    """The paper gives d and eps only: the halo volume lies between that of
    a segment of length d (area 0, perimeter 2d) and that of an equilateral
    triangle of side d (the largest triangle with longest edge d)."""
    steiner = lambda a, p: 2 * eps * a + math.pi / 2 * eps * eps * p + sphere(eps)
    return steiner(0, 2 * d) / sphere(r), steiner(math.sqrt(3) / 4 * d * d, 3 * d) / sphere(r)


def load(path):
    d = json.load(open(path))
    return [r for r in d["records"] if r["type"] == "tree"][0]["root"]


def seconds(log):
    m = re.search(r"built in ([0-9.]+) s", open(log).read())
    return float(m.group(1)) if m else float("nan")


def main(dirname):
    rows = []
    rows.append("| eta_r | r_sphere | \\|T\\| | paper d | paper eps | paper halo "
                "| (6) d | (6) eps | (6) halo | refined d | refined eps | refined halo "
                "| build s |")
    rows.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    worst = {1.0: 0.0, 2.6: 0.0}
    for eta in sorted(PAPER):
        for n in (80, 320, 1280):
            base = os.path.join(dirname, "%d-%.1f" % (n, eta))
            plain, ref = load(base + "-plain.json"), load(base + "-refined.json")
            pd, pe = PAPER[eta][n]
            lo, hi = paper_ratio(pd, pe, eta / 2)
            if eta in worst:
                worst[eta] = max(worst[eta], ref["halo_ratio"])
            rows.append("| %.1f | %.2f | %d | %.2f | %.2f | %.0f-%.0f %% "
                        "| %.2f | %.2f | %.0f %% | %.2f | %.2f | %.0f %% | %.3f |" % (
                            eta, ref["sphere_radius"], n, pd, pe, 100 * lo, 100 * hi,
                            plain["d"], plain["eps"], 100 * plain["halo_ratio"],
                            ref["d"], ref["eps"], 100 * ref["halo_ratio"],
                            seconds(base + "-refined.log")))
    print("# Paper Table 1: root surrogate of stretched spheres of diameter 1\n")
    print("d: longest edge of the root surrogate triangle, eps: its halo width,")
    print("halo: Steiner volume of the root halo relative to the bounding sphere")
    print("(radius r_sphere = eta_r / 2). Paper halo: the range its d and eps allow")
    print("(from a segment to an equilateral triangle of side d). (6): functional (6)")
    print("alone (`mrdem-tree --no-refine`); refined: the default. Every tree passed")
    print("`mrdem-tree --verify`.\n")
    print("\n".join(rows))
    print("\nLargest refined root halo: %.0f %% at eta_r = 1.0 (paper: at most 135 %%), "
          "%.0f %% at eta_r = 2.6 (paper: as little as 37 %%)." % (
              100 * worst[1.0], 100 * worst[2.6]))


if __name__ == "__main__":
    main(sys.argv[1])
