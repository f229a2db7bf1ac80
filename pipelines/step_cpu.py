#!/usr/bin/env python3
"""CPU time of an implicit Euler step against an explicit one (the goal:
multiscale Picard at most 3x the explicit surrogate step), robust
to a loaded machine: each run starts from a stream that already holds the
surrogate trees (no tree build), writes no frame but the last, runs on one
OpenMP thread, and the step's cost is the process CPU time of 1 + STEPS
steps less that of 1 step. Configurations are interleaved, REPS times; the
kernel accounts CPU time in ticks, so single runs are coarse and the table
gives means with their standard error.

  step_cpu.py BIN DIR STEPS REPS SCENE...   (DIR/SCENE/scene.yaml, scenes.py)"""
import os
import statistics
import subprocess
import sys

from step_time import ENV, mean_se, per_step_ms

BIN, DIR, STEPS, REPS = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
SCENES = sys.argv[5:]
GOAL = 3.0
CONFIGS = (("explicit Euler, surrogate", ["--scheme", "explicit-euler", "--hierarchy", "surrogate"]),
           ("implicit, surrogate within Picard",
            ["--scheme", "implicit-euler", "--hierarchy", "surrogate"]),
           ("implicit, multiscale from the roots (--cold-start, paper Alg. 6)",
            ["--scheme", "implicit-euler", "--hierarchy", "multiscale", "--cold-start"]),
           ("implicit, multiscale warm-started (the default)",
            ["--scheme", "implicit-euler", "--hierarchy", "multiscale", "--warm-start"]))


print("# CPU time per step: implicit against explicit Euler\n")
print("Command: `make -C pipelines step-cpu` (IMPLICIT_STEPS=%d, CPU_REPS=%d). Process CPU"
      " time per step, one OpenMP thread, of %d steps from the scene's start (its trees"
      " built beforehand, one frame written), less that of one step; means of %d interleaved"
      " repetitions (± standard error). Goal of this project: multiscale Picard at most %gx"
      " the explicit surrogate step. Load average at the start: %s.\n"
      % (STEPS, REPS, STEPS, REPS, GOAL, " ".join("%.2f" % x for x in os.getloadavg())))
print("| scene | run | CPU ms per step | ratio to explicit | goal |")
print("|---" * 5 + "|")
for scene in SCENES:
    start = os.path.join(DIR, scene, "start.mrd")
    subprocess.run([BIN + "/mrdem-run", os.path.join(DIR, scene, "scene.yaml"), "-o", start,
                    "--steps", "0", "-q"], env=ENV, check=True)
    t = {name: [] for name, _ in CONFIGS}
    for _ in range(REPS):
        for name, args in CONFIGS:
            t[name].append(per_step_ms(BIN, start, args, STEPS))
    explicit = statistics.mean(t[CONFIGS[0][0]])
    for name, _ in CONFIGS:
        m, se = mean_se(t[name])
        if explicit > 0:
            ratio = "%.2fx" % (m / explicit)
            goal = ("<= %gx: %s" % (GOAL, "yes" if m / explicit <= GOAL else "no")) \
                if "multiscale" in name else ""
        else:
            # The ticks of CPU accounting missed the explicit steps: no ratio.
            ratio, goal = "–", "not measured: raise IMPLICIT_STEPS or CPU_REPS"
        print("| %s | %s | %.4f ± %.4f | %s | %s |" % (scene, name, m, se, ratio, goal))
