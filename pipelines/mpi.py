"""mpi.py: mrdem-run-mpi against mrdem-run on one machine, and a weak-scaling
model to many machines built from what those runs measure.

  mpi.py measure BIN DIR STEPS REPS [ARG...]  run DIR/scene.yaml for STEPS
      steps (mrdem-run's ARGs added) as mrdem-run on 1 thread, mrdem-run-mpi
      on 1 rank, on 2 ranks of 1 thread and mrdem-run on 2 threads, the
      best of REPS interleaved rounds; print the figures as JSON
  mpi.py report JSON...   the Markdown report of measured scenes, with the
      model fed by their figures
  mpi.py model            the model's table of docs/parallel.md, fed by the
      figures measured for it (MEASURED below)

Times are the loop's, from rank 0's summary line ("mrdem-run: S steps in T
s"), of 1 + STEPS steps less 1 step (measure() says why); the process wall
and CPU times of the 1 + STEPS steps are given beside.
OMP_DYNAMIC=false keeps the thread teams full whatever the load; the ranks
are not bound to cores (--bind-to none), as mrdem-run's threads are not."""
import json
import math
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import mrdem  # noqa: E402

MPIRUN = os.environ.get("MPIRUN", "mpirun")
# (label, ranks or None for mrdem-run, threads)
CONFIGS = (("mrdem-run, 1 thread", None, 1), ("mrdem-run-mpi, 1 rank x 1 thread", 1, 1),
           ("mrdem-run-mpi, 2 ranks x 1 thread", 2, 1), ("mrdem-run, 1 rank x 2 threads", None, 2))
GOAL_NP1 = 1.05

_LOOP = re.compile(r"^mrdem-run: (\d+) steps in ([0-9.]+) s", re.M)
_RANKS = re.compile(r"ranks: (\d+) \(grid (\S+)\); ghosts per rank ([0-9.]+) on average over the "
                    r"ranks and steps, at most (\d+); ([0-9.]+) bytes sent per step")
_WORK = re.compile(r"per step: ([0-9.e+]+) pairs .*?, ([0-9.e+]+) contacts, ([0-9.e+]+) triangle "
                   r"comparisons")


def _env(threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_DYNAMIC="false")
    if os.geteuid() == 0:  # Open MPI refuses root without both
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return env


def _last_frame_n(path):
    n = None
    for f in mrdem.frames(path):
        n = f.n
    return n


def _rank_streams(out, ranks):
    """The particles each rank owns at the end, and of the pairs of the last
    output step (each written by one rank) those whose particles two ranks
    own: both ranks compute them, one rank once."""
    owner, pairs = {}, []
    for k in range(ranks):
        s = mrdem.read(os.path.join(out, "rank-%d.mrd" % k))
        for i in s.frames[-1]["id"]:
            owner[int(i)] = k
        pairs += s.pairs[max(s.pairs)]
    owned = [0] * ranks
    for k in owner.values():
        owned[k] += 1
    cross = sum(1 for a, b in pairs if a in owner and b in owner and owner[a] != owner[b])
    return owned, cross, len(pairs)


