#!/usr/bin/env python3
"""Contact mechanics of the patch models against physics (docs/dynamics.md,
"Patch models"): restitution and contact time against closed forms and an
independent integration of the same contact law, convergence under mesh
refinement, energy conservation, rolling, static friction.

  mechanics.py CASE [ARGS]    runs one case, prints '# ' lines, exits 1 on
                              the first failed check

Scenes run through mrdem-run ($MRDEM_BIN); MRDEM_ASAN (sanitised builds)
drops the finest meshes. Every case checks numbers it measures."""
import math
import os
import random
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import mrdem  # noqa: E402

BIN = os.environ.get("MRDEM_BIN", os.path.join(os.path.dirname(__file__), "..", "..", "bin"))
QUICK = bool(os.environ.get("MRDEM_ASAN"))
G = 9.81


def check(ok, what):
    print("# %s: %s" % ("ok" if ok else "FAILED", what))
    if not ok:
        sys.exit(1)


def quat(seed):
    """A uniformly random unit quaternion (Shoemake)."""
    r = random.Random(seed)
    u1, u2, u3 = r.random(), r.random(), r.random()
    return [math.sqrt(1 - u1) * math.sin(2 * math.pi * u2),
            math.sqrt(1 - u1) * math.cos(2 * math.pi * u2),
            math.sqrt(u1) * math.sin(2 * math.pi * u3), math.sqrt(u1) * math.cos(2 * math.pi * u3)]


# seed 004's spring-dashpot: gamma_n (1/s) for damping ratio 0.1 at kn
# 4.2e7 on a 1 m ball of 1000 kg/m^3 against a plane
SD_GAMMA = 2 * 0.1 * math.sqrt(4.2e7 / (4 / 3 * math.pi * 1000))


def law(model, e, friction=0.0):
    if model == "hooke":
        s = "{model: hooke, stiffness: 4.2e7, restitution: %g" % e
    elif model == "spring-dashpot":
        s = "{model: spring-dashpot, stiffness: 4.2e7, damping: %.17g" % SD_GAMMA
    else:
        s = "{model: hertz, young: 5.0e9, poisson: 0.3, restitution: %g" % e
    return s + ", friction: %g, plane_epsilon: 0.01}" % friction


def run(name, scene, *args):
    """Write the scene, run it, return the stream."""
    path = name + ".yaml"
    with open(path, "w") as f:
        f.write(scene)
    p = subprocess.run([os.path.join(BIN, "mrdem-run"), path, "-o", name + ".mrd"] + list(args),
                       stderr=subprocess.PIPE, text=True)
    if p.returncode:
        sys.exit("# mrdem-run %s failed:\n%s" % (path, p.stderr))
    return mrdem.read(name + ".mrd")


def steps_of(s):
    return [x.values for x in s.stats if x.source == "mrdem-step"]


def mass(s, shape=0, rho=1000.0):
    return rho * s.shapes[shape].volume


# ---- normal impact

BALL = "  ball: {sphere: {triangles: %d, radius: 1.0}}\n"


def impact(kind, model, tris, seed, e=0.5, v=1.0):
    """Head-on impact at v (pair: each at v): restitution, contact time, the
    stream. Contact is measured while a contact exerts force."""
    q, q2 = quat(seed), quat(seed + 100)
    ball = "{shape: ball, position: [0, 0, %g], orientation: %s, velocity: [0, 0, %g], " \
           "epsilon_abs: 0.01, density: 1000}"
    shapes = "shapes:\n" + BALL % tris
    parts = "particles:\n  - " + ball % (1.025, q, -v) + "\n"
    extra = ""
    if kind == "pair":
        parts += "  - " + ball % (-1.025, q2, v) + "\n"
    elif kind == "plane":
        extra = "planes:\n  - {point: [0, 0, 0], normal: [0, 0, 1]}\n"
    else:  # a fixed plane mesh, its triangles crossing under the ball
        shapes += "  floor: {plane: {size: [4, 4], divisions: [5, 5]}}\n"
        parts += "  - {shape: floor, position: [0.13, 0.07, 0], fixed: true, epsilon_abs: 0.01}\n"
    scene = shapes + parts + extra + "gravity: [0, 0, 0]\ncontact: %s\n" % law(model, e) + \
        "time: {dt: 1.0e-5, steps: 6000, scheme: velocity-verlet}\noutput: {every: 10}\n"
    s = run("%s-%s-%d-%d" % (kind, model, tris, seed), scene, "--hierarchy", "surrogate")
    on = [x["time"] for x in steps_of(s) if x["contacts_active"] > 0]
    vz = s.frames[-1]["velocity"][0][2]
    check(on and on[-1] < s.frames[-1].time - 1e-3, "%s %s %d: the contact ended" % (kind, model, tris))
    return vz / v, on[-1] - on[0] + 1e-4, s


