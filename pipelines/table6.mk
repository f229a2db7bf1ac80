# Paper Table 6 (Sec. 6.5): triangle comparisons, iterative comparisons,
# fallbacks and wall time per implicit Euler step for flat search (FLAT_STEPS
# steps), surrogate within Picard and multiscale Picard, both kernels, both
# scenes of Table 4; the implicit step's wall time over an explicit
# surrogate step's (paper Observation 6); multiscale Picard warm-started
# (--warm-start) beside it, with the saving: out/table6/table6.md.

T6_DIR := $(OUT)/table6
T6_RUNS := $(T5_RUNS) $(call i_run,$(I_SCENES),explicit-euler,surrogate,hybrid,$(IMPLICIT_STEPS)) \
	$(call i_run,$(I_SCENES),implicit-euler,multiscale-warm,$(I_METHODS),$(IMPLICIT_STEPS))

.PHONY: table6
table6: $(T6_DIR)/table6.md
	@cat $<

$(T6_DIR)/table6.md: table6.py runs.py $(T6_RUNS)
	@mkdir -p $(T6_DIR)
	python3 table6.py $(I_DIR) $(IMPLICIT_STEPS) $(FLAT_STEPS) >$@.tmp && mv $@.tmp $@
