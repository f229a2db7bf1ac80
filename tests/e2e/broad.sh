#!/usr/bin/env bash
# The broad-phase methods in whole runs: a scene's contact.broad and
# --broad select them; sap, mr and mmr keep sorted lists between steps, and
# still a run through pipes (mrdem-pairs starts from scratch every step), a
# resumed run and a run with another method give the same bytes.
. "$(dirname "$0")/../lib/test-lib.sh"

# 60 small spheres falling in a jittered lattice onto a floor: pairs appear
# and vanish while the run goes on.
cat >rain.yaml <<'Y'
shapes:
  ball: {sphere: {triangles: 80, radius: 0.5}}
particles:
  - lattice: {shape: ball, origin: [0, 0, 0.6], count: [5, 4, 3], spacing: 1.03, jitter: 0.01,
              seed: 3, velocity: [0.5, 0, -1]}
planes:
  - {point: [0, 0, 0], normal: [0, 0.26, 0.97]}
gravity: [0, 0, -9.81]
contact: {model: paper, epsilon: 0.02, stiffness: 1000, broad: sap}
time: {dt: 1.0e-3, steps: 40}
output: {every: 5}
Y

# Records of the given types of a stream as JSON, without their place in
# the file (the meta record before them names the command line).
records() { # stream types... -> stdout
	checks records "$@"
}
# frames, pairs and contacts (the stats name the method's cells)
lists() { records "$1" frame pairs contacts; }

expect_success "contact.broad: sap in the scene: in process and through pipes, the same bytes; pairs change" '
	mrdem-run -q rain.yaml -o sap.mrd && mrdem-run -q rain.yaml --steps 15 -o sap15.mrd &&
	mrdem-run -q rain.yaml --steps 15 --via-pipes -o sap15-pipes.mrd &&
	same_stream sap15.mrd sap15-pipes.mrd &&
	assert_eq "$(checks info sap.mrd "(lambda p: max(p) > 100 and len(set(p)) > 3)([len(r[\"list\"]) for r in of(\"pairs\")])")" \
		True "pairs, changing"'

# The scene's method is the one used: sap reports no cells, mr does.
cells_reported() { # stream -> True/False
	checks info "$1" 'any("broad_cells" in r["values"] for r in of("stats") if r["source"] == "mrdem-pairs")'
}
expect_success "contact.broad is used, --broad overrides it" '
	assert_eq "$(cells_reported sap.mrd)" False "sap from the scene" &&
	mrdem-run -q rain.yaml --steps 5 --broad mr -o mr5.mrd &&
	assert_eq "$(cells_reported mr5.mrd)" True "--broad mr"'

for m in mr mmr grid brute; do
	expect_success "--broad $m: the same frames, pairs and contacts as sap" '
		mrdem-run -q rain.yaml --broad '$m' -o '$m'.mrd && lists sap.mrd >a.json &&
		lists '$m'.mrd >b.json && cmp a.json b.json'
done

expect_success "--broad mr through pipes: the same bytes as in process" '
	mrdem-run -q rain.yaml --broad mr --steps 15 -o mr15.mrd &&
	mrdem-run -q rain.yaml --broad mr --steps 15 --via-pipes -o mr15-pipes.mrd &&
	same_stream mr15.mrd mr15-pipes.mrd'

expect_success "a resumed sap run ends where one long run ends" '
	mrdem-run -q rain.yaml --steps 20 -o first.mrd &&
	mrdem-run -q first.mrd --broad sap --steps 20 -o second.mrd &&
	checks info second.mrd "of(\"frame\", \"pairs\", \"contacts\")[-3:]" >resumed.txt &&
	checks info sap.mrd "of(\"frame\", \"pairs\", \"contacts\")[-3:]" >long.txt &&
	cmp resumed.txt long.txt'

expect_success "an unknown contact.broad is refused at its line" '
	sed "s/broad: sap/broad: octree/" rain.yaml >bad.yaml &&
	assert_exit 1 mrdem-init bad.yaml -o x.mrd && assert_grep "bad.yaml:9:.*contact.broad" err &&
	assert_grep "octree" err'

expect_success "an unknown --broad is a usage error naming the methods" '
	assert_exit 2 mrdem-run -q rain.yaml --broad octree -o x.mrd &&
	assert_grep "sap, mr, mmr, grid or brute" err &&
	assert_exit 2 mrdem-pairs --broad octree sap.mrd -o x.mrd'

done_testing
