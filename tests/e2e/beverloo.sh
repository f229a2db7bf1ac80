#!/usr/bin/env bash
# Hopper discharge (pipelines/beverloo.py, small): analytic spheres settled
# in a flat-bottomed cylindrical hopper (a fixed revolve mesh) flow out of
# orifices of 5 and 7 sphere diameters once the gate under them moves
# away: the flow is positive and steady, within a factor of two of
# Beverloo's law with the published C = 0.58, k = 1.5 and the measured bulk
# density, larger through the larger orifice, and every sphere inserted is
# either still in the hopper or counted out; LIGGGHTS on the same hopper
# (when installed) gives the flow rate within a factor 1.5.
. "$(dirname "$0")/../lib/test-lib.sh"
# Under the sanitizers these runs take minutes: the code they run is
# sanitized by flow.sh, walls.sh and mix.sh, their physics checked by make check.
[ -n "${MRDEM_ASAN:-}" ] && skip_all "validation-sized runs (physics checked by make check)"

if command -v "${LIGGGHTS:-liggghts}" >/dev/null 2>&1; then lig=5; else lig=none; fi

expect_success "hopper discharge runs: orifices of 5 and 7 sphere diameters" '
	python3 "$TOP/pipelines/beverloo.py" "$MRDEM_BIN" bv --orifices 5,7 --mesh-orifices none \
		--liggghts-orifices $lig --bed 4 --wall 3 --min-window 0.06 --max-window 0.06 \
		--csv >bv.csv && cat bv.csv'

# bvcheck EXPRESSION WHAT: EXPRESSION over the rows r (dicts of floats but
# code and kind), mrdem's analytic rows a, LIGGGHTS's l, beverloo(r)
bvcheck() {
	python3 - "$1" "$2" <<'PY'
import csv, math, sys
rows = list(csv.DictReader(open("bv.csv")))
for r in rows:
    for k in r:
        if k not in ("code", "kind"):
            r[k] = float(r[k])
a = [r for r in rows if r["code"] == "mrdem"]
l = [r for r in rows if r["code"] == "LIGGGHTS"]
def beverloo(r, c=0.58, k=1.5):
    return c * r["rho_b"] * math.sqrt(9.81) * (r["D"] - k * r["d"]) ** 2.5
ok = eval(sys.argv[1])
print("# %s: %s" % (sys.argv[2], [(r["code"], r["n_orifice"], r["W"], r["W_first"], r["W_second"],
                                   r["rho_b"], r["n"], r["out"], r["left"]) for r in rows]))
sys.exit(0 if ok else 1)
PY
}

expect_success "flow rate positive and steady: each half of the window within a factor 1.6 of the other" '
	bvcheck "len(a) == 2 and all(r[\"W_first\"] > 0 and r[\"W_second\"] > 0 and
		1 / 1.6 < r[\"W_first\"] / r[\"W_second\"] < 1.6 for r in a)" steady'

expect_success "bulk density of the settled bed between 0.45 and 0.7 of the particle density" '
	bvcheck "all(0.45 * 2500 < r[\"rho_b\"] < 0.7 * 2500 for r in a)" "bulk density"'

expect_success "flow rate within a factor of two of Beverloo (C = 0.58, k = 1.5)" '
	bvcheck "all(0.5 < r[\"W\"] / beverloo(r) < 2 for r in a)" Beverloo'

expect_success "the larger orifice discharges faster (Beverloo: 3.1 times)" '
	bvcheck "a[1][\"W\"] > 1.5 * a[0][\"W\"]" "W grows with D"'

expect_success "mass conservation: inserted = still in the hopper + removed" '
	bvcheck "all(r[\"n\"] == r[\"left\"] + r[\"out\"] and r[\"out\"] > 10 for r in a)" balance'

if [ "$lig" = none ]; then
	skip_test "LIGGGHTS on the same hopper: flow rate within a factor 1.5" "liggghts not installed"
else
	expect_success "LIGGGHTS on the same hopper: flow rate within a factor 1.5 of that of mrdem" '
		bvcheck "len(l) == 1 and 1 / 1.5 < l[0][\"W\"] / a[0][\"W\"] < 1.5" LIGGGHTS'
fi

done_testing
