#!/usr/bin/env python3
"""CPU time of a step with the patch force models (hooke, hertz) against the
paper's spring on Table 4's scenes (the goal: at most 1.3x),
robust to a loaded machine as step_cpu.py is: one OpenMP thread, each run
from a stream that already holds the trees, no frame written but the last,
the cost of 1 + STEPS steps less that of 1 step, configurations
interleaved REPS times. STEPS must keep every model in contact (50 does:
the scenes start inside the halos), so that every step pays for one. The
hooke spring is the paper spring's stiffness
for the scene (k = Ks sqrt(m_eff) / (eps_a + eps_b)), undamped, so both
runs see the same contacts; hertz takes the E that gives that stiffness
at a tenth of the halo.

  models.py BIN DIR STEPS REPS SCENE...   (scenes.py names)"""
import math
import os
import re
import statistics
import subprocess
import sys

import scenes
from step_time import ENV, mean_se, per_step_ms

BIN, DIR, STEPS, REPS = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
NAMES = sys.argv[5:]
GOAL = 1.3


def variants(name):
    """(label, YAML) of the scene with each model."""
    text = scenes.scene(name, STEPS + 1)
    ks = float(re.search(r"stiffness: ([0-9.e+]+)", text).group(1))
    # unit density spheres of radius 1: m = 4/3 pi; a pair's m_eff is half
    m = 4.0 / 3.0 * math.pi
    pair = name.startswith("particle-particle")
    meff, eps = (m / 2, 0.04) if pair else (m, 0.03)
    k = ks * math.sqrt(meff) / eps
    rstar, d = (0.5 if pair else 1.0), 0.1 * eps
    young = k / (4.0 / 3.0 * math.sqrt(rstar * d)) * 2 * (1 - 0.09)
    base = re.sub(r", stiffness: [0-9.e+]+", "", text)
    return [("paper", text),
            ("hooke", base.replace("{model: paper", "{model: hooke, stiffness: %.6g, restitution: 1"
                                   % k)),
            ("hertz", base.replace("{model: paper", "{model: hertz, young: %.6g, restitution: 1"
                                   % young))]


print("# CPU time per step: patch force models against the paper's spring\n")
print("Command: `make -C pipelines models` (MODEL_STEPS=%d, MODEL_REPS=%d). Process CPU time"
      " per step, one OpenMP thread, of %d explicit Euler steps from the scene's start (trees"
      " built beforehand, one frame written), less that of one step; means of %d interleaved"
      " repetitions (± standard error). Goal: the patch models at most %gx the paper's"
      " spring. Load average at the start: %s.\n"
      % (STEPS, REPS, STEPS, REPS, GOAL, " ".join("%.2f" % x for x in os.getloadavg())))
print("| scene | model | CPU ms per step | ratio to paper | goal |")
print("|---" * 5 + "|")
for name in NAMES:
    starts = []
    for label, text in variants(name):
        d = os.path.join(DIR, name, label)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "scene.yaml"), "w") as f:
            f.write(text)
        start = os.path.join(d, "start.mrd")
        subprocess.run([BIN + "/mrdem-run", os.path.join(d, "scene.yaml"), "-o", start,
                        "--steps", "0", "--hierarchy", "surrogate", "-q"], env=ENV, check=True)
        starts.append((label, start))
    t = {label: [] for label, _ in starts}
    for _ in range(REPS):
        for label, start in starts:
            t[label].append(per_step_ms(BIN, start, [], STEPS))
    paper = statistics.mean(t["paper"])
    for label, _ in starts:
        m, se = mean_se(t[label])
        ratio = m / paper
        print("| %s | %s | %.3f ± %.3f | %.2f | %s |"
              % (name, label, m, se, ratio, "" if label == "paper" else
                 ("met" if ratio <= GOAL else "not met")))
