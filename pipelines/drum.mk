# A rotating drum's dynamic angle of repose (drum.py): analytic spheres at
# two speeds, mrdem against LIGGGHTS on the same drum from the same settled
# bed, and noisy mesh spheres at the faster speed: $(OUT)/drum/drum.md.
#
#   DRUM_RADIUS_MM    the drum's radius, mm (40)
#   DRUM_LENGTH_MM    its inner length, mm (20)
#   DRUM_PARTICLES    spheres in the drum (900: about half full)
#   DRUM_ROTATION_MS  milliseconds of rotation after the fill (2500); the
#                     angle is measured once the drum has turned 1 rad
#   DRUM_OMEGAS_MRAD  the two speeds, mrad/s (800 1600: Froude 2.6e-3, 1.0e-2)
#   DRUM_MESH         1: also the noisy mesh spheres; 0: not
#   DRUM_QUICK        1: the small drum of tests/e2e/drum.sh instead (one
#                     speed, 0.5 s; the variables above are not used)
#
# Cost: mrdem's step is dominated by the sphere-drum pairs (every sphere
# is a candidate of the one big drum mesh): measured, 4.5 ms of CPU per
# step for the default's 900 spheres, 1.2 ms for 300 in the drum below,
# 0.45 ms for the test's 150; LIGGGHTS takes 0.12-0.15 ms for 150-300. The
# default then needs about 30 minutes of CPU (two sphere runs of 75,000
# steps, LIGGGHTS's two, the mesh run the longest part), estimated from
# those figures, not run here.
#
# Measured (a shared two-core machine), a smaller drum:
#   make -C pipelines drum DRUM_RADIUS_MM=30 DRUM_LENGTH_MM=16 DRUM_PARTICLES=300 \
#     DRUM_OMEGAS_MRAD="1000 1800" DRUM_ROTATION_MS=2000
# (the mesh row from drum.py --mesh-only on the same drum): angle of the
# bed's principal axis, mean over the frames after 1 rad, +- their spread:
#   omega 1.0 rad/s (Froude 3.1e-3): mrdem 36.6 +- 1.6, LIGGGHTS 36.3 +- 3.3 deg
#   omega 1.8 rad/s (Froude 9.9e-3): mrdem 37.9 +- 4.1, LIGGGHTS 37.0 +- 3.2 deg
#   (free-surface fit: 36.5 / 36.3 and 37.6 / 37.3); CPU per step 1.24 and
#   1.14 ms (mrdem), 0.150 and 0.135 ms (LIGGGHTS): 8.2 and 8.4 times.
#   Noisy mesh spheres (80 triangles, noise 1.15) at 1.8 rad/s: 41.6 +- 2.0
#   deg (free surface 40.7), 3.7 deg above the analytic spheres; 10.2 ms
#   per step. 300 particles and their mass kept in every run; the spheres
#   at the mantle turn at 0.92 and 1.68 rad/s (mesh: 1.79); the torque on
#   the drum about y is -0.0018 to -0.0020 N m, against the rotation.
# The surface rises with the drum first (omega 1.0: 9, 20, 29, 35, 36 deg
# at 0.2, 0.4, 0.6, 0.8, 1.0 rad turned), hence the 1 rad before measuring.

DRUM_RADIUS_MM := 40
DRUM_LENGTH_MM := 20
DRUM_PARTICLES := 900
DRUM_ROTATION_MS := 2500
DRUM_OMEGAS_MRAD := 800 1600
DRUM_MESH := 1
DRUM_QUICK := 0
$(call p_positive,DRUM_RADIUS_MM)
$(call p_positive,DRUM_LENGTH_MM)
$(call p_positive,DRUM_PARTICLES)
$(call p_positive,DRUM_ROTATION_MS)
$(call p_positives,DRUM_OMEGAS_MRAD)
$(if $(filter 2,$(words $(DRUM_OMEGAS_MRAD))),,$(error DRUM_OMEGAS_MRAD must be two speeds$(comma) got '$(DRUM_OMEGAS_MRAD)'))
$(if $(filter 0 1,$(DRUM_MESH)),,$(error DRUM_MESH must be 0 or 1$(comma) got '$(DRUM_MESH)'))
$(if $(filter 0 1,$(DRUM_QUICK)),,$(error DRUM_QUICK must be 0 or 1$(comma) got '$(DRUM_QUICK)'))

DR_DIR := $(OUT)/drum
DR_ARGS := $(if $(filter 1,$(DRUM_QUICK)),--quick,--radius $(DRUM_RADIUS_MM)e-3 \
  --length $(DRUM_LENGTH_MM)e-3 --particles $(DRUM_PARTICLES) \
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
