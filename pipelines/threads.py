"""threads.py BIN SCENE_DIR STEPS REPS POUR POUR_STEPS SMALL SMALL_STEPS: wall
and CPU time per step on 1 and 2 OpenMP threads with the tools' default
teams and waiting (OMP_DYNAMIC, OMP_WAIT_POLICY and GOMP_SPINCOUNT unset),
against the goals on an idle machine: two threads at least 1.8x one on
SCENE_DIR/scene.yaml (the 4,096-sphere lattice) and on POUR (its first
POUR_STEPS steps), --via-pipes at most 1.3x in process on the lattice, and
on SMALL (64 spheres) two threads at most 1.2x the CPU time of one.

Each figure is the cost of 1 + N steps less that of 1 step from the scene's
start (so set-up, tree building and output cancel), the median of REPS
runs taken in turn with the other configurations."""
import os
import resource
import statistics
import subprocess
import sys
import time

BIN, DIR, STEPS, REPS = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
POUR, POUR_STEPS, SMALL, SMALL_STEPS = sys.argv[5], int(sys.argv[6]), sys.argv[7], int(sys.argv[8])
SCENE = os.path.join(DIR, "scene.yaml")
START = os.path.join(DIR, "start.mrd")
GOAL_THREADS, GOAL_PIPES, GOAL_SMALL_CPU = 1.8, 1.3, 1.2
ENV = {k: v for k, v in os.environ.items()
       if k not in ("OMP_DYNAMIC", "OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}


def run(scene, threads, pipes, steps):
    """Wall and CPU seconds (process and children) of one mrdem-run."""
    env = dict(ENV, OMP_NUM_THREADS=str(threads))
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([BIN + "/mrdem-run", scene, "-o", os.devnull, "--steps", str(steps),
                    "--every", "1000000000", "-q"] + (["--via-pipes"] if pipes else []),
                   env=env, check=True, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime


def per_step(scene, steps, threads, pipes):
    """(wall, CPU) seconds per step of one run."""
    (w1, c1), (wn, cn) = run(scene, threads, pipes, 1), run(scene, threads, pipes, 1 + steps)
    return (wn - w1) / steps, (cn - c1) / steps


load0 = os.getloadavg()
subprocess.run([BIN + "/mrdem-run", SCENE, "-o", START, "--steps", "0", "-q"], check=True)
RUNS = [("lattice", START, STEPS, False), ("lattice", START, STEPS, True),
        ("pour", POUR, POUR_STEPS, False), ("small", SMALL, SMALL_STEPS, False)]
# the configurations in turn, REPS rounds: a busy spell of the machine
# falls on all of them alike
samples = {}
for _ in range(REPS):
    for name, scene, steps, pipes in RUNS:
        for th in (1, 2):
            samples.setdefault((name, pipes, th), []).append(per_step(scene, steps, th, pipes))
t = {k: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v))
     for k, v in samples.items()}
load1 = os.getloadavg()

LABEL = {"lattice": os.path.basename(DIR), "pour": "%s, first %d steps"
         % (os.path.basename(POUR), POUR_STEPS), "small": os.path.basename(SMALL)}
print("# Threads: 1 and 2 OpenMP threads with the default teams and waiting\n")
print("Command: `make -C pipelines threads` (TH_STEPS=%d, TH_POUR_STEPS=%d, TH_SMALL_STEPS=%d,"
      " TH_REPS=%d). Wall and CPU seconds per step (1 + N steps less 1 step from the scene's"
      " start, median of %d runs, the configurations in turn), OMP_DYNAMIC, OMP_WAIT_POLICY and GOMP_SPINCOUNT unset."
      " Load average (1, 5, 15 min) at the start %s, at the end %s: the goals mean something"
      " on an idle machine only (load below 1 on 2 cores).\n"
      % (STEPS, POUR_STEPS, SMALL_STEPS, REPS, REPS, " ".join("%.2f" % x for x in load0),
         " ".join("%.2f" % x for x in load1)))
print("| scene | threads | run | wall s per step | CPU s per step |")
print("|---|---|---|---|---|")
for name, _, _, pipes in RUNS:
    for th in (1, 2):
        w, c = t[(name, pipes, th)]
        print("| %s | %d | %s | %.6f | %.6f |"
              % (LABEL[name], th, "--via-pipes" if pipes else "in process", w, c))


def row(what, a, b, goal=None, ok=None):
    """A ratio a / b and its goal; a time that did not come out positive
    (too few steps for the noise) is not measured."""
    if a <= 0 or b <= 0:
        print("| %s | – | not measured: raise the steps or TH_REPS |" % what)
        return
    r = a / b
    print("| %s | %.2fx | %s |" % (what, r, "" if goal is None else
                                    "%s: %s" % (goal, "yes" if ok(r) else "no")))


print("\n| ratio | value | goal |")
print("|---|---|---|")
for name in ("lattice", "pour"):
    row("wall, 1 thread / 2 threads, " + LABEL[name], t[(name, False, 1)][0],
        t[(name, False, 2)][0], ">= %gx" % GOAL_THREADS, lambda r: r >= GOAL_THREADS)
for th in (1, 2):
    row("wall, --via-pipes / in process, %d thread%s" % (th, "s" if th > 1 else ""),
        t[("lattice", True, th)][0], t[("lattice", False, th)][0], "<= %gx" % GOAL_PIPES,
        lambda r: r <= GOAL_PIPES)
for th in (1, 2):
    row("CPU, --via-pipes / in process, %d thread%s" % (th, "s" if th > 1 else ""),
        t[("lattice", True, th)][1], t[("lattice", False, th)][1])
row("CPU, 2 threads / 1 thread, " + LABEL["small"], t[("small", False, 2)][1],
    t[("small", False, 1)][1], "<= %gx" % GOAL_SMALL_CPU, lambda r: r <= GOAL_SMALL_CPU)
