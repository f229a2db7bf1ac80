# A hopper's discharge against Beverloo's law and LIGGGHTS (beverloo.py):
# the mass flow rate of analytic spheres through the round orifice of a
# flat-bottomed cylindrical hopper for several orifice diameters, C and k
# fitted, the same with noisy mesh spheres, and LIGGGHTS on the same
# hopper; CPU time per step of both. $(OUT)/beverloo/beverloo.md.
#
#   BEVERLOO_ORIFICES          orifice diameters in particle diameters (4 5 6 8 10)
#   BEVERLOO_MESH_ORIFICES     the same for noisy mesh spheres (5 8; empty: none)
#   BEVERLOO_LIGGGHTS_ORIFICES the same for LIGGGHTS (5 8; empty: none)
#   BEVERLOO_BED               settled bed height in particle diameters (8)
#   BEVERLOO_WALL              orifice edge to wall in particle diameters (4)
#   BEVERLOO_WINDOW            longest measurement window in ms (300)
#
# make beverloo-quick writes $(OUT)/beverloo-quick/beverloo.md with two
# orifices, a low bed and no mesh spheres (a few minutes).
#
# Measured on a shared two-core machine (one thread each), a smaller run:
# `python3 pipelines/beverloo.py bin OUT --orifices 4,5,6,7 --mesh-orifices
# 5,7 --liggghts-orifices 5,7 --bed 4 --wall 3 --min-window 0.1
# --max-window 0.1` (360 to 608 spheres of 5 mm): analytic spheres
# W = 0.036, 0.088, 0.169, 0.257 kg/s for D = 4, 5, 6, 7 d (0.87 to 1.02 of
# Beverloo with C = 0.58, k = 1.5 and the measured rho_b, 1263 kg/m^3 or
# 0.51 rho); fitted C = 0.524, k = 1.46. Noisy mesh spheres: 0.063 and
# 0.207 kg/s for 5 and 7 d (0.68 and 0.74 of Beverloo; C = 0.473,
# k = 1.73). LIGGGHTS: 0.081 and 0.247 kg/s (mrdem's analytic W 1.09 and
# 1.04 times LIGGGHTS's). CPU time per step: mrdem 1.5 to 2.1 ms analytic,
# 12 to 15 ms mesh; LIGGGHTS 0.18 ms (about 4 us per analytic sphere per
# step in mrdem, 25 us per mesh sphere, 0.3 to 0.4 us in LIGGGHTS). At those
# rates the defaults take about 11 min of CPU for the analytic spheres,
# 26 min for the mesh spheres and under a minute for LIGGGHTS.

BEVERLOO_ORIFICES := 4 5 6 8 10
BEVERLOO_MESH_ORIFICES := 5 8
BEVERLOO_LIGGGHTS_ORIFICES := 5 8
BEVERLOO_BED := 8
BEVERLOO_WALL := 4
BEVERLOO_WINDOW := 300
BV_DIR := $(OUT)/beverloo
BVQ_DIR := $(OUT)/beverloo-quick

BV_EMPTY = $(eval) (orifice diameters in particle diameters$(comma) or empty)
ifneq ($(filter beverloo beverloo-quick validation,$(MAKECMDGOALS)),)
$(call p_positives,BEVERLOO_ORIFICES, (orifice diameters in particle diameters))
$(if $(strip $(BEVERLOO_MESH_ORIFICES)),$(call p_positives,BEVERLOO_MESH_ORIFICES,$(BV_EMPTY)))
$(if $(strip $(BEVERLOO_LIGGGHTS_ORIFICES)),$(call p_positives,BEVERLOO_LIGGGHTS_ORIFICES,$(BV_EMPTY)))
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
