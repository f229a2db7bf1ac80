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

# table6-plot: the comparisons per implicit step of Table 6 (comparison
# kernel), ours beside the paper's, as a log-scale bar chart:
# out/table6/table6-comparisons.csv, .md and .png.
.PHONY: table6-plot
table6-plot: $(T6_DIR)/table6-comparisons.md table6.gp plot.sh
	@cat $<
	@sh plot.sh table6.gp $(T6_DIR)/table6-comparisons.png $(T6_DIR)/table6-comparisons.csv \
	  "Table 6: triangle comparisons per implicit step (comparison kernel)"

T6P_RUNS := $(call i_run,$(I_SCENES),implicit-euler,surrogate multiscale,comparison,$(IMPLICIT_STEPS)) \
	$(if $(filter-out 0,$(FLAT_STEPS)),$(call i_run,$(I_SCENES),implicit-euler,flat,comparison,$(FLAT_STEPS)))

$(T6_DIR)/table6-comparisons.md: table6_plot.py table6_paper.py runs.py $(T6P_RUNS)
	@mkdir -p $(T6_DIR)
	python3 table6_plot.py $(I_DIR) $(IMPLICIT_STEPS) $(FLAT_STEPS) $(T6_DIR) >$@.tmp && mv $@.tmp $@
