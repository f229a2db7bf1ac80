#!/usr/bin/env python3
"""The everyday DEM job against LIGGGHTS: the 343-sphere pour of
pipelines/pour_peers.py (contact radius 5 mm, Hertz with friction, a box
of five planes, the same initial positions in both codes, one thread
each) for N steps. Prints the wall seconds of mrdem-run (the sphere fast
path it takes by itself; --general too: the general path) and of
LIGGGHTS with its loop. `make -C pipelines pour-peers` is the report of
this pour and a 10,000-sphere one beside each other.

  bench/liggghts_pour.py BIN WORKDIR [--steps N] [--general]
"""
import argparse
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pipelines"))
import liggghts  # noqa: E402
import pour_peers  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("workdir")
    ap.add_argument("--steps", type=int, default=50000)
    ap.add_argument("--general", action="store_true")
    a = ap.parse_args()
    seconds = a.steps * pour_peers.DT
    os.makedirs(a.workdir, exist_ok=True)
    path = os.path.join(a.workdir, "pour343.yaml")
    with open(path, "w") as f:
        f.write(pour_peers.scene(343, seconds))
    env = dict(os.environ, OMP_NUM_THREADS="1")
    runs = [("mrdem (sphere fast path)", [])] + ([("mrdem --general-path", ["--general-path"])]
                                                 if a.general else [])
    for name, opt in runs:
        t0 = time.time()
        subprocess.run([os.path.join(a.bin, "mrdem-run"), "-q", path, "-o",
                        os.path.join(a.workdir, "pour343.mrd")] + opt, check=True, env=env)
        print("%-26s %d steps: %.2f s wall" % (name, a.steps, time.time() - t0), flush=True)
    if liggghts.available():
        t0 = time.time()
        log, cpu = liggghts.run(pour_peers.liggghts_input(343, seconds, "pour343.dump"),
                                a.workdir, "pour343")
        print("%-26s %d steps: %.2f s wall (loop %.2f s, CPU %.2f s)"
              % ("LIGGGHTS", a.steps, time.time() - t0, liggghts.loop_seconds(log), cpu))
    else:
        print("LIGGGHTS: not installed, skipped")


if __name__ == "__main__":
    main()
