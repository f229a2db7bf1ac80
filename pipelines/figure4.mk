# Paper Figure 4 (Sec. 6.4): triangle comparisons per surrogate level per
# step of Table 4's explicit runs (particle-particle, particle-on-plane;
# surrogate search, FIG4_METHOD kernel): $(OUT)/figure4/figure4-SCENE.csv and
# .png (stacked by level), per level means in $(OUT)/figure4/figure4.md.

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
