"""CPU time of mrdem-run steps, robust to a loaded machine (step_cpu.py,
models.py): one OpenMP thread, no frame written but the last, and the cost
of 1 + STEPS steps less that of 1 step, so start-up and output cancel."""
import os
import resource
import statistics
import subprocess
import sys

ENV = dict(os.environ, OMP_NUM_THREADS="1")


def cpu(bin_dir, start, args, steps):
    """Process CPU seconds of mrdem-run from stream START for STEPS steps."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([bin_dir + "/mrdem-run", start, "-o", os.devnull, "--steps", str(steps),
                    "--every", "1000000000", "-q", "--allow-overlap"] + args, env=ENV, check=True,
                   stderr=subprocess.DEVNULL)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime


def per_step_ms(bin_dir, start, args, steps):
    """CPU milliseconds per step of STEPS steps from START."""
    return 1e3 * (cpu(bin_dir, start, args, 1 + steps) - cpu(bin_dir, start, args, 1)) / steps


def mean_se(samples):
    """Mean and its standard error."""
    m = statistics.mean(samples)
    se = statistics.stdev(samples) / len(samples) ** 0.5 if len(samples) > 1 else 0.0
    return m, se


def cpu_run(argv, who):
    """Run ARGV with one OpenMP thread; its process CPU seconds. Exits with
    WHO, the command and the tail of its standard error when it fails."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                       env=ENV)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode:
        sys.exit("%s: %s failed:\n%s" % (who, " ".join(argv), p.stderr[-3000:]))
    return r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
