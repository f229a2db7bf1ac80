#!/usr/bin/env python3
"""Write a script-style YAML scene with N explicit particles (flow style,
one per line) for timing mrdem-init on large scenes:

    python3 bench/scene_particles.py 1000000 >big.yaml
    /usr/bin/time -v bin/mrdem-init big.yaml -o big.mrd

--particles-first puts the particle list before shapes and contact (the
order a script may well choose; the loader must not read it twice)."""
import sys

args = [a for a in sys.argv[1:] if not a.startswith("--")]
n = int(args[0]) if args else 1000000
first = "--particles-first" in sys.argv
out = sys.stdout
head = ("shapes:\n  ball: {sphere: {triangles: 80, radius: 0.5}}\n"
        "contact: {model: paper, epsilon: 0.01, stiffness: 1000}\n")
if not first:
    out.write(head)
out.write("particles:\n")
side = max(1, round(n ** (1 / 3)))
for i in range(n):
    x, y, z = i % side, i // side % side, i // (side * side)
    out.write("  - {shape: ball, position: [%.3f, %.3f, %.3f], velocity: [0.1, 0, -0.2]}\n"
              % (1.1 * x, 1.1 * y, 1.1 * z))
if first:
    out.write(head)
out.write("time: {dt: 1.0e-4, steps: 10}\n")
