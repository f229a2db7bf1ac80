"""The scenes of the paper's experiments (Sec. 6), one place for every
table's script: scene(NAME, STEPS, SCHEME) is the YAML text; `scenes.py
NAME` prints it with 100 steps of explicit Euler (the tables' runs set both
on mrdem-run's command line), `scenes.py --write DIR NAME...` writes each
to DIR/NAME/scene.yaml where that file differs (so its age says when the
scene last changed).

  particle-particle    two spheres of 1,280 triangles already inside each
                       other's halo, approaching head-on (Tables 4, 5, 6;
                       the overlap is the paper's, so allow_overlap)
  particle-particle-T  the same with spheres of T triangles (scaling.py)
  particle-on-plane    a sphere of 1,280 triangles reaching a tilted plane
                       mesh of 512 triangles (Tables 4, 5, 6)
  scaled-S-T           a sphere of 80 triangles and unit diameter pressed
                       onto a fixed sphere S times its diameter of T triangles
                       (Tables 7: T = 80; 8: T = 80 * S^2), allow_overlap
  lattice-X-Y-Z        Sec. 6.7's lattice (examples/lattice-24576.yaml) cut
                       to X x Y x Z spheres of 1,224 triangles, at rest,
                       axis neighbours' halos barely overlapping (Table 9)
  lattice-rotated-X-Y-Z  the same, each sphere turned at random (the lat-long
                       spheres' pole slivers then meet at every angle)
  pour-X-Y-Z           X x Y x Z noisy mesh spheres (80 triangles, radius
                       1-1.1 cm) packed within about a halo, turned and
                       shaken at random, falling into a box of five planes:
                       hooke with friction, contacts from the first step on
                       (pipelines/mpi.py)
"""
import math
import os
import random
import re
import sys

SCENES = ("particle-particle", "particle-on-plane")

_TILT = math.radians(15)
# Normal of the plane mesh tilted by 15 degrees about x.
_N = (0.0, -math.sin(_TILT), math.cos(_TILT))

_PARTICLE_PARTICLE = """shapes:
  ball: {sphere: {triangles: %(triangles)d, radius: 1.0}}
particles:
  - {shape: ball, position: [-1.005, 0, 0], velocity: [0.5, 0, 0]}
  - {shape: ball, position: [1.005, 0, 0], velocity: [-0.5, 0, 0]}
contact: {model: paper, epsilon: 0.01, stiffness: 1000, allow_overlap: true}
time: {dt: 1.0e-4, steps: %(steps)d, scheme: %(scheme)s}
output: {every: 1}
"""

# The paper's particle-on-plane setup: the sphere starts just above the
# plane mesh and moves into it, then rolls down.
_PARTICLE_ON_PLANE = """shapes:
  ball: {sphere: {triangles: 1280, radius: 1.0}}
  slope: {plane: {size: [20, 20], divisions: [16, 16], tilt: 15}}
particles:
  - {shape: slope, position: [0, 0, 0], fixed: true, epsilon_abs: 0.01}
  - {shape: ball, position: [%(px).12f, %(py).12f, %(pz).12f], velocity: [%(vx).12f, %(vy).12f, %(vz).12f], epsilon: 0.01}
gravity: [0, 0, -9.81]
contact: {model: paper, stiffness: 1000}
time: {dt: 1.0e-4, steps: %(steps)d, scheme: %(scheme)s}
output: {every: 1}
"""

# Paper Sec. 6.6: a free unit sphere of 80 triangles (radius 0.5, halo
# 0.01) and a fixed one scaled by S (radius S/2, halo 0.01 S) of T
# triangles, halfway into each other's halos (contact points from the first
# step on), the small one moving in at 0.1 m/s; a soft spring (stiffness
# 100) keeps them in contact for the whole run.
_SCALED = """shapes:
  small: {sphere: {triangles: 80, radius: 0.5}}
  large: {sphere: {triangles: %(triangles)d, radius: %(radius).12g}}
particles:
  - {shape: small, position: [%(x0).12g, 0, 0], velocity: [0.1, 0, 0]}
  - {shape: large, position: [%(x1).12g, 0, 0], fixed: true}
contact: {model: paper, epsilon: 0.01, stiffness: 100, allow_overlap: true}
time: {dt: 1.0e-4, steps: %(steps)d, scheme: %(scheme)s}
output: {every: 1}
"""


# Paper Sec. 6.7 (examples/lattice-24576.yaml): spheres of 1,224 triangles
# on a grid of spacing 2.03, halos 0.02 overlapping by 0.01 between axis
# neighbours, no gravity.
_LATTICE = """shapes:
  ball: {sphere: {triangles: 1224, radius: 1.0}}
particles:
  - lattice: {shape: ball, origin: [0, 0, 0], count: [%(x)d, %(y)d, %(z)d], spacing: 2.03%(rotate)s}
gravity: [0, 0, 0]
contact: {model: paper, epsilon: 0.01, stiffness: 1000}
time: {dt: 1.0e-4, steps: %(steps)d, scheme: %(scheme)s}
output: {every: 1}
"""


