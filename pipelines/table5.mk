# Paper Table 5 (Sec. 6.5): mean Picard iterations per implicit Euler step,
# surrogate within Picard (equal to flat, checked) and multiscale Picard,
# comparison and hybrid kernels, both scenes of Table 4: out/table5/table5.md.

T5_DIR := $(OUT)/table5
T5_RUNS := $(call i_run,$(I_SCENES),implicit-euler,surrogate multiscale,$(I_METHODS),$(IMPLICIT_STEPS)) \
	$(if $(filter-out 0,$(FLAT_STEPS)),$(call i_run,$(I_SCENES),implicit-euler,flat,$(I_METHODS),$(FLAT_STEPS)))

.PHONY: table5
table5: $(T5_DIR)/table5.md
	@cat $<

$(T5_DIR)/table5.md: table5.py runs.py $(T5_RUNS)
	@mkdir -p $(T5_DIR)
	python3 table5.py $(I_DIR) $(IMPLICIT_STEPS) $(FLAT_STEPS) >$@.tmp && mv $@.tmp $@
