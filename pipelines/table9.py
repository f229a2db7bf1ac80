#!/usr/bin/env python3
"""Paper Table 9 from the lattice runs of table9.mk: per step of implicit
Euler on the lattice at rest (and turned at random), the triangle
comparisons (hybrid: the comparison-based fallbacks beside the iterative
tests), the wall time per step and per comparison, and the peak resident
memory, the paper's figures beside; per particle, ours and the paper's
(its 24,576 particles), so that a smaller lattice compares.

  table9.py DIR COUNT STEPS FLAT_STEPS   (COUNT X-Y-Z; FLAT_STEPS 0: flat not run)"""
import re
import sys

sys.dont_write_bytecode = True
from runs import fmt, load  # noqa: E402


def args(argv):
    """DIR, COUNT, STEPS, FLAT_STEPS, or exit with one line on what is wrong."""
    if len(argv) != 5:
        sys.exit("usage: table9.py DIR COUNT STEPS FLAT_STEPS")
    natural = lambda s: re.fullmatch(r"0|[1-9][0-9]*", s)
    if not re.fullmatch(r"[1-9][0-9]*-[1-9][0-9]*-[1-9][0-9]*", argv[2]):
        sys.exit("table9.py: COUNT must be X-Y-Z, three positive integers, got %r" % argv[2])
    if not natural(argv[3]) or argv[3] == "0":
        sys.exit("table9.py: STEPS must be a positive integer, got %r" % argv[3])
    if not natural(argv[4]):
        sys.exit("table9.py: FLAT_STEPS must be a non-negative integer, got %r" % argv[4])
    return argv[1], argv[2], int(argv[3]), int(argv[4])


def spheres(count):
    """The spheres of lattice X-Y-Z."""
    x, y, z = (int(c) for c in count.split("-"))
    return x * y * z


DIR, COUNT, STEPS, FLAT_STEPS = args(sys.argv)
N = spheres(COUNT)
SCENES = ("lattice-" + COUNT, "lattice-rotated-" + COUNT)
# Noble & Weinzierl, Table 9: #tri. comp. and runtime (total, per
# particle-particle comparison; the paper states no unit) per step and
# core; comparison-based: (comparisons, total, per comp); hybrid:
# (comparison-based fallbacks, iterative, total, per comp).
PAPER = {"flat": ((6.50e9, 1.92e6, 9.67e2), (1.29e8, 6.50e9, 8.36e5, 4.20e2)),
         "surrogate": ((2.49e6, 4.70e2, 2.37e-1), (2.92e2, 2.49e6, 3.77e2, 1.90e-1)),
         "multiscale": ((9.08e5, 2.30e2, 1.16e-1), (1.09e2, 1.06e6, 2.13e2, 1.07e-1))}
# The paper's lattice and its peak memory, 3.87 GiB (MB here: 2^20 bytes, as
# mrdem-run's peak).
PAPER_COUNT = "32-32-24"
PAPER_N = spheres(PAPER_COUNT)
PAPER_PEAK_MB = 3.87 * 1024
HIERARCHIES = (("flat",) if FLAT_STEPS else ()) + ("surrogate", "multiscale", "multiscale-warm")


def neighbours(count):
    """Axis-neighbour pairs (the contacts of the lattice at rest) per sphere."""
    x, y, z = (int(c) for c in count.split("-"))
    return ((x - 1) * y * z + x * (y - 1) * z + x * y * (z - 1)) / spheres(count)


