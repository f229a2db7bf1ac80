#!/usr/bin/env bash
# mrdem-run --log-view: every stage line, shares that add up to the run
# loop, counters equal to the sums of the stats records, the mrdem-run
# stats record of stage times per written frame; the compact line of the
# summary; results independent of the log. Timings are read for their
# form only: no test depends on their size.
. "$(dirname "$0")/../lib/test-lib.sh"

# Two spheres that collide next to a third on an analytic floor (particle
# and plane pairs, hits, fallbacks), inside the halos from the start
# (allow_overlap) so that every step has contacts.
cat >scene.yaml <<'Y'
shapes:
  ball: {sphere: {triangles: 320, radius: 1.0}}
particles:
  - {shape: ball, position: [-1.004, 0, 1.005], velocity: [1.0, 0, 0]}
  - {shape: ball, position: [1.004, 0, 1.005], velocity: [-0.5, 0, 0], angular_velocity: [0, 0, 3]}
  - {shape: ball, position: [4, 0, 1.2]}
planes:
  - {point: [0, 0, 0], normal: [0, 0, 1]}
gravity: [0, 0, -9.81]
contact: {model: paper, epsilon: 0.01, stiffness: 1000, allow_overlap: true}
time: {dt: 1.0e-4, steps: 40, scheme: velocity-verlet}
output: {every: 1}
Y
sed -e 's/velocity-verlet/implicit-euler/' -e 's/1.0e-4/1.0e-3/' scene.yaml >implicit.yaml

# check.py LOG STREAM: the log's tables against the stream's stats records.
cat >check.py <<'PY'
import json, re, subprocess, sys
log, path = open(sys.argv[1]).read(), sys.argv[2]
d = json.loads(subprocess.run(["mrdem-info", "--json", "--full", path], capture_output=True,
                              text=True, check=True).stdout)
stats = [r for r in d["records"] if r["type"] == "stats"]
def total(source, name):
    return sum(r["values"].get(name, 0) for r in stats if r["source"] == source)
implicit = re.search(r"^\d+ steps, .*, implicit-euler$", log, re.M) is not None
stages = ["broad", "search", "kernels", "fallback", "merge", "parallel", "forces",
          "integrate", "output", "output_wait"]
row = {}
for line in log.splitlines():
    m = re.match(r"^(\w+)\s+(\d+)?\s+(-?[0-9.]+)\s+(-?[0-9.]+)\s+(-?[0-9.]+)%", line)
    if m:
        row[m.group(1)] = (int(m.group(2)) if m.group(2) else None, float(m.group(3)),
                           float(m.group(5)))
want = stages + ["other", "total"] + (["picard"] if implicit else [])
missing = [s for s in want if s not in row]
assert not missing, "stage lines missing: %s" % missing
assert all(row[s][0] is not None for s in stages), "a stage without calls"
shares = sum(row[s][2] for s in stages)
assert shares <= 100.0 + 0.05 * len(stages), "stage shares add up to %g %%" % shares
assert abs(shares + row["other"][2] - 100) <= 0.05 * (len(stages) + 1), "with other: %g" % (shares + row["other"][2])
assert row["total"][2] == 100.0
steps = int(re.search(r"^(\d+) steps,", log, re.M).group(1))
frames = sum(1 for r in d["records"] if r["type"] == "frame")
assert row["broad"][0] == (steps + 1 + (total("mrdem-step", "picard_iterations") if implicit else 0)), row["broad"]
assert row["integrate"][0] == steps, row["integrate"]
assert row["output"][0] == frames + 1, (row["output"], frames)
assert row["output_wait"][0] == row["output"][0], (row["output_wait"], row["output"])
counter = {}
for line in log.splitlines():
    m = re.match(r"^(pairs|comparisons|hits|contacts|picard_iter)\s+(\d+)\s", line)
    if m:
        counter[m.group(1)] = int(m.group(2))
c = "mrdem-contact"
expect = {
    "pairs": total(c, "particle_pairs") + total(c, "plane_pairs"),
    "comparisons": total(c, "comparisons") + total("mrdem-step", "picard_comparisons"),
    "hits": total(c, "hits"),
    "contacts": total(c, "contacts"),
}
if implicit:
    expect["picard_iter"] = total("mrdem-step", "picard_iterations")
    del expect["pairs"], expect["hits"], expect["contacts"] # Picard's are not in records
for k, v in expect.items():
    assert counter[k] == v, "%s: log %d, stats records %d" % (k, counter[k], v)
assert expect["comparisons"] > 0
# one mrdem-run record of stage times per frame, every stage named
runs = [r for r in stats if r["source"] == "mrdem-run"]
assert len(runs) == frames, (len(runs), frames)
names = ["time_" + s for s in stages] + ["time_step"] + (["time_picard"] if implicit else [])
for r in runs:
    assert all(n in r["values"] for n in names), sorted(r["values"])
