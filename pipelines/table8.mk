# Paper Table 8 (Sec. 6.6): as Table 7 (table7.mk), but the scaled sphere
# subdivided to keep the triangle size: 80, 320, 1,280, 5,120 triangles at
# scale 1, 2, 4, 8 (I_T8 in implicit.mk): out/table8/table8.md.

T8_DIR := $(OUT)/table8
T8_RUNS := $(call i_run,$(foreach s,$(SCALES),$(call i_t8,$s)),implicit-euler,surrogate multiscale multiscale-warm,hybrid,$(SCALE_STEPS))

.PHONY: table8
table8: $(T8_DIR)/table8.md
	@cat $<

$(T8_DIR)/table8.md: scaled.py runs.py $(T8_RUNS)
	@mkdir -p $(T8_DIR)
	python3 scaled.py 8 $(I_DIR) $(SCALE_STEPS) $(SCALES) >$@.tmp && mv $@.tmp $@
