"""Render one frame of mrdem-vtk instances to a PNG, without a window: the
particles as oriented glyphs of their shapes (mrdem_glyphs.py) and the
frame's contact forces as arrows at the contact points.

usage: pvpython --force-offscreen-rendering docs/paraview/mrdem_screenshot.py DIR OUT.png [FRAME]
       (or: xvfb-run pvpython ...; FRAME: index of the frame, default the last)

docs/output.md shows its picture of examples/rocks.yaml and the command.
"""
import os
import sys

from paraview.simple import (ColorBy, Glyph, GetAnimationScene, GetActiveViewOrCreate, Render,
                             SaveScreenshot, Show, XMLPolyDataReader)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mrdem_glyphs  # noqa: E402  (next to this script)


def main():
    if len(sys.argv) not in (3, 4):
        raise SystemExit(__doc__)
    d, png = sys.argv[1], sys.argv[2]
    particles, _, disp = mrdem_glyphs.setup(d, render=False)
    times = particles.TimestepValues
    times = list(times) if hasattr(times, "__len__") else [times]
    k = int(sys.argv[3]) if len(sys.argv) == 4 else len(times) - 1
    scene = GetAnimationScene()
    scene.UpdateAnimationUsingDataTimeSteps()
    scene.AnimationTime = times[k]
    view = GetActiveViewOrCreate("RenderView")
    view.ViewSize = [900, 560]
    view.OrientationAxesVisibility = 0
    contacts = os.path.join(d, "contacts-%06d.vtp" % k)
    if os.path.exists(contacts):
        c = XMLPolyDataReader(FileName=[contacts])
        arrows = Glyph(Input=c, GlyphType="Arrow")
        arrows.OrientationArray = ["POINTS", "force"]
        arrows.ScaleArray = ["POINTS", "force"]
        # the largest force as an arrow of a quarter of the scene's size
        c.UpdatePipeline(times[k])
        fmax = c.PointData["force"].GetRange(-1)[1]
        b = particles.GetDataInformation().GetBounds()
        size = max(b[1] - b[0], b[3] - b[2], b[5] - b[4])
        arrows.ScaleFactor = 0.25 * size / fmax if fmax > 0 else 1.0
        ad = Show(arrows, view)
        ColorBy(ad, None)
        ad.DiffuseColor = [1.0, 0.85, 0.1]
        ad.AmbientColor = [1.0, 0.85, 0.1]
    view.CameraPosition = [1, -3, 0.8]
    view.CameraFocalPoint = [0, 0, 0]
    view.CameraViewUp = [0, 0, 1]
    view.ResetCamera()
    disp.RescaleTransferFunctionToDataRange(False, True)
    disp.Opacity = 0.5  # the contact points lie inside the halos
    Render(view)
    SaveScreenshot(png, view, ImageResolution=[900, 560])
    print("%s: frame %d (t = %g s)" % (png, k, times[k]))


main()
