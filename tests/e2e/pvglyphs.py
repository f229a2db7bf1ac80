"""Run under ParaView's pvpython with a display (xvfb-run): ParaView draws
the instances with the 3D Glyphs representation that
docs/paraview/mrdem_glyphs.py sets up, and the --surfaces output of the same
frame, with one camera, as flat white silhouettes on black; the two
pictures must agree (up to antialiased edges). Drawn without orientation
(Orient off) they must differ in 2 % of the pixels: the test sees the
quaternions.

usage: pvpython pvglyphs.py INSTDIR SURFDIR GLYPHS.py
"""
import importlib.util, sys

from paraview.simple import (ColorBy, GetActiveViewOrCreate, Hide, Render, Show,
                             XMLPolyDataReader)
from vtkmodules.vtkRenderingCore import vtkWindowToImageFilter

SIZE = 320


def fail(msg):
    print("pvglyphs: " + msg)
    sys.exit(1)


def silhouette(disp):
    """Flat white on black: lighting off, so only coverage counts."""
    ColorBy(disp, None)
    disp.AmbientColor = disp.DiffuseColor = [1, 1, 1]
    disp.Ambient, disp.Diffuse, disp.Specular = 1.0, 0.0, 0.0


def picture(view):
    Render(view)
    w2i = vtkWindowToImageFilter()
    w2i.SetInput(view.GetRenderWindow())
    w2i.ReadFrontBufferOff()
    w2i.Update()
    img = w2i.GetOutput()
    sc = img.GetPointData().GetScalars()
    return [sc.GetComponent(k, 0) > 127 for k in range(sc.GetNumberOfTuples())]


def differ(a, b):
    return sum(x != y for x, y in zip(a, b))


inst_dir, surf_dir, glyphs = sys.argv[1], sys.argv[2], sys.argv[3]
view = GetActiveViewOrCreate("RenderView")
view.ViewSize = [SIZE, SIZE]
view.OrientationAxesVisibility = 0
view.Background = [0, 0, 0]
if hasattr(view, "UseColorPaletteForBackground"):
    view.UseColorPaletteForBackground = 0
view.EnableRenderOnInteraction = 0

surf = XMLPolyDataReader(FileName=[surf_dir + "/frame-000000.vtp"])
sd = Show(surf, view)
silhouette(sd)
# from the side: the floor of randscene.py's scenes is an edge, not a cover
view.CameraPosition, view.CameraFocalPoint, view.CameraViewUp = [0, -1, 0.3], [0, 0, 0], [0, 0, 1]
view.ResetCamera()
view.CameraParallelProjection = 1
want = picture(view)
Hide(surf, view)

spec = importlib.util.spec_from_file_location("mrdem_glyphs", glyphs)
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
_, _, disp = mod.setup(inst_dir, render=False)
silhouette(disp)
got = picture(view)
covered = sum(want)
if covered < 0.02 * SIZE * SIZE:
    fail("the surfaces cover only %d pixels" % covered)
d = differ(got, want)
disp.Orient = 0
unrotated = differ(picture(view), want)
print("pvglyphs: %d pixels covered, %d differ with glyphs, %d without orientation" %
      (covered, d, unrotated))
if d > 0.002 * covered:
    fail("the glyphs differ from the surfaces in %d of %d pixels" % (d, covered))
if unrotated < 0.02 * covered:
    fail("unrotated glyphs differ in only %d pixels: the picture does not see orientation"
         % unrotated)
