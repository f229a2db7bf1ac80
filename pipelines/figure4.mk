# Paper Figure 4 (Sec. 6.4): triangle comparisons per surrogate level per
# step of Table 4's explicit runs (particle-particle, particle-on-plane;
# surrogate search, FIG4_METHOD kernel): $(OUT)/figure4/figure4-SCENE.csv and
# .png (stacked by level), per level means in $(OUT)/figure4/figure4.md.
#
# figure4-implicit: the same for implicit Euler (Sec. 6.5), the paper's
# layers: triangle comparisons per step stacked by Picard iteration (and by
# surrogate round for multiscale Picard) of Table 6's FIG4_METHOD runs
# (surrogate within Picard, multiscale Picard; implicit.mk):
# $(OUT)/figure4-implicit/figure4-implicit-SCENE-HIERARCHY[-rounds].csv and
# .png, per layer means in $(OUT)/figure4-implicit/figure4-implicit.md.

FIG4_SCENES := particle-particle particle-on-plane
FIG4_METHOD := hybrid
F4_DIR := $(OUT)/figure4

.PHONY: figure4
figure4: $(F4_DIR)/figure4.md figure4.gp plot.sh
	@cat $<
	@for s in $(FIG4_SCENES); do \
	  sh plot.sh figure4.gp $(F4_DIR)/figure4-$$s.png $(F4_DIR)/figure4-$$s.csv "$$s, $(FIG4_METHOD)" || exit 1; done

$(F4_DIR)/figure4.md: $(OUT)/table4/table4.md figure4.py
	@mkdir -p $(F4_DIR)
	python3 figure4.py $(BIN) $(T4_DIR) $(F4_DIR) $(FIG4_METHOD) $(FIG4_SCENES) >$@.tmp && mv $@.tmp $@

F4I_DIR := $(OUT)/figure4-implicit
F4I_RUNS := $(call i_run,$(FIG4_SCENES),implicit-euler,surrogate multiscale,$(FIG4_METHOD),$(IMPLICIT_STEPS))

.PHONY: figure4-implicit
figure4-implicit: $(F4I_DIR)/figure4-implicit.md figure4.gp plot.sh
	@cat $<
	@for f in $(F4I_DIR)/figure4-implicit-*.csv; do \
	  t=$${f##*/figure4-implicit-}; t=$${t%.csv}; \
	  sh plot.sh figure4.gp $${f%.csv}.png $$f "$$t, $(FIG4_METHOD), implicit Euler" || exit 1; done

$(F4I_DIR)/figure4-implicit.md: figure4_implicit.py runs.py $(F4I_RUNS)
	@mkdir -p $(F4I_DIR)
	rm -f $(F4I_DIR)/figure4-implicit-*.csv
	python3 figure4_implicit.py $(I_DIR) $(IMPLICIT_STEPS) $(F4I_DIR) $(FIG4_METHOD) $(FIG4_SCENES) >$@.tmp && mv $@.tmp $@