def hertz_reference(m, rstar, v, e, young=5.0e9, nu=0.3):
    """Restitution and contact time of LIGGGHTS's Hertz model with Tsuji
    damping for one point contact: the same formulas as
    common/dynamics/contact_law.c, integrated independently."""
    estar = young / (2 * (1 - nu * nu))
    beta = math.log(e) / math.sqrt(math.log(e) ** 2 + math.pi ** 2)

    def acc(d, dv):  # d: overlap, dv: its rate
        if d <= 0:
            return 0.0
        a = math.sqrt(rstar * d)
        kn, sn = 4.0 / 3.0 * estar * a, 2 * estar * a
        gn = -2 * math.sqrt(5.0 / 6.0) * beta * math.sqrt(sn * m)
        return -(kn * d + gn * dv) / m
    return point_contact(acc, v)


def spring_dashpot_reference(m, v):
    """Seed 004's spring-dashpot for one point contact: F = kn d + gamma_n
    m d', never pulling, so the ball leaves the spring before the overlap
    ends and coasts out of the halo."""
    return point_contact(lambda d, dv: -max(4.2e7 * d + SD_GAMMA * m * dv, 0.0) / m
                         if d > 0 else 0.0, v)


def point_contact(acc, v):
    """RK4 on d'' = acc(d, d') from d = 0, d' = v until the overlap d ends:
    restitution and contact time."""
    h, d, dv, t = 1e-7, 0.0, v, 0.0
    while True:
        k1 = (dv, acc(d, dv))
        k2 = (dv + h / 2 * k1[1], acc(d + h / 2 * k1[0], dv + h / 2 * k1[1]))
        k3 = (dv + h / 2 * k2[1], acc(d + h / 2 * k2[0], dv + h / 2 * k2[1]))
        k4 = (dv + h * k3[1], acc(d + h * k3[0], dv + h * k3[1]))
        d += h / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
        dv += h / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
        t += h
        if d <= 0 and t > h:
            return -dv / v, t


def case_restitution(kind, model):
    res = [320, 1280] if QUICK else [320, 1280, 5120, 20480]
    e = 0.5
    out = {}
    for tris in res:
        r, t, s = impact(kind, model, tris, seed=tris)
        m = mass(s)
        meff = m / 2 if kind == "pair" else m
        if model == "spring-dashpot":
            eref, tref = spring_dashpot_reference(meff, 2.0 if kind == "pair" else 1.0)
        elif model == "hooke":
            w0 = math.sqrt(4.2e7 / meff)
            zeta = -math.log(e) / math.sqrt(math.pi ** 2 + math.log(e) ** 2)
            tref, eref = math.pi / (w0 * math.sqrt(1 - zeta ** 2)), e
        else:
            # the relative approach speed: 2 v for a pair; R* = R / 2 there
            rstar = 0.5 if kind == "pair" else 1.0
            eref, tref = hertz_reference(meff, rstar, 2.0 if kind == "pair" else 1.0, e)
        print("# %s %s %5d triangles: restitution %.5f (reference %.5f), contact %.5f s "
              "(reference %.5f)" % (kind, model, tris, r, eref, t, tref))
        if tris == 320:
            # its facets stand 0.018 out of its sphere, more than half its
            # halo of 0.01: it contacts as the polyhedron it is, landing
            # on a corner and turning, so it keeps less than the law's e
            check(0.5 * eref < r <= 1.005 * eref, "a polyhedron: restitution at most the law's")
            continue
        check(abs(r - eref) < 0.005 * eref, "restitution within 0.5 %")
        check(abs(t - tref) < 0.01 * tref, "contact time within 1 %")
        out[tris] = (r, t)
    if 20480 in out:
        (r1, t1), (r2, t2) = out[5120], out[20480]
        check(abs(r1 - r2) < 0.02 * r2 and abs(t1 - t2) < 0.02 * t2,
              "5,120 and 20,480 triangles within 2 %")


