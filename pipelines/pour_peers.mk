# Pours against LIGGGHTS by wall time (pour_peers.py): 343 and 10,000
# spheres of contact radius 5 mm, Hertz with friction, from the same
# initial positions in both codes, one thread each; the wall time of each,
# their ratio and each bed's bulk packing fraction and top side by side:
# $(OUT)/pour-peers/pour-peers.md. Without liggghts, mrdem's runs alone
# and a line saying the comparison was skipped.
#
#   POUR_PEERS_RUNS   SIZE:SECONDS simulated, SIZE 343 or 10000
#                     (343:0.45 10000:0.3; 22,500 and 15,000 steps of 2e-5 s)
#
# Measured: the default took 2.5 minutes of wall time on a shared two-core
# machine at load 10 (10,000 spheres: mrdem 86 s, LIGGGHTS 46 s);
# docs/performance.md has the figures. tests/e2e/pipelines.sh runs 343
# spheres for 1,000 steps of free fall.

POUR_PEERS_RUNS := 343:0.45 10000:0.3
PP_DIR := $(OUT)/pour-peers

.PHONY: pour-peers pour-peers-tools
# Always run afresh: wall times of this sitting.
pour-peers: pour_peers.py liggghts.py | pour-peers-tools
	@mkdir -p $(PP_DIR)
	python3 pour_peers.py report $(BIN) $(PP_DIR) $(POUR_PEERS_RUNS) >$(PP_DIR)/pour-peers.md.tmp
	@mv $(PP_DIR)/pour-peers.md.tmp $(PP_DIR)/pour-peers.md && cat $(PP_DIR)/pour-peers.md

pour-peers-tools:
	$(TOOLS_MAKE) bin/mrdem-run
