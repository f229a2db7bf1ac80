"""The runs of implicit.mk (run.sh) as the table scripts see them:

  load(DIR, SCENE, SCHEME, HIERARCHY, METHOD, STEPS) -> Run

reads DIR/SCENE/SCHEME.HIERARCHY.METHOD.STEPS.log (mrdem-run's standard
error with its --log-view report) and .csv (mrdem-stats). A Run is a dict:
the run's parameters; `available` (False for a multiscale run that
mrdem-run refused: `error` is then the first line of its message); the wall
time per step from the --log-view report (the run loop's less the output
stage: `step_ms`; the Picard loop's: `picard_ms`; `threads`; the summary's
peak resident memory: `peak_mb`), the median
over the steps of each step's time (`median_ms`: time_step less
time_output of the --log-view stats records; robust to a step that the
machine delayed); `rows`, the statistics of steps 0 .. STEPS-1 as numbers,
None where a run left a cell empty. mean(COL), column(COL), has(COL) read
them; a column a run does not write counts 0.

  explicit(BIN, YAML, OUT, STEPS, ARGS, ENV) -> (detection ms, rows)

runs mrdem-run on the scene file YAML into OUT (Tables 4, scaling): the
contact detection wall time per step of its summary and the mrdem-stats
rows of steps 0 .. STEPS-1, as strings.
"""
import csv
import io
import os
import re
import subprocess
import sys


def path(dirname, scene, scheme, hierarchy, method, steps, ext):
    return os.path.join(dirname, scene, "%s.%s.%s.%d.%s" % (scheme, hierarchy, method, steps, ext))


def first_error(text):
    """The first line of an error message (else of anything) in text."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    return next((l for l in lines if "error" in l), lines[0] if lines else "no message")


def number(s):
    if s is None or s == "":
        return None
    v = float(s)
    return int(v) if v.is_integer() and abs(v) < 2 ** 53 else v


def timing(log, name):
    """step_ms (run loop less output), picard_ms, threads from --log-view."""
    m = re.search(r"^(\d+) steps, ([0-9.e+-]+) s in the run loop .*?(\d+) OpenMP thread", log, re.M)
    if not m:
        sys.exit("runs.py: no --log-view report in %s" % name)
    n, loop, threads = int(m.group(1)), float(m.group(2)), int(m.group(3))
    stage = lambda s: re.search(r"^%s\s+\d+\s+([0-9.e+-]+)" % s, log, re.M)
    out, wait, picard = stage("output"), stage("output_wait"), stage("picard")
    writing = sum(float(m.group(1)) for m in (out, wait) if m)  # CPU and off-CPU wait
    per = lambda s: 1e3 * s / max(n, 1)
    rss = re.search(r"^  peak resident memory: ([0-9.]+) MB", log, re.M)
    return {"steps_run": n, "loop_ms": per(loop),
            "step_ms": per(loop - writing),
            "picard_ms": per(float(picard.group(1))) if picard else None, "threads": threads,
            "peak_mb": float(rss.group(1)) if rss else None}


def load(dirname, scene, scheme, hierarchy, method, steps):
    p = lambda ext: path(dirname, scene, scheme, hierarchy, method, steps, ext)
    r = Run(scene=scene, scheme=scheme, hierarchy=hierarchy, method=method, steps=steps)
    with open(p("log")) as f:
        log = f.read()
    if not os.path.exists(p("csv")):
        r.update(available=False, error=first_error(log))
        return r
    r.update(available=True, **timing(log, p("log")))
    with open(p("csv"), newline="") as f:
        r["rows"] = [{k: number(v) for k, v in row.items() if k}
                     for row in csv.DictReader(f)
                     if row.get("step") and int(row["step"]) < steps and row.get("time")]
    t = sorted(1e3 * ((x.get("time_step") or 0) - (x.get("time_output") or 0) -
                      (x.get("time_output_wait") or 0)) for x in r["rows"])
    r["median_ms"] = (t[(len(t) - 1) // 2] + t[len(t) // 2]) / 2 if t else None
    return r


def explicit(bindir, yaml, out, steps, args=(), env=None):
    p = subprocess.run([os.path.join(bindir, "mrdem-run"), yaml, "-o", out] + list(args),
                       capture_output=True, text=True, check=True, env=env)
    ms = float(re.search(r"contact detection .*: ([0-9.e+-]+) ms per step", p.stderr).group(1))
    text = subprocess.run([os.path.join(bindir, "mrdem-stats"), out], capture_output=True,
                          text=True, check=True).stdout
    return ms, [r for r in csv.DictReader(io.StringIO(text)) if int(r["step"]) < steps]


def mean_of(rows, col):
    """Mean of a column of string rows; an empty cell counts 0."""
    return sum(float(r[col] or 0) for r in rows) / len(rows)


class Run(dict):
    def mean(self, col):
        """Mean per step of a column; a missing or empty cell counts 0."""
        rows = self.get("rows") or []
        return sum(r.get(col) or 0 for r in rows) / len(rows) if rows else None

    def has(self, col):
        """Whether the run wrote col at all (some step has a value)."""
        return any(r.get(col) is not None for r in self.get("rows") or [])

    def column(self, col):
        return [r.get(col) or 0 for r in self.get("rows") or []]


def fmt(x):
    """A number in 3 significant digits, "–" for none."""
    return "–" if x is None else "%.3g" % x


def unavailable(runs):
    """"not available: ERROR" when one of runs is not available (the first
    one's error), else None."""
    for r in runs:
        if not r["available"]:
            return "not available: " + r["error"]
    return None


# The cells of a warm-start row: cold and warm runs of multiscale Picard.
WARM_HEADER = ("cold iterations | warm iterations | cold comparisons | warm comparisons | saving |"
               " cold step ms | warm step ms | saving | cold median ms | warm median ms | saving")
WARM_CELLS = WARM_HEADER.count("|") + 1


def warm_cells(cold, warm):
    """Iterations, comparisons, mean and median step time of a cold and a
    warm run, each with the saving 1 - warm / cold."""
    saving = lambda c, w: "%.0f %%" % (100 * (1 - w / c)) if c else "–"
    cc, wc = cold.mean("picard_comparisons"), warm.mean("picard_comparisons")
    return ["%.2f" % cold.mean("picard_iterations"), "%.2f" % warm.mean("picard_iterations"),
            fmt(cc), fmt(wc), saving(cc, wc)] + \
        [x for k in ("step_ms", "median_ms")
         for x in (fmt(cold[k]), fmt(warm[k]), saving(cold[k], warm[k]))]