def case_hertz_closed_form():
    """Undamped Hertz: contact time 2.868 (m^2 / (R* E*^2 v))^(1/5)."""
    for tris in [1280] if QUICK else [1280, 5120]:
        r, t, s = impact("plane", "hertz", tris, seed=3, e=1.0)
        estar = 5.0e9 / (2 * (1 - 0.09))
        tc = 2.868 * (mass(s) ** 2 / (1.0 * estar ** 2 * 1.0)) ** 0.2
        print("# hertz %d: contact %.5f s, closed form %.5f s, restitution %.6f" % (tris, t, tc, r))
        check(abs(t - tc) < 0.01 * tc, "Hertz contact time within 1 % of the closed form")
        check(abs(r - 1) < 1e-3, "undamped Hertz restitution 1")


# ---- energy

def case_energy():
    """Undamped frictionless collisions conserve kinetic energy: sphere
    pairs at offsets 0 to 0.9 of the diameter, a ball on a plane mesh."""
    # 320 triangles touch as polyhedra (below); their oblique collisions
    # are left out: the patch of two polyhedra (deepest record, mean
    # normal) is not a potential's gradient and gains up to 5 % there
    runs = [(320, 0.0), (320, 0.3)] + [(1280, o) for o in (0.0, 0.3, 0.6, 0.9)]
    if not QUICK:
        runs += [(5120, 0.3), (5120, 0.9)]
    for tris, off in runs:
        # 320 triangles stand 0.018 out of their sphere, more than half
        # the halo: they touch as polyhedra, whose faces lie 0.982 from
        # the centre, so they start that much nearer
        rc = 0.982 if tris == 320 else 1.0
        y = 2 * off * rc
        x = -math.sqrt((2.03 * rc) ** 2 - y * y) - 0.01
        scene = ("shapes:\n" + BALL % tris + "particles:\n"
                 "  - {shape: ball, position: [%g, %g, 0], orientation: %s, velocity: [1, 0, 0], "
                 "epsilon_abs: 0.01, density: 1000}\n"
                 "  - {shape: ball, position: [0, 0, 0], orientation: %s, epsilon_abs: 0.01, "
                 "density: 1000}\n" % (x, y, quat(tris + 7), quat(tris + 8)) +
                 "gravity: [0, 0, 0]\ncontact: %s\n" % law("hooke", 1.0) +
                 "time: {dt: 1.0e-5, steps: 8000, scheme: velocity-verlet}\noutput: {every: 5}\n")
        s = run("energy-%d-%g" % (tris, off), scene, "--hierarchy", "surrogate")
        st = steps_of(s)
        touched = any(x["contacts_active"] for x in st)
        k0, k1 = st[0]["energy_kinetic"], st[-1]["energy_kinetic"]
        e = [x["energy_total"] for x in st]
        jump = max(abs(b - a) for a, b in zip(e, e[1:])) / e[0]
        w = s.frames[-1]["velocity"][1]
        print("# %5d triangles, offset %.1f: kinetic energy after / before %.7f, largest 5 steps "
              "%.2e, ball 2 leaves at [%.3f %.3f]" % (tris, off, k1 / k0, jump, w[0], w[1]))
        check(touched and st[-1]["contacts_active"] == 0, "the balls met and parted")
        # a polyhedra's patch (deepest record, mean normal) is not exactly
        # a potential's gradient: they keep their energy to 1 %
        tol = 0.01 if tris == 320 else 0.005
        check(abs(k1 / k0 - 1) < tol, "kinetic energy within %g %%" % (100 * tol))
        check(jump < 1e-3, "no 5 steps change the energy by 0.1 %")
    for tris in [320, 1280] if QUICK else [320, 1280, 5120]:
        # obliquely onto a 16 x 16 plane mesh whose vertices and edges it crosses
        scene = ("shapes:\n" + BALL % tris +
                 "  floor: {plane: {size: [6, 6], divisions: [16, 16]}}\nparticles:\n"
                 "  - {shape: ball, position: [-0.3, 0.1, 1.03], orientation: %s, "
                 "velocity: [0.7, 0.4, -1], epsilon_abs: 0.01, density: 1000}\n"
                 "  - {shape: floor, position: [0.01, 0.02, 0], fixed: true, epsilon_abs: 0.01}\n"
                 % quat(tris + 9) +
                 "gravity: [0, 0, 0]\ncontact: %s\n" % law("hooke", 1.0) +
                 "time: {dt: 1.0e-5, steps: 6000, scheme: velocity-verlet}\noutput: {every: 5}\n")
        s = run("energy-mesh-%d" % tris, scene, "--hierarchy", "surrogate")
        st = steps_of(s)
        k0, k1 = st[0]["energy_kinetic"], st[-1]["energy_kinetic"]
        e = [x["energy_total"] for x in st]
        jump = max(abs(b - a) for a, b in zip(e, e[1:])) / e[0]
        v = s.frames[-1]["velocity"][0]
        print("# %5d triangles on a plane mesh: kinetic energy after / before %.7f, largest 5 "
              "steps %.2e, leaves at [%.4f %.4f %.4f]" % (tris, k1 / k0, jump, v[0], v[1], v[2]))
        # a polyhedron (320) turns some of its motion into spin
        up, tol = (0.95, 0.01) if tris == 320 else (0.99, 0.005)
        check(any(x["contacts_active"] for x in st) and st[-1]["contacts_active"] == 0 and v[2] > up,
              "the ball bounced off the plane mesh")
        check(abs(k1 / k0 - 1) < tol, "kinetic energy within %g %%" % (100 * tol))
        check(jump < 1e-3, "no 5 steps change the energy by 0.1 %")


