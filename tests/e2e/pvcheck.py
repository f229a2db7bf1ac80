"""Run under ParaView's pvpython (or pvbatch): load mrdem-vtk output with
ParaView's own readers and check it holds what vtkcheck.py parses from the
XML independently.

usage: pvpython pvcheck.py DIR NFRAMES NCONTACTFILES
"""
import os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vtkcheck  # noqa: E402
from paraview import servermanager as sm  # noqa: E402
from paraview.simple import PVDReader  # noqa: E402
from vtkmodules.vtkIOXML import vtkXMLPolyDataReader  # noqa: E402


def fail(msg):
    print("pvcheck: " + msg)
    sys.exit(1)


def vtk_values(arr):
    n, c = arr.GetNumberOfTuples(), arr.GetNumberOfComponents()
    return [arr.GetComponent(i, k) for i in range(n) for k in range(c)]


def check_file(path):
    r = vtkXMLPolyDataReader()
    r.SetFileName(path)
    r.Update()
    if r.GetErrorCode() != 0:
        fail("%s: reader error %d" % (path, r.GetErrorCode()))
    pd = r.GetOutput()
    mine = vtkcheck.read_vtp(path)
    if pd.GetNumberOfPoints() != mine["npoints"]:
        fail("%s: ParaView reads %d points, the XML says %d" % (path, pd.GetNumberOfPoints(), mine["npoints"]))
    if pd.GetNumberOfPolys() != mine["npolys"] or pd.GetNumberOfVerts() != mine["nverts"]:
        fail("%s: cell counts differ" % path)
    sources = {"PointData": pd.GetPointData(), "CellData": pd.GetCellData(), "FieldData": pd.GetFieldData()}
    for key, (el, want) in mine["arrays"].items():
        section, name = key.split("/")
        if section == "Points":
            got = vtk_values(pd.GetPoints().GetData())
        elif section in ("Polys", "Verts"):
            cells = pd.GetPolys() if section == "Polys" else pd.GetVerts()
            got = vtk_values(cells.GetConnectivityArray() if name == "connectivity" else cells.GetOffsetsArray())
            if name == "offsets":
                got = got[1:]  # VTK keeps the leading 0
        else:
            arr = sources[section].GetAbstractArray(name)
            if arr is None:
                fail("%s: ParaView finds no array %s" % (path, key))
            got = vtk_values(arr)
        if [float(x) for x in got] != [float(x) for x in want]:
            fail("%s: %s read by ParaView differs from the XML" % (path, key))


def main():
    d, nframes, ncontacts = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    files = sorted(f for f in os.listdir(d) if f.endswith(".vtp"))
    if len([f for f in files if f.startswith("frame-")]) != nframes or \
            len([f for f in files if f.startswith("contacts-")]) != ncontacts:
        fail("unexpected files %s" % files)
    for f in files:
        check_file(os.path.join(d, f))
    reader = PVDReader(FileName=os.path.join(d, "series.pvd"))
    reader.UpdatePipeline()
    times = list(reader.TimestepValues) if nframes > 1 else [reader.TimestepValues]
    if len(set(times)) != nframes:
        fail("series.pvd: %d time steps, want %d" % (len(set(times)), nframes))
    info = reader.GetDataInformation()
    if info.GetNumberOfPoints() <= 0:
        fail("series.pvd: no points loaded")
    print("pvcheck: %d files read by ParaView %s" % (len(files), sm.vtkSMProxyManager.GetParaViewSourceVersion()))


main()
