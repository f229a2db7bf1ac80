# CPU time of an implicit Euler step (surrogate within Picard, multiscale
# Picard from the roots and warm-started) against an explicit surrogate
# step on Table 6's scenes, on one thread and robust to a loaded machine
# (step_cpu.py): out/step-cpu/step-cpu.md. CPU_REPS repetitions (default 25).

CPU_REPS := 25
$(call p_positive,CPU_REPS)
SC_DIR := $(OUT)/step-cpu

.PHONY: step-cpu
step-cpu: $(I_TOOLS) $(I_DIR)/scenes.stamp
	@mkdir -p $(SC_DIR)
	python3 step_cpu.py $(BIN) $(I_DIR) $(IMPLICIT_STEPS) $(CPU_REPS) $(I_SCENES) >$(SC_DIR)/step-cpu.md.tmp && \
		mv $(SC_DIR)/step-cpu.md.tmp $(SC_DIR)/step-cpu.md
	@cat $(SC_DIR)/step-cpu.md
