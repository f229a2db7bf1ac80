# Numerical dissipation of implicit Euler: kinetic energy lost through one
# head-on collision of two spheres against dt, beside the linear-oscillator
# prediction and explicit Euler and velocity Verlet: out/dissipation/dissipation.md.

DS_DIR := $(OUT)/dissipation

.PHONY: dissipation dissipation-tools
dissipation: $(DS_DIR)/dissipation.md
	@cat $<

dissipation-tools:
	$(TOOLS_MAKE) bin/mrdem-run bin/mrdem-stats bin/mrdem-info

$(DS_DIR)/dissipation.md: dissipation.py | dissipation-tools
	@mkdir -p $(DS_DIR)
	python3 dissipation.py $(BIN) $(DS_DIR) >$@.tmp && mv $@.tmp $@
