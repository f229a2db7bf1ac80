# Energy (kinetic, gravitational, contact, total) and linear and angular
# momentum over time of the shipped examples, from mrdem-stats:
# $(OUT)/energy-NAME.csv and .png, a summary in $(OUT)/energy/energy.md.
# ENERGY_STEPS and ENERGY_EVERY shorten the runs (default: the scenes').

ENERGY_SCENES := two-spheres sphere-on-plane
ENERGY_STEPS  :=
ENERGY_EVERY  :=
# empty: the scene's own
$(if $(strip $(ENERGY_STEPS)),$(call p_natural,ENERGY_STEPS, (or empty)))
$(if $(strip $(ENERGY_EVERY)),$(call p_positive,ENERGY_EVERY, (or empty)))
E_DIR := $(OUT)/energy
E_CSV := $(ENERGY_SCENES:%=$(OUT)/energy-%.csv)
E_RUN := $(if $(ENERGY_STEPS),--steps $(ENERGY_STEPS)) $(if $(ENERGY_EVERY),--every $(ENERGY_EVERY))

.PHONY: energy energy-tools
energy: $(E_DIR)/energy.md energy.gp plot.sh
	@cat $<
	@for s in $(ENERGY_SCENES); do \
	  sh plot.sh energy.gp $(OUT)/energy-$$s.png $(OUT)/energy-$$s.csv "$$s" || exit 1; done

energy-tools:
	$(TOOLS_MAKE) bin/mrdem-run bin/mrdem-stats

$(E_DIR)/%.mrd: $(TOP)/examples/%.yaml | energy-tools
	@mkdir -p $(E_DIR)
	$(BIN)/mrdem-run -q $< $(E_RUN) -o $@.tmp && mv $@.tmp $@

$(E_DIR)/%-stats.csv: $(E_DIR)/%.mrd
	$(BIN)/mrdem-stats $< -o $@

$(OUT)/energy-%.csv: $(E_DIR)/%-stats.csv energy.py
	python3 energy.py $< $@.tmp && mv $@.tmp $@

$(E_DIR)/energy.md: $(E_CSV)
	python3 energy.py --markdown $(foreach s,$(ENERGY_SCENES),$(s)=$(OUT)/energy-$(s).csv) >$@.tmp && mv $@.tmp $@

.PRECIOUS: $(E_DIR)/%.mrd $(E_DIR)/%-stats.csv
