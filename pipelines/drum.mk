# A rotating drum's dynamic angle of repose (drum.py): analytic spheres at
# two speeds, mrdem against LIGGGHTS on the same drum from the same settled
# bed, and noisy mesh spheres at the faster speed: $(OUT)/drum/drum.md.
#
#   DRUM_PARTICLES    spheres in the drum (900: about half full)
#   DRUM_ROTATION_MS  milliseconds of rotation after the fill (2000)
#   DRUM_OMEGAS_MRAD  the two speeds, mrad/s (500 1500: Froude 1e-3, 9e-3)
#   DRUM_MESH         1: also the noisy mesh spheres; 0: not
#   DRUM_QUICK        1: the small drum of tests/e2e/drum.sh instead
#                     (the three above then default to its own sizes)

DRUM_PARTICLES := 900
DRUM_ROTATION_MS := 2000
DRUM_OMEGAS_MRAD := 500 1500
DRUM_MESH := 1
DRUM_QUICK := 0
$(call p_positive,DRUM_PARTICLES)
$(call p_positive,DRUM_ROTATION_MS)
$(call p_positives,DRUM_OMEGAS_MRAD)
$(if $(filter 2,$(words $(DRUM_OMEGAS_MRAD))),,$(error DRUM_OMEGAS_MRAD must be two speeds$(comma) got '$(DRUM_OMEGAS_MRAD)'))
$(if $(filter 0 1,$(DRUM_MESH)),,$(error DRUM_MESH must be 0 or 1$(comma) got '$(DRUM_MESH)'))
$(if $(filter 0 1,$(DRUM_QUICK)),,$(error DRUM_QUICK must be 0 or 1$(comma) got '$(DRUM_QUICK)'))

DR_DIR := $(OUT)/drum
DR_ARGS := $(if $(filter 1,$(DRUM_QUICK)),--quick,--particles $(DRUM_PARTICLES) \
  --rotation $(DRUM_ROTATION_MS)e-3 --omegas $(foreach w,$(DRUM_OMEGAS_MRAD),$(w)e-3)) \
  $(if $(filter 0,$(DRUM_MESH)),--no-mesh)

.PHONY: drum drum-tools
# Always run afresh: the report is of the sizes asked now.
drum: drum.py liggghts.py | drum-tools
	@mkdir -p $(DR_DIR)
	python3 drum.py $(BIN) $(DR_DIR) $(DR_ARGS) --json $(DR_DIR)/drum.json >$(DR_DIR)/drum.md.tmp
	@mv $(DR_DIR)/drum.md.tmp $(DR_DIR)/drum.md && cat $(DR_DIR)/drum.md

drum-tools:
	$(TOOLS_MAKE) bin/mrdem-run bin/mrdem-mesh
