# mrdem-run-mpi against mrdem-run (mpi.py): the loop time of MB_LATTICE's
# lattice of spheres of 1,224 triangles (default 32-32-24: Sec. 6.7's 24,576,
# examples/lattice-24576.yaml) over MB_LATTICE_STEPS steps (default 2), and
# of a dense pour of MB_POUR noisy spheres of 80 triangles (default 40-25-20:
# 20,000) over MB_POUR_STEPS steps (default 100), each as mrdem-run on 1
# thread, mrdem-run-mpi on 1 rank and on 2 ranks of 1 thread, and mrdem-run
# on 2 threads, the best of MB_REPS rounds (default 2); ghosts, bytes sent,
# imbalance, and the scaling model fed by them: out/mpi/mpi.md. Measure on
# an idle machine: the report prints the load average. MPIRUN=CMD names
# Open MPI's mpirun (default mpirun).
#
#   make -C pipelines mpi-lattice   the lattice's runs alone (their figures:
#                                   out/mpi/lattice-COUNT-STEPS-REPS.json)
#   make -C pipelines mpi-pour      the pour's runs alone (out/mpi/pour-*.json)
#   make -C pipelines mpi-model     docs/parallel.md's model table

MB_LATTICE := 32-32-24
MB_LATTICE_STEPS := 2
MB_POUR := 40-25-20
MB_POUR_STEPS := 100
MB_REPS := 2
$(call p_count,MB_LATTICE, (spheres along x$(comma) y and z))
$(call p_count,MB_POUR, (grains along x$(comma) y and z))
$(call p_positive,MB_LATTICE_STEPS)
$(call p_positive,MB_POUR_STEPS)
$(call p_positive,MB_REPS)
MB_DIR := $(OUT)/mpi
MB_TOOLS := $(BIN)/mrdem-run $(BIN)/mrdem-run-mpi

$(BIN)/mrdem-run-mpi: pipelines-force
	$(TOOLS_MAKE) mpi

# The runs' figures, remade when the scene, the tools or a setting changes.
MB_L := $(MB_DIR)/lattice-$(MB_LATTICE)-$(MB_LATTICE_STEPS)-$(MB_REPS).json
MB_P := $(MB_DIR)/pour-$(MB_POUR)-$(MB_POUR_STEPS)-$(MB_REPS).json

$(MB_DIR)/lattice-$(MB_LATTICE)/scene.yaml $(MB_DIR)/pour-$(MB_POUR)/scene.yaml: scenes.py
	@mkdir -p $(MB_DIR)
	python3 scenes.py --write $(MB_DIR) $(notdir $(@D))

$(MB_L): $(MB_DIR)/lattice-$(MB_LATTICE)/scene.yaml $(MB_TOOLS) mpi.py
	python3 mpi.py measure $(BIN) $(<D) $(MB_LATTICE_STEPS) $(MB_REPS) >$@.tmp && mv $@.tmp $@

$(MB_P): $(MB_DIR)/pour-$(MB_POUR)/scene.yaml $(MB_TOOLS) mpi.py
	python3 mpi.py measure $(BIN) $(<D) $(MB_POUR_STEPS) $(MB_REPS) \
		--scheme velocity-verlet >$@.tmp && mv $@.tmp $@

.PHONY: mpi mpi-lattice mpi-pour mpi-model
mpi-lattice: $(MB_L)
mpi-pour: $(MB_P)
mpi: $(MB_L) $(MB_P)
	python3 mpi.py report $^ >$(MB_DIR)/mpi.md.tmp && mv $(MB_DIR)/mpi.md.tmp $(MB_DIR)/mpi.md
	@cat $(MB_DIR)/mpi.md
mpi-model:
	@python3 mpi.py model
