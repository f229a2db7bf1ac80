#!/usr/bin/env python3
"""Energy and momentum over time from mrdem-stats CSV.

  energy.py STATS.csv OUT.csv        the columns to plot, one row per frame
  energy.py --markdown NAME=OUT.csv  first, last, min and max of each column

Kinetic, gravitational energy and momenta come from the frames; the contact
energy from mrdem-step's stats of the same step, empty where a frame has
none (a run's last frame), and so is the total then."""
import csv
import sys

COLS = ["step", "time", "kinetic", "gravity", "contact", "total",
        "momentum_x", "momentum_y", "momentum_z",
        "angular_momentum_x", "angular_momentum_y", "angular_momentum_z"]


def reduce(src, dst):
    with open(src, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r.get("time")]  # frames only
    if not rows:
        sys.exit("energy.py: no frames in %s" % src)
    with open(dst, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(COLS)
        for r in rows:
            c = r.get("energy_contact", "")
            total = repr(float(r["kinetic"]) + float(r["potential_gravity"]) + float(c)) if c else ""
            w.writerow([r["step"], r["time"], r["kinetic"], r["potential_gravity"], c, total] +
                       [r[k] for k in COLS[6:]])


def summary(name, path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    print("## %s: %d frames, steps %s to %s, t = %.6g s\n" % (
        name, len(rows), rows[0]["step"], rows[-1]["step"], float(rows[-1]["time"])))
    print("| quantity | first | last | min | max |")
    print("|---|---|---|---|---|")
    for k in COLS[2:]:
        v = [float(r[k]) for r in rows if r[k]]
        print("| %s | %.6g | %.6g | %.6g | %.6g |" % (k, v[0], v[-1], min(v), max(v)))
    print()


if sys.argv[1] == "--markdown":
    print("# Energy (J) and momentum (kg m/s, kg m^2/s) of the examples\n")
    for a in sys.argv[2:]:
        summary(*a.split("=", 1))
else:
    reduce(sys.argv[1], sys.argv[2])