# ---- rolling and friction

def incline(shape, theta, mu, tris=1280, steps=20000, dt=2e-5, kn=4.2e7, z=None, q=None,
            every=100, name=None, scheme="velocity-verlet"):
    th = math.radians(theta)
    g = [G * math.sin(th), 0, -G * math.cos(th)]
    shp = BALL % tris if shape == "ball" else "  box: {box: {size: [1, 1, 1]}}\n"
    scene = ("shapes:\n" + shp + "particles:\n"
             "  - {shape: %s, position: [0, 0, %.6f], orientation: %s, epsilon_abs: 0.01, "
             "density: 1000}\n" % (shape, z, q) +
             "planes:\n  - {point: [0, 0, 0], normal: [0, 0, 1]}\n"
             "gravity: [%.12g, 0, %.12g]\n" % (g[0], g[2]) +
             "contact: {model: hooke, stiffness: %g, restitution: 0.5, friction: %g, "
             "plane_epsilon: 0.01}\n" % (kn, mu) +
             "time: {dt: %g, steps: %d, scheme: %s}\noutput: {every: %d}\n"
             % (dt, steps, scheme, every))
    return run(name or "%s-%g-%g" % (shape, theta, mu), scene)


def fit_acceleration(s, skip=0.25):
    fr = s.frames[int(len(s.frames) * skip):]
    t = [f.time for f in fr]
    x = [f["position"][0][0] for f in fr]
    # least squares x = c0 + c1 t + c2 t^2 / 2
    n = len(t)
    tm = sum(t) / n
    u = [ti - tm for ti in t]
    a = [[sum(ui ** (i + j) for ui in u) for j in range(3)] for i in range(3)]
    b = [sum(xi * ui ** i for xi, ui in zip(x, u)) for i in range(3)]
    for i in range(3):
        for r in range(3):
            if r != i:
                f = a[r][i] / a[i][i]
                a[r] = [p - f * q for p, q in zip(a[r], a[i])]
                b[r] -= f * b[i]
    return 2 * b[2] / a[2][2]


# inscribed() of the 1,280-triangle unit icosphere, to place it at rest
INSPHERE_1280 = 0.99547163


