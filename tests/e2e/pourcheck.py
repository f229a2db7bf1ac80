#!/usr/bin/env python3
"""Check a poured packing (examples/pour.yaml or a cut of it): every bead
inside the box of planes, no two interpenetrating (centre distances at
least 2 r - 2 eps), the kinetic energy falling from its peak; prints the
kinetic energy against the potential energy released and the packing
fraction of the bed.

  pourcheck.py RUN.mrd RADIUS EPS HALF_WIDTH [KE_RATIO]"""
import math
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import mrdem  # noqa: E402

path, r, eps, half = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
ke_ratio = float(sys.argv[5]) if len(sys.argv) > 5 else None
s = mrdem.read(path)
g = 9.81
rho = 2500.0
m = rho * s.shapes[0].volume


def energies(f):
    ke = sum(0.5 * m * sum(c * c for c in v) for v in f["velocity"])
    pe = sum(m * g * p[2] for p in f["position"])
    return ke, pe


first, last = s.frames[0], s.frames[-1]
ke0, pe0 = energies(first)
ke1, pe1 = energies(last)
drop = pe0 + ke0 - pe1
peak = max(energies(f)[0] for f in s.frames)
pos = last["position"]
n = len(pos)
worst = min(min(p[2] - r, half - abs(p[0]) - r, half - abs(p[1]) - r) for p in pos)
# beads by a grid of cells of one diameter
cells = {}
for i, p in enumerate(pos):
    cells.setdefault(tuple(int(math.floor(c / (2 * r))) for c in p), []).append(i)
closest = math.inf
for key, members in cells.items():
    for d in [(a, b, c) for a in (-1, 0, 1) for b in (-1, 0, 1) for c in (-1, 0, 1)]:
        other = cells.get(tuple(k + e for k, e in zip(key, d)), [])
        for i in members:
            for j in other:
                if i < j:
                    closest = min(closest, math.dist(pos[i], pos[j]))
# packing fraction of the bulk: the share of random points (fixed seed)
# inside a bead, in the box three radii away from the walls, above the
# first radius and below three radii under the top of the bed
top = max(p[2] for p in pos) + r
lo, hi = -half + 3 * r, half - 3 * r
rng = random.Random(1)
inside = 0
points = 20000
for _ in range(points):
    x = (rng.uniform(lo, hi), rng.uniform(lo, hi), rng.uniform(r, max(r, top - 3 * r)))
    key = tuple(int(math.floor(c / (2 * r))) for c in x)
    inside += any(math.dist(x, pos[j]) < r
                  for d in [(a, b, c) for a in (-1, 0, 1) for b in (-1, 0, 1) for c in (-1, 0, 1)]
                  for j in cells.get(tuple(k + e for k, e in zip(key, d)), []))
phi = inside / points
print("# step %d (t = %.3f s): kinetic energy %.3e J = %.2e of the %.4f J released, "
      "peak %.3e J; lowest clearance to a wall %.2e m; closest centres %.5f m (2r - 2eps = %.5f); "
      "bulk packing fraction %.3f (bed top %.4f m)"
      % (last.step, last.time, ke1, ke1 / drop, drop, peak, worst, closest, 2 * r - 2 * eps, phi,
         top))
assert worst > -eps, "a bead left the box"
assert closest >= 2 * r - 2 * eps, "beads interpenetrate"
assert ke1 < peak, "kinetic energy did not fall from its peak"
if ke_ratio is not None:
    assert ke1 < ke_ratio * drop, "not at rest: kinetic energy %.3e of the drop" % (ke1 / drop)
