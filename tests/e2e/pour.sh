#!/usr/bin/env bash
# examples/pour.yaml cut to 4 x 4 x 3 beads and 0.1 s: the beads land in the
# box of planes without leaving it or interpenetrating, and lose their
# kinetic energy (pourcheck.py). The whole example settles to rest: the
# example's own header gives its steps, wall time and packing fraction.
. "$(dirname "$0")/../lib/test-lib.sh"

sed 's/count: \[10, 10, 5\]/count: [4, 4, 3]/; s/origin: \[-0.1125, -0.1125, 0.013\]/origin: [-0.0375, -0.0375, 0.013]/; s/steps: 60000/steps: 5000/; s/every: 2000/every: 500/' \
	"$TOP/examples/pour.yaml" >cut.yaml
expect_success "the cut pour runs, beads stay in the box, none interpenetrate, kinetic energy falls" '
	grep -q "count: \[4, 4, 3\]" cut.yaml && mrdem-run -q cut.yaml -o cut.mrd &&
	python3 "$TOP/tests/e2e/pourcheck.py" cut.mrd 0.01 0.0005 0.13'

done_testing
