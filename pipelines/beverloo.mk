# A hopper's discharge against Beverloo's law and LIGGGHTS (beverloo.py):
# the mass flow rate of analytic spheres through the round orifice of a
# flat-bottomed cylindrical hopper for several orifice diameters, C and k
# fitted, the same with noisy mesh spheres, and LIGGGHTS on the same
# hopper; CPU time per step of both. $(OUT)/beverloo/beverloo.md.
#
#   BEVERLOO_ORIFICES          orifice diameters in particle diameters (4 5 6 8 10)
#   BEVERLOO_MESH_ORIFICES     the same for noisy mesh spheres (5 8; empty: none)
#   BEVERLOO_LIGGGHTS_ORIFICES the same for LIGGGHTS (5 8; empty: none)
#   BEVERLOO_BED               settled bed height in particle diameters (10)
#   BEVERLOO_WALL              orifice edge to wall in particle diameters (4)
#   BEVERLOO_WINDOW            longest measurement window in ms (600)
#
# make beverloo-quick writes $(OUT)/beverloo-quick/beverloo.md with two
# orifices, a low bed and no mesh spheres (a few minutes).

BEVERLOO_ORIFICES := 4 5 6 8 10
BEVERLOO_MESH_ORIFICES := 5 8
BEVERLOO_LIGGGHTS_ORIFICES := 5 8
BEVERLOO_BED := 10
BEVERLOO_WALL := 4
BEVERLOO_WINDOW := 600
BV_DIR := $(OUT)/beverloo
BVQ_DIR := $(OUT)/beverloo-quick

ifneq ($(filter beverloo beverloo-quick validation,$(MAKECMDGOALS)),)
$(call p_positives,BEVERLOO_ORIFICES, (orifice diameters in particle diameters))
$(if $(strip $(BEVERLOO_MESH_ORIFICES)),$(call p_positives,BEVERLOO_MESH_ORIFICES, (orifice diameters in particle diameters$(comma) or empty)))
$(if $(strip $(BEVERLOO_LIGGGHTS_ORIFICES)),$(call p_positives,BEVERLOO_LIGGGHTS_ORIFICES, (orifice diameters in particle diameters$(comma) or empty)))
$(call p_positive,BEVERLOO_BED, (bed height in particle diameters))
$(call p_positive,BEVERLOO_WALL, (particle diameters))
$(call p_positive,BEVERLOO_WINDOW, (milliseconds))
endif

bv_list = $(or $(subst $(eval) ,$(comma),$(strip $1)),none)
BV_ARGS = --orifices $(call bv_list,$(BEVERLOO_ORIFICES)) \
	--mesh-orifices $(call bv_list,$(BEVERLOO_MESH_ORIFICES)) \
	--liggghts-orifices $(call bv_list,$(BEVERLOO_LIGGGHTS_ORIFICES)) \
	--bed $(BEVERLOO_BED) --wall $(BEVERLOO_WALL) --max-window $(BEVERLOO_WINDOW)e-3
BVQ_ARGS = --orifices 5,7 --mesh-orifices none --liggghts-orifices 5,7 --bed 4 --wall 3 \
	--min-window 0.08 --max-window 0.08

.PHONY: beverloo beverloo-quick beverloo-tools
beverloo: $(BV_DIR)/beverloo.md
	@cat $<

beverloo-quick: $(BVQ_DIR)/beverloo.md
	@cat $<

beverloo-tools:
	$(TOOLS_MAKE) bin/mrdem-run bin/mrdem-init bin/mrdem-mesh

$(BV_DIR)/beverloo.md: beverloo.py liggghts.py | beverloo-tools
	@mkdir -p $(BV_DIR)
	python3 beverloo.py $(BIN) $(BV_DIR) $(BV_ARGS) \
		--command "make -C pipelines beverloo $(strip \
		BEVERLOO_ORIFICES='$(BEVERLOO_ORIFICES)' BEVERLOO_MESH_ORIFICES='$(BEVERLOO_MESH_ORIFICES)' \
		BEVERLOO_LIGGGHTS_ORIFICES='$(BEVERLOO_LIGGGHTS_ORIFICES)' BEVERLOO_BED=$(BEVERLOO_BED) \
		BEVERLOO_WALL=$(BEVERLOO_WALL) BEVERLOO_WINDOW=$(BEVERLOO_WINDOW))" >$@.tmp && mv $@.tmp $@

$(BVQ_DIR)/beverloo.md: beverloo.py liggghts.py | beverloo-tools
	@mkdir -p $(BVQ_DIR)
	python3 beverloo.py $(BIN) $(BVQ_DIR) $(BVQ_ARGS) \
		--command "make -C pipelines beverloo-quick" >$@.tmp && mv $@.tmp $@
