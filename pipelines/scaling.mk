# Scaling with the mesh resolution (scaling.py): two spheres of T triangles
# in contact, flat against surrogate search, comparisons and detection time
# per step against T: $(OUT)/scaling/scaling.csv, .md and, with gnuplot, a
# log-log plot scaling.png.

SCALING_TRIANGLES := 80 320 1280 5120
SCALING_STEPS := 10
$(call p_positive,SCALING_STEPS)
$(call p_positives,SCALING_TRIANGLES, (triangles per sphere))
SCALING_DIR := $(OUT)/scaling

.PHONY: scaling
scaling: $(SCALING_DIR)/scaling.md scaling.gp plot.sh
	@cat $<
	@sh plot.sh scaling.gp $(SCALING_DIR)/scaling.png $(SCALING_DIR)/scaling.csv \
	  "two spheres of T triangles in contact, $(SCALING_STEPS) explicit steps, one thread"

$(SCALING_DIR)/scaling.md: scaling.py scenes.py
	$(TOOLS_MAKE) bin/mrdem-run bin/mrdem-stats
	@mkdir -p $(SCALING_DIR)
	python3 scaling.py $(BIN) $(SCALING_DIR) $(SCALING_STEPS) $(SCALING_TRIANGLES) >$@.tmp && mv $@.tmp $@
