# The runs behind paper Tables 5-8 and the implicit Figure 4, one mrdem-run
# each (run.sh): $(I_DIR)/SCENE/SCHEME.HIERARCHY.METHOD.STEPS.log (its
# standard error with the --log-view report) and .csv (mrdem-stats), beside
# the .mrd and the scene, $(I_DIR)/SCENE/scene.yaml (scenes.py). A run is
# redone when its scene, run.sh or the tools change; a multiscale run that
# mrdem-run refuses is recorded as not available (a .log, no .csv).
#
#   IMPLICIT_STEPS  steps of every run (default 100, as the paper)
#   FLAT_STEPS      steps of the flat runs (1,280 x 1,280 triangles per
#                   Picard iteration; default IMPLICIT_STEPS; 0: no flat runs)
#   SCALE_STEPS     steps of the runs of Tables 7 and 8 (default IMPLICIT_STEPS)
#   SCALES          the scales of Tables 7 and 8 (default 1 2 4 8)
#   T9_COUNT        Table 9's lattice, X-Y-Z spheres (default 32-32-24, the
#                   paper's 24,576)

IMPLICIT_STEPS := 100
$(call p_positive,IMPLICIT_STEPS)
FLAT_STEPS = $(IMPLICIT_STEPS)
$(call p_natural,FLAT_STEPS, (0: no flat runs))
SCALE_STEPS = $(IMPLICIT_STEPS)
$(call p_positive,SCALE_STEPS)
SCALES := 1 2 4 8
I_DIR := $(OUT)/implicit
I_TOOLS := $(BIN)/mrdem-run $(BIN)/mrdem-stats
I_SCENES := particle-particle particle-on-plane
I_METHODS := comparison hybrid
# Table 8: the triangles of the sphere at each scale, the size of the
# triangles kept (scenes.py: scaled-SCALE-TRIANGLES).
I_T8 := 1:80 2:320 4:1280 8:5120
i_t8 = scaled-$1-$(or $(patsubst $1:%,%,$(filter $1:%,$(I_T8))),$(error SCALES: $1 is none of $(I_T8)))
I_SCALED := $(sort $(foreach s,$(SCALES),scaled-$s-80 $(call i_t8,$s)))
T9_COUNT := 32-32-24
$(call p_count,T9_COUNT, (spheres along x$(comma) y and z))
I_LATTICE := lattice-$(T9_COUNT) lattice-rotated-$(T9_COUNT)

# $(call i_run,SCENES,SCHEME,HIERARCHIES,METHODS,STEPS): the runs' .log files
i_run = $(foreach s,$1,$(foreach h,$3,$(foreach m,$4,$(I_DIR)/$s/$2.$h.$m.$5.log)))

# The tools are made (nothing with MRDEM_BIN) before a run looks at their age.
$(I_TOOLS): $(BIN)/%: pipelines-force
	$(TOOLS_MAKE) bin/$*

.PHONY: pipelines-force
pipelines-force:

# Every scene's YAML in one go; scenes.py rewrites only those that changed,
# and only their runs are redone.
$(I_DIR)/scenes.stamp: scenes.py
	@mkdir -p $(@D)
	python3 scenes.py --write $(I_DIR) $(I_SCENES) $(I_SCALED) $(I_LATTICE) && touch $@

$(I_DIR)/%/scene.yaml: $(I_DIR)/scenes.stamp
	@test -e $@ || python3 scenes.py --write $(I_DIR) $*

# A pattern rule per scene, so that a run depends on its scene's YAML.
define i_scene
$(I_DIR)/$1/%.log: $(I_DIR)/$1/scene.yaml run.sh $(I_TOOLS)
	sh run.sh $(BIN) $$< $$(basename $$@) $$(subst ., ,$$*)
endef
$(foreach s,$(I_SCENES) $(I_SCALED) $(I_LATTICE),$(eval $(call i_scene,$s)))

.PRECIOUS: $(I_DIR)/scenes.stamp $(I_DIR)/%/scene.yaml $(I_DIR)/%.log
