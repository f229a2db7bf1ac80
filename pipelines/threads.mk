# Threads and pipes on a lattice of TH_COUNT spheres of 1,224 triangles
# (default 16-16-16: 4,096, the size the goals were set for), explicit Euler: wall and CPU
# time per step on 1 and 2 OpenMP threads (fixed teams), in process and
# --via-pipes, and the ratios (threads.py): out/threads/threads.md.
# Measure on an idle machine: the table prints the load average. TH_STEPS
# steps per run (default 5), best of TH_REPS runs (default 3).

TH_COUNT := 16-16-16
TH_STEPS := 5
TH_REPS := 3
$(call p_count,TH_COUNT, (spheres along x$(comma) y and z))
$(call p_positive,TH_STEPS)
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
		>$(TH_DIR)/threads.md.tmp && mv $(TH_DIR)/threads.md.tmp $(TH_DIR)/threads.md
	@cat $(TH_DIR)/threads.md
