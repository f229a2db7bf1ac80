#!/usr/bin/env python3
"""Check the forces mrdem-vtk --double wrote for a run against the contact
law recomputed here from the stream (python/mrdem) and against the motion:

- every contact's `force` (contacts-NNNNNN.vtp) is the paper's spring force
  with regularised Coulomb friction of docs/dynamics.md (the one law per
  contact record; the patch models put a patch's force on its deepest
  record, which mechanics.sh checks by the motion), recomputed from
  the frame's positions, velocities, masses (density times the volume of
  the shape, by the divergence theorem) and the contact's point, normal
  and depth;
- every particle's `force` and `torque` (frame-NNNNNN.vtp) are gravity
  plus the sum of its contacts' forces and their moments about its centre
  of mass;
- with symplectic Euler, v(n+1) = v(n) + dt force(n) / m: the force written
  for a frame is the one the step from it applied.

usage: vtkforces.py RUN.mrd VTKDIR   (prints the number of contacts checked)
"""
import math, os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mrdem
import vtkcheck

PLANE_ID_MIN = 2 ** 64 - 2 ** 32


def sub(a, b): return [x - y for x, y in zip(a, b)]
def add(a, b): return [x + y for x, y in zip(a, b)]
def scale(a, s): return [x * s for x in a]
def dot(a, b): return sum(x * y for x, y in zip(a, b))
def cross(a, b): return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def volume(shape):
    """Closed mesh volume by the divergence theorem."""
    v = [list(map(float, p)) for p in shape.vertices]
    return sum(dot(v[int(t[0])], cross(v[int(t[1])], v[int(t[2])])) for t in shape.triangles) / 6


def near(got, want, tol, what):
    if any(abs(g - w) > tol for g, w in zip(got, want)):
        vtkcheck.fail("%s: %r, want %r" % (what, list(got), list(want)))


def contact_force(set_, c, k, ia, ib, fr, inv_mass):
    """Force on a of contact k: docs/dynamics.md, the paper's spring."""
    x, n = list(c.x[k]), list(c.normal[k])
    n = scale(n, 1 / math.sqrt(dot(n, n)))
    inv_a = inv_mass[ia]
    inv_b = 0.0 if ib is None else inv_mass[ib]
    depth = float(c.depth[k])
    if inv_a + inv_b == 0 or not depth > 0:
        return [0.0] * 3
    m_eff = 1 / (inv_a + inv_b)

    def point_velocity(i):
        if i is None:
            return [0.0] * 3
        return add(list(fr["velocity"][i]), cross(list(fr["angular_velocity"][i]),
                                                  sub(x, list(fr["position"][i]))))
    u = sub(point_velocity(ia), point_velocity(ib))
    un = dot(u, n)
    epssum = depth + float(c.dist[k])
    kn = set_["stiffness"] * math.sqrt(m_eff) / epssum
    fn = kn * min(depth, epssum)
    F = scale(n, fn)
    ut = sub(u, scale(n, un))
    utn = math.sqrt(dot(ut, ut))
    if set_["friction"] > 0 and fn > 0 and utn > 0:
        ft = min(set_["friction"] * fn, 2 * math.sqrt(kn * m_eff) * utn)
        F = sub(F, scale(ut, ft / utn))
    return F


def main():
    run, d = sys.argv[1], sys.argv[2]
    s = mrdem.read(run)
    set_ = s.setup
    if set_["force_model"] != "paper" or set_["scheme"] != "symplectic-euler":
        vtkcheck.fail("%s: this check wants a run of the paper's spring with symplectic Euler" % run)
    vol = {sh.id: volume(sh) for sh in s.shapes}
    contacts = {c.step: c for c in s.contacts}
    checked, frames = 0, s.frames
    for fi, fr in enumerate(frames):
        ids = [int(i) for i in fr["id"]]
        index = {pid: i for i, pid in enumerate(ids)}
        mass = [0.0 if int(fr["flags"][i]) & 1 else float(fr["density"][i]) * vol[int(fr["shape"][i])]
                for i in range(fr.n)]
        inv_mass = [1 / m if m > 0 else 0.0 for m in mass]
        c = contacts.get(fr.step)
        inst = vtkcheck.read_vtp(os.path.join(d, "frame-%06d.vtp" % fi))
        if c is None:
            if "PointData/force" in inst["arrays"]:
                vtkcheck.fail("frame %d: forces without contacts" % fi)
            continue
        cv = vtkcheck.read_vtp(os.path.join(d, "contacts-%06d.vtp" % fi))
        fc = vtkcheck.values(cv, "PointData/force", 3, c.n)
        fp = vtkcheck.values(inst, "PointData/force", 3, fr.n)
        tp = vtkcheck.values(inst, "PointData/torque", 3, fr.n)
        force = [scale(list(set_["gravity"]), m) for m in mass]
        torque = [[0.0] * 3 for _ in mass]
        for k in range(c.n):
            a, b = int(c.a[k]), int(c.b[k])
            ia, ib = index[a], None if b >= PLANE_ID_MIN else index[b]
            F = contact_force(set_, c, k, ia, ib, fr, inv_mass)
            scale_f = 2000.0  # N, about the largest contact force of vtk.sh's scene
            near(fc[3 * k:3 * k + 3], F, 1e-9 * scale_f, "frame %d contact %d force" % (fi, k))
            x = list(c.x[k])
            force[ia] = add(force[ia], F)
            torque[ia] = add(torque[ia], cross(sub(x, list(fr["position"][ia])), F))
            if ib is not None:
                force[ib] = sub(force[ib], F)
                torque[ib] = sub(torque[ib], cross(sub(x, list(fr["position"][ib])), F))
            checked += 1
        for i in range(fr.n):
            near(fp[3 * i:3 * i + 3], force[i], 1e-7 * scale_f, "frame %d particle %d force" % (fi, ids[i]))
            near(tp[3 * i:3 * i + 3], torque[i], 1e-7 * scale_f, "frame %d particle %d torque" % (fi, ids[i]))
            # symplectic Euler: the next frame's velocity took this force
            if fi + 1 < len(frames) and frames[fi + 1].step == fr.step + 1 and mass[i] > 0:
                nxt = frames[fi + 1]
                j = [int(q) for q in nxt["id"]].index(ids[i])
                dv = sub(list(nxt["velocity"][j]), list(fr["velocity"][i]))
                near(scale(dv, mass[i] / set_["dt"]), fp[3 * i:3 * i + 3],
                     1e-6 * (1 + math.sqrt(dot(force[i], force[i]))),
                     "frame %d particle %d: m dv/dt against force" % (fi, ids[i]))
    print(checked)


if __name__ == "__main__":
    main()