def inscribed(sh):
    """The radius of the sphere about the centre of mass that touches the
    mesh's nearest face plane (the patch models' smooth sphere of an
    icosphere, docs/dynamics.md)."""
    best = math.inf
    c = sh.com
    for t in sh.triangles:
        a, b, d = (sh.vertices[i] for i in t)
        e1 = [b[k] - a[k] for k in range(3)]
        e2 = [d[k] - a[k] for k in range(3)]
        n = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
             e1[0] * e2[1] - e1[1] * e2[0]]
        ln = math.sqrt(sum(x * x for x in n))
        best = min(best, sum((a[k] - c[k]) * n[k] for k in range(3)) / ln)
    return best


def case_rolling():
    """A ball rolling down 20 degrees: (5/7) g sin(theta) within 1 %, and the
    rigid-body value of the mesh's own mass and inertia within 0.1 %."""
    th = math.radians(20)
    for tris in [1280] if QUICK else [1280, 5120]:
        rest = 4150 * G * math.cos(th) / 4.2e7  # overlap at rest, about
        s = incline("ball", 20, 0.5, tris, z=1.02 - rest, q=quat(tris), name="roll-%d" % tris)
        a = fit_acceleration(s)
        sh = s.shapes[0]
        # the lever arm: the middle of the overlap, on the sphere the
        # contacts are measured on, which touches the nearest face plane
        r = inscribed(sh) + (0.02 - rest) / 2
        exact = G * math.sin(th) * r * r / (r * r + sh.inertia[0] / sh.volume)
        ideal = 5.0 / 7.0 * G * math.sin(th)
        print("# %d triangles: a = %.5f m/s2, (5/7) g sin = %.5f (%+.2f %%), rigid mesh %.5f "
              "(%+.3f %%)" % (tris, a, ideal, 100 * (a / ideal - 1), exact, 100 * (a / exact - 1)))
        check(abs(a / ideal - 1) < 0.01, "within 1 % of (5/7) g sin(theta)")
        check(abs(a / exact - 1) < 0.001, "within 0.1 % of the rigid-body value of the mesh")


def case_sliding_threshold():
    """A ball rolls without slipping while tan(theta) < 3.5 mu and slips
    beyond: with mu = 0.1 the threshold is 19.29 degrees."""
    mu = 0.1
    limit = math.degrees(math.atan(3.5 * mu))
    for theta, slips in [(limit - 1, False), (limit + 1, True)]:
        rest = 4150 * G * math.cos(math.radians(theta)) / 4.2e7
        s = incline("ball", theta, mu, 1280, z=1.02 - rest, q=quat(5), steps=25000,
                    name="slip-%g" % theta)
        f = s.frames[-1]
        v = f["velocity"][0][0]
        w = f["angular_velocity"][0][1] * (inscribed(s.shapes[0]) + (0.02 - rest) / 2)
        slip = abs(v - w) / abs(v)
        print("# %.2f degrees (threshold %.2f): v = %.4f m/s, w r = %.4f m/s, slip %.4f"
              % (theta, limit, v, w, slip))
        check((slip > 0.05) if slips else (slip < 0.002),
              "%s at %.2f degrees" % ("slips" if slips else "rolls", theta))


