# The experiments against published laws and the peer code LIGGGHTS: a
# hopper's discharge against Beverloo's law (beverloo.mk), a rotating
# drum's dynamic angle of repose (drum.mk), a heap's static angle of
# repose (heap.mk). Each writes $(OUT)/NAME/NAME.md; validation gathers
# them in $(OUT)/validation/validation.md. Without liggghts each report
# says the comparison was skipped and gives mrdem's figures alone.

VALIDATION := beverloo drum heap
V_DIR := $(OUT)/validation

.PHONY: validation
validation: $(VALIDATION)
	@mkdir -p $(V_DIR)
	cat $(foreach v,$(VALIDATION),$(OUT)/$v/$v.md) >$(V_DIR)/validation.md.tmp
	mv $(V_DIR)/validation.md.tmp $(V_DIR)/validation.md
	@echo "written: $(V_DIR)/validation.md"
