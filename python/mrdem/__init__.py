"""Read mrdem streams (docs/stream-format.md, format versions 1 and 2) from
Python: frames as column arrays, shapes as vertex and triangle arrays,
contacts, pairs, statistics and meta records.

    import mrdem
    s = mrdem.read("run.mrd")
    s.frames[-1]["position"]          # (n, 3) array (numpy when installed)
    for f in mrdem.frames("run.mrd", follow=True):   # a run still being written
        print(f.step, f.time, len(f["id"]))

Arrays are numpy arrays when numpy can be imported, else lists of tuples
(one tuple per particle) or lists of numbers. The package has no other
dependency than the standard library."""

from .stream import (Contact, Frame, Shape, Stats, Stream, StreamError, frames, read,
                     records)

__all__ = ["Contact", "Frame", "Shape", "Stats", "Stream", "StreamError", "frames", "read",
           "records"]
__version__ = "2.0"