def case_rolling_resistance():
    """A ball rolling on flat ground with rolling resistance mu_r slows at
    (5/7) mu_r g (the torque mu_r R* F_n at the limit) and stops."""
    mu_r, v0 = 0.05, 0.5
    rest = 4150 * G / 4.2e7
    r = 1.0 + (0.02 - rest) / 2
    scene = ("shapes:\n" + BALL % 1280 + "particles:\n"
             "  - {shape: ball, position: [0, 0, %.6f], orientation: %s, velocity: [%g, 0, 0], "
             "angular_velocity: [0, %.9g, 0], epsilon_abs: 0.01, density: 1000}\n"
             % (1.02 - rest, quat(11), v0, v0 / r) +
             "planes:\n  - {point: [0, 0, 0], normal: [0, 0, 1]}\ngravity: [0, 0, -9.81]\n"
             "contact: {model: hooke, stiffness: 4.2e7, restitution: 0.5, friction: 0.5, "
             "rolling_friction: %g, plane_epsilon: 0.01}\n" % mu_r +
             "time: {dt: 5.0e-5, steps: 90000, scheme: velocity-verlet}\noutput: {every: 500}\n")
    s = run("rolling-resistance", scene)
    sh = s.shapes[0]
    a_ref = -mu_r * G * r * r / (r * r + sh.inertia[0] / sh.volume)
    moving = [f for f in s.frames if f["velocity"][0][0] > 0.1]
    a = fit_acceleration(_frames_only(s, moving), 0.1)
    end = s.frames[-1]
    print("# rolling resistance %g: a = %.5f m/s2, expected %.5f (%.2f %%); after %g s "
          "v = %.2e m/s, w = %.2e rad/s" % (mu_r, a, a_ref, 100 * (a / a_ref - 1), end.time,
                                            end["velocity"][0][0], end["angular_velocity"][0][1]))
    check(abs(a / a_ref - 1) < 0.02, "decelerates at (5/7) mu_r g within 2 %")
    check(abs(end["velocity"][0][0]) < 1e-3 and abs(end["angular_velocity"][0][1]) < 1e-3,
          "comes to rest")


def case_twisting_resistance():
    """A ball spinning about the vertical on flat ground: with twisting
    resistance mu_t the spin slows at mu_t R* m g / I_z (the torque mu_t R*
    F_n at the limit) and stops, the energy only falling; without it (and
    with rolling resistance, which acts across the normal only) it spins on."""
    mu_t, w0 = 0.1, 0.5
    rest = 4150 * G / 4.2e7

    def spin(name, twisting):
        scene = ("shapes:\n" + BALL % 1280 + "particles:\n"
                 "  - {shape: ball, position: [0, 0, %.6f], orientation: %s, "
                 "angular_velocity: [0, 0, %g], epsilon_abs: 0.01, density: 1000}\n"
                 % (INSPHERE_1280 + 0.02 - rest, quat(12), w0) +
                 "planes:\n  - {point: [0, 0, 0], normal: [0, 0, 1]}\ngravity: [0, 0, -9.81]\n"
                 "contact: {model: hooke, stiffness: 4.2e7, restitution: 0.5, friction: 0.5, "
                 "rolling_friction: 0.05%s, plane_epsilon: 0.01}\n" % twisting +
                 "time: {dt: 5.0e-5, steps: 20000, scheme: velocity-verlet}\n"
                 "output: {every: 200}\n")
        return run(name, scene)

    s = spin("twisting-resistance", ", twisting_friction: %g" % mu_t)
    sh = s.shapes[0]
    # R*: the radius of the sphere its contacts are measured on
    alpha_ref = -mu_t * inscribed(sh) * G * sh.volume / sh.inertia[2]
    fr = [f for f in s.frames if f["angular_velocity"][0][2] > 0.1 * w0 and f.time > 0.02]
    t = [f.time for f in fr]
    w = [f["angular_velocity"][0][2] for f in fr]
    tm, wm = sum(t) / len(t), sum(w) / len(w)
    alpha = (sum((a - tm) * (b - wm) for a, b in zip(t, w)) /
             sum((a - tm) ** 2 for a in t))
    end = s.frames[-1]
    e = [x["energy_total"] for x in steps_of(s)]
    rise = max(b - a for a, b in zip(e, e[1:]))
    erot0 = 0.5 * 1000 * sh.inertia[2] * w0 * w0
    print("# twisting resistance %g: spin slows at %.5f rad/s2, expected %.5f (%.2f %%); "
          "after %g s w_z = %.2e rad/s; largest rise of the total energy between frames %.2e J "
          "(spin energy %.3g J)" % (mu_t, alpha, alpha_ref, 100 * (alpha / alpha_ref - 1),
                                    end.time, end["angular_velocity"][0][2], rise, erot0))
    check(abs(alpha / alpha_ref - 1) < 0.02, "spin slows at mu_t R* m g / I_z within 2 %")
    check(abs(end["angular_velocity"][0][2]) < 1e-3, "the spin stops")
    check(e[-1] < e[0] - 0.9 * erot0 and rise < 1e-3 * erot0,
          "the spin's energy is dissipated, never created")
    s = spin("no-twisting-resistance", "")
    wz = s.frames[-1]["angular_velocity"][0][2]
    print("# without twisting resistance: w_z = %.6f rad/s after %g s" % (wz, s.frames[-1].time))
    check(abs(wz / w0 - 1) < 0.01, "without it the ball spins on")


