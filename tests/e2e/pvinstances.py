"""Run under ParaView's pvpython: ParaView's own XML reader loads an
instances frame (the instance count) and, with VTK's own quaternion to
matrix conversion, moves one vertex of the shape file by one particle's
orientation and position onto the vertex --surfaces wrote for it; then the
shipped docs/paraview/mrdem_glyphs.py sets up the 3D Glyphs representation.

usage: pvpython pvinstances.py INSTDIR SURFDIR NPARTICLES GLYPHS.py
"""
import importlib.util, sys

from vtkmodules.vtkCommonCore import vtkMath
from vtkmodules.vtkIOXML import vtkXMLPolyDataReader


def fail(msg):
    print("pvinstances: " + msg)
    sys.exit(1)


def read(path):
    r = vtkXMLPolyDataReader()
    r.SetFileName(path)
    r.Update()
    if r.GetErrorCode() != 0:
        fail("%s: reader error %d" % (path, r.GetErrorCode()))
    return r.GetOutput()


inst_dir, surf_dir, n, glyphs = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
inst = read(inst_dir + "/frame-000000.vtp")
if inst.GetNumberOfPoints() != n:
    fail("%d instances, want %d" % (inst.GetNumberOfPoints(), n))
pd = inst.GetPointData()
i = n - 1  # the last particle: every earlier one's vertices come before it
shape = int(pd.GetArray("shape").GetTuple1(i))
q = list(pd.GetArray("orientation").GetTuple4(i))
pos = inst.GetPoint(i)
m = [[0.0] * 3 for _ in range(3)]
vtkMath.QuaternionToMatrix3x3(q, m)
sh = read("%s/shape-%03d.vtp" % (inst_dir, shape))
v = sh.GetPoint(0)
got = [sum(m[r][c] * v[c] for c in range(3)) + pos[r] for r in range(3)]
surf = read(surf_dir + "/frame-000000.vtp")
want = surf.GetPoint(surf.GetNumberOfPoints() - sh.GetNumberOfPoints())
if any(abs(a - b) > 1e-5 * max(1.0, abs(b)) for a, b in zip(got, want)):
    fail("vertex 0 of particle %d: %s from the instance, %s from --surfaces" % (i, got, want))
spec = importlib.util.spec_from_file_location("mrdem_glyphs", glyphs)
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
_, _, disp = mod.setup(inst_dir, render=False)
if disp.OrientationMode != "Quaternion" or list(disp.SelectOrientationVectors)[-1] != "orientation":
    fail("3D Glyphs representation not set up: %s %s" % (disp.OrientationMode, disp.SelectOrientationVectors))
print("pvinstances: %d instances, vertex %s agrees" % (n, got))
