# Paper Table 4 (Sec. 6.4): explicit time stepping of the particle-particle
# and particle-on-plane scenes (spheres of 1,280 triangles, 100 steps in
# the contact phase), flat against surrogate search, comparison against
# hybrid kernels: triangle comparisons, iterative tests and fallbacks per
# step, and wall time of contact detection per step, beside the paper's
# figures: out/table4/table4.md.

T4_DIR := $(OUT)/table4

.PHONY: table4
table4: $(T4_DIR)/table4.md
	@cat $<

$(T4_DIR)/table4.md: table4.py scenes.py
	$(MAKE) -C $(TOP) bin/mrdem-run bin/mrdem-stats bin/mrdem-mesh
	@mkdir -p $(T4_DIR)
	python3 table4.py $(BIN) $(T4_DIR) >$@.tmp && mv $@.tmp $@
