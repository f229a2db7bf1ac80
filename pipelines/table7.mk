# Paper Table 7 (Sec. 6.6): a unit sphere of 80 triangles pressed onto a
# fixed sphere scaled by SCALES (1 2 4 8), also of 80 triangles; implicit
# Euler, hybrid kernel, multiscale Picard (from the roots and warm-started)
# and surrogate within Picard:
# Picard iterations, comparisons and time per step, growth from the first
# scale to the last (SCALE_STEPS steps; implicit.mk): out/table7/table7.md.

T7_DIR := $(OUT)/table7
T7_RUNS := $(call i_run,$(SCALES:%=scaled-%-80),implicit-euler,surrogate multiscale multiscale-warm,hybrid,$(SCALE_STEPS))

.PHONY: table7
table7: $(T7_DIR)/table7.md
	@cat $<

$(T7_DIR)/table7.md: scaled.py runs.py $(T7_RUNS)
	@mkdir -p $(T7_DIR)
	python3 scaled.py 7 $(I_DIR) $(SCALE_STEPS) $(SCALES) >$@.tmp && mv $@.tmp $@
