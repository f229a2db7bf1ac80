"""Check the pictures of docs/paraview/mrdem_screenshot.py (run by pvpython;
reads PNGs with VTK, needs no display):

    pvpython pvscreenshot.py PLANES.png BARE.png HALF.png

PLANES.png is a frame drawn from a mrdem-vtk directory with planes.vtp,
BARE.png the same frame from a copy without it, HALF.png the first with
--opacity 0.5. The particles are the pixels of BARE.png that are not its
background (the colour of its corners), their inside those whose eight
neighbours are particle pixels too (a silhouette's edge blends with what
lies behind it). The particles must fill the picture (their box spans at
least 60 % of its width or height), be opaque (PLANES.png equals BARE.png
on all but 0.5 % of their inside, to 8 in 255 for rounding: no plane shows
through), the planes must be drawn (at least 20 % of the other pixels
differ), and at opacity 0.5 the planes behind must show through (at least
30 % of their inside differs from PLANES.png).
"""
import sys

from vtkmodules.vtkIOImage import vtkPNGReader


def fail(msg):
    print("pvscreenshot: " + msg)
    sys.exit(1)


def pixels(path):
    r = vtkPNGReader()
    r.SetFileName(path)
    r.Update()
    img = r.GetOutput()
    w, h, _ = img.GetDimensions()
    a = img.GetPointData().GetScalars()
    if a is None or w * h == 0:
        fail("%s: no picture" % path)
    return w, h, [a.GetTuple(i)[:3] for i in range(w * h)]


def main():
    w, h, planes = pixels(sys.argv[1])
    size_b = pixels(sys.argv[2])
    size_h = pixels(sys.argv[3])
    if size_b[:2] != (w, h) or size_h[:2] != (w, h):
        fail("the pictures differ in size")
    bare, half = size_b[2], size_h[2]
    bg = bare[0]
    if any(bare[i] != bg for i in (w - 1, w * (h - 1), w * h - 1)):
        fail("the corners of %s differ: no background to tell the particles by" % sys.argv[2])
    part = [i for i in range(w * h) if bare[i] != bg]
    rest = [i for i in range(w * h) if bare[i] == bg]
    if not part:
        fail("no particle drawn")
    xs, ys = [i % w for i in part], [i // w for i in part]
    fill = max((max(xs) - min(xs) + 1) / w, (max(ys) - min(ys) + 1) / h)
    inner = [i for i in part if 0 < i % w < w - 1 and 0 < i // w < h - 1 and
             all(bare[i + o] != bg for o in (-w - 1, -w, -w + 1, -1, 1, w - 1, w, w + 1))]
    if not inner:
        fail("the particles have no inside pixels")

    def differ(a, b, i):
        return max(abs(x - y) for x, y in zip(a[i], b[i])) > 8

    through = sum(differ(planes, bare, i) for i in inner) / len(inner)
    drawn = sum(planes[i] != bare[i] for i in rest) / max(len(rest), 1)
    seen = sum(differ(half, planes, i) for i in inner) / len(inner)
    print("pvscreenshot: particles span %.0f %% of the picture; planes change %.2f %% of "
          "their pixels opaque, %.0f %% at opacity 0.5, and %.0f %% of the rest"
          % (100 * fill, 100 * through, 100 * seen, 100 * drawn))
    if fill < 0.6:
        fail("the particles span %.0f %% of the picture (want >= 60 %%)" % (100 * fill))
    if through > 0.005:
        fail("the planes show through %.1f %% of the opaque particles' pixels" % (100 * through))
    if drawn < 0.2:
        fail("the planes change %.1f %% of the pixels around the particles (want >= 20 %%)"
             % (100 * drawn))
    if seen < 0.3:
        fail("at opacity 0.5 only %.1f %% of the particles' pixels change" % (100 * seen))


main()