def _frames_only(s, frames):
    t = mrdem.Stream()
    t.frames = frames
    return t


def case_box_sticks(scheme="velocity-verlet"):
    """A box on 15 degrees with mu 0.5 (friction angle 26.6) moves less
    than 1 mm in 10 s; on 35 it slides at g (sin - mu cos). Implicit
    Euler carries the springs at ten times the explicit time step."""
    dt = 1e-3 if scheme == "implicit-euler" else 1e-4
    s = incline("box", 15, 0.5, kn=1e8, dt=dt, steps=int(round(10 / dt)), every=int(0.5 / dt),
                z=0.5 + 0.02 - 1000 * G * math.cos(math.radians(15)) / 1e8, q=[1, 0, 0, 0],
                scheme=scheme, name="box-15-" + scheme)
    p0, p1 = s.frames[0]["position"][0], s.frames[-1]["position"][0]
    d = math.dist(p0, p1)
    print("# box on 15 degrees, mu 0.5: moved %.3g m in %g s, speed at the end %.2g m/s"
          % (d, s.frames[-1].time, math.hypot(*s.frames[-1]["velocity"][0])))
    check(s.frames[-1].time > 9.999 and d < 1e-3, "moves less than 1 mm in 10 s")
    s = incline("box", 35, 0.5, kn=1e8, dt=dt, steps=int(round(1 / dt)), every=int(0.1 / dt),
                z=0.5 + 0.02 - 1000 * G * math.cos(math.radians(35)) / 1e8, q=[1, 0, 0, 0],
                scheme=scheme, name="box-35-" + scheme)
    a = fit_acceleration(s, 0.5)
    th = math.radians(35)
    ref = G * (math.sin(th) - 0.5 * math.cos(th))
    print("# box on 35 degrees: a = %.4f m/s2, g (sin - mu cos) = %.4f" % (a, ref))
    check(abs(a / ref - 1) < 0.01, "slides at g (sin - mu cos) beyond the friction angle")


def case_box_rests_flat():
    """A box dropped 10 degrees tilted onto a plane comes to rest flat."""
    tilt = math.radians(10)
    q = [math.cos(tilt / 2), 0, math.sin(tilt / 2), 0]
    z = 0.5 * (math.cos(tilt) + math.sin(tilt)) + 0.05
    scene = ("shapes:\n  box: {box: {size: [1, 1, 1]}}\nparticles:\n"
             "  - {shape: box, position: [0, 0, %g], orientation: %s, epsilon_abs: 0.01, "
             "density: 1000}\n" % (z, q) +
             "planes:\n  - {point: [0, 0, 0], normal: [0, 0, 1]}\ngravity: [0, 0, -9.81]\n"
             "contact: {model: hooke, stiffness: 1.0e8, restitution: 0.3, friction: 0.5, "
             "plane_epsilon: 0.01}\n"
             "time: {dt: 1.0e-4, steps: 30000, scheme: velocity-verlet}\noutput: {every: 1000}\n")
    s = run("box-flat", scene)
    f = s.frames[-1]
    qw, qx, qy, qz = f["orientation"][0]
    angle = 2 * math.acos(min(1.0, abs(qw)))
    ke = 0.5 * 1000 * sum(v * v for v in f["velocity"][0])
    print("# after %g s: tilt %.2e rad, speed %.2e m/s, height %.5f m"
          % (f.time, angle, math.sqrt(2 * ke / 1000), f["position"][0][2]))
    check(angle < 1e-3, "rests flat (tilt below 1 mrad)")
    check(ke < 1e-9 * 1000 * G * 0.05, "at rest")


# ---- the peer code