# A dense pour (pour-X-Y-Z): grains of radius 1 to 1.1 cm on a grid of
# 2.22 cm, so the noisy surfaces are 0.2 to 2.2 mm apart, jittered by up to
# 0.1 mm: their spikes start within each other's 0.5 mm halos. Each grain is
# turned at random and moves at up to 0.3 m/s on every axis on top of
# 0.3 m/s down, so within a hundred steps (2 ms) neighbours close gaps of a
# millimetre and the bottom layer reaches the floor: collisions everywhere,
# without the thousands of steps a pour from above takes to become dense.
# The pour's contact law (examples/pour.yaml): kn 2e5 N/m keeps an impact
# at 1 m/s within a third of the halos, and resolves it in 25 steps.
_POUR_SPACING, _POUR_JITTER, _POUR_SPEED = 0.0222, 0.0001, 0.3
_POUR = """shapes:
  grain: {sphere: {triangles: 80, radius: 0.01, noise: 1.1, seed: 7}}
particles:
%(particles)splanes:
  - {point: [0, 0, 0], normal: [0, 0, 1]}
  - {point: [0, 0, 0], normal: [1, 0, 0]}
  - {point: [%(x).6g, 0, 0], normal: [-1, 0, 0]}
  - {point: [0, 0, 0], normal: [0, 1, 0]}
  - {point: [0, %(y).6g, 0], normal: [0, -1, 0]}
gravity: [0, 0, -9.81]
contact: {model: hooke, stiffness: 2.0e5, restitution: 0.3, friction: 0.5, rolling_friction: 0.01, epsilon_abs: 0.0005, plane_epsilon: 0.0005}
time: {dt: 2.0e-5, steps: %(steps)d, scheme: %(scheme)s}
output: {every: 1}
"""


def _unit_quaternion(rng):
    """A uniformly random rotation (Shoemake)."""
    u1, u2, u3 = rng.random(), 2 * math.pi * rng.random(), 2 * math.pi * rng.random()
    a, b = math.sqrt(1 - u1), math.sqrt(u1)
    return (a * math.sin(u2), a * math.cos(u2), b * math.sin(u3), b * math.cos(u3))


def _pour(nx, ny, nz, steps, scheme):
    rng = random.Random(1)
    s, lines = _POUR_SPACING, []
    for k in range(nz):
        for j in range(ny):
            for i in range(nx):
                p = [(c + 0.5) * s + rng.uniform(-_POUR_JITTER, _POUR_JITTER) for c in (i, j, k)]
                v = [rng.uniform(-_POUR_SPEED, _POUR_SPEED) for _ in range(3)]
                v[2] -= _POUR_SPEED
                q = _unit_quaternion(rng)
                lines.append("  - {shape: grain, position: [%.6f, %.6f, %.6f], orientation: "
                             "[%.9f, %.9f, %.9f, %.9f], velocity: [%.4f, %.4f, %.4f], "
                             "density: 2500}\n" % tuple(p + list(q) + v))
    return _POUR % {"particles": "".join(lines), "x": nx * s, "y": ny * s, "steps": steps,
                    "scheme": scheme}


def scaled_name(scale, triangles):
    return "scaled-%g-%d" % (scale, triangles)


def scene(name, steps, scheme="explicit-euler"):
    """The YAML text of scene NAME, STEPS steps of SCHEME, a frame per step."""
    m = re.fullmatch(r"particle-particle(-([0-9]+))?", name)
    if m:
        return _PARTICLE_PARTICLE % {"triangles": int(m.group(2) or 1280), "steps": steps,
                                     "scheme": scheme}
    if name == "particle-on-plane":
        p = [1.02 * c for c in _N]
        v = [-0.5 * c for c in _N]
        return _PARTICLE_ON_PLANE % {"px": p[0], "py": p[1], "pz": p[2], "vx": v[0], "vy": v[1],
                                     "vz": v[2], "steps": steps, "scheme": scheme}
    m = re.fullmatch(r"scaled-([0-9.]+)-([0-9]+)", name)
    if m:
        s, t = float(m.group(1)), int(m.group(2))
        gap = 0.5 * 0.01 * (1 + s)
        return _SCALED % {"triangles": t, "radius": 0.5 * s, "x0": -0.5 - gap / 2,
                          "x1": 0.5 * s + gap / 2, "steps": steps, "scheme": scheme}
    m = re.fullmatch(r"lattice(-rotated)?-([0-9]+)-([0-9]+)-([0-9]+)", name)
    if m:
        return _LATTICE % {"x": int(m.group(2)), "y": int(m.group(3)), "z": int(m.group(4)),
                           "rotate": ", rotate: true, seed: 1" if m.group(1) else "",
                           "steps": steps, "scheme": scheme}
    m = re.fullmatch(r"pour-([0-9]+)-([0-9]+)-([0-9]+)", name)
    if m:
        return _pour(int(m.group(1)), int(m.group(2)), int(m.group(3)), steps, scheme)
    raise ValueError("unknown scene %r" % name)


def text(name):
    return ("# scenes.py %s: steps and scheme as mrdem-run's --steps and --scheme say\n" % name +
            scene(name, 100))


def write(dirname, names):
    texts = [(name, text(name)) for name in names]  # an unknown name: nothing written
    for name, t in texts:
        path = os.path.join(dirname, name, "scene.yaml")
        try:
            with open(path) as f:
                if f.read() == t:
                    continue
        except FileNotFoundError:
            os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path + ".tmp", "w") as f:
            f.write(t)
        os.replace(path + ".tmp", path)


if __name__ == "__main__":
    try:
        if len(sys.argv) == 2 and not sys.argv[1].startswith("-"):
            sys.stdout.write(text(sys.argv[1]))
        elif len(sys.argv) >= 3 and sys.argv[1] == "--write":
            write(sys.argv[2], sys.argv[3:])
        else:
            sys.exit("usage: scenes.py NAME | scenes.py --write DIR NAME...")
    except ValueError as e:  # an unknown scene (write writes nothing then)
        sys.exit("scenes.py: %s" % e)
