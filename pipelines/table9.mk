# Paper Table 9 (Sec. 6.7): the lattice of spheres of 1,224 triangles at
# rest, axis neighbours' halos barely overlapping (T9_COUNT spheres, default
# the paper's 32-32-24), and the same lattice with every sphere turned at
# random; implicit Euler with surrogate search within Picard and multiscale
# Picard (from the roots and warm-started), comparison and hybrid kernels,
# and an explicit Euler step for reference: comparisons, time per step and
# peak memory (T9_STEPS steps each, default 2; T9_FLAT_STEPS > 0 adds the
# flat search, 6.5e9 comparisons per step on the full lattice), and per
# particle beside the paper's figures over its 24,576 particles:
# out/table9/table9.md. A run of the full lattice takes minutes;
# T9_COUNT=4-4-3 runs in seconds. A T9_ variable of the wrong form stops
# make at once, before any run.

T9_STEPS := 2
T9_FLAT_STEPS := 0
T9_DIR := $(OUT)/table9
$(call p_positive,T9_STEPS)
$(call p_natural,T9_FLAT_STEPS, (0: no flat runs))
T9_RUNS := $(call i_run,$(I_LATTICE),implicit-euler,surrogate multiscale multiscale-warm,comparison hybrid,$(T9_STEPS)) \
	$(call i_run,$(I_LATTICE),explicit-euler,surrogate,hybrid,$(T9_STEPS)) \
	$(if $(filter-out 0,$(T9_FLAT_STEPS)),$(call i_run,$(I_LATTICE),implicit-euler,flat,comparison hybrid,$(T9_FLAT_STEPS)))

.PHONY: table9
table9: $(T9_DIR)/table9.md
	@cat $<

$(T9_DIR)/table9.md: table9.py runs.py $(T9_RUNS)
	@mkdir -p $(T9_DIR)
	python3 table9.py $(I_DIR) $(T9_COUNT) $(T9_STEPS) $(T9_FLAT_STEPS) >$@.tmp && mv $@.tmp $@ || \
		{ rm -f $@.tmp; exit 1; }
