#!/bin/bash
# Do two builds write the same streams? For changes that must not change a
# result (performance work on the search, the kernels or the merge): runs
# mrdem-run of both builds on the same scenes and options, on 1 and 2
# threads, and compares every record but meta, index and end
# (tests/lib/mrdem_stream.py --same); and NEW's search that remembers
# (--warm-start) against REF's from the roots, all but the work counters.
# Not part of `make check`: it needs a
# second build, e.g. `git worktree add /tmp/ref main && make -C /tmp/ref`.
#
#   tests/same_streams.sh REF [NEW]      (NEW: this tree; both built)
#   QUICK=1 tests/same_streams.sh REF    (each method on the scenes only)
#
# The lattice is an 8 x 8 x 6 cut of examples/lattice-24576.yaml. REF's
# streams are kept in $SAME_DIR (default a temporary directory) and reused
# while it exists. Exit status 0 when every stream is the same.
set -u
REF=${1:?usage: tests/same_streams.sh REF [NEW]}
NEW=${2:-$(cd "$(dirname "$0")/.." && pwd)}
for t in "$REF" "$NEW"; do
	[ -x "$t/bin/mrdem-run" ] || { echo "same_streams: $t/bin/mrdem-run is not built" >&2; exit 2; }
done
D=${SAME_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/mrdem-same-XXXXXX")}
mkdir -p "$D"
python3 "$NEW/pipelines/scenes.py" --write "$D" lattice-8-8-6 || exit 2
LAT=$D/lattice-8-8-6/scene.yaml
EX=$NEW/examples
fail=0

# the search's work counters: what --warm-start changes besides nothing
WORK=comparisons,comparisons_real,iterative,fallbacks,unconverged,intersecting,undecided
WORK=$WORK,pruned,sphere_pruned,$(seq -s, -f comparisons_round_%g 0 15)
WORK=$WORK$(printf ',front_%s' unfolds narrows pinned guesses size skipped certificates)

# name option except mrdem-run arguments...: REF's run against NEW's with
# option (may be empty), the stats values named in except left out
both() {
	local name=$1 option=$2 except=$3 th tag=${2:+ $2}
	shift 3
	for th in 1 2; do
		local ref=$D/$name.$th.ref.mrd new=$D/$name.$th.new${option:+-warm}.mrd
		if [ ! -s "$ref" ]; then
			OMP_NUM_THREADS=$th OMP_DYNAMIC=false "$REF/bin/mrdem-run" -q "$@" -o "$ref" \
				>/dev/null 2>"$ref.err" || { echo "FAIL $name t$th: REF's run"; fail=1; }
		fi
		OMP_NUM_THREADS=$th OMP_DYNAMIC=false "$NEW/bin/mrdem-run" -q "$@" $option -o "$new" \
			>/dev/null 2>"$new.err" || { echo "FAIL $name t$th$tag: NEW's run"; fail=1; }
		if python3 "$NEW/tests/lib/mrdem_stream.py" --same "$ref" "$new" ${except:+--except "$except"}; then
			echo "same $name t$th$tag"
		else
			echo "DIFF $name t$th$tag"
			fail=1
		fi
	done
}
same() { # name mrdem-run arguments...
	local name=$1
	shift
	both "$name" "" "" "$@"
}
warm() { # name mrdem-run arguments...: NEW's search that remembers
	local name=$1
	shift
	both "$name" --warm-start "$WORK" "$@"
}

for m in comparison iterative hybrid; do
	same lat-$m "$LAT" --steps 3 --every 1 --method $m
	warm lat-$m "$LAT" --steps 3 --every 1 --method $m
	same rocks-$m "$EX/rocks.yaml" --steps 20 --every 5 --method $m
	same two-$m "$EX/two-spheres.yaml" --steps 200 --every 20 --method $m
	warm two-1000-$m "$EX/two-spheres.yaml" --steps 1000 --every 20 --method $m
done
if [ -z "${QUICK:-}" ]; then
	same rocks-flat "$EX/rocks.yaml" --steps 20 --every 5 --hierarchy flat
	same lat-ms "$LAT" --steps 2 --every 1 --scheme implicit-euler --hierarchy multiscale
	same lat-ms-it "$LAT" --steps 2 --every 1 --scheme implicit-euler --hierarchy multiscale \
		--method iterative
	same lat-imp-sur "$LAT" --steps 2 --every 1 --scheme implicit-euler --hierarchy surrogate
	for simd in generic avx2; do
		same lat-$simd "$LAT" --steps 2 --every 1 --simd $simd
		same rocks-$simd "$EX/rocks.yaml" --steps 20 --every 5 --simd $simd
	done
fi
echo "fail=$fail (streams in $D)"
exit $fail