print("# Paper Table 9: %d spheres of 1,224 triangles at rest\n" % N)
print("Command: `make -C pipelines table9` (T9_COUNT=%s, T9_STEPS=%d). Per step: Picard"
      " iterations; triangle comparisons of the frame's search and of every Picard"
      " iteration (hybrid: all tested iteratively, `fallbacks` by the comparison kernel as"
      " well, the paper's hybrid \"#tri. comp.\"); `step ms`: the run loop less writing"
      " frames (`--log-view`), %s OpenMP thread(s); `ns/comp`: step time over comparisons;"
      " `peak MB`: mrdem-run's peak resident memory (MB of 2^20 bytes); `/particle`: over"
      " the lattice's %s spheres. Paper: Table 9, 24,576 particles (32-32-24), per step and"
      " core as it gives them, its time units not stated; `paper peak MB`: its 3.87 GiB."
      " So that any lattice compares, its comparisons, fallbacks, total runtime and memory"
      " are given here over its 24,576 particles (`paper .../particle`; its figures as it"
      " gives them in the second table); `paper per comp`: its runtime per"
      " particle-particle comparison as it gives it. Contacts (axis neighbours) per sphere:"
      " %.2f here, %.2f on the paper's lattice.\n"
      % (COUNT, STEPS, (load(DIR, SCENES[0], "implicit-euler", "surrogate", "hybrid", STEPS)
                        .get("threads", "?")), format(N, ","), neighbours(COUNT),
         neighbours(PAPER_COUNT)))
print("| scene | scheme | hierarchy | kernel | steps | Picard iterations | comparisons |"
      " fallbacks | step ms | ns/comp | peak MB | paper peak MB | comparisons/particle |"
      " paper comparisons/particle | fallbacks/particle | paper fallbacks/particle |"
      " step µs/particle | paper total/particle | paper per comp | bytes/particle |"
      " paper bytes/particle |")
print("|" + "---|" * 21)
for scene in SCENES:
    runs = [("implicit-euler", h, m) for h in HIERARCHIES for m in ("comparison", "hybrid")]
    runs.append(("explicit-euler", "surrogate", "hybrid"))
    for scheme, h, m in runs:
        steps = FLAT_STEPS if h == "flat" else STEPS
        r = load(DIR, scene, scheme, h, m, steps)
        if not r["available"]:
            print("| %s | %s | %s | %s | not available: %s |" % (scene, scheme, h, m, r["error"]))
            continue
        comps = (r.mean("comparisons") or 0) + (r.mean("picard_comparisons") or 0)
        fallbacks = (r.mean("fallbacks") or 0) + (r.mean("picard_fallbacks") or 0)
        # The paper's comparisons, fallbacks, total and per comp; its peak.
        paper, paper_peak = (None,) * 4, None
        if scheme == "implicit-euler" and h in PAPER and not scene.startswith("lattice-rotated"):
            p = PAPER[h][m == "hybrid"]
            paper = (p[0], None, p[1], p[2]) if m == "comparison" else (p[1], p[0], p[2], p[3])
            paper_peak = PAPER_PEAK_MB
        per = lambda x, n: None if x is None else x / n
        peak = r.get("peak_mb")
        print("| %s |" % " | ".join(
            [scene, scheme, h, m, "%d" % steps,
             "%.2f" % r.mean("picard_iterations") if scheme == "implicit-euler" else "–",
             fmt(comps), fmt(fallbacks) if m == "hybrid" else "–", fmt(r["step_ms"]),
             fmt(1e6 * r["step_ms"] / comps) if comps else "–", fmt(peak), fmt(paper_peak),
             fmt(comps / N), fmt(per(paper[0], PAPER_N)),
             fmt(fallbacks / N) if m == "hybrid" else "–", fmt(per(paper[1], PAPER_N)),
             fmt(1e3 * r["step_ms"] / N), fmt(per(paper[2], PAPER_N)), fmt(paper[3]),
             fmt(peak * 1048576 / N) if peak else "–",
             fmt(paper_peak * 1048576 / PAPER_N) if paper_peak else "–"]))
print("\nThe paper's Table 9 as it gives it, for its 24,576 particles (3.87 GiB), per step and"
      " core:\n")
print("| hierarchy | kernel | comparisons | fallbacks | total | per comp |")
print("|" + "---|" * 6)
for h, (c, y) in PAPER.items():
    print("| %s | comparison | %s | – | %s | %s |" % (h, fmt(c[0]), fmt(c[1]), fmt(c[2])))
    print("| %s | hybrid | %s | %s | %s | %s |" % (h, fmt(y[1]), fmt(y[0]), fmt(y[2]), fmt(y[3])))
print("\nThe rotated lattice is beyond the paper: its lat-long spheres meet at their"
      " slivers' poles at every angle, not only pole to pole along the axes.")