print("ok %d steps, %d frames, %s" % (steps, frames, counter))
PY

# frames.py STREAM: the stream's records without the mrdem-run stats (and
# the meta, index and end records, which move with them), as
# JSON text for an exact comparison.
cat >frames.py <<'PY'
import json, subprocess, sys
d = json.loads(subprocess.run(["mrdem-info", "--json", "--full", sys.argv[1]],
                              capture_output=True, text=True, check=True).stdout)
print(json.dumps([{k: r[k] for k in r if k not in ("index", "offset", "length")}
                  for r in d["records"] if r["type"] not in ("meta", "index", "end") and
                  r.get("source") != "mrdem-run"],
                 sort_keys=True))
PY

expect_success "--log-view: every stage, shares within the loop, counters equal the stats records" '
	mrdem-run --log-view scene.yaml -o a.mrd 2>log && cat log &&
	assert_grep "^---- mrdem-run performance log" log &&
	assert_grep "mean thread" log &&
	python3 check.py log a.mrd'

expect_success "--log-view -q: the log alone, without the summary" '
	mrdem-run -q --log-view scene.yaml -o q.mrd 2>log &&
	assert_grep "^---- mrdem-run performance log" log && ! grep -q "per step:" log &&
	python3 check.py log q.mrd'

# Off-CPU time while writing is blocking on I/O or waiting for a CPU; the
# thread clock cannot tell them apart, so the stage is not called I/O wait.
expect_success "the output's off-CPU time is output_wait, said to include waiting for a CPU" '
	mrdem-run -q --log-view scene.yaml -o w.mrd 2>log &&
	assert_grep "^output_wait " log && ! grep -q "io_wait" log &&
	assert_grep "or waiting for a CPU" log &&
	mrdem-stats w.mrd | head -1 | tr , "\n" >cols && grep -qx time_output_wait cols &&
	! grep -q io_wait cols'

expect_success "the summary has the compact stage line; no timing records without --log-view" '
	mrdem-run scene.yaml -o b.mrd 2>sum && cat sum &&
	assert_grep "^  stages, ms per step (share): broad .*, search .*, kernels .*, fallback .*, merge " sum &&
	assert_grep "^    parallel .*, forces .*, integrate .*, output .*, output_wait " sum &&
	! grep -q "performance log" sum &&
	mrdem-info --json --full b.mrd >b.full && ! grep -q "\"time_broad\"" b.full &&
	mrdem-run -q scene.yaml -o b2.mrd && same_stream b.mrd b2.mrd'

expect_success "--log-view changes no result, with 1 or 2 threads" '
	OMP_NUM_THREADS=1 mrdem-run -q --log-view scene.yaml -o t1.mrd &&
	OMP_NUM_THREADS=2 mrdem-run -q --log-view scene.yaml -o t2.mrd &&
	python3 frames.py t1.mrd >t1.json && python3 frames.py t2.mrd >t2.json &&
	python3 frames.py b.mrd >b.json && cmp t1.json t2.json && cmp t1.json b.json'

expect_success "implicit Euler: the Picard loop line and its iterations" '
	mrdem-run --log-view implicit.yaml -o i.mrd 2>log && cat log &&
	assert_grep "^picard .*encloses" log && assert_grep ", Picard loop " log &&
	python3 check.py log i.mrd'

expect_success "mrdem-stats tables the stage times per step" '
	mrdem-stats a.mrd >a.csv && head -1 a.csv | tr , "\n" >cols &&
	for s in broad search kernels fallback merge parallel forces integrate output output_wait step; do
		grep -qx "time_$s" cols || { echo "no time_$s column"; exit 1; }
	done'

# A reader that starts 3 s late: once the pipe's buffer (64 KiB) is full,
# every write blocks until it reads, off the CPU; that is output_wait, not
# output. 400 frames of 3 particles (210 kB) are far more than the buffer,
# which one thread fills in well under a second (0.2 s under ASan), so at
# least 2 s of the wait are certain.
expect_success "output_wait: the time blocked on a pipe whose reader sleeps" '
	OMP_NUM_THREADS=1 mrdem-run --log-view scene.yaml --steps 400 -o - 2>log |
		{ sleep 3; cat >slow.mrd; } &&
	python3 - log <<PY
import re, sys
row = {m.group(1): float(m.group(3)) for m in
       re.finditer(r"^(\w+)\s+(\d+)?\s+([0-9.]+)\s", open(sys.argv[1]).read(), re.M)}
assert row["output_wait"] >= 1.0, row
assert row["output_wait"] > 2 * row["output"], row
PY'

expect_success "--log-view with --via-pipes is a usage error" '
	assert_exit 2 mrdem-run --log-view --via-pipes scene.yaml -o p.mrd &&
	assert_grep "log-view" err'

done_testing
