# Threads with the tools' default teams and waiting (threads.py): wall and
# CPU time per step on 1 and 2 OpenMP threads, against the goals. On a
# lattice of TH_COUNT spheres of 1,224 triangles (default 16-16-16: 4,096,
# explicit Euler) in process and --via-pipes, TH_STEPS steps (default 5);
# the first TH_POUR_STEPS steps of examples/pour.yaml (default 300); and
# TH_SMALL_STEPS steps of the 64 spheres of bench/threads64.yaml (default
# 300), where two threads should cost little more CPU than one. Median of
# TH_REPS runs (default 3): out/threads/threads.md. Measure on an idle
# machine: the table prints the load average.

TH_COUNT := 16-16-16
TH_STEPS := 5
TH_POUR_STEPS := 300
TH_SMALL_STEPS := 300
TH_REPS := 3
$(call p_count,TH_COUNT, (spheres along x$(comma) y and z))
$(call p_positive,TH_STEPS)
$(call p_positive,TH_POUR_STEPS)
$(call p_positive,TH_SMALL_STEPS)
$(call p_positive,TH_REPS)
TH_DIR := $(OUT)/threads
TH_TOOLS := $(BIN)/mrdem-pairs $(BIN)/mrdem-contact $(BIN)/mrdem-step

$(TH_TOOLS): $(BIN)/%: pipelines-force
	$(TOOLS_MAKE) bin/$*

.PHONY: threads
threads: $(I_TOOLS) $(TH_TOOLS) threads.py scenes.py
	@mkdir -p $(TH_DIR)
	python3 scenes.py --write $(TH_DIR) lattice-$(TH_COUNT)
	python3 threads.py $(BIN) $(TH_DIR)/lattice-$(TH_COUNT) $(TH_STEPS) $(TH_REPS) \
		$(TOP)/examples/pour.yaml $(TH_POUR_STEPS) $(TOP)/bench/threads64.yaml \
		$(TH_SMALL_STEPS) >$(TH_DIR)/threads.md.tmp && \
		mv $(TH_DIR)/threads.md.tmp $(TH_DIR)/threads.md
	@cat $(TH_DIR)/threads.md
