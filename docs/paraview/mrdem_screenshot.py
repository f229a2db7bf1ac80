"""Render one frame of mrdem-vtk instances to a PNG, without a window: the
particles as oriented glyphs of their shapes (mrdem_glyphs.py), opaque and
coloured by speed, the analytic planes (DIR/planes.vtp) seen from their free
side only, so that a box of planes shows its far walls and floor behind the
particles, and the frame's contact forces as arrows at the contact points
(none for a frame without contacts). The camera frames the particles.

usage: xvfb-run -a pvpython docs/paraview/mrdem_screenshot.py DIR OUT.png [FRAME] [--opacity A]
       FRAME: index of the frame, default the last; A: the particles'
       opacity, default 1 (0.5 shows the contact arrows inside the halos)

docs/output.md shows its picture of examples/rocks.yaml and the command.
"""
import argparse
import math
import os
import sys

from paraview.simple import (ColorBy, Glyph, GetAnimationScene, GetActiveViewOrCreate, Render,
                             SaveScreenshot, Show, XMLPolyDataReader)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mrdem_glyphs  # noqa: E402  (next to this script)

SIZE = [900, 560]
LOOK_FROM = [1.0, -3.0, 0.8]  # direction from the particles to the camera


def options():
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument("dir")
    ap.add_argument("png")
    ap.add_argument("frame", nargs="?", type=int)
    ap.add_argument("--opacity", type=float, default=1.0)
    a = ap.parse_args()
    if not 0 < a.opacity <= 1:
        ap.error("--opacity %g: give a value in (0, 1]" % a.opacity)
    return a


def show_planes(d, view):
    """The planes as mrdem-vtk clipped them, culled where seen from behind."""
    path = os.path.join(d, "planes.vtp")
    if not os.path.exists(path):
        return
    planes = XMLPolyDataReader(FileName=[path])
    pd = Show(planes, view)
    ColorBy(pd, None)
    pd.DiffuseColor = pd.AmbientColor = [0.82, 0.82, 0.78]
    pd.BackfaceRepresentation = "Cull Backface"


def show_forces(d, k, t, view, size):
    """Arrows of the contacts' forces; nothing when the frame has none."""
    path = os.path.join(d, "contacts-%06d.vtp" % k)
    if not os.path.exists(path):
        return 0
    c = XMLPolyDataReader(FileName=[path])
    c.UpdatePipeline(t)
    force = c.PointData["force"]
    if c.GetDataInformation().GetNumberOfPoints() == 0 or force is None:
        return 0
    fmax = force.GetRange(-1)[1]
    arrows = Glyph(Input=c, GlyphType="Arrow")
    arrows.OrientationArray = ["POINTS", "force"]
    arrows.ScaleArray = ["POINTS", "force"]
    # the largest force as an arrow of a quarter of the particles' extent
    arrows.ScaleFactor = 0.25 * size / fmax if fmax > 0 else 1.0
    ad = Show(arrows, view)
    ColorBy(ad, None)
    ad.DiffuseColor = ad.AmbientColor = [1.0, 0.85, 0.1]
    return c.GetDataInformation().GetNumberOfPoints()


def particle_box(particles, glyph):
    """The frame's centres grown by the largest shape's reach from its
    centre of mass: the space the particles fill."""
    b = particles.GetDataInformation().GetBounds()
    g = glyph.GetDataInformation().GetBounds()
    reach = max(abs(x) for x in g)
    return [b[i] - reach if i % 2 == 0 else b[i] + reach for i in range(6)]


def frame_camera(view, box):
    """Look at the box's centre along LOOK_FROM from the nearest point at
    which all its corners lie in the picture (with a 5 % margin)."""
    c = [0.5 * (box[2 * a] + box[2 * a + 1]) for a in range(3)]
    n = math.sqrt(sum(x * x for x in LOOK_FROM))
    back = [x / n for x in LOOK_FROM]                  # from the centre to the camera
    right = [back[1], -back[0], 0.0]                   # back x up, up = z
    n = math.sqrt(sum(x * x for x in right))
    right = [x / n for x in right]
    up = [right[1] * back[2] - right[2] * back[1], right[2] * back[0] - right[0] * back[2],
          right[0] * back[1] - right[1] * back[0]]
    ty = math.tan(math.radians(view.CameraViewAngle) / 2)  # the angle is the vertical one
    tx = ty * SIZE[0] / SIZE[1]
    dist = 0.0
    for k in range(8):
        q = [box[2 * a + (k >> a & 1)] - c[a] for a in range(3)]
        x, y, z = (sum(q[a] * e[a] for a in range(3)) for e in (right, up, back))
        dist = max(dist, z + abs(x) / (0.95 * tx), z + abs(y) / (0.95 * ty))
    dist = max(dist, 1e-9)
    view.CameraFocalPoint = c
    view.CameraPosition = [c[a] + dist * back[a] for a in range(3)]
    view.CameraViewUp = up
    view.CenterOfRotation = c


def main():
    a = options()
    particles, glyph, disp = mrdem_glyphs.setup(a.dir, render=False)
    times = particles.TimestepValues
    times = list(times) if hasattr(times, "__len__") else [times]
    k = len(times) - 1 if a.frame is None else a.frame
    if not 0 <= k < len(times):
        raise SystemExit("%s: frame %d: the series has frames 0 to %d" % (a.dir, k, len(times) - 1))
    scene = GetAnimationScene()
    scene.UpdateAnimationUsingDataTimeSteps()
    scene.AnimationTime = times[k]
    particles.UpdatePipeline(times[k])
    view = GetActiveViewOrCreate("RenderView")
    view.ViewSize = SIZE
    view.OrientationAxesVisibility = 0
    box = particle_box(particles, glyph)
    show_planes(a.dir, view)
    ncontacts = show_forces(a.dir, k, times[k], view, max(box[1] - box[0], box[3] - box[2], box[5] - box[4]))
    disp.RescaleTransferFunctionToDataRange(False, True)
    disp.Opacity = a.opacity
    Render(view)  # the first render resets the camera: place it after
    frame_camera(view, box)
    Render(view)
    SaveScreenshot(a.png, view, ImageResolution=SIZE)
    print("%s: frame %d (t = %g s), %d contact points" % (a.png, k, times[k], ncontacts))


main()