LIGGGHTS_IN = """units si
hard_particles yes
atom_style granular
atom_modify map array
boundary f f f
newton off
communicate single vel yes
region box block -3 3 -3 3 -3 4 units box
create_box 1 box
neighbor 0.1 bin
neigh_modify delay 0
fix m1 all property/global youngsModulus peratomtype 5.0e9
fix m2 all property/global poissonsRatio peratomtype 0.3
fix m3 all property/global coefficientRestitution peratomtypepair 1 %(e)g
fix m4 all property/global coefficientFriction peratomtypepair 1 0.0
pair_style gran model hertz tangential history
pair_coeff * *
timestep 1e-6
%(body)s
fix integrate all nve/sphere
variable gap equal "%(gap)s"
variable vz equal vz[1]
thermo_style custom step v_gap v_vz
thermo_modify format float %%.10g
thermo 5
run 20000
"""


def liggghts_impact(kind, e=0.5):
    """LIGGGHTS 3.8's Hertz model (the same E, nu, restitution, mass and
    radius as impact()): restitution and contact time of a ball on a wall
    or of two balls, from its thermo output every 5 steps of 1e-6 s, the
    contact's ends interpolated where the gap crosses zero."""
    atom = "create_atoms 1 single 0 0 %g units box\n"
    if kind == "plane":
        body = ("fix floor all wall/gran model hertz tangential history primitive type 1 "
                "zplane 0.0\n" + atom % 1.001 + "set atom 1 diameter 2.0 density 1000 vz -1")
        gap = "z[1] - 1.0"
    else:
        body = (atom % 1.001 + atom % -1.001 + "set atom 1 diameter 2.0 density 1000 vz -1\n"
                "set atom 2 diameter 2.0 density 1000 vz 1")
        gap = "z[1] - z[2] - 2.0"
    with open("liggghts-%s.in" % kind, "w") as f:
        f.write(LIGGGHTS_IN % {"e": e, "body": body, "gap": gap})
    p = subprocess.run(["liggghts", "-in", "liggghts-%s.in" % kind, "-log", "none"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode:
        sys.exit("# liggghts failed:\n" + p.stdout[-2000:])
    rows = [tuple(map(float, m.groups())) for m in
            re.finditer(r"^\s*(\d+)\s+(\S+)\s+(\S+)\s*$", p.stdout, re.M)]
    cross = [r0[0] + (r1[0] - r0[0]) * r0[1] / (r0[1] - r1[1])
             for r0, r1 in zip(rows, rows[1:]) if (r0[1] > 0) != (r1[1] > 0)]
    check(len(cross) == 2, "LIGGGHTS: one contact, begun and ended (gap crossed zero %d times)"
          % len(cross))
    return rows[-1][2] / 1.0, (cross[1] - cross[0]) * 1e-6


def case_liggghts(kind):
    """mrdem's hertz against LIGGGHTS's at 5,120 triangles (1,280 under
    ASan): restitution and contact time within 3 %. A plane mesh is
    compared with LIGGGHTS's plane wall."""
    rl, tl = liggghts_impact("pair" if kind == "pair" else "plane")
    tris = 1280 if QUICK else 5120
    r, t, s = impact(kind, "hertz", tris, seed=11)
    print("# %s, %d triangles: restitution %.5f (LIGGGHTS %.5f), contact %.5f s (LIGGGHTS "
          "%.5f s)" % (kind, tris, r, rl, t, tl))
    check(abs(r - rl) < 0.03 * rl, "restitution within 3 % of LIGGGHTS")
    check(abs(t - tl) < 0.03 * tl, "contact time within 3 % of LIGGGHTS")


CASES = {
    "restitution": lambda kind, model: case_restitution(kind, model),
    "hertz-closed-form": case_hertz_closed_form,
    "energy": case_energy,
    "rolling": case_rolling,
    "sliding-threshold": case_sliding_threshold,
    "rolling-resistance": case_rolling_resistance,
    "twisting-resistance": case_twisting_resistance,
    "box-sticks": lambda *scheme: case_box_sticks(*scheme),
    "box-rests-flat": case_box_rests_flat,
    "liggghts": case_liggghts,
}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in CASES:
        sys.exit("usage: mechanics.py %s" % "|".join(CASES))
    CASES[sys.argv[1]](*sys.argv[2:])
