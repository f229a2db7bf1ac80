# CPU time of a step with the patch force models against the paper's
# spring on Table 4's scenes, one thread (models.py): out/models/models.md.

MODEL_STEPS := 50
MODEL_REPS := 30
$(call p_positive,MODEL_STEPS)
$(call p_positive,MODEL_REPS)
MODELS_DIR := $(OUT)/models

.PHONY: models
models: $(I_TOOLS)
	@mkdir -p $(MODELS_DIR)
	python3 models.py $(BIN) $(MODELS_DIR) $(MODEL_STEPS) $(MODEL_REPS) particle-particle particle-on-plane \
		>$(MODELS_DIR)/models.md.tmp && mv $(MODELS_DIR)/models.md.tmp $(MODELS_DIR)/models.md
	@cat $(MODELS_DIR)/models.md
