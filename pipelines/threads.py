"""threads.py BIN SCENE_DIR STEPS REPS: wall and CPU time per explicit step
of SCENE_DIR/scene.yaml on 1 and 2 OpenMP threads, in process and through
the tools (--via-pipes), against the goals: two threads at least
1.8x one (on an idle machine), --via-pipes at most 1.3x in process.

Each figure is the cost of 1 + STEPS steps less that of 1 step from the
scene's start (so set-up, tree building and output cancel), the best of
REPS runs; OMP_DYNAMIC=false keeps the teams full whatever the load."""
import os
import resource
import subprocess
import sys
import time

BIN, DIR, STEPS, REPS = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
SCENE = os.path.join(DIR, "scene.yaml")
START = os.path.join(DIR, "start.mrd")
GOAL_THREADS, GOAL_PIPES = 1.8, 1.3


def run(threads, pipes, steps):
    """Wall and CPU seconds (process and children) of one mrdem-run."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_DYNAMIC="false")
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([BIN + "/mrdem-run", START, "-o", os.devnull, "--steps", str(steps),
                    "--every", "1000000000", "-q"] + (["--via-pipes"] if pipes else []),
                   env=env, check=True, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime


def per_step(threads, pipes):
    """Best (wall, CPU) seconds per step over REPS runs."""
    best = None
    for _ in range(REPS):
        (w1, c1), (wn, cn) = run(threads, pipes, 1), run(threads, pipes, 1 + STEPS)
        x = ((wn - w1) / STEPS, (cn - c1) / STEPS)
        best = x if best is None else (min(best[0], x[0]), min(best[1], x[1]))
    return best


load0 = os.getloadavg()
subprocess.run([BIN + "/mrdem-run", SCENE, "-o", START, "--steps", "0", "-q"], check=True)
CONFIGS = [(1, False), (2, False), (1, True), (2, True)]
t = {c: per_step(*c) for c in CONFIGS}
load1 = os.getloadavg()

print("# Threads and pipes: explicit steps of %s\n" % os.path.basename(DIR))
print("Command: `make -C pipelines threads` (TH_STEPS=%d, TH_REPS=%d). Wall and CPU seconds"
      " per step (1 + %d steps less 1 step from the scene's start, best of %d runs),"
      " OMP_DYNAMIC=false. Load average (1, 5, 15 min) at the start %s, at the end %s:"
      " the thread goal means something on an idle machine only (load below 1 on 2 cores).\n"
      % (STEPS, REPS, STEPS, REPS, " ".join("%.2f" % x for x in load0),
         " ".join("%.2f" % x for x in load1)))
print("| threads | run | wall s per step | CPU s per step |")
print("|---|---|---|---|")
for th, pipes in CONFIGS:
    w, c = t[(th, pipes)]
    print("| %d | %s | %.4f | %.4f |" % (th, "--via-pipes" if pipes else "in process", w, c))


def verdict(ok):
    return "yes" if ok else "no"


print("\n| ratio | value | goal |")
print("|---|---|---|")
speedup = t[(1, False)][0] / t[(2, False)][0]
print("| wall, 1 thread / 2 threads, in process | %.2fx | >= %gx: %s |"
      % (speedup, GOAL_THREADS, verdict(speedup >= GOAL_THREADS)))
for th in (1, 2):
    r = t[(th, True)][0] / t[(th, False)][0]
    print("| wall, --via-pipes / in process, %d thread%s | %.2fx | <= %gx: %s |"
          % (th, "s" if th > 1 else "", r, GOAL_PIPES, verdict(r <= GOAL_PIPES)))
for th in (1, 2):
    r = t[(th, True)][1] / t[(th, False)][1]
    print("| CPU, --via-pipes / in process, %d thread%s | %.2fx | |"
          % (th, "s" if th > 1 else "", r))
