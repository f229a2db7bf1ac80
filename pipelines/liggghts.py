"""The peer code of the validation pipelines: LIGGGHTS (Debian's
`liggghts`, 3.8) run on an input script in a directory, its CPU time and
its thermo output. Without the program, available() is False and the
pipelines print a line saying the comparison was skipped."""
import os
import re
import resource
import shutil
import subprocess

PROGRAM = os.environ.get("LIGGGHTS", "liggghts")

# The first lines of every granular script here: SI units, spheres with
# their own velocities, a fixed box (what leaves it is lost).
HEADER = """units si
atom_style granular
atom_modify map array
boundary f f f
newton off
communicate single vel yes
"""


def hertz(young, poisson, restitution, friction):
    """The lines of one atom type of a Hertz material with tangential
    history, between the particles (and walls that name no model of their own)."""
    return """fix m1 all property/global youngsModulus peratomtype %r
fix m2 all property/global poissonsRatio peratomtype %r
fix m3 all property/global coefficientRestitution peratomtypepair 1 %r
fix m4 all property/global coefficientFriction peratomtypepair 1 %r
pair_style gran model hertz tangential history
pair_coeff * *""" % (young, poisson, restitution, friction)


def available():
    """Whether LIGGGHTS can be run here."""
    return shutil.which(PROGRAM) is not None


def run(script, workdir, name):
    """Run SCRIPT (the text of an input file) in WORKDIR as NAME.in; its
    standard output (the log) and the process CPU seconds it took. Exits
    with the log's tail when LIGGGHTS fails."""
    os.makedirs(workdir, exist_ok=True)
    path = os.path.join(workdir, name + ".in")
    with open(path, "w") as f:
        f.write(script)
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run([PROGRAM, "-in", name + ".in", "-log", "none"], cwd=workdir,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       env=dict(os.environ, OMP_NUM_THREADS="1"))
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(os.path.join(workdir, name + ".log"), "w") as f:
        f.write(p.stdout)
    if p.returncode or "ERROR" in p.stdout:
        raise SystemExit("liggghts failed on %s:\n%s" % (path, p.stdout[-3000:]))
    return p.stdout, r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime


def thermo(log, ncolumns):
    """The rows of thermo output in LOG: lines of exactly NCOLUMNS numbers,
    the first an integer step, as tuples of floats."""
    number = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
    row = re.compile(r"^\s*\d+" + r"\s+" + r"\s+".join([number] * (ncolumns - 1)) + r"\s*$")
    return [tuple(map(float, line.split())) for line in log.splitlines() if row.match(line)]


def loop_seconds(log):
    """Wall seconds of every `run` of LOG together (its "Loop time" lines)."""
    return sum(float(m.group(1)) for m in re.finditer(r"^Loop time of (\S+)", log, re.M))