def run(binary, scene, ranks, threads, steps, args):
    """One run: its figures (loop and wall seconds, the summary's counters,
    the particles each rank owns at the end)."""
    tmp = tempfile.mkdtemp(prefix="mpi-")
    try:
        out = os.path.join(tmp, "run")
        tail = [scene, "-o", out if ranks else out + ".mrd", "--steps", str(steps),
                "--every", str(steps)] + args
        if ranks:
            cmd = [MPIRUN, "--oversubscribe", "--bind-to", "none", "-np", str(ranks), "-x",
                   "OMP_NUM_THREADS", "-x", "OMP_DYNAMIC", binary + "/mrdem-run-mpi"] + tail
        else:
            cmd = [binary + "/mrdem-run"] + tail
        t0, c0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
        p = subprocess.run(cmd, env=_env(threads), stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        wall, c1 = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = c1.ru_utime - c0.ru_utime + c1.ru_stime - c0.ru_stime
        if p.returncode:
            sys.exit("mpi.py: %s failed (exit %d):\n%s" % (" ".join(cmd), p.returncode, p.stderr))
        loop, work = _LOOP.search(p.stderr), _WORK.search(p.stderr)
        if not loop or not work:
            sys.exit("mpi.py: no summary from %s:\n%s" % (" ".join(cmd), p.stderr))
        r = {"ranks": ranks or 1, "threads": threads, "mpi": bool(ranks), "wall_s": wall,
             "cpu_s": cpu,
             "loop_s": float(loop.group(2)), "pairs": float(work.group(1)),
             "contacts": float(work.group(2)), "comparisons": float(work.group(3))}
        m = _RANKS.search(p.stderr)
        if m:
            r.update(grid=m.group(2), ghosts_avg=float(m.group(3)), ghosts_max=int(m.group(4)),
                     bytes_per_step=float(m.group(5)))
            r["owned"], r["cross_pairs"], r["last_pairs"] = _rank_streams(out, ranks)
        else:
            r["owned"] = [_last_frame_n(out + ".mrd")]
        return r
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def simd_level():
    """The level the kernels' auto choice takes here (common/util/simd.c)."""
    try:
        with open("/proc/cpuinfo") as f:
            info = f.read()
    except OSError:
        return "unknown", "unknown"
    flags = set(re.search(r"^flags\s*:(.*)$", info, re.M).group(1).split())
    model = re.search(r"^model name\s*:\s*(.*)$", info, re.M)
    level = "generic"
    if {"avx2", "fma"} <= flags:
        level = "avx512" if {"avx512f", "avx512vl"} <= flags else "avx2"
    return level, model.group(1) if model else "unknown"


def measure(binary, scene_dir, steps, reps, args):
    """Each configuration's loop time is that of 1 + STEPS steps less that
    of 1 step: mrdem-run-mpi's first search is its start-up check's, outside
    its loop, mrdem-run's is in it; the difference holds STEPS searches on
    both. The other figures are the longer run's."""
    scene = os.path.join(scene_dir, "scene.yaml")
    load0 = os.getloadavg()
    best = {}
    for _ in range(reps):
        for label, ranks, threads in CONFIGS:
            one = run(binary, scene, ranks, threads, 1, args)
            r = run(binary, scene, ranks, threads, 1 + steps, args)
            r["loop_s"] -= one["loop_s"]
            if label not in best or r["loop_s"] < best[label]["loop_s"]:
                best[label] = r
    simd, cpu = simd_level()
    return {"scene": os.path.basename(os.path.normpath(scene_dir)), "steps": steps, "reps": reps,
            "args": args, "particles": sum(best[CONFIGS[0][0]]["owned"]),
            "load_start": load0, "load_end": os.getloadavg(), "simd": simd, "cpu": cpu,
            "cores": os.cpu_count(), "runs": [dict(best[c[0]], label=c[0]) for c in CONFIGS]}


def _by_label(m):
    return {r["label"]: r for r in m["runs"]}


def _counts(scene):
    """Particles along x, y and z of a lattice-X-Y-Z or pour-X-Y-Z scene."""
    return [int(x) for x in scene.split("-")[-3:]]


def face_layer(grid, counts):
    """Particles in one layer along the faces a rank shares with others, on
    average over the ranks of the brick grid: along axis a, 2 (g - 1) / g
    faces per rank, each of N / count[a] / (the other axes' ranks)."""
    g = [int(x) for x in grid.split("x")]
    n = counts[0] * counts[1] * counts[2]
    total = 0.0
    for a in range(3):
        others = g[(a + 1) % 3] * g[(a + 2) % 3]
        total += 2.0 * (g[a] - 1) / g[a] * n / counts[a] / others
    return total


def figures(m):
    """What the model takes from a measured scene: seconds per particle per
    step on one thread (c), ghost layers (k), redundant work per ghost in
    owned particles' work (r: the pairs across ranks, computed twice, per
    ghost over the pairs per particle), bytes per ghost per step (b), the
    imbalance."""
    runs = _by_label(m)
    one, np1, np2 = runs[CONFIGS[0][0]], runs[CONFIGS[1][0]], runs[CONFIGS[2][0]]
    n, p, g = m["particles"], np2["ranks"], np2["ghosts_avg"]
    owned = np2["owned"]
    return {"c": one["loop_s"] / (n * m["steps"]),
            "k": g / face_layer(np2["grid"], _counts(m["scene"])),
            "r": np2["cross_pairs"] / (p * g) / (np2["last_pairs"] / n),
            "b": np2["bytes_per_step"] / (p * g),
            "imbalance": max(owned) / (sum(owned) / len(owned)),
            "ghost_fraction": g / (n / p), "bytes_per_particle": np2["bytes_per_step"] / n,
            "ghost_imbalance": np2["ghosts_max"] / g,
            "cross_pairs": np2["cross_pairs"] / np2["last_pairs"]}


# The scenes measured for docs/parallel.md ("Measured speed"): figures() of
# `make -C pipelines mpi`, rounded. A chute-like point-particle code beside
# them, every figure assumed (docs/parallel.md says why).
MEASURED = {
    "lattice-32-32-24 (1,224 triangles)": {"c": 1.1e-4, "k": 1.0, "r": 0.173, "b": 163.0},
    "pour-40-25-20 (80 triangles)": {"c": 9.1e-6, "k": 1.0, "r": 0.164, "b": 113.5},
    "chute-like point particles (assumed)": {"c": 0.3e-6, "k": 1.2, "r": 0.0, "b": 120.0,
                                             "per_rank": 32000},
    "the same on a Cray XT5's network": {"c": 0.3e-6, "k": 1.2, "r": 0.0, "b": 120.0,
                                         "latency": 7e-6, "bandwidth": 1.1e9, "per_rank": 32000},
}
# The network (assumed: InfiniBand HDR, 200 Gb/s links, 1-2 us MPI latency;
# the upper latency, half the link rate).
LATENCY, BANDWIDTH = 2e-6, 12.5e9
# Per step between rebuilds today: one exchange (the ghosts' states), an
# MPI_Alltoall of counts and an MPI_Alltoallv, and five MPI_Allreduce (the
# largest displacement, three agreements on a failure, the energy bound).
# Rebuilds (particles, springs and ghosts anew, the cuts' quantiles
# gathered from every rank) come when a particle has moved half the skin:
# left out.
EXCHANGES, REDUCTIONS = 1, 5
NEIGHBOURS = 26


def predict(f, n, ranks, neighbour):
    """Seconds per step of one rank holding n particles among `ranks` ranks
    on a cube of ranks (weak scaling), split into compute and communication,
    and the parallel efficiency against one rank without ghosts."""
    p = round(ranks ** (1 / 3))
    faces = 2.0 * (p - 1) / p  # shared faces per rank along each axis
    side = n ** (1 / 3)        # particle layers along a rank's box
    ghosts = (side + faces * f["k"]) ** 3 - side ** 3
    compute = f["c"] * n * (1 + f["r"] * ghosts / n) * (f.get("imbalance", 1.0) if p > 1 else 1)
    if ranks == 1:
        return ghosts / n, compute, 0.0, 1.0
    # an all-to-all posts a message to every other rank, empty or not; a
    # neighbour exchange one to each of 26 ranks at most, counts with data
    messages = EXCHANGES * (min(NEIGHBOURS, ranks - 1) if neighbour else 2 * (ranks - 1))
    latency = f.get("latency", LATENCY)
    comm = (messages * latency + REDUCTIONS * 2 * math.ceil(math.log2(ranks)) * latency +
            f["b"] * ghosts / f.get("bandwidth", BANDWIDTH))
    return ghosts / n, compute, comm, f["c"] * n / (compute + comm)


def model_table(scenes, per_rank=100000, ranks=(1, 8, 64, 512, 1000, 4096, 32768)):
    out = ["| scene | ranks | particles | ghosts / owned | compute s per step | "
           "all-to-all ms | efficiency | neighbour ms | efficiency |", "|---" * 9 + "|"]
    for name, f in scenes.items():
        n = f.get("per_rank", per_rank)
        for p in ranks:
            g, comp, a2a, e_a2a = predict(f, n, p, False)
            _, _, nb, e_nb = predict(f, n, p, True)
            out.append("| %s | %d | %.3g | %.3f | %.3g | %.3g | %.1f %% | %.3g | %.1f %% |"
                       % (name, p, n * p, g, comp, 1e3 * a2a, 100 * e_a2a, 1e3 * nb, 100 * e_nb))
    return "\n".join(out)


def _ratio(a, b, digits=2):
    """a / b as "1.23x", or "n/a" where b is no time to divide by (the loop
    time of a tiny scene is a difference that noise can make 0 or less)."""
    return "%.*fx" % (digits, a / b) if b > 0 else "n/a"


def _ratio_rows(runs):
    one, np1, np2, th2 = (runs[c[0]] for c in CONFIGS)
    r1 = np1["loop_s"] / one["loop_s"] if one["loop_s"] > 0 else float("nan")
    return ["| 2 ranks / 1 rank (mrdem-run-mpi, 1 thread each) | %s |  |"
            % _ratio(np2["loop_s"], np1["loop_s"]),
            "| 1 rank of mrdem-run-mpi / mrdem-run (1 thread) | %s | <= %g: %s |"
            % (_ratio(np1["loop_s"], one["loop_s"], 3), GOAL_NP1,
               "yes" if r1 <= GOAL_NP1 else "no"),
            "| 2 ranks x 1 thread / 1 rank x 2 threads | %s |  |"
            % _ratio(np2["loop_s"], th2["loop_s"]),
            "| process CPU, 1 rank of mrdem-run-mpi / mrdem-run (1 thread) | %s |  |"
            % _ratio(np1["cpu_s"], one["cpu_s"], 3),
            "| process CPU, 2 ranks / 1 rank (mrdem-run-mpi) | %s |  |"
            % _ratio(np2["cpu_s"], np1["cpu_s"], 3)]


def report(m):
    runs, f = _by_label(m), figures(m)
    np2 = runs[CONFIGS[2][0]]
    lines = ["## %s: %d particles, %d steps\n" % (m["scene"], m["particles"], m["steps"]),
             "Best of %d interleaved rounds; mrdem-run's extra arguments: %s. Load average "
             "(1, 5, 15 min) at the start %s, at the end %s, %d cores; kernels: %s (%s).\n"
             % (m["reps"], " ".join(m["args"]) or "none",
                " ".join("%.2f" % x for x in m["load_start"]),
                " ".join("%.2f" % x for x in m["load_end"]), m["cores"], m["simd"], m["cpu"]),
             "| configuration | loop s | ms per step | process wall s | process CPU s |",
             "|---|---|---|---|---|"]
    for label, _, _ in CONFIGS:
        r = runs[label]
        lines.append("| %s | %.3f | %.4g | %.2f | %.2f |"
                     % (label, r["loop_s"], 1e3 * r["loop_s"] / m["steps"], r["wall_s"],
                        r["cpu_s"]))
    lines += ["", "| ratio (loop times but the last two) | value | goal |", "|---|---|---|"] + _ratio_rows(runs)
    lines += ["", "| on 2 ranks (grid %s) | value |" % np2["grid"], "|---|---|",
              "| ghosts per rank, average (most) | %.1f (%d) |" % (np2["ghosts_avg"],
                                                              np2["ghosts_max"]),
              "| ghosts per owned particle | %.4f |" % f["ghost_fraction"],
              "| ghost layers across a shared face (k) | %.2f |" % f["k"],
              "| bytes sent per step, all ranks | %.0f |" % np2["bytes_per_step"],
              "| bytes per particle per step | %.2f |" % f["bytes_per_particle"],
              "| bytes per ghost per step (b) | %.1f |" % f["b"],
              "| owned particles, most / mean (imbalance) | %.4f |" % f["imbalance"],
              "| ghosts, most / mean | %.4f |" % f["ghost_imbalance"],
              "| pairs across ranks (computed twice), share of all pairs | %.4f |"
              % f["cross_pairs"],
              "| redundant pairs per ghost, in an owned particle's pairs (r) | %.3f |" % f["r"],
              "| loop seconds per particle per step, 1 thread (c) | %.4g |" % f["c"], ""]
    return "\n".join(lines)


def main(argv):
    if len(argv) >= 6 and argv[1] == "measure":
        m = measure(argv[2], argv[3], int(argv[4]), int(argv[5]), argv[6:])
        json.dump(m, sys.stdout, indent=1)
        print()
    elif len(argv) >= 3 and argv[1] == "report":
        ms = []
        for path in argv[2:]:
            with open(path) as fh:
                ms.append(json.load(fh))
        print("# mrdem-run-mpi against mrdem-run\n")
        print("Command: `make -C pipelines mpi`. Loop seconds from rank 0's summary line, of "
              "1 + STEPS steps less 1 step; process wall and CPU seconds of the 1 + STEPS steps "
              "beside; OMP_DYNAMIC=false, ranks not bound to cores.\n")
        for m in ms:
            print(report(m))
        print("## The model fed by these runs\n")
        print("Weak scaling at 100,000 particles per rank (32,000 for the chute-like rows), "
              "network %g us latency, %g GB/s (`python3 mpi.py model` gives docs/parallel.md's "
              "table from the figures stored in mpi.py).\n" % (1e6 * LATENCY, BANDWIDTH / 1e9))
        scenes = {"%s (measured now)" % m["scene"]: figures(m) for m in ms}
        scenes.update((k, v) for k, v in MEASURED.items() if "chute" in k or "XT5" in k)
        print(model_table(scenes))
    elif len(argv) == 2 and argv[1] == "model":
        print(model_table(MEASURED))
    else:
        sys.exit("usage: mpi.py measure BIN DIR STEPS REPS [ARG...] | mpi.py report JSON... | "
                 "mpi.py model")


if __name__ == "__main__":
    main(sys.argv)
