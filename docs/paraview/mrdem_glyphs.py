"""Show mrdem-vtk instances in ParaView as oriented copies of their shapes.

usage: pvpython docs/paraview/mrdem_glyphs.py [DIR]    (default: $MRDEM_VTK_DIR,
       or in the GUI: View > Python Shell > Run Script  else "vtk")

Opens DIR/particles.pvd (one point per particle) and the shape files
DIR/shape-NNN.vtp, and shows the particles with the 3D Glyphs representation:
the glyph is the shape (its vertices are relative to the centre of mass, the
point a particle's position gives), rotated by the particle's "orientation"
quaternion (w x y z) and not scaled. With several shapes the shape files are
grouped into one multiblock dataset and the point array "shape" picks the
block (the glyph table). Needs a ParaView whose 3D Glyphs representation
offers Orientation Mode "Quaternion"; docs/output.md gives the same steps by
hand.
"""
import glob
import os
import sys

from paraview.simple import (ColorBy, GetActiveViewOrCreate, GroupDatasets, PVDReader, Render,
                             Show, XMLPolyDataReader)


def setup(d, render=True):
    files = sorted(glob.glob(os.path.join(d, "shape-*.vtp")))
    if not files:
        raise SystemExit("%s: no shape-NNN.vtp (written by mrdem-vtk without --surfaces)" % d)
    particles = PVDReader(FileName=os.path.join(d, "particles.pvd"))
    shapes = [XMLPolyDataReader(FileName=[f]) for f in files]
    # Shape k is block k of the group: the order of the shape files.
    glyph = shapes[0] if len(shapes) == 1 else GroupDatasets(Input=shapes)
    view = GetActiveViewOrCreate("RenderView")
    disp = Show(particles, view)
    disp.SetRepresentationType("3D Glyphs")
    disp.GlyphType = "Pipeline Connection"
    disp.GlyphType.Input = glyph
    disp.Orient = 1
    disp.OrientationMode = "Quaternion"
    disp.SelectOrientationVectors = "orientation"
    disp.Scaling = 0
    if len(shapes) > 1:
        disp.UseGlyphTable = 1
        disp.UseCompositeGlyphTable = 1
        disp.GlyphTableIndexArray = "shape"
    ColorBy(disp, ("POINTS", "velocity", "Magnitude"))
    if render:
        view.ResetCamera()
        Render(view)
    return particles, glyph, disp


# Run as a script, a macro or from the Python shell; imported under its own
# name (as tests/e2e/pvinstances.py does) it only defines setup().
if __name__ != "mrdem_glyphs":
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    setup(args[0] if args else os.environ.get("MRDEM_VTK_DIR", "vtk"),
          render=not os.environ.get("MRDEM_GLYPHS_NO_RENDER"))
